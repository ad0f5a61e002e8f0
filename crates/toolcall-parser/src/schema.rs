//! Tool definitions: [`ToolDef`], read from a tools JSON, and [`ToolSchemas`], the definitions by
//! name, so that arguments can be typed by their schema. One reading of a tools JSON serves the
//! parser and the prompt (`toolcall-prompt` re-exports [`ToolDef`]).

use arg_types::json_schema::PreparedSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::fmt;
use xml_fallback::name_index::NameIndex;

/// The server name used when a tool definition names none (docs/FORMAT.md §1.2: `local`).
pub const DEFAULT_SERVER_NAME: &str = "local";

/// One tool: the name the model writes in `<tool_name>`, what it does, the JSON Schema of its
/// arguments, and the server its calls are routed to (`server_name`, docs/FORMAT.md §1.2).
///
/// As JSON it has the MCP `tools/list` shape, `{"name", "description", "inputSchema"}`; reading
/// also accepts `input_schema` or `parameters` for the schema, and `serverName` or
/// `server_name` for the server; other fields (`title`, `annotations`, `outputSchema`, …) are
/// ignored. A missing schema means a tool without arguments. [`ToolDef::from_tools_json`] reads
/// whole lists, in the OpenAI shape too.
///
/// More fields may come (`#[non_exhaustive]`): build one with [`ToolDef::new`] and
/// [`ToolDef::with_server_name`], or read it from JSON.
///
/// ```
/// use toolcall_parser::ToolDef;
/// let def: ToolDef = serde_json::from_value(serde_json::json!({
///     "name": "read_file",
///     "description": "Read a file",
///     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}
/// })).unwrap();
/// assert_eq!(def.server_name(), "local");
/// assert_eq!(def.with_server_name("files").server_name(), "files");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolDef {
    /// The name the model writes in `<tool_name>`.
    pub name: String,
    /// What the tool does, for the model.
    #[serde(default)]
    pub description: String,
    /// The JSON Schema of the arguments (an object schema).
    #[serde(
        rename = "inputSchema",
        alias = "input_schema",
        alias = "parameters",
        default = "empty_object_schema",
        deserialize_with = "arg_types::value::deserialize_json"
    )]
    pub input_schema: Json,
    /// The server that runs the tool; `None` means [`DEFAULT_SERVER_NAME`].
    #[serde(
        rename = "serverName",
        alias = "server_name",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_name: Option<String>,
}

fn empty_object_schema() -> Json {
    serde_json::json!({"type": "object"})
}

impl ToolDef {
    /// A tool on the default server.
    ///
    /// ```
    /// let t = toolcall_parser::ToolDef::new("ping", "Check the connection", serde_json::json!({}));
    /// assert_eq!((t.name.as_str(), t.server_name()), ("ping", "local"));
    /// ```
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Json,
    ) -> Self {
        ToolDef {
            name: name.into(),
            description: description.into(),
            input_schema,
            server_name: None,
        }
    }

    /// The same tool, routed to `server_name`.
    ///
    /// ```
    /// let t = toolcall_parser::ToolDef::new("ping", "", serde_json::json!({})).with_server_name("net");
    /// assert_eq!(t.server_name.as_deref(), Some("net"));
    /// ```
    pub fn with_server_name(mut self, server_name: impl Into<String>) -> Self {
        self.server_name = Some(server_name.into());
        self
    }

    /// The server that routes this tool's calls: its own, or `local` when it names none (or an
    /// empty one).
    ///
    /// ```
    /// let t = toolcall_parser::ToolDef::new("ping", "", serde_json::json!({}));
    /// assert_eq!(t.clone().with_server_name(" ").server_name(), "local");
    /// assert_eq!(t.with_server_name("net").server_name(), "net");
    /// ```
    pub fn server_name(&self) -> &str {
        match self.server_name.as_deref() {
            Some(s) if !s.trim().is_empty() => s,
            _ => DEFAULT_SERVER_NAME,
        }
    }

    /// Reads a tools JSON: an array of tool definitions, or an object holding one under
    /// `"tools"` (a whole MCP `tools/list` result). Each definition is either of the MCP shape,
    /// `{"name", "description", "inputSchema"}`, or of the OpenAI shape, `{"type": "function",
    /// "function": {"name", "description", "parameters"}}` (or the Responses API's flat
    /// `{"type": "function", "name", "parameters"}`); one list may mix them. A Responses-API
    /// namespace, `{"type": "namespace", "name": "NS", "tools": [...]}`, gives its tools, each
    /// named `NS__NAME` as servers name them to the model.
    ///
    /// Each tool needs a non-empty string `name`; its schema, when present, must be a JSON
    /// object. Two tools with the same name are an error: calls name their tool.
    ///
    /// ```
    /// use toolcall_parser::{SchemaError, ToolDef};
    /// let tools = serde_json::json!({"tools": [
    ///     {"name": "a", "inputSchema": {"type": "object"}},
    ///     {"type": "function", "function": {"name": "b", "description": "Second",
    ///         "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}},
    ///     {"name": "c", "serverName": "remote"}
    /// ]});
    /// let defs = ToolDef::from_tools_json(&tools).unwrap();
    /// assert_eq!(defs[1].name, "b");
    /// assert_eq!(defs[1].input_schema["properties"]["x"]["type"], "integer");
    /// assert_eq!(defs[2].server_name(), "remote");
    ///
    /// let namespaced = serde_json::json!([{"type": "namespace", "name": "mcp__computer", "tools": [
    ///     {"type": "function", "name": "get_app_state", "parameters": {"type": "object"}}]}]);
    /// assert_eq!(ToolDef::from_tools_json(&namespaced).unwrap()[0].name, "mcp__computer__get_app_state");
    ///
    /// let twice = serde_json::json!([{"name": "a"}, {"name": "a"}]);
    /// let err = ToolDef::from_tools_json(&twice).unwrap_err();
    /// assert!(matches!(err, SchemaError::DuplicateName { first: 0, second: 1, .. }));
    /// assert_eq!(err.to_string(), "tools 0 and 1 are both named \"a\"");
    /// ```
    ///
    /// # Errors
    ///
    /// A [`SchemaError`] naming the first tool (by position, and by name when it has one) that
    /// cannot be read, and why.
    pub fn from_tools_json(json: &Json) -> Result<Vec<ToolDef>, SchemaError> {
        let list = match json {
            Json::Array(a) => a,
            Json::Object(o) => match o.get("tools") {
                Some(Json::Array(a)) => a,
                Some(other) => {
                    return Err(SchemaError::NotAToolList {
                        found: format!("\"tools\" holding {}", json_type(other)),
                    });
                }
                None => {
                    return Err(SchemaError::NotAToolList {
                        found: "an object without \"tools\"".into(),
                    });
                }
            },
            other => {
                return Err(SchemaError::NotAToolList {
                    found: json_type(other).into(),
                });
            }
        };
        let mut defs = Vec::with_capacity(list.len());
        let mut seen: HashMap<String, usize> = HashMap::with_capacity(list.len());
        let mut push = |def: ToolDef, index: usize| match seen.insert(def.name.clone(), index) {
            Some(first) => Err(SchemaError::DuplicateName {
                name: def.name,
                first,
                second: index,
            }),
            None => {
                defs.push(def);
                Ok(())
            }
        };
        for (index, item) in list.iter().enumerate() {
            // A Responses-API namespace: its tools, each named `NAMESPACE__NAME`, as servers
            // name them to the model.
            if item.get("type").and_then(Json::as_str) == Some("namespace") {
                let namespace = item.get("name").and_then(Json::as_str).unwrap_or_default();
                let (Some(Json::Array(tools)), false) = (item.get("tools"), namespace.is_empty())
                else {
                    return Err(SchemaError::InvalidTool {
                        index,
                        name: Some(namespace.to_owned()).filter(|n| !n.is_empty()),
                        reason: "a namespace needs a \"name\" and a \"tools\" array".into(),
                    });
                };
                for tool in tools {
                    let mut def = read_tool(index, tool)?;
                    def.name = format!("{namespace}__{}", def.name);
                    push(def, index)?;
                }
                continue;
            }
            push(read_tool(index, item)?, index)?;
        }
        Ok(defs)
    }
}

/// One tool definition of a tools JSON, at position `index` of its list.
fn read_tool(index: usize, item: &Json) -> Result<ToolDef, SchemaError> {
    let tool = openai_function(item).unwrap_or(item);
    let invalid = |reason: String| SchemaError::InvalidTool {
        index,
        name: tool.get("name").and_then(Json::as_str).map(str::to_owned),
        reason,
    };
    if !tool.is_object() {
        let what = if std::ptr::eq(tool, item) {
            ""
        } else {
            "\"function\": "
        };
        return Err(invalid(format!(
            "{what}expected an object, found {}",
            json_type(tool)
        )));
    }
    let def = ToolDef::deserialize(tool).map_err(|e| invalid(e.to_string()))?;
    if def.name.trim().is_empty() {
        return Err(invalid("the name is empty".into()));
    }
    if !def.input_schema.is_object() {
        let key = ["inputSchema", "input_schema", "parameters"]
            .into_iter()
            .find(|k| tool.get(k).is_some())
            .unwrap_or("inputSchema");
        return Err(invalid(format!(
            "\"{key}\" must be a JSON Schema object, found {}",
            json_type(&def.input_schema)
        )));
    }
    Ok(def)
}

/// The `function` of an OpenAI tools entry (`{"type": "function", "function": {…}}`); `None`
/// for an entry of the MCP shape. An entry that says `"type": "function"` is OpenAI's whatever
/// else it holds; otherwise a `function` field is the definition only without a `name` beside
/// it (an MCP tool could have a field named `function`).
fn openai_function(item: &Json) -> Option<&Json> {
    let function = item.get("function")?;
    let typed = item.get("type").and_then(Json::as_str) == Some("function");
    ((typed && function.is_object()) || item.get("name").is_none()).then_some(function)
}

/// The JSON type of a value, for error messages.
fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// A tools JSON that cannot be read as tool definitions ([`ToolDef::from_tools_json`],
/// [`ToolSchemas::from_tools_json`]).
///
/// Every variant displays as one line that names the offending tool.
///
/// ```
/// use toolcall_parser::{SchemaError, ToolSchemas};
/// let err = ToolSchemas::from_tools_json(&serde_json::json!([{"description": "no name"}])).unwrap_err();
/// assert!(matches!(err, SchemaError::InvalidTool { index: 0, name: None, .. }));
/// assert_eq!(err.to_string(), "tool 0: missing field `name`");
/// let as_error: &dyn std::error::Error = &err;
/// assert!(as_error.source().is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    /// The JSON is neither an array of tools nor an object with a `"tools"` array.
    NotAToolList {
        /// What was found instead (`an object without "tools"`, `a string`, …).
        found: String,
    },
    /// One tool definition cannot be read.
    InvalidTool {
        /// Its position in the list, from 0.
        index: usize,
        /// Its name, when it has a string one.
        name: Option<String>,
        /// What is wrong with it.
        reason: String,
    },
    /// Two tools in one list have the same name; a call could not say which one it means.
    DuplicateName {
        /// The name.
        name: String,
        /// Position of the first tool with the name.
        first: usize,
        /// Position of the second.
        second: usize,
    },
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::NotAToolList { found } => write!(
                f,
                "expected an array of tool definitions or {{\"tools\": [...]}}, found {found}"
            ),
            SchemaError::InvalidTool {
                index,
                name: Some(name),
                reason,
            } => write!(f, "tool {index} ({name:?}): {reason}"),
            SchemaError::InvalidTool {
                index,
                name: None,
                reason,
            } => write!(f, "tool {index}: {reason}"),
            SchemaError::DuplicateName {
                name,
                first,
                second,
            } => write!(f, "tools {first} and {second} are both named {name:?}"),
        }
    }
}

impl std::error::Error for SchemaError {}

/// Tool definitions by name, for [`ParseOptions::schemas`](crate::ParseOptions::schemas): the
/// arguments of a call to a known tool are coerced by its input schema.
///
/// ```
/// let tools = serde_json::json!([{"name": "read_file", "description": "Read a file",
///     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]);
/// let s = toolcall_parser::ToolSchemas::from_tools_json(&tools).unwrap();
/// assert!(s.get("read_file").is_some());
/// assert_eq!(s.tool("read_file").map(|t| t.description.as_str()), Some("Read a file"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolSchemas {
    /// The tools, in the order they were first added.
    tools: Vec<Known>,
    /// Each tool's position in `tools`, by name: a parser asks at every argument of every call
    /// (whether its value streams as a string, whether a tag names it), and a tool list is
    /// most often a handful of names, compared faster than one is hashed.
    names: NameIndex,
}

/// One tool: its definition, and its input schema read once for the calls made to it.
#[derive(Debug, Clone)]
struct Known {
    def: ToolDef,
    prepared: PreparedSchema,
}

impl Known {
    fn new(def: ToolDef) -> Self {
        let prepared = PreparedSchema::new(def.input_schema.clone());
        Known { def, prepared }
    }
}

impl ToolSchemas {
    /// Reads a tools JSON, every shape [`ToolDef::from_tools_json`] reads, with its checks.
    ///
    /// ```
    /// let openai = serde_json::json!([{"type": "function", "function": {"name": "ping"}}]);
    /// let s = toolcall_parser::ToolSchemas::from_tools_json(&openai).unwrap();
    /// assert_eq!(s.get("ping"), Some(&serde_json::json!({"type": "object"})));
    /// ```
    ///
    /// # Errors
    ///
    /// The [`SchemaError`] of [`ToolDef::from_tools_json`].
    pub fn from_tools_json(json: &Json) -> Result<Self, SchemaError> {
        ToolDef::from_tools_json(json).map(Self::from_tools)
    }

    /// The schemas of `tools`; a later tool of the same name replaces an earlier one.
    ///
    /// ```
    /// use toolcall_parser::{ToolDef, ToolSchemas};
    /// let s = ToolSchemas::from_tools([
    ///     ToolDef::new("a", "", serde_json::json!({"type": "object"})),
    ///     ToolDef::new("a", "", serde_json::json!({"required": ["x"]})),
    /// ]);
    /// assert_eq!(s.get("a"), Some(&serde_json::json!({"required": ["x"]})));
    /// ```
    pub fn from_tools(tools: impl IntoIterator<Item = ToolDef>) -> Self {
        let mut schemas = ToolSchemas::default();
        for tool in tools {
            schemas.insert_tool(tool);
        }
        schemas
    }

    /// Adds or replaces one tool.
    ///
    /// ```
    /// let mut s = toolcall_parser::ToolSchemas::default();
    /// s.insert_tool(toolcall_parser::ToolDef::new("ping", "", serde_json::json!({})));
    /// assert!(s.tool("ping").is_some());
    /// ```
    pub fn insert_tool(&mut self, tool: ToolDef) {
        match self.position_or_insert(&tool.name) {
            Ok(i) => self.tools[i] = Known::new(tool),
            Err(_) => self.tools.push(Known::new(tool)),
        }
    }

    /// Adds or replaces one tool's input schema (a tool with no description, on the default
    /// server, when it is new).
    ///
    /// ```
    /// let mut s = toolcall_parser::ToolSchemas::default();
    /// s.insert("ping", serde_json::json!({"type": "object"}));
    /// assert_eq!(s.get("ping"), Some(&serde_json::json!({"type": "object"})));
    /// ```
    pub fn insert(&mut self, tool_name: impl Into<String>, input_schema: Json) {
        let name = tool_name.into();
        match self.position_or_insert(&name) {
            Ok(i) => {
                let known = &mut self.tools[i];
                known.prepared = PreparedSchema::new(input_schema.clone());
                known.def.input_schema = input_schema;
            }
            Err(_) => self
                .tools
                .push(Known::new(ToolDef::new(name, "", input_schema))),
        }
    }

    /// The position of tool `name` (`Ok`), or the position a new tool of that name is to be
    /// pushed at (`Err`).
    fn position_or_insert(&mut self, name: &str) -> Result<usize, usize> {
        let tools = &self.tools;
        self.names.get_or_insert(name, |i| &tools[i].def.name)
    }

    /// The tool named `tool_name`.
    fn known(&self, tool_name: &str) -> Option<&Known> {
        let i = self.names.get(tool_name, |i| &self.tools[i].def.name)?;
        Some(&self.tools[i])
    }

    /// The input schema of a tool.
    pub fn get(&self, tool_name: &str) -> Option<&Json> {
        self.known(tool_name).map(|t| &t.def.input_schema)
    }

    /// The whole definition of a tool.
    pub fn tool(&self, tool_name: &str) -> Option<&ToolDef> {
        self.known(tool_name).map(|t| &t.def)
    }

    /// The listed tool that `name` stands for when it is not listed as written but what follows
    /// one of its dots is: the longest such ending (`functions.collaboration.spawn_agent` is
    /// `spawn_agent` when only that is listed), as models trained on namespaced tool lists
    /// write them (docs/FORMAT.md §9.8). `None` when `name` is listed, or no ending is.
    ///
    /// ```
    /// let mut s = toolcall_parser::ToolSchemas::default();
    /// s.insert("exec_command", serde_json::json!({}));
    /// assert_eq!(s.unqualified("functions.exec_command"), Some("exec_command"));
    /// assert_eq!(s.unqualified("exec_command"), None);
    /// assert_eq!(s.unqualified("functions.other"), None);
    /// ```
    pub fn unqualified<'n>(&self, name: &'n str) -> Option<&'n str> {
        if self.known(name).is_some() {
            return None;
        }
        let dots = name.match_indices('.').map(|(i, _)| i);
        dots.map(|i| &name[i + 1..])
            .find(|rest| !rest.is_empty() && self.known(rest).is_some())
    }

    /// A tool's input schema as read once, when the tool was added, for the calls made to it
    /// (its properties looked up without resolving the root again: [`PreparedSchema`]).
    ///
    /// ```
    /// let mut s = toolcall_parser::ToolSchemas::default();
    /// s.insert("ping", serde_json::json!({"properties": {"host": {"type": "string"}}}));
    /// let p = s.prepared("ping").unwrap();
    /// assert_eq!(Some(p.root()), s.get("ping"));
    /// assert!(p.is_string("host"));
    /// ```
    pub fn prepared(&self, tool_name: &str) -> Option<&PreparedSchema> {
        self.known(tool_name).map(|t| &t.prepared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Lookups by name find every tool, below and past the count where the name index starts
    /// hashing, and a tool added again (by `insert` or `insert_tool`) replaces the first in
    /// place.
    #[test]
    fn tools_are_found_by_name_at_every_count() {
        for n in [1, NameIndex::FEW, NameIndex::FEW + 1, 40] {
            let mut s = ToolSchemas::default();
            for k in 0..n {
                s.insert(format!("t{k}"), json!({"title": k}));
            }
            for k in (0..n).step_by(3) {
                let replaced = json!({"title": k, "again": true});
                if k % 2 == 0 {
                    s.insert(format!("t{k}"), replaced);
                } else {
                    s.insert_tool(ToolDef::new(format!("t{k}"), "d", replaced));
                }
            }
            assert_eq!(s.tools.len(), n, "{n} tools");
            for k in 0..n {
                let name = format!("t{k}");
                let schema = s.get(&name).unwrap_or_else(|| panic!("{name} of {n}"));
                assert_eq!(schema["title"], json!(k));
                assert_eq!(schema.get("again").is_some(), k % 3 == 0, "{name}");
                assert_eq!(s.tool(&name).map(|t| t.name.as_str()), Some(name.as_str()));
                assert_eq!(s.prepared(&name).map(PreparedSchema::root), Some(schema));
            }
            assert!(s.get("absent").is_none() && s.prepared("t").is_none());
        }
    }

    /// A Responses-API namespace gives its tools as `NS__NAME`, typed by their schemas; one
    /// without a name or tools is an error at its position; a namespaced name may clash with a
    /// plain one like any two names.
    #[test]
    fn namespaces_give_their_tools_prefixed() {
        let tools = json!([
            {"name": "plain"},
            {"type": "namespace", "name": "mcp__cu", "tools": [
                {"type": "function", "name": "get_app_state",
                 "parameters": {"type": "object", "properties": {"app": {"type": "string"}}}},
                {"type": "function", "function": {"name": "click"}}]}
        ]);
        assert_eq!(
            names(tools.clone()),
            ["plain", "mcp__cu__get_app_state", "mcp__cu__click"]
        );
        let schemas = ToolSchemas::from_tools_json(&tools).unwrap();
        assert!(schemas.get("mcp__cu__get_app_state").is_some());
        for bad in [
            json!([{"type": "namespace", "name": "ns"}]),
            json!([{"type": "namespace", "tools": []}]),
        ] {
            let err = ToolDef::from_tools_json(&bad).unwrap_err();
            assert!(
                matches!(err, SchemaError::InvalidTool { index: 0, .. }),
                "{err}"
            );
        }
        let clash = json!([{"name": "ns__a"}, {"type": "namespace", "name": "ns", "tools": [{"name": "a"}]}]);
        assert!(matches!(
            ToolDef::from_tools_json(&clash).unwrap_err(),
            SchemaError::DuplicateName {
                first: 0,
                second: 1,
                ..
            }
        ));
    }

    /// An entry that says `"type": "function"` is read from its `function` object even with a
    /// `name` beside it (the Python package took it so before the rule lived here); without the
    /// type, a `name` beside `function` makes the entry MCP's, its `function` field a field.
    #[test]
    fn a_typed_function_entry_is_openai_even_with_a_name_beside() {
        let typed = json!([{"type": "function", "name": "outer",
            "function": {"name": "inner", "parameters": {"type": "object", "required": ["p"]}}}]);
        let defs = ToolDef::from_tools_json(&typed).unwrap();
        assert_eq!(defs[0].name, "inner");
        assert_eq!(defs[0].input_schema["required"], json!(["p"]));
        let untyped = json!([{"name": "outer", "function": {"name": "inner"}}]);
        assert_eq!(names(untyped), ["outer"]);
    }

    fn names(json: Json) -> Vec<String> {
        ToolDef::from_tools_json(&json)
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect()
    }

    #[test]
    fn reads_the_mcp_array_the_tools_object_and_the_openai_array() {
        let mcp = json!([
            {"name": "a", "description": "A", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
            {"name": "b", "parameters": {"type": "object", "required": ["y"]}, "server_name": "srv"},
            {"name": "c", "title": "C tool", "annotations": {"readOnlyHint": true}}
        ]);
        let defs = ToolDef::from_tools_json(&mcp).unwrap();
        assert_eq!(defs.len(), 3);
        assert_eq!(defs[0].description, "A");
        assert_eq!(defs[0].input_schema["properties"]["x"]["type"], "string");
        assert_eq!(defs[1].input_schema["required"], json!(["y"]));
        assert_eq!(defs[1].server_name(), "srv");
        assert_eq!(defs[2].input_schema, json!({"type": "object"}));
        assert_eq!(defs[2].server_name(), DEFAULT_SERVER_NAME);
        assert_eq!(defs[2].description, "");

        let wrapped = json!({"tools": mcp.clone(), "nextCursor": "x"});
        assert_eq!(ToolDef::from_tools_json(&wrapped).unwrap(), defs);

        let openai = json!([
            {"type": "function", "function": {"name": "a", "description": "A",
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}, "strict": true}},
            {"type": "function", "function": {"name": "b", "parameters": {"type": "object", "required": ["y"]}}}
        ]);
        let read = ToolDef::from_tools_json(&openai).unwrap();
        assert_eq!(read[0], defs[0]);
        assert_eq!(read[1].input_schema, defs[1].input_schema);
        assert_eq!(read[1].server_name(), DEFAULT_SERVER_NAME);
    }

    #[test]
    fn lists_may_mix_the_shapes() {
        let mixed = json!([
            {"name": "mcp", "inputSchema": {"type": "object"}},
            {"type": "function", "function": {"name": "openai", "parameters": {"type": "object"}}},
            {"function": {"name": "untyped"}},
            {"name": "bare_function", "parameters": {"type": "object"}}
        ]);
        assert_eq!(
            names(mixed.clone()),
            ["mcp", "openai", "untyped", "bare_function"]
        );
        assert_eq!(names(json!({"tools": mixed})).len(), 4);
        // Duplicates are found across the shapes.
        let twice = json!([{"name": "a"}, {"type": "function", "function": {"name": "a"}}]);
        assert_eq!(
            ToolDef::from_tools_json(&twice).unwrap_err(),
            SchemaError::DuplicateName {
                name: "a".into(),
                first: 0,
                second: 1
            }
        );
    }

    #[test]
    fn an_mcp_tool_with_a_function_field_stays_itself() {
        let defs = ToolDef::from_tools_json(&json!([{"name": "run", "function": "sum"}])).unwrap();
        assert_eq!(defs[0].name, "run");
    }

    #[test]
    fn bad_lists_are_one_line_errors_naming_the_tool() {
        let cases = [
            (json!("tools"), "found a string"),
            (json!({"result": []}), "an object without \"tools\""),
            (json!({"tools": {}}), "\"tools\" holding an object"),
            (json!([1]), "tool 0: expected an object, found a number"),
            (
                json!([{"type": "function", "function": 7}]),
                "tool 0: \"function\": expected an object, found a number",
            ),
            (json!([{"name": 3}]), "tool 0: invalid type"),
            (
                json!([{"name": "ok"}, {"name": " "}]),
                "tool 1 (\" \"): the name is empty",
            ),
            (
                json!([{"name": "x", "inputSchema": "object"}]),
                "tool 0 (\"x\"): \"inputSchema\" must be a JSON Schema object, found a string",
            ),
            (
                json!([{"type": "function", "function": {"name": "f", "parameters": []}}]),
                "tool 0 (\"f\"): \"parameters\" must be a JSON Schema object, found an array",
            ),
            (
                json!([{"name": "x"}, {"name": "y"}, {"name": "x"}]),
                "tools 0 and 2 are both named \"x\"",
            ),
        ];
        for (json, expected) in cases {
            let err = ToolDef::from_tools_json(&json).unwrap_err().to_string();
            assert!(err.contains(expected), "{err:?} lacks {expected:?}");
            assert!(!err.contains('\n'), "{err:?}");
            // One reading: the schemas refuse the same lists with the same error.
            assert_eq!(
                ToolSchemas::from_tools_json(&json).unwrap_err().to_string(),
                err
            );
        }
    }

    #[test]
    fn serializes_back_to_the_mcp_shape() {
        let def = ToolDef::new("a", "A", json!({"type": "object"}));
        assert_eq!(
            serde_json::to_value(&def).unwrap(),
            json!({"name": "a", "description": "A", "inputSchema": {"type": "object"}})
        );
        let routed = serde_json::to_value(def.with_server_name("s")).unwrap();
        assert_eq!(routed["serverName"], "s");
    }

    #[test]
    fn schemas_are_built_from_the_definitions() {
        let json = json!([
            {"name": "a", "description": "A", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
            {"type": "function", "function": {"name": "b", "description": "B"}}
        ]);
        let schemas = ToolSchemas::from_tools_json(&json).unwrap();
        let defs = ToolDef::from_tools_json(&json).unwrap();
        for def in &defs {
            assert_eq!(schemas.tool(&def.name), Some(def));
            assert_eq!(schemas.get(&def.name), Some(&def.input_schema));
        }
        assert!(schemas.get("c").is_none());
        let mut schemas = ToolSchemas::from_tools(defs);
        schemas.insert("a", json!({"required": ["n"]}));
        assert_eq!(schemas.tool("a").map(|t| t.description.as_str()), Some("A"));
        assert_eq!(schemas.get("a"), Some(&json!({"required": ["n"]})));
    }
}
