//! The invoke family: MiniMax-M2, Anthropic's `<function_calls>`, DeepSeek's DSML and Step-3,
//! one grammar under each dialect's markers (docs/FORMAT.md §9.5).
//!
//! ```text
//! <minimax:tool_call>
//! <invoke name="get_weather">
//! <parameter name="city">Paris</parameter>
//! </invoke>
//! </minimax:tool_call>
//! ```
//!
//! A block holds one or more invokes; each invoke is one call. Values are raw text, as in the
//! Qwen3-Coder family: one layout newline after `<parameter …>` and one before `</parameter>`
//! are dropped, every other byte is kept, and a close tag inside a value is structural only when
//! what follows it is (the [`State::Closing`] lookahead). DeepSeek's `string="false"` values are
//! JSON, typed by the dialect; the others are typed by the tool's schema.
//!
//! ```text
//!  Prose ──block opener──► Opened ──<invoke name=f>──► Invoke ◄─────────────────┐
//!                                                       │  │ <parameter name=p>   │ </parameter>
//!                                                       │  ▼                      │ (structural)
//!                        InBlock ◄──────────</invoke>───┘  Value ──close tag──► Closing
//!                          │  └──<invoke name=g>──► Invoke
//!                          └──block close──► Prose
//! ```

use crate::assemble::{Arguments, Assembler, CallCore, RawArgument, complete_snippet};
use crate::call::{Encoding, RepairKind};
use crate::dialect::scan::{
    BodyScan, ClosedValue, Finders, Flow, Input, JsonBody, Literal, Peek, RawValue, Unflushed,
    VALUE_FINDERS, is_blank, literal_at, non_blank, peek_markup, repair_unclosed_value,
};
use crate::dialect::{Dialect, Grammar};
use crate::error::ErrorKind;
use crate::event::StreamEvent;
use crate::lexer::{Lexeme, Lexer, Tag, attribute};
use crate::names::{is_placeholder, is_valid_name};
use crate::options::ParseOptions;
use arg_types::{Map, Value};
use std::ops::Range;

/// A block's markers: its opening tag's name and its close.
#[derive(Debug)]
pub(crate) struct Block {
    /// The opening tag's element name (`minimax:tool_call`).
    open: &'static str,
    /// `<` and the opening tag's name, for probing prose.
    probe: &'static str,
    /// The close: an end tag `</name>`, or (Step-3) a start tag `<name>`.
    close: &'static str,
    close_is_end_tag: bool,
}

/// The markers that differ between members of the family.
#[derive(Debug)]
pub(crate) struct Markers {
    dialect: Dialect,
    blocks: &'static [Block],
    /// The invoke element's name.
    invoke: &'static str,
    /// The parameter element's name.
    parameter: &'static str,
    /// Tokens that may stand around an invoke inside a block, skipped (Step-3's per-call ones).
    separators: &'static [&'static str],
    /// The parameter's `string` attribute types its value (`"false"`: JSON), as DSML's does.
    string_attribute: bool,
    /// An invoke's body may be one JSON object, its arguments, as DSML's readers take it.
    json_body: bool,
}

impl Markers {
    /// Whether an end tag named `name` is the invoke's close cut short by at most three
    /// characters (`</｜DSML｜inv>`, as DeepSeek-V4's quantized models write it; `</invo>`):
    /// read as the close, with a `truncated_close_tag` repair (docs/FORMAT.md §9.5 rule 5).
    fn is_cut_invoke_close(&self, name: &str) -> bool {
        name.len() < self.invoke.len()
            && self.invoke.len() - name.len() <= 3
            && self.invoke.starts_with(name)
    }
}

/// MiniMax-M2 (also M2.1, M2.5): `<minimax:tool_call>`.
pub(crate) const MINIMAX_M2: Markers = Markers {
    dialect: Dialect::MinimaxM2,
    blocks: &[Block {
        open: "minimax:tool_call",
        probe: "<minimax:tool_call",
        close: "minimax:tool_call",
        close_is_end_tag: true,
    }],
    invoke: "invoke",
    parameter: "parameter",
    separators: &[],
    string_attribute: false,
    json_body: false,
};

/// Anthropic's `<function_calls>` (Claude's text form of tool use).
pub(crate) const ANTHROPIC: Markers = Markers {
    dialect: Dialect::Anthropic,
    blocks: &[Block {
        open: "function_calls",
        probe: "<function_calls",
        close: "function_calls",
        close_is_end_tag: true,
    }],
    invoke: "invoke",
    parameter: "parameter",
    separators: &[],
    string_attribute: false,
    json_body: false,
};

/// DeepSeek's DSML (V3.2 `function_calls`, later `tool_calls`); `｜` is U+FF5C.
pub(crate) const DEEPSEEK_DSML: Markers = Markers {
    dialect: Dialect::DeepseekDsml,
    blocks: &[
        Block {
            open: "｜DSML｜function_calls",
            probe: "<｜DSML｜function_calls",
            close: "｜DSML｜function_calls",
            close_is_end_tag: true,
        },
        Block {
            open: "｜DSML｜tool_calls",
            probe: "<｜DSML｜tool_calls",
            close: "｜DSML｜tool_calls",
            close_is_end_tag: true,
        },
    ],
    invoke: "｜DSML｜invoke",
    parameter: "｜DSML｜parameter",
    separators: &[],
    string_attribute: true,
    json_body: true,
};

/// Step-3: steptml invokes inside its call-section tokens.
pub(crate) const STEP3: Markers = Markers {
    dialect: Dialect::Step3,
    blocks: &[Block {
        open: "｜tool_calls_begin｜",
        probe: "<｜tool_calls_begin｜",
        close: "｜tool_calls_end｜",
        close_is_end_tag: false,
    }],
    invoke: "steptml:invoke",
    parameter: "steptml:parameter",
    separators: &[
        "<｜tool_call_begin｜>",
        "function<｜tool_sep｜>",
        "<｜tool_sep｜>",
        "<｜tool_call_end｜>",
    ],
    string_attribute: false,
    json_body: false,
};

/// The grammar's state; each variant holds what it needs.
#[derive(Debug, Default)]
enum State {
    /// Between calls.
    #[default]
    Prose,
    /// A block's opener at `at..end`: blanks and separators, then `<invoke name=…>` begins a
    /// call; anything else leaves the opener as prose.
    Opened { at: usize, end: usize, block: usize },
    /// Inside an invoke, between parameters.
    Invoke { call: Box<Call> },
    /// Inside a parameter's value.
    Value { call: Box<Call>, param: Box<Param> },
    /// DSML: an invoke's body that is one JSON object.
    Json {
        call: Box<Call>,
        body: Box<JsonBody>,
    },
    /// A close tag inside a value: structural or text, as what follows decides.
    Closing(Closing),
    /// In a block after a call: blanks and separators were looked at up to `scanned`; another
    /// invoke is the next call, the block's close ends the block, anything else is prose.
    InBlock { block: usize, scanned: usize },
    /// After an error: read to the call's end.
    Skip { call: Box<Call> },
}

/// A close tag met inside a value, waiting for what follows it.
#[derive(Debug)]
struct Closing {
    call: Box<Call>,
    param: Box<Param>,
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
    Invoke,
    Block,
}

/// What a tag is in this dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    BlockOpen(usize),
    BlockClose,
    Invoke,
    InvokeEnd,
    Parameter,
    ParameterEnd,
    Other,
}

/// A call being read.
#[derive(Debug)]
struct Call {
    core: CallCore,
    /// The block it stands in.
    block: usize,
    args: Vec<(RawArgument, Option<Value>)>,
    /// The arguments of a JSON body, once read.
    json: Option<Map>,
}

/// A parameter being read.
#[derive(Debug)]
struct Param {
    value: RawValue,
    /// The `string` attribute, where the dialect reads it.
    string: Option<bool>,
}

/// The invoke grammar.
#[derive(Debug)]
pub(crate) struct Invoke {
    asm: Assembler,
    lexer: Lexer,
    markers: &'static Markers,
    /// Absolute offset of the next byte to read.
    pos: usize,
    state: State,
    finders: &'static Finders,
    probes: Vec<&'static str>,
}

impl Grammar for Invoke {
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
        loop {
            let (next, flow) = match std::mem::take(&mut self.state) {
                State::Prose => self.prose(inp, out),
                State::Opened { at, end, block } => self.opened(inp, at, end, block, out),
                State::Invoke { call } => self.invoke(inp, call, out),
                State::Value { call, param } => self.value(inp, call, param, out),
                State::Json { call, body } => self.json(inp, call, body),
                State::Closing(closing) => self.closing(inp, closing, out),
                State::InBlock { block, scanned } => self.in_block(inp, block, scanned, out),
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

impl Invoke {
    pub(crate) fn new(opts: ParseOptions, progress: bool, markers: &'static Markers) -> Self {
        Invoke {
            asm: Assembler::new(opts, markers.dialect, progress),
            lexer: Lexer::default(),
            markers,
            pos: 0,
            state: State::Prose,
            finders: &VALUE_FINDERS,
            probes: markers.blocks.iter().map(|b| b.probe).collect(),
        }
    }

    /// The first absolute offset still needed: a call's source from its start (for snippets),
    /// else the prose not yet emitted.
    fn keep_from(&self) -> usize {
        let from = match &self.state {
            State::Prose | State::InBlock { .. } => self.pos,
            State::Opened { at, .. } => *at,
            State::Invoke { call }
            | State::Value { call, .. }
            | State::Json { call, .. }
            | State::Skip { call } => call.core.start,
            State::Closing(c) => c.call.core.start,
        };
        self.asm.kept_from(from)
    }

    // ----- what a tag is ----------------------------------------------------------------------

    /// Whether `rest` begins the dialect's invoke tag (`<invoke` and a blank), whether or not a
    /// well-formed tag follows.
    fn begins_invoke_tag(&self, rest: &[u8]) -> bool {
        let invoke = self.markers.invoke.as_bytes();
        rest.first() == Some(&b'<')
            && rest[1..].starts_with(invoke)
            && rest.get(1 + invoke.len()).is_some_and(|&b| is_blank(b))
    }

    fn kind(&self, lexeme: &Lexeme<'_>) -> Kind {
        let m = self.markers;
        match lexeme {
            // A self-closing invoke is a call without arguments (docs/FORMAT.md §9.5 rule 1).
            Lexeme::StartTag(tag) if tag.value.is_none() && tag.name == m.invoke => Kind::Invoke,
            Lexeme::StartTag(tag) if tag.value.is_none() && !tag.self_closing => {
                if tag.name == m.parameter {
                    return Kind::Parameter;
                }
                if tag.attributes.is_empty() {
                    if let Some(i) = m.blocks.iter().position(|b| b.open == tag.name) {
                        return Kind::BlockOpen(i);
                    }
                    if m.blocks
                        .iter()
                        .any(|b| !b.close_is_end_tag && b.close == tag.name)
                    {
                        return Kind::BlockClose;
                    }
                }
                Kind::Other
            }
            Lexeme::EndTag(name) => {
                if *name == m.invoke || m.is_cut_invoke_close(name) {
                    Kind::InvokeEnd
                } else if *name == m.parameter {
                    Kind::ParameterEnd
                } else if m
                    .blocks
                    .iter()
                    .any(|b| b.close_is_end_tag && b.close == *name)
                {
                    Kind::BlockClose
                } else {
                    Kind::Other
                }
            }
            _ => Kind::Other,
        }
    }

    /// The `name` attribute of a tag, trimmed (`None` when it has none).
    fn name_attribute(tag: &Tag<'_>) -> Option<String> {
        attribute(tag.attributes, "name").map(|v| v.trim().to_owned())
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
            match literal_at(&bytes[at..], &self.probes, inp.is_final) {
                Literal::No => {
                    self.pos = abs + 1;
                    continue;
                }
                Literal::NeedMore => return self.hold_prose(inp, abs, out),
                Literal::Is(_) => {}
            }
            let Some((lexeme, n)) = self.lexer.next_raw(inp.w, at, inp.base, inp.is_final) else {
                return self.hold_prose(inp, abs, out);
            };
            match self.kind(&lexeme) {
                Kind::BlockOpen(block) => {
                    self.pos = abs + n;
                    return (
                        State::Opened {
                            at: abs,
                            end: abs + n,
                            block,
                        },
                        Flow::Again,
                    );
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

    fn new_call(&self, start: usize, tag_end: usize, block: usize) -> Box<Call> {
        Box::new(Call {
            core: CallCore::new(self.asm.next_index(), start, tag_end),
            block,
            args: Vec::new(),
            json: None,
        })
    }

    /// After the block's opener: `<invoke name=…>` begins the call.
    fn opened(
        &mut self,
        inp: Input<'_>,
        at: usize,
        end: usize,
        block: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let wait = (State::Opened { at, end, block }, Flow::Stop);
        let not_a_call = |this: &mut Self| {
            this.pos = end;
            this.lexer.reset();
            (State::Prose, Flow::Again)
        };
        // Blanks and separators, each looked at once.
        let tag_at = loop {
            let Some(next) = non_blank(inp, self.pos) else {
                self.pos = inp.end();
                return if inp.is_final { not_a_call(self) } else { wait };
            };
            self.pos = next;
            match literal_at(inp.from(next), self.markers.separators, inp.is_final) {
                Literal::Is(i) => self.pos += self.markers.separators[i].len(),
                Literal::NeedMore => return wait,
                Literal::No => break next,
            }
        };
        if inp.from(tag_at)[0] != b'<' {
            return not_a_call(self);
        }
        let Some((lexeme, n)) =
            self.lexer
                .next_raw(inp.w, tag_at - inp.base, inp.base, inp.is_final)
        else {
            return wait;
        };
        let Lexeme::StartTag(tag) = &lexeme else {
            // `<invoke name="f"` that never closes, `<invoke name=f>`: the call the block
            // opened is an error at the tag, never prose (docs/FORMAT.md §9.5 rule 1).
            if matches!(lexeme, Lexeme::LiteralLt)
                && self.begins_invoke_tag(inp.from(tag_at))
                && self.asm.may_begin_call(inp.w, inp.base, at, out)
            {
                return self.malformed_invoke(inp, at, tag_at, block, out);
            }
            return not_a_call(self);
        };
        if self.is_parameter_tag(&lexeme) && self.asm.may_begin_call(inp.w, inp.base, at, out) {
            return self.nameless_call(inp, at, tag_at, block, out);
        }
        if self.kind(&lexeme) != Kind::Invoke {
            return not_a_call(self);
        }
        let name = Self::name_attribute(tag);
        if name.as_deref().is_some_and(is_placeholder)
            || !self.asm.may_begin_call(inp.w, inp.base, at, out)
        {
            return not_a_call(self);
        }
        let call = self.new_call(at, tag_at + n, block);
        self.pos = tag_at + n;
        self.begin(inp, call, name, tag_at, tag.self_closing, out)
    }

    /// Whether `lexeme` is a parameter tag whose name is not a template placeholder.
    fn is_parameter_tag(&self, lexeme: &Lexeme<'_>) -> bool {
        match lexeme {
            Lexeme::StartTag(tag) if self.kind(lexeme) == Kind::Parameter => {
                !Self::name_attribute(tag)
                    .as_deref()
                    .is_some_and(is_placeholder)
            }
            _ => false,
        }
    }

    /// A parameter tag at `tag_at` in a block where an invoke was due (right after the block's
    /// opener, or after an invoke of the block): a call whose invoke tag was left out, from
    /// `start`; a `missing_tool_name` error at the parameter (docs/FORMAT.md §9.5 rule 1).
    fn nameless_call(
        &mut self,
        inp: Input<'_>,
        start: usize,
        tag_at: usize,
        block: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let msg = format!(
            "the call names no tool: <{} name=\"NAME\"> must come before its parameters",
            self.markers.invoke
        );
        let call = self.new_call(start, tag_at, block);
        self.failed_call(inp, call, ErrorKind::MissingToolName, msg, tag_at, out)
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

    /// An invoke tag that is not one (`<invoke name="f"` never closed, `<invoke name=f>`) at
    /// `tag_at`, where a call may begin: the call it began (from `start`) is an error there and
    /// is skipped to its end, never prose (docs/FORMAT.md §9.5 rule 1).
    fn malformed_invoke(
        &mut self,
        inp: Input<'_>,
        start: usize,
        tag_at: usize,
        block: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let msg = format!(
            "the <{0}> tag is not well formed: write <{0} name=\"NAME\">",
            self.markers.invoke
        );
        let call = self.new_call(start, tag_at + 1, block);
        self.failed_call(inp, call, ErrorKind::InvalidToolName, msg, tag_at, out)
    }

    /// Begins a call whose invoke tag (at `tag_at`) names `name`.
    /// Begins the call of the invoke tag at `tag_at` (read up to `self.pos`), named `name`; a
    /// self-closing tag (`<invoke name="f"/>`) is the whole call, without arguments.
    fn begin(
        &mut self,
        inp: Input<'_>,
        call: Box<Call>,
        name: Option<String>,
        tag_at: usize,
        self_closing: bool,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let (state, flow) = self.named(inp, call, name, tag_at, out);
        match state {
            State::Invoke { call } | State::Skip { call } if self_closing => {
                let (block, end) = (call.block, self.pos);
                self.end_call(inp, call, end, out);
                (
                    State::InBlock {
                        block,
                        scanned: end,
                    },
                    Flow::Again,
                )
            }
            state => (state, flow),
        }
    }

    /// [`begin`](Self::begin)'s call named, or failed for its name.
    fn named(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        name: Option<String>,
        tag_at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        self.asm.begin_call(inp.w, inp.base, &call.core, out);
        match name {
            Some(name) if is_valid_name(&name) => {
                self.asm
                    .set_tool_name(inp.w, inp.base, &mut call.core, &name, tag_at);
                self.asm.tool_name_known(&call.core, out);
                (State::Invoke { call }, Flow::Again)
            }
            Some(name) if !name.is_empty() => {
                let msg = format!(
                    "`{}` is not a valid tool name",
                    crate::error::snippet(&name)
                );
                self.asm.error(
                    inp.w,
                    inp.base,
                    &mut call.core,
                    ErrorKind::InvalidToolName,
                    msg,
                    tag_at,
                );
                (State::Skip { call }, Flow::Again)
            }
            _ => {
                let msg = format!(
                    "the <{}> tag has no name=\"…\" naming the tool",
                    self.markers.invoke
                );
                self.asm.error(
                    inp.w,
                    inp.base,
                    &mut call.core,
                    ErrorKind::MissingToolName,
                    msg,
                    tag_at,
                );
                (State::Skip { call }, Flow::Again)
            }
        }
    }

    // ----- inside an invoke -------------------------------------------------------------------

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
        let Some(abs) = non_blank(inp, self.pos) else {
            self.pos = inp.end();
            return (State::Invoke { call }, Flow::Stop);
        };
        self.pos = abs;
        if self.markers.json_body
            && inp.from(abs)[0] == b'{'
            && call.args.is_empty()
            && call.json.is_none()
        {
            let body = Box::new(JsonBody::at(abs));
            return (State::Json { call, body }, Flow::Again);
        }
        if inp.from(abs)[0] != b'<' {
            let msg = match call.json {
                Some(_) => format!(
                    "only </{}> may follow the invoke's JSON object",
                    self.markers.invoke
                ),
                None => format!(
                    "text is not allowed directly inside <{}>; only parameters are",
                    self.markers.invoke
                ),
            };
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
        let Some((lexeme, n)) = self.lexer.next_raw(inp.w, abs - inp.base, inp.base, false) else {
            return (State::Invoke { call }, Flow::Stop);
        };
        match (self.kind(&lexeme), &lexeme) {
            (Kind::Parameter, _) if call.json.is_some() => {
                let msg = format!(
                    "an invoke's arguments are one JSON object or <{}> elements, not both",
                    self.markers.parameter
                );
                let kind = ErrorKind::UnexpectedElement;
                self.asm
                    .error(inp.w, inp.base, &mut call.core, kind, msg, abs);
                (State::Skip { call }, Flow::Again)
            }
            (Kind::Parameter, Lexeme::StartTag(tag)) => {
                self.pos = abs + n;
                let string = self.string_attribute(tag);
                match Self::name_attribute(tag).filter(|n| !n.is_empty()) {
                    Some(name) => {
                        match self.open_parameter(inp, &mut call, name, string, (abs, abs + n), out)
                        {
                            Some(param) => (State::Value { call, param }, Flow::Again),
                            None => (State::Skip { call }, Flow::Again),
                        }
                    }
                    None => {
                        let msg = format!(
                            "the <{}> tag has no name=\"…\" naming the argument",
                            self.markers.parameter
                        );
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
            (Kind::InvokeEnd, _) => {
                self.repair_cut_close(inp, &mut call, abs..abs + n);
                self.pos = abs + n;
                let block = call.block;
                self.end_call(inp, call, abs + n, out);
                (
                    State::InBlock {
                        block,
                        scanned: self.pos,
                    },
                    Flow::Again,
                )
            }
            (Kind::BlockClose, _) => {
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
            (Kind::BlockOpen(_) | Kind::Invoke, _) => {
                let next_in_block = self.kind(&lexeme) == Kind::Invoke;
                self.interrupted(inp, call, abs, next_in_block, out)
            }
            _ => {
                let msg = format!(
                    "only <{} name=\"…\"> or </{}> may stand inside <{}>",
                    self.markers.parameter, self.markers.invoke, self.markers.invoke
                );
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

    /// The `string` attribute of a parameter tag, where the dialect reads one.
    fn string_attribute(&self, tag: &Tag<'_>) -> Option<bool> {
        if !self.markers.string_attribute {
            return None;
        }
        attribute(tag.attributes, "string").and_then(|v| match v.trim() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        })
    }

    /// A new call begins at `at` inside this one: this one is unterminated. The new one is read
    /// as the block's next call (`next_in_block`: an invoke) or from prose (a block opener).
    fn interrupted(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        at: usize,
        next_in_block: bool,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let partial = self.partial(&call);
        let message = format!(
            "a new call began before </{}> closed this one",
            self.markers.invoke
        );
        self.asm
            .unterminated(inp.w, inp.base, &mut call.core, &message, at, partial);
        let block = call.block;
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
        if next_in_block {
            (State::InBlock { block, scanned: at }, Flow::Again)
        } else {
            (State::Prose, Flow::Again)
        }
    }

    /// Begins the parameter `name` whose tag spans `at..end`; `None` after an error.
    fn open_parameter(
        &mut self,
        inp: Input<'_>,
        call: &mut Call,
        name: String,
        string: Option<bool>,
        (at, end): (usize, usize),
        out: &mut Vec<StreamEvent>,
    ) -> Option<Box<Param>> {
        // A declared string whose property the schema does not let be one is typed by the
        // schema: not announced as a string (docs/FORMAT.md §9.5 rule 6).
        let string = string.filter(|&s| !s || self.asm.declared_fits(&call.core, &name, "string"));
        let opened = self.asm.open_raw_argument(
            inp.w,
            inp.base,
            &mut call.core,
            name,
            "parameters",
            (at, end),
            string,
            out,
        )?;
        Some(Box::new(Param {
            value: RawValue::opened(opened, true),
            string,
        }))
    }

    /// Closes `param`: its value is complete. A name given again is dropped: the first value
    /// stands (docs/FORMAT.md §9).
    fn close_parameter(&mut self, call: &mut Call, param: Param, out: &mut Vec<StreamEvent>) {
        let Some(ClosedValue {
            name,
            mut text,
            shared,
        }) = param.value.close(&mut self.asm, &mut call.core, out)
        else {
            return;
        };
        // The declared value stands where the tool's schema lets it; elsewhere the schema types
        // the text, as in every raw-text dialect (docs/FORMAT.md §9.5 rule 6).
        let typed = match param.string {
            Some(true) => Some(Value::String(std::mem::take(&mut text))),
            Some(false) => arg_types::literal::parse_json(text.trim())
                .ok()
                .filter(|v| self.asm.declared_fits(&call.core, &name, v.type_name())),
            None => None,
        };
        if let (Some(false), Some(value), Some(shared)) = (param.string, &typed, &shared) {
            self.asm.argument_value(&call.core, shared, value, out);
        }
        let encoding = if matches!(param.string, Some(false)) && typed.is_some() {
            Encoding::Json
        } else {
            Encoding::Raw
        };
        let argument = call.core.keep_argument(name, text, encoding);
        call.args.push((argument, typed));
    }

    fn flush_delta(&mut self, out: &mut Vec<StreamEvent>) {
        if let State::Value { call, param } = &mut self.state {
            param
                .value
                .deliver(&mut self.asm, &mut call.core, false, out);
        }
    }

    /// The name of a parameter tag that really begins the next parameter inside a value: at the
    /// start of a line, named, a name not given yet and, when the tool's schema is known, one it
    /// has. Anything else is text of the value (docs/FORMAT.md §9.1 rule 3).
    fn next_parameter_tag(
        &self,
        call: &Call,
        param: &Param,
        at_line_start: bool,
        tag: &Tag<'_>,
    ) -> Option<String> {
        if !at_line_start {
            return None;
        }
        let name = Self::name_attribute(tag).filter(|n| !n.is_empty())?;
        if *param.value.name == *name || call.core.has_argument(&name) {
            return None;
        }
        self.asm
            .may_name_argument(&call.core, &name)
            .then_some(name)
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
        // The value's text read in this window is copied once (`Unflushed`), not run by run.
        let mut unflushed = Unflushed::at(self.pos);
        loop {
            if self.asm.call_too_long(&call.core, self.pos) {
                self.asm.fail_too_long(inp.w, inp.base, &mut call.core);
                return (State::Skip { call }, Flow::Again);
            }
            // The hot path: text up to the next `<` that can matter, in one piece.
            let at_line_start = unflushed.at_line_start(&param.value.text, inp, self.pos);
            let plain = param
                .value
                .plain_text(inp, self.pos, self.finders, true, at_line_start);
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
            if rel >= inp.w.len() {
                unflushed.flush(&mut param.value.text, inp, self.pos);
                return (State::Value { call, param }, Flow::Stop);
            }
            let Some((lexeme, n)) = self.lexer.next_raw(inp.w, rel, inp.base, false) else {
                unflushed.flush(&mut param.value.text, inp, self.pos);
                return (State::Value { call, param }, Flow::Stop);
            };
            let abs = self.pos;
            let closing = match (self.kind(&lexeme), &lexeme) {
                (Kind::ParameterEnd, _) => Some(Close::Parameter),
                (Kind::InvokeEnd, _) => Some(Close::Invoke),
                (Kind::BlockClose, _) => Some(Close::Block),
                (Kind::Parameter, Lexeme::StartTag(tag)) => {
                    if let Some(name) = self.next_parameter_tag(&call, &param, at_line_start, tag) {
                        unflushed.flush(&mut param.value.text, inp, abs);
                        let string = self.string_attribute(tag);
                        repair_unclosed_value(&mut self.asm, &mut call.core, inp, abs);
                        self.close_parameter(&mut call, *param, out);
                        self.pos = abs + n;
                        return match self.open_parameter(
                            inp,
                            &mut call,
                            name,
                            string,
                            (abs, abs + n),
                            out,
                        ) {
                            Some(param) => (State::Value { call, param }, Flow::Again),
                            None => (State::Skip { call }, Flow::Again),
                        };
                    }
                    None
                }
                _ => None,
            };
            if let Some(kind) = closing {
                unflushed.flush(&mut param.value.text, inp, abs);
                // At the start of a line, `</invoke>` and the block's close end the value at
                // once; anywhere else a close tag waits for what follows.
                let close = abs..abs + n;
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
    /// invoke's close, the block's close, a separator or a new call follows (after blanks); text
    /// otherwise.
    fn closing(&mut self, inp: Input<'_>, c: Closing, out: &mut Vec<StreamEvent>) -> (State, Flow) {
        let Closing {
            mut call,
            mut param,
            close,
            kind,
            scanned,
        } = c;
        let next = non_blank(inp, scanned);
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
        let structural = match next {
            None if inp.is_final => true,
            None => return wait(call, param, inp.end()),
            // Read as if more input followed (docs/FORMAT.md §7): a separator or tag cut by the
            // end of the input leaves the close tag standing.
            Some(at) => match literal_at(inp.from(at), self.markers.separators, false) {
                Literal::Is(_) => kind != Close::Block,
                Literal::NeedMore if inp.is_final => true,
                Literal::NeedMore => return wait(call, param, at),
                Literal::No if inp.from(at)[0] != b'<' => false,
                Literal::No => match peek_markup(&mut self.lexer, inp, at) {
                    Peek::End => true,
                    Peek::Wait => return wait(call, param, at),
                    Peek::Lexeme(lexeme) => matches!(
                        (self.kind(&lexeme), kind),
                        (Kind::BlockOpen(_) | Kind::Invoke, _)
                            | (Kind::Parameter | Kind::InvokeEnd, Close::Parameter)
                            | (Kind::BlockClose, Close::Parameter | Close::Invoke)
                    ),
                },
            },
        };
        self.lexer.reset();
        if structural {
            return self.close_structurally(inp, call, *param, close, kind, out);
        }
        // Text of the value after all: the close tag, as written.
        if !param
            .value
            .keep_close_tag(&mut self.asm, &mut call.core, inp, close.clone())
        {
            return (State::Skip { call }, Flow::Again);
        }
        self.pos = close.end;
        (State::Value { call, param }, Flow::Again)
    }

    /// Ends the value at a close tag that is structural: `</parameter>` returns to the invoke;
    /// `</invoke>` or the block's close also end the call, with the repairs they need.
    fn close_structurally(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        param: Param,
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
            Close::Parameter => (State::Invoke { call }, Flow::Again),
            Close::Invoke => {
                self.repair_cut_close(inp, &mut call, close.clone());
                let block = call.block;
                self.end_call(inp, call, close.end, out);
                (
                    State::InBlock {
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

    // ----- a JSON body -------------------------------------------------------------------------

    /// DSML: an invoke's body that is one JSON object holds the call's arguments
    /// ([`JsonBody`], docs/FORMAT.md §9.5 rule 5); then the invoke reads on as after its
    /// parameters, so only `</invoke>` (or the block's close) may follow. No deltas: the
    /// arguments come with the finished call.
    fn json(
        &mut self,
        inp: Input<'_>,
        mut call: Box<Call>,
        mut body: Box<JsonBody>,
    ) -> (State, Flow) {
        if body.end.is_none() {
            return match body.scan(&mut self.asm, inp, &mut call.core, &mut self.pos) {
                BodyScan::Ended => (State::Json { call, body }, Flow::Again),
                BodyScan::More => (State::Json { call, body }, Flow::Stop),
                BodyScan::Failed => (State::Skip { call }, Flow::Again),
            };
        }
        match body.read(&mut self.asm, inp, &mut call.core) {
            Some(map) => {
                call.json = Some(map);
                (State::Invoke { call }, Flow::Again)
            }
            None => (State::Skip { call }, Flow::Again),
        }
    }

    /// Records a `truncated_close_tag` repair when the invoke's close at `close` was written cut
    /// short ([`Markers::is_cut_invoke_close`]).
    fn repair_cut_close(&mut self, inp: Input<'_>, call: &mut Call, close: Range<usize>) {
        let whole = 3 + self.markers.invoke.len();
        if close.len() < whole {
            self.asm.repair(
                inp.w,
                inp.base,
                &mut call.core,
                RepairKind::TruncatedCloseTag,
                close.start,
            );
        }
    }

    // ----- after a call -----------------------------------------------------------------------

    fn end_call(
        &mut self,
        inp: Input<'_>,
        call: Box<Call>,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        let Call {
            core, args, json, ..
        } = *call;
        let arguments = match json {
            Some(map) => Arguments::Json(map),
            None => arguments(args),
        };
        self.asm
            .finish_call(inp.w, inp.base, core, arguments, end, out);
        self.asm.prose_start = end;
        self.lexer.reset();
    }

    fn in_block(
        &mut self,
        inp: Input<'_>,
        block: usize,
        scanned: usize,
        out: &mut Vec<StreamEvent>,
    ) -> (State, Flow) {
        let wait = |scanned| (State::InBlock { block, scanned }, Flow::Stop);
        let mut scanned = scanned;
        let at = loop {
            let Some(next) = non_blank(inp, scanned) else {
                if inp.is_final {
                    return (State::Prose, Flow::Again);
                }
                return wait(inp.end());
            };
            match literal_at(inp.from(next), self.markers.separators, inp.is_final) {
                Literal::Is(i) => {
                    // Separators are markup: they and the blanks before them are not prose.
                    scanned = next + self.markers.separators[i].len();
                    self.pos = scanned;
                    self.asm.prose_start = scanned;
                }
                Literal::NeedMore => return wait(next),
                Literal::No => break next,
            }
        };
        if inp.from(at)[0] != b'<' {
            return (State::Prose, Flow::Again);
        }
        let Some((lexeme, n)) = self
            .lexer
            .next_raw(inp.w, at - inp.base, inp.base, inp.is_final)
        else {
            return wait(at);
        };
        match (self.kind(&lexeme), &lexeme) {
            (Kind::BlockClose, _) => {
                self.pos = at + n;
                self.asm.prose_start = at + n;
                (State::Prose, Flow::Again)
            }
            (Kind::Invoke, Lexeme::StartTag(tag)) => {
                let name = Self::name_attribute(tag);
                if name.as_deref().is_some_and(is_placeholder)
                    || !self.asm.may_begin_call(inp.w, inp.base, at, out)
                {
                    self.lexer.reset();
                    return (State::Prose, Flow::Again);
                }
                // Another call in the same block; the blanks before it are the block's layout.
                self.asm.prose_start = at;
                let call = self.new_call(at, at + n, block);
                self.pos = at + n;
                self.begin(inp, call, name, at, tag.self_closing, out)
            }
            (_, Lexeme::LiteralLt)
                if self.begins_invoke_tag(inp.from(at))
                    && self.asm.may_begin_call(inp.w, inp.base, at, out) =>
            {
                self.asm.prose_start = at;
                self.malformed_invoke(inp, at, at, block, out)
            }
            // A later call of the block whose invoke tag was left out.
            _ if self.is_parameter_tag(&lexeme)
                && self.asm.may_begin_call(inp.w, inp.base, at, out) =>
            {
                self.asm.prose_start = at;
                self.nameless_call(inp, at, at, block, out)
            }
            _ => {
                self.lexer.reset();
                (State::Prose, Flow::Again)
            }
        }
    }

    /// After an error: the call ends at `</invoke>`, at the block's close, or where a new block
    /// begins.
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
            match self.kind(&lexeme) {
                Kind::InvokeEnd => {
                    let block = call.block;
                    self.end_call(inp, call, abs + n, out);
                    return (
                        State::InBlock {
                            block,
                            scanned: self.pos,
                        },
                        Flow::Again,
                    );
                }
                Kind::BlockClose => {
                    self.end_call(inp, call, abs + n, out);
                    return (State::Prose, Flow::Again);
                }
                Kind::BlockOpen(_) => {
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
            State::Invoke { call } | State::Json { call, .. } | State::Skip { call } => Some(call),
            State::Value { mut call, .. } | State::Closing(Closing { mut call, .. }) => {
                // The value is not complete: only the parameters before it are.
                call.core.delta.clear();
                Some(call)
            }
            State::Prose | State::Opened { .. } | State::InBlock { .. } => None,
        };
        if let Some(mut call) = call {
            let partial = self.partial(&call);
            let message = format!(
                "the input ended before </{}> closed the call",
                self.markers.invoke
            );
            self.asm
                .unterminated(inp.w, inp.base, &mut call.core, &message, end, partial);
            self.end_call(inp, call, end, out);
        }
        self.pos = end;
        self.asm.emit_prose(inp.w, inp.base, end, out);
    }

    /// The arguments a call had completed, typed, as JSON.
    fn partial(&self, call: &Call) -> Option<serde_json::Value> {
        Some(self.asm.partial_typed(&call.core, &call.args))
    }
}

/// A call's arguments for the assembler: typed by the schema, except those the dialect typed.
fn arguments(args: Vec<(RawArgument, Option<Value>)>) -> Arguments {
    if args.iter().all(|(_, v)| v.is_none()) {
        Arguments::Raw(args.into_iter().map(|(a, _)| a).collect())
    } else {
        Arguments::Typed(args)
    }
}
