//! [`ParseOptions`] and [`Limits`]: what the caller can set.

use crate::dialect::Dialect;
use crate::reasoning::Reasoning;
use crate::schema::ToolSchemas;
use std::sync::Arc;

/// Limits that bound the work and memory of parsing any input. Defaults are generous for real
/// model output and still stop hostile input early.
///
/// Built from [`Limits::default()`] with one `with_` method per limit, and read with one getter
/// per limit; the fields are private, so that a limit can be added without breaking callers.
///
/// ```
/// use toolcall_parser::Limits;
/// let limits = Limits::default().with_max_calls(8).with_max_depth(16);
/// assert_eq!(limits.max_calls(), 8);
/// assert_eq!(limits.max_depth(), 16);
/// assert_eq!(limits.max_call_bytes(), Limits::default().max_call_bytes());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    pub(crate) max_input_bytes: usize,
    pub(crate) max_calls: usize,
    pub(crate) max_depth: usize,
    pub(crate) max_call_bytes: usize,
    pub(crate) max_argument_bytes: usize,
    pub(crate) max_elements: usize,
    pub(crate) max_input_elements: usize,
}

impl Default for Limits {
    /// The defaults: 64 MiB of input, 1,024 calls, depth 64, 32 MiB per call, 16 MiB per
    /// argument, 100,000 elements per call and 1,000,000 per input.
    ///
    /// ```
    /// let limits = toolcall_parser::Limits::default();
    /// assert_eq!(limits.max_input_bytes(), 64 << 20);
    /// assert_eq!(limits.max_calls(), 1024);
    /// assert_eq!(limits.max_depth(), 64);
    /// assert_eq!(limits.max_call_bytes(), 32 << 20);
    /// assert_eq!(limits.max_argument_bytes(), 16 << 20);
    /// assert_eq!(limits.max_elements(), 100_000);
    /// assert_eq!(limits.max_input_elements(), 1_000_000);
    /// ```
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

impl Limits {
    /// Total input bytes; the rest of a longer input is not read (one `limit_exceeded` error).
    /// Default 64 MiB.
    ///
    /// ```
    /// let limits = toolcall_parser::Limits::default().with_max_input_bytes(1 << 20);
    /// assert_eq!(limits.max_input_bytes(), 1 << 20);
    /// ```
    pub fn max_input_bytes(&self) -> usize {
        self.max_input_bytes
    }

    /// The same limits with [`max_input_bytes`](Self::max_input_bytes) set to `n`.
    pub fn with_max_input_bytes(mut self, n: usize) -> Self {
        self.max_input_bytes = n;
        self
    }

    /// Calls (well-formed or not) per input; later `<tool>` blocks are left as prose after one
    /// `limit_exceeded` error. Default 1,024.
    ///
    /// ```
    /// let limits = toolcall_parser::Limits::default().with_max_calls(2);
    /// assert_eq!(limits.max_calls(), 2);
    /// ```
    pub fn max_calls(&self) -> usize {
        self.max_calls
    }

    /// The same limits with [`max_calls`](Self::max_calls) set to `n`.
    pub fn with_max_calls(mut self, n: usize) -> Self {
        self.max_calls = n;
        self
    }

    /// Element nesting depth inside a call, `<tool>` counting as 1. Default 64.
    ///
    /// ```
    /// let limits = toolcall_parser::Limits::default().with_max_depth(8);
    /// assert_eq!(limits.max_depth(), 8);
    /// ```
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The same limits with [`max_depth`](Self::max_depth) set to `n`.
    pub fn with_max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// Bytes of one call, from `<tool>` to `</tool>`. Default 32 MiB.
    ///
    /// ```
    /// let limits = toolcall_parser::Limits::default().with_max_call_bytes(4096);
    /// assert_eq!(limits.max_call_bytes(), 4096);
    /// ```
    pub fn max_call_bytes(&self) -> usize {
        self.max_call_bytes
    }

    /// The same limits with [`max_call_bytes`](Self::max_call_bytes) set to `n`.
    pub fn with_max_call_bytes(mut self, n: usize) -> Self {
        self.max_call_bytes = n;
        self
    }

    /// Decoded bytes of one argument. Default 16 MiB.
    ///
    /// ```
    /// let limits = toolcall_parser::Limits::default().with_max_argument_bytes(1024);
    /// assert_eq!(limits.max_argument_bytes(), 1024);
    /// ```
    pub fn max_argument_bytes(&self) -> usize {
        self.max_argument_bytes
    }

    /// The same limits with [`max_argument_bytes`](Self::max_argument_bytes) set to `n`.
    pub fn with_max_argument_bytes(mut self, n: usize) -> Self {
        self.max_argument_bytes = n;
        self
    }

    /// Elements, attributes and CDATA sections in one call, `<tool>` not counted (a section
    /// right after another is part of it; in the legacy JSON form: objects, arrays and values).
    /// Default 100,000. It bounds memory where bytes cannot: `<b/>` is 4 bytes of input and
    /// about 220 bytes of parsed tree and value at the peak, the worst ratio any input reaches
    /// (docs/FORMAT.md §7: at most 64 times the input).
    ///
    /// ```
    /// let limits = toolcall_parser::Limits::default().with_max_elements(500);
    /// assert_eq!(limits.max_elements(), 500);
    /// ```
    pub fn max_elements(&self) -> usize {
        self.max_elements
    }

    /// The same limits with [`max_elements`](Self::max_elements) set to `n`.
    pub fn with_max_elements(mut self, n: usize) -> Self {
        self.max_elements = n;
        self
    }

    /// Elements, attributes and CDATA sections of all the calls of one input together (counted
    /// as [`max_elements`](Self::max_elements) counts them). The call in which they run out is
    /// a `limit_exceeded` error at the element one too many, and later `<tool>` blocks are left
    /// as prose after one `limit_exceeded` error. Default 1,000,000: it bounds the memory the
    /// calls of one input hold together, which `max_elements` alone bounds only per call
    /// (docs/FORMAT.md §7).
    ///
    /// ```
    /// let limits = toolcall_parser::Limits::default().with_max_input_elements(5000);
    /// assert_eq!(limits.max_input_elements(), 5000);
    /// ```
    pub fn max_input_elements(&self) -> usize {
        self.max_input_elements
    }

    /// The same limits with [`max_input_elements`](Self::max_input_elements) set to `n`.
    pub fn with_max_input_elements(mut self, n: usize) -> Self {
        self.max_input_elements = n;
        self
    }
}

/// Options for [`crate::parse_with`] and [`crate::StreamParser`].
///
/// Built from [`ParseOptions::new()`] (or `default()`) with the `with_` methods, and read with
/// one getter per option; the fields are private, so that an option can be added without
/// breaking callers.
///
/// ```
/// use toolcall_parser::{Dialect, Limits, ParseOptions, parse_with};
/// let opts = ParseOptions::new()
///     .with_ignore_fenced_calls(true)
///     .with_limits(Limits::default().with_max_calls(4));
/// assert_eq!(opts.dialect(), Dialect::Tool);
/// assert!(opts.ignore_fenced_calls());
/// assert_eq!(opts.limits().max_calls(), 4);
/// assert!(opts.schemas().is_none() && opts.reasoning().is_none());
/// let r = parse_with("```\n<tool><tool_name>x</tool_name></tool>\n```", &opts);
/// assert!(r.calls().is_empty());
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ParseOptions {
    pub(crate) limits: Limits,
    pub(crate) ignore_fenced_calls: bool,
    pub(crate) schemas: Option<Arc<ToolSchemas>>,
    pub(crate) dialect: Dialect,
    pub(crate) reasoning: Option<Reasoning>,
}

impl ParseOptions {
    /// Default options: the `<tool>` dialect, default limits, no schemas, calls in fences read,
    /// no reasoning channel.
    ///
    /// ```
    /// use toolcall_parser::{Dialect, Limits, ParseOptions};
    /// let opts = ParseOptions::new();
    /// assert_eq!(opts.dialect(), Dialect::Tool);
    /// assert_eq!(opts.limits(), &Limits::default());
    /// assert!(!opts.ignore_fenced_calls());
    /// ```
    pub fn new() -> Self {
        ParseOptions::default()
    }

    /// The same options, reading `dialect`.
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

    /// The tool-call format to read; [`Dialect::Tool`] by default.
    ///
    /// ```
    /// use toolcall_parser::{Dialect, ParseOptions};
    /// assert_eq!(ParseOptions::new().with_dialect(Dialect::Hermes).dialect(), Dialect::Hermes);
    /// ```
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The same options with these limits.
    ///
    /// ```
    /// use toolcall_parser::{Limits, ParseOptions, parse_with};
    /// let opts = ParseOptions::new().with_limits(Limits::default().with_max_calls(1));
    /// let r = parse_with("<tool><tool_name>a</tool_name></tool><tool><tool_name>b</tool_name></tool>", &opts);
    /// assert_eq!(r.calls().len(), 1);
    /// ```
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Limits on input size, calls, depth and argument size.
    ///
    /// ```
    /// use toolcall_parser::{Limits, ParseOptions};
    /// assert_eq!(ParseOptions::new().limits(), &Limits::default());
    /// ```
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The same options with reasoning split off the answer as [`Reasoning`] says.
    ///
    /// ```
    /// use toolcall_parser::{Dialect, ParseOptions, Reasoning};
    /// let opts = ParseOptions::new().with_reasoning(Reasoning::for_dialect(Dialect::Tool));
    /// assert!(opts.reasoning().is_some());
    /// ```
    pub fn with_reasoning(mut self, reasoning: Reasoning) -> Self {
        self.reasoning = Some(reasoning);
        self
    }

    /// How to split reasoning off the answer; `None` (the default): no reasoning channel, a
    /// think block is prose.
    ///
    /// ```
    /// assert!(toolcall_parser::ParseOptions::new().reasoning().is_none());
    /// ```
    pub fn reasoning(&self) -> Option<&Reasoning> {
        self.reasoning.as_ref()
    }

    /// The same options with calls in Markdown fences left as prose, or not.
    ///
    /// ```
    /// use toolcall_parser::{ParseOptions, parse_with};
    /// let fenced = "```\n<tool><tool_name>x</tool_name></tool>\n```";
    /// assert_eq!(parse_with(fenced, &ParseOptions::new()).calls().len(), 1);
    /// let opts = ParseOptions::new().with_ignore_fenced_calls(true);
    /// assert!(parse_with(fenced, &opts).calls().is_empty());
    /// ```
    pub fn with_ignore_fenced_calls(mut self, on: bool) -> Self {
        self.ignore_fenced_calls = on;
        self
    }

    /// Whether calls inside Markdown code fences are left as prose (models show example calls
    /// in fences); `false` by default.
    ///
    /// ```
    /// use toolcall_parser::ParseOptions;
    /// assert!(ParseOptions::new().with_ignore_fenced_calls(true).ignore_fenced_calls());
    /// ```
    pub fn ignore_fenced_calls(&self) -> bool {
        self.ignore_fenced_calls
    }

    /// The same options with the tools' schemas: arguments of a known tool are typed by them.
    ///
    /// ```
    /// use toolcall_parser::{ParseOptions, ToolSchemas, Value, parse_with};
    /// let mut schemas = ToolSchemas::default();
    /// schemas.insert("f", serde_json::json!({"properties": {"n": {"type": "string"}}}));
    /// let opts = ParseOptions::new().with_schemas(schemas);
    /// let r = parse_with("<tool><tool_name>f</tool_name><arguments><n>007</n></arguments></tool>", &opts);
    /// assert_eq!(r.calls()[0].arguments["n"], Value::from("007"));
    /// ```
    pub fn with_schemas(mut self, schemas: impl Into<Arc<ToolSchemas>>) -> Self {
        self.schemas = Some(schemas.into());
        self
    }

    /// Tool schemas: arguments of a known tool are coerced by its `inputSchema`; `None` by
    /// default (arguments typed blind).
    ///
    /// ```
    /// use toolcall_parser::{ParseOptions, ToolSchemas};
    /// assert!(ParseOptions::new().schemas().is_none());
    /// assert!(ParseOptions::new().with_schemas(ToolSchemas::default()).schemas().is_some());
    /// ```
    pub fn schemas(&self) -> Option<&Arc<ToolSchemas>> {
        self.schemas.as_ref()
    }
}
