//! JSON objects inside markup: the legacy `<tool>{…}</tool>` form (docs/FORMAT.md §1.3) and
//! Hermes' `<tool_call>{…}</tool_call>` (§9.2).
//!
//! The scanner finds where the object ends without parsing it (strings, escapes and nesting
//! only), resumably across chunks, so that a `</tool>` inside a JSON string ends nothing.

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
    /// A `<` outside any string at this index: the JSON is broken (likely `</tool>` came early).
    Markup(usize),
    /// The `{` or `[` at this index nests deeper than the limit.
    TooDeep(usize),
    /// The `{`, `[` or `,` at this index begins one value more than the limit.
    TooMany(usize),
    /// The slice ended inside the value.
    More,
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
                    return JsonScan::TooMany(i);
                }
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.depth += 1;
                    if self.depth + 1 > max_depth {
                        return JsonScan::TooDeep(i);
                    }
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return JsonScan::End(i + 1);
                    }
                }
                b'<' => return JsonScan::Markup(i),
                _ => {}
            }
        }
        JsonScan::More
    }
}

/// Bytes of the strings in a JSON argument, at any depth: its decoded text, as
/// `max_argument_bytes` counts it in every JSON object of a call (the legacy `<tool>` form,
/// Hermes).
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
