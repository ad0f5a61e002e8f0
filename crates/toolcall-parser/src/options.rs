//! [`ParseOptions`] and [`Limits`]: what the caller can set.

use crate::dialect::Dialect;
use crate::reasoning::Reasoning;
use crate::schema::ToolSchemas;
use std::sync::Arc;

/// Limits that bound the work and memory of parsing any input. Defaults are generous for real
/// model output and still stop hostile input early.
///
/// ```
/// let limits = toolcall_parser::Limits { max_calls: 8, ..Default::default() };
/// assert_eq!(limits.max_depth, 64);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Total input bytes; the rest of a longer input is not read (one `limit_exceeded` error).
    /// Default 64 MiB.
    pub max_input_bytes: usize,
    /// Calls (well-formed or not) per input; later `<tool>` blocks are left as prose after one
    /// `limit_exceeded` error. Default 1,024.
    pub max_calls: usize,
    /// Element nesting depth inside a call, `<tool>` counting as 1. Default 64.
    pub max_depth: usize,
    /// Bytes of one call, from `<tool>` to `</tool>`. Default 32 MiB.
    pub max_call_bytes: usize,
    /// Decoded bytes of one argument. Default 16 MiB.
    pub max_argument_bytes: usize,
    /// Elements, attributes and CDATA sections in one call, `<tool>` not counted (a section
    /// right after another is part of it; in the legacy JSON form: objects, arrays and values).
    /// Default 100,000. It bounds memory where bytes cannot: `<b/>` is 4 bytes of input and
    /// about 220 bytes of parsed tree and value at the peak, the worst ratio any input reaches
    /// (docs/FORMAT.md §7: at most 64 times the input).
    pub max_elements: usize,
    /// Elements, attributes and CDATA sections of all the calls of one input together (counted
    /// as `max_elements` counts them). The call in which they run out is a `limit_exceeded`
    /// error at the element one too many, and later `<tool>` blocks are left as prose after one
    /// `limit_exceeded` error. Default 1,000,000: it bounds the memory the calls of one input
    /// hold together, which `max_elements` alone bounds only per call (docs/FORMAT.md §7).
    pub max_input_elements: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: 64 << 20,
            max_calls: 1024,
            max_depth: 64,
            max_call_bytes: 32 << 20,
            max_argument_bytes: 16 << 20,
            max_elements: 100_000,
            max_input_elements: 1_000_000,
        }
    }
}

/// Options for [`crate::parse_with`] and [`crate::StreamParser`].
///
/// ```
/// use toolcall_parser::{ParseOptions, parse_with};
/// let opts = ParseOptions { ignore_fenced_calls: true, ..Default::default() };
/// let r = parse_with("```\n<tool><tool_name>x</tool_name></tool>\n```", &opts);
/// assert!(r.calls().is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// Limits on input size, calls, depth and argument size.
    pub limits: Limits,
    /// Leave calls inside Markdown code fences as prose (models show example calls in fences).
    pub ignore_fenced_calls: bool,
    /// Tool schemas: arguments of a known tool are coerced by its `inputSchema`.
    pub schemas: Option<Arc<ToolSchemas>>,
    /// The tool-call format to read; [`Dialect::Tool`] by default.
    pub dialect: Dialect,
    /// How to split reasoning off the answer; `None` (the default): no reasoning channel, a
    /// think block is prose.
    pub reasoning: Option<Reasoning>,
}

impl ParseOptions {
    /// Options for reading `dialect`, with default limits.
    ///
    /// ```
    /// use toolcall_parser::{Dialect, ParseOptions, parse_with};
    /// let opts = ParseOptions::new().with_dialect(Dialect::Qwen3Coder);
    /// let r = parse_with("<tool_call>\n<function=ls>\n</function>\n</tool_call>", &opts);
    /// assert_eq!(r.calls()[0].tool_name, "ls");
    /// ```
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// Default options: the `<tool>` dialect, default limits, no schemas.
    pub fn new() -> Self {
        ParseOptions::default()
    }

    /// The same options with these limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The same options with reasoning split off the answer as [`Reasoning`] says.
    pub fn with_reasoning(mut self, reasoning: Reasoning) -> Self {
        self.reasoning = Some(reasoning);
        self
    }

    /// The same options with calls in Markdown fences left as prose, or not.
    pub fn with_ignore_fenced_calls(mut self, on: bool) -> Self {
        self.ignore_fenced_calls = on;
        self
    }

    /// The same options with the tools' schemas: arguments of a known tool are typed by them.
    pub fn with_schemas(mut self, schemas: impl Into<Arc<ToolSchemas>>) -> Self {
        self.schemas = Some(schemas.into());
        self
    }
}
