//! [`ToolDef`]: one tool as an MCP server lists it, plus the server that routes its calls.

use crate::DEFAULT_SERVER_NAME;
use crate::error::PromptError;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::collections::HashMap;
use toolcall_parser::ToolSchemas;

/// A tool definition in the MCP `tools/list` shape (`name`, `description`, `inputSchema`), with
/// the server its calls are routed to (ADR-0002's `server_name`).
///
/// Reading JSON also accepts `input_schema` or `parameters` for the schema, and `serverName` or
/// `server_name` for the server; other fields (`title`, `annotations`, `outputSchema`, …) are
/// ignored. A missing `inputSchema` means a tool without arguments.
///
/// ```
/// use toolcall_prompt::ToolDef;
/// let def: ToolDef = serde_json::from_value(serde_json::json!({
///     "name": "read_file",
///     "description": "Read a file",
///     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}
/// })).unwrap();
/// assert_eq!(def.server_name(), "local");
/// assert_eq!(def.with_server_name("files").server_name(), "files");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
        default = "empty_object_schema"
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
    /// let t = toolcall_prompt::ToolDef::new("ping", "Check the connection", serde_json::json!({}));
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
    pub fn with_server_name(mut self, server_name: impl Into<String>) -> Self {
        self.server_name = Some(server_name.into());
        self
    }

    /// The server that routes this tool's calls: its own, or `local` when it names none (or an
    /// empty one).
    pub fn server_name(&self) -> &str {
        match self.server_name.as_deref() {
            Some(s) if !s.trim().is_empty() => s,
            _ => DEFAULT_SERVER_NAME,
        }
    }

    /// Reads an array of tool definitions, or an object holding one under `"tools"` (a whole
    /// `tools/list` result).
    ///
    /// Each tool needs a non-empty string `name`; `inputSchema`, when present, must be a JSON
    /// object. Two tools with the same name are an error: the parser looks schemas up by name.
    ///
    /// ```
    /// use toolcall_prompt::{PromptError, ToolDef};
    /// let tools = serde_json::json!({"tools": [
    ///     {"name": "a", "inputSchema": {"type": "object"}},
    ///     {"name": "b", "description": "Second", "serverName": "remote"}
    /// ]});
    /// let defs = ToolDef::from_tools_json(&tools).unwrap();
    /// assert_eq!(defs[1].server_name(), "remote");
    ///
    /// let twice = serde_json::json!([{"name": "a"}, {"name": "a"}]);
    /// assert!(matches!(ToolDef::from_tools_json(&twice), Err(PromptError::DuplicateName { .. })));
    /// ```
    pub fn from_tools_json(json: &Json) -> Result<Vec<ToolDef>, PromptError> {
        let list = match json {
            Json::Array(a) => a,
            Json::Object(o) => match o.get("tools") {
                Some(Json::Array(a)) => a,
                Some(other) => {
                    return Err(PromptError::NotAToolList {
                        found: format!("\"tools\" holding {}", json_type(other)),
                    });
                }
                None => {
                    return Err(PromptError::NotAToolList {
                        found: "an object without \"tools\"".into(),
                    });
                }
            },
            other => {
                return Err(PromptError::NotAToolList {
                    found: json_type(other).into(),
                });
            }
        };
        let mut defs = Vec::with_capacity(list.len());
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (index, tool) in list.iter().enumerate() {
            let invalid = |reason: String| PromptError::InvalidTool {
                index,
                name: tool.get("name").and_then(Json::as_str).map(str::to_owned),
                reason,
            };
            if !tool.is_object() {
                return Err(invalid(format!(
                    "expected an object, found {}",
                    json_type(tool)
                )));
            }
            let def = ToolDef::deserialize(tool).map_err(|e| invalid(e.to_string()))?;
            if def.name.trim().is_empty() {
                return Err(invalid("the name is empty".into()));
            }
            if !def.input_schema.is_object() {
                return Err(invalid(format!(
                    "\"inputSchema\" must be a JSON Schema object, found {}",
                    json_type(&def.input_schema)
                )));
            }
            let name = tool.get("name").and_then(Json::as_str).unwrap_or_default();
            if let Some(first) = seen.insert(name, index) {
                return Err(PromptError::DuplicateName {
                    name: def.name,
                    first,
                    second: index,
                });
            }
            defs.push(def);
        }
        Ok(defs)
    }
}

/// Routes every tool of a list to one server (the list one MCP server returned).
///
/// ```
/// use toolcall_prompt::{assign_server, ToolDef};
/// let mut tools = vec![ToolDef::new("a", "", serde_json::json!({})), ToolDef::new("b", "", serde_json::json!({}))];
/// assign_server(&mut tools, "github");
/// assert!(tools.iter().all(|t| t.server_name() == "github"));
/// ```
pub fn assign_server(tools: &mut [ToolDef], server_name: &str) {
    for t in tools {
        t.server_name = Some(server_name.to_owned());
    }
}

/// The tools' input schemas by name, for [`toolcall_parser::ParseOptions::schemas`], so that
/// calls are typed by the same schemas the prompt describes. A later tool of the same name
/// replaces an earlier one.
///
/// ```
/// use std::sync::Arc;
/// use toolcall_prompt::{tool_schemas, ToolDef};
/// let tools = [ToolDef::new("read_file", "", serde_json::json!({
///     "type": "object", "properties": {"path": {"type": "string"}}}))];
/// let opts = toolcall_parser::ParseOptions {
///     schemas: Some(Arc::new(tool_schemas(&tools))),
///     ..Default::default()
/// };
/// let r = toolcall_parser::parse_with(
///     "<tool><tool_name>read_file</tool_name><arguments><path>007</path></arguments></tool>", &opts);
/// assert_eq!(r.calls()[0].arguments["path"].as_str(), Some("007"));
/// ```
pub fn tool_schemas(tools: &[ToolDef]) -> ToolSchemas {
    let mut schemas = ToolSchemas::default();
    for t in tools {
        schemas.insert(t.name.clone(), t.input_schema.clone());
    }
    schemas
}

/// The JSON type of a value, for error messages.
pub(crate) fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_mcp_shape_and_aliases() {
        let defs = ToolDef::from_tools_json(&json!([
            {"name": "a", "description": "A", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
            {"name": "b", "parameters": {"type": "object", "required": ["y"]}, "server_name": "srv"},
            {"name": "c", "title": "C tool", "annotations": {"readOnlyHint": true}}
        ]))
        .unwrap();
        assert_eq!(defs.len(), 3);
        assert_eq!(defs[0].description, "A");
        assert_eq!(defs[0].input_schema["properties"]["x"]["type"], "string");
        assert_eq!(defs[1].input_schema["required"], json!(["y"]));
        assert_eq!(defs[1].server_name(), "srv");
        assert_eq!(defs[2].input_schema, json!({"type": "object"}));
        assert_eq!(defs[2].server_name(), DEFAULT_SERVER_NAME);
        assert_eq!(defs[2].description, "");
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
    fn empty_server_name_means_local() {
        let def = ToolDef::new("a", "", json!({})).with_server_name("  ");
        assert_eq!(def.server_name(), "local");
    }

    #[test]
    fn bad_lists_are_errors_naming_the_tool() {
        let cases = [
            (json!("tools"), "found a string"),
            (json!({"result": []}), "an object without \"tools\""),
            (json!({"tools": {}}), "\"tools\" holding an object"),
            (json!([1]), "tool 0: expected an object, found a number"),
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
                json!([{"name": "x"}, {"name": "y"}, {"name": "x"}]),
                "tools 0 and 2 are both named \"x\"",
            ),
        ];
        for (json, expected) in cases {
            let err = ToolDef::from_tools_json(&json).unwrap_err().to_string();
            assert!(err.contains(expected), "{err:?} lacks {expected:?}");
            assert!(!err.contains('\n'), "{err:?}");
        }
    }

    #[test]
    fn assign_server_and_schemas() {
        let mut tools = ToolDef::from_tools_json(&json!([
            {"name": "a", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
            {"name": "b"}
        ]))
        .unwrap();
        assign_server(&mut tools, "remote");
        assert_eq!(tools[0].server_name(), "remote");
        assert_eq!(tools[1].server_name.as_deref(), Some("remote"));
        let schemas = tool_schemas(&tools);
        assert_eq!(
            schemas.get("a").map(|s| &s["properties"]["n"]["type"]),
            Some(&json!("integer"))
        );
        assert!(schemas.get("c").is_none());
    }
}
