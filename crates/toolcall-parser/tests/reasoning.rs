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

/// FORMAT §10 rule 2: when the prompt opened reasoning, an opening marker the model writes
/// again at the very start (after blanks, which stay reasoning) is dropped; later it is text
/// (Dynamo's Qwen3 suite, `reasoning_prefill_consumes_a_redundant_split_opener`).
#[test]
fn a_repeated_opening_marker_at_the_start_of_open_reasoning_is_dropped() {
    for d in [Dialect::Qwen3Coder, Dialect::KimiK3, Dialect::MinimaxM3] {
        let (open, close) = d.reasoning_markers();
        let o = opts(d, true, CallsInReasoning::End);
        let r = parse(&format!("\n{open}hidden{close}answer"), &o);
        assert_eq!(r.reasoning(), "\nhidden", "{d}");
        assert_eq!(r.prose(), "answer", "{d}");
        let r = parse(&format!("a {open}b{close}c"), &o);
        assert_eq!(r.reasoning(), format!("a {open}b"), "{d}");
        assert_eq!(r.prose(), "c", "{d}");
    }
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

/// A streamed token of reasoning is handed on at once: the end of a chunk waits only when it may
/// begin the closing marker or a call marker (docs/FORMAT.md §10), never a fixed number of
/// bytes. Every chunk's reasoning is all of it but such a prefix, and the whole reads as one-shot.
#[test]
fn reasoning_waits_only_for_what_may_begin_a_marker() {
    let o = opts(Dialect::Qwen3Coder, false, CallsInReasoning::End);
    let mut p = toolcall_parser::StreamParser::with_options(o.clone());
    let reasoning = |events: Vec<StreamEvent>| -> String {
        (events.iter())
            .filter_map(|e| match e {
                StreamEvent::Reasoning { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(reasoning(p.feed("<think>so a")), "so a");
    assert_eq!(reasoning(p.feed(" < b and")), " < b and");
    // `</thi` may begin `</think>`, `<tool_c` may begin `<tool_call>`: held, then read as text
    // when the next chunk shows they were not.
    assert_eq!(reasoning(p.feed(" x </thi")), " x ");
    assert_eq!(reasoning(p.feed("s> y <tool_c")), "</this> y ");
    assert_eq!(reasoning(p.feed("at")), "<tool_cat");
    assert_eq!(reasoning(p.feed(" <")), " ");
    assert_eq!(reasoning(p.feed("/think>done")), "");
    p.finish();
    let text = "<think>so a < b and x </this> y <tool_cat </think>done";
    let r = parse(text, &o);
    assert_eq!(r.reasoning(), "so a < b and x </this> y <tool_cat ");
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

/// One call to `f` with the argument `p` = `v`, in each dialect's syntax (`auto` reads `tool`'s).
fn call_in(d: Dialect) -> &'static str {
    match d {
        Dialect::Qwen3Coder => {
            "<tool_call>\n<function=f>\n<parameter=p>\nv\n</parameter>\n</function>\n</tool_call>"
        }
        Dialect::SeedOss => {
            "<seed:tool_call>\n<function=f>\n<parameter=p>\nv\n</parameter>\n</function>\n\
             </seed:tool_call>"
        }
        Dialect::Hermes => {
            "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"p\": \"v\"}}\n</tool_call>"
        }
        Dialect::Glm => {
            "<tool_call>f\n<arg_key>p</arg_key>\n<arg_value>v</arg_value>\n</tool_call>"
        }
        Dialect::MinimaxM2 => {
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"p\">v</parameter>\n\
             </invoke>\n</minimax:tool_call>"
        }
        Dialect::Anthropic => {
            "<function_calls>\n<invoke name=\"f\">\n<parameter name=\"p\">v</parameter>\n\
             </invoke>\n</function_calls>"
        }
        Dialect::DeepseekDsml => {
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"p\" \
             string=\"true\">v</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
        }
        Dialect::Step3 => {
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke \
             name=\"f\">\n<steptml:parameter name=\"p\">v</steptml:parameter>\n</steptml:invoke>\
             <｜tool_call_end｜><｜tool_calls_end｜>"
        }
        Dialect::KimiK3 => {
            "<|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"p\" \
             type=\"string\"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|>"
        }
        Dialect::MinimaxM3 => {
            "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">\n]<]minimax[>[<p>v\
             ]<]minimax[>[</p>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>"
        }
        _ => "<tool><tool_name>f</tool_name><arguments><p>v</p></arguments></tool>",
    }
}

/// Policy `flag`, in every dialect: a call inside reasoning is parsed and reported apart
/// (`reasoning_calls`), never among the answer's calls, which are numbered from 0; the text
/// around it stays reasoning, and reasoning goes on after it to the closing marker.
#[test]
fn policy_flag_calls_in_reasoning_are_reported_apart_in_every_dialect() {
    for &d in Dialect::ALL {
        let o = opts(d, false, CallsInReasoning::Flag);
        let (open, close) = d.reasoning_markers();
        let call = call_in(d);
        let text = format!("{open}first {call} then{close}answer {call}");
        let r = parse(&text, &o);
        assert_eq!(r.reasoning_calls().len(), 1, "{d}: {:?}", r.segments);
        let flagged = r.reasoning_calls()[0];
        assert_eq!(flagged.tool_name, "f", "{d}");
        assert_eq!(flagged.arguments["p"].as_str(), Some("v"), "{d}");
        assert_eq!(r.calls().len(), 1, "{d}: {:?}", r.segments);
        assert_eq!(r.calls()[0].tool_name, "f");
        assert!(
            r.errors().is_empty() && r.reasoning_errors().is_empty(),
            "{d}"
        );
        assert_eq!(r.reasoning().trim_end(), "first  then", "{d}");
        assert_eq!(r.prose(), "answer ", "{d}");
        // Streamed: the flagged call announces nothing (no index, no deltas); the answer's
        // call is call 0.
        let events = common::stream_events(&text, &o, 3);
        let started: Vec<usize> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::CallStarted { index, .. } => Some(*index),
                _ => None,
            })
            .collect();
        assert_eq!(started, [0], "{d}");
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, StreamEvent::ReasoningCall { .. }))
                .count(),
            1,
            "{d}"
        );
    }
}

/// Policy `flag`: a closing marker inside a call's value is the value's text; reasoning ends at
/// the first closing marker outside a call.
#[test]
fn policy_flag_a_closing_marker_inside_a_call_is_its_text() {
    let o = opts(Dialect::Qwen3Coder, false, CallsInReasoning::Flag);
    let text = "<think>x <tool_call>\n<function=say>\n<parameter=t>\nI </think> now\n</parameter>\n\
                </function>\n</tool_call> y</think>done";
    let r = parse(text, &o);
    assert_eq!(
        r.reasoning_calls()[0].arguments["t"].as_str(),
        Some("I </think> now")
    );
    assert_eq!(r.reasoning(), "x  y");
    assert_eq!(r.prose(), "done");
    assert!(r.calls().is_empty());
}

/// Policy `flag`: a marker that begins no call is reasoning text; a call cut off by the end of
/// the output (inside reasoning) is a reasoning error, never a call of either kind; output that
/// ends inside reasoning yields no answer call.
#[test]
fn policy_flag_non_calls_and_cut_calls() {
    let o = opts(Dialect::Qwen3Coder, false, CallsInReasoning::Flag);
    let r = parse("<think>the <tool_call> tag is</think>ok", &o);
    assert_eq!(r.reasoning(), "the <tool_call> tag is");
    assert!(r.reasoning_calls().is_empty() && r.reasoning_errors().is_empty());
    assert_eq!(r.prose(), "ok");

    let r = parse(
        "<think>go <tool_call>\n<function=rm>\n<parameter=path>\n/tmp/bu",
        &o,
    );
    assert!(r.calls().is_empty() && r.reasoning_calls().is_empty());
    assert!(r.errors().is_empty());
    let e = r.reasoning_errors()[0];
    assert_eq!(e.kind, toolcall_parser::ErrorKind::UnterminatedCall);
    assert_eq!(r.reasoning(), "go ");
    assert_eq!(r.prose(), "");

    // Starting open, as the Qwen3 thinking template does.
    let o = opts(Dialect::Qwen3Coder, true, CallsInReasoning::Flag);
    let r = parse(&format!("a {} b</think>c", qwen_call("ls")), &o);
    assert_eq!(r.reasoning_calls()[0].tool_name, "ls");
    assert_eq!(r.reasoning(), "a  b");
    assert_eq!(r.prose(), "c");
}

/// Policy `flag`: 1,000 calls inside one reasoning block, streamed in small chunks, are each
/// reported, as one-shot; `max_calls` counts them apart from the answer's calls.
#[test]
fn policy_flag_many_calls_in_reasoning() {
    let o = opts(Dialect::Qwen3Coder, false, CallsInReasoning::Flag);
    let text = format!(
        "<think>{}</think>end",
        format!("x {} ", qwen_call("ls")).repeat(1_000)
    );
    let r = common::parse_chunked(&text, &o, 7);
    assert_eq!(r.reasoning_calls().len(), 1_000);
    assert_eq!(r.prose(), "end");
    assert_eq!(r, toolcall_parser::parse_with(&text, &o));
}

proptest::proptest! {
    /// Policy `flag` on any soup of every dialect's markup, opened by the marker or starting
    /// open: the same result in every chunking (and no panic).
    #[test]
    fn policy_flag_is_chunking_invariant(text in common::soup(), d in 0..Dialect::ALL.len()) {
        let d = Dialect::ALL[d];
        let o = opts(d, false, CallsInReasoning::Flag);
        let t = format!("{}{}", d.reasoning_markers().0, text);
        common::assert_chunking_invariant(&t, &o);
        let o = opts(d, true, CallsInReasoning::Flag);
        common::assert_chunking_invariant(&text, &o);
    }
}

/// A call the model writes out inside a closed reasoning block and then again in its answer
/// (vLLM's older Seed-OSS test `tool_call_unlimited_thinking_budget`, whose parser skipped
/// everything before `</seed:think>`): under the default, `end`, the first ends reasoning and
/// both are calls, the text between them and the late closing marker prose; under `text` it is
/// the one call of the answer; under `flag` one call and one reasoning call. Docs/FORMAT.md §10
/// rule 4 records the choice.
#[test]
fn a_call_written_in_closed_reasoning_and_again_in_the_answer() {
    let call = "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, \
                Spain</parameter>\n</function>\n</seed:tool_call>";
    let text =
        format!("<seed:think>\nThe format is {call}. Let me go with that.</seed:think>{call}");
    let names = |r: &ParseResult| -> Vec<String> {
        r.calls().iter().map(|c| c.tool_name.clone()).collect()
    };
    let end = parse(&text, &opts(Dialect::SeedOss, false, CallsInReasoning::End));
    assert_eq!(names(&end), ["get_weather", "get_weather"]);
    assert_eq!(end.reasoning(), "\nThe format is ");
    assert_eq!(end.prose(), ". Let me go with that.</seed:think>");

    let text_policy = parse(
        &text,
        &opts(Dialect::SeedOss, false, CallsInReasoning::Text),
    );
    assert_eq!(names(&text_policy), ["get_weather"]);
    assert_eq!(
        text_policy.reasoning(),
        format!("\nThe format is {call}. Let me go with that.")
    );
    assert_eq!(text_policy.prose(), "");
    assert_eq!(
        text_policy.calls()[0].span.start,
        text.len() - call.len(),
        "the answer's call, not the one in reasoning"
    );

    let flag = parse(
        &text,
        &opts(Dialect::SeedOss, false, CallsInReasoning::Flag),
    );
    assert_eq!(names(&flag), ["get_weather"]);
    assert_eq!(flag.reasoning_calls().len(), 1);
}
