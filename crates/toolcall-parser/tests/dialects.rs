//! The rules of docs/FORMAT.md §9, one test each, for the dialects other than `tool`. Every
//! test also checks that every chunking gives the one-shot result.

mod common;

use std::sync::Arc;
use toolcall_parser::{
    Dialect, ErrorKind, ParseOptions, ParseResult, RepairKind, StreamEvent, StreamParser,
    ToolSchemas, parse_with,
};

fn opts(dialect: Dialect) -> ParseOptions {
    ParseOptions::new().with_dialect(dialect)
}

/// Parses one-shot, checks that every chunking agrees, returns the result.
fn parse(text: &str, opts: &ParseOptions) -> ParseResult {
    let whole = parse_with(text, opts);
    for n in [1, 2, 3, 5, 8, 13] {
        assert_eq!(
            common::parse_chunked(text, opts, n),
            whole,
            "chunks of {n}: {text:?}"
        );
    }
    whole
}

fn qwen(text: &str) -> ParseResult {
    parse(text, &opts(Dialect::Qwen3Coder))
}

fn repairs(r: &ParseResult) -> Vec<RepairKind> {
    r.calls()
        .iter()
        .flat_map(|c| c.repairs.iter().map(|r| r.kind))
        .collect()
}

#[test]
fn rule_1_one_layout_newline_each_side_every_other_byte_kept() {
    let r = qwen(
        "<tool_call>\n<function=w>\n<parameter=a>\n\n  x &lt; y\r\n\n</parameter>\n\
         <parameter=b></parameter>\n<parameter=c>\r\nz\r\n</parameter>\n</function>\n</tool_call>",
    );
    let call = r.calls()[0];
    assert_eq!(call.arguments["a"].as_str(), Some("\n  x &lt; y\r\n"));
    assert_eq!(call.arguments["b"].as_str(), Some(""));
    assert_eq!(call.arguments["c"].as_str(), Some("z"));
    assert!(call.repairs.is_empty());
}

#[test]
fn rule_2_close_tags_inside_a_value_are_text_unless_structure_follows() {
    let r = qwen(
        "<tool_call>\n<function=w>\n<parameter=code>\nprint(\"</parameter>\")\nx</function>y\n\
         </parameter>\n</function>\n</tool_call>",
    );
    let call = r.calls()[0];
    assert_eq!(
        call.arguments["code"].as_str(),
        Some("print(\"</parameter>\")\nx</function>y")
    );
    // Both close tags, aggregated into one repair of the argument (FORMAT.md §4).
    assert_eq!(repairs(&r), [RepairKind::CloseTagAsText]);
    assert_eq!(r.calls()[0].repairs[0].count, 2);
    // At the start of a line, </function> ends the value and the call.
    let r = qwen("<function=w>\n<parameter=a>\n1\n</function>\nafter");
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1"));
    assert!(repairs(&r).contains(&RepairKind::UnclosedParameter));
    assert_eq!(r.prose(), "\nafter");
}

#[test]
fn rule_3_a_missing_close_before_the_next_parameter_is_repaired() {
    let r = qwen(
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>",
    );
    let call = r.calls()[0];
    assert_eq!(call.arguments["a"].as_str(), Some("1"));
    assert_eq!(call.arguments["b"].as_str(), Some("2"));
    assert_eq!(repairs(&r), [RepairKind::UnclosedParameter]);
    // Mid-line, or a name the schema does not know: text.
    let r = qwen(
        "<tool_call>\n<function=f>\n<parameter=a>\nsay <parameter=b> here\n</parameter>\n</function>\n</tool_call>",
    );
    assert_eq!(
        r.calls()[0].arguments["a"].as_str(),
        Some("say <parameter=b> here")
    );
    let mut schemas = ToolSchemas::default();
    schemas.insert(
        "f",
        serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}}),
    );
    let with_schema = opts(Dialect::Qwen3Coder).with_schemas(Arc::new(schemas));
    let r = parse(
        "<tool_call>\n<function=f>\n<parameter=a>\nx\n<parameter=zz>\ny\n</parameter>\n</function>\n</tool_call>",
        &with_schema,
    );
    assert_eq!(
        r.calls()[0].arguments["a"].as_str(),
        Some("x\n<parameter=zz>\ny")
    );
}

#[test]
fn rule_4_a_call_without_its_opener_is_read_with_a_repair() {
    let r = qwen("Sure.\n<function=ls>\n<parameter=dir>\n.\n</parameter>\n</function>");
    assert_eq!(r.calls()[0].tool_name, "ls");
    assert_eq!(repairs(&r), [RepairKind::MissingCallOpener]);
    assert_eq!(r.prose(), "Sure.\n");
    // Not followed by a parameter: prose.
    let text = "Write <function=ls> to list files.";
    let r = qwen(text);
    assert!(r.calls().is_empty() && r.errors().is_empty());
    assert_eq!(r.prose(), text);
}

#[test]
fn rule_5_names_are_checked_and_placeholders_are_prose() {
    let text = "Template: <tool_call>\n<function={{ tc.name }}>\n</function>\n</tool_call>";
    let r = qwen(text);
    assert!(r.calls().is_empty() && r.errors().is_empty());
    assert_eq!(r.prose(), text);
    let r = qwen("<tool_call>\n<function=rm -rf>\n</function>\n</tool_call>");
    assert!(r.calls().is_empty());
    assert_eq!(r.errors()[0].kind, ErrorKind::InvalidToolName);
    assert!(r.errors()[0].feedback().contains("<function=NAME>"));
    let r = qwen(
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n</function>\n</tool_call>",
    );
    // The first value stands (what was streamed of it stays true); the second is dropped.
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1"));
    assert_eq!(repairs(&r), [RepairKind::DuplicateArgument]);
}

#[test]
fn rule_6_several_calls_per_block_and_interrupted_calls() {
    let r = qwen("<tool_call>\n<function=a>\n</function>\n<function=b>\n</function>\n</tool_call>");
    let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let r = qwen(
        "<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n<tool_call>\n<function=b>\n</function>\n</tool_call>",
    );
    assert_eq!(r.errors()[0].kind, ErrorKind::UnterminatedCall);
    assert_eq!(r.errors()[0].partial, Some(serde_json::json!({"x": "1"})));
    assert_eq!(r.calls()[0].tool_name, "b");
}

#[test]
fn rule_7_text_between_parameters_is_an_error_and_the_call_is_never_run() {
    let r = qwen(
        "<tool_call>\n<function=f>\nhello\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>after",
    );
    assert!(r.calls().is_empty());
    assert_eq!(r.errors()[0].kind, ErrorKind::UnexpectedText);
    assert_eq!((r.errors()[0].line, r.errors()[0].column), (3, 1));
    assert_eq!(r.prose(), "after");
}

#[test]
fn rule_8_values_are_strings_without_a_schema_and_typed_with_one() {
    let text = "<tool_call>\n<function=f>\n<parameter=n>\n007\n</parameter>\n<parameter=b>\nTrue\n</parameter>\n</function>\n</tool_call>";
    let r = qwen(text);
    assert_eq!(r.calls()[0].arguments["n"].as_str(), Some("007"));
    let mut schemas = ToolSchemas::default();
    schemas.insert(
        "f",
        serde_json::json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "b": {"type": "boolean"}}}),
    );
    let r = parse(
        text,
        &opts(Dialect::Qwen3Coder).with_schemas(Arc::new(schemas)),
    );
    assert_eq!(r.calls()[0].arguments["n"].as_i64(), Some(7));
    assert_eq!(r.calls()[0].arguments["b"].as_bool(), Some(true));
}

#[test]
fn rule_9_deltas_are_exactly_the_value() {
    let text = "<tool_call>\n<function=w>\n<parameter=c>\nline 1\nline 2\n\n</parameter>\n</function>\n</tool_call>";
    for n in 1..8 {
        let mut p = StreamParser::with_options(opts(Dialect::Qwen3Coder));
        let mut events = Vec::new();
        for piece in toolcall_parser::chunks(text, n) {
            events.extend(p.feed(piece));
        }
        events.extend(p.finish());
        let deltas: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ArgumentDelta { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, "line 1\nline 2\n", "chunks of {n}");
    }
}

#[test]
fn truncated_calls_are_never_calls() {
    // `rm -rf /tmp/build` cut after `/` must not come back as a complete `rm -rf /`.
    let full = "<tool_call>\n<function=bash>\n<parameter=cmd>\nrm -rf /tmp/build\n</parameter>\n</function>\n</tool_call>";
    for cut in 1..full.len() {
        let r = qwen(&full[..cut]);
        if cut < full.find("</function>").expect("a close") + "</function>".len() {
            assert!(r.calls().is_empty(), "cut at {cut}: {:?}", r.calls());
        }
    }
}

#[test]
fn seed_oss_reads_the_same_grammar_in_its_own_block() {
    let r = parse(
        "<seed:tool_call>\n<function=f>\n<parameter=a>\nv\n</parameter>\n</function>\n</seed:tool_call>",
        &opts(Dialect::SeedOss),
    );
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("v"));
    assert_eq!(r.prose(), "");
}

#[test]
fn hermes_reads_name_and_arguments() {
    let h = opts(Dialect::Hermes);
    let r = parse(
        "Calling.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"</tool_call>\"}}\n</tool_call>\nDone.",
        &h,
    );
    assert_eq!(
        r.calls()[0].arguments["city"].as_str(),
        Some("</tool_call>")
    );
    assert_eq!(r.prose(), "Calling.\n\nDone.");
    // Arguments as a JSON string.
    let r = parse(
        "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}</tool_call>",
        &h,
    );
    assert_eq!(r.calls()[0].arguments["a"].as_i64(), Some(1));
    // Not JSON after the opener: prose. Broken JSON: an error with feedback in Hermes syntax.
    let r = parse("the <tool_call> tag", &h);
    assert_eq!(r.prose(), "the <tool_call> tag");
    let r = parse(
        "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": }}</tool_call>",
        &h,
    );
    assert_eq!(r.errors()[0].kind, ErrorKind::InvalidJson);
    assert!(r.errors()[0].feedback().contains("\"name\""));
    // A complete object at the end of the input: read, with a repair.
    let r = parse("<tool_call>{\"name\": \"f\"}", &h);
    assert_eq!(repairs(&r), [RepairKind::MissingCallCloser]);
    // Cut inside the object: unterminated.
    let r = parse("<tool_call>{\"name\": \"f\", \"argu", &h);
    assert_eq!(r.errors()[0].kind, ErrorKind::UnterminatedCall);
}

#[test]
fn dialect_names_parse() {
    for d in Dialect::ALL {
        assert_eq!(d.name().parse::<Dialect>(), Ok(*d));
    }
    assert!(
        "nope"
            .parse::<Dialect>()
            .unwrap_err()
            .to_string()
            .contains("qwen3-coder")
    );
}

#[test]
fn blanks_around_the_equals_sign_and_the_name_are_allowed() {
    let r = qwen(
        "<tool_call> <function = glob>\n<parameter= pattern >\n**/a.json\n</parameter>\n</function>\n</tool_call>",
    );
    assert_eq!(r.calls()[0].tool_name, "glob");
    assert_eq!(
        r.calls()[0].arguments["pattern"].as_str(),
        Some("**/a.json")
    );
}
