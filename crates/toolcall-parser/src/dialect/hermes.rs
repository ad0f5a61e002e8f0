//! Hermes (also Qwen2.5 and Qwen3): `<tool_call>{"name": "f", "arguments": {…}}</tool_call>`,
//! docs/FORMAT.md §10.
//!
//! The JSON object is scanned to its end without being parsed (strings, escapes and nesting, as
//! the legacy `<tool>` form is), resumably across chunks, then read once.
//!
//! ```text
//!  Prose ──<tool_call>──► Opened ──{──► Json ──}──► AfterJson ──</tool_call>──► Prose
//! ```

use crate::assemble::{Arguments, Assembler, CallCore, complete_snippet};
use crate::call::{ArgumentEncoding, Encoding, RepairKind};
use crate::dialect::{Dialect, Grammar};
use crate::error::{Cause, ErrorKind, Limit};
use crate::event::StreamEvent;
use crate::json_scan::{JsonScan, JsonScanner};
use crate::lexer::{Lexeme, Lexer};
use crate::names::is_valid_name;
use crate::options::ParseOptions;
use arg_types::{Map, Value};
use memchr::memchr;

const BLOCK: &str = "tool_call";
const BLOCK_PROBE: &[u8] = b"<tool_call";
const BLOCK_CLOSER: &[u8] = b"</tool_call>";

/// What a handler tells the dispatcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Again,
    Stop,
}

/// The grammar's state; each variant holds what it needs.
#[derive(Debug, Default)]
enum State {
    #[default]
    Prose,
    /// `<tool_call>` at `at..end`: blanks, then `{` begins a call.
    Opened { at: usize, end: usize },
    /// Inside the JSON object that began at `start`.
    Json {
        core: Box<CallCore>,
        start: usize,
        scanner: JsonScanner,
    },
    /// After the object: `</tool_call>` ends the call.
    AfterJson(AfterJson),
    /// After an error: read to `</tool_call>`.
    Skip { core: Box<CallCore> },
}

/// A complete JSON object, waiting for `</tool_call>`.
#[derive(Debug)]
struct AfterJson {
    core: Box<CallCore>,
    /// The object's bytes.
    json: std::ops::Range<usize>,
    /// Blanks after it were scanned up to here.
    scanned: usize,
}

/// The Hermes grammar.
#[derive(Debug)]
pub(crate) struct Hermes {
    asm: Assembler,
    lexer: Lexer,
    pos: usize,
    state: State,
}

impl Grammar for Hermes {
    fn run(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> usize {
        loop {
            let (next, flow) = match std::mem::take(&mut self.state) {
                State::Prose => self.prose(w, base, is_final, out),
                State::Opened { at, end } => self.opened(w, base, is_final, at, end, out),
                State::Json {
                    core,
                    start,
                    scanner,
                } => self.json(w, base, core, start, scanner),
                State::AfterJson(after) => self.after_json(w, base, is_final, after, out),
                State::Skip { core } => self.skip(w, base, is_final, core, out),
            };
            self.state = next;
            if flow == Flow::Stop {
                break;
            }
        }
        if is_final {
            self.finish(w, base, out);
        }
        let from = match &self.state {
            State::Prose => self.pos,
            State::Opened { at, .. } => *at,
            State::Json { core, .. }
            | State::AfterJson(AfterJson { core, .. })
            | State::Skip { core } => core.start,
        };
        from.min(self.asm.prose_start)
    }

    fn assembler(&mut self) -> &mut Assembler {
        &mut self.asm
    }

    fn start_at(&mut self, at: usize) {
        self.pos = at;
        self.asm.prose_start = at;
    }
}

impl Hermes {
    pub(crate) fn new(opts: ParseOptions, progress: bool) -> Self {
        Hermes {
            asm: Assembler::new(opts, Dialect::Hermes, progress),
            lexer: Lexer::default(),
            pos: 0,
            state: State::Prose,
        }
    }

    fn prose(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let bytes = w.as_bytes();
        loop {
            let rel = self.pos - base;
            let Some(i) = memchr(b'<', &bytes[rel..]) else {
                self.pos = base + bytes.len();
                self.asm.emit_prose(w, base, self.pos, out);
                return (State::Prose, Flow::Stop);
            };
            let at = rel + i;
            let s = &bytes[at..];
            let n = s.len().min(BLOCK_PROBE.len());
            if s[..n] != BLOCK_PROBE[..n] {
                self.pos = base + at + 1;
                continue;
            }
            let lexed = if n < BLOCK_PROBE.len() && !is_final {
                None
            } else {
                self.lexer.next_raw(w, at, base, is_final)
            };
            let Some((lexeme, len)) = lexed else {
                self.pos = base + at;
                self.asm.emit_prose(w, base, self.pos, out);
                return (State::Prose, Flow::Stop);
            };
            match lexeme {
                Lexeme::StartTag(_) if super::is_exact_opener(bytes, at, len, BLOCK) => {
                    self.pos = base + at + len;
                    return (
                        State::Opened {
                            at: base + at,
                            end: base + at + len,
                        },
                        Flow::Again,
                    );
                }
                _ => self.pos = base + at + 1,
            }
        }
    }

    fn opened(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        at: usize,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let bytes = w.as_bytes();
        let rel = self.pos - base;
        let Some(i) = bytes[rel..].iter().position(|b| !b.is_ascii_whitespace()) else {
            self.pos = base + bytes.len();
            if is_final {
                return (State::Prose, Flow::Again);
            }
            return (State::Opened { at, end }, Flow::Stop);
        };
        if bytes[rel + i] != b'{' || !self.asm.may_begin_call(w, base, at, out) {
            self.pos = end;
            return (State::Prose, Flow::Again);
        }
        let core = Box::new(CallCore::new(self.asm.next_index(), at, end));
        self.asm.begin_call(w, base, &core, out);
        self.pos = base + rel + i;
        (
            State::Json {
                core,
                start: self.pos,
                scanner: JsonScanner::default(),
            },
            Flow::Again,
        )
    }

    fn json(
        &mut self,
        w: &str,
        base: usize,
        mut core: Box<CallCore>,
        start: usize,
        mut scanner: JsonScanner,
    ) -> (State, Flow) {
        let bytes = w.as_bytes();
        let rel = self.pos - base;
        let limits = &self.asm.opts.limits;
        let mut limit = core
            .start
            .saturating_add(limits.max_call_bytes)
            .saturating_add(1)
            .saturating_sub(base)
            .clamp(rel, bytes.len());
        while !w.is_char_boundary(limit) {
            limit -= 1;
        }
        // `max_depth` counts the `<tool_call>` wrapper as 1, as the other dialects do.
        let scan = scanner.scan(&bytes[rel..limit], limits.max_depth, limits.max_elements);
        let (kind, limit, msg, at) = match scan {
            JsonScan::End(n) => {
                self.pos += n;
                let end = self.pos;
                return (
                    State::AfterJson(AfterJson {
                        core,
                        json: start..end,
                        scanned: end,
                    }),
                    Flow::Again,
                );
            }
            JsonScan::More if limit < bytes.len() => {
                self.pos = base + limit;
                self.asm.fail_too_long(w, base, &mut core);
                return (State::Skip { core }, Flow::Again);
            }
            JsonScan::More => {
                self.pos = base + bytes.len();
                return (
                    State::Json {
                        core,
                        start,
                        scanner,
                    },
                    Flow::Stop,
                );
            }
            JsonScan::TooDeep(i) => (
                ErrorKind::LimitExceeded,
                Some(Limit::MaxDepth),
                format!(
                    "the call's JSON is nested deeper than {} levels",
                    limits.max_depth
                ),
                i,
            ),
            JsonScan::TooMany(i) => (
                ErrorKind::LimitExceeded,
                Some(Limit::MaxElements),
                format!(
                    "the call's JSON has more than {} objects, arrays and values",
                    limits.max_elements
                ),
                i,
            ),
            JsonScan::Markup(i) => (
                ErrorKind::InvalidJson,
                None,
                "the call's JSON object is not closed before this '<'".to_owned(),
                i,
            ),
        };
        self.pos += at;
        let at = self.pos;
        match limit {
            Some(limit) => self.asm.limit_error(w, base, &mut core, limit, msg, at),
            None => self.asm.error(w, base, &mut core, kind, msg, at),
        }
        (State::Skip { core }, Flow::Again)
    }

    fn after_json(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        after: AfterJson,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let AfterJson {
            mut core,
            json,
            scanned,
        } = after;
        let bytes = w.as_bytes();
        let rel = scanned - base;
        let next = bytes[rel..].iter().position(|b| !b.is_ascii_whitespace());
        let (close_end, repair) = match next {
            None if is_final => (json.end, true),
            None => {
                let scanned = base + bytes.len();
                return (
                    State::AfterJson(AfterJson {
                        core,
                        json,
                        scanned,
                    }),
                    Flow::Stop,
                );
            }
            Some(i) => {
                let at = rel + i;
                // Read as if more input followed: a `</tool_call>` cut by the end of the input
                // is the closer, cut (the call is read, with the repair, as when nothing
                // follows the object).
                match self.lexer.next_raw(w, at, base, false) {
                    // Only what can still become `</tool_call>` is the closer cut: any other
                    // tag left open at the end (`</tool_ca1`) is unexpected text.
                    None if is_final && BLOCK_CLOSER.starts_with(&bytes[at..]) => {
                        self.lexer.reset();
                        (base + bytes.len(), true)
                    }
                    None if !is_final => {
                        return (
                            State::AfterJson(AfterJson {
                                core,
                                json,
                                scanned: base + at,
                            }),
                            Flow::Stop,
                        );
                    }
                    Some((Lexeme::EndTag(BLOCK), n)) => (base + at + n, false),
                    _ => {
                        self.lexer.reset();
                        let msg = "only </tool_call> may follow the call's JSON object".to_owned();
                        self.pos = base + at;
                        self.asm.error(
                            w,
                            base,
                            &mut core,
                            ErrorKind::UnexpectedText,
                            msg,
                            base + at,
                        );
                        return (State::Skip { core }, Flow::Again);
                    }
                }
            }
        };
        if repair {
            let at = json.end;
            self.asm
                .repair(w, base, &mut core, RepairKind::MissingCallCloser, at);
        }
        self.pos = close_end;
        let text = &w[json.start - base..json.end - base];
        let arguments = match read(text) {
            Ok((name, arguments)) => {
                if !is_valid_name(&name) {
                    let msg = format!(
                        "`{}` is not a valid tool name",
                        crate::error::snippet(&name)
                    );
                    self.asm.error(
                        w,
                        base,
                        &mut core,
                        ErrorKind::InvalidToolName,
                        msg,
                        json.start,
                    );
                } else {
                    core.tool_name = Some(name);
                    self.asm.tool_name_known(&core, out);
                }
                core.encodings = arguments
                    .keys()
                    .map(|k| ArgumentEncoding {
                        argument: k.clone(),
                        encoding: Encoding::Json,
                    })
                    .collect();
                arguments
            }
            Err((offset, kind, msg, cause)) => {
                self.asm
                    .error(w, base, &mut core, kind, msg, json.start + offset);
                if let (Some(e), Some(cause)) = (core.error.as_mut(), cause) {
                    e.cause = Some(Cause::new(cause));
                }
                Map::new()
            }
        };
        self.end(w, base, *core, Arguments::Json(arguments), close_end, out);
        (State::Prose, Flow::Again)
    }

    fn end(
        &mut self,
        w: &str,
        base: usize,
        core: CallCore,
        arguments: Arguments,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        self.asm.finish_call(w, base, core, arguments, end, out);
        self.asm.prose_start = end;
        self.pos = end;
        self.lexer.reset();
    }

    fn skip(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        mut core: Box<CallCore>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        loop {
            let rel = self.pos - base;
            let Some((lexeme, n)) = self.lexer.next_raw(w, rel, base, is_final) else {
                complete_snippet(w, base, &mut core, self.pos, None);
                return (State::Skip { core }, Flow::Stop);
            };
            self.pos += n;
            if let Lexeme::EndTag(BLOCK) = lexeme {
                let end = self.pos;
                self.end(w, base, *core, Arguments::Json(Map::new()), end, out);
                return (State::Prose, Flow::Again);
            }
        }
    }

    fn finish(&mut self, w: &str, base: usize, out: &mut Vec<StreamEvent>) {
        let end = base + w.len();
        if let State::Json { mut core, .. } | State::Skip { mut core } =
            std::mem::take(&mut self.state)
        {
            self.asm.unterminated(
                w,
                base,
                &mut core,
                "the input ended before </tool_call> closed the call",
                end,
                None,
            );
            self.end(w, base, *core, Arguments::Json(Map::new()), end, out);
        }
        self.pos = end;
        self.asm.emit_prose(w, base, end, out);
    }
}

/// Why a call's JSON could not be read: the byte offset in its text, the error's kind, a
/// message, and serde_json's error when there is one.
type ReadError = (usize, ErrorKind, String, Option<serde_json::Error>);

/// Reads the call's JSON object: its `name` and its `arguments` (an object, or a JSON string
/// holding one; `parameters` is read the same way).
fn read(text: &str) -> Result<(String, Map), ReadError> {
    let invalid = |msg: &str| (0, ErrorKind::InvalidJson, msg.to_owned(), None);
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let msg = format!("invalid JSON in the call: {e}");
        (0, ErrorKind::InvalidJson, msg, Some(e))
    })?;
    let serde_json::Value::Object(mut obj) = json else {
        return Err(invalid("the call is not a JSON object"));
    };
    let name = match obj.remove("name") {
        Some(serde_json::Value::String(s)) => s.trim().to_owned(),
        _ => {
            let msg = "the call's JSON has no string \"name\"".to_owned();
            return Err((0, ErrorKind::MissingToolName, msg, None));
        }
    };
    let arguments = obj.remove("arguments").or_else(|| obj.remove("parameters"));
    let arguments = match arguments {
        None | Some(serde_json::Value::Null) => serde_json::Value::Object(Default::default()),
        Some(serde_json::Value::String(s)) if s.trim().is_empty() => {
            serde_json::Value::Object(Default::default())
        }
        Some(serde_json::Value::String(s)) => serde_json::from_str(&s).map_err(|e| {
            let msg = format!("\"arguments\" is a string that holds no JSON object: {e}");
            (0, ErrorKind::InvalidJson, msg, Some(e))
        })?,
        Some(v) => v,
    };
    match Value::from(arguments) {
        Value::Object(map) => Ok((name, map)),
        _ => Err(invalid("\"arguments\" must be a JSON object")),
    }
}
