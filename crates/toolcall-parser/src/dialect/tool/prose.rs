//! Prose between calls: finding where a call begins, Markdown fences, holding back only the
//! bytes that could still begin `<tool>`.

use super::*;
use crate::event::StreamEvent;
use crate::fence::Fence;
use crate::json_scan::JsonScanner;
use crate::lexer::Lexeme;
use xml_fallback::text::is_xml_whitespace_byte;

impl ToolXml {
    pub(super) fn prose(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        let bytes = w.as_bytes();
        // Fences are always tracked: a call in one is prose (`ignore_fenced_calls`) or is
        // marked `fenced`.
        loop {
            let rel = self.pos - base;
            if rel >= bytes.len() {
                self.asm.emit_prose(w, base, self.pos, out);
                return Flow::Stop;
            }
            if !self.fence.read_line_start(&bytes[rel..], is_final) {
                self.asm.emit_prose(w, base, self.pos, out);
                return Flow::Stop;
            }
            let Some(i) = Fence::next_stop(&bytes[rel..]) else {
                self.pos = base + bytes.len();
                self.asm.emit_prose(w, base, self.pos, out);
                return Flow::Stop;
            };
            let at = rel + i;
            if self.fence.line_end(bytes[at]) {
                self.pos = base + at + 1;
                continue;
            }
            match probe_tool_tag(&bytes[at..], is_final) {
                Probe::NeedMore => {
                    self.pos = base + at;
                    self.asm.emit_prose(w, base, self.pos, out);
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
                    self.asm.emit_prose(w, base, self.pos, out);
                    return Flow::Stop;
                }
                Some((Lexeme::StartTag(tag), n)) if tag.name == TOOL && !tag.self_closing => {
                    let fenced = self.fence.is_open();
                    let ignored = fenced && self.asm.opts.ignore_fenced_calls;
                    if ignored || !self.asm.may_begin_call(w, base, base + at, out) {
                        self.pos = base + at + n;
                        continue;
                    }
                    // The prose before `<tool>` is certain now, call or not.
                    self.asm.emit_prose(w, base, base + at, out);
                    let mut call = CallState::new(self.asm.next_index(), base + at, base + at + n);
                    call.core.fenced = fenced;
                    self.call = Some(self.boxed(call));
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

    pub(super) fn after_tool_tag(
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
            .position(|&b| !is_xml_whitespace_byte(b));
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
                let Some(call) = self.call.as_mut() else {
                    self.mode = Mode::Prose;
                    return Flow::Again;
                };
                self.asm.begin_call(w, base, &call.core, out);
                self.pos = base + at;
                if bytes[at] == b'<' {
                    call.stack.push(Frame::new(
                        TOOL,
                        Role::Tool,
                        call.core.start,
                        call.core.tag_end,
                    ));
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
    pub(super) fn not_a_call(&mut self) {
        if let Some(call) = self.call.take() {
            self.pos = call.core.tag_end;
        }
        self.mode = Mode::Prose;
    }
}

/// Whether bytes at a `<` begin `<tool` followed by a delimiter.
pub(super) enum Probe {
    Maybe,
    No,
    NeedMore,
}

pub(super) fn probe_tool_tag(s: &[u8], is_final: bool) -> Probe {
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
