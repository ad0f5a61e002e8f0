//! GLM-4.5/4.6 and the compact GLM-4.7/5.x layout, one grammar: docs/FORMAT.md §9.4.
//!
//! ```text
//! <tool_call>get_weather
//! <arg_key>city</arg_key>
//! <arg_value>Paris</arg_value>
//! </tool_call>
//! ```
//!
//! The tool's name is the text right after `<tool_call>`; each argument is an `<arg_key>` and
//! its `<arg_value>`. GLM's template writes values directly inside `<arg_value>…</arg_value>`
//! (its layout newlines stand between elements), so every byte of a value is kept; a close tag
//! inside a value is structural only when what follows it is (the [`State::Closing`]
//! lookahead). Values are typed by the tool's schema (non-string values are written as JSON).
//!
//! ```text
//!  Prose ──<tool_call>──► Opened ──NAME, then <arg_key>/<arg_value>──► Args ◄──────────────┐
//!                            └──NAME</tool_call>──► (a call without arguments)  │ <arg_key>  │
//!                                                                               ▼            │
//!              Value ◄──<arg_value>── AfterKey ◄──</arg_key>── Key           Closing ──────┘
//!                └──close tag──► Closing                                  (</arg_value>)
//! ```

use crate::assemble::{Arguments, Assembler, CallCore, RawArgument, complete_snippet};
use crate::call::Encoding;
use crate::dialect::scan::{
    AfterClose, Finders, Flow, Input, RawValue, Unflushed, VALUE_FINDERS, after_close, is_blank,
    non_blank, repair_unclosed_value,
};
use crate::dialect::{Dialect, Grammar};
use crate::error::ErrorKind;
use crate::event::StreamEvent;
use crate::lexer::{Lexeme, Lexer, Tag};
use crate::names::{MAX_NAME_BYTES, is_placeholder, is_valid_name};
use crate::options::ParseOptions;
use memchr::memchr;
use std::ops::Range;

const BLOCK: &str = "tool_call";
const BLOCK_PROBE: &[u8] = b"<tool_call";
const KEY: &str = "arg_key";
const VALUE: &str = "arg_value";

/// How far after `<tool_call>` the name's text may run before the `<` that follows it: a name
/// and the blanks around it. Longer text is prose.
const MAX_NAME_TEXT: usize = MAX_NAME_BYTES + 64;

/// The grammar's state; each variant holds what it needs.
#[derive(Debug, Default)]
enum State {
    /// Between calls.
    #[default]
    Prose,
    /// `<tool_call>` at `at..end`: the name's text runs to the next `<`, which was looked for up
    /// to `scanned`; `named` once the name's first byte was seen (before, all was blanks).
    Opened {
        at: usize,
        end: usize,
        scanned: usize,
        named: bool,
    },
    /// Inside the call, between arguments.
    Args { call: Box<Call> },
    /// Inside `<arg_key>` (its tag at `at..end`): the key's text was looked at up to `scanned`.
    Key {
        call: Box<Call>,
        at: usize,
        end: usize,
        scanned: usize,
    },
    /// After `</arg_key>`: `<arg_value>` must follow.
    AfterKey {
        call: Box<Call>,
        key: String,
        at: usize,
    },
    /// Inside an `<arg_value>`.
    Value {
        call: Box<Call>,
        value: Box<RawValue>,
    },
    /// A close tag inside a value: structural or text, as what follows decides.
    Closing(Closing),
    /// After an error: read to the call's end.
    Skip { call: Box<Call> },
}

/// A close tag met inside a value, waiting for what follows it.
#[derive(Debug)]
struct Closing {
    call: Box<Call>,
    value: Box<RawValue>,
    close: Range<usize>,
    kind: Close,
    /// Blanks after it were scanned up to here.
    scanned: usize,
}

/// Which close tag a value met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    Value,
    Block,
}

/// A call being read.
#[derive(Debug)]
struct Call {
    core: CallCore,
    args: Vec<RawArgument>,
}

/// The GLM grammar.
#[derive(Debug)]
pub(crate) struct Glm {
    asm: Assembler,
    lexer: Lexer,
    /// Absolute offset of the next byte to read.
    pos: usize,
    state: State,
    finders: &'static Finders,
}

impl Grammar for Glm {
    fn run(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> usize {
        let inp = Input { w, base, is_final };
        // A streamed token of a value, or of prose: read before anything else
        // (`RawValue::stream_tail`, `scan::prose_tail`).
        if let State::Value { call, value } = &mut self.state
            && let Some(keep) =
                value.stream_tail(&mut self.asm, &mut call.core, inp, &mut self.pos, out)
        {
            return keep;
        }
        if let State::Prose = self.state
            && let Some(keep) = super::scan::prose_tail(&mut self.asm, inp, &mut self.pos, out)
        {
            return keep;
        }
        loop {
            let (next, flow) = match std::mem::take(&mut self.state) {
                State::Prose => self.prose(inp, out),
                State::Opened {
                    at,
                    end,
                    scanned,
                    named,
                } => self.opened(inp, at, end, scanned, named, out),
                State::Args { call } => self.args(inp, call, out),
                State::Key {
                    call,
                    at,
                    end,
                    scanned,
                } => self.key(inp, call, at, end, scanned),
                State::AfterKey { call, key, at } => self.after_key(inp, call, key, at, out),
                State::Value { call, value } => self.value(inp, call, value, out),
                State::Closing(closing) => self.closing(inp, closing, out),
                State::Skip { call } => self.skip(inp, call, out),
            };
            self.state = next;
            if flow == Flow::Stop {
                break;
            }
        }
        if is_final {
            self.finish(inp, out);
        }
        if let State::Value { call, value } = &mut self.state {
            value.deliver(&mut self.asm, &mut call.core, false, out);
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

/// Whether a tag is `<name>` with nothing else.
fn is_plain(tag: &Tag<'_>, name: &str) -> bool {
    tag.name == name && tag.value.is_none() && tag.attributes.is_empty() && !tag.self_closing
}

/// Whether a lexeme is the start tag `<name>`.
fn starts(lexeme: &Lexeme<'_>, name: &str) -> bool {
    matches!(lexeme, Lexeme::StartTag(tag) if is_plain(tag, name))
}

impl Glm {
    pub(crate) fn new(opts: ParseOptions, progress: bool) -> Self {
        Glm {
            asm: Assembler::new(opts, Dialect::Glm, progress),
            lexer: Lexer::default(),
            pos: 0,
            state: State::Prose,
            finders: &VALUE_FINDERS,
        }
    }

    fn keep_from(&self) -> usize {
        let from = match &self.state {
            State::Prose => self.pos,
            State::Opened { at, .. } => *at,
            State::Args { call }
            | State::Key { call, .. }
            | State::AfterKey { call, .. }
            | State::Value { call, .. }
            | State::Skip { call } => call.core.start,
            State::Closing(c) => c.call.core.start,
        };
        self.asm.kept_from(from)
    }

    fn error(&mut self, inp: Input<'_>, call: &mut Call, kind: ErrorKind, msg: &str, at: usize) {
        self.asm
            .error(inp.w, inp.base, &mut call.core, kind, msg.to_owned(), at);
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
            let at = rel + i;
            let abs = inp.base + at;
            let s = &bytes[at..];
            let n = s.len().min(BLOCK_PROBE.len());
            if s[..n] != BLOCK_PROBE[..n] {
                self.pos = abs + 1;
                continue;
            }
            let lexed = if n < BLOCK_PROBE.len() && !inp.is_final {
                None
            } else {
                self.lexer.next_raw(inp.w, at, inp.base, inp.is_final)
            };
            let Some((lexeme, len)) = lexed else {
                self.pos = abs;
                self.asm.emit_prose(inp.w, inp.base, abs, out);
                return (State::Prose, Flow::Stop);
            };
            if starts(&lexeme, BLOCK) && super::is_exact_opener(inp.bytes(), at, len, BLOCK) {
                self.pos = abs + len;
                return (
                    State::Opened {
                        at: abs,
                        end: abs + len,
                        scanned: abs + len,
                        named: false,
                    },
                    Flow::Again,
                );
            }
            self.pos = abs + 1;
        }
    }

    /// After `<tool_call>`: the name, then `<arg_key>`/`<arg_value>` begin the call, or
    /// `</tool_call>` ends a call without arguments; anything else leaves it as prose.
    fn opened(
        &mut self,
        inp: Input<'_>,
        at: usize,
        end: usize,
        scanned: usize,
        named: bool,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let not_a_call = |this: &mut Self| {
            this.pos = end;
            this.lexer.reset();
            (State::Prose, Flow::Again)
        };
        // The name begins with a name's byte (after blanks), or is missing before `<`: text that
        // begins otherwise (`{`, a placeholder's `{{`) is another dialect's, or prose. Until that
        // byte is seen, everything looked at was blanks.
        if !named {
            match non_blank(inp, scanned) {
                None if inp.is_final => return not_a_call(self),
                None => {
                    let scanned = inp.end();
                    return (
                        State::Opened {
                            at,
                            end,
                            scanned,
                            named,
                        },
                        Flow::Stop,
                    );
                }
                Some(first) => {
                    let b = inp.from(first)[0];
                    if !(b == b'<' || b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
                    {
                        return not_a_call(self);
                    }
                }
            }
        }
        let named = true;
        let limit = (end + MAX_NAME_TEXT).min(inp.end());
        // What was scanned may reach past this window: `auto` reads a candidate in windows cut
        // at the next marker of any dialect, shorter than one it read before.
        let from = scanned.min(limit);
        let Some(lt) =
            memchr(b'<', &inp.w.as_bytes()[from - inp.base..limit - inp.base]).map(|i| scanned + i)
        else {
            if limit == end + MAX_NAME_TEXT || inp.is_final {
                return not_a_call(self);
            }
            return (
                State::Opened {
                    at,
                    end,
                    scanned: limit,
                    named,
                },
                Flow::Stop,
            );
        };
        let Some((lexeme, n)) = self
            .lexer
            .next_raw(inp.w, lt - inp.base, inp.base, inp.is_final)
        else {
            return (
                State::Opened {
                    at,
                    end,
                    scanned: lt,
                    named,
                },
                Flow::Stop,
            );
        };
        let text = &inp.w[end - inp.base..lt - inp.base];
        let name = text.trim_matches(|c: char| c.is_ascii() && is_blank(c as u8));
        let args_follow = starts(&lexeme, KEY) || starts(&lexeme, VALUE);
        // Without arguments only `<tool_call>NAME</tool_call>` is a call: the name right after
        // the opener (as GLM's template writes it), blanks at most after it.
        let bare = matches!(lexeme, Lexeme::EndTag(BLOCK))
            && is_valid_name(name)
            && text.starts_with(name);
        if !(args_follow || bare)
            || is_placeholder(name)
            || !self.asm.may_begin_call(inp.w, inp.base, at, out)
        {
            return not_a_call(self);
        }
        let mut call = Box::new(Call {
            core: CallCore::new(self.asm.next_index(), at, end),
            args: Vec::new(),
        });
        self.asm.begin_call(inp.w, inp.base, &call.core, out);
        self.pos = lt;
        if name.is_empty() {
            let msg = "the call names no tool: write its name right after <tool_call>";
            self.error(inp, &mut call, ErrorKind::MissingToolName, msg, end);
            return (State::Skip { call }, Flow::Again);
        }
        if !is_valid_name(name) {
            let msg = format!("`{}` is not a valid tool name", crate::error::snippet(name));
            self.error(inp, &mut call, ErrorKind::InvalidToolName, &msg, end);
            return (State::Skip { call }, Flow::Again);
        }
        let at = call.core.start;
        self.asm
            .set_tool_name(inp.w, inp.base, &mut call.core, name, at);
        self.asm.tool_name_known(&call.core, out);
        if bare {
            self.pos = lt + n;
            self.end_call(inp, call, lt + n, out);
            return (State::Prose, Flow::Again);
        }
        (State::Args { call }, Flow::Again)
    }

    // ----- inside a call ----------------------------------------------------------------------

    fn args(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        if self.asm.call_too_long(&call.core, self.pos) {
            self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
            return (State::Skip { call }, Flow::Again);
        }
        let Some(abs) = non_blank(inp, self.pos) else {
            self.pos = inp.end();
            return (State::Args { call }, Flow::Stop);
        };
        self.pos = abs;
        if inp.from(abs)[0] != b'<' {
            let msg = "text is not allowed between arguments; only <arg_key>…</arg_key> and \
                       <arg_value>…</arg_value> pairs are";
            self.error(inp, &mut call, ErrorKind::UnexpectedText, msg, abs);
            return (State::Skip { call }, Flow::Again);
        }
        let Some((lexeme, n)) = self.lexer.next_raw(inp.w, abs - inp.base, inp.base, false) else {
            return (State::Args { call }, Flow::Stop);
        };
        if starts(&lexeme, KEY) {
            self.pos = abs + n;
            return (
                State::Key {
                    call,
                    at: abs,
                    end: abs + n,
                    scanned: abs + n,
                },
                Flow::Again,
            );
        }
        if matches!(lexeme, Lexeme::EndTag(BLOCK)) {
            self.pos = abs + n;
            self.end_call(inp, call, abs + n, out);
            return (State::Prose, Flow::Again);
        }
        if starts(&lexeme, BLOCK) {
            return self.interrupted(inp, call, abs, out);
        }
        let msg = if starts(&lexeme, VALUE) {
            "an <arg_value> without its <arg_key>: every value needs the key before it"
        } else {
            "only <arg_key>…</arg_key><arg_value>…</arg_value> pairs and </tool_call> may stand \
             inside a call"
        };
        self.error(inp, &mut call, ErrorKind::UnexpectedElement, msg, abs);
        (State::Skip { call }, Flow::Again)
    }

    /// Inside `<arg_key>`: the key's text, then `</arg_key>`.
    fn key(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        at: usize,
        end: usize,
        scanned: usize,
    ) -> (State, Flow) {
        let wait = |call, scanned| {
            (
                State::Key {
                    call,
                    at,
                    end,
                    scanned,
                },
                Flow::Stop,
            )
        };
        let scanned = scanned.min(inp.end());
        let Some(lt) = memchr(b'<', inp.from(scanned)).map(|i| scanned + i) else {
            if self.asm.call_too_long(&call.core, inp.end()) {
                self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
                return (State::Skip { call }, Flow::Again);
            }
            self.pos = inp.end();
            return wait(call, inp.end());
        };
        // The key's text runs to `lt`: past the call's limit, the call is too long, as it is
        // when a window ends there with no `<` yet.
        if self.asm.call_too_long(&call.core, lt) {
            self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
            return (State::Skip { call }, Flow::Again);
        }
        let Some((lexeme, n)) = self.lexer.next_raw(inp.w, lt - inp.base, inp.base, false) else {
            self.pos = lt;
            return wait(call, lt);
        };
        self.pos = lt;
        if !matches!(lexeme, Lexeme::EndTag(KEY)) {
            let msg = "the key is not closed by </arg_key>";
            self.error(inp, &mut call, ErrorKind::UnexpectedElement, msg, lt);
            return (State::Skip { call }, Flow::Again);
        }
        let key = inp.w[end - inp.base..lt - inp.base].trim();
        if key.is_empty() {
            let msg = "an empty <arg_key>: every argument needs a name";
            self.error(inp, &mut call, ErrorKind::UnexpectedElement, msg, at);
            return (State::Skip { call }, Flow::Again);
        }
        let key = key.to_owned();
        self.pos = lt + n;
        (State::AfterKey { call, key, at }, Flow::Again)
    }

    /// After `</arg_key>`: the key's `<arg_value>` must follow.
    fn after_key(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        key: String,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let Some(abs) = non_blank(inp, self.pos) else {
            self.pos = inp.end();
            return (State::AfterKey { call, key, at }, Flow::Stop);
        };
        self.pos = abs;
        let lexed = if inp.from(abs)[0] == b'<' {
            match self.lexer.next_raw(inp.w, abs - inp.base, inp.base, false) {
                Some(lexed) => Some(lexed),
                None => return (State::AfterKey { call, key, at }, Flow::Stop),
            }
        } else {
            None
        };
        match lexed {
            Some((lexeme, n)) if starts(&lexeme, VALUE) => {
                self.pos = abs + n;
                match self.open_value(inp, &mut call, &key, (at, abs + n), out) {
                    Some(value) => (State::Value { call, value }, Flow::Again),
                    None => (State::Skip { call }, Flow::Again),
                }
            }
            Some((lexeme, _)) if starts(&lexeme, BLOCK) => self.interrupted(inp, call, abs, out),
            _ => {
                let msg = format!(
                    "<arg_key>{}</arg_key> is not followed by its <arg_value>",
                    crate::error::snippet(&key)
                );
                self.error(inp, &mut call, ErrorKind::UnexpectedElement, &msg, abs);
                (State::Skip { call }, Flow::Again)
            }
        }
    }

    /// Begins the value of `key` (its `<arg_key>` at `at`, its `<arg_value>` ending at `end`);
    /// `None` after an error.
    fn open_value(
        &mut self,
        inp: Input<'_>,
        call: &mut Call,
        key: &str,
        (at, end): (usize, usize),
        out: &mut Vec<StreamEvent>,
    ) -> Option<Box<RawValue>> {
        let opened = self.asm.open_raw_argument(
            inp.w,
            inp.base,
            &mut call.core,
            key,
            "arguments",
            (at, end),
            None,
            out,
        )?;
        Some(Box::new(RawValue::opened(opened, false)))
    }

    /// Closes `value`; a key given again is dropped: the first value stands (§9.4).
    fn close_value(&mut self, call: &mut Call, value: RawValue, out: &mut Vec<StreamEvent>) {
        if let Some(closed) = value.close(&mut self.asm, &mut call.core, out) {
            let argument = call
                .core
                .keep_argument(closed.name, closed.text, Encoding::Raw);
            call.args.push(argument);
        }
    }

    fn value(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        mut value: Box<RawValue>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        // The value's text read in this window is copied once (`Unflushed`), not run by run.
        let mut unflushed = Unflushed::at(self.pos);
        loop {
            if self.asm.call_too_long(&call.core, self.pos) {
                self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
                return (State::Skip { call }, Flow::Again);
            }
            // The hot path: text up to the next close tag, in one piece.
            let plain = value.plain_text(inp, self.pos, self.finders, false, false);
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
            let rel = self.pos - inp.base;
            if plain > 0 {
                self.pos += plain;
                continue;
            }
            let Some((lexeme, n)) = self.lexer.next_raw(inp.w, rel, inp.base, false) else {
                unflushed.flush(&mut value.text, inp, self.pos);
                return (State::Value { call, value }, Flow::Stop);
            };
            let abs = self.pos;
            let kind = match lexeme {
                Lexeme::EndTag(VALUE) => Some(Close::Value),
                Lexeme::EndTag(BLOCK) => Some(Close::Block),
                _ => None,
            };
            if let Some(kind) = kind {
                unflushed.flush(&mut value.text, inp, abs);
                let close = abs..abs + n;
                self.pos = close.end;
                // `</tool_call>` at the start of a line ends the value and the call at once;
                // anywhere else a close tag waits for what follows.
                if kind == Close::Block && value.at_line_start() {
                    return self.close_structurally(inp, call, *value, close, kind, out);
                }
                let scanned = close.end;
                return (
                    State::Closing(Closing {
                        call,
                        value,
                        close,
                        kind,
                        scanned,
                    }),
                    Flow::Again,
                );
            }
            if !self
                .asm
                .count_argument_bytes(inp.w, inp.base, &mut call.core, n, abs)
            {
                self.pos = abs + n;
                return (State::Skip { call }, Flow::Again);
            }
            self.pos = abs + n;
        }
    }

    /// A close tag inside a value: structural when the end of the input, the next argument,
    /// `</tool_call>` or a new call follows (after blanks); text otherwise.
    fn closing(&mut self, inp: Input<'_>, c: Closing, out: &mut Vec<StreamEvent>) -> (State, Flow) {
        let Closing {
            mut call,
            mut value,
            close,
            kind,
            scanned,
        } = c;
        let wait = |call, value, scanned| {
            (
                State::Closing(Closing {
                    call,
                    value,
                    close: close.clone(),
                    kind,
                    scanned,
                }),
                Flow::Stop,
            )
        };
        // Tags inside a call are read as if more input followed (docs/FORMAT.md §7): a tag cut by
        // the end of the input leaves the close tag standing.
        let structural = match after_close(&mut self.lexer, inp, scanned) {
            AfterClose::End => true,
            AfterClose::Wait(at) => return wait(call, value, at),
            AfterClose::Text => false,
            AfterClose::Markup(lexeme) => {
                starts(&lexeme, BLOCK)
                    || (kind == Close::Value
                        && (starts(&lexeme, KEY)
                            || starts(&lexeme, VALUE)
                            || matches!(lexeme, Lexeme::EndTag(BLOCK))))
            }
        };
        self.lexer.reset();
        if structural {
            return self.close_structurally(inp, call, *value, close, kind, out);
        }
        if !value.keep_close_tag(&mut self.asm, &mut call.core, inp, close.clone()) {
            return (State::Skip { call }, Flow::Again);
        }
        self.pos = close.end;
        (State::Value { call, value }, Flow::Again)
    }

    fn close_structurally(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        value: RawValue,
        close: Range<usize>,
        kind: Close,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        if kind != Close::Value {
            repair_unclosed_value(&mut self.asm, &mut call.core, inp, close.start);
        }
        self.close_value(&mut call, value, out);
        self.pos = close.end;
        match kind {
            Close::Value => (State::Args { call }, Flow::Again),
            Close::Block => {
                self.end_call(inp, call, close.end, out);
                (State::Prose, Flow::Again)
            }
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
        let Call { core, args, .. } = *call;
        self.asm
            .finish_call(inp.w, inp.base, core, Arguments::Raw(args), end, out);
        self.asm.prose_start = end;
        self.lexer.reset();
    }

    /// A new `<tool_call>` at `at` inside this call: this one is unterminated, the new one is
    /// read from prose.
    fn interrupted(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let partial = self.partial(&call);
        self.asm.unterminated(
            inp.w,
            inp.base,
            &mut call.core,
            "a new call began before </tool_call> closed this one",
            at,
            partial,
        );
        self.end_call(inp, call, at, out);
        self.pos = at;
        (State::Prose, Flow::Again)
    }

    /// After an error: the call ends at `</tool_call>`, or where a new call begins.
    fn skip(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        loop {
            let rel = self.pos - inp.base;
            let Some((lexeme, n)) = self.lexer.next_raw(inp.w, rel, inp.base, inp.is_final) else {
                complete_snippet(inp.w, inp.base, &mut call.core, self.pos, None);
                return (State::Skip { call }, Flow::Stop);
            };
            let abs = self.pos;
            self.pos += n;
            if matches!(lexeme, Lexeme::EndTag(BLOCK)) {
                self.end_call(inp, call, abs + n, out);
                return (State::Prose, Flow::Again);
            }
            if starts(&lexeme, BLOCK) {
                self.pos = abs;
                self.end_call(inp, call, abs, out);
                return (State::Prose, Flow::Again);
            }
        }
    }

    /// Ends the input: an open call is unterminated; prose is emitted.
    fn finish(&mut self, inp: Input<'_>, out: &mut Vec<StreamEvent>) {
        let end = inp.end();
        let call = match std::mem::take(&mut self.state) {
            State::Args { call }
            | State::Key { call, .. }
            | State::AfterKey { call, .. }
            | State::Skip { call } => Some(call),
            State::Value { mut call, .. } | State::Closing(Closing { mut call, .. }) => {
                // The value is not complete: only the arguments before it are.
                call.core.delta.clear();
                Some(call)
            }
            State::Prose | State::Opened { .. } => None,
        };
        if let Some(mut call) = call {
            let partial = self.partial(&call);
            self.asm.unterminated(
                inp.w,
                inp.base,
                &mut call.core,
                "the input ended before </tool_call> closed the call",
                end,
                partial,
            );
            self.end_call(inp, call, end, out);
        }
        self.pos = end;
        self.asm.emit_prose(inp.w, inp.base, end, out);
    }

    fn partial(&self, call: &Call) -> Option<serde_json::Value> {
        Some(self.asm.partial_raw(&call.core, &call.args))
    }
}
