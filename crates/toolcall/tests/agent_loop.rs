//! The `agent_loop` example, run on its shipped script: the files it writes, the thread it
//! sends, the retry after the malformed call, the completion; and its tools' sandbox.

#![cfg(all(
    feature = "parser",
    feature = "thread",
    feature = "prompt",
    feature = "bridge"
))]

#[allow(dead_code, unreachable_pub)]
#[path = "../examples/agent_loop.rs"]
mod agent_loop;

use agent_loop::{
    CHUNK_BYTES, DEFAULT_SCRIPT, LocalTools, RESPONSE_PREFIX, Report, Script, ToolServer,
};
use std::path::Path;
use toolcall::bridge::mcp::CallParams;
use toolcall::parser::{ParseOptions, parse_with};
use toolcall::thread::{AgentEvent, ThreadEntry, parse_thread_xml};

const LIB_RS: &str = "/// A friendly greeting for `name`.\n\
                      pub fn greet(name: &str) -> String {\n    \
                      format!(\"Hello, {name}! Nice to meet you.\")\n}\n";
const MAIN_RS: &str = "fn main() {\n    println!(\"{}\", hello::greet(\"world\"));\n}\n";

/// Runs the shipped script in a fresh directory.
fn run_shipped() -> (tempfile::TempDir, Report, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut out = Vec::new();
    let report = agent_loop::run(Path::new(DEFAULT_SCRIPT), dir.path(), &mut out).unwrap();
    (dir, report, String::from_utf8(out).unwrap())
}

/// `(type, name attribute)` of each entry.
fn shape(entries: &[ThreadEntry]) -> Vec<(String, Option<String>)> {
    entries
        .iter()
        .map(|e| (e.event_type.clone(), e.attribute("name").map(str::to_owned)))
        .collect()
}

fn params(name: &str, arguments: serde_json::Value) -> CallParams {
    serde_json::from_value(serde_json::json!({"name": name, "arguments": arguments})).unwrap()
}

#[test]
fn the_files_are_written_and_edited() {
    let (dir, _, _) = run_shipped();
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
    assert_eq!(read("src/lib.rs"), LIB_RS);
    assert_eq!(read("src/main.rs"), MAIN_RS);
    let mut names: Vec<_> = std::fs::read_dir(dir.path().join("src"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["lib.rs", "main.rs"]);
}

#[test]
fn the_thread_records_every_step_in_order() {
    let (_dir, report, _) = run_shipped();
    let thread = parse_thread_xml(&report.thread).unwrap();
    assert_eq!(thread.entries.len(), report.events.len());
    assert_eq!(thread.response_prefix, None);
    let s = |t: &str| t.to_owned();
    let call = |n: &str| {
        [
            (s("tool_input"), Some(s(n))),
            (s("tool_output"), Some(s(n))),
        ]
    };
    let ai = (s("ai"), None);
    let mut expected = vec![(s("human"), None), ai.clone()];
    expected.extend(call("list_files"));
    expected.push(ai.clone());
    expected.extend(call("write_to_file"));
    expected.extend([(s("error"), None), (s("human"), None), ai.clone()]);
    expected.extend(call("write_to_file"));
    expected.push(ai.clone());
    expected.extend(call("apply_diff"));
    expected.extend(call("read_file"));
    expected.push(ai.clone());
    expected.extend(call("search_files"));
    expected.extend(call("execute_command"));
    expected.push(ai.clone());
    expected.extend(call("execute_command"));
    expected.extend([ai, (s("completion"), None)]);
    assert_eq!(shape(&thread.entries), expected);

    // The serialized form names each result's tool.
    assert!(
        report
            .thread
            .contains("<event type=\"tool_output\" id=\"6\" name=\"write_to_file\" status=\"success\" iteration=\"2\">wrote 4 lines (96 bytes) to src/lib.rs</event>"),
        "{}",
        report.thread
    );
    let text = |i: usize| thread.entries[i].text.as_str();
    assert!(text(0).starts_with("Create a small Rust program"));
    // Arguments are JSON, typed by the schema: `edits` is an array of two objects.
    let diff: serde_json::Value = serde_json::from_str(text(13)).unwrap();
    assert_eq!(diff["edits"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        diff["edits"][1]["replace"],
        "format!(\"Hello, {name}! Nice to meet you.\")"
    );
    assert_eq!(text(16), LIB_RS, "read_file after apply_diff");
    assert_eq!(
        text(19),
        "src/lib.rs:2: pub fn greet(name: &str) -> String {\n\
         src/main.rs:2: println!(\"{}\", hello::greet(\"world\"));"
    );
    assert_eq!(
        text(21),
        "error: `cargo` is not allowed here; allowed programs: ls, cat, echo, wc"
    );
    let wc: Vec<Vec<&str>> = text(24)
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        wc,
        [["4", "src/lib.rs"], ["3", "src/main.rs"], ["7", "total"]]
    );
    assert!(text(26).contains("\"Hello, world! Nice to meet you.\""));
    assert_eq!(report.completion, text(26));
}

#[test]
fn the_malformed_call_is_answered_with_feedback_and_corrected() {
    let (_dir, report, out) = run_shipped();
    assert_eq!(report.parse_errors, 1);
    let thread = parse_thread_xml(&report.thread).unwrap();
    let error = &thread.entries[7];
    assert_eq!(error.event_type, "error");
    assert_eq!(error.attribute("recoverable"), Some("true"));
    assert_eq!(error.attribute("iteration"), Some("2"));
    assert!(
        error
            .text
            .starts_with("the call to `write_to_file` could not be read: mismatched_tag"),
        "{}",
        error.text
    );
    // The retry message is toolcall-prompt's, built on the parser's feedback.
    let retry = &thread.entries[8];
    assert_eq!(retry.event_type, "human");
    assert!(
        retry
            .text
            .starts_with("1 tool call in your last reply could not be read, so it was not run.")
    );
    // At the misspelt close tag itself, the first offending byte (docs/FORMAT.md §7).
    assert!(
        retry.text.contains(
            "</contnet> does not close the open element <content>; expected </content> \
             (at line 24, column 1)"
        ),
        "{}",
        retry.text
    );
    assert!(
        retry
            .text
            .ends_with("Do not repeat calls that were read.\n")
    );
    // The well-formed call of the same reply ran; the corrected one comes in the next turn.
    assert!(thread.entries[5].text.contains("\"path\":\"src/lib.rs\""));
    let corrected: serde_json::Value = serde_json::from_str(&thread.entries[10].text).unwrap();
    assert_eq!(corrected["path"], "src/main.rs");
    assert_eq!(corrected["content"], MAIN_RS);
    assert_eq!(thread.entries[10].attribute("iteration"), Some("3"));
    // The model was sent the feedback: the third prompt holds it, the second does not.
    assert!(!report.prompts[1].contains("could not be read"));
    assert!(report.prompts[2].contains("1 tool call in your last reply could not be read"));
    // And the console showed it.
    assert!(
        out.contains("  ✗ mismatched_tag at line 24, column 1"),
        "{out}"
    );
    assert!(
        out.contains("  ↩ 1 tool call in your last reply could not be read"),
        "{out}"
    );
}

#[test]
fn each_prompt_is_the_thread_so_far_and_the_prefix() {
    let (_dir, report, _) = run_shipped();
    assert_eq!(report.prompts.len(), 7);
    let mut previous: Vec<ThreadEntry> = Vec::new();
    for (turn, prompt) in report.prompts.iter().enumerate() {
        let thread = parse_thread_xml(prompt).unwrap();
        assert_eq!(thread.response_prefix.as_deref(), Some(RESPONSE_PREFIX));
        // Each thread extends the one before with the last turn's events.
        assert!(thread.entries.len() > previous.len(), "turn {}", turn + 1);
        assert_eq!(thread.entries[..previous.len()], previous[..]);
        let last_iteration = thread.entries.last().unwrap().attribute("iteration");
        assert_eq!(last_iteration, Some(turn.to_string().as_str()));
        previous = thread.entries;
    }
    // The final thread is the last prompt's, plus the last turn, without the prefix.
    let last = parse_thread_xml(&report.thread).unwrap();
    assert_eq!(last.entries[..previous.len()], previous[..]);
    assert!(matches!(
        report.events.last(),
        Some(AgentEvent::Completion { iteration: 7, .. })
    ));
    // The system prompt teaches the format and every tool of the example.
    for tool in [
        "list_files",
        "read_file",
        "write_to_file",
        "apply_diff",
        "search_files",
        "execute_command",
        "task_completion",
    ] {
        assert!(
            report
                .system_prompt
                .contains(&format!("<tool_name>{tool}</tool_name>")),
            "{tool}"
        );
    }
    assert!(report.system_prompt.contains("&amp;"));
}

#[test]
fn prose_is_printed_as_it_streams_and_each_call_once() {
    let (_dir, _, out) = run_shipped();
    assert!(out.contains("── turn 1 ──\nI'll start by looking at what the workspace holds.\n  ⚙ list_files {\"path\":\".\"}\n"), "{out}");
    assert_eq!(out.matches("  ⚙ write_to_file ").count(), 2, "{out}");
    assert_eq!(out.matches("  ⚙ ").count(), 9, "{out}");
    assert!(out.contains("    ↳ apply_diff: applied 2 edits to src/lib.rs\n"));
    assert!(out.contains("  ✔ Created src/lib.rs"));
}

#[test]
fn streaming_in_small_chunks_reads_every_reply_as_one_shot_parsing_does() {
    let script = Script::load(Path::new(DEFAULT_SCRIPT)).unwrap();
    assert_eq!(script.replies.len(), 7);
    let tools = toolcall::prompt::ToolDef::from_tools_json(
        &serde_json::from_str(agent_loop::TOOLS_JSON).unwrap(),
    )
    .unwrap();
    let options = ParseOptions::default()
        .with_schemas(std::sync::Arc::new(toolcall::prompt::tool_schemas(&tools)));
    for reply in &script.replies {
        let mut sink = Vec::new();
        let streamed = agent_loop::stream_reply(reply, &options, &mut sink).unwrap();
        assert_eq!(streamed, parse_with(reply, &options), "{reply}");
        assert!(agent_loop::chunks(reply, CHUNK_BYTES).all(|c| c.len() <= CHUNK_BYTES + 3));
    }
}

#[test]
fn scripts_without_a_task_or_a_completion_are_errors() {
    let err = Script::parse("=== reply ===\nhi").unwrap_err();
    assert_eq!(err.to_string(), "a reply comes before the task");
    let err = Script::parse("# only comments\n").unwrap_err();
    assert!(err.to_string().contains("no `=== task ===` line"), "{err}");
    let script = Script::parse("# c\n=== task ===\nDo it.\n=== reply ===\nOK.\n").unwrap();
    assert_eq!(script.task, "Do it.");
    assert_eq!(script.replies, ["OK."]);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.txt");
    std::fs::write(
        &path,
        "=== task ===\nDo it.\n=== reply ===\nI am thinking.\n",
    )
    .unwrap();
    let mut out = Vec::new();
    let err = agent_loop::run(&path, &dir.path().join("work"), &mut out).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the script ended after 1 replies without `task_completion`"
    );
    // The reply without a call was answered with the no-tool-call message.
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("  ↩ Your last reply contained no tool call."),
        "{out}"
    );
}

#[test]
fn tools_stay_inside_the_work_directory() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("work");
    let mut tools = LocalTools::new(&root).unwrap();
    for path in ["../escape.txt", "a/../../escape.txt", "/tmp/escape.txt", ""] {
        let result = tools.call(&params(
            "write_to_file",
            serde_json::json!({"path": path, "content": "x"}),
        ));
        assert!(result.is_err(), "{path:?}: {result:?}");
    }
    assert!(!outer.path().join("escape.txt").exists());
    assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);
    let err = tools
        .call(&params(
            "read_file",
            serde_json::json!({"path": "/etc/hostname"}),
        ))
        .unwrap_err();
    assert!(err.contains("is absolute"), "{err}");
}

#[test]
fn execute_command_runs_only_allowed_programs_on_relative_paths() {
    let dir = tempfile::tempdir().unwrap();
    let mut tools = LocalTools::new(dir.path()).unwrap();
    let run = |tools: &mut LocalTools, command: &str| {
        tools.call(&params(
            "execute_command",
            serde_json::json!({"command": command}),
        ))
    };
    assert_eq!(
        run(&mut tools, "echo hello  there").unwrap(),
        "hello there\n"
    );
    for command in [
        "rm -rf .",
        "sh -c ls",
        "bash",
        "",
        "cat /etc/passwd",
        "cat ../x",
        "ls ~",
    ] {
        assert!(run(&mut tools, command).is_err(), "{command:?}");
    }
    // No shell: `;` and `>` are plain arguments, so nothing is written.
    let result = run(&mut tools, "echo hi > out.txt");
    assert_eq!(result.unwrap(), "hi > out.txt\n");
    assert!(!dir.path().join("out.txt").exists());
    let err = run(&mut tools, "cat missing.txt").unwrap_err();
    assert!(err.starts_with("`cat` failed"), "{err}");
}

#[test]
fn apply_diff_applies_all_edits_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut tools = LocalTools::new(dir.path()).unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\ntwo\nthree\n").unwrap();
    let diff = |edits: serde_json::Value| {
        params(
            "apply_diff",
            serde_json::json!({"path": "a.txt", "edits": edits}),
        )
    };
    // The second edit matches twice: nothing is written, though the first would apply.
    let err = tools
        .call(&diff(serde_json::json!([
            {"search": "one", "replace": "1"},
            {"search": "two", "replace": "2"}
        ])))
        .unwrap_err();
    assert!(
        err.starts_with("edit 2: the search text occurs 2 times"),
        "{err}"
    );
    let err = tools
        .call(&diff(
            serde_json::json!([{"search": "four", "replace": "4"}]),
        ))
        .unwrap_err();
    assert!(
        err.starts_with("edit 1: the search text was not found"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "one\ntwo\ntwo\nthree\n"
    );
    // Edits apply in order, each to the result of the one before.
    let ok = tools
        .call(&diff(serde_json::json!([
            {"search": "two\ntwo", "replace": "two"},
            {"search": "two", "replace": "2"},
            {"search": "one\n2", "replace": "1-2"}
        ])))
        .unwrap();
    assert_eq!(ok, "applied 3 edits to a.txt");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "1-2\nthree\n"
    );
    let err = tools
        .call(&params("apply_diff", serde_json::json!({"path": "a.txt"})))
        .unwrap_err();
    assert!(err.contains("missing field `edits`"), "{err}");
}

#[test]
fn read_file_ranges_and_listing() {
    let dir = tempfile::tempdir().unwrap();
    let mut tools = LocalTools::new(dir.path()).unwrap();
    let write = tools
        .call(&params(
            "write_to_file",
            serde_json::json!({"path": "d/e/f.txt", "content": "a\nb\nc"}),
        ))
        .unwrap();
    assert_eq!(write, "wrote 3 lines (6 bytes) to d/e/f.txt");
    let read =
        |tools: &mut LocalTools, args: serde_json::Value| tools.call(&params("read_file", args));
    assert_eq!(
        read(
            &mut tools,
            serde_json::json!({"path": "d/e/f.txt", "line_start": 2})
        )
        .unwrap(),
        "b\nc"
    );
    assert_eq!(
        read(
            &mut tools,
            serde_json::json!({"path": "d/e/f.txt", "line_start": 2, "line_end": 2})
        )
        .unwrap(),
        "b"
    );
    assert!(
        read(
            &mut tools,
            serde_json::json!({"path": "d/e/f.txt", "line_start": 9})
        )
        .is_err()
    );
    let list = |tools: &mut LocalTools, recursive: bool| {
        tools
            .call(&params(
                "list_files",
                serde_json::json!({"recursive": recursive}),
            ))
            .unwrap()
    };
    assert_eq!(list(&mut tools, false), "d/");
    assert_eq!(list(&mut tools, true), "d/\nd/e/\nd/e/f.txt");
    let err = tools
        .call(&params("delete_file", serde_json::json!({})))
        .unwrap_err();
    assert_eq!(err, "there is no tool named `delete_file`");
}
