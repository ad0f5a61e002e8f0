//! MiniMax-M3: docs/FORMAT.md §9.9.
//!
//! ```text
//! ]<]minimax[>[<tool_call>
//! ]<]minimax[>[<invoke name="get_weather">
//! ]<]minimax[>[<city>Paris]<]minimax[>[</city>
//! ]<]minimax[>[</invoke>
//! ]<]minimax[>[</tool_call>
//! ```
//!
//! Every structural tag follows the namespace marker `]<]minimax[>[` and nothing else is markup:
//! text runs up to the next marker (found by `memmem`), raw (no references, no trimming). An
//! argument is an element named after it; elements nest, and the tree is typed by
//! `arg_types::raw::type_raw_tree` (objects, arrays of `<item>`s, repeated names, raw leaves).
//!
//! ```text
//!  Prose ──<tool_call>──► Block ──<invoke name=f>──► Invoke ──<KEY>──► Element ──<KEY>──► (nested)
//!    ▲                     │ ▲                        │  ▲               │
//!    └────</tool_call>─────┘ └──────</invoke>─────────┘  └─────</KEY>────┘ (top level closed)
//!  anything else in Block ──► Stray: an error, and the block ends there (the rest is prose)
//! ```

use crate::assemble::{Arguments, Assembler, CallCore, complete_snippet};
use crate::call::{ArgumentEncoding, Encoding, RepairKind};
use crate::dialect::scan::{Flow, Input, repair_unclosed_value};
use crate::dialect::{Dialect, Grammar};
use crate::error::{ErrorKind, Limit, ParseError, SNIPPET_CHARS};
use crate::event::StreamEvent;
use crate::lexer::MAX_TAG_BYTES;
use crate::names::is_valid_name;
use crate::options::ParseOptions;
use memchr::{memchr2, memmem};
use std::sync::{Arc, LazyLock};
use xml_fallback::tree::{Element, Node};

/// The namespace marker before every structural tag.
pub(crate) const MARKER: &str = "]<]minimax[>[";

/// The search for [`MARKER`], built once per process (see `scan::VALUE_FINDERS`).
static MARKER_FINDER: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(MARKER.as_bytes()));
/// The block's opening tag with its marker: the call marker that ends reasoning.
pub(crate) const BLOCK_OPEN: &str = "]<]minimax[>[<tool_call>";

const INVOKE: &str = "invoke";

/// The depth of a top-level argument: `<tool_call>` counts 1 and `<invoke>` 2, as `<tool>` and
/// `<arguments>` do in the `tool` dialect, so `max_depth` allows the same nesting in both.
const ARGUMENT_DEPTH: usize = 3;

/// Whether the window `inp` ends (not finally) inside what may still become a marker at `at`.
fn may_be_marker(inp: Input<'_>, at: usize) -> bool {
    let rest = &inp.bytes()[at - inp.base..];
    !inp.is_final && rest.len() < MARKER.len() && MARKER.as_bytes().starts_with(rest)
}

/// A tag after the marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag<'w> {
    /// `<tool_call>`.
    BlockOpen,
    /// `</tool_call>`.
    BlockClose,
    /// `<invoke …>`, with the value of its `name` attribute, trimmed, when it has one.
    Invoke(Option<&'w str>),
    /// `</invoke>`.
    InvokeClose,
    /// `<KEY>`: an argument, or an element inside one.
    Open(&'w str),
    /// `</KEY>`.
    Close(&'w str),
}

/// What follows a marker.
#[derive(Debug, Clone, Copy)]
enum Read<'w> {
    /// A tag, ending at this absolute offset.
    Tag(Tag<'w>, usize),
    /// No tag: the marker is text.
    Text,
    /// The window ends before the tag does.
    NeedMore,
}

/// The grammar's state; each variant holds what it needs.
#[derive(Debug, Default)]
enum State {
    /// Outside blocks.
    #[default]
    Prose,
    /// Inside a block, between invokes. `first` is the block's marker while no call has begun
    /// in it: the first call starts there, and a block without one is prose.
    Block { first: Option<usize> },
    /// Inside an invoke, between arguments.
    Invoke { call: Box<Call> },
    /// Inside an argument's element (the innermost open one is read).
    Element { call: Box<Call> },
    /// After an error: read to the call's end.
    Skip { call: Box<Call> },
    /// Text or markup at `at` where only an invoke or the block's end may stand: reported once
    /// its snippet is in the window; the block ends there.
    Stray { at: usize, kind: ErrorKind },
}

/// A call being read.
#[derive(Debug)]
struct Call {
    core: CallCore,
    /// The completed top-level arguments, as children.
    args: Element,
    /// The open elements, the top-level argument first.
    stack: Vec<Frame>,
}

/// An open element.
#[derive(Debug)]
struct Frame {
    element: Element,
    /// Absolute offset after its start tag.
    content_start: usize,
    /// Text read since its last child element (or its start).
    text: String,
    /// Whether `text` holds more than blanks.
    nonblank: bool,
    /// Bytes of `text` sent as argument deltas (a top-level leaf's).
    sent: usize,
    /// The argument's entry in the call's encodings, for a top-level argument first given here.
    encoding: Option<usize>,
}

/// When `name` closes an enclosing open element of `stack` (not the innermost) and every element
/// open inside it is empty (no child, nothing but blanks): how many open elements stay open
/// once it is closed. A model that leaves an empty container unclosed writes this.
fn empty_inside(stack: &[Frame], name: &str) -> Option<usize> {
    let k = stack.iter().rposition(|f| f.element.name == name)?;
    let inside = &stack[k + 1..];
    (!inside.is_empty() && inside.iter().all(Frame::is_empty)).then_some(k)
}

impl Frame {
    /// Nothing read in it yet but blanks.
    fn is_empty(&self) -> bool {
        !self.nonblank && self.element.children.is_empty()
    }

    /// The text read since the last child becomes a node of the element.
    fn flush_text(&mut self) {
        if !self.text.is_empty() {
            let text = std::mem::take(&mut self.text);
            self.element.children.push(Node::Text(text));
        }
        self.nonblank = false;
        self.sent = 0;
    }
}

/// The MiniMax-M3 grammar.
#[derive(Debug)]
pub(crate) struct MinimaxM3 {
    asm: Assembler,
    /// Absolute offset of the next byte to read.
    pos: usize,
    state: State,
    marker: &'static memmem::Finder<'static>,
    /// The search for the end of the tag after the marker at `.0` went up to `.1`: a long tag
    /// fed in small chunks is scanned once.
    tag_scan: (usize, usize),
}

impl Grammar for MinimaxM3 {
    fn run(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> usize {
        let inp = Input { w, base, is_final };
        loop {
            let (next, flow) = match std::mem::take(&mut self.state) {
                State::Prose => self.prose(inp, out),
                State::Block { first } => self.block(inp, first, out),
                State::Invoke { call } => self.invoke(inp, call, out),
                State::Element { call } => self.element(inp, call, out),
                State::Skip { call } => self.skip(inp, call, out),
                State::Stray { at, kind } => self.stray(inp, at, kind, out),
            };
            self.state = next;
            if flow == Flow::Stop {
                break;
            }
        }
        if is_final {
            self.finish(inp, out);
        }
        self.keep_from()
    }

    fn assembler(&mut self) -> &mut Assembler {
        &mut self.asm
    }

    fn start_at(&mut self, at: usize) {
        self.pos = at;
        self.asm.prose_start = at;
    }
}

impl MinimaxM3 {
    pub(crate) fn new(opts: ParseOptions, progress: bool) -> Self {
        MinimaxM3 {
            asm: Assembler::new(opts, Dialect::MinimaxM3, progress),
            pos: 0,
            state: State::Prose,
            marker: &MARKER_FINDER,
            tag_scan: (usize::MAX, 0),
        }
    }

    /// The first absolute offset still needed: a call's source from its start (for snippets and
    /// typing), else the prose not yet emitted.
    fn keep_from(&self) -> usize {
        let from = match &self.state {
            State::Prose | State::Block { .. } => self.pos,
            State::Invoke { call } | State::Element { call } | State::Skip { call } => {
                call.core.start
            }
            State::Stray { at, .. } => *at,
        };
        self.asm.kept_from(from)
    }

    // ----- markers and tags ---------------------------------------------------------------------

    /// The next marker at or after `from`: `Ok(at)`, or `Err(upto)` when none begins before
    /// `upto` (the window's end, less a tail that may still begin one).
    fn next_marker(&self, inp: Input<'_>, from: usize) -> Result<usize, usize> {
        let rest = &inp.bytes()[from - inp.base..];
        match self.marker.find(rest) {
            Some(i) => Ok(from + i),
            None if inp.is_final => Err(inp.end()),
            None => Err(inp.end() - partial_marker(rest)),
        }
    }

    /// The tag after the marker at `m`: `<` and everything up to the first `>` (no `<` in
    /// between, at most [`MAX_TAG_BYTES`]).
    fn read_tag<'w>(&mut self, inp: Input<'w>, m: usize) -> Read<'w> {
        let bytes = inp.bytes();
        let lt = m + MARKER.len();
        match bytes.get(lt - inp.base) {
            None if inp.is_final => return Read::Text,
            None => return Read::NeedMore,
            Some(b'<') => {}
            Some(_) => return Read::Text,
        }
        let limit = (lt + MAX_TAG_BYTES).min(inp.end());
        let from = if self.tag_scan.0 == m {
            self.tag_scan.1.max(lt + 1)
        } else {
            lt + 1
        };
        match memchr2(b'>', b'<', &bytes[from - inp.base..limit - inp.base]) {
            Some(i) if bytes[from - inp.base + i] == b'>' => {
                let gt = from + i;
                match classify(&inp.w[lt + 1 - inp.base..gt - inp.base]) {
                    Some(tag) => Read::Tag(tag, gt + 1),
                    None => Read::Text,
                }
            }
            None if limit < lt + MAX_TAG_BYTES && !inp.is_final => {
                self.tag_scan = (m, limit);
                Read::NeedMore
            }
            _ => Read::Text,
        }
    }

    /// Skips blanks from `pos`; the relative offset of the first other byte, if the window has
    /// one.
    fn skip_blanks(&mut self, inp: Input<'_>) -> Option<usize> {
        let rel = self.pos - inp.base;
        match inp.bytes()[rel..].iter().position(|b| !is_blank(*b)) {
            Some(i) => {
                self.pos += i;
                Some(rel + i)
            }
            None => {
                self.pos = inp.end();
                None
            }
        }
    }

    // ----- prose and blocks ---------------------------------------------------------------------

    fn prose(&mut self, inp: Input<'_>, out: &mut Vec<StreamEvent>) -> (State, Flow) {
        loop {
            let m = match self.next_marker(inp, self.pos) {
                Ok(m) => m,
                Err(upto) => {
                    self.pos = upto;
                    self.asm.emit_prose(inp.w, inp.base, upto, out);
                    return (State::Prose, Flow::Stop);
                }
            };
            match self.read_tag(inp, m) {
                Read::NeedMore => {
                    self.pos = m;
                    self.asm.emit_prose(inp.w, inp.base, m, out);
                    return (State::Prose, Flow::Stop);
                }
                Read::Tag(Tag::BlockOpen, end) => {
                    self.asm.emit_prose(inp.w, inp.base, m, out);
                    self.pos = end;
                    return (State::Block { first: Some(m) }, Flow::Again);
                }
                // An invoke outside a block, or any other marked text, is prose.
                _ => self.pos = m + 1,
            }
        }
    }

    /// Inside a block, between invokes: blanks, then an invoke or the block's end.
    fn block(
        &mut self,
        inp: Input<'_>,
        first: Option<usize>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let Some(rel) = self.skip_blanks(inp) else {
            return (State::Block { first }, Flow::Stop);
        };
        let at = inp.base + rel;
        // The input ends inside a marker or a tag (the block's close, cut off): the block is
        // left open, which is no error after complete invokes, and the cut text is prose
        // (docs/FORMAT.md §9.9 rules 1 and 2).
        if inp.is_final && self.cut_off_at(inp, at) {
            if first.is_none() {
                self.asm.prose_start = at;
            }
            self.pos = at;
            return (State::Prose, Flow::Again);
        }
        if !inp.bytes()[rel..].starts_with(MARKER.as_bytes()) {
            if may_be_marker(inp, at) {
                return (State::Block { first }, Flow::Stop);
            }
            return self.begin_stray(first, at, ErrorKind::UnexpectedText);
        }
        match self.read_tag(inp, at) {
            Read::NeedMore => (State::Block { first }, Flow::Stop),
            Read::Tag(Tag::Invoke(name), end) => self.begin_invoke(inp, first, at, end, name, out),
            Read::Tag(Tag::BlockClose, end) => {
                self.pos = end;
                if first.is_none() {
                    // After its calls, the block's layout and close are no prose; a block
                    // without a call is prose, all of it.
                    self.asm.prose_start = end;
                }
                (State::Prose, Flow::Again)
            }
            Read::Tag(..) => self.begin_stray(first, at, ErrorKind::UnexpectedElement),
            Read::Text => self.begin_stray(first, at, ErrorKind::UnexpectedText),
        }
    }

    /// Whether what stands at `at` is a marker, or a tag, that more input would have completed:
    /// a proper prefix of the marker, or a tag whose `>` had not come yet.
    fn cut_off_at(&mut self, inp: Input<'_>, at: usize) -> bool {
        let more = Input {
            is_final: false,
            ..inp
        };
        may_be_marker(more, at)
            || (inp.bytes()[at - inp.base..].starts_with(MARKER.as_bytes())
                && matches!(self.read_tag(more, at), Read::NeedMore))
    }

    fn begin_stray(&mut self, first: Option<usize>, at: usize, kind: ErrorKind) -> (State, Flow) {
        if first.is_none() {
            // The layout after the block's last call is not prose.
            self.asm.prose_start = at;
        }
        (State::Stray { at, kind }, Flow::Again)
    }

    /// Reports what stands at `at` inside a block where it may not, once 60 characters of it
    /// (or the end of the input) are in the window; the block ends there and the text from `at`
    /// on is read as prose.
    fn stray(
        &mut self,
        inp: Input<'_>,
        at: usize,
        kind: ErrorKind,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let available = &inp.w[at - inp.base..];
        if !inp.is_final && available.chars().nth(SNIPPET_CHARS).is_none() {
            return (State::Stray { at, kind }, Flow::Stop);
        }
        self.asm.emit_prose(inp.w, inp.base, at, out);
        let quoted = available
            .char_indices()
            .nth(SNIPPET_CHARS)
            .map_or(available.len(), |(i, _)| i);
        let message = match kind {
            ErrorKind::UnexpectedText => {
                "text is not allowed inside a ]<]minimax[>[<tool_call> block; only invokes are"
            }
            _ => {
                "only ]<]minimax[>[<invoke name=…> or ]<]minimax[>[</tool_call> may stand \
                 inside a ]<]minimax[>[<tool_call> block"
            }
        };
        let p = self.asm.locator.locate(inp.w, inp.base, at);
        let error = ParseError::new(kind, message, p)
            .in_dialect(self.asm.dialect)
            .with_span(at..at + quoted)
            .with_snippet(available);
        out.push(StreamEvent::Error {
            error: Box::new(error),
        });
        self.pos = at;
        (State::Prose, Flow::Again)
    }

    /// `<invoke …>` at `at..end` begins a call.
    fn begin_invoke(
        &mut self,
        inp: Input<'_>,
        first: Option<usize>,
        at: usize,
        end: usize,
        name: Option<&str>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        if !self.asm.may_begin_call(inp.w, inp.base, at, out) {
            // Past the call limit: the rest is prose.
            self.pos = at;
            return (State::Prose, Flow::Again);
        }
        if first.is_none() {
            // The blanks between two invokes are layout, not prose.
            self.asm.prose_start = at;
        }
        let mut call = Box::new(Call {
            core: CallCore::new(self.asm.next_index(), first.unwrap_or(at), end),
            args: Element::new(INVOKE),
            stack: Vec::new(),
        });
        self.pos = end;
        self.asm.begin_call(inp.w, inp.base, &call.core, out);
        match name.filter(|n| !n.is_empty()) {
            // No name: the call is read, and reported as naming no tool when it ends.
            None => {}
            Some(name) if !is_valid_name(name) => {
                let msg = format!("`{}` is not a valid tool name", crate::error::snippet(name));
                self.asm.error(
                    inp.w,
                    inp.base,
                    &mut call.core,
                    ErrorKind::InvalidToolName,
                    msg,
                    at,
                );
                return (State::Skip { call }, Flow::Again);
            }
            Some(name) => {
                self.asm
                    .set_tool_name(inp.w, inp.base, &mut call.core, name, at);
                self.asm.tool_name_known(&call.core, out);
            }
        }
        (State::Invoke { call }, Flow::Again)
    }

    // ----- inside an invoke ---------------------------------------------------------------------

    /// Between arguments: blanks, then an argument, or the invoke's end.
    fn invoke(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        if self.asm.call_too_long(&call.core, self.pos) {
            self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
            return (State::Skip { call }, Flow::Again);
        }
        let Some(rel) = self.skip_blanks(inp) else {
            return (State::Invoke { call }, Flow::Stop);
        };
        let at = inp.base + rel;
        if !inp.bytes()[rel..].starts_with(MARKER.as_bytes()) {
            if may_be_marker(inp, at) {
                return (State::Invoke { call }, Flow::Stop);
            }
            let msg = "text is not allowed directly inside an invoke; only arguments \
                       (]<]minimax[>[<NAME>value]<]minimax[>[</NAME>) are"
                .to_owned();
            return self.fail(inp, call, ErrorKind::UnexpectedText, msg, at);
        }
        match self.read_tag(inp, at) {
            Read::NeedMore => (State::Invoke { call }, Flow::Stop),
            Read::Tag(Tag::Open(key), end) => self.open_element(inp, call, key, (at, end), out),
            Read::Tag(Tag::InvokeClose, end) => {
                self.pos = end;
                self.end_call(inp, call, end, out);
                (State::Block { first: None }, Flow::Again)
            }
            Read::Tag(Tag::BlockClose, end) => {
                self.asm.repair(
                    inp.w,
                    inp.base,
                    &mut call.core,
                    RepairKind::MissingCallCloser,
                    at,
                );
                self.pos = end;
                self.end_call(inp, call, end, out);
                (State::Prose, Flow::Again)
            }
            Read::Tag(tag @ (Tag::Invoke(_) | Tag::BlockOpen), _) => {
                self.interrupted(inp, call, at, tag, out)
            }
            Read::Tag(Tag::Close(name), _) => {
                let msg = format!(
                    "]<]minimax[>[</{}> closes no open element",
                    crate::error::snippet(name)
                );
                self.fail(inp, call, ErrorKind::MismatchedTag, msg, at)
            }
            Read::Text => {
                let msg = "a marker not followed by a tag stands inside an invoke; only \
                           arguments may"
                    .to_owned();
                self.fail(inp, call, ErrorKind::UnexpectedText, msg, at)
            }
        }
    }

    /// Records the call's error at `at` and reads on to its end.
    fn fail(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        kind: ErrorKind,
        message: String,
        at: usize,
    ) -> (State, Flow) {
        self.asm
            .error(inp.w, inp.base, &mut call.core, kind, message, at);
        self.pos = at;
        (State::Skip { call }, Flow::Again)
    }

    /// `<KEY>` at `at..end` opens an argument, or an element inside the open one.
    fn open_element(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        key: &str,
        (at, end): (usize, usize),
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let limits = &self.asm.opts.limits;
        let (max_depth, max_elements) = (limits.max_depth, limits.max_elements);
        if ARGUMENT_DEPTH + call.stack.len() > max_depth {
            let msg = format!("elements are nested deeper than {max_depth} levels");
            self.asm
                .limit_error(inp.w, inp.base, &mut call.core, Limit::MaxDepth, msg, at);
            self.pos = end;
            return (State::Skip { call }, Flow::Again);
        }
        call.core.elements += 1;
        if call.core.elements > max_elements {
            let msg = format!("the call has more than {max_elements} elements");
            self.asm
                .limit_error(inp.w, inp.base, &mut call.core, Limit::MaxElements, msg, at);
            self.pos = end;
            return (State::Skip { call }, Flow::Again);
        }
        let mut encoding = None;
        let top_level_parent = call.stack.len() == 1;
        match call.stack.last_mut() {
            Some(parent) => {
                // A top-level argument's first child element: its deltas, its text so far,
                // stop being its content as written (rule 12).
                if top_level_parent && !parent.element.has_child_elements() && self.asm.emit_deltas
                {
                    out.push(StreamEvent::ArgumentDecoded {
                        index: call.core.index,
                        argument: Arc::from(parent.element.name.as_str()),
                    });
                }
                parent.flush_text();
            }
            None => {
                if !call.core.has_argument(key) {
                    encoding = Some(call.core.encodings.len());
                    call.core.encodings.push(ArgumentEncoding {
                        argument: key.to_owned(),
                        encoding: Encoding::Raw,
                    });
                }
                call.core.argument_started(key, at, end);
                if self.asm.emit_deltas {
                    let argument = self.asm.names.get(key);
                    call.core.delta_argument = Some(Arc::clone(&argument));
                    out.push(StreamEvent::ArgumentStarted {
                        index: call.core.index,
                        argument,
                        string: None,
                    });
                }
            }
        }
        call.stack.push(Frame {
            element: Element::new(key),
            content_start: end,
            text: String::new(),
            nonblank: false,
            sent: 0,
            encoding,
        });
        self.pos = end;
        (State::Element { call }, Flow::Again)
    }

    // ----- inside an element --------------------------------------------------------------------

    /// The content of the innermost open element: text up to the next marker, then its tag.
    fn element(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        loop {
            if self.asm.call_too_long(&call.core, self.pos) {
                self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
                return (State::Skip { call }, Flow::Again);
            }
            let (m, upto) = match self.next_marker(inp, self.pos) {
                Ok(m) => (Some(m), m),
                Err(upto) => (None, upto),
            };
            // The text stops at the call's limit, so that the limits are met at one byte however
            // the input was split; past the cut, the check above ends the call.
            let Some(run) =
                self.asm
                    .run_within_call(&call.core, inp.w, inp.base, self.pos, upto - self.pos)
            else {
                self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
                return (State::Skip { call }, Flow::Again);
            };
            if !self.append_text(inp, &mut call, self.pos + run, out) {
                return (State::Skip { call }, Flow::Again);
            }
            if self.pos < upto {
                continue;
            }
            let Some(m) = m else {
                return (State::Element { call }, Flow::Stop);
            };
            match self.read_tag(inp, m) {
                Read::NeedMore => return (State::Element { call }, Flow::Stop),
                Read::Tag(Tag::Open(key), end) => {
                    return self.open_element(inp, call, key, (m, end), out);
                }
                Read::Tag(Tag::Close(name), end)
                    if call.stack.last().is_some_and(|f| f.element.name == name) =>
                {
                    self.close_element(&mut call, m, out);
                    self.pos = end;
                    if call.stack.is_empty() {
                        return (State::Invoke { call }, Flow::Again);
                    }
                }
                Read::Tag(Tag::Close(name), end) => {
                    // The close of an enclosing element, only empty elements open inside it:
                    // their closes were left out (a model's `<parent><empty></parent>`, rule 9).
                    if let Some(keep) = empty_inside(&call.stack, name) {
                        repair_unclosed_value(&mut self.asm, &mut call.core, inp, m);
                        while call.stack.len() > keep {
                            self.close_element(&mut call, m, out);
                        }
                        self.pos = end;
                        if call.stack.is_empty() {
                            return (State::Invoke { call }, Flow::Again);
                        }
                        continue;
                    }
                    let open = call.stack.last().map_or("", |f| f.element.name.as_str());
                    let msg = format!(
                        "]<]minimax[>[</{}> does not close the open element <{}>; expected \
                         ]<]minimax[>[</{}>",
                        crate::error::snippet(name),
                        crate::error::snippet(open),
                        crate::error::snippet(open)
                    );
                    return self.fail(inp, call, ErrorKind::MismatchedTag, msg, m);
                }
                Read::Tag(Tag::InvokeClose, end) => {
                    self.close_all(inp, &mut call, m, out);
                    self.pos = end;
                    self.end_call(inp, call, end, out);
                    return (State::Block { first: None }, Flow::Again);
                }
                Read::Tag(Tag::BlockClose, end) => {
                    self.close_all(inp, &mut call, m, out);
                    self.asm.repair(
                        inp.w,
                        inp.base,
                        &mut call.core,
                        RepairKind::MissingCallCloser,
                        m,
                    );
                    self.pos = end;
                    self.end_call(inp, call, end, out);
                    return (State::Prose, Flow::Again);
                }
                Read::Tag(tag @ (Tag::Invoke(_) | Tag::BlockOpen), _) => {
                    return self.interrupted(inp, call, m, tag, out);
                }
                Read::Text => {
                    // A marker that begins no tag is text of the value.
                    if !self.append_text(inp, &mut call, m + 1, out) {
                        return (State::Skip { call }, Flow::Again);
                    }
                }
            }
        }
    }

    /// Adds the text from `pos` to `upto` to the innermost open element; `false` past the
    /// argument size limit.
    fn append_text(
        &mut self,
        inp: Input<'_>,
        call: &mut Call,
        upto: usize,
        out: &mut Vec<StreamEvent>,
    ) -> bool {
        if upto <= self.pos {
            return true;
        }
        let text = &inp.w[self.pos - inp.base..upto - inp.base];
        if !self
            .asm
            .count_argument_bytes(inp.w, inp.base, &mut call.core, text.len(), self.pos)
        {
            self.pos = upto;
            return false;
        }
        self.pos = upto;
        let Some(frame) = call.stack.last_mut() else {
            return true;
        };
        frame.text.push_str(text);
        frame.nonblank = frame.nonblank || !text.bytes().all(is_blank);
        self.deliver(call, false, out);
        true
    }

    /// Sends the new text of a top-level leaf as an argument delta. Blank text waits: it may be
    /// the layout before a child element (unless the element is `closing`).
    fn deliver(&mut self, call: &mut Call, closing: bool, out: &mut Vec<StreamEvent>) {
        if !self.asm.emit_deltas {
            return;
        }
        let Call { core, stack, .. } = call;
        let [frame] = stack.as_mut_slice() else {
            return;
        };
        if frame.element.has_child_elements() || !(closing || frame.nonblank) {
            return;
        }
        if frame.text.len() > frame.sent {
            core.delta.push_str(&frame.text[frame.sent..]);
            frame.sent = frame.text.len();
        }
        self.asm.push_delta(core, &frame.element.name, out);
    }

    /// Closes the innermost open element at `at` (its close tag's marker).
    fn close_element(&mut self, call: &mut Call, at: usize, out: &mut Vec<StreamEvent>) {
        if call.stack.len() == 1 {
            self.deliver(call, true, out);
        }
        let Some(mut frame) = call.stack.pop() else {
            return;
        };
        frame.flush_text();
        let start = call.core.start;
        frame.element.content_span = Some(frame.content_start - start..at - start);
        match call.stack.last_mut() {
            Some(parent) => parent.element.children.push(Node::Element(frame.element)),
            None => {
                call.core.delta_argument = None;
                // A later repair is the call's (docs/FORMAT.md §4).
                call.core.argument_ended();
                if let Some(i) = frame.encoding
                    && frame.element.has_child_elements()
                {
                    call.core.encodings[i].encoding = Encoding::Structured;
                }
                call.args.children.push(Node::Element(frame.element));
            }
        }
    }

    /// The invoke or the block ends at `at` with elements still open: each is closed there, with
    /// an `unclosed_parameter` repair.
    fn close_all(
        &mut self,
        inp: Input<'_>,
        call: &mut Call,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        if !call.stack.is_empty() {
            repair_unclosed_value(&mut self.asm, &mut call.core, inp, at);
        }
        while !call.stack.is_empty() {
            self.close_element(call, at, out);
        }
    }

    // ----- ending calls -------------------------------------------------------------------------

    fn end_call(
        &mut self,
        inp: Input<'_>,
        call: Box<Call>,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        let Call { core, args, .. } = *call;
        self.asm
            .finish_call(inp.w, inp.base, core, Arguments::RawTree(args), end, out);
        self.asm.prose_start = end;
    }

    /// A new invoke or block begins at `at` inside this call: this one is unterminated, with the
    /// arguments it had completed, and the new one is read from there.
    fn interrupted(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        at: usize,
        tag: Tag<'_>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        call.core.delta.clear();
        let partial = Some(self.asm.partial_raw_tree(&call.core, &call.args));
        self.asm.unterminated(
            inp.w,
            inp.base,
            &mut call.core,
            "a new call began before ]<]minimax[>[</invoke> closed this one",
            at,
            partial,
        );
        self.pos = at;
        self.end_call(inp, call, at, out);
        match tag {
            Tag::BlockOpen => (State::Prose, Flow::Again),
            _ => (State::Block { first: None }, Flow::Again),
        }
    }

    /// After an error: the call ends at `</invoke>`, at the block's end, or where a new invoke
    /// or block begins.
    fn skip(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        loop {
            let m = match self.next_marker(inp, self.pos) {
                Ok(m) => m,
                Err(upto) => {
                    self.pos = upto;
                    complete_snippet(inp.w, inp.base, &mut call.core, upto, None);
                    return (State::Skip { call }, Flow::Stop);
                }
            };
            self.pos = m;
            match self.read_tag(inp, m) {
                Read::NeedMore => {
                    complete_snippet(inp.w, inp.base, &mut call.core, m, None);
                    return (State::Skip { call }, Flow::Stop);
                }
                Read::Tag(Tag::InvokeClose, end) => {
                    self.pos = end;
                    self.end_call(inp, call, end, out);
                    return (State::Block { first: None }, Flow::Again);
                }
                Read::Tag(Tag::BlockClose, end) => {
                    self.pos = end;
                    self.end_call(inp, call, end, out);
                    return (State::Prose, Flow::Again);
                }
                Read::Tag(Tag::Invoke(_), _) => {
                    self.end_call(inp, call, m, out);
                    return (State::Block { first: None }, Flow::Again);
                }
                Read::Tag(Tag::BlockOpen, _) => {
                    self.end_call(inp, call, m, out);
                    return (State::Prose, Flow::Again);
                }
                _ => self.pos = m + 1,
            }
        }
    }

    /// Ends the input: an open call is unterminated, with the arguments it had completed;
    /// prose is emitted.
    fn finish(&mut self, inp: Input<'_>, out: &mut Vec<StreamEvent>) {
        let end = inp.end();
        match std::mem::take(&mut self.state) {
            State::Invoke { mut call } | State::Element { mut call } | State::Skip { mut call } => {
                // An argument still open is not complete: only those before it are.
                call.core.delta.clear();
                let partial = Some(self.asm.partial_raw_tree(&call.core, &call.args));
                self.asm.unterminated(
                    inp.w,
                    inp.base,
                    &mut call.core,
                    "the input ended before ]<]minimax[>[</invoke> closed the call",
                    end,
                    partial,
                );
                self.end_call(inp, call, end, out);
            }
            State::Prose | State::Block { .. } | State::Stray { .. } => {}
        }
        self.pos = end;
        self.asm.emit_prose(inp.w, inp.base, end, out);
    }
}

/// What a tag's text (between `<` and `>`) is, if anything.
fn classify(content: &str) -> Option<Tag<'_>> {
    match content {
        "tool_call" => return Some(Tag::BlockOpen),
        "/tool_call" => return Some(Tag::BlockClose),
        "/invoke" => return Some(Tag::InvokeClose),
        _ => {}
    }
    if let Some(attributes) = content.strip_prefix(INVOKE)
        && attributes
            .bytes()
            .next()
            .is_none_or(|b| b.is_ascii_whitespace())
    {
        return Some(Tag::Invoke(invoke_name(attributes)));
    }
    if content.bytes().all(is_blank) {
        return None;
    }
    match content.strip_prefix('/') {
        Some(name) if name.bytes().all(is_blank) => None,
        Some(name) => Some(Tag::Close(name)),
        None => Some(Tag::Open(content)),
    }
}

/// The value of the `name` attribute among an invoke's attributes: double-quoted,
/// single-quoted, or unquoted up to the tag's end; trimmed.
fn invoke_name(attributes: &str) -> Option<&str> {
    let blank = |c: char| c.is_ascii_whitespace();
    let mut from = 0;
    while let Some(i) = attributes[from..].find("name") {
        let at = from + i;
        from = at + "name".len();
        if !attributes[..at].ends_with(blank) {
            continue;
        }
        let Some(value) = attributes[from..]
            .trim_start_matches(blank)
            .strip_prefix('=')
        else {
            continue;
        };
        let value = value.trim_start_matches(blank);
        let value = match value.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let inner = &value[1..];
                inner.find(q).map_or(inner, |end| &inner[..end])
            }
            _ => value,
        };
        return Some(value.trim_matches(blank));
    }
    None
}

/// How many bytes at the end of `bytes` may begin a marker (a proper prefix of it).
fn partial_marker(bytes: &[u8]) -> usize {
    let marker = MARKER.as_bytes();
    (1..marker.len().min(bytes.len() + 1))
        .rev()
        .find(|&k| bytes.ends_with(&marker[..k]))
        .unwrap_or(0)
}

fn is_blank(b: u8) -> bool {
    xml_fallback::text::is_xml_whitespace_byte(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_classified() {
        assert_eq!(classify("tool_call"), Some(Tag::BlockOpen));
        assert_eq!(classify("/tool_call"), Some(Tag::BlockClose));
        assert_eq!(classify("/invoke"), Some(Tag::InvokeClose));
        assert_eq!(classify("invoke name=\"f\""), Some(Tag::Invoke(Some("f"))));
        assert_eq!(classify("invoke"), Some(Tag::Invoke(None)));
        assert_eq!(classify("invoker"), Some(Tag::Open("invoker")));
        assert_eq!(classify("city"), Some(Tag::Open("city")));
        assert_eq!(classify("/city"), Some(Tag::Close("city")));
        assert_eq!(classify(" "), None);
        assert_eq!(classify("/"), None);
    }

    #[test]
    fn invoke_names_in_any_quoting_are_trimmed() {
        assert_eq!(invoke_name(" name=\"f\""), Some("f"));
        assert_eq!(invoke_name(" name='f'"), Some("f"));
        assert_eq!(invoke_name(" name= f "), Some("f"));
        assert_eq!(invoke_name(" name=\" f \" id=\"2\""), Some("f"));
        assert_eq!(invoke_name(" id=\"x\" name=\"f\""), Some("f"));
        assert_eq!(invoke_name(" rename=\"x\" name=\"f\""), Some("f"));
        assert_eq!(invoke_name(" id=\"1\""), None);
    }

    #[test]
    fn a_partial_marker_is_held_back() {
        assert_eq!(partial_marker(b"abc]<]mini"), 7);
        assert_eq!(partial_marker(b"abc]"), 1);
        assert_eq!(partial_marker(b"abc"), 0);
        assert_eq!(partial_marker(b"]<]minimax[>"), 12);
    }
}
