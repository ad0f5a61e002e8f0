//! The reasoning channel (docs/FORMAT.md §10): each rule and each cell of the policy table,
//! one-shot and in every chunking; and the reasoning fixtures.

mod common;

use serde_json::Value as Json;
use toolcall_parser::{
    CallsInReasoning, Dialect, ParseOptions, ParseResult, Reasoning, StreamEvent,
};

fn opts(dialect: Dialect, open: bool, calls: CallsInReasoning) -> ParseOptions {
    ParseOptions::new().with_dialect(dialect).with_reasoning(
        Reasoning::for_dialect(dialect)
            .starting_open(open)
            .with_calls_in_reasoning(calls),
    )
}

/// Parses one-shot, checks every chunking agrees, returns the result.
fn parse(text: &str, opts: &ParseOptions) -> ParseResult {
    common::assert_chunking_invariant(text, opts)
}

fn qwen_call(name: &str) -> String {
    format!("<tool_call>\n<function={name}>\n</function>\n</tool_call>")
}

#[test]
fn a_think_block_is_split_off_and_the_answer_is_prose() {
    let o = opts(Dialect::Qwen3Coder, false, CallsInReasoning::End);
    let r = parse(
        &format!(
            "<think>\nplan it\n</think>\n\nDoing it.\n{}",
            qwen_call("ls")
        ),
        &o,
    );
    assert_eq!(r.reasoning(), "\nplan it\n");
    assert_eq!(r.prose(), "\n\nDoing it.\n");
    assert_eq!(r.calls()[0].tool_name, "ls");
    // Spans and positions are those of the whole input.
    let text = format!("<think>x</think>{}", qwen_call("ls"));
    let r = parse(&text, &o);
    assert_eq!(r.calls()[0].span.start, "<think>x</think>".len());
}

#[test]
fn without_the_option_nothing_changes() {
    let text = format!("<think>a</think>{}", qwen_call("ls"));
    let r = parse(
        &text,
        &ParseOptions::new().with_dialect(Dialect::Qwen3Coder),
    );
    assert_eq!(r.reasoning(), "");
    assert_eq!(r.prose(), "<think>a</think>");
}

#[test]
fn the_output_may_start_inside_reasoning() {
    let r = parse(
        "thinking\n</think>answer",
        &opts(Dialect::Qwen3Coder, true, CallsInReasoning::End),
    );
    assert_eq!(r.reasoning(), "thinking\n");
    assert_eq!(r.prose(), "answer");
}

#[test]
fn output_that_ends_inside_reasoning_is_all_reasoning_and_yields_no_call() {
    let o = opts(Dialect::Qwen3Coder, false, CallsInReasoning::Text);
    let text = format!("<think>I will call {}", qwen_call("rm"));
    let r = parse(&text, &o);
    assert!(r.calls().is_empty() && r.errors().is_empty());
    assert_eq!(r.reasoning(), &text["<think>".len()..]);
    assert_eq!(r.prose(), "");
}

#[test]
fn a_second_closing_marker_is_dropped() {
    let r = parse(
        "<think>a</think>\n</think>answer </think>",
        &opts(Dialect::Hermes, false, CallsInReasoning::End),
    );
    assert_eq!(r.reasoning(), "a");
    // Only right after reasoning: later in the answer it is prose.
    assert_eq!(r.prose(), "answer </think>");
}

#[test]
fn policy_end_a_call_marker_ends_reasoning_and_the_call_is_parsed() {
    let o = opts(Dialect::Qwen3Coder, false, CallsInReasoning::End);
    let r = parse(&format!("<think>need files {}", qwen_call("ls")), &o);
    assert_eq!(r.reasoning(), "need files ");
    assert_eq!(r.calls()[0].tool_name, "ls");
    // Quoted, it stays reasoning.
    let r = parse("<think>the `<tool_call>` tag</think>ok", &o);
    assert_eq!(r.reasoning(), "the `<tool_call>` tag");
    assert_eq!(r.prose(), "ok");
}

#[test]
fn policy_text_call_markup_stays_reasoning() {
    let o = opts(Dialect::Qwen3Coder, false, CallsInReasoning::Text);
    let text = format!("<think>maybe {}</think>no call", qwen_call("ls"));
    let r = parse(&text, &o);
    assert!(r.calls().is_empty());
    assert_eq!(r.reasoning(), format!("maybe {}", qwen_call("ls")));
    assert_eq!(r.prose(), "no call");
}

#[test]
fn every_dialect_has_markers_and_the_default_policy_is_end() {
    for &d in Dialect::ALL {
        let r = Reasoning::for_dialect(d);
        let (open, close) = r.markers();
        assert!(!open.is_empty() && !close.is_empty(), "{d}");
        assert_eq!(
            r,
            Reasoning::for_dialect(d).with_calls_in_reasoning(CallsInReasoning::End)
        );
    }
    assert_eq!(
        Dialect::SeedOss.reasoning_markers(),
        ("<seed:think>", "</seed:think>")
    );
}

#[test]
fn reasoning_streams_as_it_is_written() {
    let o = opts(Dialect::Qwen3Coder, false, CallsInReasoning::End);
    let text = "<think>".to_owned() + &"abc ".repeat(100) + "</think>done";
    let events = common::stream_events(&text, &o, 16);
    let pieces = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Reasoning { .. }))
        .count();
    assert!(pieces > 10, "reasoning came in {pieces} pieces");
}

/// `tests/fixtures/dialects/reasoning.jsonl`: the split SGLang's reasoning parser makes (the
/// text handed on to the tool parser is our answer: prose, or the markup of a call).
#[test]
fn reasoning_fixtures() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/dialects/reasoning.jsonl");
    let text = std::fs::read_to_string(path).expect("fixture file");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).expect("JSON");
        let id = case["id"].as_str().expect("id");
        let input = case["input"].as_str().expect("input");
        let open = case["reasoning_start_in_prompt"].as_bool().unwrap_or(false);
        // The cases are GLM's; its reasoning block and call opener are Qwen3-Coder's too.
        let o = opts(Dialect::Qwen3Coder, open, CallsInReasoning::End);
        let r = parse(input, &o);
        assert_eq!(
            r.reasoning(),
            case["expected_reasoning"].as_str().expect("reasoning"),
            "{id}"
        );
        // What the splitter hands on is the answer: the rest of the input, after reasoning.
        let answer = case["expected_content"].as_str().expect("content");
        assert!(input.ends_with(answer), "{id}");
        let answer_start = input.len() - answer.len();
        assert!(
            r.segments.iter().all(
                |s| !matches!(s, toolcall_parser::Segment::Prose(p) if !answer.contains(p.as_str()))
            ),
            "{id}: prose outside the answer"
        );
        assert!(answer_start >= r.reasoning().len(), "{id}");
        n += 1;
    }
    assert_eq!(n, 7);
}
