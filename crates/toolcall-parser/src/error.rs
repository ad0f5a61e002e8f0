//! [`ParseError`]: what went wrong with a call, where, and what to tell the model.

use crate::dialect::Dialect;
use serde::Serialize;
use std::fmt;
use xml_fallback::Position;

/// The kinds of errors (docs/FORMAT.md §7 lists when each occurs).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The input ended, or a new `<tool>` began, before `</tool>`.
    UnterminatedCall,
    /// A close tag that does not match the open element.
    MismatchedTag,
    /// The call has no `<tool_name>`, or it is empty.
    MissingToolName,
    /// An element the format does not allow where it stands (`<foo>` directly in `<tool>`).
    UnexpectedElement,
    /// Text where only elements may stand (directly in `<tool>` or `<arguments>`).
    UnexpectedText,
    /// An element repeated where only one is allowed (two `<tool_name>`s).
    DuplicateElement,
    /// `<!DOCTYPE`, an entity declaration or a processing instruction inside a call.
    ForbiddenMarkup,
    /// A numeric reference to a character XML forbids (`&#0;`).
    InvalidCharacterReference,
    /// The legacy JSON form holds invalid JSON, or JSON of the wrong shape.
    InvalidJson,
    /// An argument does not fit the tool's schema.
    InvalidArgument,
    /// A configured limit was exceeded.
    LimitExceeded,
    /// A tool or server name holds characters a name may not hold (docs/FORMAT.md §3.4).
    InvalidToolName,
}

impl ErrorKind {
    /// The snake_case name used in JSON and statistics.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::UnterminatedCall => "unterminated_call",
            ErrorKind::MismatchedTag => "mismatched_tag",
            ErrorKind::MissingToolName => "missing_tool_name",
            ErrorKind::UnexpectedElement => "unexpected_element",
            ErrorKind::UnexpectedText => "unexpected_text",
            ErrorKind::DuplicateElement => "duplicate_element",
            ErrorKind::ForbiddenMarkup => "forbidden_markup",
            ErrorKind::InvalidCharacterReference => "invalid_character_reference",
            ErrorKind::InvalidJson => "invalid_json",
            ErrorKind::InvalidArgument => "invalid_argument",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::InvalidToolName => "invalid_tool_name",
        }
    }
}

/// An error in one call (or, for limits, in the input as a whole).
///
/// ```
/// let r = toolcall_parser::parse("<tool><tool_name>x</tool_name><arguments><a>1</b></arguments></tool>");
/// let e = &r.errors()[0];
/// assert_eq!(e.kind, toolcall_parser::ErrorKind::MismatchedTag);
/// // At `</b>`, the first offending byte: `<a>` was never closed, and `</b>` stands where its
/// // close tag should.
/// assert_eq!((e.line, e.column), (1, 46));
/// assert!(e.feedback().contains("line 1, column 46"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ParseError {
    /// What kind of error.
    pub kind: ErrorKind,
    /// One sentence saying what is wrong.
    pub message: String,
    /// Line of the offending text in the whole input, from 1.
    pub line: u32,
    /// Column, in characters, from 1.
    pub column: u32,
    /// The offending text, cut to a few dozen characters.
    pub snippet: String,
    /// The tool name, when the call got far enough to name one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// What had been parsed when an unterminated call ended: its arguments so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<serde_json::Value>,
    /// The dialect being parsed: [`feedback`](ParseError::feedback) is written in its syntax.
    #[serde(skip)]
    pub dialect: Dialect,
    /// The offending bytes in the whole input: from the first offending byte (where `line` and
    /// `column` point) to the end of the quoted snippet.
    pub span: std::ops::Range<usize>,
    /// Which limit was exceeded, for [`ErrorKind::LimitExceeded`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<Limit>,
    /// The error behind this one (invalid JSON, an argument that does not fit its schema), as
    /// [`std::error::Error::source`] returns it.
    #[serde(skip)]
    pub cause: Option<Cause>,
}

/// The limits of [`crate::Limits`], named in a `limit_exceeded` error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Limit {
    /// `max_input_bytes`.
    MaxInputBytes,
    /// `max_calls`.
    MaxCalls,
    /// `max_depth`.
    MaxDepth,
    /// `max_call_bytes`.
    MaxCallBytes,
    /// `max_argument_bytes`.
    MaxArgumentBytes,
    /// `max_elements`.
    MaxElements,
    /// `max_input_elements`.
    MaxInputElements,
}

impl Limit {
    /// The limit's field name in [`crate::Limits`].
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::MaxInputBytes => "max_input_bytes",
            Limit::MaxCalls => "max_calls",
            Limit::MaxDepth => "max_depth",
            Limit::MaxCallBytes => "max_call_bytes",
            Limit::MaxArgumentBytes => "max_argument_bytes",
            Limit::MaxElements => "max_elements",
            Limit::MaxInputElements => "max_input_elements",
        }
    }
}

/// The cause of a [`ParseError`]: another error, shared. Two causes are equal when they read
/// the same.
#[derive(Clone)]
pub struct Cause(pub std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl Cause {
    /// Wraps an error as a cause.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Cause(std::sync::Arc::new(error))
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl ParseError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>, at: Position) -> Self {
        ParseError {
            kind,
            message: message.into(),
            line: at.line,
            column: at.column,
            snippet: String::new(),
            tool_name: None,
            partial: None,
            dialect: Dialect::Tool,
            span: 0..0,
            limit: None,
            cause: None,
        }
    }

    /// The same error at the bytes `span` of the whole input.
    pub(crate) fn with_span(mut self, span: std::ops::Range<usize>) -> Self {
        self.span = span;
        self
    }

    /// The same error, naming the limit it exceeded.
    pub(crate) fn with_limit(mut self, limit: Limit) -> Self {
        self.limit = Some(limit);
        self
    }

    /// The same error, reported for a call in `dialect` (its feedback uses that syntax).
    pub(crate) fn in_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    pub(crate) fn with_snippet(mut self, text: &str) -> Self {
        self.snippet = snippet(text);
        self
    }

    /// Where the error is.
    pub fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    /// The text to send back to the model so that it can correct the call: what and where,
    /// and how to fix it (FORMAT.md §3: entity escaping first, CDATA as the
    /// fallback, and `]]>` cannot stand inside CDATA).
    pub fn feedback(&self) -> String {
        let mut s = String::new();
        let what = match &self.tool_name {
            Some(t) => format!("Your call to `{t}` could not be read"),
            None => "Your tool call could not be read".to_string(),
        };
        s.push_str(&format!(
            "{what}: {} (at {}).\n",
            self.message,
            self.position()
        ));
        if !self.snippet.is_empty() {
            s.push_str(&format!("Near: {}\n", self.snippet));
        }
        s.push_str(self.fix());
        s
    }

    fn fix(&self) -> &'static str {
        match self.dialect {
            Dialect::Tool => self.tool_fix(),
            Dialect::Qwen3Coder | Dialect::SeedOss => self.qwen_fix(),
            Dialect::Hermes => self.hermes_fix(),
            Dialect::Glm => self.glm_fix(),
            Dialect::MinimaxM2 => self.invoke_fix(&MINIMAX_M2_ADVICE),
            Dialect::Anthropic => self.invoke_fix(&ANTHROPIC_ADVICE),
            Dialect::DeepseekDsml => self.invoke_fix(&DEEPSEEK_DSML_ADVICE),
            Dialect::Step3 => self.invoke_fix(&STEP3_ADVICE),
            Dialect::KimiK3 => self.kimi_fix(),
            Dialect::MinimaxM3 => self.minimax_m3_fix(),
            // `auto` reports each call in the dialect it chose; this is only a fallback.
            Dialect::Auto => self.tool_fix(),
        }
    }

    /// Advice in the GLM syntax.
    fn glm_fix(&self) -> &'static str {
        match self.kind {
            ErrorKind::UnterminatedCall => {
                "Fix: end every value with </arg_value> and the call with </tool_call>. Write \
                 each call in full before starting the next one."
            }
            ErrorKind::MissingToolName | ErrorKind::InvalidToolName => {
                "Fix: write the tool's name right after <tool_call>: <tool_call>NAME\n\
                 <arg_key>ARG</arg_key>\n<arg_value>value</arg_value>\n</tool_call>. A tool name \
                 holds only letters, digits, _, - and ."
            }
            ErrorKind::InvalidArgument | ErrorKind::LimitExceeded => self.qwen_fix(),
            _ => {
                "Fix: write each call as <tool_call>NAME\n<arg_key>ARG</arg_key>\n\
                 <arg_value>value</arg_value>\n</tool_call>: every <arg_key> followed by its \
                 <arg_value>, nothing else between them. Values are written as they are, without \
                 escaping; write non-string values as JSON."
            }
        }
    }

    /// Advice in the syntax of one of the invoke family.
    fn invoke_fix(&self, advice: &InvokeAdvice) -> &'static str {
        match self.kind {
            ErrorKind::UnterminatedCall => advice.unterminated,
            ErrorKind::MissingToolName | ErrorKind::InvalidToolName => advice.name,
            ErrorKind::InvalidArgument | ErrorKind::LimitExceeded => self.qwen_fix(),
            _ => advice.other,
        }
    }

    /// Advice in the Kimi-K3 syntax.
    fn kimi_fix(&self) -> &'static str {
        match self.kind {
            ErrorKind::UnterminatedCall => {
                "Fix: end every argument with <|close|>argument<|sep|> and the call with \
                 <|close|>call<|sep|>. Write each call in full before starting the next one."
            }
            ErrorKind::MissingToolName | ErrorKind::InvalidToolName => {
                "Fix: name the tool in the call marker: <|open|>call tool=\"NAME\" index=\"1\"\
                 <|sep|><|open|>argument key=\"ARG\" type=\"string\"<|sep|>value<|close|>argument\
                 <|sep|><|close|>call<|sep|>. A tool name holds only letters, digits, _, - and ."
            }
            ErrorKind::InvalidArgument | ErrorKind::LimitExceeded => self.qwen_fix(),
            _ => {
                "Fix: write each call as <|open|>call tool=\"NAME\" index=\"1\"<|sep|>\
                 <|open|>argument key=\"ARG\" type=\"string\"<|sep|>value<|close|>argument<|sep|>\
                 <|close|>call<|sep|>, with nothing but arguments inside the call. Values are \
                 written as they are, without escaping."
            }
        }
    }

    /// Advice in the MiniMax-M3 syntax (every tag after the `]<]minimax[>[` marker).
    fn minimax_m3_fix(&self) -> &'static str {
        match self.kind {
            ErrorKind::UnterminatedCall => {
                "Fix: close every argument with ]<]minimax[>[</NAME>, the call with \
                 ]<]minimax[>[</invoke> and the block with ]<]minimax[>[</tool_call>. Write each \
                 call in full before starting the next one."
            }
            ErrorKind::MissingToolName | ErrorKind::InvalidToolName => {
                "Fix: name the tool in the invoke tag: ]<]minimax[>[<invoke name=\"NAME\">. A tool \
                 name holds only letters, digits, _, - and ."
            }
            ErrorKind::MismatchedTag => {
                "Fix: close each element with the marker and a close tag of its own name, \
                 innermost first: ]<]minimax[>[<edit>]<]minimax[>[<line>3]<]minimax[>[</line>\
                 ]<]minimax[>[</edit>."
            }
            ErrorKind::InvalidArgument => {
                "Fix: give the argument the type the tool's schema asks for, then send the call \
                 again."
            }
            ErrorKind::LimitExceeded => {
                "Fix: make the call smaller (fewer, shorter or less deeply nested arguments), or \
                 split the work across several calls."
            }
            _ => {
                "Fix: write each call as ]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke \
                 name=\"NAME\">\n]<]minimax[>[<ARG>value]<]minimax[>[</ARG>\n]<]minimax[>[</invoke>\n\
                 ]<]minimax[>[</tool_call>, with only invokes inside the block and only arguments \
                 inside an invoke. Values are written as they are, without escaping."
            }
        }
    }

    /// Advice in the Qwen3-Coder syntax (Seed-OSS uses the same inside `<seed:tool_call>`).
    fn qwen_fix(&self) -> &'static str {
        match self.kind {
            ErrorKind::UnterminatedCall => {
                "Fix: end every parameter with </parameter> and the call with </function> then \
                 </tool_call>. Write each call in full before starting the next one."
            }
            ErrorKind::MissingToolName | ErrorKind::InvalidToolName => {
                "Fix: name the tool in the function tag: <tool_call>\n<function=NAME>\n\
                 <parameter=ARG>\nvalue\n</parameter>\n</function>\n</tool_call>. A tool name \
                 holds only letters, digits, _, - and ."
            }
            ErrorKind::InvalidArgument => {
                "Fix: give the parameter the type the tool's schema asks for, then send the call \
                 again."
            }
            ErrorKind::LimitExceeded => {
                "Fix: make the call smaller (fewer or shorter parameters), or split the work \
                 across several calls."
            }
            _ => {
                "Fix: write each call as <tool_call>\n<function=NAME>\n<parameter=ARG>\nvalue\n\
                 </parameter>\n</function>\n</tool_call>, with nothing but parameters inside \
                 <function=…>. Values are written as they are, without escaping."
            }
        }
    }

    /// Advice in the Hermes syntax.
    fn hermes_fix(&self) -> &'static str {
        match self.kind {
            ErrorKind::UnterminatedCall => {
                "Fix: end the call's JSON object and close it with </tool_call>. Write each call \
                 in full before starting the next one."
            }
            ErrorKind::MissingToolName | ErrorKind::InvalidToolName => {
                "Fix: give the tool's name as \"name\": <tool_call>\n{\"name\": \"NAME\", \
                 \"arguments\": {…}}\n</tool_call>. A tool name holds only letters, digits, _, - \
                 and ."
            }
            ErrorKind::InvalidArgument => {
                "Fix: give the argument the type the tool's schema asks for, then send the call \
                 again."
            }
            ErrorKind::LimitExceeded => {
                "Fix: make the call smaller (fewer or shorter arguments), or split the work \
                 across several calls."
            }
            _ => {
                "Fix: write each call as one JSON object inside <tool_call>…</tool_call>: \
                 {\"name\": \"NAME\", \"arguments\": {\"ARG\": value}}, with strings quoted \
                 and escaped as JSON requires."
            }
        }
    }

    /// Advice in the `<tool>` syntax.
    fn tool_fix(&self) -> &'static str {
        match self.kind {
            ErrorKind::UnterminatedCall => {
                "Fix: close every element you open and end the call with </tool>. \
                 Write each call in full before starting the next one."
            }
            ErrorKind::MismatchedTag => MISMATCH_ADVICE,
            ErrorKind::UnexpectedText | ErrorKind::InvalidCharacterReference => ESCAPING_ADVICE,
            ErrorKind::MissingToolName | ErrorKind::InvalidToolName => {
                "Fix: name the tool inside the call: \
                 <tool><tool_name>NAME</tool_name><arguments>…</arguments></tool>. A tool name \
                 holds only letters, digits, _, - and ."
            }
            ErrorKind::UnexpectedElement | ErrorKind::DuplicateElement => {
                "Fix: a call holds exactly one <tool_name>, at most one <server_name> and at most \
                 one <arguments>; every argument goes inside <arguments>."
            }
            ErrorKind::ForbiddenMarkup => {
                "Fix: DOCTYPE, entity declarations and processing instructions are not allowed \
                 in a call. If they are part of a value, escape them (&lt;!DOCTYPE …) or wrap the \
                 value in <![CDATA[ … ]]>."
            }
            ErrorKind::InvalidJson => {
                "Fix: write the call in the XML form instead of JSON: \
                 <tool><tool_name>NAME</tool_name><arguments><ARG>value</ARG></arguments></tool>."
            }
            ErrorKind::InvalidArgument => {
                "Fix: give the argument the type the tool's schema asks for, then send the call \
                 again."
            }
            ErrorKind::LimitExceeded => {
                "Fix: make the call smaller (fewer or shorter arguments), or split the work \
                 across several calls."
            }
        }
    }
}

/// Feedback in one invoke dialect's syntax.
struct InvokeAdvice {
    unterminated: &'static str,
    name: &'static str,
    other: &'static str,
}

/// The advice of an invoke dialect: its block's opener and close, its invoke and parameter
/// elements, the parameter's other attributes, and a last sentence.
macro_rules! invoke_advice {
    ($open:literal, $close:literal, $invoke:literal, $param:literal, $attrs:literal, $extra:literal) => {
        InvokeAdvice {
            unterminated: concat!(
                "Fix: end every parameter with </",
                $param,
                ">, the call with </",
                $invoke,
                "> and the block with ",
                $close,
                ". Write each call in full before starting the next one."
            ),
            name: concat!(
                "Fix: name the tool in the invoke tag: ",
                $open,
                "\n<",
                $invoke,
                " name=\"NAME\">\n<",
                $param,
                " name=\"ARG\"",
                $attrs,
                ">value</",
                $param,
                ">\n</",
                $invoke,
                ">\n",
                $close,
                ". A tool name holds only letters, digits, _, - and ."
            ),
            other: concat!(
                "Fix: write each call as ",
                $open,
                "\n<",
                $invoke,
                " name=\"NAME\">\n<",
                $param,
                " name=\"ARG\"",
                $attrs,
                ">value</",
                $param,
                ">\n</",
                $invoke,
                ">\n",
                $close,
                ", with nothing but parameters inside <",
                $invoke,
                ">. Values are written as they are, without escaping.",
                $extra
            ),
        }
    };
}

const MINIMAX_M2_ADVICE: InvokeAdvice = invoke_advice!(
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "invoke",
    "parameter",
    "",
    ""
);

const ANTHROPIC_ADVICE: InvokeAdvice = invoke_advice!(
    "<function_calls>",
    "</function_calls>",
    "invoke",
    "parameter",
    "",
    ""
);

const DEEPSEEK_DSML_ADVICE: InvokeAdvice = invoke_advice!(
    "<｜DSML｜function_calls>",
    "</｜DSML｜function_calls>",
    "｜DSML｜invoke",
    "｜DSML｜parameter",
    " string=\"true\"",
    " Write string=\"false\" on a parameter whose value is JSON (a number, a boolean, an \
     array, an object)."
);

const STEP3_ADVICE: InvokeAdvice = invoke_advice!(
    "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>",
    "<｜tool_call_end｜><｜tool_calls_end｜>",
    "steptml:invoke",
    "steptml:parameter",
    "",
    ""
);

/// A mismatched close tag is a typo in a name, an element left open, or a value whose `<` was
/// read as markup: all three fixes are named.
const MISMATCH_ADVICE: &str = "Fix: close every element with a close tag of its own name, \
innermost first (<edit><search>…</search></edit>).\n\
If the value itself contains < or &, escape it with XML entities: & as &amp;, < as &lt;, > as &gt;.\n\
For large code, wrap the value in <![CDATA[ … ]]> instead. CDATA cannot contain ]]>; split it as \
]]]]><![CDATA[> or use entity escaping. Never mix the two in one value.";

const ESCAPING_ADVICE: &str = "Fix, first choice: escape special characters in values with XML \
entities: & as &amp;, < as &lt;, > as &gt;.\n\
Fix, fallback for large code: wrap the value in <![CDATA[ … ]]> and write it unescaped. \
CDATA cannot contain ]]>; split it as ]]]]><![CDATA[> or use entity escaping. \
Never mix the two in one value.";

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {}: {}",
            self.kind.as_str(),
            self.position(),
            self.message
        )
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_ref()
            .map(|c| &*c.0 as &(dyn std::error::Error + 'static))
    }
}

/// How many characters of the offending text an error quotes.
pub(crate) const SNIPPET_CHARS: usize = 60;

/// The first characters of `text` on one line, for error messages.
pub(crate) fn snippet(text: &str) -> String {
    const MAX: usize = SNIPPET_CHARS;
    let mut out: String = text
        .chars()
        .take(MAX)
        .map(|c| if c == '\n' || c == '\r' { '⏎' } else { c })
        .collect();
    if text.chars().nth(MAX).is_some() {
        out.push('…');
    }
    out
}
