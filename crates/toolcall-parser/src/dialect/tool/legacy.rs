//! The legacy JSON form inside `<tool>` (docs/FORMAT.md §1.3): scanning to the object's end,
//! then reading it.

use super::*;
use crate::call::{ArgumentEncoding, Encoding};
use crate::error::{ErrorKind, Limit};
use crate::event::StreamEvent;
use crate::json_scan::{self as legacy_json, JsonScan};
use crate::lexer::Lexeme;
use xml_fallback::text::is_blank;
use xml_fallback::tree::Element;

impl ToolXml {
    pub(super) fn json(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        let Mode::Json { start, mut scanner } = self.mode else {
            return Flow::Again;
        };
        let bytes = w.as_bytes();
        let rel = self.pos - base;
        // Nothing past the call's `max_call_bytes` is scanned (as in the XML form).
        let call_start = self.call.as_ref().map_or(self.pos, |c| c.core.start);
        let cap = self.asm.call_cap(call_start);
        let mut limit = cap.saturating_sub(base).clamp(rel, bytes.len());
        while !w.is_char_boundary(limit) {
            limit -= 1;
        }
        let (max_depth, max_elements) = (
            self.asm.opts.limits.max_depth,
            self.asm.opts.limits.max_elements,
        );
        let scan = scanner.scan(&bytes[rel..limit], max_depth, max_elements);
        match scan {
            JsonScan::End(n) => {
                // Its values count towards `max_input_elements`, as elements do.
                if let Some(call) = self.call.as_mut() {
                    call.core.elements = scanner.values();
                }
                self.pos += n;
                self.mode = Mode::AfterJson {
                    start,
                    end: self.pos,
                };
            }
            JsonScan::Failed(f) => {
                self.pos += f.at;
                let Some(mut call) = self.call.take() else {
                    return Flow::Again;
                };
                let at = self.pos;
                match f.limit {
                    Some(limit) => self.fail_limit(w, base, &mut call, limit, f.message, at),
                    None => self.fail(w, base, &mut call, f.kind, f.message, at),
                };
                self.put_back(call);
                let _ = out;
            }
            JsonScan::More if limit < bytes.len() => {
                self.pos = base + limit;
                return self.call_too_long(w, base);
            }
            JsonScan::More => {
                self.pos = base + bytes.len();
                self.mode = Mode::Json { start, scanner };
                let _ = is_final;
                return Flow::Stop;
            }
        }
        Flow::Again
    }

    pub(super) fn after_json(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        let Mode::AfterJson { start, end } = self.mode else {
            return Flow::Again;
        };
        let Some(mut call) = self.take_call() else {
            return Flow::Again;
        };
        let max = self.asm.opts.limits.max_call_bytes;
        if self.pos - call.core.start > max {
            self.call = Some(call);
            return self.call_too_long(w, base);
        }
        // As in the XML form, nothing past the limit is read: blanks that run past it are the
        // call running too long, however they were split (a text lexeme of blanks and then text
        // past the limit is not unexpected text).
        let (w, capped) = self.capped_window(w, base, &call);
        let rel = self.pos - base;
        // As in the XML form: the end of the input inside a call is a cut, so a lexeme it cuts
        // short (`</too`) ends the call as unterminated, not as unexpected text.
        let _ = is_final;
        let Some((lexeme, n)) = self.lexer.next(w, rel, base, false) else {
            self.call = Some(call);
            if capped {
                return self.call_too_long(w, base);
            }
            return Flow::Stop;
        };
        let at = self.pos;
        self.pos += n;
        match lexeme {
            Lexeme::Text(t) if is_blank(t) => {}
            Lexeme::Newline | Lexeme::Comment => {}
            Lexeme::EndTag(TOOL) if at + n - call.core.start > max => {
                let msg = format!("the call is longer than {max} bytes");
                let call_start = call.core.start;
                self.fail_limit(w, base, &mut call, Limit::MaxCallBytes, msg, call_start);
                self.end_call(w, base, &mut call, at + n, out);
                return Flow::Again;
            }
            Lexeme::EndTag(TOOL) => match legacy_json::read(&w[start - base..end - base]) {
                Ok(legacy)
                    if legacy.arguments.values().any(|v| {
                        legacy_json::string_bytes(v) > self.asm.opts.limits.max_argument_bytes
                    }) =>
                {
                    let msg = format!(
                        "an argument is longer than {} bytes",
                        self.asm.opts.limits.max_argument_bytes
                    );
                    self.fail_limit(w, base, &mut call, Limit::MaxArgumentBytes, msg, start);
                    self.end_call(w, base, &mut call, at + n, out);
                    return Flow::Again;
                }
                Ok(legacy) => {
                    call.core.server_name = legacy.server_name;
                    match &legacy.tool_name {
                        Some(name) => self.asm.set_tool_name(w, base, &mut call.core, name, start),
                        None => call.core.tool_name = None,
                    }
                    call.core.encodings = legacy
                        .arguments
                        .keys()
                        .map(|k| ArgumentEncoding {
                            argument: k.clone(),
                            encoding: Encoding::Json,
                        })
                        .collect();
                    let mut args = Element::new("arguments");
                    args.content_span = None;
                    call.arguments = Some(args);
                    self.end_legacy_call(w, base, *call, legacy.arguments, at + n, out);
                    return Flow::Again;
                }
                Err((offset, msg)) => {
                    self.fail(
                        w,
                        base,
                        &mut call,
                        ErrorKind::InvalidJson,
                        msg,
                        start + offset,
                    );
                    self.end_call(w, base, &mut call, at + n, out);
                    return Flow::Again;
                }
            },
            other => {
                // At the first non-blank character: a text lexeme's start depends on chunks.
                let skip = match other {
                    Lexeme::Text(t) => t.bytes().take_while(|b| b" \t\n\r".contains(b)).count(),
                    _ => 0,
                };
                let msg = "only </tool> may follow the JSON object of a call".to_string();
                self.fail(
                    w,
                    base,
                    &mut call,
                    ErrorKind::UnexpectedText,
                    msg,
                    at + skip,
                );
            }
        }
        self.put_back(call);
        Flow::Again
    }

    /// Fails the call for running past `max_call_bytes`.
    fn call_too_long(&mut self, w: &str, base: usize) -> Flow {
        let Some(mut call) = self.take_call() else {
            return Flow::Again;
        };
        let msg = format!(
            "the call is longer than {} bytes",
            self.asm.opts.limits.max_call_bytes
        );
        let at = call.core.start;
        self.fail_limit(w, base, &mut call, Limit::MaxCallBytes, msg, at);
        self.put_back(call);
        Flow::Again
    }
}

/// The arguments of a complete legacy JSON object, as JSON, for an unterminated call's
/// `partial`; `None` when the object cannot be read.
pub(super) fn complete_arguments(json: &str) -> Option<serde_json::Value> {
    let legacy = legacy_json::read(json).ok()?;
    Some(serde_json::Value::from(arg_types::Value::Object(
        legacy.arguments,
    )))
}
