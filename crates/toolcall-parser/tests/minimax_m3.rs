//! MiniMax-M3 (docs/FORMAT.md §9.9): one test per rule, then the cases that vLLM's and Dynamo's
//! tests assert (`tests/fixtures/dialects/minimax-m3-FORMAT.md`), with ours where we decide
//! differently. Every input is also streamed in every chunk size from 1 to 17 (and 31, 64, 100,
//! 4096) and must give exactly the one-shot result.
//!
//! Inputs write the namespace marker `]<]minimax[>[` as `§`.

mod common;

use serde_json::{Value as Json, json};
use std::sync::Arc;
use toolcall_parser::{
    CallsInReasoning, Dialect, ErrorKind, Limit, Limits, ParseOptions, ParseResult, Reasoning,
    RepairKind, StreamEvent, ToolSchemas,
};

const MARKER: &str = "]<]minimax[>[";

/// `text` with each `§` replaced by the marker.
fn m3(text: &str) -> String {
    text.replace('§', MARKER)
}

fn opts() -> ParseOptions {
    ParseOptions::new().with_dialect(Dialect::MinimaxM3)
}

fn with_schema(tool: &str, schema: Json) -> ParseOptions {
    let mut schemas = ToolSchemas::default();
    schemas.insert(tool, schema);
    opts().with_schemas(Arc::new(schemas))
}

/// Parses `text` (with `§` for the marker) one-shot, checks every chunking against it.
fn parse_with(text: &str, o: &ParseOptions) -> ParseResult {
    common::assert_chunking_invariant(&m3(text), o)
}

fn parse(text: &str) -> ParseResult {
    parse_with(text, &opts())
}

/// The arguments of call `i`, as JSON.
fn args(r: &ParseResult, i: usize) -> Json {
    Json::from(toolcall_parser::Value::Object(
        r.calls()[i].arguments.clone(),
    ))
}

/// Every repair made, one entry per occurrence (repairs are aggregated per kind and argument).
fn repairs(r: &ParseResult) -> Vec<RepairKind> {
    r.calls()
        .iter()
        .flat_map(|c| c.repairs.iter())
        .flat_map(|r| std::iter::repeat_n(r.kind, r.count))
        .collect()
}

fn kinds(r: &ParseResult) -> Vec<ErrorKind> {
    r.errors().iter().map(|e| e.kind).collect()
}

/// A call to `weather` with one argument, in a block of its own.
const WEATHER: &str =
    "§<tool_call>\n§<invoke name=\"weather\">\n§<city>Paris§</city>\n§</invoke>\n§</tool_call>";

// ----- the rules of §9.9 ------------------------------------------------------------------------

#[test]
fn rule_1_tags_follow_the_marker_and_nothing_else_is_markup() {
    let r = parse(WEATHER);
    assert_eq!(r.calls().len(), 1);
    assert_eq!(args(&r, 0), json!({"city": "Paris"}));
    // Tags without the marker are text; a marker before no tag is text too.
    let r = parse(
        "§<tool_call>§<invoke name=\"f\">§<code><tool_call><invoke name=\"g\"></x> §x §<§</code>\
         §</invoke>§</tool_call>",
    );
    assert_eq!(r.calls().len(), 1);
    assert_eq!(
        args(&r, 0)["code"],
        m3("<tool_call><invoke name=\"g\"></x> §x §<")
    );
    // A tag reaches the first `>`, with no `<` before it.
    let r = parse("§<tool_call§<tool_call>§<invoke name=\"f\">§</invoke>§</tool_call>");
    assert_eq!(r.calls().len(), 1);
    assert_eq!(r.prose(), m3("§<tool_call"));
}

#[test]
fn rule_2_prose_before_between_and_after_blocks_is_kept() {
    let text = format!("Let me look.\n{WEATHER}\nAnd then:\n{WEATHER}\nDone.");
    let r = parse(&text);
    assert_eq!(r.calls().len(), 2);
    assert_eq!(r.prose(), "Let me look.\n\nAnd then:\n\nDone.");
    // Blanks between invokes and before the block's close are layout; a block without an
    // invoke, and an invoke outside a block, are prose.
    let r = parse(
        "A§<tool_call>\n§<invoke name=\"a\">§</invoke>\n  \n§<invoke name=\"b\">§</invoke>\n§</tool_call>B",
    );
    assert_eq!(r.calls().len(), 2);
    assert_eq!(r.prose(), "AB");
    for text in [
        "x §<tool_call>\n§</tool_call> y",
        "x §<invoke name=\"f\">§<a>1§</a>§</invoke> y",
        "x §<tool_call>\n",
    ] {
        let r = parse(text);
        assert!(r.calls().is_empty() && r.errors().is_empty(), "{text}");
        assert_eq!(r.prose(), m3(text));
    }
    // A block the input leaves open after complete invokes is no error.
    let r = parse("§<tool_call>\n§<invoke name=\"a\">§</invoke>\n");
    assert_eq!((r.calls().len(), r.errors().len()), (1, 0));
    assert_eq!(r.prose(), "\n");
    // Nor is one whose close the input cuts off (inside the marker, or inside the tag): the cut
    // text is prose, as rule 1 says of a cut marker (vLLM's `finish_fails_partial_outer_end_marker`
    // input). Text that is no marker stays an error.
    let open = "§<tool_call>\n§<invoke name=\"a\">§</invoke>\n";
    for (cut, prose) in [
        ("]<", "]<"),
        ("]<]minim", "]<]minim"),
        ("§</tool_c", "§</tool_c"),
    ] {
        let r = parse(&format!("{open}{cut}"));
        assert_eq!((r.calls().len(), r.errors().len()), (1, 0), "{cut}");
        assert_eq!(r.prose(), m3(prose), "{cut}");
    }
    let r = parse(&format!("{open}hello"));
    assert_eq!(r.errors()[0].kind, ErrorKind::UnexpectedText);
}

#[test]
fn rule_3_each_invoke_is_a_call_named_by_its_name_attribute() {
    let r = parse(
        "§<tool_call>\n§<invoke name=\"a\">§</invoke>\n§<invoke name='b'>§</invoke>\n\
         §<invoke name= c >§</invoke>\n§<invoke id=\"9\" name=\" d \">§</invoke>\n§</tool_call>",
    );
    let names: Vec<&str> = r.calls().iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    // The first call's span starts at the block, the others at their invoke.
    let text = m3("§<tool_call>\n§<invoke name=\"a\">§</invoke>\n§<invoke name=\"b\">§</invoke>");
    let r = parse_with(&text.replace(MARKER, "§"), &opts());
    assert_eq!(r.calls()[0].span.start, 0);
    assert_eq!(
        r.calls()[1].span.start,
        text.rfind(&m3("§<invoke")).unwrap()
    );
    assert_eq!(r.calls()[1].span.end, text.len());
    // Names are checked.
    let r = parse("§<tool_call>§<invoke name=\"rm -rf\">§<a>1§</a>§</invoke>§</tool_call>after");
    assert_eq!(kinds(&r), [ErrorKind::InvalidToolName]);
    assert!(
        r.errors()[0]
            .feedback()
            .contains(&m3("§<invoke name=\"NAME\">"))
    );
    assert_eq!(r.prose(), "after");
    let r = parse("§<tool_call>§<invoke>§<a>1§</a>§</invoke>§</tool_call>");
    assert_eq!(kinds(&r), [ErrorKind::MissingToolName]);
}

#[test]
fn rule_4_only_invokes_stand_in_a_block() {
    let r = parse("§<tool_call>\nI will call it.\n§<invoke name=\"a\">§</invoke>§</tool_call>");
    assert!(r.calls().is_empty());
    assert_eq!(kinds(&r), [ErrorKind::UnexpectedText]);
    let e = r.errors()[0];
    assert_eq!((e.line, e.column), (2, 1));
    assert!(e.snippet.starts_with("I will call it."));
    assert!(
        e.feedback()
            .contains(&m3("§<tool_call>\n§<invoke name=\"NAME\">"))
    );
    // The block ends there: the rest is prose, and a block after it is read.
    assert_eq!(
        r.prose(),
        m3("§<tool_call>\nI will call it.\n§<invoke name=\"a\">§</invoke>§</tool_call>")
    );
    let r = parse(
        "§<tool_call>\n§<invoke name=\"a\">§</invoke>\n§<city>x§</city>\n§<tool_call>§<invoke name=\"b\">§</invoke>",
    );
    assert_eq!(kinds(&r), [ErrorKind::UnexpectedElement]);
    let names: Vec<&str> = r.calls().iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(r.prose(), m3("§<city>x§</city>\n"));
}

#[test]
fn rule_5_arguments_are_elements_and_nothing_else_stands_in_an_invoke() {
    let r =
        parse("§<tool_call>§<invoke name=\"f\">\n§<a>1§</a>\n§<b>2§</b>\n§</invoke>§</tool_call>");
    assert_eq!(args(&r, 0), json!({"a": "1", "b": "2"}));
    let r = parse("§<tool_call>§<invoke name=\"f\">§<a>1§</a> and text§</invoke>§</tool_call>ok");
    assert_eq!(kinds(&r), [ErrorKind::UnexpectedText]);
    assert!(r.calls().is_empty());
    assert_eq!(r.prose(), "ok");
    let r = parse("§<tool_call>§<invoke name=\"f\">§</a>§</invoke>§</tool_call>");
    assert_eq!(kinds(&r), [ErrorKind::MismatchedTag]);
    assert_eq!(r.errors()[0].tool_name.as_deref(), Some("f"));
}

#[test]
fn rule_6_values_are_raw_text() {
    let r = parse(
        "§<tool_call>§<invoke name=\"f\">§<a>\n  a <b> & c &amp; \r\n§</a>§<e>§</e>§</invoke>§</tool_call>",
    );
    assert_eq!(
        args(&r, 0),
        json!({"a": "\n  a <b> & c &amp; \r\n", "e": ""})
    );
    assert_eq!(
        r.calls()[0].encodings[0].encoding,
        toolcall_parser::Encoding::Raw
    );
}

#[test]
fn rule_7_elements_nest_into_objects_arrays_and_lists() {
    let text = "§<tool_call>§<invoke name=\"f\">\
        §<edit>\n§<path>a.rs§</path>\n§<line>3§</line>\n§</edit>\
        §<tags>§<item>x§</item>§<item>y§</item>§</tags>\
        §<tag>p§</tag>§<tag>q§</tag>\
        §<msg>Hi §<b>you§</b>!§</msg>\
        §<m2>t§<$text>c§</$text>§</m2>\
        §<none>§</none>\
        §</invoke>§</tool_call>";
    let r = parse(text);
    assert_eq!(
        args(&r, 0),
        json!({
            "edit": {"path": "a.rs", "line": "3"},
            "tags": {"item": ["x", "y"]},
            "tag": ["p", "q"],
            "msg": {"b": "you", "$text": "Hi !"},
            "m2": {"$text": "c", "$$text": "t"},
            "none": ""
        })
    );
    assert_eq!(
        r.calls()[0].encodings[0].encoding,
        toolcall_parser::Encoding::Structured
    );
    let schema = json!({"type": "object", "properties": {
        "edit": {"type": "object", "properties": {"line": {"type": "integer"}}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "tag": {"type": "array"},
        "none": {"type": "array"},
        "obj": {"type": "object"}
    }});
    let r = parse_with(
        &text.replace("§</invoke>", "§<obj>§</obj>§</invoke>"),
        &with_schema("f", schema),
    );
    let a = args(&r, 0);
    assert_eq!(a["edit"], json!({"path": "a.rs", "line": 3}));
    assert_eq!(a["tags"], json!(["x", "y"]));
    assert_eq!(a["tag"], json!(["p", "q"]));
    assert_eq!(
        (a["none"].clone(), a["obj"].clone()),
        (json!([]), json!({}))
    );
    assert!(r.calls()[0].repairs.is_empty());
    // A close tag must close the innermost open element.
    let r = parse("§<tool_call>§<invoke name=\"f\">§<a>§<b>1§</a>§</b>§</invoke>§</tool_call>");
    assert_eq!(kinds(&r), [ErrorKind::MismatchedTag]);
    assert!(r.errors()[0].message.contains(&m3("expected §</b>")));
}

#[test]
fn rule_8_types_come_from_the_schema_and_one_bad_value_drops_nothing() {
    let schema = json!({"type": "object", "properties": {
        "days": {"type": "integer"},
        "ratio": {"type": "number"},
        "on": {"type": "boolean"},
        "tag": {"type": "string"},
        "opts": {"type": "object"},
        "list": {"type": "array"},
        "n": {"type": ["integer", "null"]},
        "bad": {"type": "integer"},
        "html": {"type": "string"}
    }});
    let r = parse_with(
        "§<tool_call>§<invoke name=\"f\">§<days> 7 §</days>§<ratio>5.0§</ratio>§<on>True§</on>\
         §<tag>007§</tag>§<opts>{\"nested\": true}§</opts>§<list>[1, 2]§</list>§<n>null§</n>\
         §<bad>many§</bad>§<html>§<b>x§</b>§</html>§<extra>1§</extra>§</invoke>§</tool_call>",
        &with_schema("f", schema),
    );
    assert_eq!(
        args(&r, 0),
        json!({
            "days": 7, "ratio": 5.0, "on": true, "tag": "007", "opts": {"nested": true},
            "list": [1, 2], "n": null, "bad": "many", "html": m3("§<b>x§</b>"), "extra": "1"
        })
    );
    assert_eq!(
        repairs(&r),
        [RepairKind::ValueAsString, RepairKind::MarkupAsString]
    );
    // Without a schema every leaf is a string.
    let r = parse("§<tool_call>§<invoke name=\"f\">§<n>7§</n>§<b>true§</b>§</invoke>§</tool_call>");
    assert_eq!(args(&r, 0), json!({"n": "7", "b": "true"}));
}

#[test]
fn rule_9_an_element_left_open_is_closed_by_the_invoke_or_block_end() {
    let r = parse("§<tool_call>§<invoke name=\"f\">§<a>1§<b>2§</invoke>§</tool_call>");
    assert_eq!(args(&r, 0), json!({"a": {"b": "2", "$text": "1"}}));
    assert_eq!(repairs(&r), [RepairKind::UnclosedParameter]);
    let r = parse("§<tool_call>§<invoke name=\"f\">§<a>1§</a>§</tool_call>after");
    assert_eq!(args(&r, 0), json!({"a": "1"}));
    assert_eq!(repairs(&r), [RepairKind::MissingCallCloser]);
    assert_eq!(r.prose(), "after");
    let r = parse("§<tool_call>§<invoke name=\"f\">§<a>1§</tool_call>");
    assert_eq!(
        repairs(&r),
        [RepairKind::UnclosedParameter, RepairKind::MissingCallCloser]
    );
}

/// Rule 9: an enclosing element's close with only empty elements open inside it closes them
/// empty (`unclosed_parameter`): a model's `<parent><empty></parent>` (smg's and Dynamo's
/// MiniMax-M3 suites, reduced from real output). An open element with content is still a
/// `mismatched_tag`.
#[test]
fn rule_9_an_empty_element_left_open_is_closed_by_its_parent() {
    let text =
        "§<tool_call>§<invoke name=\"test\">§<parent>§<empty>\n§</parent>§</invoke>§</tool_call>";
    let r = parse(text);
    assert_eq!(
        args(&r, 0),
        json!({"parent": {"empty": "\n"}}),
        "raw text, rule 6"
    );
    assert_eq!(repairs(&r), [RepairKind::UnclosedParameter]);
    let typed = with_schema(
        "test",
        json!({"properties": {"parent": {"type": "object", "properties": {"empty": {"type": "array"}}}}}),
    );
    assert_eq!(
        args(&parse_with(text, &typed), 0),
        json!({"parent": {"empty": []}})
    );
    // Two levels, and the top level itself.
    let r =
        parse("§<tool_call>§<invoke name=\"t\">§<a>§<b>§<c>§</a>§<d>1§</d>§</invoke>§</tool_call>");
    assert_eq!(args(&r, 0), json!({"a": {"b": {"c": ""}}, "d": "1"}));
    let r = parse("§<tool_call>§<invoke name=\"t\">§<a>§<b>x§</a>§</invoke>§</tool_call>");
    assert_eq!(kinds(&r), [ErrorKind::MismatchedTag]);
}

#[test]
fn rule_10_a_call_cut_off_is_never_a_call() {
    let r = parse("§<tool_call>§<invoke name=\"f\">§<a>1§</a>§<b>§<c>2§</c>§<d>part");
    assert!(r.calls().is_empty());
    let e = r.errors()[0];
    assert_eq!(e.kind, ErrorKind::UnterminatedCall);
    assert_eq!(e.tool_name.as_deref(), Some("f"));
    assert_eq!(e.partial, Some(json!({"a": "1"})));
    assert!(e.feedback().contains(&m3("§</invoke>")));
    // Typed as the call would have been.
    let r = parse_with(
        "§<tool_call>§<invoke name=\"f\">§<a>1§</a>",
        &with_schema("f", json!({"properties": {"a": {"type": "integer"}}})),
    );
    assert_eq!(r.errors()[0].partial, Some(json!({"a": 1})));
    // A new invoke or block cuts the open call off.
    let r = parse(
        "§<tool_call>§<invoke name=\"f\">§<a>1§</a>§<b>x§<invoke name=\"g\">§</invoke>§</tool_call>",
    );
    assert_eq!(kinds(&r), [ErrorKind::UnterminatedCall]);
    assert_eq!(r.errors()[0].partial, Some(json!({"a": "1"})));
    assert_eq!(r.calls()[0].tool_name, "g");
    let r = parse("§<tool_call>§<invoke name=\"f\">§<tool_call>§<invoke name=\"g\">§</invoke>");
    assert_eq!(kinds(&r), [ErrorKind::UnterminatedCall]);
    assert_eq!(r.calls()[0].tool_name, "g");
    // A marker cut off at the end of the input is prose.
    for text in ["plain §<tool_ca", "plain ]<]mini", "plain §<tool_call"] {
        let r = parse(text);
        assert!(r.calls().is_empty() && r.errors().is_empty());
        assert_eq!(r.prose(), m3(text));
    }
}

#[test]
fn rule_11_limits_bound_depth_elements_and_bytes() {
    let deep = |n: usize| {
        format!(
            "§<tool_call>§<invoke name=\"f\">{}x{}§</invoke>§</tool_call>after",
            "§<a>".repeat(n),
            "§</a>".repeat(n)
        )
    };
    let limited = |limits: Limits| opts().with_limits(limits);
    let four = limited(Limits::default().with_max_depth(4));
    assert_eq!(parse_with(&deep(2), &four).calls().len(), 1);
    let r = parse_with(&deep(3), &four);
    assert_eq!(kinds(&r), [ErrorKind::LimitExceeded]);
    assert_eq!(r.errors()[0].limit, Some(Limit::MaxDepth));
    assert_eq!(r.prose(), "after");
    // 100,000 nested elements end in the depth error, without overflow.
    let r = toolcall_parser::parse_with(&m3(&deep(100_000)), &opts());
    assert_eq!(r.errors()[0].limit, Some(Limit::MaxDepth));
    let many = format!(
        "§<tool_call>§<invoke name=\"f\">{}§</invoke>§</tool_call>",
        "§<a>1§</a>".repeat(5)
    );
    let r = parse_with(&many, &limited(Limits::default().with_max_elements(4)));
    assert_eq!(r.errors()[0].limit, Some(Limit::MaxElements));
    let r = parse_with(
        "§<tool_call>§<invoke name=\"f\">§<a>12345§</a>§</invoke>§</tool_call>",
        &limited(Limits::default().with_max_argument_bytes(4)),
    );
    assert_eq!(r.errors()[0].limit, Some(Limit::MaxArgumentBytes));
    let r = parse_with(&many, &limited(Limits::default().with_max_call_bytes(60)));
    assert_eq!(r.errors()[0].limit, Some(Limit::MaxCallBytes));
    let r = parse_with(
        &format!("{WEATHER}{WEATHER}{WEATHER}"),
        &limited(Limits::default().with_max_calls(2)),
    );
    assert_eq!(r.calls().len(), 2);
    assert_eq!(r.errors()[0].limit, Some(Limit::MaxCalls));
    assert!(r.prose().contains(&m3("§<invoke name=\"weather\">")));
}

#[test]
fn rule_12_streaming_reports_names_at_once_and_leaf_text_exactly() {
    let text = m3(
        "§<tool_call>§<invoke name=\"f\">§<code>\n  a <b>\r\n§</code>§<sp>  §</sp>\
         §<obj>\n  §<k>v§</k>§</obj>§</invoke>§</tool_call>",
    );
    for n in [1, 2, 3, 7, 13, 4096] {
        let events = common::stream_events(&text, &opts(), n);
        let mut deltas: Vec<(String, String)> = Vec::new();
        for e in &events {
            if let StreamEvent::ArgumentDelta { argument, text, .. } = e {
                match deltas.last_mut() {
                    Some((a, t)) if **a == **argument => t.push_str(text),
                    _ => deltas.push((argument.to_string(), text.clone())),
                }
            }
        }
        assert_eq!(
            deltas,
            [
                ("code".to_owned(), "\n  a <b>\r\n".to_owned()),
                ("sp".to_owned(), "  ".to_owned())
            ],
            "chunks of {n}"
        );
        let started = events
            .iter()
            .position(|e| matches!(e, StreamEvent::CallStarted { index: 0, .. }));
        let named = events
            .iter()
            .position(|e| matches!(e, StreamEvent::ToolName { tool_name, .. } if tool_name == "f"));
        let first_delta = events
            .iter()
            .position(|e| matches!(e, StreamEvent::ArgumentDelta { .. }));
        assert!(started < named && named < first_delta, "chunks of {n}");
    }
}

#[test]
fn reasoning_markers_and_the_call_marker() {
    let reasoning = |open| {
        opts().with_reasoning(
            Reasoning::for_dialect(Dialect::MinimaxM3)
                .starting_open(open)
                .with_calls_in_reasoning(CallsInReasoning::End),
        )
    };
    assert_eq!(
        Dialect::MinimaxM3.reasoning_markers(),
        ("<mm:think>", "</mm:think>")
    );
    let r = parse_with(
        &format!("<mm:think>hmm</mm:think>ok{WEATHER}"),
        &reasoning(false),
    );
    assert_eq!(
        (r.reasoning(), r.prose()),
        ("hmm".to_owned(), "ok".to_owned())
    );
    assert_eq!(r.calls().len(), 1);
    // The call marker ends reasoning left open (thinking_mode `enabled`: the prompt opened it).
    let r = parse_with(&format!("thinking {WEATHER}"), &reasoning(true));
    assert_eq!(r.reasoning(), "thinking ");
    assert_eq!(r.calls().len(), 1);
    // Quoted, it stays reasoning.
    let r = parse_with(
        &format!("<mm:think>say `{WEATHER}`</mm:think>"),
        &reasoning(false),
    );
    assert!(r.calls().is_empty());
}

// ----- what vLLM's and Dynamo's tests assert ----------------------------------------------------

/// PY-engine `test_invoke_outside_tool_block_is_content`.
#[test]
fn vllm_invoke_outside_a_block_is_content() {
    let text = "Hi §<invoke name=\"get_weather\">§<city>Paris§</city>§</invoke>";
    let r = parse(text);
    assert!(r.calls().is_empty() && r.errors().is_empty());
    assert_eq!(r.prose(), m3(text));
}

/// vLLM keeps text before the block verbatim, trailing newline included; it drops text after
/// the block (`text_after_tool_block_is_dropped`, and RS ignores a second block). We keep it,
/// and read the second block.
#[test]
fn vllm_text_before_the_block_is_kept_and_ours_after_it_too() {
    let r = parse(&format!(
        "Checking the weather.\n{WEATHER}\nIt is sunny.\n{WEATHER}"
    ));
    assert_eq!(r.prose(), "Checking the weather.\n\nIt is sunny.\n");
    assert_eq!(r.calls().len(), 2);
}

/// RS `minimax_m3_malformed_tool_call_fails_fast`: another element between invokes is an error.
/// The PY adapter then returns the rest as content; so do we, reading later blocks.
#[test]
fn vllm_another_element_between_invokes_is_an_error() {
    let r = parse("§<tool_call>\n§<parameter>x§</parameter>\n§</tool_call>\nrest");
    assert_eq!(kinds(&r), [ErrorKind::UnexpectedElement]);
    assert!(r.calls().is_empty());
    assert!(r.prose().ends_with("\nrest"));
}

/// RS and PY-engine: several invokes in one block are calls 0, 1, … in order, and the canonical
/// layout (a newline after each tag) is read.
#[test]
fn vllm_several_invokes_in_order_in_the_canonical_layout() {
    let r = parse(
        "§<tool_call>\n§<invoke name=\"get_weather\">\n§<location>Boston§</location>\n§</invoke>\n\
         §<invoke name=\"get_time\">\n§<timezone>EST§</timezone>\n§</invoke>\n§</tool_call>",
    );
    assert_eq!(r.calls().len(), 2);
    assert_eq!(r.calls()[0].tool_name, "get_weather");
    assert_eq!(args(&r, 0), json!({"location": "Boston"}));
    assert_eq!(args(&r, 1), json!({"timezone": "EST"}));
    assert_eq!(r.prose(), "");
}

/// PY-engine asserts `"\n  a <b> & c\n"` survives verbatim and RS keeps `"\nrectangle\n"`.
/// Dynamo HTML-unescapes (`&lt;` → `<`); we keep every byte, as vLLM does.
#[test]
fn vllm_values_are_neither_decoded_nor_trimmed() {
    let r = parse(
        "§<tool_call>§<invoke name=\"f\">§<text>\n  a <b> & c\n§</text>§<shape>\nrectangle\n§</shape>\
         §<esc>&lt;&amp;&quot;&#39;§</esc>§</invoke>§</tool_call>",
    );
    assert_eq!(
        args(&r, 0),
        json!({"text": "\n  a <b> & c\n", "shape": "\nrectangle\n", "esc": "&lt;&amp;&quot;&#39;"})
    );
}

/// Nesting: an object schema gives an object, an array schema the items (`<item>`, or any one
/// name: `<comment>`), no schema an object of strings; a repeated key is a list, also at the top
/// level. vLLM takes every child as an item whatever the names; we take a wrapper of one name
/// (§5.3), so mixed names under an array schema are one object item.
#[test]
fn vllm_nested_objects_arrays_and_repeated_keys() {
    let schema = json!({"type": "object", "properties": {
        "person": {"type": "object", "properties": {"age": {"type": "integer"}}},
        "items": {"type": "array", "items": {"type": "integer"}},
        "comments": {"type": "array", "items": {"type": "string"}},
        "mixed": {"type": "array", "items": {"type": "object"}}
    }});
    let text = "§<tool_call>§<invoke name=\"f\">\
        §<person>§<name>Ann§</name>§<age>30§</age>§</person>\
        §<items>§<item>1§</item>§<item>2§</item>§</items>\
        §<comments>§<comment>a§</comment>§<comment>b§</comment>§</comments>\
        §<mixed>§<x>1§</x>§<y>2§</y>§</mixed>\
        §<tag>a§</tag>§<tag>b§</tag>\
        §</invoke>§</tool_call>";
    let r = parse_with(text, &with_schema("f", schema));
    assert_eq!(
        args(&r, 0),
        json!({
            "person": {"name": "Ann", "age": 30},
            "items": [1, 2],
            "comments": ["a", "b"],
            "mixed": [{"x": "1", "y": "2"}],
            "tag": ["a", "b"]
        })
    );
    // Unknown tool: objects, leaves strings.
    let r = parse(text);
    assert_eq!(args(&r, 0)["person"], json!({"name": "Ann", "age": "30"}));
    assert_eq!(args(&r, 0)["tag"], json!(["a", "b"]));
}

/// Mixed content goes under `$text`, pieces joined verbatim; `$$text` when `$text` is a child.
#[test]
fn vllm_mixed_content_is_kept_under_dollar_text() {
    let r = parse(
        "§<tool_call>§<invoke name=\"f\">§<note>before §<b>bold§</b> after§</note>\
         §<odd>t§<$text>child§</$text>§</odd>§</invoke>§</tool_call>",
    );
    assert_eq!(
        args(&r, 0),
        json!({
            "note": {"b": "bold", "$text": "before  after"},
            "odd": {"$text": "child", "$$text": "t"}
        })
    );
}

/// An empty element is `[]`/`{}` under an array/object schema with no string alternative, `""`
/// under a string.
#[test]
fn vllm_empty_elements() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "array"}, "o": {"type": "object"}, "s": {"type": "string"},
        "either": {"anyOf": [{"type": "array"}, {"type": "string"}]}
    }});
    let r = parse_with(
        "§<tool_call>§<invoke name=\"f\">§<a>§</a>§<o>§</o>§<s>§</s>§<either>§</either>§</invoke>§</tool_call>",
        &with_schema("f", schema),
    );
    assert_eq!(
        args(&r, 0),
        json!({"a": [], "o": {}, "s": "", "either": ""})
    );
}

/// RS-params' conversions, as far as ours agree: `null` is null unless the key is a string,
/// `5.0` keeps its spelling, `{"nested":true}` and `[1,2]` are read as JSON, alternatives in
/// order, and a failure keeps the text. PY-engine reads `" 7 "` as 7 (RS does not trim). We read
/// `null`/`None` as spelled (RS: any case) and booleans as `true`/`True`/`false`/`False` (RS also
/// `1`/`0`), as raw text is typed in every dialect (§5.6); RS and Dynamo also make `null` null
/// without a schema, where we keep the string.
#[test]
fn vllm_schema_conversions() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "integer"}, "s": {"type": "string"}, "f": {"type": "number"},
        "o": {"type": "object"}, "l": {"type": "array"}, "b": {"type": "boolean"},
        "u": {"type": ["integer", "string"]}, "i": {"type": "integer"},
        "z": {"type": "integer"}
    }});
    let r = parse_with(
        "§<tool_call>§<invoke name=\"f\">§<n>null§</n>§<s>null§</s>§<f>5.0§</f>\
         §<o>{\"nested\":true}§</o>§<l>[1,2]§</l>§<b>false§</b>§<u>abc§</u>§<i> 7 §</i>\
         §<z>seven§</z>§</invoke>§</tool_call>",
        &with_schema("f", schema),
    );
    let a = args(&r, 0);
    assert_eq!(
        a,
        json!({
            "n": null, "s": "null", "f": 5.0, "o": {"nested": true}, "l": [1, 2],
            "b": false, "u": "abc", "i": 7, "z": "seven"
        })
    );
    assert_eq!(a["f"].to_string(), "5.0");
    assert_eq!(
        repairs(&r),
        [RepairKind::ValueAsString, RepairKind::ValueAsString]
    );
    let r = parse("§<tool_call>§<invoke name=\"f\">§<n>null§</n>§</invoke>§</tool_call>");
    assert_eq!(args(&r, 0), json!({"n": "null"}));
}

/// PY-engine and RS keep the parameters before a malformed one and run the call; we report the
/// call as an error (never run) and read on after it.
#[test]
fn vllm_malformed_body_is_an_error_for_the_call() {
    let r = parse(
        "§<tool_call>§<invoke name=\"f\">§<a>1§</a>oops§<b>2§</b>§</invoke>\n\
         §<invoke name=\"g\">§</invoke>§</tool_call>",
    );
    assert_eq!(kinds(&r), [ErrorKind::UnexpectedText]);
    assert_eq!(r.calls().len(), 1);
    assert_eq!(r.calls()[0].tool_name, "g");
}

/// PY-engine reads an element nested deeper than 128 levels as malformed; our bound is
/// `max_depth` (64 by default), a `limit_exceeded` error.
#[test]
fn vllm_deep_nesting_is_bounded() {
    let text = format!(
        "§<tool_call>§<invoke name=\"f\">{}x{}§</invoke>§</tool_call>",
        "§<p>".repeat(129),
        "§</p>".repeat(129)
    );
    let r = parse(&text);
    assert_eq!(r.errors()[0].limit, Some(Limit::MaxDepth));
}

/// RS-new emits the name as soon as the invoke header parses; PY-engine keeps the completed
/// parameters of a truncated invoke. We report the name at once too, and a truncated call is an
/// `unterminated_call` error with those parameters in `partial` (RS-new closes it best-effort).
#[test]
fn vllm_truncated_invoke_keeps_its_completed_parameters() {
    let text = m3("§<tool_call>\n§<invoke name=\"get_weather\">\n§<city>Paris§</city>\n§<unit>cel");
    let events = common::stream_events(&text, &opts(), 5);
    assert!(events.iter().any(
        |e| matches!(e, StreamEvent::ToolName { tool_name, .. } if tool_name == "get_weather")
    ));
    let r = parse(&text.replace(MARKER, "§"));
    assert!(r.calls().is_empty());
    assert_eq!(r.errors()[0].partial, Some(json!({"city": "Paris"})));
}

/// vLLM holds back a partial block marker and flushes it as content when the stream ends.
#[test]
fn vllm_a_partial_marker_at_the_end_is_content() {
    let r = parse("plain §<tool_ca");
    assert_eq!(r.prose(), m3("plain §<tool_ca"));
    assert!(r.calls().is_empty() && r.errors().is_empty());
}

/// Reasoning (RS-reason, PY-reason): `<mm:think>…</mm:think>` is reasoning; unclosed, all of it;
/// `XXX</mm:think>YYY` without an opener is content. vLLM drops a `</mm:think>` at the very
/// start of the output, which we keep as prose (§10 rule 2: reasoning begins only at its
/// opening marker, or from the first byte with `--reasoning-open`). Dynamo ends reasoning at any
/// marker; we end it at the block's opening marker, the call marker.
#[test]
fn vllm_reasoning_split() {
    let o = opts().with_reasoning(Reasoning::for_dialect(Dialect::MinimaxM3));
    let r = parse_with("<mm:think>plan</mm:think>answer", &o);
    assert_eq!((r.reasoning(), r.prose()), ("plan".into(), "answer".into()));
    let r = parse_with("<mm:think>still thinking", &o);
    assert_eq!(
        (r.reasoning(), r.prose()),
        ("still thinking".into(), String::new())
    );
    let r = parse_with("XXX</mm:think>YYY", &o);
    assert_eq!(
        (r.reasoning(), r.prose()),
        (String::new(), "XXX</mm:think>YYY".into())
    );
    let r = parse_with(&format!("<mm:think>plan{WEATHER}"), &o);
    assert_eq!(r.reasoning(), "plan");
    assert_eq!(r.calls().len(), 1);
}

// ----- properties over MiniMax-M3 markup --------------------------------------------------------

/// Fragments of MiniMax-M3 markup that reach every state when concatenated.
const M3_VOCABULARY: &[&str] = &[
    "§<tool_call>",
    "§</tool_call>",
    "§<invoke name=\"f\">",
    "§<invoke name='g'>",
    "§<invoke>",
    "§</invoke>",
    "§<a>",
    "§</a>",
    "§<b>",
    "§</b>",
    "§<item>",
    "§</item>",
    "§<$text>",
    "§",
    "§<",
    "]<]mini",
    "<mm:think>",
    "</mm:think>",
    "<a>",
    ">",
    "<",
    "x",
    "7",
    " ",
    "\n",
    "\r\n",
    "é",
    "`",
];

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn m3_soup() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(M3_VOCABULARY), 0..48)
            .prop_map(|v| m3(&v.concat()))
    }

    /// Feeds `text` cut at the given points.
    fn split(text: &str, cuts: &[usize], o: &ParseOptions) -> Vec<StreamEvent> {
        let mut points: Vec<usize> = cuts
            .iter()
            .map(|&c| {
                let mut p = c % (text.len() + 1);
                while !text.is_char_boundary(p) {
                    p -= 1;
                }
                p
            })
            .collect();
        points.sort_unstable();
        let mut parser = toolcall_parser::StreamParser::with_options(o.clone());
        let mut events = Vec::new();
        let mut last = 0;
        for p in points.into_iter().chain([text.len()]) {
            events.extend(parser.feed(&text[last..p]));
            last = p;
        }
        events.extend(parser.finish());
        events
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

        /// Every chunking gives the one-shot result; prose is verbatim; a string argument's
        /// deltas concatenate to its value.
        #[test]
        fn chunkings_agree_prose_is_verbatim_and_deltas_add_up(
            text in m3_soup(),
            cuts in prop::collection::vec(any::<usize>(), 0..12),
        ) {
            for o in [
                opts(),
                opts().with_reasoning(Reasoning::for_dialect(Dialect::MinimaxM3)),
                with_schema("f", json!({"properties": {
                    "a": {"type": "array", "items": {"type": "integer"}},
                    "b": {"type": "object"}
                }})),
            ] {
                let whole = toolcall_parser::parse_with(&text, &o);
                let events = split(&text, &cuts, &o);
                prop_assert_eq!(&ParseResult::from_events(events.clone()), &whole);
                prop_assert_eq!(&common::parse_chunked(&text, &o, 1), &whole);
                if whole.calls().is_empty() && whole.errors().is_empty() && o.reasoning().is_none() {
                    prop_assert_eq!(whole.prose(), text.clone());
                }
                for e in &events {
                    let StreamEvent::CallFinished { index, result: Ok(call) } = e else {
                        continue;
                    };
                    for (name, value) in &call.arguments {
                        let Some(value) = value.as_str() else { continue };
                        let sent: String = events
                            .iter()
                            .filter_map(|d| match d {
                                StreamEvent::ArgumentDelta { index: i, argument, text }
                                    if i == index && **argument == **name => Some(text.as_str()),
                                _ => None,
                            })
                            .collect();
                        prop_assert_eq!(sent.as_str(), value);
                    }
                }
            }
        }
    }
}

/// Rule 12: each top-level argument is announced at its tag (a name given again, again), and
/// its first child element is reported (`ArgumentDecoded`), in every chunking.
#[test]
fn rule_12_arguments_are_announced_and_their_first_child_reported() {
    let text = m3(
        "§<tool_call>§<invoke name=\"f\">§<code>x§</code>§<obj>t §<k>v§</k>§<k>w§</k>§</obj>\
         §<code>y§</code>§</invoke>§</tool_call>",
    );
    for n in [1, 2, 3, 7, 13, 4096] {
        let events = common::stream_events(&text, &opts(), n);
        let marks: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ArgumentStarted { argument, .. } => Some(format!("start {argument}")),
                StreamEvent::ArgumentDecoded { argument, .. } => Some(format!("child {argument}")),
                _ => None,
            })
            .collect();
        assert_eq!(
            marks,
            ["start code", "start obj", "child obj", "start code"],
            "chunks of {n}"
        );
    }
}
