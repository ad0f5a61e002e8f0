//! How calls end: errors and recovery, building the finished call, argument deltas.

use super::*;
use crate::call::{Repair, RepairKind, ToolCall};
use crate::error::{ErrorKind, ParseError};
use crate::event::StreamEvent;
use crate::lexer::Lexeme;
use arg_types::Value;
use xml_fallback::tree::Element;

impl ToolXml {
    /// Records the call's first error and skips to its end.
    /// The error's snippet is filled in later by [`complete_snippet`], once its text is
    /// all in the window, so errors do not depend on how the input was split.
    pub(super) fn fail(
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

    pub(super) fn repair(
        &mut self,
        w: &str,
        base: usize,
        call: &mut CallState,
        kind: RepairKind,
        at: usize,
    ) {
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
    pub(super) fn new_call_interrupts(
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
    pub(super) fn end_call(
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

    pub(super) fn end_legacy_call(
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
            result: result.map(Box::new).map_err(Box::new),
        });
        self.back_to_prose(end);
    }

    pub(super) fn back_to_prose(&mut self, end: usize) {
        self.call = None;
        self.mode = Mode::Prose;
        self.pos = end;
        self.prose_start = end;
        self.lexer.reset();
    }

    pub(super) fn missing_tool_name(
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
    pub(super) fn emit_call(
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
            Some(e) => Err(Box::new(e)),
            None => self.build_call(w, base, call, end),
        };
        out.push(StreamEvent::CallFinished {
            index,
            result: result.map(Box::new),
        });
    }

    /// The finished call from its parts, or why it cannot be one (boxed, as the event holds it).
    pub(super) fn build_call(
        &mut self,
        w: &str,
        base: usize,
        mut call: CallState,
        end: usize,
    ) -> Result<ToolCall, Box<ParseError>> {
        let Some(tool_name) = call.tool_name.take().filter(|t| !t.is_empty()) else {
            return Err(Box::new(self.missing_tool_name(w, base, &call, end)));
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
                        return Err(Box::new(err));
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

    pub(super) fn flush_delta(&mut self, out: &mut Vec<StreamEvent>) {
        if let Some(mut call) = self.call.take() {
            self.flush_delta_call(&mut call, out);
            self.call = Some(call);
        }
    }

    pub(super) fn flush_delta_call(&mut self, call: &mut CallState, out: &mut Vec<StreamEvent>) {
        match call.stack.get(2) {
            Some(argument) => push_delta(
                out,
                call.index,
                &mut call.delta,
                call.delta_argument.as_ref(),
                &argument.element.name,
            ),
            None => call.delta.clear(),
        }
    }

    pub(super) fn flush_delta_of(
        &mut self,
        call: &mut CallState,
        name: &str,
        out: &mut Vec<StreamEvent>,
    ) {
        push_delta(
            out,
            call.index,
            &mut call.delta,
            call.delta_argument.as_ref(),
            name,
        );
    }
}

/// Pushes the text decoded since the last delta, if any, as an event of the top-level argument
/// `name`. `shared` is the name made when that argument began (set at its start tag, cleared at
/// its end tag, so it is always this argument's); without it, one is made.
fn push_delta(
    out: &mut Vec<StreamEvent>,
    index: usize,
    delta: &mut String,
    shared: Option<&Arc<str>>,
    name: &str,
) {
    if delta.is_empty() {
        return;
    }
    let argument = shared.map_or_else(|| Arc::from(name), Arc::clone);
    debug_assert_eq!(*argument, *name);
    out.push(StreamEvent::ArgumentDelta {
        index,
        argument,
        text: take_delta(delta),
    });
}

/// The delta's text. A short one (a streamed chunk's few bytes) is copied into a string of its
/// own size and the buffer kept for the next chunk, which costs less than growing a fresh
/// string; a long one is moved out, so a large chunk is never held twice.
fn take_delta(delta: &mut String) -> String {
    if delta.len() > 64 {
        return std::mem::take(delta);
    }
    let text = delta.as_str().to_owned();
    delta.clear();
    text
}

/// Fills in the snippet of the call's error once its text is read: 60 characters, or up to the
/// call's `end`, whichever comes first. Only text already lexed (before `pos`) counts: text
/// beyond it may still turn out to follow the call's end.
pub(super) fn complete_snippet(
    w: &str,
    base: usize,
    call: &mut CallState,
    pos: usize,
    end: Option<usize>,
) {
    let Some(at) = call.snippet_at else { return };
    let available = &w[at - base..end.unwrap_or(pos) - base];
    if end.is_some() || available.chars().nth(crate::error::SNIPPET_CHARS).is_some() {
        if let Some(e) = call.error.as_mut() {
            e.snippet = crate::error::snippet(available);
        }
        call.snippet_at = None;
    }
}

pub(super) fn server_name(s: Option<String>) -> String {
    s.filter(|s| !s.is_empty())
        .unwrap_or_else(|| "local".to_owned())
}

/// What an unterminated call had parsed: its completed top-level arguments, as JSON.
pub(super) fn partial_arguments(call: &CallState) -> Option<serde_json::Value> {
    let args = match (&call.arguments, call.stack.get(1)) {
        (Some(done), _) => done,
        (None, Some(f)) if f.role == Role::Arguments => &f.element,
        _ => return None,
    };
    let map = arg_types::tree::arguments_from_element(args);
    Some(serde_json::Value::from(Value::Object(map)))
}
