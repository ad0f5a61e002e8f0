//! The Qwen3-Coder family (Qwen3-Coder, Qwen3.5+, Nemotron-3 Nano; Seed-OSS under its own block
//! marker): docs/FORMAT.md §9.
//!
//! ```text
//! <tool_call>
//! <function=write_file>
//! <parameter=path>
//! a.rs
//! </parameter>
//! </function>
//! </tool_call>
//! ```
//!
//! Values are raw text (the lexer's raw mode): one layout newline after `<parameter=…>` and one
//! before `</parameter>` are dropped, every other byte is kept. Close tags inside a value are
//! structural only when what follows them is (the [`State::Closing`] lookahead), so code that
//! writes `</parameter>` is not cut short.
//!
//! ```text
//!  Prose ──<tool_call>──► Opened ──<function=f>──► Function ◄──────────────┐
//!    │                                 ▲            │  │ <parameter=p>       │ </parameter>
//!    └──<function=f>──► Bare ──────────┘            │  ▼                     │ (structural)
//!                                                   │  Value ──close tag──► Closing
//!                        AfterFunction ◄─</function>┘
//! ```

use crate::assemble::{Arguments, Assembler, CallCore, RawArgument, complete_snippet};
use crate::call::{Encoding, RepairKind};
use crate::dialect::scan::{
    AfterClose, Finders, Flow, Input, RawValue, Unflushed, VALUE_FINDERS, after_close, is_blank,
    non_blank, repair_unclosed_value,
};
use crate::dialect::{Dialect, Grammar};
use crate::error::ErrorKind;
use crate::event::StreamEvent;
use crate::lexer::{Lexeme, Lexer, Tag};
use crate::names::{is_placeholder, is_valid_name};
use crate::options::ParseOptions;
use std::ops::Range;

/// The markers that differ between members of the family.
#[derive(Debug)]
pub(crate) struct Markers {
    /// The block's element name: `tool_call`, or `seed:tool_call`.
    block: &'static str,
    /// `<` and the block's name, for probing prose.
    block_probe: &'static str,
}

/// Qwen3-Coder's markers.
pub(crate) const QWEN3_CODER: Markers = Markers {
    block: "tool_call",
    block_probe: "<tool_call",
};

/// Seed-OSS's markers.
pub(crate) const SEED_OSS: Markers = Markers {
    block: "seed:tool_call",
    block_probe: "<seed:tool_call",
};

const FUNCTION: &str = "function";
const PARAMETER: &str = "parameter";

/// Whether `lexeme` is a parameter tag (`<parameter=NAME>`, not a template placeholder).
fn is_parameter_tag(lexeme: &Lexeme<'_>) -> bool {
    matches!(
        lexeme,
        Lexeme::StartTag(Tag { name: PARAMETER, value: Some(name), .. }) if !is_placeholder(name)
    )
}

/// How a function tag begins: a probe in prose, and a function tag that never closes.
const FUNCTION_PROBE: &str = "<function=";

/// The grammar's state; each variant holds what it needs.
#[derive(Debug, Default)]
enum State {
    /// Between calls.
    #[default]
    Prose,
    /// The block's opening tag at `at..end`: blanks, then `<function=…>` begins a call.
    Opened { at: usize, end: usize },
    /// `<function=…>` with no block opener: a call only if a parameter or `</function>` follows.
    Bare { call: Box<Call> },
    /// Inside `<function=…>`, between parameters.
    Function { call: Box<Call> },
    /// Inside a parameter's value.
    Value {
        call: Box<Call>,
        param: Box<RawValue>,
    },
    /// A close tag inside a value: structural or text, as what follows decides.
    Closing(Closing),
    /// After `</function>`: blanks were scanned up to `scanned`; `</tool_call>` ends the block,
    /// another `<function=…>` in a block is the next call, anything else is prose.
    AfterFunction { block: bool, scanned: usize },
    /// After an error: read to the call's end.
    Skip { call: Box<Call> },
}

/// A close tag met inside a value, waiting for what follows it.
#[derive(Debug)]
struct Closing {
    call: Box<Call>,
    param: Box<RawValue>,
    /// The close tag's bytes.
    close: Range<usize>,
    kind: Close,
    /// Blanks after it were scanned up to here.
    scanned: usize,
}

/// Which close tag a value met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    Parameter,
    Function,
    Block,
}

/// A call being read.
#[derive(Debug)]
struct Call {
    core: CallCore,
    /// Opened by the block marker, not bare.
    block: bool,
    args: Vec<RawArgument>,
}

/// The Qwen3-Coder grammar.
#[derive(Debug)]
pub(crate) struct Qwen3Coder {
    asm: Assembler,
    lexer: Lexer,
    markers: &'static Markers,
    /// Absolute offset of the next byte to read.
    pos: usize,
    state: State,
    finders: &'static Finders,
}

impl Grammar for Qwen3Coder {
    fn run(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> usize {
        let inp = Input { w, base, is_final };
        // A streamed token of a value, or of prose: read before anything else
        // (`RawValue::stream_tail`, `scan::prose_tail`).
        if let State::Value { call, param } = &mut self.state
            && let Some(keep) =
                param.stream_tail(&mut self.asm, &mut call.core, inp, &mut self.pos, out)
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
                State::Opened { at, end } => self.opened(inp, at, end, out),
                State::Bare { call } => self.bare(inp, call, out),
                State::Function { call } => self.function(inp, call, out),
                State::Value { call, param } => self.value(inp, call, param, out),
                State::Closing(closing) => self.closing(inp, closing, out),
                State::AfterFunction { block, scanned } => {
                    self.after_function(inp, block, scanned, out)
                }
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
        self.flush_delta(out);
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

impl Qwen3Coder {
    pub(crate) fn new(
        opts: ParseOptions,
        progress: bool,
        dialect: Dialect,
        markers: &'static Markers,
    ) -> Self {
        Qwen3Coder {
            asm: Assembler::new(opts, dialect, progress),
            lexer: Lexer::default(),
            markers,
            pos: 0,
            state: State::Prose,
            finders: &VALUE_FINDERS,
        }
    }

    /// The first absolute offset still needed: a call's source from its start (for snippets),
    /// else the prose not yet emitted.
    fn keep_from(&self) -> usize {
        let from = match &self.state {
            State::Prose | State::AfterFunction { .. } => self.pos,
            State::Opened { at, .. } => *at,
            State::Bare { call }
            | State::Function { call }
            | State::Value { call, .. }
            | State::Skip { call } => call.core.start,
            State::Closing(c) => c.call.core.start,
        };
        self.asm.kept_from(from)
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
            match probe(
                &bytes[at..],
                &[self.markers.block_probe, FUNCTION_PROBE],
                inp.is_final,
            ) {
                Probe::No => {
                    self.pos = abs + 1;
                    continue;
                }
                Probe::NeedMore => return self.hold_prose(inp, abs, out),
                Probe::Maybe => {}
            }
            let Some((lexeme, n)) = self.lexer.next_raw(inp.w, at, inp.base, inp.is_final) else {
                return self.hold_prose(inp, abs, out);
            };
            match lexeme {
                Lexeme::StartTag(tag)
                    if self.is_block_open(&tag)
                        && super::is_exact_opener(inp.bytes(), at, n, self.markers.block) =>
                {
                    self.pos = abs + n;
                    return (
                        State::Opened {
                            at: abs,
                            end: abs + n,
                        },
                        Flow::Again,
                    );
                }
                Lexeme::StartTag(Tag {
                    name: FUNCTION,
                    value: Some(name),
                    ..
                }) if is_valid_name(name) && self.asm.may_begin_call(inp.w, inp.base, abs, out) => {
                    let mut call = self.new_call(abs, abs + n, false);
                    self.asm
                        .set_tool_name(inp.w, inp.base, &mut call.core, name, abs);
                    self.pos = abs + n;
                    return (State::Bare { call }, Flow::Again);
                }
                _ => self.pos = abs + 1,
            }
        }
    }

    /// Stops before the `<` at `at`, which may still begin a marker: the prose before it is
    /// certain.
    fn hold_prose(
        &mut self,
        inp: Input<'_>,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        self.pos = at;
        self.asm.emit_prose(inp.w, inp.base, at, out);
        (State::Prose, Flow::Stop)
    }

    fn is_block_open(&self, tag: &Tag<'_>) -> bool {
        tag.name == self.markers.block
            && tag.value.is_none()
            && tag.attributes.is_empty()
            && !tag.self_closing
    }

    fn new_call(&self, start: usize, tag_end: usize, block: bool) -> Box<Call> {
        Box::new(Call {
            core: CallCore::new(self.asm.next_index(), start, tag_end),
            block,
            args: Vec::new(),
        })
    }

    /// After the block's opening tag: `<function=NAME>` begins the call.
    fn opened(
        &mut self,
        inp: Input<'_>,
        at: usize,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let Some(rel) = self.skip_blanks(inp) else {
            if inp.is_final {
                return (State::Prose, Flow::Again);
            }
            return (State::Opened { at, end }, Flow::Stop);
        };
        let not_a_call = |this: &mut Self| {
            this.pos = end;
            (State::Prose, Flow::Again)
        };
        if inp.bytes()[rel] != b'<' {
            return not_a_call(self);
        }
        let Some((lexeme, n)) = self.lexer.next_raw(inp.w, rel, inp.base, inp.is_final) else {
            return (State::Opened { at, end }, Flow::Stop);
        };
        let abs = inp.base + rel;
        match self.function_tag(inp, abs, &lexeme, n) {
            Some((name, tag_end))
                if !name.is_some_and(is_placeholder)
                    && self.asm.may_begin_call(inp.w, inp.base, at, out) =>
            {
                self.begin_function(inp, at, abs, name, tag_end, out)
            }
            None if is_parameter_tag(&lexeme)
                && self.asm.may_begin_call(inp.w, inp.base, at, out) =>
            {
                self.nameless_call(inp, at, abs, out)
            }
            _ => not_a_call(self),
        }
    }

    /// A parameter tag at `tag_at` in a block where a function tag was due (right after the
    /// block's opener, or after a function of the block): a call whose function tag was left
    /// out, from `start`; a `missing_tool_name` error at the parameter (docs/FORMAT.md §9.1
    /// rule 5).
    fn nameless_call(
        &mut self,
        inp: Input<'_>,
        start: usize,
        tag_at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let msg = "the call names no tool: `<function=NAME>` must come before its parameters";
        let call = self.new_call(start, tag_at, true);
        self.failed_call(
            inp,
            call,
            ErrorKind::MissingToolName,
            msg.to_owned(),
            tag_at,
            out,
        )
    }

    /// A call just begun (`call`, read up to its `tag_end`) that is an error of `kind` at
    /// `at`: begun, failed, and skipped to its end, never prose.
    fn failed_call(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        kind: ErrorKind,
        msg: String,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        self.pos = call.core.tag_end;
        self.asm
            .begin_failed_call(inp.w, inp.base, &mut call.core, kind, msg, at, out);
        (State::Skip { call }, Flow::Again)
    }

    /// The function tag `lexeme` (`n` bytes at `abs`, in a block) begins: its name and where it
    /// ends; a name of `None` for `<function=NAME` that never closes (no `>` before the next
    /// `<`, or a tag too long), which begins a call all the same (docs/FORMAT.md §9.1 rule 5).
    /// `None` when it is no function tag.
    fn function_tag<'t>(
        &self,
        inp: Input<'_>,
        abs: usize,
        lexeme: &Lexeme<'t>,
        n: usize,
    ) -> Option<(Option<&'t str>, usize)> {
        match lexeme {
            Lexeme::StartTag(Tag {
                name: FUNCTION,
                value: Some(name),
                ..
            }) => Some((Some(name), abs + n)),
            Lexeme::LiteralLt if inp.from(abs).starts_with(FUNCTION_PROBE.as_bytes()) => {
                Some((None, abs + FUNCTION_PROBE.len()))
            }
            _ => None,
        }
    }

    /// Begins the call of the function tag at `tag_at` (the call's span from `start`), named
    /// `name` (`None`: the tag never closes): the call, or, when the name is none or no valid
    /// one, an `invalid_tool_name` error there, the call skipped to its end (docs/FORMAT.md §9.1
    /// rule 5).
    fn begin_function(
        &mut self,
        inp: Input<'_>,
        start: usize,
        tag_at: usize,
        name: Option<&str>,
        tag_end: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let mut call = self.new_call(start, tag_end, true);
        let msg = match name {
            Some(name) if is_valid_name(name) => {
                self.pos = tag_end;
                self.asm.begin_call(inp.w, inp.base, &call.core, out);
                self.asm
                    .set_tool_name(inp.w, inp.base, &mut call.core, name, start);
                self.asm.tool_name_known(&call.core, out);
                return (State::Function { call }, Flow::Again);
            }
            Some(name) => format!("`{}` is not a valid tool name", crate::error::snippet(name)),
            None => "the function tag is not closed: `<function=NAME>` needs its `>`".into(),
        };
        self.failed_call(inp, call, ErrorKind::InvalidToolName, msg, tag_at, out)
    }

    /// A bare `<function=NAME>`: a call (missing its opener) only if a parameter or its close
    /// tag follows; otherwise prose.
    fn bare(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let Some(rel) = self.skip_blanks(inp) else {
            if inp.is_final {
                self.pos = call.core.tag_end;
                return (State::Prose, Flow::Again);
            }
            return (State::Bare { call }, Flow::Stop);
        };
        let lexed = match inp.bytes()[rel] {
            b'<' => self.lexer.next_raw(inp.w, rel, inp.base, inp.is_final),
            _ => Some((Lexeme::LiteralLt, 1)),
        };
        let Some((lexeme, _)) = lexed else {
            return (State::Bare { call }, Flow::Stop);
        };
        let opens = matches!(
            lexeme,
            Lexeme::StartTag(Tag {
                name: PARAMETER,
                value: Some(_),
                ..
            }) | Lexeme::EndTag(FUNCTION)
        );
        if !opens {
            self.pos = call.core.tag_end;
            return (State::Prose, Flow::Again);
        }
        self.asm.begin_call(inp.w, inp.base, &call.core, out);
        let start = call.core.start;
        self.asm.repair(
            inp.w,
            inp.base,
            &mut call.core,
            RepairKind::MissingCallOpener,
            start,
        );
        self.asm.tool_name_known(&call.core, out);
        (State::Function { call }, Flow::Again)
    }

    /// Skips blanks from `pos`; the relative offset of the first other byte, if the window has one.
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

    // ----- inside a function --------------------------------------------------------------------

    fn function(
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
            return (State::Function { call }, Flow::Stop);
        };
        let abs = inp.base + rel;
        if inp.bytes()[rel] != b'<' {
            let msg =
                "text is not allowed directly inside <function=…>; only parameters are".to_owned();
            self.asm.error(
                inp.w,
                inp.base,
                &mut call.core,
                ErrorKind::UnexpectedText,
                msg,
                abs,
            );
            return (State::Skip { call }, Flow::Again);
        }
        // Inside a call, a tag is read as if more input followed: a tag cut by the end of the
        // input is a cut call (docs/FORMAT.md §7), never an unexpected element.
        let Some((lexeme, n)) = self.lexer.next_raw(inp.w, rel, inp.base, false) else {
            return (State::Function { call }, Flow::Stop);
        };
        match lexeme {
            Lexeme::StartTag(Tag {
                name: PARAMETER,
                value: Some(name),
                ..
            }) => {
                self.pos = abs + n;
                match self.open_parameter(inp, &mut call, name, abs, abs + n, out) {
                    Some(param) => (State::Value { call, param }, Flow::Again),
                    None => (State::Skip { call }, Flow::Again),
                }
            }
            Lexeme::EndTag(FUNCTION) => {
                let block = call.block;
                self.pos = abs + n;
                self.end_call(inp, call, abs + n, out);
                (
                    State::AfterFunction {
                        block,
                        scanned: self.pos,
                    },
                    Flow::Again,
                )
            }
            Lexeme::EndTag(name) if name == self.markers.block => {
                self.asm.repair(
                    inp.w,
                    inp.base,
                    &mut call.core,
                    RepairKind::MissingCallCloser,
                    abs,
                );
                self.pos = abs + n;
                self.end_call(inp, call, abs + n, out);
                (State::Prose, Flow::Again)
            }
            Lexeme::StartTag(ref tag) if self.begins_call(tag) => {
                self.interrupted(inp, call, abs, out)
            }
            _ => {
                let msg = "only <parameter=NAME> or </function> may stand inside \
                               <function=…>"
                    .to_owned();
                self.asm.error(
                    inp.w,
                    inp.base,
                    &mut call.core,
                    ErrorKind::UnexpectedElement,
                    msg,
                    abs,
                );
                (State::Skip { call }, Flow::Again)
            }
        }
    }

    /// Whether a tag begins a new call (the block opener, or `<function=NAME>`).
    fn begins_call(&self, tag: &Tag<'_>) -> bool {
        self.is_block_open(tag) || (tag.name == FUNCTION && tag.value.is_some())
    }

    /// A new call begins at `at` inside this one: this one is unterminated, and the new one is
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
            "a new call began before </function> closed this one",
            at,
            partial,
        );
        self.asm.finish_call(
            inp.w,
            inp.base,
            call.core,
            Arguments::Raw(Vec::new()),
            at,
            out,
        );
        self.asm.prose_start = at;
        self.pos = at;
        self.lexer.reset();
        (State::Prose, Flow::Again)
    }

    /// Begins the parameter `name` whose tag spans `at..end`; `None` after an error.
    fn open_parameter(
        &mut self,
        inp: Input<'_>,
        call: &mut Call,
        name: &str,
        at: usize,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) -> Option<Box<RawValue>> {
        // A parameter given again is read (so the call goes on) but dropped: the first value
        // stands, so what was streamed of it stays true (its deltas are not sent).
        let opened = self.asm.open_raw_argument(
            inp.w,
            inp.base,
            &mut call.core,
            name,
            "parameters",
            (at, end),
            None,
            out,
        )?;
        Some(Box::new(RawValue::opened(opened, true)))
    }

    /// Closes `param`: its value is complete.
    fn close_parameter(&mut self, call: &mut Call, param: RawValue, out: &mut Vec<StreamEvent>) {
        if let Some(closed) = param.close(&mut self.asm, &mut call.core, out) {
            let argument = call
                .core
                .keep_argument(closed.name, closed.text, Encoding::Raw);
            call.args.push(argument);
        }
    }

    fn flush_delta(&mut self, out: &mut Vec<StreamEvent>) {
        if let State::Value { call, param } = &mut self.state {
            param.deliver(&mut self.asm, &mut call.core, false, out);
        }
    }

    /// The name of a parameter tag that really begins the next parameter inside a value: at the
    /// start of a line, a valid name, one the tool's schema knows (when there is one), not given
    /// yet. Anything else is text of the value.
    fn next_parameter_tag<'t>(
        &self,
        call: &Call,
        param: &RawValue,
        at_line_start: bool,
        tag: &Tag<'t>,
    ) -> Option<&'t str> {
        let name = tag.value.filter(|_| tag.name == PARAMETER)?;
        if !at_line_start || *param.name == *name || call.core.has_argument(name) {
            return None;
        }
        self.asm.may_name_argument(&call.core, name).then_some(name)
    }

    fn value(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        mut param: Box<RawValue>,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        match param.start(inp, self.pos) {
            Some(n) => self.pos += n,
            None => return (State::Value { call, param }, Flow::Stop),
        }
        // The value's text read in this window is copied once, when it must be seen or the
        // window ends (`Unflushed`), not run by run.
        let mut unflushed = Unflushed::at(self.pos);
        loop {
            if self.asm.call_too_long(&call.core, self.pos) {
                self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
                return (State::Skip { call }, Flow::Again);
            }
            let rel = self.pos - inp.base;
            let at_line_start = unflushed.at_line_start(&param.text, inp, self.pos);
            // The hot path: text up to the next `<` that can matter, in one piece.
            let plain = param.plain_text(inp, self.pos, self.finders, true, at_line_start);
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
                self.pos += plain;
                continue;
            }
            let Some((lexeme, n)) = self.lexer.next_raw(inp.w, rel, inp.base, inp.is_final) else {
                unflushed.flush(&mut param.text, inp, self.pos);
                return (State::Value { call, param }, Flow::Stop);
            };
            let abs = self.pos;
            let close = |kind| (kind, abs..abs + n);
            let closing = match lexeme {
                Lexeme::EndTag(PARAMETER) => Some(close(Close::Parameter)),
                Lexeme::EndTag(FUNCTION) => Some(close(Close::Function)),
                Lexeme::EndTag(name) if name == self.markers.block => Some(close(Close::Block)),
                Lexeme::StartTag(ref tag) => {
                    if let Some(name) = self.next_parameter_tag(&call, &param, at_line_start, tag) {
                        unflushed.flush(&mut param.text, inp, abs);
                        repair_unclosed_value(&mut self.asm, &mut call.core, inp, abs);
                        self.close_parameter(&mut call, *param, out);
                        self.pos = abs + n;
                        return match self.open_parameter(inp, &mut call, name, abs, abs + n, out) {
                            Some(param) => (State::Value { call, param }, Flow::Again),
                            None => (State::Skip { call }, Flow::Again),
                        };
                    }
                    None
                }
                _ => None,
            };
            if let Some((kind, close)) = closing {
                unflushed.flush(&mut param.text, inp, abs);
                // At the start of a line, `</function>` and the block's close tag end the value
                // at once; anywhere else a close tag waits for what follows.
                self.pos = close.end;
                if kind != Close::Parameter && at_line_start {
                    return self.close_structurally(inp, call, *param, close, kind, out);
                }
                let scanned = close.end;
                return (
                    State::Closing(Closing {
                        call,
                        param,
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

    /// A close tag inside a value: structural when the end of the input, or a parameter, the
    /// function's close, the block's close or a new call follows (after blanks); text otherwise.
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
        let structural = match after_close(&mut self.lexer, inp, scanned) {
            AfterClose::End => true,
            AfterClose::Wait(at) => return wait(call, param, at),
            AfterClose::Text => false,
            AfterClose::Markup(Lexeme::StartTag(tag)) => {
                self.begins_call(&tag)
                    || (kind == Close::Parameter && tag.name == PARAMETER && tag.value.is_some())
            }
            AfterClose::Markup(Lexeme::EndTag(name)) => match kind {
                Close::Parameter => name == FUNCTION || name == self.markers.block,
                Close::Function => name == self.markers.block,
                Close::Block => false,
            },
            AfterClose::Markup(_) => false,
        };
        self.lexer.reset();
        if structural {
            return self.close_structurally(inp, call, *param, close, kind, out);
        }
        // Text of the value after all: the close tag, as written.
        if !param.keep_close_tag(&mut self.asm, &mut call.core, inp, close.clone()) {
            return (State::Skip { call }, Flow::Again);
        }
        self.pos = close.end;
        (State::Value { call, param }, Flow::Again)
    }

    /// Ends the value at a close tag that is structural: `</parameter>` returns to the function;
    /// `</function>` or the block's close tag also end the call, with the repairs they need.
    fn close_structurally(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        param: RawValue,
        close: Range<usize>,
        kind: Close,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        if kind != Close::Parameter {
            repair_unclosed_value(&mut self.asm, &mut call.core, inp, close.start);
        }
        self.close_parameter(&mut call, param, out);
        self.pos = close.end;
        match kind {
            Close::Parameter => (State::Function { call }, Flow::Again),
            Close::Function => {
                let block = call.block;
                self.end_call(inp, call, close.end, out);
                (
                    State::AfterFunction {
                        block,
                        scanned: close.end,
                    },
                    Flow::Again,
                )
            }
            Close::Block => {
                self.asm.repair(
                    inp.w,
                    inp.base,
                    &mut call.core,
                    RepairKind::MissingCallCloser,
                    close.start,
                );
                self.end_call(inp, call, close.end, out);
                (State::Prose, Flow::Again)
            }
        }
    }

    // ----- after a call -------------------------------------------------------------------------

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

    fn after_function(
        &mut self,
        inp: Input<'_>,
        block: bool,
        scanned: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let bytes = inp.bytes();
        let Some(at) = non_blank(inp, scanned).map(|abs| abs - inp.base) else {
            if inp.is_final {
                return (State::Prose, Flow::Again);
            }
            return (
                State::AfterFunction {
                    block,
                    scanned: inp.end(),
                },
                Flow::Stop,
            );
        };
        if bytes[at] != b'<' {
            return (State::Prose, Flow::Again);
        }
        let Some((lexeme, n)) = self.lexer.next_raw(inp.w, at, inp.base, inp.is_final) else {
            return (
                State::AfterFunction {
                    block,
                    scanned: inp.base + at,
                },
                Flow::Stop,
            );
        };
        let abs = inp.base + at;
        match lexeme {
            Lexeme::EndTag(name) if name == self.markers.block => {
                self.pos = abs + n;
                self.asm.prose_start = abs + n;
                (State::Prose, Flow::Again)
            }
            // Another call in the same block, or a function tag there that is not one.
            _ if let Some((name, tag_end)) = self.function_tag(inp, abs, &lexeme, n)
                && block
                && !name.is_some_and(is_placeholder)
                && self.asm.may_begin_call(inp.w, inp.base, abs, out) =>
            {
                // The blanks before it are the block's layout (docs/FORMAT.md §9.1 rule 6).
                self.asm.prose_start = abs;
                self.begin_function(inp, abs, abs, name, tag_end, out)
            }
            // A later call of the block whose function tag was left out.
            _ if block
                && is_parameter_tag(&lexeme)
                && self.asm.may_begin_call(inp.w, inp.base, abs, out) =>
            {
                self.asm.prose_start = abs;
                self.nameless_call(inp, abs, abs, out)
            }
            _ => {
                self.lexer.reset();
                (State::Prose, Flow::Again)
            }
        }
    }

    /// After an error: the call ends at `</function>`, at the block's close tag, or where a new
    /// call begins.
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
            match lexeme {
                Lexeme::EndTag(FUNCTION) => {
                    let block = call.block;
                    self.end_call(inp, call, abs + n, out);
                    return (
                        State::AfterFunction {
                            block,
                            scanned: self.pos,
                        },
                        Flow::Again,
                    );
                }
                Lexeme::EndTag(name) if name == self.markers.block => {
                    self.end_call(inp, call, abs + n, out);
                    return (State::Prose, Flow::Again);
                }
                Lexeme::StartTag(ref tag) if self.is_block_open(tag) => {
                    self.pos = abs;
                    self.end_call(inp, call, abs, out);
                    return (State::Prose, Flow::Again);
                }
                _ => {}
            }
        }
    }

    /// Ends the input: an open call is unterminated; prose is emitted.
    fn finish(&mut self, inp: Input<'_>, out: &mut Vec<StreamEvent>) {
        let end = inp.end();
        let call = match std::mem::take(&mut self.state) {
            State::Function { call } | State::Skip { call } => Some(call),
            State::Value { mut call, .. } | State::Closing(Closing { mut call, .. }) => {
                // The value is not complete: only the parameters before it are.
                call.core.delta.clear();
                Some(call)
            }
            State::Prose
            | State::Opened { .. }
            | State::Bare { .. }
            | State::AfterFunction { .. } => None,
        };
        if let Some(mut call) = call {
            let partial = self.partial(&call);
            self.asm.unterminated(
                inp.w,
                inp.base,
                &mut call.core,
                "the input ended before </function> closed the call",
                end,
                partial,
            );
            self.end_call(inp, call, end, out);
        }
        self.pos = end;
        self.asm.emit_prose(inp.w, inp.base, end, out);
    }

    /// The arguments a call had completed, typed, as JSON.
    fn partial(&self, call: &Call) -> Option<serde_json::Value> {
        Some(self.asm.partial_raw(&call.core, &call.args))
    }
}

/// Whether bytes at a `<` may begin one of `markers`.
enum Probe {
    Maybe,
    No,
    NeedMore,
}

fn probe(s: &[u8], markers: &[&str], is_final: bool) -> Probe {
    let mut need_more = false;
    for m in markers {
        let m = m.as_bytes();
        if s.len() >= m.len() {
            if s.starts_with(m) {
                return Probe::Maybe;
            }
        } else if m.starts_with(s) {
            need_more = true;
        }
    }
    if need_more && !is_final {
        Probe::NeedMore
    } else {
        Probe::No
    }
}
