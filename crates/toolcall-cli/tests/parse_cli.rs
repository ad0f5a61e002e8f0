//! The CLI contract of `toolcall parse` and `toolcall stream`, checked from outside.

mod common;

use common::toolcall;
use serde_json::Value;
use std::process::Output;

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

#[test]
fn parse_prints_calls_and_exits_0() {
    let out = toolcall(&["parse", "examples/ampersand_repair.txt"], None);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    let calls = v["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["server_name"], "local");
    assert_eq!(calls[0]["tool_name"], "search_files");
    assert_eq!(calls[0]["arguments"]["pattern"], "if .*&& .*enabled");
    assert_eq!(calls[0]["arguments"]["exclude"][1], "node_modules");
    assert_eq!(calls[0]["repairs"][0]["kind"], "bare_ampersand");
    assert_eq!(calls[1]["server_name"], "web");
    assert_eq!(
        calls[1]["arguments"]["url"],
        "https://docs.example.com/search?q=flags&lang=en&page=2"
    );
    assert_eq!(v["errors"].as_array().unwrap().len(), 0);
}

#[test]
fn every_chunk_size_prints_the_identical_object() {
    for file in [
        "examples/ampersand_repair.txt",
        "examples/apply_diff_cdata.txt",
        "examples/write_file.txt",
        "examples/legacy_json.txt",
    ] {
        let whole = toolcall(&["parse", file], None);
        for n in ["1", "7", "4096"] {
            let chunked = toolcall(&["parse", file, "--chunk-size", n], None);
            assert_eq!(chunked.stdout, whole.stdout, "{file} in chunks of {n}");
            assert_eq!(chunked.status.code(), whole.status.code());
        }
    }
}

#[test]
fn errors_exit_1_with_kind_line_and_column() {
    let reply = "Hi\n<tool><tool_name>w</tool_name><arguments><a>1</b></arguments></tool>";
    let out = toolcall(&["parse", "-"], Some(reply));
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let e = &v["errors"][0];
    assert_eq!(e["kind"], "mismatched_tag");
    assert_eq!(e["line"], 2);
    // At `</b>`, where `<a>`'s close tag should stand (the first offending byte).
    assert_eq!(e["column"], 46);
    assert!(e["message"].as_str().unwrap().contains("</b>"));
}

#[test]
fn schema_types_the_arguments() {
    let blind = json(&toolcall(&["parse", "examples/apply_diff_cdata.txt"], None));
    assert!(blind["calls"][0]["arguments"]["edits"]["edit"].is_array());
    let typed = json(&toolcall(
        &[
            "parse",
            "examples/apply_diff_cdata.txt",
            "--schema",
            "examples/tools.json",
        ],
        None,
    ));
    let edits = typed["calls"][0]["arguments"]["edits"].as_array().unwrap();
    assert_eq!(edits.len(), 2);
    assert!(
        edits[1]["replace"]
            .as_str()
            .unwrap()
            .contains("x > 0 && x < 100")
    );
}

#[test]
fn stats_count_calls_repairs_and_encodings() {
    let v = json(&toolcall(
        &["parse", "examples/ampersand_repair.txt", "--stats"],
        None,
    ));
    assert_eq!(v["stats"]["calls"], 2);
    assert_eq!(v["stats"]["repairs_by_kind"]["bare_ampersand"], 4);
    assert_eq!(v["stats"]["encodings"]["plain"], 4);
}

/// Issue 14 item 2: repairs are aggregated (docs/FORMAT.md §4), so their JSON does not grow with
/// their number: 100,000 bare `&` print one entry (before, an object of some 80 bytes each).
#[test]
fn repairs_print_one_entry_per_kind_and_argument() {
    let n = 100_000;
    let reply = format!(
        "<tool><tool_name>w</tool_name><arguments><c>{}</c></arguments></tool>",
        "&".repeat(n)
    );
    for args in [
        &["parse", "-"][..],
        &["parse", "-", "--chunk-size", "1000"][..],
    ] {
        let out = toolcall(args, Some(&reply));
        assert_eq!(out.status.code(), Some(0));
        assert!(
            out.stdout.len() < n + 4096,
            "{} bytes of output",
            out.stdout.len()
        );
        let v = json(&out);
        let r = &v["calls"][0]["repairs"];
        assert_eq!(r.as_array().unwrap().len(), 1);
        assert_eq!(r[0]["kind"], "bare_ampersand");
        assert_eq!(
            (r[0]["line"].as_u64(), r[0]["column"].as_u64()),
            (Some(1), Some(45))
        );
        assert_eq!(r[0]["count"], n);
        assert_eq!(r[0]["argument"], "c");
        assert_eq!(r[0]["positions"].as_array().unwrap().len(), 8);
        assert_eq!(r[0]["positions"][1]["column"], 46);
    }
}

#[test]
fn usage_and_io_errors_exit_2_without_a_backtrace() {
    for args in [
        &["parse", "no/such/file.txt"][..],
        &["parse", "--chunk-size", "0", "examples/write_file.txt"][..],
        &["parse", "examples/write_file.txt", "--schema", "README.md"][..],
        &["frobnicate"][..],
    ] {
        let out = toolcall(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
            "{err}"
        );
    }
}

#[test]
fn stream_prints_json_lines_in_order() {
    let out = toolcall(
        &["stream", "examples/write_file.txt", "--chunk-size", "5"],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let events: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    let first_call = kinds.iter().position(|k| *k == "call_started").unwrap();
    assert_eq!(kinds[0], "prose");
    assert!(kinds[first_call..].contains(&"tool_name"));
    assert!(kinds.contains(&"argument_delta"));
    let finished: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "call_finished")
        .collect();
    assert_eq!(finished.len(), 2);
    assert_eq!(finished[0]["call"]["tool_name"], "write_to_file");
    assert_eq!(finished[1]["call"]["arguments"]["timeout_secs"], 120);
}

/// The JSON Lines of `toolcall stream`.
fn json_lines(out: &Output) -> Vec<Value> {
    common::text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

/// The tool names of the calls a `stream` run finished, in order.
fn streamed_tool_names(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["event"] == "call_finished")
        .map(|e| e["call"]["tool_name"].as_str().unwrap().to_owned())
        .collect()
}

const FENCED_AND_PLAIN: &str = "Like this:\n```xml\n<tool><tool_name>shown</tool_name></tool>\n```\n\
                                Now for real:\n<tool><tool_name>run</tool_name></tool>\n";

#[test]
fn stream_ignores_fenced_calls_on_request_as_parse_does() {
    let plain = json_lines(&toolcall(&["stream", "-"], Some(FENCED_AND_PLAIN)));
    assert_eq!(streamed_tool_names(&plain), ["shown", "run"]);

    let out = toolcall(
        &["stream", "-", "--ignore-fenced", "--chunk-size", "3"],
        Some(FENCED_AND_PLAIN),
    );
    assert_eq!(out.status.code(), Some(0));
    let events = json_lines(&out);
    assert_eq!(streamed_tool_names(&events), ["run"]);
    let prose: String = events
        .iter()
        .filter(|e| e["event"] == "prose")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(prose.contains("<tool><tool_name>shown</tool_name></tool>"));

    // The same semantics as `parse --ignore-fenced`: the same calls and the same prose.
    let parsed = json(&toolcall(
        &["parse", "-", "--ignore-fenced"],
        Some(FENCED_AND_PLAIN),
    ));
    assert_eq!(parsed["calls"].as_array().unwrap().len(), 1);
    assert_eq!(parsed["calls"][0]["tool_name"], "run");
    assert_eq!(parsed["prose"], prose.as_str());
}

#[test]
fn the_schema_can_come_from_standard_input_when_the_response_is_a_file() {
    let tools = std::fs::read_to_string(common::repo_root().join("examples/tools.json")).unwrap();
    let from_file = toolcall(
        &[
            "parse",
            "examples/apply_diff_cdata.txt",
            "--schema",
            "examples/tools.json",
        ],
        None,
    );
    let from_stdin = toolcall(
        &["parse", "examples/apply_diff_cdata.txt", "--schema", "-"],
        Some(&tools),
    );
    assert_eq!(
        from_stdin.status.code(),
        Some(0),
        "{}",
        common::text(&from_stdin.stderr)
    );
    assert_eq!(from_stdin.stdout, from_file.stdout);
    // Typed by the schema: `edits` is the array of the two edits, not `{"edit": [...]}`.
    assert_eq!(
        json(&from_stdin)["calls"][0]["arguments"]["edits"][1]["search"]
            .as_str()
            .map(|s| s.starts_with("function process")),
        Some(true)
    );

    let streamed = toolcall(
        &["stream", "examples/apply_diff_cdata.txt", "--schema", "-"],
        Some(&tools),
    );
    assert_eq!(streamed.status.code(), Some(0));
    let events = json_lines(&streamed);
    let finished = events
        .iter()
        .find(|e| e["event"] == "call_finished")
        .unwrap();
    assert!(finished["call"]["arguments"]["edits"].is_array());
}

#[test]
fn schema_and_response_cannot_both_come_from_standard_input() {
    for args in [
        &["parse", "-", "--schema", "-"][..],
        &["parse", "--schema", "-"][..],
        &["stream", "-", "--schema", "-"][..],
        &["stream", "--schema", "-"][..],
    ] {
        // Nothing on standard input: the command refuses before reading it.
        let out = toolcall(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        let stderr = common::text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("toolcall: error: --schema - reads"),
            "{stderr}"
        );
        assert!(stderr.contains("give the response as a FILE"), "{stderr}");
    }
    // A schema on standard input that is not JSON is named as such.
    let out = toolcall(
        &["parse", "examples/write_file.txt", "--schema", "-"],
        Some("[{"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(common::text(&out.stderr).contains("standard input is not valid JSON"));
}

#[test]
fn every_error_object_carries_the_feedback_for_the_model() {
    let reply = "Hi\n<tool><tool_name>w</tool_name><arguments><a>1</b></arguments></tool>";
    let expected = toolcall::parser::parse(reply).errors()[0].feedback();
    assert!(expected.starts_with("Your call to `w` could not be read"));

    let v = json(&toolcall(&["parse", "-"], Some(reply)));
    let error = v["errors"][0].as_object().unwrap();
    assert_eq!(error["feedback"], expected.as_str());
    // The fields that were there before are all still there, in their order; fields added
    // since (the byte span, feedback) follow them.
    let keys: Vec<&str> = error.keys().map(String::as_str).collect();
    assert_eq!(
        keys[..6],
        ["kind", "message", "line", "column", "snippet", "tool_name"]
    );
    assert!(
        keys.contains(&"feedback") && keys.contains(&"span"),
        "{keys:?}"
    );

    // A call that ends in an error, streamed.
    let events = json_lines(&toolcall(&["stream", "-"], Some(reply)));
    let finished = events
        .iter()
        .find(|e| e["event"] == "call_finished")
        .unwrap();
    assert_eq!(finished["error"]["kind"], "mismatched_tag");
    assert_eq!(finished["error"]["feedback"], expected.as_str());

    // An error outside any call (the call limit), in both outputs.
    let many = "<tool><tool_name>a</tool_name></tool>".repeat(1025);
    let limit_feedback = toolcall::parser::parse(&many).errors()[0].feedback();
    let v = json(&toolcall(&["parse", "-"], Some(&many)));
    assert_eq!(v["errors"][0]["kind"], "limit_exceeded");
    assert_eq!(v["errors"][0]["feedback"], limit_feedback.as_str());
    let events = json_lines(&toolcall(
        &["stream", "-", "--chunk-size", "4096"],
        Some(&many),
    ));
    let error = events.iter().find(|e| e["event"] == "error").unwrap();
    assert_eq!(error["error"]["kind"], "limit_exceeded");
    assert_eq!(error["error"]["feedback"], limit_feedback.as_str());
}

/// `toolcall parse … | head`: when the reader of the output goes away, the CLI stops quietly
/// (exit 0), with no "internal error".
#[test]
fn a_closed_output_pipe_is_not_an_error() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let reply =
        "<tool><tool_name>w</tool_name><arguments><a>x</a></arguments></tool>\n".repeat(3000);
    for command in ["parse", "stream"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolcall"))
            .args([command, "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        // Close our end of its output before it writes: every write meets a closed pipe.
        drop(child.stdout.take());
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(reply.as_bytes());
        drop(stdin);
        let out = child.wait_with_output().expect("finishes");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("internal error"), "{command}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{command}: {stderr}");
    }
}

/// Integers beyond 2^64 keep every digit in the JSON of `parse` and `stream`.
#[test]
fn big_integers_keep_every_digit() {
    let dir = std::env::temp_dir().join(format!("toolcall-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        r#"[{"type":"function","function":{"name":"lookup","parameters":{"type":"object","properties":{"value":{"type":"number"}}}}}]"#,
    )
    .unwrap();
    let reply = "<tool_call>\n<function=lookup>\n<parameter=value>\n-123456789012345678901234567890\n</parameter>\n</function>\n</tool_call>";
    let tools = tools.to_str().unwrap();
    for command in ["parse", "stream"] {
        let out = toolcall(
            &[command, "--dialect", "qwen3-coder", "--schema", tools, "-"],
            Some(reply),
        );
        let text = common::text(&out.stdout);
        assert!(
            text.contains("\"value\":-123456789012345678901234567890")
                || text.contains("\"value\": -123456789012345678901234567890"),
            "{command}: {text}"
        );
    }
}

/// Integers beyond a float's range (309 digits and more, sizes doubling to 2,472) keep every
/// digit, and the call keeps its fields, in `parse`, `stream`'s `call_finished` and a Kimi-K3
/// `argument_value` event: the output once went through `serde_json::Value`, which cannot hold
/// them, and printed `{"typed_by": "schema"}` alone (Dynamo's GLM suite).
#[test]
fn integers_beyond_a_float_keep_the_call_and_every_digit() {
    let dir = std::env::temp_dir().join(format!("toolcall-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        r#"[{"name":"inspect","inputSchema":{"type":"object","properties":{"value":{"type":"integer"}}}}]"#,
    )
    .unwrap();
    let tools = tools.to_str().unwrap();
    for digits in [309, 618, 1236, 2472] {
        let n = format!("2{}", "0".repeat(digits - 1));
        let replies = [
            (
                "glm",
                format!(
                    "<tool_call>inspect<arg_key>value</arg_key><arg_value>{n}</arg_value></tool_call>"
                ),
            ),
            (
                "kimi-k3",
                format!(
                    "<|open|>call tool=\"inspect\"<|sep|><|open|>argument key=\"value\" \
                type=\"integer\"<|sep|>{n}<|close|>argument<|sep|><|close|>call<|sep|>"
                ),
            ),
        ];
        for (dialect, reply) in &replies {
            for command in ["parse", "stream"] {
                let out = toolcall(
                    &[command, "--dialect", dialect, "--schema", tools, "-"],
                    Some(reply),
                );
                let text = common::text(&out.stdout);
                assert_eq!(out.status.code(), Some(0), "{command} {dialect}: {text}");
                assert!(
                    text.contains("\"tool_name\"") && text.contains("\"span\""),
                    "{text}"
                );
                let written = text.matches(&format!(":{n}")).count()
                    + text.matches(&format!(": {n}")).count();
                let expected = match (command, *dialect) {
                    ("stream", "kimi-k3") => 2, // argument_value, then call_finished
                    _ => 1,
                };
                assert_eq!(written, expected, "{command} {dialect} {digits}: {text}");
            }
        }
    }
}

/// Issue 14 item 8: `toolcall stream` reads standard input as it arrives and prints each event's
/// line as soon as it is certain: the first line arrives while the input is still open, before
/// its second part is written. (The wait is a guard against a hang, not a measure of speed.)
#[test]
fn stream_prints_events_before_the_input_ends() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .args(["stream", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the toolcall binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().and_then(Result::ok);
        tx.send(first).expect("the test waits");
        lines.map_while(Result::ok).collect::<Vec<_>>()
    });
    stdin
        .write_all("Writing it.\n<tool><tool_name>w</tool_name><arguments><p>a</p>".as_bytes())
        .expect("write the first part");
    stdin.flush().expect("flush");
    let first = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("a line arrives while the input is still open");
    let first: Value = serde_json::from_str(&first.expect("a first line")).unwrap();
    assert_eq!(first["event"], "prose");
    assert_eq!(first["text"], "Writing it.\n");
    stdin
        .write_all(b"</arguments></tool>")
        .expect("write the second part");
    drop(stdin);
    let rest = reader.join().expect("the reader ends");
    assert_eq!(child.wait().expect("toolcall ends").code(), Some(0));
    let last: Value = serde_json::from_str(rest.last().expect("more lines")).unwrap();
    assert_eq!(last["event"], "call_finished");
    assert_eq!(last["call"]["arguments"]["p"], "a");
}

/// `stream --openai`: OpenAI-style deltas, one JSON line each; a call's argument fragments
/// concatenate to its arguments JSON as `parse` gives it, in every chunk size.
#[test]
fn stream_openai_prints_tool_call_deltas() {
    let reply = "Writing.\n<tool_call>\n<function=write_file>\n<parameter=path>\na.rs\n</parameter>\n<parameter=content>\nfn main() {}\n</parameter>\n</function>\n</tool_call>";
    let parsed = json(&toolcall(
        &["parse", "--dialect", "qwen3-coder", "-"],
        Some(reply),
    ));
    let want = parsed["calls"][0]["arguments"].to_string();
    for n in ["1", "3", "16", "1000"] {
        let lines = json_lines(&toolcall(
            &[
                "stream",
                "--openai",
                "--dialect",
                "qwen3-coder",
                "--chunk-size",
                n,
                "-",
            ],
            Some(reply),
        ));
        let content: String = lines.iter().filter_map(|l| l["content"].as_str()).collect();
        assert_eq!(content, "Writing.\n");
        let start = lines
            .iter()
            .find(|l| l["tool_calls"][0]["id"] == "call_0")
            .unwrap();
        assert_eq!(start["tool_calls"][0]["function"]["name"], "write_file");
        let arguments: String = lines
            .iter()
            .filter_map(|l| l["tool_calls"][0]["function"]["arguments"].as_str())
            .collect();
        assert_eq!(arguments, want, "chunks of {n}");
        assert!(lines.iter().any(|l| l["tool_call_done"]["index"] == 0));
    }
    // A truncated call fails, and the command says so in its exit status.
    let out = toolcall(
        &["stream", "--openai", "--dialect", "qwen3-coder", "-"],
        Some("<tool_call>\n<function=rm>\n<parameter=path>\n/tmp"),
    );
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&out);
    assert!(lines.iter().any(|l| l["tool_call_failed"]["index"] == 0));
}

/// Any member name is a member in every JSON the CLI reads: a legacy call, a schema file, an
/// events file, even `$serde_json::private::RawValue`, which serde_json's `raw_value` feature
/// (on in this build) makes `serde_json::Value` read as raw JSON text.
#[test]
fn every_json_input_may_use_any_member_name() {
    const NAME: &str = "$serde_json::private::RawValue";
    let dir = std::env::temp_dir().join(format!("toolcall-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        format!(
            r#"[{{"name":"t","inputSchema":{{"type":"object","properties":{{"n":{{"{NAME}":"","type":"integer"}}}}}}}}]"#
        ),
    )
    .unwrap();
    let tools = tools.to_str().unwrap();
    let reply = format!(
        r#"<tool><tool_name>t</tool_name><arguments><n>7</n></arguments></tool>
           <tool>{{"tool_name":"t","arguments":{{"{NAME}":{{"{NAME}":"x"}}}}}}</tool>"#
    );
    let out = toolcall(&["parse", "--schema", tools, "-"], Some(&reply));
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let json: serde_json::Value =
        toolcall::args::value::json_from_str(common::text(&out.stdout)).expect("parse prints JSON");
    // The schema was read: it types `n` (the integer 7, typed by the schema).
    assert_eq!(json["calls"][0]["arguments"]["n"], 7, "{json}");
    assert_eq!(json["calls"][0]["typed_by"], "schema", "{json}");
    assert_eq!(json["calls"][1]["arguments"][NAME][NAME], "x", "{json}");
    // The tool list was read: its tool is in the prompt.
    let out = toolcall(&["prompt", "--tools", tools], None);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    assert!(common::text(&out.stdout).contains("<tool_name>t</tool_name>"));
    let events = format!(
        r#"[{{"type":"tool_result","toolCallId":"c","result":{{"{NAME}":"x"}},"iteration":1}}]"#
    );
    let out = toolcall(&["thread", "-"], Some(&events));
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    assert!(common::text(&out.stdout).contains(NAME));
}
