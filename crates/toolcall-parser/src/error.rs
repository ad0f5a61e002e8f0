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
/// assert_eq!((e.line, e.column), (1, 50)); // at </arguments>: <a> was never closed
/// assert!(e.feedback().contains("line 1, column 50"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// and how to fix it (ADR-0024's error recovery: entity escaping first, CDATA as the
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
            Dialect::MinimaxM3 => self.minimax_m3_fix(),
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
