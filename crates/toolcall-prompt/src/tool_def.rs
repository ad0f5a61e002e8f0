//! Tool definitions: [`ToolDef`] is toolcall-parser's (one reading of a tools JSON serves the
//! prompt and the parser); here, routing a list to a server and the parser's schemas from it.

use toolcall_parser::{ToolDef, ToolSchemas};

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
/// calls are typed by the same schemas the prompt describes: [`ToolSchemas::from_tools`]. A
/// later tool of the same name replaces an earlier one.
///
/// ```
/// use std::sync::Arc;
/// use toolcall_prompt::{tool_schemas, ToolDef};
/// let tools = [ToolDef::new("read_file", "", serde_json::json!({
///     "type": "object", "properties": {"path": {"type": "string"}}}))];
/// let opts = toolcall_parser::ParseOptions::new().with_schemas(Arc::new(tool_schemas(&tools)));
/// let r = toolcall_parser::parse_with(
///     "<tool><tool_name>read_file</tool_name><arguments><path>007</path></arguments></tool>", &opts);
/// assert_eq!(r.calls()[0].arguments["path"].as_str(), Some("007"));
/// ```
pub fn tool_schemas(tools: &[ToolDef]) -> ToolSchemas {
    ToolSchemas::from_tools(tools.iter().cloned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PromptError, describe_tool, system_prompt_section};
    use serde_json::{Value as Json, json};

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
        assert_eq!(schemas.tool("b").map(ToolDef::server_name), Some("remote"));
        assert!(schemas.get("c").is_none());
    }

    /// The prompt and the parser read every shape of tools JSON alike: the MCP array, the
    /// `{"tools": [...]}` result, the OpenAI tools array, and a list mixing them.
    #[test]
    fn every_shape_serves_the_prompt_and_the_parser_alike() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
        let mcp =
            json!([{"name": "read_file", "description": "Read a file.", "inputSchema": schema}]);
        let shapes: [Json; 4] = [
            mcp.clone(),
            json!({"tools": mcp}),
            json!([{"type": "function", "function": {
                "name": "read_file", "description": "Read a file.", "parameters": schema}}]),
            json!([
                {"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": schema}},
                {"name": "ping", "description": "Check the connection."}
            ]),
        ];
        for json in shapes {
            let tools = ToolDef::from_tools_json(&json).unwrap();
            let text = describe_tool(&tools[0]);
            assert!(text.starts_with("### read_file\nRead a file.\n"), "{text}");
            assert!(text.contains("- path (string, required)\n"), "{text}");
            let from_json = toolcall_parser::ToolSchemas::from_tools_json(&json).unwrap();
            let from_defs = tool_schemas(&tools);
            for t in &tools {
                assert_eq!(from_json.tool(&t.name), Some(t));
                assert_eq!(from_defs.tool(&t.name), Some(t));
            }
            assert!(system_prompt_section(&tools).contains("<tool_name>read_file</tool_name>"));
        }
    }

    #[test]
    fn the_old_names_are_the_parser_types() {
        let t: toolcall_parser::ToolDef = crate::ToolDef::new("a", "", json!({}));
        assert_eq!(t.server_name(), crate::DEFAULT_SERVER_NAME);
        let err: PromptError = ToolDef::from_tools_json(&json!(3)).unwrap_err();
        let _: &toolcall_parser::SchemaError = &err;
        assert!(matches!(err, PromptError::NotAToolList { .. }));
    }
}
