//! A Hermes call streamed: its JSON object read as it arrives, so that the tool's name and each
//! argument are reported before the object ends (docs/FORMAT.md §9.2, streaming).
//!
//! The object is scanned by [`JsonScanner`](crate::json_scan::JsonScanner) for where it ends;
//! this reader follows the same bytes, once each, and reports:
//! - the first `"name"` string, trimmed, as [`StreamEvent::ToolName`] once it is complete and a
//!   valid name;
//! - each member of the first `"arguments"` object, in order, a name given again dropped (the
//!   first value stands, as the final read keeps it): [`StreamEvent::ArgumentStarted`] when its
//!   value begins, declared a string or not by its first byte; a string's decoded text as
//!   [`StreamEvent::ArgumentDelta`]s as it arrives; any other value as
//!   [`StreamEvent::ArgumentValue`] once complete.
//!
//! It validates nothing: whatever it does not expect stops it (`Off`), and the object's final
//! read (`read`) decides whether there is a call. What it reports is what that read finds,
//! whenever that read succeeds (the `openai_deltas` property and fuzz target hold the two
//! together).

use crate::assemble::{Assembler, CallCore};
use crate::event::StreamEvent;
use crate::names::is_valid_name;
use arg_types::Value;
use std::collections::HashSet;
use std::sync::Arc;

/// The streamed reading of one call's object.
#[derive(Debug, Default)]
pub(super) struct CallDeltas {
    at: At,
    /// Whether the `name` and `arguments` keys were met (later ones are not the call's).
    seen_name: bool,
    seen_arguments: bool,
    /// Whether the tool's name was reported.
    pub(super) named: bool,
    /// The arguments begun, by name.
    keys: HashSet<Arc<str>>,
}

/// Where the reading stands.
#[derive(Debug, Default)]
enum At {
    /// Before the object's `{`.
    #[default]
    Open,
    /// In the call object, where a key, `,` or `}` may come.
    CallMember,
    /// A key of the call object.
    CallKey(JsonString),
    /// After a key of the call object, before `:`.
    CallColon(Key),
    /// After `:`, before the value.
    CallValue(Key),
    /// The `name` string.
    Name(JsonString),
    /// A value not streamed, read to its end; then `then`.
    Skip(Skip, Then),
    /// In the arguments object, where a key, `,` or `}` may come.
    ArgMember,
    /// A key of the arguments object.
    ArgKey(JsonString),
    /// After an argument's key (`None`: a name given again), before `:`.
    ArgColon(Option<Arc<str>>),
    /// After `:`, before the argument's value.
    ArgValue(Option<Arc<str>>),
    /// An argument's string, streamed.
    ArgString(Arc<str>, JsonString),
    /// Any other argument value: its text, to its end.
    ArgRaw(Arc<str>, Skip, Vec<u8>),
    /// Done, or something unexpected: nothing more is reported.
    Off,
}

/// Which key of the call object a value belongs to.
#[derive(Debug, Clone, Copy)]
enum Key {
    Name,
    Arguments,
    Other,
}

/// Where to go after a skipped value.
#[derive(Debug, Clone, Copy)]
enum Then {
    CallMember,
    ArgMember,
}

/// A JSON string being decoded (after its opening quote).
#[derive(Debug, Default)]
struct JsonString {
    /// The decoded text not yet handed on.
    text: String,
    escape: Escape,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
}

#[derive(Debug, Default, Clone, Copy)]
enum Escape {
    #[default]
    None,
    /// After `\`.
    Backslash,
    /// After `\u` and this many hex digits, their value so far.
    Unicode(u8, u32),
}

/// What a byte did to a string.
enum StringStep {
    More,
    End,
    Bad,
}

impl JsonString {
    /// Reads `s` from `i`: a run of plain text at once, else one byte; returns the bytes read
    /// and what happened.
    fn read(&mut self, s: &str, i: usize) -> (usize, StringStep) {
        let bytes = s.as_bytes();
        if let Escape::None = self.escape {
            if self.high.is_some() && bytes[i] != b'\\' {
                return (1, StringStep::Bad);
            }
            let run = memchr::memchr2(b'"', b'\\', &bytes[i..]).unwrap_or(bytes.len() - i);
            if run > 0 {
                self.text.push_str(&s[i..i + run]);
                return (run, StringStep::More);
            }
        }
        let b = bytes[i];
        let step = match (self.escape, b) {
            (Escape::None, b'"') => StringStep::End,
            (Escape::None, _) => {
                self.escape = Escape::Backslash;
                StringStep::More
            }
            (Escape::Backslash, b'u') => {
                self.escape = Escape::Unicode(0, 0);
                StringStep::More
            }
            (Escape::Backslash, _) if self.high.is_some() => StringStep::Bad,
            (Escape::Backslash, _) => {
                let c = match b {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    _ => return (1, StringStep::Bad),
                };
                self.text.push(c);
                self.escape = Escape::None;
                StringStep::More
            }
            (Escape::Unicode(n, v), _) => {
                let Some(d) = (b as char).to_digit(16) else {
                    return (1, StringStep::Bad);
                };
                let v = v * 16 + d;
                if n < 3 {
                    self.escape = Escape::Unicode(n + 1, v);
                    return (1, StringStep::More);
                }
                self.escape = Escape::None;
                match (self.high.take(), v) {
                    (None, 0xD800..=0xDBFF) => {
                        self.high = Some(v);
                        StringStep::More
                    }
                    (Some(h), 0xDC00..=0xDFFF) => {
                        let c = 0x10000 + ((h - 0xD800) << 10) + (v - 0xDC00);
                        match char::from_u32(c) {
                            Some(c) => {
                                self.text.push(c);
                                StringStep::More
                            }
                            None => StringStep::Bad,
                        }
                    }
                    (None, _) => match char::from_u32(v) {
                        Some(c) => {
                            self.text.push(c);
                            StringStep::More
                        }
                        None => StringStep::Bad,
                    },
                    (Some(_), _) => StringStep::Bad,
                }
            }
        };
        (1, step)
    }
}

/// A JSON value read to its end without decoding: nesting, strings, escapes.
#[derive(Debug, Default, Clone, Copy)]
struct Skip {
    depth: usize,
    in_string: bool,
    escaped: bool,
    started: bool,
}

impl Skip {
    /// Reads `b`; `Some(true)` when the value ended with it, `Some(false)` when it ended before
    /// it (a scalar ends at the delimiter, which is not its own), `None` to go on.
    fn read(&mut self, b: u8) -> Option<bool> {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.depth == 0 {
                    return Some(true);
                }
            }
            return None;
        }
        let first = !self.started;
        self.started = true;
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 0 => {
                self.depth -= 1;
                if self.depth == 0 {
                    return Some(true);
                }
            }
            b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' if self.depth == 0 && !first => {
                return Some(false);
            }
            _ => {}
        }
        None
    }
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl CallDeltas {
    /// Reads `s`, the next bytes of the object (the first begins with its `{`), reporting into
    /// `out`. `s` ends at a character boundary.
    pub(super) fn read(
        &mut self,
        asm: &mut Assembler,
        core: &CallCore,
        s: &str,
        out: &mut Vec<StreamEvent>,
    ) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let at = std::mem::take(&mut self.at);
            let (next, n) = match at {
                At::Off => {
                    self.at = At::Off;
                    return;
                }
                At::Open if b == b'{' => (At::CallMember, 1),
                At::CallMember
                | At::ArgMember
                | At::CallColon(_)
                | At::ArgColon(_)
                | At::CallValue(_)
                | At::ArgValue(_)
                | At::Open
                    if is_blank(b) =>
                {
                    (at, 1)
                }
                At::CallMember => match b {
                    b'"' => (At::CallKey(JsonString::default()), 1),
                    b',' => (At::CallMember, 1),
                    _ => (At::Off, 1),
                },
                At::CallKey(mut key) => match key.read(s, i) {
                    (n, StringStep::More) => (At::CallKey(key), n),
                    (n, StringStep::End) => {
                        let k = match key.text.as_str() {
                            "name" if !self.seen_name => Key::Name,
                            "arguments" if !self.seen_arguments => Key::Arguments,
                            _ => Key::Other,
                        };
                        match k {
                            Key::Name => self.seen_name = true,
                            Key::Arguments => self.seen_arguments = true,
                            Key::Other => {}
                        }
                        (At::CallColon(k), n)
                    }
                    (n, StringStep::Bad) => (At::Off, n),
                },
                At::CallColon(k) if b == b':' => (At::CallValue(k), 1),
                At::CallValue(Key::Name) if b == b'"' => (At::Name(JsonString::default()), 1),
                At::CallValue(Key::Arguments) if b == b'{' => (At::ArgMember, 1),
                At::CallValue(_) => (At::Skip(Skip::default(), Then::CallMember), 0),
                At::Name(mut name) => match name.read(s, i) {
                    (n, StringStep::More) => (At::Name(name), n),
                    (n, StringStep::End) => {
                        let name = name.text.trim();
                        if asm.progress && is_valid_name(name) {
                            self.named = true;
                            out.push(StreamEvent::ToolName {
                                index: core.index,
                                tool_name: asm.listed_name(name).to_owned(),
                            });
                        }
                        (At::CallMember, n)
                    }
                    (n, StringStep::Bad) => (At::Off, n),
                },
                At::Skip(mut skip, then) => match skip.read(b) {
                    None => (At::Skip(skip, then), 1),
                    Some(ended_with) => {
                        let next = match then {
                            Then::CallMember => At::CallMember,
                            Then::ArgMember => At::ArgMember,
                        };
                        (next, usize::from(ended_with))
                    }
                },
                At::ArgMember => match b {
                    b'"' => (At::ArgKey(JsonString::default()), 1),
                    b',' => (At::ArgMember, 1),
                    // The arguments end: nothing after them is streamed.
                    _ => (At::Off, 1),
                },
                At::ArgKey(mut key) => match key.read(s, i) {
                    (n, StringStep::More) => (At::ArgKey(key), n),
                    (n, StringStep::End) => {
                        let name: Arc<str> = Arc::from(key.text.as_str());
                        let fresh = self.keys.insert(Arc::clone(&name));
                        (At::ArgColon(fresh.then_some(name)), n)
                    }
                    (n, StringStep::Bad) => (At::Off, n),
                },
                At::ArgColon(name) if b == b':' => (At::ArgValue(name), 1),
                At::ArgValue(None) => (At::Skip(Skip::default(), Then::ArgMember), 0),
                At::ArgValue(Some(name)) => {
                    if asm.emit_deltas {
                        out.push(StreamEvent::ArgumentStarted {
                            index: core.index,
                            argument: Arc::clone(&name),
                            string: Some(b == b'"'),
                        });
                    }
                    if b == b'"' {
                        (At::ArgString(name, JsonString::default()), 1)
                    } else {
                        (At::ArgRaw(name, Skip::default(), Vec::new()), 0)
                    }
                }
                At::ArgString(name, mut value) => {
                    let (n, step) = value.read(s, i);
                    match step {
                        StringStep::More => {
                            // Handed on at the end of what arrived, or of the string.
                            let last = i + n == bytes.len();
                            if last {
                                deliver(asm, core, &name, &mut value.text, out);
                            }
                            (At::ArgString(name, value), n)
                        }
                        StringStep::End => {
                            deliver(asm, core, &name, &mut value.text, out);
                            (At::ArgMember, n)
                        }
                        StringStep::Bad => (At::Off, n),
                    }
                }
                At::ArgRaw(name, mut skip, mut text) => match skip.read(b) {
                    None => {
                        text.push(b);
                        (At::ArgRaw(name, skip, text), 1)
                    }
                    Some(ended_with) => {
                        if ended_with {
                            text.push(b);
                        }
                        // Read as the call's final read reads it: a name given twice in
                        // an object keeps its first value.
                        match serde_json::from_slice::<super::Member>(&text) {
                            Ok(v) => {
                                let v = v.into_json();
                                if asm.emit_deltas {
                                    out.push(StreamEvent::ArgumentValue {
                                        index: core.index,
                                        argument: name,
                                        value: Box::new(Value::from(v)),
                                    });
                                }
                                (At::ArgMember, usize::from(ended_with))
                            }
                            Err(_) => (At::Off, 1),
                        }
                    }
                },
                _ => (At::Off, 1),
            };
            self.at = next;
            i += n;
        }
    }
}

/// Hands on a string argument's decoded text.
fn deliver(
    asm: &mut Assembler,
    core: &CallCore,
    name: &Arc<str>,
    text: &mut String,
    out: &mut Vec<StreamEvent>,
) {
    if asm.emit_deltas && !text.is_empty() {
        out.push(StreamEvent::ArgumentDelta {
            index: core.index,
            argument: asm.recycled.argument(name),
            text: asm
                .recycled
                .swap_out(text)
                .unwrap_or_else(|| std::mem::take(text)),
        });
    }
    text.clear();
}
