//! [`ToolCall`]: one parsed call, with what was repaired and how each argument was written.

use arg_types::Map;
use serde::Serialize;
use std::ops::Range;
use xml_fallback::Position;

/// One tool call found in a model's text.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The server that routes the call (docs/FORMAT.md §1.2); `local` when the call names none.
    pub server_name: String,
    /// The tool to run.
    pub tool_name: String,
    /// The arguments, typed (by the tool's schema when one was given, else by inference).
    #[serde(serialize_with = "serialize_map")]
    pub arguments: Map,
    /// Every repair made to read this call; empty for well-formed input.
    pub repairs: Vec<Repair>,
    /// How each top-level argument was written, in argument order.
    pub encodings: Vec<ArgumentEncoding>,
    /// Whether the call used the legacy JSON form (a JSON object inside `<tool>`, FORMAT.md §1.3).
    pub legacy_json: bool,
    /// Byte range of the call, from `<tool>` to `</tool>` inclusive, in the whole input.
    pub span: Range<usize>,
    /// Whether the call stands inside a Markdown code fence: models show example calls in
    /// fences, so a host may ask before running it (docs/FORMAT.md §1.1). With
    /// `ParseOptions::ignore_fenced_calls` such calls are prose instead.
    pub fenced: bool,
}

impl ToolCall {
    /// A call made in code rather than parsed (to write with [`ToolCall::to_xml`], or to hand
    /// on): no repairs, no encodings, an empty span, not fenced. An empty server name is
    /// `local`, as when none is written.
    ///
    /// ```
    /// use toolcall_parser::{Map, ToolCall, Value};
    /// let mut args = Map::new();
    /// args.insert("path".into(), Value::String("a.rs".into()));
    /// let call = ToolCall::new("", "read_file", args);
    /// assert_eq!(call.server_name, "local");
    /// assert!(call.to_xml().unwrap().contains("<path>a.rs</path>"));
    /// ```
    pub fn new(
        server_name: impl Into<String>,
        tool_name: impl Into<String>,
        arguments: Map,
    ) -> Self {
        let mut server_name = server_name.into();
        if server_name.trim().is_empty() {
            server_name = crate::schema::DEFAULT_SERVER_NAME.to_owned();
        }
        ToolCall {
            server_name,
            tool_name: tool_name.into(),
            arguments,
            repairs: Vec::new(),
            encodings: Vec::new(),
            legacy_json: false,
            span: 0..0,
            fenced: false,
        }
    }

    /// The arguments decoded into `T` (a struct deriving `Deserialize`), as serde_json's
    /// `from_value` would: a missing optional field is `None`, an unknown field is ignored unless
    /// `T` denies them.
    ///
    /// ```
    /// #[derive(serde::Deserialize)]
    /// struct ReadFile { path: String, line_start: Option<u32> }
    /// let r = toolcall_parser::parse("<tool><tool_name>read_file</tool_name>\
    ///     <arguments><path>a.rs</path><line_start>10</line_start></arguments></tool>");
    /// let args: ReadFile = r.calls()[0].decode().unwrap();
    /// assert_eq!((args.path.as_str(), args.line_start), ("a.rs", Some(10)));
    /// ```
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, arg_types::de::Error> {
        arg_types::de::from_value(arg_types::Value::Object(self.arguments.clone()))
    }
}

fn serialize_map<S: serde::Serializer>(m: &Map, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(m.len()))?;
    for (k, v) in m {
        // `Value` writes itself: every digit of an integer beyond 2^64, no copy.
        map.serialize_entry(k, v)?;
    }
    map.end()
}

/// How many positions a [`Repair`] lists: those of its first occurrences.
pub const MAX_REPAIR_POSITIONS: usize = 8;

/// A repair: something malformed that was read in the one sensible way, and where. Repairs are
/// aggregated (docs/FORMAT.md §4): one entry per kind and top-level argument, in the order of
/// their first occurrence, with how many times it was made and where the first
/// [`MAX_REPAIR_POSITIONS`] were, so that a value of a million bare `&` costs one entry.
///
/// ```
/// let r = toolcall_parser::parse(
///     "<tool><tool_name>s</tool_name><arguments><q>a && b && c</q></arguments></tool>",
/// );
/// let repair = &r.calls()[0].repairs[0];
/// assert_eq!(repair.kind, toolcall_parser::RepairKind::BareAmpersand);
/// assert_eq!((repair.count, repair.argument.as_deref()), (4, Some("q")));
/// assert_eq!((repair.line, repair.column), (1, 47)); // the first
/// assert_eq!(repair.positions.len(), 4);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Repair {
    /// What was repaired.
    pub kind: RepairKind,
    /// Where it was first made, in the whole input.
    pub line: u32,
    /// Column of the first (in characters, from 1).
    pub column: u32,
    /// The top-level argument it was made in; `None` for a repair of the call itself.
    pub argument: Option<String>,
    /// How many times it was made (in this argument): at least 1.
    pub count: usize,
    /// Where the first `min(count, MAX_REPAIR_POSITIONS)` were made, in input order; the first
    /// is `line` and `column`. In JSON, objects with `line` and `column`.
    #[serde(serialize_with = "serialize_positions")]
    pub positions: Vec<Position>,
}

impl Repair {
    pub(crate) fn new(kind: RepairKind, at: Position, argument: Option<String>) -> Self {
        Repair {
            kind,
            line: at.line,
            column: at.column,
            argument,
            count: 1,
            positions: vec![at],
        }
    }

    /// Whether it lists all the positions it may.
    pub(crate) fn is_full(&self) -> bool {
        self.positions.len() >= MAX_REPAIR_POSITIONS
    }
}

fn serialize_positions<S: serde::Serializer>(ps: &[Position], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::{SerializeSeq, SerializeStruct};
    struct At(Position);
    impl Serialize for At {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("Position", 2)?;
            st.serialize_field("line", &self.0.line)?;
            st.serialize_field("column", &self.0.column)?;
            st.end()
        }
    }
    let mut seq = s.serialize_seq(Some(ps.len()))?;
    for &p in ps {
        seq.serialize_element(&At(p))?;
    }
    seq.end()
}

/// The repairs the parser makes (docs/FORMAT.md §4).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairKind {
    /// An `&` beginning no valid reference, taken literally (FORMAT.md §4).
    BareAmpersand,
    /// A `<` beginning no well-formed markup inside a value, taken literally (`a < b`).
    LiteralLessThan,
    /// A close tag inside a value followed by text, taken as text (`</content> and more`).
    CloseTagAsText,
    /// An element opened inside text and never closed, taken as text (`Vec<String>`).
    UnclosedTagAsText,
    /// A string-typed argument holding markup, kept verbatim as the string (needs a schema).
    MarkupAsString,
    /// A raw-text value that fits none of the types its schema allows, kept as a string
    /// (docs/FORMAT.md §9): one bad value never drops a call.
    ValueAsString,
    /// A parameter left open where the next one begins, or where its function ends, closed
    /// there (Qwen3-Coder family).
    UnclosedParameter,
    /// A call written without its opening wrapper (`<function=…>` with no `<tool_call>`), read
    /// as a call.
    MissingCallOpener,
    /// A call whose closing wrapper (`</function>` or `</tool_call>`) is missing before the next
    /// call or the end of its block, closed there.
    MissingCallCloser,
    /// An argument given twice: the first value stands, the later one was dropped.
    DuplicateArgument,
    /// A call's close tag written cut short (`</｜DSML｜inv>` for `</｜DSML｜invoke>`, as
    /// DeepSeek-V4's quantized models write it), read as the whole tag (docs/FORMAT.md §9.5).
    TruncatedCloseTag,
    /// A tool name the schemas do not list, written with a qualifier before a listed tool's name
    /// (`functions.exec_command` for `exec_command`, as models trained on namespaced tool lists
    /// write it), read as that tool (docs/FORMAT.md §9.8).
    QualifiedToolName,
}

impl RepairKind {
    /// The snake_case name used in JSON and statistics.
    pub fn as_str(self) -> &'static str {
        match self {
            RepairKind::BareAmpersand => "bare_ampersand",
            RepairKind::LiteralLessThan => "literal_less_than",
            RepairKind::CloseTagAsText => "close_tag_as_text",
            RepairKind::UnclosedTagAsText => "unclosed_tag_as_text",
            RepairKind::MarkupAsString => "markup_as_string",
            RepairKind::ValueAsString => "value_as_string",
            RepairKind::UnclosedParameter => "unclosed_parameter",
            RepairKind::MissingCallOpener => "missing_call_opener",
            RepairKind::MissingCallCloser => "missing_call_closer",
            RepairKind::DuplicateArgument => "duplicate_argument",
            RepairKind::TruncatedCloseTag => "truncated_close_tag",
            RepairKind::QualifiedToolName => "qualified_tool_name",
        }
    }
}

/// How one top-level argument was written, for monitoring a model's habits (FORMAT.md §3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ArgumentEncoding {
    /// The argument's name.
    pub argument: String,
    /// How its text was written.
    pub encoding: Encoding,
}

impl ArgumentEncoding {
    /// How the argument `argument` was written.
    ///
    /// ```
    /// use toolcall_parser::{ArgumentEncoding, Encoding};
    /// let e = ArgumentEncoding::new("path", Encoding::Json);
    /// assert_eq!((e.argument.as_str(), e.encoding), ("path", Encoding::Json));
    /// ```
    pub fn new(argument: impl Into<String>, encoding: Encoding) -> Self {
        ArgumentEncoding {
            argument: argument.into(),
            encoding,
        }
    }
}

/// How an argument's text was written.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// Plain text: no references, no CDATA.
    Plain,
    /// Text with entity or character references (the first choice of FORMAT.md §3).
    EntityEscaped,
    /// One or more CDATA sections (the fallback method).
    Cdata,
    /// Both references and CDATA in one argument (the prompt says never to mix them).
    Mixed,
    /// Child elements only (an object or array argument).
    Structured,
    /// The legacy JSON form, or a dialect that writes arguments as JSON (Hermes).
    Json,
    /// Raw text, written as it is, with no escaping (the Qwen3-Coder family).
    Raw,
}

impl Encoding {
    /// The snake_case name used in JSON and statistics.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Plain => "plain",
            Encoding::EntityEscaped => "entity_escaped",
            Encoding::Cdata => "cdata",
            Encoding::Mixed => "mixed",
            Encoding::Structured => "structured",
            Encoding::Json => "json",
            Encoding::Raw => "raw",
        }
    }
}
