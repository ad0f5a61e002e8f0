//! `toolcall prompt` end to end: the built binary with and without a tools file.

mod common;

use common::{repo_root, text, toolcall};

#[test]
fn prints_instructions_and_every_tool_of_the_example_file() {
    let out = toolcall(&["prompt", "--tools", "examples/tools.json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty());
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with(toolcall::prompt::format_instructions()));
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("examples/tools.json")).unwrap(),
    )
    .unwrap();
    let tools = toolcall::prompt::ToolDef::from_tools_json(&json).unwrap();
    assert_eq!(stdout, toolcall::prompt::system_prompt_section(&tools));
    for tool in &tools {
        assert!(
            stdout.contains(&format!("\n### {}\n", tool.name)),
            "{}",
            tool.name
        );
        assert!(stdout.contains(&format!("<tool_name>{}</tool_name>", tool.name)));
    }
    // The examples printed are calls the parser reads with the same schemas.
    let schemas = toolcall::parser::ToolSchemas::from_tools_json(&json).unwrap();
    let options =
        toolcall::parser::ParseOptions::default().with_schemas(std::sync::Arc::new(schemas));
    let r = toolcall::parser::parse_with(stdout, &options);
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    // One call shown in the instructions, then one example per tool.
    assert_eq!(r.calls().len(), 1 + tools.len());
}

#[test]
fn without_tools_prints_only_the_instructions() {
    let out = toolcall(&["prompt"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), toolcall::prompt::format_instructions());
    assert!(!text(&out.stdout).contains("## Available tools"));
}

#[test]
fn reads_the_tools_from_standard_input_with_dash() {
    let tools = r#"{"tools": [{"name": "ping", "description": "Check the connection."}]}"#;
    let out = toolcall(&["prompt", "--tools", "-"], Some(tools));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("### ping\nCheck the connection.\nParameters: none\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn bad_input_is_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad_json = dir.path().join("bad.json");
    std::fs::write(&bad_json, "[{\"name\": \"a\",]").unwrap();
    let not_tools = dir.path().join("not_tools.json");
    std::fs::write(&not_tools, r#"[{"name": "a"}, {"name": "a"}]"#).unwrap();
    let missing = dir.path().join("missing.json");
    let cases = [
        (missing, "cannot read"),
        (bad_json, "is not valid JSON"),
        (not_tools, "tools 0 and 1 are both named \"a\""),
    ];
    for (path, expected) in cases {
        let out = toolcall(&["prompt", "--tools", path.to_str().unwrap()], None);
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        assert!(out.stdout.is_empty());
        let stderr = text(&out.stderr);
        assert!(stderr.starts_with("toolcall: error: "), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}
