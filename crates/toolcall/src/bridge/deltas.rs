//! OpenAI-style streamed `tool_calls` deltas from the streaming parser, for servers.
//!
//! An inference server answers a streamed chat completion with, per call, an `index` and an
//! `id`, the function `name` once, then `arguments` as fragments of one JSON string.
//! [`ToolCallDeltas`] turns [`StreamEvent`]s of any dialect into such [`DeltaEvent`]s:
//!
//! - the fragments of a call concatenate, byte for byte, to the compact JSON of its final
//!   `arguments` (as `ToolCall` serializes them), in every chunking;
//! - in dialects whose deltas are the values' text
//!   ([`Dialect::exact_argument_deltas`](toolcall_parser::Dialect::exact_argument_deltas):
//!   Qwen3-Coder, Seed-OSS, GLM, MiniMax-M2, Anthropic, Step-3, DeepSeek DSML, Kimi-K3,
//!   Hermes), a string argument streams as it arrives, each fragment behind its input by at most
//!   the few bytes that may be a layout newline, a tag or an escape; numbers, booleans, null,
//!   objects and arrays are sent once their argument is complete, typed as the call will be (by
//!   the dialect's own declaration where it makes one, DSML's `string=`, Kimi-K3's `type=`,
//!   Hermes' JSON, else by the schema). A name given twice keeps its first value
//!   (docs/FORMAT.md §9), so what was streamed stands;
//! - in the `<tool>` dialect an argument that the schema types as a string streams while its
//!   deltas are its text as written, held back only where the value-text rule may still trim
//!   (docs/FORMAT.md §2); other arguments are known only when the call ends (inference, arrays
//!   and objects see the whole call), so from the first of them, or from a reference or CDATA
//!   section (`ArgumentDecoded`), the rest of the arguments come as one fragment then; a
//!   MiniMax-M3 call's arguments come whole (a name given again turns its string into an
//!   array, docs/FORMAT.md §9.9);
//! - a call that turns out truncated or malformed gets [`DeltaEvent::CallFailed`]: a host must
//!   not run it, whatever fragments it had (docs/GUIDE.md);
//! - a call without arguments gets `{}`, streamed or not.
//!
//! ```
//! use toolcall::bridge::openai::{DeltaEvent, ToolCallDeltas};
//! use toolcall::parser::{Dialect, ParseOptions};
//! let mut deltas = ToolCallDeltas::new(ParseOptions::new().with_dialect(Dialect::Qwen3Coder));
//! let mut events = Vec::new();
//! for piece in ["<tool_call>\n<function=write>\n<parameter=path>\na.", "rs\n</parameter>\n", "</function>\n</tool_call>"] {
//!     events.extend(deltas.feed(piece));
//! }
//! events.extend(deltas.finish());
//! let arguments: String = events.iter().filter_map(|e| match e {
//!     DeltaEvent::Arguments { fragment, .. } => Some(fragment.as_str()),
//!     _ => None,
//! }).collect();
//! assert_eq!(arguments, r#"{"path":"a.rs"}"#);
//! assert!(matches!(&events[0], DeltaEvent::ToolCallStart { index: 0, name, .. } if name == "write"));
//! ```

use arg_types::json_schema::PreparedSchema;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use toolcall_parser::{
    Dialect, ParseError, ParseOptions, StreamEvent, StreamParser, ToolCall, Value,
};
use xml_fallback::name_index::NameIndex;

/// One event of the OpenAI-style stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DeltaEvent {
    /// Answer text (`delta.content`).
    Content {
        /// The text.
        text: String,
    },
    /// Reasoning text (`delta.reasoning`), with the reasoning channel on.
    Reasoning {
        /// The text.
        text: String,
    },
    /// A call begins: its index among this response's calls, its id, its function name.
    ToolCallStart {
        /// The call's index in `tool_calls`, from 0, in order of their names.
        index: usize,
        /// `call_<index>`.
        id: String,
        /// The function's name, sent once.
        name: String,
    },
    /// A fragment of the call's `arguments` JSON string.
    Arguments {
        /// The call's index.
        index: usize,
        /// The fragment.
        fragment: String,
    },
    /// The call's arguments are complete: their fragments form its final JSON.
    CallDone {
        /// The call's index.
        index: usize,
    },
    /// The call turned out truncated or malformed: it must not be run, whatever fragments it
    /// had. `index` is `None` when it failed before its name was known (no start was sent).
    CallFailed {
        /// The call's index, if a start was sent for it.
        index: Option<usize>,
        /// Why, in one sentence.
        message: String,
        /// The parser's error, with its position and the feedback for the model.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<Box<ParseError>>,
    },
}

/// Where one call's arguments stand.
#[derive(Debug, Default)]
struct CallState {
    /// The delta index, once the start was sent.
    index: Option<usize>,
    /// The dialect the call is written in (under `auto`, the one its marker chose).
    dialect: Option<Dialect>,
    /// The tool's name, once known.
    tool: Option<String>,
    /// Everything sent of the arguments JSON.
    sent: String,
    /// Arguments begun, by name (a repeated one is ignored: its first value stands).
    seen: Seen,
    /// The argument being read: its name, whether its string streams, its raw text so far.
    open: Option<OpenArgument>,
    /// Nothing more is sent before the call ends (the `<tool>` dialect, at an argument it cannot
    /// stream): the rest of the arguments come whole with the finished call.
    held: bool,
}

/// The argument names begun in one call, found by a [`NameIndex`] (a handful compared one by
/// one, a keyed hash past [`NameIndex::FEW`]), so that a call of many names still costs O(1)
/// per name.
#[derive(Debug, Default)]
struct Seen {
    names: Vec<Arc<str>>,
    index: NameIndex,
}

impl Seen {
    /// Adds `name`; `false` when it was there already.
    fn insert(&mut self, name: &Arc<str>) -> bool {
        let names = &self.names;
        match self.index.get_or_insert(name, |i| &names[i]) {
            Ok(_) => false,
            Err(_) => {
                self.names.push(Arc::clone(name));
                true
            }
        }
    }
}

/// Hashes the parser's call indexes (small integers it counts up from 0) by one multiplication
/// by an odd constant, which spreads them over the table's buckets and control bits; SipHash's
/// defence against chosen keys buys nothing for keys the parser chooses.
#[derive(Debug, Clone, Copy, Default)]
struct BuildIndexHasher;

/// The hasher of [`BuildIndexHasher`].
#[derive(Debug, Default)]
struct IndexHasher(u64);

impl std::hash::BuildHasher for BuildIndexHasher {
    type Hasher = IndexHasher;
    fn build_hasher(&self) -> IndexHasher {
        IndexHasher(0)
    }
}

impl std::hash::Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

#[derive(Debug)]
struct OpenArgument {
    name: Arc<str>,
    streams: bool,
    text: String,
    /// The value the dialect typed itself, once the argument closed.
    value: Option<Value>,
    /// The `<tool>` dialect: how much of the text the value-text rule has settled.
    settling: Settling,
}

/// A `<tool>` string argument's text as it arrives, and how much of it is settled: the start of
/// its value under the value-text rule (`xml_fallback::text::text_value`, docs/FORMAT.md §2)
/// whatever text follows. Held back: a first line that begins with a blank (trimmed if the text
/// stays one line, kept if a line follows), the blanks at the end of a single line, and a last
/// line that is blank so far (dropped with its newline if the text ends there). Kept up to date
/// with each delta, so that settling costs the delta's length, not the text's.
#[derive(Debug, Default)]
struct Settling {
    /// The first newline, and whether the line before it is blank.
    first_newline: Option<(usize, bool)>,
    /// The last newline.
    last_newline: Option<usize>,
    /// Whether the text after the last newline (all of it, without one) is blank.
    tail_blank: bool,
    /// Where the last character that is not blank ends.
    content_end: usize,
    /// How far the text was sent.
    sent: usize,
}

impl Settling {
    /// Takes note of `delta`, appended to `text` (which already holds it).
    fn append(&mut self, text: &str, delta: &str) {
        let at = text.len() - delta.len();
        if at == 0 {
            self.tail_blank = true;
        }
        if self.first_newline.is_none()
            && let Some(i) = delta.find('\n')
        {
            let nl = at + i;
            self.first_newline = Some((nl, xml_fallback::text::is_blank(&text[..nl])));
        }
        match delta.rfind('\n') {
            Some(i) => {
                self.last_newline = Some(at + i);
                self.tail_blank = xml_fallback::text::is_blank(&delta[i + 1..]);
            }
            None => self.tail_blank &= xml_fallback::text::is_blank(delta),
        }
        if let Some((i, c)) = delta
            .char_indices()
            .rev()
            .find(|&(_, c)| !matches!(c, ' ' | '\t' | '\n' | '\r'))
        {
            self.content_end = at + i + c.len_utf8();
        }
    }

    /// The settled part of `text`: where the value begins in it and how far it is certain.
    fn settled(&self, text: &str) -> (usize, usize) {
        match self.first_newline {
            None if text.starts_with([' ', '\t', '\r']) || text.is_empty() => (0, 0),
            None => (0, self.content_end),
            Some((nl, blank)) => {
                let start = if blank { nl + 1 } else { 0 };
                let last = self.last_newline.unwrap_or(nl);
                let end = if self.tail_blank {
                    last.max(start)
                } else {
                    text.len()
                };
                (start, end)
            }
        }
    }

    /// The settled text not sent yet, marked sent.
    fn take<'t>(&mut self, text: &'t str) -> &'t str {
        let (start, end) = self.settled(text);
        let from = self.sent.max(start);
        if end <= from {
            return "";
        }
        self.sent = end;
        &text[from..end]
    }
}

/// OpenAI-style `tool_calls` deltas from a [`StreamParser`] (see the module documentation).
#[derive(Debug)]
pub struct ToolCallDeltas {
    parser: StreamParser,
    options: ParseOptions,
    calls: HashMap<usize, CallState, BuildIndexHasher>,
    next_index: usize,
    /// The last chunk's argument deltas, read in place: handed back to the parser with the next
    /// chunk (`StreamParser::feed_reusing`), which makes the next deltas' text in their strings.
    spent: Vec<StreamEvent>,
    /// An empty buffer for the next chunk's spent deltas (its capacity kept).
    spare: Vec<StreamEvent>,
    /// Fragments of events handed back ([`ToolCallDeltas::feed_reusing`]), emptied, for the
    /// next fragments: at most [`FRAGMENTS_KEPT`], of at most [`MAX_KEPT_CAPACITY`] bytes.
    fragments: Vec<String>,
}

/// Fragment buffers kept for reuse at most: a chunk makes one or two fragments.
const FRAGMENTS_KEPT: usize = 4;

/// The largest capacity of a fragment buffer kept for reuse (a larger one, from a long chunk or
/// a call's last fragment, is freed), so that what is kept stays bounded.
const MAX_KEPT_CAPACITY: usize = 4096;

impl ToolCallDeltas {
    /// A stream with these parse options (dialect, schemas, reasoning).
    pub fn new(options: ParseOptions) -> Self {
        ToolCallDeltas {
            parser: StreamParser::with_options(options.clone()),
            options,
            calls: HashMap::default(),
            next_index: 0,
            spent: Vec::new(),
            spare: Vec::new(),
            fragments: Vec::new(),
        }
    }

    /// Reads the next chunk; returns the deltas it made certain.
    pub fn feed(&mut self, chunk: &str) -> Vec<DeltaEvent> {
        let mut out = Vec::new();
        self.feed_reusing(chunk, &mut out);
        out
    }

    /// Like [`feed`](Self::feed), but `events` first gives back the last chunk's deltas: they are
    /// dropped, and their strings (fragments, content, reasoning) become this chunk's, which
    /// `events` holds on return. A server that reads each chunk's deltas by reference (to
    /// write them out) and feeds the next chunk with the same `Vec` allocates neither a vector
    /// nor a fragment per chunk once streaming runs. What is kept between chunks is bounded (a
    /// few strings of at most 4 KiB), and the deltas are exactly those `feed` returns.
    ///
    /// ```
    /// use toolcall::bridge::openai::{DeltaEvent, ToolCallDeltas};
    /// use toolcall::parser::{Dialect, ParseOptions};
    /// let mut deltas = ToolCallDeltas::new(ParseOptions::new().with_dialect(Dialect::Qwen3Coder));
    /// let (mut events, mut arguments) = (Vec::new(), String::new());
    /// let reply = "<tool_call>\n<function=w>\n<parameter=path>\na.rs\n</parameter>\n</function>\n</tool_call>";
    /// for piece in reply.as_bytes().chunks(4) {
    ///     deltas.feed_reusing(std::str::from_utf8(piece).unwrap(), &mut events);
    ///     for e in &events {
    ///         if let DeltaEvent::Arguments { fragment, .. } = e {
    ///             arguments.push_str(fragment);
    ///         }
    ///     }
    /// }
    /// for e in deltas.finish() {
    ///     if let DeltaEvent::Arguments { fragment, .. } = e {
    ///         arguments.push_str(&fragment);
    ///     }
    /// }
    /// assert_eq!(arguments, r#"{"path":"a.rs"}"#);
    /// ```
    pub fn feed_reusing(&mut self, chunk: &str, events: &mut Vec<DeltaEvent>) {
        let mut parsed = std::mem::take(&mut self.spent);
        for e in events.drain(..) {
            match e {
                DeltaEvent::Arguments { fragment, .. } => {
                    keep_fragment(&mut self.fragments, fragment)
                }
                // The parser takes these back as it takes its own events' strings.
                DeltaEvent::Content { text } => parsed.push(StreamEvent::Prose { text }),
                DeltaEvent::Reasoning { text } => parsed.push(StreamEvent::Reasoning { text }),
                _ => {}
            }
        }
        self.parser.feed_reusing(chunk, &mut parsed);
        self.translate(parsed, events);
    }

    /// Ends the input.
    pub fn finish(&mut self) -> Vec<DeltaEvent> {
        let events = self.parser.finish();
        let mut out = Vec::new();
        self.translate(events, &mut out);
        // No chunk follows to take the last deltas' strings back.
        self.spent.clear();
        out
    }

    /// The deltas of a chunk's events, into `out`; the argument deltas, whose text is only read,
    /// are kept for the next chunk (`spent`).
    fn translate(&mut self, mut events: Vec<StreamEvent>, out: &mut Vec<DeltaEvent>) {
        let mut spent = std::mem::take(&mut self.spare);
        for e in events.drain(..) {
            if let StreamEvent::ArgumentDelta {
                index,
                argument,
                text,
            } = &e
            {
                self.argument_delta(*index, argument, text, out);
                spent.push(e);
            } else {
                self.event(e, out);
            }
        }
        self.spare = events;
        self.spent = spent;
    }

    /// The dialect of call `index`, whose rules its argument events follow.
    fn dialect_of(&self, index: usize) -> Dialect {
        self.calls
            .get(&index)
            .and_then(|c| c.dialect)
            .unwrap_or(self.options.dialect())
    }

    /// Whether call `index`'s argument deltas are its values' text.
    fn exact(&self, index: usize) -> bool {
        self.dialect_of(index).exact_argument_deltas()
    }

    fn event(&mut self, e: StreamEvent, out: &mut Vec<DeltaEvent>) {
        match e {
            StreamEvent::Prose { text } => out.push(DeltaEvent::Content { text }),
            StreamEvent::Reasoning { text } => out.push(DeltaEvent::Reasoning { text }),
            StreamEvent::CallStarted { index, dialect } => {
                self.calls.entry(index).or_default().dialect = Some(dialect);
            }
            StreamEvent::ToolName { index, tool_name } => {
                let delta = self.next_index;
                self.next_index += 1;
                // A tool whose schema's root has alternatives types its arguments by the branch
                // they all fit, known only at the call's end (FORMAT §5.3): nothing is sent
                // before it.
                let alternatives = (self.options.schemas())
                    .and_then(|s| s.prepared(&tool_name))
                    .is_some_and(arg_types::json_schema::PreparedSchema::has_alternatives);
                let call = self.calls.entry(index).or_default();
                call.index = Some(delta);
                call.held |= alternatives;
                call.tool = Some(tool_name.clone());
                out.push(DeltaEvent::ToolCallStart {
                    index: delta,
                    id: format!("call_{delta}"),
                    name: tool_name,
                });
            }
            StreamEvent::ArgumentStarted {
                index, argument, ..
            } if self.dialect_of(index) == Dialect::Tool => {
                self.tool_argument(index, argument, out)
            }
            StreamEvent::ArgumentDecoded { index, argument } => {
                // The deltas stop being the argument's text as written: what its value will be
                // is known only when the call ends (docs/FORMAT.md §2, streaming).
                if let Some(call) = self.calls.get_mut(&index)
                    && call.open.as_ref().is_some_and(|o| o.name == argument)
                {
                    call.held = true;
                }
            }
            StreamEvent::ArgumentStarted {
                index,
                argument,
                string,
            } if self.exact(index) => {
                // The dialect's own declaration stands over the schema's (FORMAT §9.5, §9.6).
                let streams = string.unwrap_or_else(|| self.streams_as_string(index, &argument));
                let Some(call) = self.calls.get_mut(&index).filter(|c| !c.held) else {
                    return;
                };
                let Some(delta) = call.index else { return };
                if !call.seen.insert(&argument) {
                    return;
                }
                let mut fragment = take_fragment(&mut self.fragments);
                let schema =
                    (call.tool.as_deref()).and_then(|tool| self.options.schemas()?.prepared(tool));
                close_argument(&mut call.open, schema, &mut fragment);
                fragment.push(if call.sent.is_empty() { '{' } else { ',' });
                arg_types::value::push_json_str(&mut fragment, &argument);
                fragment.push(':');
                if streams {
                    fragment.push('"');
                }
                call.open = Some(OpenArgument {
                    name: argument,
                    streams,
                    text: String::new(),
                    value: None,
                    settling: Settling::default(),
                });
                send(call, delta, fragment, out);
            }
            StreamEvent::ArgumentValue {
                index,
                argument,
                value,
            } if self.exact(index) => {
                if let Some(open) = self
                    .calls
                    .get_mut(&index)
                    .and_then(|c| c.open.as_mut())
                    .filter(|o| o.name == argument)
                {
                    open.value = Some(*value);
                }
            }
            StreamEvent::CallFinished { index, result } => {
                let mut call = self.calls.remove(&index).unwrap_or_default();
                match result {
                    Ok(done) => self.finish_call(&mut call, &done, out),
                    Err(error) => out.push(DeltaEvent::CallFailed {
                        index: call.index,
                        message: error.to_string(),
                        error: Some(error),
                    }),
                }
            }
            StreamEvent::Error { error } => out.push(DeltaEvent::CallFailed {
                index: None,
                message: error.to_string(),
                error: Some(error),
            }),
            _ => {}
        }
    }

    /// An argument's delta: in the `<tool>` dialect, its settled text streams while the value
    /// is a string written as text; in the exact dialects, a string's text streams and any
    /// other value's is kept until it is complete.
    fn argument_delta(
        &mut self,
        index: usize,
        argument: &Arc<str>,
        text: &str,
        out: &mut Vec<DeltaEvent>,
    ) {
        let Some(call) = self.calls.get_mut(&index) else {
            return;
        };
        let dialect = call.dialect.unwrap_or(self.options.dialect());
        let Some(delta) = call.index else { return };
        if dialect == Dialect::Tool {
            if call.held {
                return;
            }
            let Some(open) = call.open.as_mut().filter(|o| o.name == *argument) else {
                return;
            };
            open.text.push_str(text);
            open.settling.append(&open.text, text);
            let settled = open.settling.take(&open.text);
            if settled.is_empty() {
                return;
            }
            let mut fragment = take_fragment(&mut self.fragments);
            push_json_string_body(&mut fragment, settled);
            send(call, delta, fragment, out);
        } else if dialect.exact_argument_deltas() {
            let Some(open) = call.open.as_mut().filter(|o| o.name == *argument) else {
                return;
            };
            if open.streams {
                let mut fragment = take_fragment(&mut self.fragments);
                push_json_string_body(&mut fragment, text);
                send(call, delta, fragment, out);
            } else {
                open.text.push_str(text);
            }
        }
    }

    /// Sends what is left of a finished call's arguments, checking that everything sent is
    /// the start of their final JSON.
    fn finish_call(&mut self, call: &mut CallState, done: &ToolCall, out: &mut Vec<DeltaEvent>) {
        let delta = match call.index {
            Some(d) => d,
            None => {
                // A dialect that names the call only at its end: the start comes now.
                let d = self.next_index;
                self.next_index += 1;
                out.push(DeltaEvent::ToolCallStart {
                    index: d,
                    id: format!("call_{d}"),
                    name: done.tool_name.clone(),
                });
                d
            }
        };
        let mut full = String::with_capacity(call.sent.len() + 16);
        arg_types::value::push_json_object(&mut full, &done.arguments);
        match full.strip_prefix(call.sent.as_str()) {
            Some(rest) => {
                if !rest.is_empty() {
                    let mut fragment = take_fragment(&mut self.fragments);
                    fragment.push_str(rest);
                    out.push(DeltaEvent::Arguments {
                        index: delta,
                        fragment,
                    });
                }
                out.push(DeltaEvent::CallDone { index: delta });
            }
            None => {
                // Never expected (a property test holds it): say so rather than send a call
                // whose fragments are not its arguments.
                debug_assert!(
                    false,
                    "streamed {:?} is not a prefix of {full:?}",
                    call.sent
                );
                out.push(DeltaEvent::CallFailed {
                    index: Some(delta),
                    message: "the streamed arguments differ from the call's; do not run it".into(),
                    error: None,
                });
            }
        }
    }

    /// A top-level argument of a `<tool>` call begins. Only a string, as the tool's schema
    /// types it, streams (inference, arrays and objects need the whole call): the argument
    /// before it is closed with the rest of its value, and this one opens. At any other
    /// argument, or a name given again (an array, or an error), the call is held: the rest
    /// comes whole when it ends.
    fn tool_argument(&mut self, index: usize, argument: Arc<str>, out: &mut Vec<DeltaEvent>) {
        let streams = (self.tool_schema(index))
            .and_then(|schema| schema.types(&argument))
            .is_some_and(|t| *t == ["string"]);
        let Some(call) = self.calls.get_mut(&index).filter(|c| !c.held) else {
            return;
        };
        let Some(delta) = call.index else { return };
        if !streams || !call.seen.insert(&argument) {
            call.held = true;
            return;
        }
        let mut fragment = take_fragment(&mut self.fragments);
        if let Some(open) = call.open.take() {
            // The argument closed: its value is its text under the value-text rule.
            let value = xml_fallback::text::text_value(&open.text);
            let start = value.as_ptr() as usize - open.text.as_ptr() as usize;
            let end = start + value.len();
            let (settled_start, _) = open.settling.settled(&open.text);
            if (open.settling.sent > 0 && start != settled_start) || end < open.settling.sent {
                debug_assert!(false, "sent text that is not the value's start");
                call.held = true;
                return;
            }
            push_json_string_body(
                &mut fragment,
                &open.text[open.settling.sent.max(start)..end],
            );
            fragment.push('"');
        }
        fragment.push(if call.sent.is_empty() { '{' } else { ',' });
        arg_types::value::push_json_str(&mut fragment, &argument);
        fragment.push_str(":\"");
        call.open = Some(OpenArgument {
            name: argument,
            streams: true,
            text: String::new(),
            value: None,
            settling: Settling::default(),
        });
        send(call, delta, fragment, out);
    }

    /// Whether the argument `name` of call `index` will be a string equal to its raw text: its
    /// property's schema says string, or there is none to type it (raw text stays a string).
    fn streams_as_string(&self, index: usize, name: &str) -> bool {
        let Some(schema) = self.tool_schema(index) else {
            return true;
        };
        match schema.types(name) {
            Some(t) => *t == ["string"],
            // Typed by `additionalProperties` when that is a schema (of the resolved root, as
            // the call's arguments are typed).
            None => !schema
                .additional_properties()
                .is_some_and(serde_json::Value::is_object),
        }
    }

    /// The input schema of call `index`'s tool, as read for its calls, if one was given.
    fn tool_schema(&self, index: usize) -> Option<&PreparedSchema> {
        let tool = self.calls.get(&index)?.tool.as_deref()?;
        self.options.schemas()?.prepared(tool)
    }
}

/// Closes the argument being read, into `fragment`: a streamed string's closing quote, or the
/// typed value of an argument that waited for its whole text (typed as the call's will be).
fn close_argument(
    open: &mut Option<OpenArgument>,
    schema: Option<&PreparedSchema>,
    fragment: &mut String,
) {
    let Some(open) = open.take() else { return };
    if open.streams {
        fragment.push('"');
        return;
    }
    let value = match (open.value, schema) {
        (Some(value), _) => value,
        (None, Some(s)) => s.type_raw_argument(&open.name, open.text),
        (None, None) => arg_types::raw::type_raw(open.text, None, &serde_json::Value::Null).value,
    };
    arg_types::value::push_json(fragment, &value);
}

/// Sends `fragment` (if not empty) as arguments of the call with delta index `delta`.
fn send(call: &mut CallState, delta: usize, fragment: String, out: &mut Vec<DeltaEvent>) {
    if fragment.is_empty() {
        return;
    }
    call.sent.push_str(&fragment);
    out.push(DeltaEvent::Arguments {
        index: delta,
        fragment,
    });
}

/// `s` as the inside of a JSON string, escaped as serde_json escapes it.
fn push_json_string_body(out: &mut String, s: &str) {
    // Room for the text and some escapes at once (a streamed chunk of code holds a quote or a
    // line end more often than not), not grown piece by piece.
    out.reserve(s.len() + (s.len() / 8).max(16));
    // Writing to a `String` cannot fail.
    let _ = arg_types::value::write_json_str_contents(out, s);
}

/// An empty string for a fragment: one handed back when there is one.
fn take_fragment(kept: &mut Vec<String>) -> String {
    kept.pop().unwrap_or_default()
}

/// Keeps `fragment`'s buffer for a next fragment, within the bounds (a larger or an extra one is
/// freed).
fn keep_fragment(kept: &mut Vec<String>, mut fragment: String) {
    if kept.len() < FRAGMENTS_KEPT && fragment.capacity() <= MAX_KEPT_CAPACITY {
        fragment.clear();
        kept.push(fragment);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name is seen once, whether it comes back as the same `Arc` or an equal one, before and
    /// after the index turns to hashing.
    #[test]
    fn names_are_seen_once_on_both_sides_of_the_bound() {
        let mut seen = Seen::default();
        let names: Vec<Arc<str>> = (0..3 * NameIndex::FEW)
            .map(|i| Arc::from(format!("a{i}")))
            .collect();
        for (i, n) in names.iter().enumerate() {
            assert!(seen.insert(n), "{n} is new");
            assert!(!seen.insert(n), "{n} again, the same Arc");
            assert!(!seen.insert(&Arc::from(&**n)), "{n} again, an equal one");
            assert_eq!(seen.names.len(), i + 1);
        }
        for n in &names {
            assert!(!seen.insert(n));
        }
    }

    /// Call indexes counted up from 0 spread over distinct hashes (no two of the first 10,000
    /// share one, and their low bits, which pick the bucket, vary).
    #[test]
    fn index_hashes_are_distinct() {
        use std::hash::BuildHasher;
        let hashes: std::collections::HashSet<u64> = (0..10_000usize)
            .map(|i| BuildIndexHasher.hash_one(i))
            .collect();
        assert_eq!(hashes.len(), 10_000);
        let low: std::collections::HashSet<u64> = (0..64usize)
            .map(|i| BuildIndexHasher.hash_one(i) & 63)
            .collect();
        assert!(low.len() > 32, "{} distinct low bits of 64", low.len());
    }
}
