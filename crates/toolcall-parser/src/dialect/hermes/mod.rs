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
use crate::call::RepairKind;
use crate::dialect::scan::Flow;
use crate::dialect::{Dialect, Grammar};
use crate::error::{Cause, ErrorKind};
use crate::event::StreamEvent;
use crate::json_scan::{JsonScan, JsonScanner};
use crate::lexer::{Lexeme, Lexer};
use crate::names::is_valid_name;
use crate::options::ParseOptions;
use arg_types::{Map, Value};
use deltas::CallDeltas;

mod deltas;

const BLOCK: &str = "tool_call";
const BLOCK_PROBE: &[u8] = b"<tool_call";
const BLOCK_CLOSER: &[u8] = b"</tool_call>";

/// The grammar's state; each variant holds what it needs.
#[derive(Debug, Default)]
enum State {
    #[default]
    Prose,
    /// `<tool_call>` at `at..end`: blanks, then `{` begins a call.
    Opened { at: usize, end: usize },
    /// Inside the call's JSON object.
    Json(Reading),
    /// After the object: `</tool_call>` ends the call.
    AfterJson(AfterJson),
    /// After an error: read to `</tool_call>`.
    Skip { core: Box<CallCore> },
}

/// A call's JSON object being read.
#[derive(Debug)]
struct Reading {
    core: Box<CallCore>,
    /// Where the object began.
    start: usize,
    scanner: JsonScanner,
    /// The object read as it arrives, for events of progress (none without them).
    deltas: Option<Box<CallDeltas>>,
}

/// A complete JSON object, waiting for `</tool_call>`.
#[derive(Debug)]
struct AfterJson {
    core: Box<CallCore>,
    /// The object's bytes.
    json: std::ops::Range<usize>,
    /// Blanks after it were scanned up to here.
    scanned: usize,
    /// Whether the tool's name was reported while the object arrived.
    named: bool,
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
        // A streamed token of prose: read before anything else (`scan::prose_tail`).
        let inp = super::scan::Input { w, base, is_final };
        if let State::Prose = self.state
            && let Some(keep) = super::scan::prose_tail(&mut self.asm, inp, &mut self.pos, out)
        {
            return keep;
        }
        loop {
            let (next, flow) = match std::mem::take(&mut self.state) {
                State::Prose => self.prose(w, base, is_final, out),
                State::Opened { at, end } => self.opened(w, base, is_final, at, end, out),
                State::Json(reading) => self.json(w, base, reading, out),
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
            State::Json(Reading { core, .. })
            | State::AfterJson(AfterJson { core, .. })
            | State::Skip { core } => core.start,
        };
        self.asm.kept_from(from)
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
            let Some(i) = crate::dialect::scan::find_byte(b'<', &bytes[rel..]) else {
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
            State::Json(Reading {
                core,
                start: self.pos,
                scanner: JsonScanner::default(),
                deltas: self.asm.progress.then(Box::default),
            }),
            Flow::Again,
        )
    }

    fn json(
        &mut self,
        w: &str,
        base: usize,
        reading: Reading,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let Reading {
            mut core,
            start,
            mut scanner,
            mut deltas,
        } = reading;
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
        match scan {
            JsonScan::End(n) => {
                if let Some(d) = deltas.as_mut() {
                    d.read(&mut self.asm, &core, &w[rel..rel + n], out);
                }
                self.pos += n;
                let end = self.pos;
                (
                    State::AfterJson(AfterJson {
                        core,
                        json: start..end,
                        scanned: end,
                        named: deltas.is_some_and(|d| d.named),
                    }),
                    Flow::Again,
                )
            }
            JsonScan::More if limit < bytes.len() => {
                self.pos = base + limit;
                self.asm.fail_too_long(w, base, &mut core);
                (State::Skip { core }, Flow::Again)
            }
            JsonScan::More => {
                if let Some(d) = deltas.as_mut() {
                    d.read(&mut self.asm, &core, &w[rel..], out);
                }
                self.pos = base + bytes.len();
                (
                    State::Json(Reading {
                        core,
                        start,
                        scanner,
                        deltas,
                    }),
                    Flow::Stop,
                )
            }
            JsonScan::Failed(f) => {
                self.pos += f.at;
                let at = self.pos;
                match f.limit {
                    Some(limit) => self
                        .asm
                        .limit_error(w, base, &mut core, limit, f.message, at),
                    None => self.asm.error(w, base, &mut core, f.kind, f.message, at),
                }
                (State::Skip { core }, Flow::Again)
            }
        }
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
            named,
        } = after;
        let bytes = w.as_bytes();
        // A window may end before what an earlier, longer one scanned (`auto` cuts windows).
        let rel = (scanned - base).min(bytes.len());
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
                        named,
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
                                named,
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
            Ok((name, arguments, dropped)) => {
                let at = json.start;
                // None: an argument past its limit, the call that limit's error.
                match (self.asm).json_arguments(w, base, &mut core, arguments, dropped, at) {
                    None => Map::new(),
                    Some(arguments) if !is_valid_name(&name) => {
                        let msg = format!(
                            "`{}` is not a valid tool name",
                            crate::error::snippet(&name)
                        );
                        let kind = ErrorKind::InvalidToolName;
                        self.asm.error(w, base, &mut core, kind, msg, at);
                        arguments
                    }
                    Some(arguments) => {
                        self.asm.set_tool_name(w, base, &mut core, &name, at);
                        // Unless reported as the object arrived (the same first `name`).
                        if !named {
                            self.asm.tool_name_known(&core, out);
                        }
                        arguments
                    }
                }
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
        if let State::Json(Reading { mut core, .. }) | State::Skip { mut core } =
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
pub(crate) type ReadError = (usize, ErrorKind, String, Option<serde_json::Error>);

/// Reads the call's JSON object: its `name` and its `arguments` (an object, or a JSON string
/// holding one; `parameters` is read the same way), and how many argument names given again
/// were dropped. In the call's object and in its arguments a name given twice keeps its first
/// value, as in every dialect (docs/FORMAT.md §9.2), so that what was streamed of the first
/// stands.
fn read(text: &str) -> Result<(String, Map, usize), ReadError> {
    let invalid = |msg: &str| (0, ErrorKind::InvalidJson, msg.to_owned(), None);
    let mut map: FirstWins = serde_json::from_str(text).map_err(|e| {
        let msg = format!("invalid JSON in the call: {e}");
        (0, ErrorKind::InvalidJson, msg, Some(e))
    })?;
    let name = match map.remove("name") {
        Some(Member::Value(serde_json::Value::String(s))) => s.trim().to_owned(),
        _ => {
            let msg = "the call's JSON has no string \"name\"".to_owned();
            return Err((0, ErrorKind::MissingToolName, msg, None));
        }
    };
    let arguments = map.remove("arguments").or_else(|| map.remove("parameters"));
    let object = match arguments {
        None | Some(Member::Value(serde_json::Value::Null)) => FirstWins::default(),
        Some(Member::Object(object)) => object,
        Some(Member::Value(serde_json::Value::String(s))) if s.trim().is_empty() => {
            FirstWins::default()
        }
        Some(Member::Value(serde_json::Value::String(s))) => {
            match serde_json::from_str::<Member>(&s) {
                Ok(Member::Object(object)) => object,
                Ok(Member::Value(_)) => return Err(invalid("\"arguments\" must be a JSON object")),
                Err(e) => {
                    let msg = format!("\"arguments\" is a string that holds no JSON object: {e}");
                    return Err((0, ErrorKind::InvalidJson, msg, Some(e)));
                }
            }
        }
        Some(Member::Value(_)) => return Err(invalid("\"arguments\" must be a JSON object")),
    };
    let (arguments, dropped) = object.into_arguments();
    Ok((name, arguments, dropped))
}

/// A JSON object's text as a call's arguments, as Hermes's `arguments` object is read: its
/// members in order, a name given again dropped (the first value stands; how many were dropped
/// is returned). Kimi-K3's `json` block (docs/FORMAT.md §9.6 rule 9) is read by it.
pub(crate) fn read_arguments(text: &str) -> Result<(Map, usize), ReadError> {
    match serde_json::from_str::<Member>(text) {
        Ok(Member::Object(object)) => Ok(object.into_arguments()),
        Ok(Member::Value(_)) => Err((
            0,
            ErrorKind::InvalidJson,
            "the arguments must be a JSON object".to_owned(),
            None,
        )),
        Err(e) => {
            let msg = format!("invalid JSON in the arguments: {e}");
            Err((0, ErrorKind::InvalidJson, msg, Some(e)))
        }
    }
}

/// A JSON object whose names keep their first value, in order, and how many later ones were
/// dropped (at this level). Objects at every depth are read so, as streamed values are.
#[derive(Debug, Default)]
pub(super) struct FirstWins {
    map: Vec<(String, Member)>,
    names: std::collections::HashSet<String>,
    dropped: usize,
}

impl FirstWins {
    /// The members as arguments, and how many names given again were dropped.
    fn into_arguments(self) -> (Map, usize) {
        let arguments = (self.map.into_iter())
            .map(|(k, v)| (k, Value::from(v.into_json())))
            .collect();
        (arguments, self.dropped)
    }

    /// Takes the member `name` out, if there is one.
    fn remove(&mut self, name: &str) -> Option<Member> {
        let i = self.map.iter().position(|(k, _)| k == name)?;
        self.names.remove(name);
        Some(self.map.remove(i).1)
    }
}

/// A JSON value whose objects keep each name's first value.
#[derive(Debug)]
pub(super) enum Member {
    Object(FirstWins),
    Value(serde_json::Value),
}

impl Member {
    /// The value as `serde_json`'s.
    pub(super) fn into_json(self) -> serde_json::Value {
        match self {
            Member::Value(v) => v,
            Member::Object(o) => serde_json::Value::Object(
                o.map.into_iter().map(|(k, v)| (k, v.into_json())).collect(),
            ),
        }
    }
}

impl<'de> serde::Deserialize<'de> for FirstWins {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Member::deserialize(d)? {
            Member::Object(o) => Ok(o),
            Member::Value(_) => Err(serde::de::Error::custom("the call is not a JSON object")),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Member {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Member;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Member, A::Error> {
                let mut object = FirstWins::default();
                while let Some(key) = a.next_key::<String>()? {
                    let value = a.next_value::<Member>()?;
                    if object.names.contains(&key) {
                        object.dropped += 1;
                    } else {
                        object.names.insert(key.clone());
                        object.map.push((key, value));
                    }
                }
                Ok(Member::Object(object))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Member, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = a.next_element::<Member>()? {
                    items.push(v.into_json());
                }
                Ok(Member::Value(serde_json::Value::Array(items)))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Member, E> {
                Ok(Member::Value(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Member, E> {
                Ok(Member::Value(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Member, E> {
                Ok(Member::Value(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Member, E> {
                Ok(Member::Value(
                    serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into),
                ))
            }
            fn visit_str<E>(self, v: &str) -> Result<Member, E> {
                Ok(Member::Value(v.into()))
            }
            fn visit_string<E>(self, v: String) -> Result<Member, E> {
                Ok(Member::Value(v.into()))
            }
            fn visit_unit<E>(self) -> Result<Member, E> {
                Ok(Member::Value(serde_json::Value::Null))
            }
        }
        d.deserialize_any(Visit)
    }
}
