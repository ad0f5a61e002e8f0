//! The reasoning channel through the CLI (docs/FORMAT.md §10): `--reasoning`,
//! `--reasoning-open`, `--calls-in-reasoning end|text|flag`, for `parse` and `stream`.

mod common;

use common::{text, toolcall};
use serde_json::Value;

const CALL: &str =
    "<tool_call>\n<function=ls>\n<parameter=dir>\n/tmp\n</parameter>\n</function>\n</tool_call>";

fn parse(args: &[&str], input: &str) -> (Option<i32>, Value) {
    let mut all = vec!["parse", "-", "--dialect", "qwen3-coder"];
    all.extend_from_slice(args);
    let out = toolcall(&all, Some(input));
    let v = serde_json::from_slice(&out.stdout).expect("one JSON object");
    (out.status.code(), v)
}

#[test]
fn without_the_flags_nothing_changes() {
    let input = format!("<think>hm</think>ok {CALL}");
    let (code, v) = parse(&[], &input);
    assert_eq!(code, Some(0));
    assert!(v.get("reasoning").is_none() && v.get("reasoning_calls").is_none());
    assert_eq!(v["prose"], "<think>hm</think>ok ");
}

#[test]
fn reasoning_is_split_off_and_open_starts_inside_it() {
    let (code, v) = parse(&["--reasoning"], &format!("<think>hm</think>ok {CALL}"));
    assert_eq!(code, Some(0));
    assert_eq!(v["reasoning"], "hm");
    assert_eq!(v["prose"], "ok ");
    assert_eq!(v["calls"][0]["arguments"]["dir"], "/tmp");
    assert_eq!(v["reasoning_calls"], Value::Array(vec![]));
    let (_, v) = parse(&["--reasoning-open"], "still</think>done");
    assert_eq!(
        (v["reasoning"].as_str(), v["prose"].as_str()),
        (Some("still"), Some("done"))
    );
}

#[test]
fn each_policy_for_calls_in_reasoning() {
    let input = format!("<think>try {CALL} more</think>answer");
    // end (the default): the call ends reasoning and is an answer call.
    let (code, v) = parse(&["--calls-in-reasoning", "end"], &input);
    assert_eq!(code, Some(0));
    assert_eq!(v["calls"][0]["tool_name"], "ls");
    assert_eq!(v["reasoning"], "try ");
    // text: it stays reasoning.
    let (_, v) = parse(&["--calls-in-reasoning", "text"], &input);
    assert_eq!(v["calls"], Value::Array(vec![]));
    assert!(v["reasoning"].as_str().unwrap().contains("<function=ls>"));
    assert_eq!(v["prose"], "answer");
    // flag: parsed and reported apart, never among the calls.
    let (code, v) = parse(&["--calls-in-reasoning", "flag"], &input);
    assert_eq!(code, Some(0));
    assert_eq!(v["calls"], Value::Array(vec![]));
    assert_eq!(v["reasoning_calls"][0]["tool_name"], "ls");
    assert_eq!(v["reasoning_calls"][0]["arguments"]["dir"], "/tmp");
    assert_eq!(v["reasoning"], "try  more");
    assert_eq!(v["prose"], "answer");
    // A call cut off inside reasoning is a reasoning error, which is not an input error.
    let (code, v) = parse(
        &["--calls-in-reasoning", "flag"],
        "<think>go <tool_call>\n<function=rm>",
    );
    assert_eq!(code, Some(0));
    assert_eq!(v["reasoning_errors"][0]["kind"], "unterminated_call");
    assert_eq!(v["errors"], Value::Array(vec![]));
    // An unknown policy is a usage error.
    let out = toolcall(&["parse", "-", "--calls-in-reasoning", "maybe"], Some(""));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn stream_reports_calls_in_reasoning_as_their_own_events() {
    let input = format!("<think>try {CALL} more</think>answer");
    let out = toolcall(
        &[
            "stream",
            "-",
            "--dialect",
            "qwen3-coder",
            "--calls-in-reasoning",
            "flag",
            "--chunk-size",
            "5",
        ],
        Some(&input),
    );
    assert_eq!(out.status.code(), Some(0));
    let events: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert!(!kinds.contains(&"call_started"), "{kinds:?}");
    let flagged: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "reasoning_call")
        .collect();
    assert_eq!(flagged.len(), 1);
    assert_eq!(flagged[0]["call"]["tool_name"], "ls");
    let reasoning: String = events
        .iter()
        .filter(|e| e["event"] == "reasoning")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(reasoning, "try  more");
}
