//! How `parse` and `stream` say what typed each call's arguments (`typed_by`), and the one note
//! on standard error when inference did: without a schema, `007` is 7, one `<exclude>` is a
//! string but two are an array, and HTML content is an object.

mod common;

use common::{text, toolcall};
use serde_json::Value;
use std::process::Output;

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

fn typed_by(v: &Value) -> Vec<&str> {
    v["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["typed_by"].as_str().unwrap())
        .collect()
}

const NOTE: &str = "toolcall: note: 2 calls typed by inference; pass --schema TOOLS.json to type \
                    arguments by the tools' schemas\n";

/// The surprises of inference, each a call of a tool in examples/tools.json.
const SURPRISES: &str = "\
<tool><tool_name>read_file</tool_name><arguments><path>007</path></arguments></tool>
<tool><tool_name>search_files</tool_name><arguments><path>src</path><pattern>todo</pattern>\
<exclude>target</exclude></arguments></tool>
<tool><tool_name>write_to_file</tool_name><arguments><path>a.html</path>\
<content><div><p>Hi</p></div></content></arguments></tool>
";

#[test]
fn without_a_schema_calls_are_typed_by_inference_and_a_note_says_so() {
    let out = toolcall(&["parse", "examples/ampersand_repair.txt"], None);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(typed_by(&v), ["inference", "inference"]);
    assert_eq!(text(&out.stderr), NOTE);

    let out = toolcall(&["stream", "examples/ampersand_repair.txt"], None);
    assert_eq!(out.status.code(), Some(0));
    let finished: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "call_finished")
        .collect();
    assert_eq!(finished.len(), 2);
    assert!(
        finished
            .iter()
            .all(|e| e["call"]["typed_by"] == "inference")
    );
    assert_eq!(text(&out.stderr), NOTE);
}

#[test]
fn with_a_schema_for_every_tool_calls_are_typed_by_schema_and_nothing_is_noted() {
    for command in ["parse", "stream"] {
        let out = toolcall(
            &[
                command,
                "examples/ampersand_repair.txt",
                "--schema",
                "examples/tools.json",
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(0), "{command}");
        assert!(out.stderr.is_empty(), "{command}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout).matches("\"typed_by\"").count(), 2);
        assert!(!text(&out.stdout).contains("\"inference\""), "{command}");
    }
}

#[test]
fn a_tool_the_schema_file_does_not_define_is_named_in_the_note() {
    let reply = "<tool><tool_name>read_file</tool_name><arguments><path>007</path></arguments></tool>\
                 <tool><tool_name>make_coffee</tool_name><arguments><cups>2</cups></arguments></tool>";
    let out = toolcall(
        &["parse", "-", "--schema", "examples/tools.json"],
        Some(reply),
    );
    let v = json(&out);
    assert_eq!(typed_by(&v), ["schema", "inference"]);
    assert_eq!(v["calls"][0]["arguments"]["path"], "007");
    assert_eq!(v["calls"][1]["arguments"]["cups"], 2);
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("toolcall: note: 1 call typed by inference"),
        "{stderr}"
    );
    assert!(stderr.contains("(make_coffee)"), "{stderr}");
}

#[test]
fn legacy_json_calls_are_typed_by_json_and_need_no_note() {
    let out = toolcall(&["parse", "examples/legacy_json.txt"], None);
    let v = json(&out);
    assert_eq!(v["calls"][0]["legacy_json"], true);
    assert_eq!(typed_by(&v), ["json"]);
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn the_surprises_of_inference_and_what_the_schema_makes_of_them() {
    let blind = toolcall(&["parse", "-"], Some(SURPRISES));
    let blind_v = json(&blind);
    let args = |v: &Value, i: usize| v["calls"][i]["arguments"].clone();
    assert_eq!(args(&blind_v, 0)["path"], 7);
    assert_eq!(args(&blind_v, 1)["exclude"], "target");
    assert_eq!(
        args(&blind_v, 2)["content"],
        serde_json::json!({"div": {"p": "Hi"}})
    );
    assert!(
        text(&blind.stderr).starts_with("toolcall: note: 3 calls typed by inference;"),
        "{}",
        text(&blind.stderr)
    );

    let typed = toolcall(
        &["parse", "-", "--schema", "examples/tools.json"],
        Some(SURPRISES),
    );
    let typed_v = json(&typed);
    assert_eq!(typed_by(&typed_v), ["schema", "schema", "schema"]);
    assert_eq!(args(&typed_v, 0)["path"], "007");
    assert_eq!(args(&typed_v, 1)["exclude"], serde_json::json!(["target"]));
    assert_eq!(args(&typed_v, 2)["content"], "<div><p>Hi</p></div>");
    assert!(typed.stderr.is_empty());
}

#[test]
fn typed_by_is_added_after_every_field_a_call_had() {
    let v = json(&toolcall(&["parse", "examples/write_file.txt"], None));
    let keys: Vec<&str> = v["calls"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    // The fields a call had keep their order; fields added since follow them.
    assert_eq!(
        keys[..7],
        [
            "server_name",
            "tool_name",
            "arguments",
            "repairs",
            "encodings",
            "legacy_json",
            "span",
        ]
    );
    assert!(
        keys.contains(&"typed_by") && keys.contains(&"fenced"),
        "{keys:?}"
    );
}

#[test]
fn each_dialect_says_what_typed_its_calls() {
    let qwen = "<tool_call>\n<function=read_file>\n<parameter=path>\n007\n</parameter>\n\
                <parameter=line_start>\n10\n</parameter>\n</function>\n</tool_call>";
    // Raw text without a schema stays text: no inference, so no note.
    let out = toolcall(&["parse", "-", "--dialect", "qwen3-coder"], Some(qwen));
    let v = json(&out);
    assert_eq!(typed_by(&v), ["text"]);
    assert_eq!(v["calls"][0]["arguments"]["line_start"], "10");
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    // With the schema, typed by it.
    let out = toolcall(
        &[
            "parse",
            "-",
            "--dialect",
            "qwen3-coder",
            "--schema",
            "examples/tools.json",
        ],
        Some(qwen),
    );
    let v = json(&out);
    assert_eq!(typed_by(&v), ["schema"]);
    assert_eq!(v["calls"][0]["arguments"]["line_start"], 10);
    assert_eq!(v["calls"][0]["arguments"]["path"], "007");

    // Hermes writes JSON, which keeps its own types whatever the schema says.
    let hermes = r#"<tool_call>{"name": "read_file", "arguments": {"path": 7}}</tool_call>"#;
    for extra in [&[][..], &["--schema", "examples/tools.json"][..]] {
        let mut args = vec!["stream", "-", "--dialect", "hermes"];
        args.extend_from_slice(extra);
        let out = toolcall(&args, Some(hermes));
        let finished: Value = text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|e| e["event"] == "call_finished")
            .unwrap();
        assert_eq!(finished["call"]["typed_by"], "json", "{args:?}");
        assert_eq!(finished["call"]["arguments"]["path"], 7);
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }

    // Under auto, each call says what its chosen dialect did.
    for (reply, said) in [(qwen, "text"), (hermes, "json")] {
        let out = toolcall(&["parse", "-", "--dialect", "auto"], Some(reply));
        assert_eq!(typed_by(&json(&out)), [said], "{reply}");
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
}
