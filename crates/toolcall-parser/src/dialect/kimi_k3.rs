//! Kimi-K3: elements written with special tokens instead of tags, docs/FORMAT.md §9.6.
//!
//! ```text
//! <|open|>call tool="get_weather" index="1"<|sep|>
//! <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
//! <|close|>call<|sep|>
//! ```
//!
//! `<|open|>NAME ATTRS<|sep|>` opens an element and `<|close|>NAME<|sep|>` closes it. These are
//! not XML tags (to the lexer `<|` is a literal `<`), so the grammar finds them itself with
//! `memchr`/`memmem`. Values are raw text as in the Qwen3-Coder family (one layout newline each
//! side dropped, a close marker inside a value structural only when what follows it is); the
//! `type` attribute types them, the tool's schema where it says nothing usable. A call's
//! arguments may instead be one `json` block. The message's channel markers around the calls
//! (`<|open|>response<|sep|>`, `<|open|>tools<|sep|>`, their closes, the message's close and
//! `<|end_of_msg|>`) are layout; the `think` channel is the reasoning block.
//!
//! ```text
//!  Prose ──<|open|>call …<|sep|>──► Call ◄───────────────────────────────┐
//!                                    │ <|open|>argument …<|sep|>          │ <|close|>argument<|sep|>
//!                                    ▼                                     │ (structural)
//!         Prose ◄──<|close|>call──  Value ──<|close|>…<|sep|>──► Closing ──┘
//! ```

use crate::assemble::{Arguments, Assembler, CallCore, RawArgument, complete_snippet};
use crate::call::{Encoding, RepairKind};
use crate::dialect::scan::{
    BodyScan, ClosedValue, Flow, Input, JsonBody, RawValue, before_blanks, is_blank, non_blank,
    repair_unclosed_value,
};
use crate::dialect::{Dialect, Grammar};
use crate::error::ErrorKind;
use crate::event::StreamEvent;
use crate::names::{is_placeholder, is_valid_name};
use crate::options::ParseOptions;
use arg_types::{Map, Value};
use memchr::{memchr, memmem};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

const OPEN: &str = "<|open|>";
const CLOSE: &str = "<|close|>";
const SEP: &str = "<|sep|>";
const CALL: &str = "call";
const ARGUMENT: &str = "argument";
const JSON: &str = "json";
/// The message's end token, written after its last channel: layout, like the channel markers,
/// and read as the close of an element named [`END_OF_MSG_NAME`].
const END_OF_MSG: &str = "<|end_of_msg|>";
const END_OF_MSG_NAME: &str = "end_of_msg";

/// Whether `mark` frames the message's channels rather than holding a call: the message's
/// header (`<|open|>message role="assistant"<|sep|>`, attributes allowed), the `response`
/// channel's markers (the answer between them is prose), the `tools` channel's (the calls
/// between them are read), the message's close and its end token. They are layout, never prose
/// (docs/FORMAT.md §9.6 rule 8); the `think` channel is the reasoning block (§10).
fn is_framing(mark: Mark<'_>) -> bool {
    match mark {
        Mark::Open { name, attributes } => {
            name == "message" || (attributes.is_empty() && matches!(name, "response" | "tools"))
        }
        Mark::Close(name) => matches!(name, "response" | "tools" | "message" | END_OF_MSG_NAME),
    }
}

/// Longest marker (from `<|` to the end of its `<|sep|>`); a longer one is text.
const MAX_MARKER_BYTES: usize = 1024;

/// A marker: `<|open|>NAME ATTRS<|sep|>` or `<|close|>NAME<|sep|>`. Slices borrow the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark<'w> {
    Open { name: &'w str, attributes: &'w str },
    Close(&'w str),
}

/// What the bytes at a `<` are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marked<'w> {
    /// A marker and its length.
    Mark(Mark<'w>, usize),
    /// No marker: a `<` of text.
    Text,
    /// The window ends before it can tell.
    NeedMore,
}

/// The searches for `<|sep|>` and for the close marker, built once per process (see
/// `scan::VALUE_FINDERS`).
static SEP_FINDER: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(SEP.as_bytes()));
static CLOSE_FINDER: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(CLOSE.as_bytes()));

/// The marker scanner: where the search for a marker's `<|sep|>` stopped, so a long one is
/// scanned once however it is chunked.
#[derive(Debug)]
struct Marks {
    sep: &'static memmem::Finder<'static>,
    /// A marker at this absolute offset had no `<|sep|>` before the second offset.
    resume: Option<(usize, usize)>,
}

impl Default for Marks {
    fn default() -> Self {
        Marks {
            sep: &SEP_FINDER,
            resume: None,
        }
    }
}

impl Marks {
    /// Reads the marker at absolute `at` (a `<`).
    fn at<'w>(&mut self, inp: Input<'w>, at: usize) -> Marked<'w> {
        let s = inp.from(at);
        if s.starts_with(END_OF_MSG.as_bytes()) {
            return Marked::Mark(Mark::Close(END_OF_MSG_NAME), END_OF_MSG.len());
        }
        if !inp.is_final && s.len() < END_OF_MSG.len() && END_OF_MSG.as_bytes().starts_with(s) {
            return Marked::NeedMore;
        }
        let (head, open) = if s.starts_with(OPEN.as_bytes()) {
            (OPEN.len(), true)
        } else if s.starts_with(CLOSE.as_bytes()) {
            (CLOSE.len(), false)
        } else if !inp.is_final
            && (OPEN.as_bytes().starts_with(s) || CLOSE.as_bytes().starts_with(s))
        {
            return Marked::NeedMore;
        } else {
            return Marked::Text;
        };
        let from = match self.resume {
            Some((a, to)) if a == at => to,
            _ => at + head,
        };
        let limit = inp.end().min(at + MAX_MARKER_BYTES);
        let window = &inp.w.as_bytes()[from - inp.base..limit - inp.base];
        let Some(i) = self.sep.find(window) else {
            if limit < at + MAX_MARKER_BYTES && !inp.is_final {
                let to = limit.saturating_sub(SEP.len() - 1).max(from);
                self.resume = Some((at, to));
                return Marked::NeedMore;
            }
            self.resume = None;
            return Marked::Text;
        };
        self.resume = None;
        let sep_at = from + i;
        let inner = &inp.w[at - inp.base + head..sep_at - inp.base];
        // One space after `<|open|>`/`<|close|>`: a detokenizer's between special tokens.
        let inner = inner.strip_prefix(' ').unwrap_or(inner);
        let len = sep_at + SEP.len() - at;
        let n = inner
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or(inner.len());
        let (name, rest) = inner.split_at(n);
        if name.is_empty() {
            return Marked::Text;
        }
        if open {
            let attributes = rest.trim_matches(|c: char| c.is_ascii() && is_blank(c as u8));
            if !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii() && is_blank(c as u8)) {
                return Marked::Text;
            }
            if !scan_attributes(attributes, |_, _| {}) {
                return Marked::Text;
            }
            Marked::Mark(Mark::Open { name, attributes }, len)
        } else if rest.is_empty() || rest == " " {
            Marked::Mark(Mark::Close(name), len)
        } else {
            Marked::Text
        }
    }
}

/// Gives `each` the `name="value"` pairs (or single-quoted), separated by blanks, in order;
/// `false` when they are malformed (checked to the end, whatever `each` was given).
fn scan_attributes<'a>(s: &'a str, mut each: impl FnMut(&'a str, &'a str)) -> bool {
    let mut rest = s;
    loop {
        rest = rest.trim_start_matches([' ', '\t', '\n', '\r']);
        if rest.is_empty() {
            return true;
        }
        let n = rest
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
            .unwrap_or(rest.len());
        if n == 0 {
            return false;
        }
        let name = &rest[..n];
        rest = rest[n..].trim_start_matches([' ', '\t']);
        let Some(after) = rest.strip_prefix('=') else {
            return false;
        };
        rest = after.trim_start_matches([' ', '\t']);
        let Some(q) = rest.chars().next().filter(|&c| c == '"' || c == '\'') else {
            return false;
        };
        let Some(close) = rest[1..].find(q) else {
            return false;
        };
        each(name, &rest[1..1 + close]);
        rest = &rest[close + 2..];
        if !rest.is_empty() && !rest.starts_with([' ', '\t', '\n', '\r']) {
            return false;
        }
    }
}

/// The value of attribute `name` (its first), trimmed, with the chat template's escaping undone:
/// `&quot;` is `"` and `&amp;` is `&` (the template escapes `&` first, so `&quot;` is undone
/// first); `None` when it is absent or the attributes are malformed.
fn attribute<'a>(attributes: &'a str, name: &str) -> Option<Cow<'a, str>> {
    let mut found = None;
    let well_formed = scan_attributes(attributes, |k, v| {
        if found.is_none() && k == name {
            found = Some(v);
        }
    });
    let value = found.filter(|_| well_formed)?.trim();
    Some(if value.contains('&') {
        Cow::Owned(value.replace("&quot;", "\"").replace("&amp;", "&"))
    } else {
        Cow::Borrowed(value)
    })
}

/// The grammar's state; each variant holds what it needs.
#[derive(Debug, Default)]
enum State {
    #[default]
    Prose,
    /// Inside a call, between arguments.
    Call { call: Box<Call> },
    /// Inside an argument's value.
    Value { call: Box<Call>, param: Box<Param> },
    /// A close marker inside a value: structural or text, as what follows decides.
    Closing(Closing),
    /// Inside a `json` block: the call's arguments as one JSON object.
    Json {
        call: Box<Call>,
        json: Box<JsonBody>,
    },
    /// After an error: read to the call's end.
    Skip { call: Box<Call> },
}

/// A close marker met inside a value, waiting for what follows it.
#[derive(Debug)]
struct Closing {
    call: Box<Call>,
    param: Box<Param>,
    close: Range<usize>,
    kind: Close,
    scanned: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    Argument,
    Call,
}

#[derive(Debug)]
struct Call {
    core: CallCore,
    args: Vec<(RawArgument, Option<Value>)>,
    /// The arguments of a `json` block, once read.
    json: Option<Map>,
}

#[derive(Debug)]
struct Param {
    value: RawValue,
    /// The `type` attribute, when it names one.
    ty: Option<String>,
}

/// The Kimi-K3 grammar.
#[derive(Debug)]
pub(crate) struct KimiK3 {
    asm: Assembler,
    marks: Marks,
    pos: usize,
    state: State,
    close: &'static memmem::Finder<'static>,
}

impl Grammar for KimiK3 {
    fn run(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> usize {
        let inp = Input { w, base, is_final };
        // A streamed token of a value, or of prose: read before anything else
        // (`RawValue::stream_tail`, `scan::prose_tail`).
        if let State::Value { call, param } = &mut self.state
            && let Some(keep) =
                param
                    .value
                    .stream_tail(&mut self.asm, &mut call.core, inp, &mut self.pos, out)
        {
            return keep;
        }
        if let State::Prose = self.state
            && let Some(keep) = super::scan::prose_tail(&mut self.asm, inp, &mut self.pos, out)
        {
            return keep;
        }
        self.run_states(inp, out);
        if is_final {
            self.finish(inp, out);
        }
        if let State::Value { call, param } = &mut self.state {
            param
                .value
                .deliver(&mut self.asm, &mut call.core, false, out);
        }
        let from = match &self.state {
            State::Prose => self.pos,
            State::Call { call }
            | State::Value { call, .. }
            | State::Json { call, .. }
            | State::Skip { call } => call.core.start,
            State::Closing(c) => c.call.core.start,
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

impl KimiK3 {
    /// The general path: each state's handler in turn until one needs more input.
    fn run_states(&mut self, inp: Input<'_>, out: &mut Vec<StreamEvent>) {
        loop {
            let (next, flow) = match std::mem::take(&mut self.state) {
                State::Prose => self.prose(inp, out),
                State::Call { call } => self.call(inp, call, out),
                State::Value { call, param } => self.value(inp, call, param, out),
                State::Closing(c) => self.closing(inp, c, out),
                State::Json { call, json } => self.json(inp, call, json),
                State::Skip { call } => self.skip(inp, call, out),
            };
            self.state = next;
            if flow == Flow::Stop {
                break;
            }
        }
    }

    pub(crate) fn new(opts: ParseOptions, progress: bool) -> Self {
        KimiK3 {
            asm: Assembler::new(opts, Dialect::KimiK3, progress),
            marks: Marks::default(),
            pos: 0,
            state: State::Prose,
            close: &CLOSE_FINDER,
        }
    }

    fn error(&mut self, inp: Input<'_>, call: &mut Call, kind: ErrorKind, msg: String, at: usize) {
        self.asm
            .error(inp.w, inp.base, &mut call.core, kind, msg, at);
    }

    // ----- prose ------------------------------------------------------------------------------

    fn prose(&mut self, inp: Input<'_>, out: &mut Vec<StreamEvent>) -> (State, Flow) {
        let bytes = inp.bytes();
        loop {
            let rel = self.pos - inp.base;
            let Some(i) = crate::dialect::scan::find_byte(b'<', &bytes[rel..]) else {
                self.pos = inp.end();
                self.asm.emit_prose(inp.w, inp.base, self.pos, out);
                return (State::Prose, Flow::Stop);
            };
            let at = inp.base + rel + i;
            let s = inp.from(at);
            let marked = match s.get(1) {
                Some(b'|') | None => self.marks.at(inp, at),
                Some(_) => Marked::Text,
            };
            let (attributes, len) = match marked {
                Marked::NeedMore => {
                    self.pos = at;
                    self.asm.emit_prose(inp.w, inp.base, at, out);
                    return (State::Prose, Flow::Stop);
                }
                Marked::Mark(
                    Mark::Open {
                        name: CALL,
                        attributes,
                    },
                    len,
                ) => (attributes, len),
                Marked::Mark(mark, len) if is_framing(mark) => {
                    // Layout: the prose before it is emitted, the marker itself is not.
                    self.asm.emit_prose(inp.w, inp.base, at, out);
                    self.asm.prose_start = at + len;
                    self.pos = at + len;
                    continue;
                }
                // An argument where a call was due: a call whose call marker was left out, never
                // prose (docs/FORMAT.md §9.6 rule 2).
                Marked::Mark(
                    Mark::Open {
                        name: ARGUMENT,
                        attributes,
                    },
                    _,
                ) if !attribute(attributes, "key")
                    .as_deref()
                    .is_some_and(is_placeholder)
                    && self.asm.may_begin_call(inp.w, inp.base, at, out) =>
                {
                    let mut call = Box::new(Call {
                        core: CallCore::new(self.asm.next_index(), at, at),
                        args: Vec::new(),
                        json: None,
                    });
                    self.pos = at;
                    let msg = "the call names no tool: <|open|>call tool=\"NAME\"<|sep|> must \
                               come before its arguments"
                        .to_owned();
                    let kind = ErrorKind::MissingToolName;
                    (self.asm).begin_failed_call(
                        inp.w,
                        inp.base,
                        &mut call.core,
                        kind,
                        msg,
                        at,
                        out,
                    );
                    return (State::Skip { call }, Flow::Again);
                }
                _ => {
                    self.pos = at + 1;
                    continue;
                }
            };
            let name = attribute(attributes, "tool");
            let name = name.as_deref();
            if name.is_some_and(is_placeholder)
                || !self.asm.may_begin_call(inp.w, inp.base, at, out)
            {
                self.pos = at + 1;
                continue;
            }
            let mut call = Box::new(Call {
                core: CallCore::new(self.asm.next_index(), at, at + len),
                args: Vec::new(),
                json: None,
            });
            self.asm.begin_call(inp.w, inp.base, &call.core, out);
            self.pos = at + len;
            return match name {
                Some(name) if is_valid_name(name) => {
                    self.asm
                        .set_tool_name(inp.w, inp.base, &mut call.core, name, at);
                    self.asm.tool_name_known(&call.core, out);
                    (State::Call { call }, Flow::Again)
                }
                Some(name) if !name.is_empty() => {
                    let msg = format!("`{}` is not a valid tool name", crate::error::snippet(name));
                    self.error(inp, &mut call, ErrorKind::InvalidToolName, msg, at);
                    (State::Skip { call }, Flow::Again)
                }
                _ => {
                    let msg = "the call marker has no tool=\"…\" naming the tool".to_owned();
                    self.error(inp, &mut call, ErrorKind::MissingToolName, msg, at);
                    (State::Skip { call }, Flow::Again)
                }
            };
        }
    }

    // ----- inside a call ----------------------------------------------------------------------

    fn call(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        if self.asm.call_too_long(&call.core, self.pos) {
            self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
            return (State::Skip { call }, Flow::Again);
        }
        let Some(at) = non_blank(inp, self.pos) else {
            self.pos = inp.end();
            return (State::Call { call }, Flow::Stop);
        };
        self.pos = at;
        if inp.from(at)[0] != b'<' {
            let msg = "text is not allowed directly inside a call; only arguments are".to_owned();
            self.error(inp, &mut call, ErrorKind::UnexpectedText, msg, at);
            return (State::Skip { call }, Flow::Again);
        }
        let (mark, len) = match self.marks.at(inp.as_if_more(), at) {
            Marked::NeedMore => return (State::Call { call }, Flow::Stop),
            Marked::Mark(mark, len) => (Some(mark), len),
            Marked::Text => (None, 1),
        };
        match mark {
            Some(Mark::Open {
                name: ARGUMENT,
                attributes,
            }) => {
                self.pos = at + len;
                let Some(key) = attribute(attributes, "key").filter(|k| !k.is_empty()) else {
                    let msg = "the argument marker has no key=\"…\" naming the argument".to_owned();
                    self.error(inp, &mut call, ErrorKind::UnexpectedElement, msg, at);
                    return (State::Skip { call }, Flow::Again);
                };
                if call.json.is_some() {
                    let msg = "a call's arguments are one json block or argument markers, \
                               not both"
                        .to_owned();
                    self.error(inp, &mut call, ErrorKind::UnexpectedElement, msg, at);
                    return (State::Skip { call }, Flow::Again);
                }
                let ty = attribute(attributes, "type").map(Cow::into_owned);
                match self.open_argument(inp, &mut call, &key, ty, (at, at + len), out) {
                    Some(param) => (State::Value { call, param }, Flow::Again),
                    None => (State::Skip { call }, Flow::Again),
                }
            }
            Some(Mark::Open { name: JSON, .. }) if call.args.is_empty() && call.json.is_none() => {
                self.pos = at + len;
                let json = Box::new(JsonBody::at(at + len));
                (State::Json { call, json }, Flow::Again)
            }
            Some(Mark::Close(CALL)) => {
                self.pos = at + len;
                self.end_call(inp, call, at + len, out);
                (State::Prose, Flow::Again)
            }
            Some(mark) if is_framing(mark) => {
                // The channel closed where `<|close|>call<|sep|>` was due: the call ends, repaired,
                // with its last marker (the blanks after it are prose, as after any call), and the
                // channel's marker is layout (docs/FORMAT.md §9.6 rule 8).
                let kind = RepairKind::MissingCallCloser;
                self.asm.repair(inp.w, inp.base, &mut call.core, kind, at);
                let end = before_blanks(inp, at, call.core.tag_end);
                self.end_call(inp, call, end, out);
                self.pos = end;
                (State::Prose, Flow::Again)
            }
            Some(Mark::Open { name: CALL, .. }) => {
                let partial = self.partial(&call);
                self.asm.unterminated(
                    inp.w,
                    inp.base,
                    &mut call.core,
                    "a new call began before <|close|>call<|sep|> closed this one",
                    at,
                    partial,
                );
                self.end_call(inp, call, at, out);
                self.pos = at;
                (State::Prose, Flow::Again)
            }
            _ => {
                let msg = "only <|open|>argument …<|sep|> or <|close|>call<|sep|> may stand \
                           inside a call"
                    .to_owned();
                self.error(inp, &mut call, ErrorKind::UnexpectedElement, msg, at);
                (State::Skip { call }, Flow::Again)
            }
        }
    }

    fn open_argument(
        &mut self,
        inp: Input<'_>,
        call: &mut Call,
        key: &str,
        ty: Option<String>,
        (at, end): (usize, usize),
        out: &mut Vec<StreamEvent>,
    ) -> Option<Box<Param>> {
        // A declared string whose property the schema does not let be one is typed by the
        // schema: not announced as a string (docs/FORMAT.md §9.6 rule 5).
        let string = declared_string(ty.as_deref())
            .filter(|&s| !s || self.asm.declared_fits(&call.core, key, "string"));
        let opened = self.asm.open_raw_argument(
            inp.w,
            inp.base,
            &mut call.core,
            key,
            "arguments",
            (at, end),
            string,
            out,
        )?;
        Some(Box::new(Param {
            value: RawValue::opened(opened, true),
            ty,
        }))
    }

    /// Closes `param`: its value is complete. A name given again is dropped: the first value
    /// stands (docs/FORMAT.md §9).
    fn close_argument(&mut self, call: &mut Call, param: Param, out: &mut Vec<StreamEvent>) {
        let Some(ClosedValue {
            name,
            mut text,
            shared,
        }) = param.value.close(&mut self.asm, &mut call.core, out)
        else {
            return;
        };
        // The declared value stands where the tool's schema lets it; elsewhere the schema types
        // the text (docs/FORMAT.md §9.6 rule 5).
        let fits = |v: &Value| self.asm.declared_fits(&call.core, &name, v.type_name());
        let typed = match param.ty.as_deref() {
            Some("string") if self.asm.declared_fits(&call.core, &name, "string") => {
                Some(Value::String(std::mem::take(&mut text)))
            }
            Some("string") | None => None,
            Some(ty) => typed(&text, ty).filter(fits),
        };
        if let (Some(value), Some(shared)) = (
            typed.as_ref().filter(|v| !matches!(v, Value::String(_))),
            &shared,
        ) {
            self.asm.argument_value(&call.core, shared, value, out);
        }
        let argument = call.core.keep_argument(name, text, Encoding::Raw);
        call.args.push((argument, typed));
    }

    /// How many bytes from `pos` are plain text of the value: everything before the next
    /// `<|close|>`, less a `<|close|>` that may begin at the end of a window that is not final.
    fn plain_text(&self, inp: Input<'_>, param: &mut Param) -> usize {
        let found = param.value.close.next(self.close, inp, self.pos);
        let end = match found {
            Some(at) => at,
            None if inp.is_final => inp.end(),
            None => {
                // Hold back a `<` near the end that may begin the marker.
                let tail_from = inp.end().saturating_sub(CLOSE.len() - 1).max(self.pos);
                let tail = inp.from(tail_from);
                memchr::memchr_iter(b'<', tail)
                    .find(|&i| CLOSE.as_bytes().starts_with(&tail[i..]))
                    .map_or(inp.end(), |i| tail_from + i)
            }
        };
        end - self.pos
    }

    fn value(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        mut param: Box<Param>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        match param.value.start(inp, self.pos) {
            Some(n) => self.pos += n,
            None => return (State::Value { call, param }, Flow::Stop),
        }
        loop {
            if self.asm.call_too_long(&call.core, self.pos) {
                self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
                return (State::Skip { call }, Flow::Again);
            }
            let plain = self.plain_text(inp, &mut param);
            let plain = match self
                .asm
                .value_run(inp.w, inp.base, &mut call.core, self.pos, plain)
            {
                Ok(plain) => plain,
                Err(resume) => {
                    self.pos = resume;
                    return (State::Skip { call }, Flow::Again);
                }
            };
            if plain > 0 {
                let rel = self.pos - inp.base;
                param.value.text.push_str(&inp.w[rel..rel + plain]);
                self.pos += plain;
                continue;
            }
            if self.pos >= inp.end() {
                return (State::Value { call, param }, Flow::Stop);
            }
            let at = self.pos;
            let (kind, len) = match self.marks.at(inp.as_if_more(), at) {
                Marked::NeedMore => return (State::Value { call, param }, Flow::Stop),
                Marked::Mark(Mark::Close(ARGUMENT), len) => (Some(Close::Argument), len),
                Marked::Mark(Mark::Close(CALL), len) => (Some(Close::Call), len),
                Marked::Mark(_, len) => (None, len),
                Marked::Text => (None, 1),
            };
            let Some(kind) = kind else {
                if !self
                    .asm
                    .count_argument_bytes(inp.w, inp.base, &mut call.core, len, at)
                {
                    return (State::Skip { call }, Flow::Again);
                }
                param
                    .value
                    .text
                    .push_str(&inp.w[at - inp.base..at + len - inp.base]);
                self.pos = at + len;
                continue;
            };
            let close = at..at + len;
            self.pos = close.end;
            if kind == Close::Call && param.value.at_line_start() {
                return self.close_structurally(inp, call, *param, close, kind, out);
            }
            return (
                State::Closing(Closing {
                    call,
                    param,
                    close,
                    kind,
                    scanned: at + len,
                }),
                Flow::Again,
            );
        }
    }

    /// A close marker inside a value: structural when the end of the input, the next argument,
    /// the call's close or a new call follows (after blanks); text otherwise.
    fn closing(&mut self, inp: Input<'_>, c: Closing, out: &mut Vec<StreamEvent>) -> (State, Flow) {
        let Closing {
            mut call,
            mut param,
            close,
            kind,
            scanned,
        } = c;
        let wait = |call, param, scanned| {
            (
                State::Closing(Closing {
                    call,
                    param,
                    close: close.clone(),
                    kind,
                    scanned,
                }),
                Flow::Stop,
            )
        };
        let structural = match non_blank(inp, scanned) {
            None if inp.is_final => true,
            None => return wait(call, param, inp.end()),
            Some(at) if inp.from(at)[0] != b'<' => false,
            Some(at) => match self.marks.at(inp.as_if_more(), at) {
                // A marker cut by the end of the input leaves the close marker standing.
                Marked::NeedMore if inp.is_final => true,
                Marked::NeedMore => return wait(call, param, at),
                Marked::Mark(Mark::Open { name: CALL, .. }, _) => true,
                // A channel's close or the message's end: the call is over (it ends, repaired,
                // in the call's state). A channel's opener there is the value's text, as any
                // other marker is: Dynamo's suite has the string own it when the call closes
                // later, and no later byte decides anything here.
                Marked::Mark(mark @ Mark::Close(_), _) if is_framing(mark) => true,
                Marked::Mark(
                    Mark::Open {
                        name: ARGUMENT | JSON,
                        ..
                    }
                    | Mark::Close(CALL),
                    _,
                ) => kind == Close::Argument,
                _ => false,
            },
        };
        self.marks.resume = None;
        if structural {
            return self.close_structurally(inp, call, *param, close, kind, out);
        }
        if !param
            .value
            .keep_close_tag(&mut self.asm, &mut call.core, inp, close.clone())
        {
            return (State::Skip { call }, Flow::Again);
        }
        self.pos = close.end;
        (State::Value { call, param }, Flow::Again)
    }

    fn close_structurally(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        param: Param,
        close: Range<usize>,
        kind: Close,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        if kind != Close::Argument {
            repair_unclosed_value(&mut self.asm, &mut call.core, inp, close.start);
        }
        self.close_argument(&mut call, param, out);
        self.pos = close.end;
        match kind {
            Close::Argument => (State::Call { call }, Flow::Again),
            Close::Call => {
                self.end_call(inp, call, close.end, out);
                (State::Prose, Flow::Again)
            }
        }
    }

    // ----- a json block -----------------------------------------------------------------------

    /// A `json` block: the call's arguments as one JSON object (docs/FORMAT.md §9.6 rule 9). Its
    /// end is where the object ends, found by the scanner the JSON dialects use (a marker
    /// inside a JSON string ends nothing; depth and element limits as for Hermes), then only
    /// `<|close|>json<|sep|>` may follow, and after it only the call's close.
    fn json(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        mut json: Box<JsonBody>,
    ) -> (State, Flow) {
        let Some(end) = json.end else {
            if json.scanned == json.from {
                // The object's first byte, after blanks.
                let Some(at) = non_blank(inp, json.from) else {
                    self.pos = inp.end();
                    return (State::Json { call, json }, Flow::Stop);
                };
                if inp.from(at)[0] != b'{' {
                    let msg = "a json block holds one JSON object".to_owned();
                    self.error(inp, &mut call, ErrorKind::InvalidJson, msg, at);
                    return (State::Skip { call }, Flow::Again);
                }
                json.from = at;
                json.scanned = at;
            }
            return match json.scan(&mut self.asm, inp, &mut call.core, &mut self.pos) {
                BodyScan::Ended => (State::Json { call, json }, Flow::Again),
                BodyScan::More => (State::Json { call, json }, Flow::Stop),
                BodyScan::Failed => (State::Skip { call }, Flow::Again),
            };
        };
        // The object is whole: `<|close|>json<|sep|>` must follow, after blanks.
        let Some(at) = non_blank(inp, end) else {
            self.pos = inp.end();
            return (State::Json { call, json }, Flow::Stop);
        };
        let close = match self.marks.at(inp.as_if_more(), at) {
            Marked::NeedMore => {
                self.pos = at;
                return (State::Json { call, json }, Flow::Stop);
            }
            Marked::Mark(Mark::Close(JSON), len) => at + len,
            _ => {
                let msg = "only <|close|>json<|sep|> may follow the block's JSON object".to_owned();
                self.error(inp, &mut call, ErrorKind::UnexpectedText, msg, at);
                return (State::Skip { call }, Flow::Again);
            }
        };
        self.pos = close;
        match json.read(&mut self.asm, inp, &mut call.core) {
            Some(map) => {
                call.json = Some(map);
                (State::Call { call }, Flow::Again)
            }
            None => (State::Skip { call }, Flow::Again),
        }
    }

    // ----- the call's end ---------------------------------------------------------------------

    fn end_call(
        &mut self,
        inp: Input<'_>,
        call: Box<Call>,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        let Call { core, args, json } = *call;
        let arguments = if let Some(map) = json {
            Arguments::Json(map)
        } else if args.iter().all(|(_, v)| v.is_none()) {
            Arguments::Raw(args.into_iter().map(|(a, _)| a).collect())
        } else {
            Arguments::Typed(args)
        };
        self.asm
            .finish_call(inp.w, inp.base, core, arguments, end, out);
        self.asm.prose_start = end;
        self.marks.resume = None;
    }

    /// After an error: the call ends at `<|close|>call<|sep|>`, or where a new call begins.
    fn skip(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        loop {
            let Some(i) = memchr(b'<', inp.from(self.pos)) else {
                self.pos = inp.end();
                complete_snippet(inp.w, inp.base, &mut call.core, self.pos, None);
                return (State::Skip { call }, Flow::Stop);
            };
            let at = self.pos + i;
            match self.marks.at(inp, at) {
                Marked::NeedMore => {
                    self.pos = at;
                    complete_snippet(inp.w, inp.base, &mut call.core, self.pos, None);
                    return (State::Skip { call }, Flow::Stop);
                }
                Marked::Mark(Mark::Close(CALL), len) => {
                    self.pos = at + len;
                    self.end_call(inp, call, at + len, out);
                    return (State::Prose, Flow::Again);
                }
                // A new call, or a channel marker (rule 8): what follows is read again.
                Marked::Mark(mark, _)
                    if matches!(mark, Mark::Open { name: CALL, .. }) || is_framing(mark) =>
                {
                    self.pos = at;
                    self.end_call(inp, call, at, out);
                    return (State::Prose, Flow::Again);
                }
                Marked::Mark(_, len) => self.pos = at + len,
                Marked::Text => self.pos = at + 1,
            }
        }
    }

    fn finish(&mut self, inp: Input<'_>, out: &mut Vec<StreamEvent>) {
        let end = inp.end();
        let call = match std::mem::take(&mut self.state) {
            State::Call { call } | State::Skip { call } | State::Json { call, .. } => Some(call),
            State::Value { mut call, .. } | State::Closing(Closing { mut call, .. }) => {
                call.core.delta.clear();
                Some(call)
            }
            State::Prose => None,
        };
        if let Some(mut call) = call {
            let partial = self.partial(&call);
            self.asm.unterminated(
                inp.w,
                inp.base,
                &mut call.core,
                "the input ended before <|close|>call<|sep|> closed the call",
                end,
                partial,
            );
            self.end_call(inp, call, end, out);
        }
        self.pos = end;
        self.asm.emit_prose(inp.w, inp.base, end, out);
    }

    fn partial(&self, call: &Call) -> Option<serde_json::Value> {
        Some(self.asm.partial_typed(&call.core, &call.args))
    }
}

/// A value typed by its `type` attribute (JSON Schema's type names), read as the shared
/// raw-text typing reads a property of that type; `None` when the attribute names no such type
/// or the text does not fit it (the tool's schema types it then).
/// The type a `type` attribute declares, for [`StreamEvent::ArgumentStarted`]: a string, another
/// type this dialect reads (rule 5), or none it knows (the schema types the value).
fn declared_string(ty: Option<&str>) -> Option<bool> {
    match ty? {
        "string" => Some(true),
        "integer" | "number" | "boolean" | "null" | "object" | "array" => Some(false),
        _ => None,
    }
}

fn typed(text: &str, ty: &str) -> Option<Value> {
    match ty {
        "integer" | "number" | "boolean" | "null" | "object" | "array" => {
            let schema = serde_json::json!({ "type": ty });
            let t = arg_types::raw::type_raw(text, Some(&schema), &serde_json::Value::Null);
            t.fits().then_some(t.value)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An attribute is read only from attributes well formed to their end; the first of a name
    /// counts, trimmed and unescaped.
    #[test]
    fn attributes_are_read_whole() {
        assert_eq!(
            attribute(r#"key="a" type='b'"#, "type").as_deref(),
            Some("b")
        );
        assert_eq!(
            attribute(r#"key=" a &amp;&quot; " key="x""#, "key").as_deref(),
            Some("a &\"")
        );
        assert_eq!(attribute(r#"key="a" type"#, "key"), None);
        assert_eq!(attribute(r#"key="a"type="b""#, "key"), None);
        assert_eq!(attribute(r#"key="a""#, "type"), None);
        assert!(scan_attributes("", |_, _| panic!("no attribute")));
        assert!(!scan_attributes(r#"=x"#, |_, _| {}));
    }
}
