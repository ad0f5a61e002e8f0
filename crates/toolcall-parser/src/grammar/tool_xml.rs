//! The `<tool>` grammar: prose, calls in the XML form (ADR-0019) or the legacy JSON form
//! (ADR-0002), and the repairs of docs/FORMAT.md §4.
//!
//! It is a state machine over the lexer, driven by [`crate::StreamParser`]. It reads a window of
//! the input from `pos` on and reports, through [`ToolXml::run`], the first byte it still needs:
//! while a call is open that is the call's `<tool>`, so the call's source stays available for
//! verbatim markup and for reverting tentative elements to text; in prose it is only the bytes
//! that could still begin `<tool>`.

use super::legacy_json::{self, JsonScan, JsonScanner};
use crate::call::{ArgumentEncoding, Encoding, Repair, RepairKind, ToolCall};
use crate::error::{ErrorKind, ParseError};
use crate::event::StreamEvent;
use crate::lexer::{Lexeme, Lexer, Tag, decode_attributes, is_name_start};
use crate::locate::Locator;
use crate::options::ParseOptions;
use arg_types::Value;
use memchr::{memchr, memchr2};
use xml_fallback::text::is_blank;
use xml_fallback::tree::{Attribute, Element, Node};

const TOOL: &str = "tool";

/// What a mode handler tells the dispatcher.
enum Flow {
    /// The mode changed: dispatch again.
    Again,
    /// The window is used up (or the input is finished).
    Stop,
}

#[derive(Debug, Clone, Copy)]
enum Mode {
    Prose,
    /// `<tool>` seen; the first non-blank byte decides: `<` XML, `{` JSON, anything else prose.
    AfterToolTag,
    Xml,
    /// A top-level argument's close tag at `close_at..close_end`; whitespace scanned to
    /// `scanned`. It is structural only if markup (or the end) follows.
    AfterLeafClose {
        close_at: usize,
        close_end: usize,
        scanned: usize,
    },
    Json {
        start: usize,
        scanner: JsonScanner,
    },
    AfterJson {
        start: usize,
        end: usize,
    },
    /// After an error: look for `</tool>` (or a new `<tool>`) to end the call.
    Skip,
}

/// The role of an open element in the call's structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Tool,
    ServerName,
    ToolName,
    Arguments,
    Value,
}

/// An open element.
#[derive(Debug)]
struct Frame {
    element: Element,
    role: Role,
    /// Absolute offset of its `<`.
    tag_start: usize,
    /// Absolute offset of its content.
    content_start: usize,
    /// Opened after non-blank text of its parent: may turn back into text (`Vec<String>`).
    tentative: bool,
    /// Non-blank text seen in it.
    has_text: bool,
    refs: bool,
    cdata: bool,
}

impl Frame {
    fn new(name: &str, role: Role, tag_start: usize, content_start: usize) -> Self {
        Frame {
            element: Element::new(name),
            role,
            tag_start,
            content_start,
            tentative: false,
            has_text: false,
            refs: false,
            cdata: false,
        }
    }

    fn is_leaf(&self) -> bool {
        !self.element.has_child_elements()
    }

    fn push_text(&mut self, s: &str) {
        match self.element.children.last_mut() {
            Some(Node::Text(t)) => t.push_str(s),
            _ => self.element.children.push(Node::Text(s.to_owned())),
        }
    }

    /// The text node at the end of the children, created when the last child is not text.
    fn text_mut(&mut self) -> &mut String {
        if !matches!(self.element.children.last(), Some(Node::Text(_))) {
            self.element.children.push(Node::Text(String::new()));
        }
        match self.element.children.last_mut() {
            Some(Node::Text(t)) => t,
            _ => unreachable!("a text node was just pushed"),
        }
    }

    fn push_cdata(&mut self, s: &str) {
        match self.element.children.last_mut() {
            Some(Node::CData(t)) => t.push_str(s),
            _ => self.element.children.push(Node::CData(s.to_owned())),
        }
    }
}

/// A call being read.
#[derive(Debug)]
struct CallState {
    index: usize,
    /// Absolute offset of `<tool>`'s `<`.
    start: usize,
    /// Absolute offset after `<tool>`.
    tag_end: usize,
    stack: Vec<Frame>,
    server_name: Option<String>,
    tool_name: Option<String>,
    arguments: Option<Element>,
    /// Top-level arguments: name, offset of the start tag's `<`, offset after its `>`.
    argument_starts: Vec<(String, usize, usize)>,
    repairs: Vec<Repair>,
    encodings: Vec<ArgumentEncoding>,
    error: Option<ParseError>,
    /// Where the error's snippet starts, until the snippet is filled in.
    snippet_at: Option<usize>,
    argument_bytes: usize,
    delta: String,
}

impl CallState {
    fn new(index: usize, start: usize, tag_end: usize) -> Self {
        CallState {
            index,
            start,
            tag_end,
            stack: Vec::new(),
            server_name: None,
            tool_name: None,
            arguments: None,
            argument_starts: Vec::new(),
            repairs: Vec::new(),
            encodings: Vec::new(),
            error: None,
            snippet_at: None,
            argument_bytes: 0,
            delta: String::new(),
        }
    }

    fn top(&mut self) -> &mut Frame {
        let n = self.stack.len();
        &mut self.stack[n - 1]
    }

    /// Whether the open element is a top-level argument (`<tool><arguments><arg>`).
    fn at_top_level_argument(&self) -> bool {
        self.stack.len() == 3 && self.stack[1].role == Role::Arguments
    }
}

/// Markdown fences, tracked only when calls in fences are to be ignored.
#[derive(Debug, Clone, Copy, Default)]
struct Fence {
    at_line_start: bool,
    open: Option<(u8, usize)>,
}

/// The `<tool>` grammar's whole state.
#[derive(Debug)]
pub(crate) struct ToolXml {
    opts: ParseOptions,
    emit_deltas: bool,
    lexer: Lexer,
    pub(crate) locator: Locator,
    mode: Mode,
    /// Absolute offset of the next byte to read.
    pos: usize,
    /// Absolute offset of prose not yet emitted.
    prose_start: usize,
    /// Boxed: the grammar takes the call out and puts it back around every handler.
    call: Option<Box<CallState>>,
    /// Offsets of bare `&`s found by the last text run (kept to reuse its allocation).
    bare_scratch: Vec<usize>,
    /// Calls begun so far.
    calls: usize,
    call_limit_reported: bool,
    fence: Fence,
}

impl ToolXml {
    pub(crate) fn new(opts: ParseOptions, emit_deltas: bool) -> Self {
        ToolXml {
            opts,
            emit_deltas,
            lexer: Lexer::default(),
            locator: Locator::default(),
            mode: Mode::Prose,
            pos: 0,
            prose_start: 0,
            call: None,
            bare_scratch: Vec::new(),
            calls: 0,
            call_limit_reported: false,
            fence: Fence {
                at_line_start: true,
                open: None,
            },
        }
    }

    pub(crate) fn set_argument_deltas(&mut self, on: bool) {
        self.emit_deltas = on;
    }

    pub(crate) fn options(&self) -> &ParseOptions {
        &self.opts
    }

    /// Reads `w` (absolute offset `base`) from where it stopped; returns the first absolute
    /// offset it still needs. With `is_final`, ends everything that is open.
    pub(crate) fn run(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> usize {
        loop {
            let flow = match self.mode {
                Mode::Prose => self.prose(w, base, is_final, out),
                Mode::AfterToolTag => self.after_tool_tag(w, base, is_final, out),
                Mode::Xml => self.xml(w, base, is_final, out),
                Mode::AfterLeafClose { .. } => self.after_leaf_close(w, base, is_final, out),
                Mode::Json { .. } => self.json(w, base, is_final, out),
                Mode::AfterJson { .. } => self.after_json(w, base, is_final, out),
                Mode::Skip => self.skip(w, base, is_final, out),
            };
            if let Flow::Stop = flow {
                break;
            }
        }
        if is_final {
            self.finish(w, base, out);
        }
        self.flush_delta(out);
        self.keep_from()
    }

    /// The first absolute offset still needed.
    fn keep_from(&self) -> usize {
        match self.mode {
            // After an error only the lexeme in progress matters; the error is already made.
            Mode::Skip => self
                .call
                .as_ref()
                .and_then(|c| c.snippet_at)
                .map_or(self.pos, |at| at.min(self.pos)),
            Mode::Prose => self.pos.min(self.prose_start),
            _ => self
                .call
                .as_ref()
                .map_or(self.pos, |c| c.start.min(self.pos))
                .min(self.prose_start),
        }
    }

    /// Ends the input: an open call is unterminated, prose is emitted.
    fn finish(&mut self, w: &str, base: usize, out: &mut Vec<StreamEvent>) {
        let end = base + w.len();
        match self.mode {
            Mode::Prose | Mode::AfterToolTag => {
                self.call = None;
                self.pos = end;
                self.emit_prose(w, base, end, out);
            }
            _ => {
                if let Some(mut call) = self.call.take() {
                    if call.error.is_none() {
                        let at = self.locator.locate(w, base, call.start);
                        let mut e = ParseError::new(
                            ErrorKind::UnterminatedCall,
                            "the input ended before </tool> closed the call",
                            at,
                        )
                        .with_snippet(&w[call.start - base..]);
                        e.partial = partial_arguments(&call);
                        call.error = Some(e);
                    }
                    self.emit_call(w, base, *call, end, out);
                }
                self.mode = Mode::Prose;
                self.pos = end;
                self.prose_start = end;
            }
        }
    }

    // ----- prose -------------------------------------------------------------------------

    fn prose(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> Flow {
        let bytes = w.as_bytes();
        let track_fences = self.opts.ignore_fenced_calls;
        loop {
            let rel = self.pos - base;
            if rel >= bytes.len() {
                self.emit_prose(w, base, self.pos, out);
                return Flow::Stop;
            }
            if track_fences && self.fence.at_line_start {
                match fence_marker(&bytes[rel..], is_final) {
                    None => {
                        self.emit_prose(w, base, self.pos, out);
                        return Flow::Stop;
                    }
                    Some(marker) => {
                        self.fence.at_line_start = false;
                        if let Some((ch, len)) = marker {
                            self.fence.open = match self.fence.open {
                                None => Some((ch, len)),
                                Some((open_ch, open_len)) if open_ch == ch && len >= open_len => {
                                    None
                                }
                                still_open => still_open,
                            };
                        }
                    }
                }
            }
            let hit = if track_fences {
                memchr2(b'<', b'\n', &bytes[rel..])
            } else {
                memchr(b'<', &bytes[rel..])
            };
            let Some(i) = hit else {
                self.pos = base + bytes.len();
                self.emit_prose(w, base, self.pos, out);
                return Flow::Stop;
            };
            let at = rel + i;
            if bytes[at] == b'\n' {
                self.pos = base + at + 1;
                self.fence.at_line_start = true;
                continue;
            }
            match probe_tool_tag(&bytes[at..], is_final) {
                Probe::NeedMore => {
                    self.pos = base + at;
                    self.emit_prose(w, base, self.pos, out);
                    return Flow::Stop;
                }
                Probe::No => {
                    self.pos = base + at + 1;
                    continue;
                }
                Probe::Maybe => {}
            }
            match self.lexer.next(w, at, base, is_final) {
                None => {
                    self.pos = base + at;
                    self.emit_prose(w, base, self.pos, out);
                    return Flow::Stop;
                }
                Some((Lexeme::StartTag(tag), n)) if tag.name == TOOL && !tag.self_closing => {
                    let fenced = track_fences && self.fence.open.is_some();
                    if fenced || self.calls >= self.opts.limits.max_calls {
                        if !fenced && !self.call_limit_reported {
                            self.call_limit_reported = true;
                            self.emit_prose(w, base, base + at, out);
                            let p = self.locator.locate(w, base, base + at);
                            out.push(StreamEvent::Error {
                                error: ParseError::new(
                                    ErrorKind::LimitExceeded,
                                    format!(
                                        "more than {} calls in one response; the rest are left as prose",
                                        self.opts.limits.max_calls
                                    ),
                                    p,
                                ),
                            });
                        }
                        self.pos = base + at + n;
                        continue;
                    }
                    // The prose before `<tool>` is certain now, call or not.
                    self.emit_prose(w, base, base + at, out);
                    self.call = Some(Box::new(CallState::new(
                        self.calls,
                        base + at,
                        base + at + n,
                    )));
                    self.pos = base + at + n;
                    self.mode = Mode::AfterToolTag;
                    return Flow::Again;
                }
                Some(_) => {
                    self.pos = base + at + 1;
                }
            }
        }
    }

    fn emit_prose(&mut self, w: &str, base: usize, upto: usize, out: &mut Vec<StreamEvent>) {
        if upto > self.prose_start {
            out.push(StreamEvent::Prose {
                text: w[self.prose_start - base..upto - base].to_owned(),
            });
            self.prose_start = upto;
        }
    }

    fn after_tool_tag(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        let bytes = w.as_bytes();
        let rel = self.pos - base;
        let first = bytes[rel..]
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        let Some(i) = first else {
            self.pos = base + bytes.len();
            if is_final {
                self.not_a_call();
                return Flow::Again;
            }
            return Flow::Stop;
        };
        let at = rel + i;
        match bytes[at] {
            b'<' | b'{' => {
                let start = self.call.as_ref().map_or(base + at, |c| c.start);
                self.emit_prose(w, base, start, out);
                self.prose_start = start;
                self.calls += 1;
                let call = self.call.as_mut().expect("a call is open after <tool>");
                out.push(StreamEvent::CallStarted { index: call.index });
                self.pos = base + at;
                if bytes[at] == b'<' {
                    call.stack
                        .push(Frame::new(TOOL, Role::Tool, call.start, call.tag_end));
                    self.mode = Mode::Xml;
                } else {
                    self.mode = Mode::Json {
                        start: base + at,
                        scanner: JsonScanner::default(),
                    };
                }
            }
            _ => self.not_a_call(),
        }
        Flow::Again
    }

    /// `<tool>` followed by text: prose after all (`the <tool> tag`).
    fn not_a_call(&mut self) {
        if let Some(call) = self.call.take() {
            self.pos = call.tag_end;
        }
        self.mode = Mode::Prose;
    }

    // ----- the XML form ------------------------------------------------------------------

    fn xml(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> Flow {
        let Some(mut call) = self.call.take() else {
            self.mode = Mode::Prose;
            return Flow::Again;
        };
        let flow = loop {
            if self.pos - call.start > self.opts.limits.max_call_bytes {
                let msg = format!(
                    "the call is longer than {} bytes",
                    self.opts.limits.max_call_bytes
                );
                let at = call.start;
                self.fail(w, base, &mut call, ErrorKind::LimitExceeded, msg, at);
                break Flow::Again;
            }
            if let Some(flow) = self.text_run(w, base, &mut call, is_final) {
                break flow;
            }
            let rel = self.pos - base;
            let Some((lexeme, n)) = self.lexer.next(w, rel, base, is_final) else {
                break Flow::Stop;
            };
            let at = self.pos;
            self.pos += n;
            if let Some(flow) = self.xml_lexeme(w, base, &mut call, lexeme, at, n, out) {
                break flow;
            }
        };
        self.put_back(call);
        flow
    }

    /// The hot path inside a value: decodes the run of character data at `pos` straight into
    /// the value's text. Leaves `pos` before whatever the general lexer must decide; `Some` when
    /// a limit ended the call.
    fn text_run(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        is_final: bool,
    ) -> Option<Flow> {
        let rel = self.pos - base;
        let top = call.stack.last_mut().expect("a call has its <tool> frame");
        if top.role == Role::Tool
            || top.role == Role::Arguments
            || self.lexer.in_cdata()
            || w.as_bytes().get(rel).is_none_or(|&b| b == b'<')
        {
            return None;
        }
        let mut bare = std::mem::take(&mut self.bare_scratch);
        let text = top.text_mut();
        let before = text.len();
        let (n, refs) = self.lexer.text_run(w, rel, base, is_final, text, &mut bare);
        let appended = text.len() - before;
        let blank = is_blank(&text[before..]);
        if text.is_empty() {
            // The node `text_mut` created found nothing to hold.
            top.element.children.pop();
        } else if !blank {
            top.has_text = true;
        }
        top.refs |= refs;
        let is_value = top.role == Role::Value;
        if self.emit_deltas
            && call.at_top_level_argument()
            && let Some(Node::Text(t)) = call.stack[2].element.children.last()
        {
            call.delta.push_str(&t[t.len() - appended..]);
        }
        for &at in &bare {
            self.repair(w, base, call, RepairKind::BareAmpersand, at);
        }
        bare.clear();
        self.bare_scratch = bare;
        let at = self.pos;
        self.pos += n;
        if is_value
            && self
                .count_argument_bytes(w, base, call, appended, at)
                .is_none()
        {
            return Some(Flow::Again);
        }
        None
    }

    /// Returns the call taken out for a handler, unless the handler ended it (back in prose) or
    /// replaced it with a new one.
    fn put_back(&mut self, call: Box<CallState>) {
        if self.call.is_none() && !matches!(self.mode, Mode::Prose) {
            self.call = Some(call);
        }
    }

    /// Handles one lexeme in the XML form; `Some` when the mode changed or the call ended.
    #[allow(clippy::too_many_arguments)]
    fn xml_lexeme(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        lexeme: Lexeme<'_>,
        at: usize,
        n: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Flow> {
        let role = call.top().role;
        let in_value = matches!(role, Role::Value | Role::ServerName | Role::ToolName);
        match lexeme {
            Lexeme::Text(t) => {
                if in_value {
                    self.append_text(w, base, call, t, at, out)?;
                } else if let Some(i) = t.bytes().position(|b| !b" \t\n\r".contains(&b)) {
                    // At the first non-blank character: where the lexeme starts depends on chunks.
                    return self.unexpected_text(w, base, call, at + i);
                }
            }
            Lexeme::Newline => {
                if in_value {
                    self.append_text(w, base, call, "\n", at, out)?;
                }
            }
            Lexeme::Char(c) => {
                if !in_value {
                    return self.unexpected_text(w, base, call, at);
                }
                call.top().refs = true;
                let mut buf = [0u8; 4];
                self.append_text(w, base, call, c.encode_utf8(&mut buf), at, out)?;
            }
            Lexeme::BareAmp => {
                if !in_value {
                    return self.unexpected_text(w, base, call, at);
                }
                self.repair(w, base, call, RepairKind::BareAmpersand, at);
                self.append_text(w, base, call, "&", at, out)?;
            }
            Lexeme::BadCharRef(raw) => {
                let msg = format!("{raw} names a character that XML does not allow");
                return Some(self.fail(
                    w,
                    base,
                    call,
                    ErrorKind::InvalidCharacterReference,
                    msg,
                    at,
                ));
            }
            Lexeme::LiteralLt => {
                if role != Role::Value {
                    return self.unexpected_text(w, base, call, at);
                }
                self.repair(w, base, call, RepairKind::LiteralLessThan, at);
                self.append_text(w, base, call, "<", at, out)?;
            }
            Lexeme::CDataStart => {
                if !in_value {
                    return self.unexpected_text(w, base, call, at);
                }
                let top = call.top();
                top.cdata = true;
                top.has_text = true;
                // A new node per section: split sections (`]]]]><![CDATA[>`) stay two pieces.
                top.element.children.push(Node::CData(String::new()));
            }
            Lexeme::CData(t) => {
                self.count_argument_bytes(w, base, call, t.len(), at)?;
                if call.at_top_level_argument() && self.emit_deltas {
                    call.delta.push_str(t);
                }
                call.top().push_cdata(t);
            }
            Lexeme::CDataEnd => {}
            Lexeme::Comment => {}
            Lexeme::ProcessingInstruction | Lexeme::Declaration => {
                let what = if matches!(lexeme, Lexeme::Declaration) {
                    "a declaration (<!DOCTYPE, <!ENTITY, …)"
                } else {
                    "a processing instruction (<?…?>)"
                };
                let msg = format!("{what} is not allowed inside a call");
                return Some(self.fail(w, base, call, ErrorKind::ForbiddenMarkup, msg, at));
            }
            Lexeme::StartTag(tag) => return self.start_tag(w, base, call, tag, at, n, out),
            Lexeme::EndTag(name) => return self.end_tag(w, base, call, name, at, n, out),
        }
        None
    }

    fn unexpected_text(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        at: usize,
    ) -> Option<Flow> {
        let inside = call.top().element.name.clone();
        let msg = format!("text is not allowed directly inside <{inside}>; only elements are");
        Some(self.fail(w, base, call, ErrorKind::UnexpectedText, msg, at))
    }

    /// Appends decoded text to the open value element; `None` when a limit stopped the call.
    fn append_text(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        t: &str,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Option<()> {
        let _ = out;
        if call.top().role == Role::Value {
            self.count_argument_bytes(w, base, call, t.len(), at)?;
        }
        if call.at_top_level_argument() && self.emit_deltas {
            call.delta.push_str(t);
        }
        let top = call.top();
        if !top.has_text && !is_blank(t) {
            top.has_text = true;
        }
        top.push_text(t);
        Some(())
    }

    fn count_argument_bytes(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        n: usize,
        at: usize,
    ) -> Option<()> {
        call.argument_bytes += n;
        if call.argument_bytes > self.opts.limits.max_argument_bytes {
            let msg = format!(
                "an argument is longer than {} bytes",
                self.opts.limits.max_argument_bytes
            );
            // Reported at the argument's start tag: where the count crossed the limit depends
            // on how the input was split.
            let start = call.argument_starts.last().map_or(at, |a| a.1);
            self.fail(w, base, call, ErrorKind::LimitExceeded, msg, start);
            return None;
        }
        Some(())
    }

    #[allow(clippy::too_many_arguments)]
    fn start_tag(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        tag: Tag<'_>,
        at: usize,
        n: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Flow> {
        if tag.name == TOOL && !tag.self_closing {
            return Some(self.new_call_interrupts(w, base, call, at, n, out));
        }
        let parent_role = call.top().role;
        let role = match parent_role {
            Role::Tool => match tag.name {
                "server_name" if call.server_name.is_none() => Role::ServerName,
                "tool_name" if call.tool_name.is_none() => Role::ToolName,
                "arguments" if call.arguments.is_none() => Role::Arguments,
                "server_name" | "tool_name" | "arguments" => {
                    let msg = format!("<{}> appears twice in the call", tag.name);
                    return Some(self.fail(w, base, call, ErrorKind::DuplicateElement, msg, at));
                }
                other => {
                    let msg = format!(
                        "<{other}> is not allowed directly in <tool>; expected <server_name>, \
                         <tool_name> or <arguments>"
                    );
                    return Some(self.fail(w, base, call, ErrorKind::UnexpectedElement, msg, at));
                }
            },
            Role::ServerName | Role::ToolName => {
                let parent = call.top().element.name.clone();
                let msg = format!(
                    "<{parent}> holds text only, but <{}> opens inside it",
                    tag.name
                );
                return Some(self.fail(w, base, call, ErrorKind::UnexpectedElement, msg, at));
            }
            Role::Arguments | Role::Value => Role::Value,
        };
        if call.stack.len() >= self.opts.limits.max_depth {
            let msg = format!(
                "elements are nested deeper than {} levels",
                self.opts.limits.max_depth
            );
            return Some(self.fail(w, base, call, ErrorKind::LimitExceeded, msg, at));
        }
        let mut frame = Frame::new(tag.name, role, at, at + n);
        if !tag.attributes.is_empty() {
            frame.element.attributes = decode_attributes(tag.attributes)
                .into_iter()
                .map(|(name, value)| Attribute { name, value })
                .collect();
        }
        let parent = call.top();
        frame.tentative = parent.role == Role::Value && parent.has_text;
        if parent_role == Role::Arguments {
            call.argument_starts.push((tag.name.to_owned(), at, at + n));
            call.argument_bytes = 0;
        }
        if tag.self_closing {
            frame.element.content_span = Some(at + n - call.start..at + n - call.start);
            self.close_frame(w, base, call, frame, at + n, out)
        } else {
            call.stack.push(frame);
            None
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn end_tag(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        name: &str,
        at: usize,
        n: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Flow> {
        let top = call.stack.last().expect("a call has its <tool> frame");
        if top.element.name == name {
            if top.role == Role::Value && top.is_leaf() && call.at_top_level_argument() {
                // Rule 3: structural only if markup (or the end of input) follows.
                self.mode = Mode::AfterLeafClose {
                    close_at: at,
                    close_end: at + n,
                    scanned: at + n,
                };
                return Some(Flow::Again);
            }
            let frame = call.stack.pop().expect("checked above");
            return self.close_frame(w, base, call, frame, at, out);
        }
        // A close tag that does not match the open element.
        let target = call.stack.iter().rposition(|f| f.element.name == name);
        if let Some(k) = target {
            let revertible = call.stack[k].role == Role::Value
                && call.stack[k + 1..].iter().all(|f| f.tentative);
            if revertible {
                // Rule 2: elements opened inside text and never closed were text (`Vec<T>`).
                let from = call.stack[k + 1].tag_start;
                self.repair(w, base, call, RepairKind::UnclosedTagAsText, from);
                call.stack.truncate(k + 1);
                let text = markup_as_text(&w[from - base..at - base]);
                self.append_text(w, base, call, &text, from, out)?;
                return self.end_tag(w, base, call, name, at, n, out);
            }
        }
        let top = call.stack.last().expect("a call has its <tool> frame");
        if top.role == Role::Value && top.is_leaf() && target.is_none() {
            // Inside a value, a close tag of no open element is text (`use </div> here`); one
            // of an open element means the value was left unclosed, an error.
            self.repair(w, base, call, RepairKind::CloseTagAsText, at);
            self.append_text(w, base, call, &w[at - base..at + n - base], at, out)?;
            return None;
        }
        let expected = top.element.name.clone();
        let msg = format!(
            "</{name}> does not close the open element <{expected}>; expected </{expected}>"
        );
        let flow = self.fail(w, base, call, ErrorKind::MismatchedTag, msg, at);
        if name == TOOL {
            // The call ends here all the same, so the calls after it are read.
            self.end_call(w, base, call, at + n, out);
            return Some(Flow::Again);
        }
        Some(flow)
    }

    /// Closes `frame` (already popped, or never pushed) at absolute offset `at` (its end tag's
    /// `<`), attaching it to its parent.
    fn close_frame(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        mut frame: Frame,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Flow> {
        if frame.element.content_span.is_none() {
            frame.element.content_span = Some(frame.content_start - call.start..at - call.start);
        }
        match frame.role {
            Role::Tool => {
                // After the end tag's `>`: `</tool >` may hold blanks before it.
                let end = w[at - base..]
                    .find('>')
                    .map_or(at + TOOL.len() + 3, |i| at + i + 1);
                self.end_call(w, base, call, end, out);
                return Some(Flow::Again);
            }
            Role::ServerName => {
                call.server_name =
                    Some(xml_fallback::text::element_value(&frame.element).into_owned());
            }
            Role::ToolName => {
                let name = xml_fallback::text::element_value(&frame.element).into_owned();
                out.push(StreamEvent::ToolName {
                    index: call.index,
                    tool_name: name.clone(),
                });
                call.tool_name = Some(name);
            }
            Role::Arguments => call.arguments = Some(frame.element),
            Role::Value => {
                let parent_is_arguments = call.top().role == Role::Arguments;
                if parent_is_arguments {
                    self.flush_delta_of(call, &frame.element.name, out);
                    let encoding = if frame.element.has_child_elements() {
                        Encoding::Structured
                    } else {
                        match (frame.refs, frame.cdata) {
                            (false, false) => Encoding::Plain,
                            (true, false) => Encoding::EntityEscaped,
                            (false, true) => Encoding::Cdata,
                            (true, true) => Encoding::Mixed,
                        }
                    };
                    // One entry per argument: a repeated (array) argument keeps its first.
                    if !call
                        .encodings
                        .iter()
                        .any(|e| e.argument == frame.element.name)
                    {
                        call.encodings.push(ArgumentEncoding {
                            argument: frame.element.name.clone(),
                            encoding,
                        });
                    }
                }
                call.top()
                    .element
                    .children
                    .push(Node::Element(frame.element));
            }
        }
        None
    }

    fn after_leaf_close(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        let Mode::AfterLeafClose {
            close_at,
            close_end,
            scanned,
        } = self.mode
        else {
            return Flow::Again;
        };
        let bytes = w.as_bytes();
        let rel = scanned - base;
        let ws = bytes[rel..]
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        let structural = match ws {
            None if is_final => true,
            None => {
                self.mode = Mode::AfterLeafClose {
                    close_at,
                    close_end,
                    scanned: base + bytes.len(),
                };
                self.pos = base + bytes.len();
                return Flow::Stop;
            }
            Some(i) => {
                let at = rel + i;
                if bytes[at] != b'<' {
                    false
                } else {
                    match bytes.get(at + 1) {
                        None if !is_final => {
                            self.mode = Mode::AfterLeafClose {
                                close_at,
                                close_end,
                                scanned: base + at,
                            };
                            self.pos = base + at;
                            return Flow::Stop;
                        }
                        None => false,
                        Some(&b) => b == b'/' || b == b'!' || is_name_start(b),
                    }
                }
            }
        };
        let Some(mut call) = self.call.take() else {
            self.mode = Mode::Prose;
            return Flow::Again;
        };
        self.mode = Mode::Xml;
        if structural {
            self.pos = close_end;
            let frame = call.stack.pop().expect("the leaf is open");
            // A value's frame closes without ending the call.
            let _ = self.close_frame(w, base, &mut call, frame, close_at, out);
        } else {
            // Rule 3: the close tag, and the blank after it, are text of the value.
            self.repair(w, base, &mut call, RepairKind::CloseTagAsText, close_at);
            let resume = base + rel + ws.unwrap_or(bytes.len() - rel);
            let text = markup_as_text(&w[close_at - base..resume - base]);
            if self
                .append_text(w, base, &mut call, &text, close_at, out)
                .is_some()
            {
                self.pos = resume;
            }
        }
        self.put_back(call);
        Flow::Again
    }

    // ----- the legacy JSON form ----------------------------------------------------------

    fn json(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> Flow {
        let Mode::Json { start, mut scanner } = self.mode else {
            return Flow::Again;
        };
        let bytes = w.as_bytes();
        let rel = self.pos - base;
        match scanner.scan(&bytes[rel..]) {
            JsonScan::End(n) => {
                self.pos += n;
                self.mode = Mode::AfterJson {
                    start,
                    end: self.pos,
                };
            }
            JsonScan::Markup(i) => {
                self.pos += i;
                let Some(mut call) = self.call.take() else {
                    return Flow::Again;
                };
                let msg = "the JSON object of the call is not closed before this '<'".to_string();
                self.fail(w, base, &mut call, ErrorKind::InvalidJson, msg, self.pos);
                self.put_back(call);
                let _ = out;
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

    fn after_json(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        let Mode::AfterJson { start, end } = self.mode else {
            return Flow::Again;
        };
        let Some(mut call) = self.call.take() else {
            self.mode = Mode::Prose;
            return Flow::Again;
        };
        let rel = self.pos - base;
        let Some((lexeme, n)) = self.lexer.next(w, rel, base, is_final) else {
            self.call = Some(call);
            return Flow::Stop;
        };
        let at = self.pos;
        self.pos += n;
        match lexeme {
            Lexeme::Text(t) if is_blank(t) => {}
            Lexeme::Newline | Lexeme::Comment => {}
            Lexeme::EndTag(TOOL) => match legacy_json::read(&w[start - base..end - base]) {
                Ok(legacy) => {
                    call.server_name = legacy.server_name;
                    call.tool_name = legacy.tool_name;
                    call.encodings = legacy
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

    // ----- errors, recovery, ending calls ------------------------------------------------

    /// Records the call's first error and skips to its end.
    /// The error's snippet is filled in later by [`Self::complete_snippet`], once its text is
    /// all in the window, so errors do not depend on how the input was split.
    fn fail(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        kind: ErrorKind,
        message: String,
        at: usize,
    ) -> Flow {
        if call.error.is_none() {
            let p = self.locator.locate(w, base, at);
            call.snippet_at = Some(at);
            let mut e = ParseError::new(kind, message, p);
            e.tool_name = call.tool_name.clone();
            #[cfg(feature = "tracing")]
            tracing::debug!(
                kind = kind.as_str(),
                line = p.line,
                column = p.column,
                "tool call error"
            );
            call.error = Some(e);
        }
        self.mode = Mode::Skip;
        Flow::Again
    }

    fn repair(&mut self, w: &str, base: usize, call: &mut CallState, kind: RepairKind, at: usize) {
        let p = self.locator.locate(w, base, at);
        #[cfg(feature = "tracing")]
        tracing::debug!(
            kind = kind.as_str(),
            line = p.line,
            column = p.column,
            "tool call repair"
        );
        call.repairs.push(Repair::new(kind, p));
    }

    fn skip(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> Flow {
        let Some(mut call) = self.call.take() else {
            self.mode = Mode::Prose;
            return Flow::Again;
        };
        loop {
            let rel = self.pos - base;
            let Some((lexeme, n)) = self.lexer.next(w, rel, base, is_final) else {
                complete_snippet(w, base, &mut call, self.pos, None);
                self.call = Some(call);
                return Flow::Stop;
            };
            let at = self.pos;
            self.pos += n;
            match lexeme {
                Lexeme::EndTag(TOOL) => {
                    self.end_call(w, base, &mut call, at + n, out);
                    return Flow::Again;
                }
                Lexeme::StartTag(tag) if tag.name == TOOL && !tag.self_closing => {
                    return self.new_call_interrupts(w, base, &mut call, at, n, out);
                }
                _ => {}
            }
        }
    }

    /// A `<tool>` inside an open call: the open call is unterminated; a new one begins.
    fn new_call_interrupts(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        at: usize,
        n: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        if call.error.is_none() {
            let p = self.locator.locate(w, base, call.start);
            let mut e = ParseError::new(
                ErrorKind::UnterminatedCall,
                "a new <tool> began before </tool> closed this call",
                p,
            )
            .with_snippet(&w[call.start - base..at - base]);
            e.tool_name = call.tool_name.clone();
            e.partial = partial_arguments(call);
            call.error = Some(e);
        }
        let finished = std::mem::replace(call, CallState::new(0, at, at + n));
        self.emit_call(w, base, finished, at, out);
        self.prose_start = at;
        self.lexer.reset();
        if self.calls >= self.opts.limits.max_calls {
            self.call = None;
            self.mode = Mode::Prose;
            self.pos = at;
            return Flow::Again;
        }
        self.call = Some(Box::new(CallState::new(self.calls, at, at + n)));
        self.pos = at + n;
        self.mode = Mode::AfterToolTag;
        Flow::Again
    }

    /// Ends the call at absolute offset `end` (after `</tool>`) and returns to prose.
    fn end_call(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        let finished = std::mem::replace(call, CallState::new(0, end, end));
        self.emit_call(w, base, finished, end, out);
        self.back_to_prose(end);
    }

    fn end_legacy_call(
        &mut self,
        w: &str,
        base: usize,
        mut call: CallState,
        arguments: arg_types::Map,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        let result = match call.tool_name.take().filter(|t| !t.is_empty()) {
            None => Err(self.missing_tool_name(w, base, &call, end)),
            Some(tool_name) => Ok(ToolCall {
                server_name: server_name(call.server_name.take()),
                tool_name,
                arguments,
                repairs: std::mem::take(&mut call.repairs),
                encodings: std::mem::take(&mut call.encodings),
                legacy_json: true,
                span: call.start..end,
            }),
        };
        out.push(StreamEvent::CallFinished {
            index: call.index,
            result,
        });
        self.back_to_prose(end);
    }

    fn back_to_prose(&mut self, end: usize) {
        self.call = None;
        self.mode = Mode::Prose;
        self.pos = end;
        self.prose_start = end;
        self.lexer.reset();
    }

    fn missing_tool_name(
        &mut self,
        w: &str,
        base: usize,
        call: &CallState,
        end: usize,
    ) -> ParseError {
        let p = self.locator.locate(w, base, call.start);
        ParseError::new(
            ErrorKind::MissingToolName,
            "the call has no <tool_name>, or it is empty",
            p,
        )
        .with_snippet(&w[call.start - base..end - base])
    }

    /// Emits the finished call: the error it had, or the call built from its parts.
    fn emit_call(
        &mut self,
        w: &str,
        base: usize,
        mut call: CallState,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        self.flush_delta_call(&mut call, out);
        complete_snippet(w, base, &mut call, end, Some(end));
        let index = call.index;
        let result = match call.error.take() {
            Some(e) => Err(e),
            None => self.build_call(w, base, call, end),
        };
        out.push(StreamEvent::CallFinished { index, result });
    }

    // The error is as large as the call it replaces; boxing would cost every error path.
    #[allow(clippy::result_large_err)]
    fn build_call(
        &mut self,
        w: &str,
        base: usize,
        mut call: CallState,
        end: usize,
    ) -> Result<ToolCall, ParseError> {
        let Some(tool_name) = call.tool_name.take().filter(|t| !t.is_empty()) else {
            return Err(self.missing_tool_name(w, base, &call, end));
        };
        let args = call
            .arguments
            .take()
            .unwrap_or_else(|| Element::new("arguments"));
        let schema = self
            .opts
            .schemas
            .as_ref()
            .and_then(|s| s.get(&tool_name))
            .cloned();
        let source = &w[call.start - base..end - base];
        let arguments = match &schema {
            None => {
                let map = arg_types::tree::arguments_from_element_owned(args, Some(source));
                return Ok(ToolCall {
                    server_name: server_name(call.server_name.take()),
                    tool_name,
                    arguments: map,
                    repairs: call.repairs,
                    encodings: call.encodings,
                    legacy_json: false,
                    span: call.start..end,
                });
            }
            Some(schema) => {
                match arg_types::schema::coerce_arguments(&args, schema, Some(source)) {
                    Ok(map) => map,
                    Err(e) => {
                        let path = e.path.clone();
                        let first = path.split(['.', '[']).next().unwrap_or_default().to_owned();
                        let (at, tag_end) = call
                            .argument_starts
                            .iter()
                            .find(|(name, ..)| *name == first)
                            .map_or((call.start, call.tag_end), |&(_, at, end)| (at, end));
                        let p = self.locator.locate(w, base, at);
                        let mut err = ParseError::new(ErrorKind::InvalidArgument, e.to_string(), p)
                            .with_snippet(&w[at - base..tag_end - base]);
                        err.tool_name = Some(tool_name);
                        return Err(err);
                    }
                }
            }
        };
        if schema.is_some() {
            for child in args.child_elements() {
                if child.has_child_elements()
                    && matches!(arguments.get(&child.name), Some(Value::String(_)))
                {
                    let at = call
                        .argument_starts
                        .iter()
                        .find(|(name, ..)| *name == child.name)
                        .map_or(call.start, |&(_, at, _)| at);
                    self.repair(w, base, &mut call, RepairKind::MarkupAsString, at);
                }
            }
        }
        Ok(ToolCall {
            server_name: server_name(call.server_name.take()),
            tool_name,
            arguments,
            repairs: call.repairs,
            encodings: call.encodings,
            legacy_json: false,
            span: call.start..end,
        })
    }

    // ----- argument deltas ---------------------------------------------------------------

    fn flush_delta(&mut self, out: &mut Vec<StreamEvent>) {
        if let Some(mut call) = self.call.take() {
            self.flush_delta_call(&mut call, out);
            self.call = Some(call);
        }
    }

    fn flush_delta_call(&mut self, call: &mut CallState, out: &mut Vec<StreamEvent>) {
        if call.delta.is_empty() || call.stack.len() < 3 {
            call.delta.clear();
            return;
        }
        if !call.delta.is_empty() {
            out.push(StreamEvent::ArgumentDelta {
                index: call.index,
                argument: call.stack[2].element.name.clone(),
                text: std::mem::take(&mut call.delta),
            });
        }
    }

    fn flush_delta_of(&mut self, call: &mut CallState, name: &str, out: &mut Vec<StreamEvent>) {
        if !call.delta.is_empty() {
            out.push(StreamEvent::ArgumentDelta {
                index: call.index,
                argument: name.to_owned(),
                text: std::mem::take(&mut call.delta),
            });
        }
    }
}

/// Fills in the snippet of the call's error once its text is read: 60 characters, or up to the
/// call's `end`, whichever comes first. Only text already lexed (before `pos`) counts: text
/// beyond it may still turn out to follow the call's end.
fn complete_snippet(w: &str, base: usize, call: &mut CallState, pos: usize, end: Option<usize>) {
    let Some(at) = call.snippet_at else { return };
    let available = &w[at - base..end.unwrap_or(pos) - base];
    if end.is_some() || available.chars().nth(crate::error::SNIPPET_CHARS).is_some() {
        if let Some(e) = call.error.as_mut() {
            e.snippet = crate::error::snippet(available);
        }
        call.snippet_at = None;
    }
}

fn server_name(s: Option<String>) -> String {
    s.filter(|s| !s.is_empty())
        .unwrap_or_else(|| "local".to_owned())
}

/// What an unterminated call had parsed: its completed top-level arguments, as JSON.
fn partial_arguments(call: &CallState) -> Option<serde_json::Value> {
    let args = match (&call.arguments, call.stack.get(1)) {
        (Some(done), _) => done,
        (None, Some(f)) if f.role == Role::Arguments => &f.element,
        _ => return None,
    };
    let map = arg_types::tree::arguments_from_element(args);
    Some(serde_json::Value::from(Value::Object(map)))
}

/// Markup taken as text (a reverted element, a close tag followed by text): references decoded,
/// CDATA unwrapped, line ends normalized, everything else kept as written. The lexer reads it,
/// so the rules are the same as for any text.
fn markup_as_text(raw: &str) -> String {
    let mut lexer = Lexer::default();
    let mut out = String::with_capacity(raw.len());
    let mut pos = 0;
    while let Some((lexeme, n)) = lexer.next(raw, pos, 0, true) {
        match lexeme {
            Lexeme::Text(t) | Lexeme::CData(t) => out.push_str(t),
            Lexeme::Newline => out.push('\n'),
            Lexeme::Char(c) => out.push(c),
            Lexeme::BareAmp => out.push('&'),
            Lexeme::CDataStart | Lexeme::CDataEnd => {}
            _ => out.push_str(&raw[pos..pos + n]),
        }
        pos += n;
    }
    out
}

/// Whether bytes at a `<` begin `<tool` followed by a delimiter.
enum Probe {
    Maybe,
    No,
    NeedMore,
}

fn probe_tool_tag(s: &[u8], is_final: bool) -> Probe {
    const OPEN: &[u8] = b"<tool";
    let n = s.len().min(OPEN.len());
    if s[..n] != OPEN[..n] {
        return Probe::No;
    }
    match s.get(OPEN.len()) {
        None if is_final => Probe::No,
        None => Probe::NeedMore,
        Some(b'>' | b' ' | b'\t' | b'\n' | b'\r') => Probe::Maybe,
        Some(_) => Probe::No,
    }
}

/// A fence marker at a line start: `Some(Some((char, len)))` for ``` or ~~~ (three or more,
/// after at most three spaces), `Some(None)` for no marker, `None` when more input is needed.
#[allow(clippy::option_option)]
fn fence_marker(s: &[u8], is_final: bool) -> Option<Option<(u8, usize)>> {
    let indent = s.iter().take(4).take_while(|&&b| b == b' ').count();
    if indent == s.len() {
        return if is_final { Some(None) } else { None };
    }
    if indent > 3 {
        return Some(None);
    }
    let ch = s[indent];
    if ch != b'`' && ch != b'~' {
        return Some(None);
    }
    let run = s[indent..].iter().take_while(|&&b| b == ch).count();
    if indent + run == s.len() && !is_final {
        return None;
    }
    Some((run >= 3).then_some((ch, run)))
}
