//! Every generated example call, parsed back by toolcall-parser, gives the example's values:
//! with the tool's schema, and blind (no schema) where the values round-trip blind.

use arg_types::{Map, Value};
use serde_json::{Value as Json, json};
use std::sync::Arc;
use toolcall_parser::{Encoding, ParseOptions, ToolCall, ToolSchemas};
use toolcall_prompt::{
    ToolDef, describe_tool, describe_tools, example_arguments, example_call, tool_schemas,
};

/// Realistic tools: the seeds' write_to_file, apply_diff, search_files, execute_command,
/// read_file, and schemas with nested objects, enums, numbers, nullable and `$ref` parameters.
fn realistic_tools() -> Vec<ToolDef> {
    let tools = json!([
        {"name": "write_to_file", "description": "Write a file.", "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path"},
                "content": {"type": "string", "description": "The complete file content"}
            },
            "required": ["path", "content"]}},
        {"name": "apply_diff", "description": "Replace exact text in a file.", "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"search": {"type": "string"}, "replace": {"type": "string"}},
                    "required": ["search", "replace"]}}
            },
            "required": ["path", "edits"]}},
        {"name": "search_files", "description": "Search with a regular expression.", "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "pattern": {"type": "string", "description": "A regular expression"},
                "file_pattern": {"type": "string"},
                "exclude": {"type": "array", "items": {"type": "string"}},
                "case_sensitive": {"type": "boolean"}
            },
            "required": ["path", "pattern"]}},
        {"name": "execute_command", "description": "Run a shell command.", "inputSchema": {
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "working_dir": {"type": "string"},
                "timeout_secs": {"type": "integer", "minimum": 1, "maximum": 600}
            },
            "required": ["command"]}},
        {"name": "read_file", "description": "Read lines of a file.", "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "line_start": {"type": "integer", "minimum": 1},
                "line_end": {"type": "integer", "minimum": 1}
            },
            "required": ["path"]}},
        {"name": "create_issue", "description": "Open an issue.", "serverName": "github", "inputSchema": {
            "type": "object",
            "properties": {
                "repo": {"type": "object", "properties": {
                    "owner": {"type": "string"}, "name": {"type": "string"}}, "required": ["owner", "name"]},
                "title": {"type": "string"},
                "body": {"type": "string"},
                "labels": {"type": "array", "items": {"type": "string", "enum": ["bug", "docs", "feature"]}},
                "priority": {"type": "string", "enum": ["low", "medium", "high"], "default": "medium"},
                "assignee": {"type": ["string", "null"]},
                "milestone": {"type": "integer", "default": 3}
            },
            "required": ["repo", "title"]}},
        {"name": "set_options", "description": "Enums of several types, numbers, maps.", "inputSchema": {
            "type": "object",
            "properties": {
                "level": {"enum": [2, 4, 8]},
                "mode": {"type": "string", "enum": ["true", "false"]},
                "version": {"const": "1.10"},
                "ratio": {"type": "number", "minimum": 0, "maximum": 1},
                "threshold": {"type": "number"},
                "env": {"type": "object", "additionalProperties": {"type": "string"}},
                "retry": {"$ref": "#/$defs/retry"},
                "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
                "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]},
                "target": {"anyOf": [{"type": "null"}, {"type": "string", "description": "A URL", "format": "uri"}]}
            },
            "required": ["level", "mode"],
            "$defs": {"retry": {"type": "object", "properties": {
                "attempts": {"type": "integer", "minimum": 1},
                "backoff": {"type": "string", "enum": ["linear", "exponential"]}}}}}},
        {"name": "generate_file", "description": "A long string: over 1000 characters.", "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string", "minLength": 1500}},
            "required": ["path", "content"]}},
        {"name": "task_completion", "description": "Report that the task is done.", "inputSchema": {
            "type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}},
        {"name": "list_tools", "description": "No arguments."}
    ]);
    ToolDef::from_tools_json(&tools).expect("valid tool list")
}

fn options_for(schemas: ToolSchemas) -> ParseOptions {
    ParseOptions::default().with_schemas(Arc::new(schemas))
}

/// The one `<tool>…</tool>` block of a tool's description.
fn example_block(description: &str) -> &str {
    let start = description.find("<tool>").expect("an example call");
    let end = description.rfind("</tool>").expect("a closed example call") + "</tool>".len();
    &description[start..end]
}

fn parse_one(text: &str, options: &ParseOptions) -> ToolCall {
    let r = toolcall_parser::parse_with(text, options);
    assert!(r.errors().is_empty(), "{:?}\n{text}", r.errors());
    assert_eq!(r.calls().len(), 1, "{text}");
    let call = r.calls()[0].clone();
    assert!(call.repairs.is_empty(), "{:?}", call.repairs);
    call
}

#[test]
fn every_example_parses_back_with_its_schema_to_its_values() {
    for tool in realistic_tools() {
        let text = describe_tool(&tool);
        let block = example_block(&text);
        let options = options_for(tool_schemas(std::slice::from_ref(&tool)));
        let call = parse_one(block, &options);
        assert_eq!(call.tool_name, tool.name);
        assert_eq!(call.server_name, tool.server_name());
        assert_eq!(
            call.arguments,
            example_arguments(&tool.input_schema),
            "{}",
            tool.name
        );
        // The example is the canonical form of the call.
        assert_eq!(call.to_xml().unwrap(), block, "{}", tool.name);
    }
}

/// Whether a value reads back blind as itself (docs/FORMAT.md §5.5): no empty object, no array
/// of fewer than two items, no array inside an array.
fn blind_safe(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty() && m.values().all(blind_safe),
        Value::Array(a) => {
            a.len() >= 2
                && a.iter()
                    .all(|i| !matches!(i, Value::Array(_)) && blind_safe(i))
        }
        _ => true,
    }
}

#[test]
fn examples_round_trip_blind_where_their_values_allow() {
    let mut needs_schema = Vec::new();
    for tool in realistic_tools() {
        let description = describe_tool(&tool);
        let call = parse_one(example_block(&description), &ParseOptions::default());
        let expected = example_arguments(&tool.input_schema);
        assert_eq!(call.arguments.len(), expected.len(), "{}", tool.name);
        for (name, value) in &expected {
            if blind_safe(value) {
                assert_eq!(&call.arguments[name], value, "{}.{name}", tool.name);
            } else {
                assert_ne!(&call.arguments[name], value, "{}.{name}", tool.name);
                needs_schema.push(format!("{}.{name}", tool.name));
            }
        }
    }
    // Only the array of arrays needs its schema; strings such as "true" and "1.10" come back
    // blind because the writer puts them in CDATA.
    assert_eq!(needs_schema, ["set_options.matrix"]);
}

#[test]
fn the_whole_description_parses_to_one_call_per_tool_in_order() {
    let tools = realistic_tools();
    let text = describe_tools(&tools);
    let r = toolcall_parser::parse_with(&text, &options_for(tool_schemas(&tools)));
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    let names: Vec<&str> = r.calls().iter().map(|c| c.tool_name.as_str()).collect();
    let expected: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, expected);
}

fn tool_named(name: &str) -> ToolDef {
    realistic_tools()
        .into_iter()
        .find(|t| t.name == name)
        .expect("a realistic tool")
}

fn args_of(name: &str) -> Map {
    example_arguments(&tool_named(name).input_schema)
}

#[test]
fn code_examples_use_entity_escaping() {
    let tool = tool_named("write_to_file");
    let block_owner = describe_tool(&tool);
    let block = example_block(&block_owner);
    assert!(
        block.contains("&amp;&amp;") && block.contains("&lt;"),
        "{block}"
    );
    assert!(!block.contains("CDATA"), "{block}");
    let call = parse_one(block, &ParseOptions::default());
    let content = call
        .encodings
        .iter()
        .find(|e| e.argument == "content")
        .unwrap();
    assert_eq!(content.encoding, Encoding::EntityEscaped);
    let code = call.arguments["content"].as_str().unwrap();
    assert!(code.contains("&&") && code.contains('<'), "{code}");
}

#[test]
fn strings_over_1000_characters_are_written_in_cdata() {
    let tool = tool_named("generate_file");
    let block_owner = describe_tool(&tool);
    let block = example_block(&block_owner);
    let call = parse_one(block, &ParseOptions::default());
    let content = call.arguments["content"].as_str().unwrap();
    assert_eq!(content.chars().count(), 1500);
    assert!(content.contains("&&"));
    assert!(block.contains("<content><![CDATA["), "{block}");
    let encoding = &call.encodings[1];
    assert_eq!(
        (encoding.argument.as_str(), encoding.encoding),
        ("content", Encoding::Cdata)
    );
    // The short path beside it stays plain text.
    assert!(block.contains("<path>src/main.rs</path>"));
}

#[test]
fn arrays_nested_objects_and_enums_have_the_expected_shapes() {
    let diff = args_of("apply_diff");
    let edits = diff["edits"].as_array().unwrap();
    assert_eq!(edits.len(), 2);
    assert_ne!(edits[0], edits[1], "the two edits differ");
    for edit in edits {
        let names: Vec<&str> = edit
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(names, ["search", "replace"]);
    }

    let search = args_of("search_files");
    assert_eq!(
        search["exclude"],
        Value::Array(vec!["node_modules".into(), "target".into()])
    );
    assert_eq!(search["file_pattern"], Value::String("*.rs".into()));
    assert_eq!(search["case_sensitive"], Value::Bool(true));

    let read = args_of("read_file");
    assert_eq!(read["line_start"], Value::Int(1));
    assert!(read["line_end"].as_i64().unwrap() >= 1);

    let issue = args_of("create_issue");
    assert_eq!(
        issue["repo"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["owner", "name"]
    );
    assert_eq!(
        issue["labels"],
        Value::Array(vec!["bug".into(), "docs".into()])
    );
    assert_eq!(issue["priority"], Value::String("low".into()));
    assert_eq!(issue["milestone"], Value::Int(3));

    let opts = args_of("set_options");
    assert_eq!(opts["level"], Value::Int(2));
    assert_eq!(opts["mode"], Value::String("true".into()));
    assert_eq!(opts["version"], Value::String("1.10".into()));
    assert_eq!(opts["ratio"], Value::Float(1.0));
    assert_eq!(
        opts["target"],
        Value::String("https://example.com/docs".into())
    );
    assert_eq!(
        opts["retry"].get("backoff"),
        Some(&Value::String("linear".into()))
    );
    assert_eq!(opts["matrix"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        opts["env"].get("key"),
        Some(&Value::String("example".into()))
    );
}

#[test]
fn strings_that_look_like_other_types_are_quoted_in_cdata() {
    let tool = tool_named("set_options");
    let block_owner = describe_tool(&tool);
    let block = example_block(&block_owner);
    assert!(block.contains("<mode><![CDATA[true]]></mode>"), "{block}");
    assert!(
        block.contains("<version><![CDATA[1.10]]></version>"),
        "{block}"
    );
}

#[test]
fn examples_are_written_by_the_shared_writer() {
    let tool = tool_named("read_file");
    let mut expected = String::from(
        "<tool>\n<server_name>local</server_name>\n<tool_name>read_file</tool_name>\n<arguments>\n",
    );
    arg_types::write::write_arguments(&example_arguments(&tool.input_schema), &mut expected)
        .unwrap();
    expected.push_str("</arguments>\n</tool>");
    assert_eq!(example_call(&tool).unwrap(), expected);
}

#[test]
fn the_example_tools_file_round_trips() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/tools.json");
    let json: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tools = ToolDef::from_tools_json(&json).unwrap();
    assert!(tools.len() >= 5);
    let schemas = toolcall_parser::ToolSchemas::from_tools_json(&json).unwrap();
    let options = options_for(schemas);
    for tool in &tools {
        let xml = example_call(tool).unwrap();
        let call = parse_one(&xml, &options);
        assert_eq!(call.arguments, example_arguments(&tool.input_schema));
    }
}
