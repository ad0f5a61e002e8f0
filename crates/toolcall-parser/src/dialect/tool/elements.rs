//! The XML form of a call: its structure, argument values, and the repairs of docs/FORMAT.md §4.

use super::ending::note_argument_end;
use super::*;
use crate::call::{ArgumentEncoding, Encoding, RepairKind};
use crate::error::{ErrorKind, Limit};
use crate::event::StreamEvent;
use crate::lexer::{
    Lexeme, Lexer, Tag, decode_attributes, is_name_start, named_entity, named_entity_prefix,
};
use crate::names::{invalid_name_message, is_valid_name};
use crate::stream::append;
use std::ops::Range;
use xml_fallback::reference::RefMatch;
use xml_fallback::text::{is_blank, is_xml_whitespace, is_xml_whitespace_byte};
use xml_fallback::tree::{Attribute, Node};

/// Returns `Some(flow)` from a handler when the step it took stopped the call (a limit was
/// crossed: the mode is `Skip`). Every handler of the XML form reports a change of mode so,
/// never by `None` (which means: go on lexing in this mode).
macro_rules! stop_if {
    ($step:expr) => {
        if let Some(flow) = $step {
            return Some(flow);
        }
    };
}

impl ToolXml {
    pub(super) fn xml(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        let Some(mut call) = self.take_call() else {
            return Flow::Again;
        };
        let (w, capped) = self.capped_window(w, base, &call);
        let _ = is_final;
        let mut past_limit = false;
        let flow = loop {
            if past_limit || self.pos - call.core.start > self.asm.opts.limits.max_call_bytes {
                let msg = format!(
                    "the call is longer than {} bytes",
                    self.asm.opts.limits.max_call_bytes
                );
                let at = call.core.start;
                self.fail_limit(w, base, &mut call, Limit::MaxCallBytes, msg, at);
                break Flow::Again;
            }
            // Lexed as if more input followed, even at the end of the input: the end of a call's
            // input is always a cut (the call is unterminated), so a lexeme it cuts short (`<ser`,
            // `</argu`, `&am`) is not misread as text; the call ends as `unterminated_call`
            // with what it had completed (docs/FORMAT.md §7).
            if let Some(flow) = self.text_run(w, base, &mut call, false) {
                break flow;
            }
            let rel = self.pos - base;
            let Some((lexeme, n)) = self.lexer.next(w, rel, base, false) else {
                // The lexeme in progress runs past the limit, or what was read already did: the
                // limit is checked here too, before waiting for more, so that a window ending
                // right after the call's last allowed byte reads as any chunking of it does.
                if capped || self.pos - call.core.start > self.asm.opts.limits.max_call_bytes {
                    past_limit = true;
                    continue;
                }
                break Flow::Stop;
            };
            let at = self.pos;
            self.pos += n;
            // Markup inside a top-level argument reaches its deltas once read (docs/FORMAT.md §2,
            // streaming): a tag that opens such markup or stands inside it, anything else inside
            // it. A close tag that ends the argument, or that reverts its markup to text (whose
            // text the deltas already carry), is not delivered: the mode has changed then.
            let before = call.delta_region();
            let delta = self
                .asm
                .emit_deltas
                .then(|| (lexeme_delta(&lexeme, &w[rel..rel + n]), &w[rel..rel + n]));
            let start = match &lexeme {
                Lexeme::StartTag(tag) => Some(tag.self_closing),
                _ => None,
            };
            let text_before = call.argument().is_some_and(|a| a.has_text) && call.stack.len() == 3;
            let flow = self.xml_lexeme(w, base, &mut call, lexeme, at..at + n, out);
            // Only into an argument still open: a close tag that reverted markup to text may
            // have closed the argument too (`<a><br/>Vec<T></a>`), and is none of its text.
            if let Some((as_text, raw)) = delta
                && self.call.is_none()
                && matches!(self.mode, Mode::Xml)
                && call.argument().is_some()
            {
                let at_argument = call.stack.len() == 3 && call.argument().is_some();
                let region = match (start, call.delta_region()) {
                    // An empty element in the argument (`Vec<T/>`, `<br/>`), as if it had opened.
                    (Some(true), DeltaRegion::None) if at_argument && text_before => {
                        DeltaRegion::AsText
                    }
                    (Some(true), DeltaRegion::None) if at_argument && call.string_argument => {
                        DeltaRegion::Verbatim
                    }
                    (Some(_), DeltaRegion::None) | (None, _) => before,
                    (Some(_), after) => after,
                };
                match region {
                    DeltaRegion::AsText => call.core.delta.push_str(&as_text),
                    DeltaRegion::Verbatim => call.core.delta.push_str(raw),
                    DeltaRegion::None => {}
                }
            }
            if let Some(flow) = flow {
                break flow;
            }
            debug_assert!(
                matches!(self.mode, Mode::Xml),
                "a handler changed the mode and said to go on lexing"
            );
        };
        self.put_back(call);
        flow
    }

    /// The window cut at the call's `max_call_bytes` (and whether it was cut): nothing past the
    /// limit is read, so the limit is hit at the same place (and after the same lexemes) however
    /// the input was split. Every mode that reads inside a call reads this window.
    pub(super) fn capped_window<'w>(
        &self,
        w: &'w str,
        base: usize,
        call: &CallState,
    ) -> (&'w str, bool) {
        let cap = self.asm.call_cap(call.core.start);
        if base + w.len() <= cap {
            return (w, false);
        }
        let mut end = cap - base;
        while !w.is_char_boundary(end) {
            end -= 1;
        }
        (&w[..end], true)
    }

    /// The per-feed fast path: when all that is left of the window is plain text of an open
    /// top-level argument (no `<`, `&` or CR in text; no `]` or CR in CDATA), as a streamed
    /// token inside a value usually is, appends it to the value and its delta and reads it all
    /// (or, when it is the start of a reference still cut short, leaves it to wait; a complete
    /// reference at its start, followed by such text, is decoded here too);
    /// `false`, having done nothing, when the general path must decide. It does exactly what the
    /// general path does with such text (`text_run`, or the lexer's `CData` lexeme), without
    /// its lexing: the chunking properties and the `stream_chunking` fuzz target hold the two to
    /// the same result. Not at the end of the input, and not where a limit could be reached.
    #[inline]
    pub(super) fn plain_tail(
        asm: &mut Assembler,
        lexer: &Lexer,
        pos: &mut usize,
        (w, base): (&str, usize),
        call: &mut CallState,
        out: &mut Vec<StreamEvent>,
    ) -> bool {
        let rel = *pos - base;
        let rest = &w[rel..];
        let CallState {
            core,
            stack,
            verbatim_upto,
            ..
        } = call;
        // Only directly inside a top-level argument (`<tool><arguments><arg>`): the rule of
        // `CallState::at_top_level_argument`, matched here on the stack alone so that the open
        // argument is in hand beside the call's other parts (a shared function taking the
        // stack cost 4–10 instructions a 1-byte feed).
        let [_, arguments, top] = stack.as_mut_slice() else {
            return false;
        };
        if rest.is_empty()
            || arguments.role != Role::Arguments
            || asm.call_too_long(core, base + w.len())
            || core.argument_bytes.saturating_add(rest.len()) > asm.opts.limits.max_argument_bytes
        {
            return false;
        }
        let in_cdata = lexer.in_cdata();
        // A reference at the window's start: one that the window cuts short (`&am`, a streamed
        // token at a time) waits for its end, as the general path would, and nothing else is
        // to be done; a complete one (`&amp;`, its last byte just arrived) is decoded here, as
        // `text_run` decodes it, if plain text is all that follows it.
        let (decoded, rest) = match rest.as_bytes() {
            [b'&', after @ ..] if !in_cdata => match named_entity(after) {
                Some((c, len)) => (Some(c), &rest[len..]),
                None if named_entity_prefix(after) => return true,
                None => match xml_fallback::reference::match_reference(rest.as_bytes()) {
                    RefMatch::Incomplete if rest.len() <= MAX_PENDING_REFERENCE => return true,
                    RefMatch::Valid { len, code_point } => {
                        match xml_fallback::reference::decode_code_point(code_point) {
                            Some(c) => (Some(c), &rest[len..]),
                            None => return false,
                        }
                    }
                    _ => return false,
                },
            },
            _ => (None, rest),
        };
        let bytes = rest.as_bytes();
        let in_text = |b: u8| !matches!(b, b'<' | b'&' | b'\r');
        let in_cdata_section = |b: u8| b != b']' && b != b'\r';
        let special = match (in_cdata, bytes.len() <= 16) {
            // One byte (a byte-at-a-time stream): no loop to set up.
            (true, _) if let &[b] = bytes => !in_cdata_section(b),
            (false, _) if let &[b] = bytes => !in_text(b),
            // A token or two: a byte loop costs less than setting up a vector search.
            (true, true) => !bytes.iter().all(|&b| in_cdata_section(b)),
            (false, true) => !bytes.iter().all(|&b| in_text(b)),
            (true, false) => memchr::memchr2(b']', b'\r', bytes).is_some(),
            (false, false) => memchr::memchr3(b'<', b'&', b'\r', bytes).is_some(),
        };
        if special {
            return false;
        }
        let lead = decoded.map_or(0, char::len_utf8);
        crate::work::add(w.len() - rel);
        // Within the limit: checked above (the decoded text is never longer than its source).
        core.argument_bytes += lead + rest.len();
        if in_cdata {
            top.push_cdata(rest);
        } else {
            if !top.has_text
                && (!is_blank(rest)
                    || decoded.is_some_and(|c| !is_blank(c.encode_utf8(&mut [0; 4]))))
            {
                top.has_text = true;
            }
            let text = &mut top.text;
            if let Some(c) = decoded {
                text.push(c);
            }
            append(text, rest);
            top.refs |= decoded.is_some();
        }
        *pos = base + w.len();
        // The delta, sent at once (as `flush_delta` sends it, the argument in hand).
        if asm.emit_deltas {
            if let Some(c) = decoded {
                core.delta.push(c);
            }
            append(&mut core.delta, rest);
            let name = &top.element.name;
            super::ending::send_delta(asm, (w, base), core, verbatim_upto, name, out);
        }
        true
    }

    /// The hot path inside a value: decodes the run of character data at `pos` straight into
    /// the value's text. Leaves `pos` before whatever the general lexer must decide; `Some` when
    /// a limit ended the call.
    pub(super) fn text_run(
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
        let text = &mut top.text;
        if text.is_empty() {
            // Decoding never lengthens text, so the bytes up to the next `<` bound this run:
            // one allocation instead of a doubling series for a large value.
            let bound = memchr::memchr(b'<', &w.as_bytes()[rel..]).unwrap_or(w.len() - rel);
            text.reserve(bound);
        }
        let before = text.len();
        let (n, refs) = self.lexer.text_run(w, rel, base, is_final, text, &mut bare);
        let appended = text.len() - before;
        if !is_blank(&text[before..]) {
            top.has_text = true;
        }
        top.refs |= refs;
        let is_value = top.role == Role::Value;
        if self.asm.emit_deltas && appended > 0 {
            let region = if call.at_top_level_argument() {
                DeltaRegion::AsText
            } else {
                call.delta_region()
            };
            let t = &call.stack.last().expect("a call has its <tool> frame").text;
            match region {
                DeltaRegion::AsText => call.core.delta.push_str(&t[t.len() - appended..]),
                DeltaRegion::Verbatim => call.core.delta.push_str(&w[rel..rel + n]),
                DeltaRegion::None => {}
            }
        }
        for &at in &bare.first {
            self.repair(w, base, call, RepairKind::BareAmpersand, at);
        }
        if bare.count > bare.first.len() {
            let more = bare.count - bare.first.len();
            self.asm
                .repair_more(&mut call.core, RepairKind::BareAmpersand, more);
        }
        bare.clear();
        self.bare_scratch = bare;
        let at = self.pos;
        self.pos += n;
        if is_value {
            return self.count_argument_bytes(w, base, call, appended, at);
        }
        None
    }

    /// Handles one lexeme in the XML form; `Some` when the mode changed or the call ended.
    pub(super) fn xml_lexeme(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        lexeme: Lexeme<'_>,
        span: Range<usize>,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Flow> {
        let at = span.start;
        let role = call.top().role;
        let in_value = matches!(role, Role::Value | Role::ServerName | Role::ToolName);
        match lexeme {
            Lexeme::Text(t) => {
                if in_value {
                    stop_if!(self.append_text(w, base, call, t, at, out));
                } else if let Some(i) = t.bytes().position(|b| !b" \t\n\r".contains(&b)) {
                    // At the first non-blank character: where the lexeme starts depends on chunks.
                    return self.unexpected_text(w, base, call, at + i);
                }
            }
            Lexeme::Newline => {
                if in_value {
                    stop_if!(self.append_text(w, base, call, "\n", at, out));
                }
            }
            Lexeme::Char(c) => {
                if !in_value {
                    // A reference to a blank (`&#13;`, `&#x20;`) is the blank it stands for:
                    // layout between elements, as XML readers take it (docs/FORMAT.md §1.2).
                    if is_xml_whitespace(c) {
                        return None;
                    }
                    return self.unexpected_text(w, base, call, at);
                }
                call.top().refs = true;
                let mut buf = [0u8; 4];
                stop_if!(self.append_text(w, base, call, c.encode_utf8(&mut buf), at, out));
            }
            Lexeme::BareAmp => {
                if !in_value {
                    return self.unexpected_text(w, base, call, at);
                }
                self.repair(w, base, call, RepairKind::BareAmpersand, at);
                stop_if!(self.append_text(w, base, call, "&", at, out));
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
                stop_if!(self.append_text(w, base, call, "<", at, out));
            }
            Lexeme::CDataStart => {
                if !in_value {
                    return self.unexpected_text(w, base, call, at);
                }
                // A section right after another joins it (`]]]]><![CDATA[>`, the split of `]]>`):
                // the value is the same, and many sections cost one node. A section that begins
                // a node counts as an element: nodes, not bytes, cost memory (§7).
                let joins = call.top().ends_in_cdata();
                if !joins && !self.asm.count_elements(w, base, &mut call.core, 1, at) {
                    self.mode = Mode::Skip;
                    return Some(Flow::Again);
                }
                let top = call.top();
                top.cdata = true;
                top.has_text = true;
                if !joins {
                    top.new_cdata("");
                }
            }
            Lexeme::CData(t) => {
                // As for text: only argument values count (not `<tool_name>`, which has no
                // argument start to report the error at).
                if role == Role::Value {
                    stop_if!(self.count_argument_bytes(w, base, call, t.len(), at));
                }
                if call.at_top_level_argument() && self.asm.emit_deltas {
                    call.core.delta.push_str(t);
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
            Lexeme::StartTag(tag) => return self.start_tag(w, base, call, tag, span, out),
            Lexeme::EndTag(name) => return self.end_tag(w, base, call, name, span, out),
        }
        None
    }

    pub(super) fn unexpected_text(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        at: usize,
    ) -> Option<Flow> {
        let inside = call.top().name().to_owned();
        let msg = format!("text is not allowed directly inside <{inside}>; only elements are");
        Some(self.fail(w, base, call, ErrorKind::UnexpectedText, msg, at))
    }

    /// Appends decoded text to the open value element; `Some` when a limit stopped the call
    /// (the mode is `Skip` then), as every handler reports a change of mode.
    pub(super) fn append_text(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        t: &str,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Flow> {
        let _ = out;
        if call.top().role == Role::Value {
            stop_if!(self.count_argument_bytes(w, base, call, t.len(), at));
        }
        if call.at_top_level_argument() && self.asm.emit_deltas {
            call.core.delta.push_str(t);
        }
        let top = call.top();
        if !top.has_text && !is_blank(t) {
            top.has_text = true;
        }
        top.push_text(t);
        None
    }

    /// Counts `n` bytes of the open argument's value; `Some` when they cross
    /// `max_argument_bytes` (the call is an error and the mode `Skip`).
    pub(super) fn count_argument_bytes(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        n: usize,
        at: usize,
    ) -> Option<Flow> {
        if self
            .asm
            .count_argument_bytes(w, base, &mut call.core, n, at)
        {
            return None;
        }
        self.mode = Mode::Skip;
        Some(Flow::Again)
    }

    pub(super) fn start_tag(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        tag: Tag<'_>,
        span: Range<usize>,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Flow> {
        let (at, n) = (span.start, span.len());
        if tag.name == TOOL && !tag.self_closing {
            return Some(self.new_call_interrupts(w, base, call, at, n, out));
        }
        let parent_role = call.top().role;
        let role = match parent_role {
            Role::Tool => match tag.name {
                "server_name" if call.core.server_name.is_none() => Role::ServerName,
                "tool_name" if call.core.tool_name.is_none() => Role::ToolName,
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
                let parent = call.top().name().to_owned();
                let msg = format!(
                    "<{parent}> holds text only, but <{}> opens inside it",
                    tag.name
                );
                return Some(self.fail(w, base, call, ErrorKind::UnexpectedElement, msg, at));
            }
            Role::Arguments | Role::Value => Role::Value,
        };
        if call.stack.len() >= self.asm.opts.limits.max_depth {
            let msg = format!(
                "elements are nested deeper than {} levels",
                self.asm.opts.limits.max_depth
            );
            return Some(self.fail_limit(w, base, call, Limit::MaxDepth, msg, at));
        }
        let mut frame = Frame::new(tag.name, role, at, at + n);
        if !tag.attributes.is_empty() {
            frame.element.attributes = decode_attributes(tag.attributes)
                .into_iter()
                .map(|(name, value)| Attribute { name, value })
                .collect();
        }
        // Attributes count as elements: each is a node of the tree too (` a=""` is 5 bytes).
        let nodes = 1 + frame.element.attributes.len();
        if !self.asm.count_elements(w, base, &mut call.core, nodes, at) {
            self.mode = Mode::Skip;
            return Some(Flow::Again);
        }
        let parent = call.top();
        frame.tentative = parent.role == Role::Value && parent.has_text;
        if parent_role == Role::Arguments {
            call.core.argument_started(tag.name, at, at + n);
            call.string_argument = self.asm.emit_deltas
                && self
                    .asm
                    .argument_is_string(call.core.tool_name.as_deref(), tag.name);
            if self.asm.emit_deltas {
                let argument = self.asm.names.get(tag.name);
                call.core.delta_argument = Some(Arc::clone(&argument));
                call.verbatim_upto = Some(at + n);
                out.push(StreamEvent::ArgumentStarted {
                    index: call.core.index,
                    argument,
                    string: None,
                });
            }
        }
        if tag.self_closing {
            frame.element.content_span = Some(at + n - call.core.start..at + n - call.core.start);
            self.close_frame(w, base, call, frame, at + n, out)
        } else {
            call.stack.push(frame);
            None
        }
    }

    pub(super) fn end_tag(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        name: &str,
        span: Range<usize>,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Flow> {
        let (at, n) = (span.start, span.len());
        let top = call.stack.last().expect("a call has its <tool> frame");
        if top.name() == name {
            if top.role == Role::Value && top.is_leaf() && call.at_top_level_argument() {
                // §4 rule 4: structural only if markup (or the end of input) follows.
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
        // The stack is at most `max_depth` deep: a bounded scan.
        let target = call.stack.iter().rposition(|f| f.name() == name);
        crate::assemble::name_probes(call.stack.len() - target.unwrap_or(0));
        if let Some(k) = target {
            let revertible = call.stack[k].role == Role::Value
                && call.stack[k + 1..].iter().all(|f| f.tentative);
            if revertible {
                // §4 rule 3: elements opened inside text and never closed were text (`Vec<T>`).
                let from = call.stack[k + 1].tag_start;
                self.repair(w, base, call, RepairKind::UnclosedTagAsText, from);
                call.stack.truncate(k + 1);
                let text = markup_as_text(&w[from - base..at - base]);
                let delivered = call.core.delta.len();
                stop_if!(self.append_text(w, base, call, &text, from, out));
                if k == 2 {
                    // The argument's deltas carried this markup as text as it came.
                    call.core.delta.truncate(delivered);
                }
                return self.end_tag(w, base, call, name, at..at + n, out);
            }
        }
        let top = call.stack.last().expect("a call has its <tool> frame");
        if top.role == Role::Value && top.is_leaf() && target.is_none() {
            // Inside a value, a close tag of no open element is text (`use </div> here`); one
            // of an open element means the value was left unclosed, an error.
            self.repair(w, base, call, RepairKind::CloseTagAsText, at);
            let top = call.top();
            if top.stray_close.is_none() {
                top.stray_close = Some((at, name.to_owned()));
            }
            stop_if!(self.append_text(w, base, call, &w[at - base..at + n - base], at, out));
            return None;
        }
        let expected = top.name().to_owned();
        // The first offending byte: a close tag of no open element taken as text in the element
        // left open (its misspelt close, `</contnet>`), else this tag (docs/FORMAT.md §7).
        let (culprit, culprit_at) = match &top.stray_close {
            Some((stray_at, stray)) if top.role == Role::Value => (stray.clone(), *stray_at),
            _ => (name.to_owned(), at),
        };
        let msg = format!(
            "</{culprit}> does not close the open element <{expected}>; expected </{expected}>"
        );
        let flow = self.fail(w, base, call, ErrorKind::MismatchedTag, msg, culprit_at);
        if name == TOOL {
            // The call ends here all the same, so the calls after it are read.
            self.end_call(w, base, call, at + n, out);
            return Some(Flow::Again);
        }
        Some(flow)
    }

    /// Closes `frame` (already popped, or never pushed) at absolute offset `at` (its end tag's
    /// `<`), attaching it to its parent.
    pub(super) fn close_frame(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        mut frame: Frame,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Flow> {
        if frame.element.content_span.is_none() {
            frame.element.content_span =
                Some(frame.content_start - call.core.start..at - call.core.start);
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
            Role::ServerName | Role::ToolName => {
                // Names are trimmed, then must be valid (docs/FORMAT.md §3.4): anything else is an
                // error, never a call. An empty name is no name (`local`, or `missing_tool_name`).
                let (tool, at) = (frame.role == Role::ToolName, frame.tag_start);
                let name = name_text(frame);
                if !name.is_empty() && !is_valid_name(&name) {
                    let msg = invalid_name_message(&name, tool);
                    return Some(self.fail(w, base, call, ErrorKind::InvalidToolName, msg, at));
                }
                if !tool {
                    call.core.server_name = Some(name);
                } else {
                    self.asm.set_tool_name(w, base, &mut call.core, &name, at);
                    if self.asm.progress && !name.is_empty() {
                        self.asm.tool_name_known(&call.core, out);
                    }
                }
            }
            Role::Arguments => call.arguments = Some(frame.into_element()),
            Role::Value => {
                let parent_is_arguments = call.top().role == Role::Arguments;
                if parent_is_arguments {
                    self.flush_delta_of(w, base, call, &frame.element.name, out);
                    note_argument_end(call, at, &frame.element.name, out);
                    call.core.delta_argument = None;
                    call.core.argument_ended();
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
                    let first = call
                        .core
                        .argument_start(&frame.element.name)
                        .is_none_or(|(at, _)| at == frame.tag_start);
                    if first {
                        call.core.encodings.push(ArgumentEncoding {
                            argument: frame.element.name.clone(),
                            encoding,
                        });
                    }
                }
                if parent_is_arguments && self.converts_as_arguments_close() {
                    // No schema to coerce the arguments by: each is converted as it closes
                    // (`CallState::members`), a leaf of text without becoming an element.
                    if frame.element.children.is_empty() {
                        let name = std::mem::take(&mut frame.element.name);
                        call.members.push_text(name, frame.text);
                    } else {
                        let source = call.core.start.checked_sub(base).and_then(|s| w.get(s..));
                        call.members.push_element(frame.into_element(), source);
                    }
                } else {
                    let element = frame.into_element();
                    let parent = call.top();
                    parent.flush_text();
                    parent.element.children.push(Node::Element(element));
                }
            }
        }
        None
    }

    pub(super) fn after_leaf_close(
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
        // Waits for more input, the scan to resume at `at` (relative to the window).
        let wait = |this: &mut Self, at: usize| {
            this.mode = Mode::AfterLeafClose {
                close_at,
                close_end,
                scanned: base + at,
            };
            this.pos = base + at;
            Flow::Stop
        };
        // A window may end before what an earlier, longer one scanned (a call-capped window).
        let rel = (scanned - base).min(bytes.len());
        let ws = match layout_end(bytes, rel) {
            Ok(end) => end.map(|at| at - rel),
            // A reference that may stand for a blank, cut by the window's end: wait for it, or,
            // at the end of the input, it is text.
            Err(at) if !is_final => return wait(self, at),
            Err(at) => Some(at - rel),
        };
        let structural = match ws {
            None if is_final => true,
            None => return wait(self, bytes.len()),
            Some(i) => {
                let at = rel + i;
                if bytes[at] != b'<' {
                    false
                } else {
                    match bytes.get(at + 1) {
                        None if !is_final => return wait(self, at),
                        // The input ends at a `<` that may begin markup: a cut, and the close
                        // tag before it completed its argument.
                        None => true,
                        Some(&b) => b == b'/' || b == b'!' || is_name_start(b),
                    }
                }
            }
        };
        let Some(mut call) = self.take_call() else {
            return Flow::Again;
        };
        self.mode = Mode::Xml;
        if structural {
            self.pos = close_end;
            let frame = call.stack.pop().expect("the leaf is open");
            // A value's frame closes without ending the call.
            let _ = self.close_frame(w, base, &mut call, frame, close_at, out);
        } else {
            // §4 rule 4: the close tag, and the blank after it, are text of the value.
            self.repair(w, base, &mut call, RepairKind::CloseTagAsText, close_at);
            let resume = base + rel + ws.unwrap_or(bytes.len() - rel);
            let text = markup_as_text(&w[close_at - base..resume - base]);
            if self
                .append_text(w, base, &mut call, &text, close_at, out)
                .is_none()
            {
                self.pos = resume;
            }
        }
        self.put_back(call);
        Flow::Again
    }
}

/// A lexeme of markup inside a value as the revert of docs/FORMAT.md §4 rule 3 reads it (`markup_as_text`):
/// text and CDATA as they are, references decoded, CDATA's delimiters dropped, anything else as
/// written (`raw`).
fn lexeme_delta<'a>(lexeme: &Lexeme<'a>, raw: &'a str) -> std::borrow::Cow<'a, str> {
    use std::borrow::Cow;
    match lexeme {
        Lexeme::Text(t) | Lexeme::CData(t) => Cow::Borrowed(t),
        Lexeme::Newline => Cow::Borrowed("\n"),
        Lexeme::Char(c) => Cow::Owned(c.to_string()),
        Lexeme::BareAmp => Cow::Borrowed("&"),
        Lexeme::CDataStart | Lexeme::CDataEnd => Cow::Borrowed(""),
        _ => Cow::Borrowed(raw),
    }
}

/// XML's blanks, trimmed from names.
/// Markup taken as text (a reverted element, a close tag followed by text): references decoded,
/// CDATA unwrapped, line ends normalized, everything else kept as written. The lexer reads it,
/// so the rules are the same as for any text.
pub(super) fn markup_as_text(raw: &str) -> String {
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

/// The longest unread tail taken by the fast path as a reference still cut short: longer
/// ones (a long numeric reference) go the general way.
const MAX_PENDING_REFERENCE: usize = 12;

/// The longest reference taken as layout after a leaf's close tag (`&#x0000000D;`): a longer
/// one is text, whatever it stands for, so that waiting for its end stays bounded and the
/// answer is the same however the input was split.
const MAX_LAYOUT_REFERENCE: usize = 12;

/// Where the layout after a leaf's close tag ends in `bytes[from..]`: blanks, and references to
/// blanks (`&#13;`, `&#x20;`: the blank they stand for, as XML readers take them; docs/FORMAT.md
/// §4 rule 4), skipped. `Ok(None)`: layout up to the window's end; `Err(at)`: a reference at
/// `at` that may stand for a blank is cut by the window's end.
fn layout_end(bytes: &[u8], from: usize) -> Result<Option<usize>, usize> {
    let mut i = from;
    loop {
        let Some(k) = (bytes[i..].iter()).position(|&b| !is_xml_whitespace_byte(b)) else {
            return Ok(None);
        };
        let at = i + k;
        if bytes[at] != b'&' {
            return Ok(Some(at));
        }
        let window = &bytes[at..bytes.len().min(at + MAX_LAYOUT_REFERENCE)];
        match xml_fallback::reference::match_reference(window) {
            RefMatch::Valid { len, code_point }
                if char::from_u32(code_point).is_some_and(is_xml_whitespace) =>
            {
                i = at + len;
            }
            RefMatch::Incomplete if window.len() < MAX_LAYOUT_REFERENCE => return Err(at),
            _ => return Ok(Some(at)),
        }
    }
}

/// The trimmed text of a `<server_name>` or `<tool_name>` element. Its text (the usual case:
/// it has no other child) is moved out, and copied only when blanks must be trimmed.
fn name_text(frame: Frame) -> String {
    let value = if frame.element.children.is_empty() {
        frame.text
    } else {
        xml_fallback::text::element_value(&frame.into_element()).into_owned()
    };
    let trimmed = xml_fallback::text::trim_xml(&value);
    if trimmed.len() == value.len() {
        value
    } else {
        trimmed.to_owned()
    }
}
