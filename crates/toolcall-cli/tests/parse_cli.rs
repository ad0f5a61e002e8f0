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
