//! [`ToolSchemas`]: tool definitions by name, so arguments can be typed by their schema.

use std::collections::HashMap;

/// Input schemas of tools, by tool name, read from the MCP `tools/list` shape.
///
/// ```
/// let tools = serde_json::json!([{"name": "read_file", "description": "Read a file",
///     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]);
/// let s = toolcall_parser::ToolSchemas::from_tools_json(&tools).unwrap();
/// assert!(s.get("read_file").is_some());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolSchemas {
    by_name: HashMap<String, serde_json::Value>,
}

/// A tool-definition list that is not of the MCP `tools/list` shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError(pub String);

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SchemaError {}

impl ToolSchemas {
    /// Reads an array of `{"name", "description", "inputSchema"}` objects, or an object with such
    /// an array under `"tools"` (a whole `tools/list` result).
    pub fn from_tools_json(json: &serde_json::Value) -> Result<Self, SchemaError> {
        let list = match json {
            serde_json::Value::Array(a) => a,
            serde_json::Value::Object(o) => match o.get("tools") {
                Some(serde_json::Value::Array(a)) => a,
                _ => {
                    return Err(SchemaError(
                        "expected an array of tools or {\"tools\": [...]}".into(),
                    ));
                }
            },
            _ => return Err(SchemaError("expected an array of tool definitions".into())),
        };
        let mut by_name = HashMap::new();
        for (i, tool) in list.iter().enumerate() {
            let name = tool
                .get("name")
                .and_then(|n| n.as_str())
                .ok_or_else(|| SchemaError(format!("tool {i} has no string \"name\"")))?;
            let schema = tool
                .get("inputSchema")
                .or_else(|| tool.get("input_schema"))
                .or_else(|| tool.get("parameters"))
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "object"}));
            by_name.insert(name.to_owned(), schema);
        }
        Ok(ToolSchemas { by_name })
    }

    /// Adds or replaces one tool's input schema.
    pub fn insert(&mut self, tool_name: impl Into<String>, input_schema: serde_json::Value) {
        self.by_name.insert(tool_name.into(), input_schema);
    }

    /// The input schema of a tool.
    pub fn get(&self, tool_name: &str) -> Option<&serde_json::Value> {
        self.by_name.get(tool_name)
    }
}
