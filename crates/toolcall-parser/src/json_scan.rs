//! JSON objects inside markup: the legacy `<tool>{…}</tool>` form (docs/FORMAT.md §1.3),
//! Hermes' `<tool_call>{…}</tool_call>` (§9.2) and Kimi-K3's `json` block (§9.6 rule 9).
//!
//! The scanner finds where the object ends without parsing it (strings, escapes and nesting
//! only), resumably across chunks, so that a `</tool>` inside a JSON string ends nothing.

use crate::error::{ErrorKind, Limit};
use arg_types::{Map, Value};

/// Where a resumable scan of a JSON value stands.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct JsonScanner {
    depth: usize,
    /// Objects, arrays and members or items begun (each `{`, `[` and `,` outside strings).
    values: usize,
    in_string: bool,
    escaped: bool,
}

/// What the scan found.
pub(crate) enum JsonScan {
    /// The value ends after this many bytes of the slice.
    End(usize),
    /// The slice ended inside the value.
    More,
    /// The value cannot be read: a limit met, or markup inside it.
    Failed(ScanFailure),
}

/// Why a scan stopped before the value's end, as the call's error (the same for every JSON
/// form: the legacy `<tool>{…}`, Hermes, Kimi-K3's `json` block).
pub(crate) struct ScanFailure {
    /// The index, in the slice scanned, of the byte that failed it: a `<` outside any string
    /// (the JSON is broken, likely its closer came early), a `{` or `[` nesting deeper than the
    /// limit, or a `{`, `[` or `,` beginning one value more than the limit.
    pub(crate) at: usize,
    pub(crate) kind: ErrorKind,
    /// The limit met, if one was.
    pub(crate) limit: Option<Limit>,
    pub(crate) message: String,
}

impl JsonScan {
    /// A failed scan.
    fn failed(at: usize, kind: ErrorKind, limit: Option<Limit>, message: String) -> JsonScan {
        JsonScan::Failed(ScanFailure {
            at,
            kind,
            limit,
            message,
        })
    }
}

impl JsonScanner {
    /// Objects, arrays and members or items begun so far.
    pub(crate) fn values(&self) -> usize {
        self.values
    }

    /// Scans `s`, which continues where the previous call stopped. Objects and arrays may nest
    /// `max_depth` deep (`max_depth` counts the enclosing `<tool>` as 1, as the XML form does);
    /// `max_values` bounds the objects, arrays and members or items (`Limits::max_elements`).
    pub(crate) fn scan(&mut self, s: &[u8], max_depth: usize, max_values: usize) -> JsonScan {
        for (i, &b) in s.iter().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            if matches!(b, b'{' | b'[' | b',') {
                self.values += 1;
                if self.values > max_values {
                    return JsonScan::failed(
                        i,
                        ErrorKind::LimitExceeded,
                        Some(Limit::MaxElements),
                        format!(
                            "the call's JSON has more than {max_values} objects, arrays and values"
                        ),
                    );
                }
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.depth += 1;
                    if self.depth + 1 > max_depth {
                        return JsonScan::failed(
                            i,
                            ErrorKind::LimitExceeded,
                            Some(Limit::MaxDepth),
                            format!("the call's JSON is nested deeper than {max_depth} levels"),
                        );
                    }
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return JsonScan::End(i + 1);
                    }
                }
                b'<' => {
                    return JsonScan::failed(
                        i,
                        ErrorKind::InvalidJson,
                        None,
                        "the call's JSON object is not closed before this '<'".to_owned(),
                    );
                }
                _ => {}
            }
        }
        JsonScan::More
    }
}

/// Bytes of the strings in a JSON argument, at any depth: its decoded text, as
/// `max_argument_bytes` counts it in every JSON object of a call (the legacy `<tool>` form,
/// Hermes, Kimi-K3's `json` block).
pub(crate) fn string_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(string_bytes).sum(),
        Value::Object(m) => m.values().map(string_bytes).sum(),
        _ => 0,
    }
}

/// The parts of a legacy call.
pub(crate) struct LegacyCall {
    pub(crate) server_name: Option<String>,
    pub(crate) tool_name: Option<String>,
    pub(crate) arguments: Map,
}

/// Reads the JSON object; on failure, the byte offset in `text` of the problem and a message.
pub(crate) fn read(text: &str) -> Result<LegacyCall, (usize, String)> {
    // Read as an argument value, not as `serde_json::Value`, to which one member name means raw
    // JSON text (`arg_types::value::deserialize_json`).
    let json: Value = serde_json::from_str(text).map_err(|e| {
        let offset = offset_of(text, e.line(), e.column());
        (offset, format!("invalid JSON in the call: {e}"))
    })?;
    let Value::Object(mut obj) = json else {
        return Err((0, "the JSON in the call is not an object".into()));
    };
    let string = |v: Option<Value>, what: &str| match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err((0, format!("\"{what}\" must be a string"))),
    };
    let server_name = string(obj.shift_remove("server_name"), "server_name")?;
    let tool_name = string(obj.shift_remove("tool_name"), "tool_name")?;
    let arguments = match obj.shift_remove("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err((0, "\"arguments\" must be an object".into())),
    };
    Ok(LegacyCall {
        server_name,
        tool_name,
        arguments,
    })
}

/// The byte offset of serde_json's 1-based line and column (columns count bytes).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    let mut at = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
