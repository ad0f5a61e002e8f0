//! How `<tool>` calls end: errors and recovery, handing the finished call to assembly, argument
//! deltas.

use super::*;
use crate::assemble::complete_snippet;
use crate::call::RepairKind;
use crate::error::ErrorKind;
use crate::event::StreamEvent;
use crate::lexer::Lexeme;

impl ToolXml {
    /// Records the call's first error and skips to its end.
    pub(super) fn fail(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        kind: ErrorKind,
        message: String,
        at: usize,
    ) -> Flow {
        self.asm.error(w, base, &mut call.core, kind, message, at);
        self.mode = Mode::Skip;
        Flow::Again
    }

    /// Records a `limit_exceeded` error naming `limit` and skips to the call's end.
    pub(super) fn fail_limit(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        limit: crate::error::Limit,
        message: String,
        at: usize,
    ) -> Flow {
        self.asm
            .limit_error(w, base, &mut call.core, limit, message, at);
        self.mode = Mode::Skip;
        Flow::Again
    }

    pub(super) fn repair(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        kind: RepairKind,
        at: usize,
    ) {
        self.asm.repair(w, base, &mut call.core, kind, at);
    }

    pub(super) fn skip(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        let Some(mut call) = self.take_call() else {
            return Flow::Again;
        };
        loop {
            let rel = self.pos - base;
            let Some((lexeme, n)) = self.lexer.next(w, rel, base, is_final) else {
                complete_snippet(w, base, &mut call.core, self.pos, None);
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
    pub(super) fn new_call_interrupts(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        at: usize,
        n: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Flow {
        let partial = self.partial_arguments(w, base, call);
        self.asm.unterminated(
            w,
            base,
            &mut call.core,
            "a new <tool> began before </tool> closed this call",
            at,
            partial,
        );
        let fenced = call.core.fenced;
        let finished = std::mem::replace(call, CallState::new(0, at, at + n));
        call.stack = self.emit_call(w, base, finished, at, out);
        self.asm.prose_start = at;
        self.lexer.reset();
        if !self.asm.may_begin_call(w, base, at, out) {
            self.call = None;
            self.mode = Mode::Prose;
            self.pos = at + n;
            return Flow::Again;
        }
        let mut next = CallState::new(self.asm.next_index(), at, at + n);
        // A call begun inside a call stands where it did: in a fence or not.
        next.core.fenced = fenced;
        self.call = Some(self.boxed(next));
        self.pos = at + n;
        self.mode = Mode::AfterToolTag;
        Flow::Again
    }

    /// Ends the call at absolute offset `end` (after `</tool>`) and returns to prose.
    pub(super) fn end_call(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        let finished = std::mem::replace(call, CallState::new(0, end, end));
        // The open elements' stack stays with the box, for the next call (`ToolXml::boxed`).
        call.stack = self.emit_call(w, base, finished, end, out);
        self.back_to_prose(end);
    }

    /// Ends a call of the legacy JSON form, whose arguments are read, at `end`.
    pub(super) fn end_legacy_call(
        &mut self,
        w: &str,
        base: usize,
        call: CallState,
        arguments: arg_types::Map,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        self.asm
            .finish_call(w, base, call.core, Arguments::Json(arguments), end, out);
        self.back_to_prose(end);
    }

    pub(super) fn back_to_prose(&mut self, end: usize) {
        self.call = None;
        self.mode = Mode::Prose;
        self.pos = end;
        self.asm.prose_start = end;
        self.lexer.reset();
    }

    /// Emits the finished call: the error it had, or the call built from its parts. Gives back
    /// its stack, emptied, for the next call to reuse.
    pub(super) fn emit_call(
        &mut self,
        w: &str,
        base: usize,
        mut call: CallState,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Vec<Frame> {
        flush_delta_call(&mut self.asm, w, base, &mut call, out);
        let arguments = if self.converts_as_arguments_close() {
            Arguments::Converted(call.members.into_map())
        } else {
            // Its name, known by its role while it was read, written out for the schema's reader.
            let mut args = call.arguments.take().unwrap_or_default();
            args.name = ARGUMENTS.into();
            Arguments::Tree(args)
        };
        self.asm
            .finish_call(w, base, call.core, arguments, end, out);
        call.stack.clear();
        call.stack
    }

    // ----- argument deltas ---------------------------------------------------------------

    /// Sends the open call's new argument text as a delta, the call left in place.
    pub(super) fn flush_delta(&mut self, w: &str, base: usize, out: &mut Vec<StreamEvent>) {
        if let Some(call) = self.call.as_mut() {
            flush_delta_call(&mut self.asm, w, base, call, out);
        }
    }

    /// What an unterminated call had parsed: its completed top-level arguments, as JSON,
    /// converted as a finished call's are without a schema (mixed content verbatim from the
    /// call's source).
    pub(super) fn partial_arguments(
        &self,
        w: &str,
        base: usize,
        call: &CallState,
    ) -> Option<serde_json::Value> {
        // None before `<arguments>` opens.
        let done = call.arguments.as_ref().or(call.open_arguments())?;
        let map = if self.converts_as_arguments_close() {
            call.members.as_map().clone()
        } else {
            let source = call.core.start.checked_sub(base).and_then(|s| w.get(s..));
            arg_types::tree::arguments_from_element_in(done, source)
        };
        Some(serde_json::Value::from(arg_types::Value::Object(map)))
    }

    pub(super) fn flush_delta_of(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        name: &str,
        out: &mut Vec<StreamEvent>,
    ) {
        note_verbatim(w, base, &mut call.core, &mut call.verbatim_upto, name, out);
        self.asm.push_delta(&mut call.core, name, out);
    }
}

/// Sends the open top-level argument's new text as a delta; text outside one is dropped.
#[inline(always)]
fn flush_delta_call(
    asm: &mut Assembler,
    w: &str,
    base: usize,
    call: &mut CallState,
    out: &mut Vec<StreamEvent>,
) {
    let CallState {
        core,
        stack,
        verbatim_upto,
        ..
    } = call;
    match stack.as_slice() {
        [_, arguments, argument, ..] if arguments.role == Role::Arguments => {
            send_delta(
                asm,
                (w, base),
                core,
                verbatim_upto,
                &argument.element.name,
                out,
            );
        }
        _ => core.delta.clear(),
    }
}

/// Sends the new text of the open top-level argument `name` as its delta, after checking that
/// it still continues the argument's content as written ([`note_verbatim`]). For the general
/// path ([`flush_delta_call`]) and the plain path (`plain_tail`), which has the argument in
/// hand.
#[inline(always)]
pub(super) fn send_delta(
    asm: &mut Assembler,
    (w, base): (&str, usize),
    core: &mut CallCore,
    verbatim_upto: &mut Option<usize>,
    name: &str,
    out: &mut Vec<StreamEvent>,
) {
    if verbatim_upto.is_some() {
        note_verbatim(w, base, core, verbatim_upto, name, out);
    }
    asm.push_delta(core, name, out);
}

/// Before the open top-level argument's next delta: while its deltas so far are its content as
/// written (up to `verbatim_upto`), checks that this one continues it, and reports
/// `ArgumentDecoded` when it does not. The call's text from its `<tool>` on is in the window
/// while the call is open.
fn note_verbatim(
    w: &str,
    base: usize,
    core: &mut CallCore,
    verbatim_upto: &mut Option<usize>,
    name: &str,
    out: &mut Vec<StreamEvent>,
) {
    let Some(upto) = *verbatim_upto else {
        return;
    };
    let delta = core.delta.as_str();
    if delta.is_empty() {
        return;
    }
    let raw = upto.checked_sub(base).and_then(|at| w.get(at..));
    if raw.is_some_and(|raw| raw.starts_with(delta)) {
        *verbatim_upto = Some(upto + delta.len());
        return;
    }
    *verbatim_upto = None;
    let argument = core
        .delta_argument
        .as_ref()
        .map_or_else(|| Arc::from(name), Arc::clone);
    out.push(StreamEvent::ArgumentDecoded {
        index: core.index,
        argument,
    });
}

/// At a top-level argument's close (its end tag at `at`): if its deltas, all as written, did
/// not reach it (a comment or markup at its end was not delivered), reports `ArgumentDecoded`,
/// so that an argument closed without that event was delivered whole, as written.
pub(super) fn note_argument_end(
    call: &mut CallState,
    at: usize,
    name: &str,
    out: &mut Vec<StreamEvent>,
) {
    let Some(upto) = call.verbatim_upto.take() else {
        return;
    };
    if upto != at {
        let argument = call
            .core
            .delta_argument
            .as_ref()
            .map_or_else(|| Arc::from(name), Arc::clone);
        out.push(StreamEvent::ArgumentDecoded {
            index: call.core.index,
            argument,
        });
    }
}
