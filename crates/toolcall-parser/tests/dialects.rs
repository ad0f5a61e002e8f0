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
    // Chunks of changing sizes too (the fuzzers' favourite: 3, 5, 3, 5, …), which end at other
    // offsets than any one size does.
    for sizes in [[3, 5], [7, 2]] {
        assert_eq!(
            common::parse_alternating(text, opts, sizes),
            whole,
            "chunks of {sizes:?}: {text:?}"
        );
    }
    whole
}

fn qwen(text: &str) -> ParseResult {
    parse(text, &opts(Dialect::Qwen3Coder))
}

/// Every repair made, one entry per occurrence (repairs are aggregated per kind and argument,
/// with a count).
fn repairs(r: &ParseResult) -> Vec<RepairKind> {
    r.calls()
        .iter()
        .flat_map(|c| c.repairs.iter())
        .flat_map(|r| std::iter::repeat_n(r.kind, r.count))
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
    assert_eq!(r.calls()[0].repairs.len(), 1);
    assert_eq!(r.calls()[0].repairs[0].count, 2);
    assert_eq!(
        repairs(&r),
        [RepairKind::CloseTagAsText, RepairKind::CloseTagAsText]
    );
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
    // A function tag that never closes (vLLM's regression case): the call the block opened is
    // an error at the tag, never prose; the block is skipped to its close and the next call read.
    for unclosed in [
        "<tool_call>\n<function=get_current_weather\n<parameter=city>\nDallas\n</parameter>\n</function>\n</tool_call>",
        "<tool_call>\n<function=bad_func_no_gt\n</function>\n</tool_call>",
    ] {
        let r = qwen(&format!(
            "{unclosed}\n<tool_call>\n<function=g>\n</function>\n</tool_call>"
        ));
        let [e] = r.errors()[..] else {
            panic!("one error: {:?}", r.errors())
        };
        assert_eq!(
            (e.kind, e.line, e.column),
            (ErrorKind::InvalidToolName, 2, 1)
        );
        assert!(e.message.contains("not closed"), "{}", e.message);
        assert_eq!(
            r.calls()
                .iter()
                .map(|c| c.tool_name.as_str())
                .collect::<Vec<_>>(),
            ["g"]
        );
        assert_eq!(r.prose(), "\n");
    }
    // The same for a later function of the block: a tag that never closes, or a name that is
    // none, is an error there, not prose; the call before it stands.
    for later in [
        "<function=b\n<parameter=x>\n1\n</parameter>",
        "<function=rm -rf>",
    ] {
        let r = qwen(&format!(
            "<tool_call>\n<function=a>\n</function>\n{later}\n</function>\n</tool_call>"
        ));
        assert_eq!(r.calls().len(), 1, "{later}");
        assert_eq!(r.calls()[0].tool_name, "a");
        let [e] = r.errors()[..] else {
            panic!("{later}: one error: {:?}", r.errors())
        };
        assert_eq!((e.kind, e.line), (ErrorKind::InvalidToolName, 4), "{later}");
    }
    // Without a block opener, such text stays prose (nothing says a call was meant).
    let text = "Write <function=get_current_weather\n<parameter=city> like this.";
    assert_eq!(qwen(text).prose(), text);
    let r = qwen(
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n</function>\n</tool_call>",
    );
    // The first value stands (what was streamed of it stays true); the second is dropped.
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1"));
    assert_eq!(repairs(&r), [RepairKind::DuplicateArgument]);
    // A repair of the argument given again: it names it (docs/FORMAT.md §4).
    assert_eq!(r.calls()[0].repairs[0].argument.as_deref(), Some("a"));
}

#[test]
fn rule_6_several_calls_per_block_and_interrupted_calls() {
    let r = qwen(
        "Two:\n<tool_call>\n<function=a>\n</function>\n  \n<function=b>\n</function>\n</tool_call>\nDone.",
    );
    let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    // The blanks between the functions of a block are its layout, not prose.
    assert_eq!(r.prose(), "Two:\n\nDone.");
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

// ----- GLM (docs/FORMAT.md §9.4) ---------------------------------------------------------------

fn glm(text: &str) -> ParseResult {
    parse(text, &opts(Dialect::Glm))
}

fn schemas(tool: &str, properties: serde_json::Value) -> Arc<ToolSchemas> {
    let mut s = ToolSchemas::default();
    s.insert(
        tool,
        serde_json::json!({"type": "object", "properties": properties}),
    );
    Arc::new(s)
}

#[test]
fn glm_rule_1_both_layouts_are_calls_and_other_text_after_the_opener_is_prose() {
    for text in [
        "Hi <tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call> ok",
        "Hi <tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call> ok",
    ] {
        let r = glm(text);
        assert_eq!(r.calls()[0].tool_name, "get_weather");
        assert_eq!(r.calls()[0].arguments["city"].as_str(), Some("Paris"));
        assert_eq!(r.prose(), "Hi  ok");
    }
    // What another dialect writes after <tool_call>, or a mention of the tag, is prose.
    for text in [
        "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"<arg_key>\"}}</tool_call>",
        "<tool_call>\n<function=f>\n</function>\n</tool_call>",
        "Write <tool_call> then the name.",
        "<tool_call>{{ tc.name }}<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>",
    ] {
        let r = glm(text);
        assert!(r.calls().is_empty() && r.errors().is_empty(), "{text}");
        assert_eq!(r.prose(), text);
    }
}

#[test]
fn glm_rule_2_a_call_without_arguments_is_a_call() {
    let r = glm("<tool_call>get_time</tool_call><tool_call>noop\n</tool_call>");
    let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["get_time", "noop"]);
    assert!(r.calls().iter().all(|c| c.arguments.is_empty()));
    // Streamed, the call is announced and finished.
    let events = common::stream_events("<tool_call>get_time</tool_call>", &opts(Dialect::Glm), 1);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::CallStarted { .. }))
    );
    // A blank before the name, or no name: a mention, prose.
    for text in [
        "the <tool_call> and </tool_call> tags",
        "<tool_call></tool_call>",
    ] {
        let r = glm(text);
        assert!(r.calls().is_empty() && r.errors().is_empty());
        assert_eq!(r.prose(), text);
    }
}

#[test]
fn glm_rule_3_a_missing_key_value_or_name_is_an_error_never_a_call() {
    for (text, kind) in [
        (
            "<tool_call>f<arg_key>city</arg_key></tool_call>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<tool_call>f\n<arg_value>Paris</arg_value>\n</tool_call>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<tool_call>f<arg_key>a</arg_key><arg_key>b</arg_key><arg_value>1</arg_value></tool_call>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<tool_call>f<arg_key> </arg_key><arg_value>1</arg_value></tool_call>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<tool_call>f<arg_key>a<arg_value>1</arg_value></tool_call>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<tool_call>f<arg_key>a</arg_key>\nhello\n<arg_value>1</arg_value></tool_call>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<tool_call>\n<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>",
            ErrorKind::MissingToolName,
        ),
        (
            "<tool_call>rm -rf<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>",
            ErrorKind::InvalidToolName,
        ),
    ] {
        let r = glm(&format!("{text}after"));
        assert!(r.calls().is_empty(), "{text}");
        assert_eq!(r.errors()[0].kind, kind, "{text}");
        assert!(r.errors()[0].feedback().contains("<arg_key>"), "{text}");
        assert_eq!(r.prose(), "after", "{text}");
    }
}

#[test]
fn glm_rule_4_values_keep_every_byte_and_keys_are_trimmed() {
    let r = glm(
        "<tool_call>w\n<arg_key> path </arg_key>\n<arg_value>\n  a &lt; b\r\n</arg_value>\n</tool_call>",
    );
    assert_eq!(
        r.calls()[0].arguments["path"].as_str(),
        Some("\n  a &lt; b\r\n")
    );
    assert!(r.calls()[0].repairs.is_empty());
}

#[test]
fn glm_rule_5_close_tags_inside_a_value_are_text_unless_structure_follows() {
    let r = glm(
        "<tool_call>w<arg_key>code</arg_key><arg_value>s = \"</arg_value>\" + x</tool_call>y\
         </arg_value><arg_key>n</arg_key><arg_value><arg_key></arg_value></tool_call>",
    );
    let call = r.calls()[0];
    assert_eq!(
        call.arguments["code"].as_str(),
        Some("s = \"</arg_value>\" + x</tool_call>y")
    );
    assert_eq!(call.arguments["n"].as_str(), Some("<arg_key>"));
    assert_eq!(
        repairs(&r),
        [RepairKind::CloseTagAsText, RepairKind::CloseTagAsText]
    );
    // At the start of a line, </tool_call> ends the value and the call.
    let r = glm("<tool_call>f<arg_key>a</arg_key><arg_value>1\n</tool_call>\nafter");
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1\n"));
    assert_eq!(repairs(&r), [RepairKind::UnclosedParameter]);
    assert_eq!(r.prose(), "\nafter");
}

#[test]
fn glm_rule_6_values_are_typed_by_the_schema_and_read_as_json() {
    let text = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>123</arg_value>\n\
                <arg_key>count</arg_key>\n<arg_value>\"42\"</arg_value>\n<arg_key>filters</arg_key>\n\
                <arg_value>{\"a\": [1, true]}</arg_value>\n</tool_call>";
    let r = glm(text);
    assert_eq!(r.calls()[0].arguments["count"].as_str(), Some("\"42\""));
    let typed = opts(Dialect::Glm).with_schemas(schemas(
        "get_weather",
        serde_json::json!({"city": {"type": "string"}, "count": {"type": "number"},
            "filters": {"type": "object"}}),
    ));
    let r = parse(text, &typed);
    let args = &r.calls()[0].arguments;
    assert_eq!(args["city"].as_str(), Some("123"));
    assert_eq!(args["count"].as_i64(), Some(42));
    assert_eq!(
        serde_json::to_value(&args["filters"]).expect("a value"),
        serde_json::json!({"a": [1, true]})
    );
}

#[test]
fn glm_rule_7_cut_off_or_interrupted_calls_are_never_calls() {
    let full =
        "<tool_call>bash<arg_key>cmd</arg_key><arg_value>rm -rf /tmp/build</arg_value></tool_call>";
    for cut in 1..full.len() {
        let r = glm(&full[..cut]);
        assert!(r.calls().is_empty(), "cut at {cut}: {:?}", r.calls());
    }
    let r = glm(&full[..full.len() - "</tool_call>".len()]);
    assert_eq!(r.errors()[0].kind, ErrorKind::UnterminatedCall);
    assert_eq!(
        r.errors()[0].partial,
        Some(serde_json::json!({"cmd": "rm -rf /tmp/build"}))
    );
    let r =
        glm("<tool_call>a<arg_key>x</arg_key><arg_value>1</arg_value>\n<tool_call>b</tool_call>");
    assert_eq!(r.errors()[0].kind, ErrorKind::UnterminatedCall);
    assert_eq!(r.calls()[0].tool_name, "b");
    let r = glm(
        "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>a</arg_key><arg_value>2</arg_value></tool_call>",
    );
    // The first value stands (what was streamed of it stays true); the second is dropped.
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1"));
    assert_eq!(repairs(&r), [RepairKind::DuplicateArgument]);
    // A repair of the argument given again: it names it (docs/FORMAT.md §4).
    assert_eq!(r.calls()[0].repairs[0].argument.as_deref(), Some("a"));
}

/// The argument deltas of `text` streamed in chunks of `n`, concatenated.
fn deltas(text: &str, dialect: Dialect, n: usize) -> String {
    common::stream_events(text, &opts(dialect), n)
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ArgumentDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn glm_rule_8_deltas_are_exactly_the_value() {
    let text = "<tool_call>w<arg_key>c</arg_key><arg_value>\nline 1\n</arg_value></tool_call>";
    for n in 1..8 {
        assert_eq!(deltas(text, Dialect::Glm, n), "\nline 1\n", "chunks of {n}");
    }
}

// ----- The invoke family (docs/FORMAT.md §9.5) -------------------------------------------------

/// One call to `f` with `a`'s raw value in each invoke dialect's markup, and the dialect.
fn invoke_call(dialect: Dialect, value: &str) -> String {
    match dialect {
        Dialect::MinimaxM2 => format!(
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">{value}</parameter>\n</invoke>\n</minimax:tool_call>"
        ),
        Dialect::Anthropic => format!(
            "<function_calls>\n<invoke name=\"f\">\n<parameter name=\"a\">{value}</parameter>\n</invoke>\n</function_calls>"
        ),
        Dialect::DeepseekDsml => format!(
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"true\">{value}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
        ),
        Dialect::Step3 => format!(
            "<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\">\n<steptml:parameter name=\"a\">{value}</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>"
        ),
        _ => unreachable!("not an invoke dialect"),
    }
}

const INVOKE_DIALECTS: [Dialect; 4] = [
    Dialect::MinimaxM2,
    Dialect::Anthropic,
    Dialect::DeepseekDsml,
    Dialect::Step3,
];

#[test]
fn invoke_rule_1_a_block_holds_invokes_each_a_call() {
    for d in INVOKE_DIALECTS {
        let call = invoke_call(d, "Paris");
        let r = parse(&format!("Before.\n{call}\nAfter."), &opts(d));
        assert_eq!(r.calls()[0].tool_name, "f", "{d}");
        assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("Paris"), "{d}");
        assert_eq!(r.prose(), "Before.\n\nAfter.", "{d}");
    }
    // Several invokes in one block; the blanks between them are the block's layout.
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"a\">\n</invoke>\n<invoke name='b'>\n<parameter name=\"x\">1</parameter>\n</invoke>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(r.prose(), "");
    // DeepSeek's later block name.
    let r = parse(
        "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
        &opts(Dialect::DeepseekDsml),
    );
    assert_eq!(r.calls()[0].tool_name, "f");
    // An opener not followed by an invoke, an invoke outside a block, a placeholder: prose.
    for text in [
        "Use <minimax:tool_call> blocks.",
        "<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>",
        "<minimax:tool_call>\n<invoke name=\"{{ tool.name }}\">\n</invoke>\n</minimax:tool_call>",
    ] {
        let r = parse(text, &opts(Dialect::MinimaxM2));
        assert!(r.calls().is_empty() && r.errors().is_empty(), "{text}");
        assert_eq!(r.prose(), text);
    }
    // An invoke tag that is not one (never closed, a name unquoted) after a block opener: the
    // call the block opened is an error at it, never prose; the block is skipped to its close.
    for d in INVOKE_DIALECTS {
        let call = invoke_call(d, "Paris");
        for broken in [
            call.replacen("name=\"f\">", "name=\"f\"", 1),
            call.replacen("name=\"f\"", "name=f", 1),
        ] {
            let r = parse(&format!("Before.\n{broken}\nAfter."), &opts(d));
            let [e] = r.errors()[..] else {
                panic!("{d}: one error: {:?}", r.errors())
            };
            assert_eq!(e.kind, ErrorKind::InvalidToolName, "{d}: {broken}");
            assert!(e.message.contains("not well formed"), "{d}: {}", e.message);
            assert!(r.calls().is_empty(), "{d}");
            assert_eq!(r.prose(), "Before.\n\nAfter.", "{d}: {broken}");
        }
    }
    // A later invoke of the block that is not one is an error too; the call before it stands.
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"a\">\n</invoke>\n<invoke name=\"b\"\n\
         <parameter name=\"x\">1</parameter>\n</invoke>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert_eq!(r.calls().len(), 1);
    assert_eq!(
        (r.errors()[0].kind, r.errors()[0].line),
        (ErrorKind::InvalidToolName, 4)
    );
    assert_eq!(r.prose(), "");
    // Names are checked, in each dialect's own feedback.
    let r = parse(
        "<function_calls>\n<invoke name=\"rm -rf\">\n</invoke>\n</function_calls>",
        &opts(Dialect::Anthropic),
    );
    assert_eq!(r.errors()[0].kind, ErrorKind::InvalidToolName);
    assert!(r.errors()[0].feedback().contains("<function_calls>"));
    let r = parse(
        "<｜tool_calls_begin｜><steptml:invoke>\n</steptml:invoke><｜tool_calls_end｜>",
        &opts(Dialect::Step3),
    );
    assert_eq!(r.errors()[0].kind, ErrorKind::MissingToolName);
    assert!(
        r.errors()[0]
            .feedback()
            .contains("<steptml:invoke name=\"NAME\">")
    );
}

#[test]
fn invoke_rule_2_one_layout_newline_each_side_every_other_byte_kept() {
    for d in INVOKE_DIALECTS {
        let r = parse(&invoke_call(d, "\n\n  x &lt; y\r\n\n"), &opts(d));
        assert_eq!(
            r.calls()[0].arguments["a"].as_str(),
            Some("\n  x &lt; y\r\n"),
            "{d}"
        );
        let r = parse(&invoke_call(d, ""), &opts(d));
        assert_eq!(r.calls()[0].arguments["a"].as_str(), Some(""), "{d}");
    }
}

#[test]
fn invoke_rule_3_close_tags_inside_a_value_are_text_unless_structure_follows() {
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"w\">\n<parameter name=\"code\">print(\"</parameter>\")\nx</invoke>y</parameter>\n</invoke>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert_eq!(
        r.calls()[0].arguments["code"].as_str(),
        Some("print(\"</parameter>\")\nx</invoke>y")
    );
    assert_eq!(
        repairs(&r),
        [RepairKind::CloseTagAsText, RepairKind::CloseTagAsText]
    );
    // At the start of a line, </invoke> ends the value and the call; Step-3's separator after
    // </steptml:invoke> is structure.
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"w\">\n<parameter name=\"a\">1\n</invoke>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1"));
    assert_eq!(repairs(&r), [RepairKind::UnclosedParameter]);
    let r = parse(
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"w\"><steptml:parameter name=\"a\">1</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
        &opts(Dialect::Step3),
    );
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1"));
    assert!(repairs(&r).is_empty());
}

#[test]
fn invoke_rule_4_a_missing_close_before_the_next_parameter_is_repaired() {
    let r = parse(
        "<function_calls>\n<invoke name=\"f\">\n<parameter name=\"a\">1\n<parameter name=\"b\">2</parameter>\n</invoke>\n</function_calls>",
        &opts(Dialect::Anthropic),
    );
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1"));
    assert_eq!(r.calls()[0].arguments["b"].as_str(), Some("2"));
    assert_eq!(repairs(&r), [RepairKind::UnclosedParameter]);
    // Mid-line: text.
    let r = parse(
        "<function_calls>\n<invoke name=\"f\">\n<parameter name=\"a\">say <parameter name=\"b\"> here</parameter>\n</invoke>\n</function_calls>",
        &opts(Dialect::Anthropic),
    );
    assert_eq!(
        r.calls()[0].arguments["a"].as_str(),
        Some("say <parameter name=\"b\"> here")
    );
}

#[test]
fn invoke_rule_5_only_parameters_stand_inside_an_invoke() {
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"f\">\nhello\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>after",
        &opts(Dialect::MinimaxM2),
    );
    assert!(r.calls().is_empty());
    assert_eq!(r.errors()[0].kind, ErrorKind::UnexpectedText);
    assert_eq!((r.errors()[0].line, r.errors()[0].column), (3, 1));
    assert!(r.errors()[0].feedback().contains("<minimax:tool_call>"));
    assert_eq!(r.prose(), "after");
    // A new invoke before </invoke>: the open call is unterminated, the new one is read.
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n<invoke name=\"b\">\n</invoke>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert_eq!(r.errors()[0].kind, ErrorKind::UnterminatedCall);
    assert_eq!(r.errors()[0].partial, Some(serde_json::json!({"x": "1"})));
    assert_eq!(r.calls()[0].tool_name, "b");
    // A new block there: the same, and the new block is read.
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"a\">\n<minimax:tool_call>\n<invoke name=\"b\">\n</invoke>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert_eq!(r.errors()[0].kind, ErrorKind::UnterminatedCall);
    assert_eq!(r.calls()[0].tool_name, "b");
    // The block's close where </invoke> was due.
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"a\">\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert_eq!(repairs(&r), [RepairKind::MissingCallCloser]);
}

/// DeepSeek-V4 writes a call without arguments as a self-closing invoke: the whole call, `{}`,
/// first, between and after other invokes, in every invoke dialect; a bad name is still an error.
#[test]
fn invoke_rule_1_a_self_closing_invoke_is_a_call_without_arguments() {
    let text = "Final answer.\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"submit\"/>\n\
                <｜DSML｜invoke name=\"b\">\n<｜DSML｜parameter name=\"x\" string=\"true\">1</｜DSML｜parameter>\n\
                </｜DSML｜invoke>\n<｜DSML｜invoke name=\"done\" />\n</｜DSML｜tool_calls>after";
    let r = parse(text, &opts(Dialect::DeepseekDsml));
    let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["submit", "b", "done"], "{r:?}");
    assert!(r.calls()[0].arguments.is_empty());
    assert!(r.calls()[2].arguments.is_empty());
    assert_eq!(r.calls()[1].arguments["x"].as_str(), Some("1"));
    assert!(repairs(&r).is_empty());
    assert_eq!(r.prose(), "Final answer.\nafter");
    // The call's span is its tag.
    let at = text.find("<｜DSML｜invoke name=\"submit\"/>").expect("tag");
    assert_eq!(
        r.calls()[0].span.end - at,
        "<｜DSML｜invoke name=\"submit\"/>".len()
    );
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"ping\"/>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert_eq!(r.calls()[0].tool_name, "ping");
    assert!(r.calls()[0].arguments.is_empty());
    // An invalid name is an error that ends at the tag; the block reads on.
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"rm -rf\"/>\n<invoke name=\"ok\"/>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert_eq!(r.errors()[0].kind, ErrorKind::InvalidToolName);
    assert_eq!(r.calls()[0].tool_name, "ok");
}

/// DeepSeek-V4's quantized models write the invoke's close cut short (`</｜DSML｜inv>`): read as
/// the close, with a repair, in every invoke dialect; a cut of more than three characters is not.
#[test]
fn invoke_rule_5_a_close_cut_short_closes_the_invoke() {
    let text = "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">\n\
                <｜DSML｜parameter name=\"location\" string=\"true\">Paris, France</｜DSML｜parameter>\n\
                </｜DSML｜inv>\n</｜DSML｜tool_calls>after";
    let r = parse(text, &opts(Dialect::DeepseekDsml));
    assert_eq!(r.calls().len(), 1, "{r:?}");
    assert_eq!(
        r.calls()[0].arguments["location"].as_str(),
        Some("Paris, France")
    );
    assert_eq!(repairs(&r), [RepairKind::TruncatedCloseTag]);
    let at = &r.calls()[0].repairs[0];
    assert_eq!((at.line, at.column), (4, 1));
    assert_eq!(r.prose(), "after");
    // Directly after the parameters, and in MiniMax-M2's form, each length of cut up to three.
    for close in ["</invok>", "</invo>", "</inv>"] {
        let text = format!(
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n{close}\n</minimax:tool_call>"
        );
        let r = parse(&text, &opts(Dialect::MinimaxM2));
        assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1"), "{close}");
        assert_eq!(repairs(&r), [RepairKind::TruncatedCloseTag], "{close}");
    }
    // The whole close is no repair; a longer cut is no close: after </parameter> it is text of
    // the value, and the block's close ends the call with the repairs of a missing close.
    let whole = parse(
        "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert!(repairs(&whole).is_empty());
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</in>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert_eq!(
        r.calls()[0].arguments["a"].as_str(),
        Some("1</parameter>\n</in>")
    );
    assert!(!repairs(&r).contains(&RepairKind::TruncatedCloseTag));
}

/// DSML's invoke may hold one JSON object, its arguments (SGLang's, smg's and TensorRT-LLM's
/// reading); the other invoke dialects keep to parameters.
#[test]
fn invoke_rule_5_a_dsml_invoke_may_hold_one_json_object() {
    let dsml = opts(Dialect::DeepseekDsml);
    let text = "<｜DSML｜function_calls> <｜DSML｜invoke name=\"get_weather\"> \
                <｜DSML｜parameter name=\"location\" string=\"true\">NYC</｜DSML｜parameter> \
                </｜DSML｜invoke> <｜DSML｜invoke name=\"search_web\"> \
                {\"query\": \"AI\", \"n\": 2, \"query\": \"dropped\"} \
                </｜DSML｜invoke> </｜DSML｜function_calls>after";
    let r = parse(text, &dsml);
    assert_eq!(r.calls().len(), 2, "{r:?}");
    let call = &r.calls()[1];
    assert_eq!(call.tool_name, "search_web");
    assert_eq!(
        serde_json::to_value(toolcall_parser::Value::Object(call.arguments.clone()))
            .expect("arguments"),
        serde_json::json!({"query": "AI", "n": 2})
    );
    assert_eq!(call.encodings[0].encoding, toolcall_parser::Encoding::Json);
    assert_eq!(repairs(&r), [RepairKind::DuplicateArgument]);
    assert_eq!(r.prose(), "after");
    // A close tag inside a JSON string ends nothing.
    let r = parse(
        "<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\">{\"a\": \"</｜DSML｜invoke>\"}</｜DSML｜invoke></｜DSML｜tool_calls>",
        &dsml,
    );
    assert_eq!(
        r.calls()[0].arguments["a"].as_str(),
        Some("</｜DSML｜invoke>")
    );
    // Text after the object, a parameter beside it, an object that is not JSON: errors, never
    // calls; an object cut off by the end of the input: unterminated.
    for (text, kind) in [
        ("{\"a\": 1} x</｜DSML｜invoke>", ErrorKind::UnexpectedText),
        (
            "{\"a\": 1}<｜DSML｜parameter name=\"b\" string=\"true\">2</｜DSML｜parameter></｜DSML｜invoke>",
            ErrorKind::UnexpectedElement,
        ),
        ("{\"a\": tru}</｜DSML｜invoke>", ErrorKind::InvalidJson),
        // The block's close inside the object (outside its strings) is not JSON.
        ("{\"a\": 1", ErrorKind::InvalidJson),
    ] {
        let text =
            format!("<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\">{text}</｜DSML｜tool_calls>");
        let r = parse(&text, &dsml);
        assert!(r.calls().is_empty(), "{text}: {r:?}");
        assert_eq!(r.errors()[0].kind, kind, "{text}");
    }
    let r = parse(
        "<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\">{\"a\": \"cut",
        &dsml,
    );
    assert!(r.calls().is_empty());
    assert_eq!(r.errors()[0].kind, ErrorKind::UnterminatedCall);
    // MiniMax-M2 reads no JSON body.
    let r = parse(
        "<minimax:tool_call>\n<invoke name=\"f\">{\"a\": 1}</invoke>\n</minimax:tool_call>",
        &opts(Dialect::MinimaxM2),
    );
    assert!(r.calls().is_empty());
    assert_eq!(r.errors()[0].kind, ErrorKind::UnexpectedText);
}

#[test]
fn invoke_rule_6_values_are_typed_by_the_schema_or_by_deepseeks_string_attribute() {
    let text = "<minimax:tool_call>\n<invoke name=\"calc\">\n<parameter name=\"count\">7</parameter>\n\
                <parameter name=\"verbose\">true</parameter>\n</invoke>\n</minimax:tool_call>";
    let r = parse(text, &opts(Dialect::MinimaxM2));
    assert_eq!(r.calls()[0].arguments["count"].as_str(), Some("7"));
    let typed = opts(Dialect::MinimaxM2).with_schemas(schemas(
        "calc",
        serde_json::json!({"count": {"type": "integer"}, "verbose": {"type": "boolean"}}),
    ));
    let r = parse(text, &typed);
    assert_eq!(r.calls()[0].arguments["count"].as_i64(), Some(7));
    assert_eq!(r.calls()[0].arguments["verbose"].as_bool(), Some(true));
    // DSML: string="false" is JSON, string="true" a string, where the schema lets them be.
    let text = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"calc\">\n\
                <｜DSML｜parameter name=\"count\" string=\"true\">7</｜DSML｜parameter>\n\
                <｜DSML｜parameter name=\"tags\" string=\"false\">[\"a\", 1]</｜DSML｜parameter>\n\
                <｜DSML｜parameter name=\"n\" string=\"false\">not json</｜DSML｜parameter>\n\
                <｜DSML｜parameter name=\"verbose\">true</｜DSML｜parameter>\n\
                </｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let r = parse(text, &opts(Dialect::DeepseekDsml));
    let args = &r.calls()[0].arguments;
    assert_eq!(
        serde_json::to_value(toolcall_parser::Value::Object(args.clone())).expect("arguments"),
        serde_json::json!({"count": "7", "tags": ["a", 1], "n": "not json", "verbose": "true"})
    );
    // Where the schema does not let the declared type stand, it types the text (vLLM's reading
    // too): a declared string `7` for an integer is 7, declared JSON `["a", 1]` for a string is
    // the text; a string allowed by an `anyOf` stands; no attribute, the schema.
    let typed = opts(Dialect::DeepseekDsml).with_schemas(schemas(
        "calc",
        serde_json::json!({"count": {"type": "integer"}, "verbose": {"type": "boolean"},
            "tags": {"type": "string"}, "n": {"anyOf": [{"type": "string"}, {"type": "null"}]}}),
    ));
    let r = parse(text, &typed);
    let args = &r.calls()[0].arguments;
    assert_eq!(
        serde_json::to_value(toolcall_parser::Value::Object(args.clone())).expect("arguments"),
        serde_json::json!({"count": 7, "tags": "[\"a\", 1]", "n": "not json", "verbose": true})
    );
    let null = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"calc\">\n\
                <｜DSML｜parameter name=\"tags\" string=\"false\">null</｜DSML｜parameter>\n\
                <｜DSML｜parameter name=\"n\" string=\"false\">null</｜DSML｜parameter>\n\
                </｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let r = parse(null, &typed);
    let args = &r.calls()[0].arguments;
    assert_eq!(args["tags"].as_str(), Some("null"));
    assert!(args["n"].is_null());
}

#[test]
fn invoke_rule_7_cut_off_calls_are_never_calls() {
    for d in INVOKE_DIALECTS {
        let full = invoke_call(d, "rm -rf /tmp/build");
        let close = match d {
            Dialect::DeepseekDsml => "</｜DSML｜invoke>",
            Dialect::Step3 => "</steptml:invoke>",
            _ => "</invoke>",
        };
        let complete = full.find(close).expect("a close") + close.len();
        for cut in (1..full.len()).filter(|&c| full.is_char_boundary(c)) {
            let r = parse(&full[..cut], &opts(d));
            if cut < complete {
                assert!(r.calls().is_empty(), "{d}, cut at {cut}: {:?}", r.calls());
            } else {
                assert_eq!(r.calls().len(), 1, "{d}, cut at {cut}");
            }
        }
    }
}

#[test]
fn invoke_rule_8_deltas_are_exactly_the_value() {
    for d in INVOKE_DIALECTS {
        let text = invoke_call(d, "\nline 1\nline 2\n\n");
        for n in 1..8 {
            assert_eq!(
                deltas(&text, d, n),
                "line 1\nline 2\n",
                "{d}, chunks of {n}"
            );
        }
    }
}

// ----- Kimi-K3 (docs/FORMAT.md §9.6) -----------------------------------------------------------

fn kimi(text: &str) -> ParseResult {
    parse(text, &opts(Dialect::KimiK3))
}

#[test]
fn kimi_rule_1_markers_open_and_close_elements() {
    let r = kimi(
        "Sure. <|open|>call tool=\"get_weather\" index=\"1\"<|sep|>\n<|open|>argument key=\"city\" \
         type=\"string\"<|sep|>Paris<|close|>argument<|sep|>\n<|close|>call<|sep|> Done.",
    );
    assert_eq!(r.calls()[0].tool_name, "get_weather");
    assert_eq!(r.calls()[0].arguments["city"].as_str(), Some("Paris"));
    assert_eq!(r.prose(), "Sure.  Done.");
    // `<|…` that is no marker is prose, as is a placeholder's call.
    for text in [
        "a <| b <|open|> <|open|>call x<|sep|> <|open|>callx<|sep|>",
        "<|open|>call tool=\"{{ name }}\"<|sep|><|close|>call<|sep|>",
    ] {
        let r = kimi(text);
        assert!(r.calls().is_empty() && r.errors().is_empty(), "{text}");
        assert_eq!(r.prose(), text);
    }
}

#[test]
fn kimi_rule_2_calls_hold_only_arguments() {
    let r = kimi(
        "<|open|>call tool=\"a\"<|sep|><|close|>call<|sep|><|open|>call tool='b' index=\"2\"<|sep|>\
         <|open|>argument key=\"x\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>",
    );
    let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    for (text, kind) in [
        (
            "<|open|>call tool=\"f\"<|sep|>hi<|close|>call<|sep|>",
            ErrorKind::UnexpectedText,
        ),
        (
            "<|open|>call tool=\"f\"<|sep|><|open|>argument<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<|open|>call index=\"1\"<|sep|><|close|>call<|sep|>",
            ErrorKind::MissingToolName,
        ),
        (
            "<|open|>call tool=\"rm -rf\"<|sep|><|close|>call<|sep|>",
            ErrorKind::InvalidToolName,
        ),
    ] {
        let r = kimi(&format!("{text}after"));
        assert!(r.calls().is_empty(), "{text}");
        assert_eq!(r.errors()[0].kind, kind, "{text}");
        assert!(r.errors()[0].feedback().contains("<|open|>call"), "{text}");
        assert_eq!(r.prose(), "after", "{text}");
    }
}

#[test]
fn kimi_rule_3_values_lose_one_layout_newline_each_side() {
    let r = kimi(
        "<|open|>call tool=\"w\"<|sep|><|open|>argument key=\"a\"<|sep|>\n\n  x &lt; <b>\r\n\n\
         <|close|>argument<|sep|><|close|>call<|sep|>",
    );
    assert_eq!(
        r.calls()[0].arguments["a"].as_str(),
        Some("\n  x &lt; <b>\r\n")
    );
}

#[test]
fn kimi_rule_4_close_markers_inside_a_value_are_text_unless_structure_follows() {
    let r = kimi(
        "<|open|>call tool=\"w\"<|sep|><|open|>argument key=\"code\"<|sep|>s = \"<|close|>argument<|sep|>\"\
         <|close|>argument<|sep|><|close|>call<|sep|>",
    );
    assert_eq!(
        r.calls()[0].arguments["code"].as_str(),
        Some("s = \"<|close|>argument<|sep|>\"")
    );
    assert_eq!(repairs(&r), [RepairKind::CloseTagAsText]);
    let r = kimi(
        "<|open|>call tool=\"w\"<|sep|><|open|>argument key=\"a\"<|sep|>1\n<|close|>call<|sep|>after",
    );
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("1"));
    assert_eq!(repairs(&r), [RepairKind::UnclosedParameter]);
    assert_eq!(r.prose(), "after");
}

#[test]
fn kimi_rule_5_the_type_attribute_types_values_else_the_schema() {
    let text = "<|open|>call tool=\"f\"<|sep|>\
        <|open|>argument key=\"n\" type=\"integer\"<|sep|>42<|close|>argument<|sep|>\
        <|open|>argument key=\"s\" type=\"string\"<|sep|>42<|close|>argument<|sep|>\
        <|open|>argument key=\"b\" type=\"boolean\"<|sep|>true<|close|>argument<|sep|>\
        <|open|>argument key=\"o\" type=\"object\"<|sep|>{\"k\": [1]}<|close|>argument<|sep|>\
        <|open|>argument key=\"z\" type=\"null\"<|sep|>null<|close|>argument<|sep|>\
        <|open|>argument key=\"bad\" type=\"integer\"<|sep|>many<|close|>argument<|sep|>\
        <|open|>argument key=\"u\"<|sep|>7<|close|>argument<|sep|>\
        <|close|>call<|sep|>";
    let r = kimi(text);
    assert_eq!(
        serde_json::to_value(toolcall_parser::Value::Object(
            r.calls()[0].arguments.clone()
        ))
        .expect("arguments"),
        serde_json::json!({"n": 42, "s": "42", "b": true, "o": {"k": [1]}, "z": null,
            "bad": "many", "u": "7"})
    );
    // Where the schema does not let the declared type stand, it types the text: a declared
    // string for an integer property, a declared integer for a string one.
    let typed = opts(Dialect::KimiK3).with_schemas(schemas(
        "f",
        serde_json::json!({"s": {"type": "integer"}, "u": {"type": "integer"},
            "n": {"type": "string"}, "b": {"type": ["boolean", "null"]}}),
    ));
    let r = parse(text, &typed);
    let args = &r.calls()[0].arguments;
    assert_eq!(args["s"].as_i64(), Some(42));
    assert_eq!(args["u"].as_i64(), Some(7));
    assert_eq!(args["n"].as_str(), Some("42"));
    assert_eq!(args["b"].as_bool(), Some(true));
}

#[test]
fn kimi_rule_6_cut_off_calls_are_never_calls() {
    let full = "<|open|>call tool=\"bash\"<|sep|><|open|>argument key=\"cmd\" type=\"string\"<|sep|>\
                rm -rf /tmp/build<|close|>argument<|sep|><|close|>call<|sep|>";
    for cut in 1..full.len() {
        let r = kimi(&full[..cut]);
        assert!(r.calls().is_empty(), "cut at {cut}: {:?}", r.calls());
    }
    let r = kimi(&full[..full.len() - "<|close|>call<|sep|>".len()]);
    assert_eq!(r.errors()[0].kind, ErrorKind::UnterminatedCall);
    assert_eq!(
        r.errors()[0].partial,
        Some(serde_json::json!({"cmd": "rm -rf /tmp/build"}))
    );
}

#[test]
fn kimi_rule_7_deltas_are_exactly_the_value() {
    let text = "<|open|>call tool=\"w\"<|sep|><|open|>argument key=\"c\"<|sep|>\nline <|x\n\n\
                <|close|>argument<|sep|><|close|>call<|sep|>";
    for n in 1..8 {
        assert_eq!(
            deltas(text, Dialect::KimiK3, n),
            "line <|x\n",
            "chunks of {n}"
        );
    }
}

/// Rule 1: one space after `<|open|>`/`<|close|>` and before `<|sep|>` (a detokenizer's, between
/// special tokens and text) is read as none; attribute values have the template's escaping
/// (`&quot;`, `&amp;`) undone. Dynamo's and smg's Kimi-K3 suites.
#[test]
fn kimi_rule_1_spaced_markers_and_escaped_attributes() {
    let r = kimi(
        "<|open|> call tool=\"calc\" index=\"1\" <|sep|><|open|> argument key=\"x\" type=\"number\" \
         <|sep|>5<|close|> argument <|sep|><|open|>argument key=\"k&amp;q&quot;\"<|sep|>v\
         <|close|>argument<|sep|><|close|> call <|sep|>",
    );
    assert_eq!(r.calls().len(), 1, "{:?}", r.errors());
    assert_eq!(r.calls()[0].tool_name, "calc");
    assert_eq!(r.calls()[0].arguments["x"].as_i64(), Some(5));
    assert_eq!(r.calls()[0].arguments["k&q\""].as_str(), Some("v"));
    // Two spaces are not a detokenizer's: prose.
    let text = "<|open|>  call tool=\"calc\"<|sep|><|close|>call<|sep|>";
    assert!(kimi(text).calls().is_empty());
    assert!(Dialect::KimiK3.call_markers().contains(&"<|open|> call"));
}

/// Rule 8: the message's channel markers are layout: the `response` channel's text is the
/// answer (prose), the `tools` channel holds the calls, the message close and `<|end_of_msg|>`
/// are dropped; a channel marker where `<|close|>call<|sep|>` was due ends the call with a
/// `missing_call_closer` repair. vLLM's, Dynamo's and smg's Kimi-K3 parsers strip them too.
#[test]
fn kimi_rule_8_channel_markers_are_layout() {
    let call = "<|open|>call tool=\"calc\" index=\"1\"<|sep|><|open|>argument key=\"x\" \
                type=\"number\"<|sep|>5<|close|>argument<|sep|><|close|>call<|sep|>";
    let r = kimi(&format!(
        "<|open|>response<|sep|>The answer.<|close|>response<|sep|><|open|>tools<|sep|>{call}\
         <|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>"
    ));
    assert_eq!(r.calls().len(), 1);
    assert_eq!(r.prose(), "The answer.");
    // A prompt that opened the response channel: the answer, then its close.
    assert_eq!(
        kimi("42<|close|>response<|sep|><|close|>message<|sep|>").prose(),
        "42"
    );
    // Other markers stay text.
    let text = "<|open|>tools x=\"1\"<|sep|><|open|>other<|sep|><|close|>call<|sep|>";
    assert_eq!(kimi(text).prose(), text);
    // The call's close missing before the tools channel closes.
    let cut = call.strip_suffix("<|close|>call<|sep|>").unwrap();
    let r = kimi(&format!(
        "<|open|>tools<|sep|>{cut}<|close|>tools<|sep|>after"
    ));
    assert_eq!(r.calls()[0].arguments["x"].as_i64(), Some(5));
    assert_eq!(repairs(&r), [RepairKind::MissingCallCloser]);
    assert_eq!(r.prose(), "after");
    // After an argument's close (the call's close missing): a channel's close or the message's
    // end ends the call, repaired; a channel's opener is the value's text.
    let open = call
        .strip_suffix("<|close|>argument<|sep|><|close|>call<|sep|>")
        .unwrap();
    for end in [
        "<|close|>tools<|sep|>",
        "<|close|>message<|sep|>",
        "<|end_of_msg|>",
    ] {
        let r = kimi(&format!("{open}<|close|>argument<|sep|>{end}after"));
        assert_eq!(r.calls()[0].arguments["x"].as_i64(), Some(5), "{end}");
        assert_eq!(repairs(&r), [RepairKind::MissingCallCloser], "{end}");
        assert_eq!(r.prose(), "after", "{end}");
    }
    let r = kimi(&format!(
        "{open}<|close|>argument<|sep|><|open|>response<|sep|>x<|close|>argument<|sep|><|close|>call<|sep|>"
    ));
    assert_eq!(
        r.calls()[0].arguments["x"].as_str(),
        Some("5<|close|>argument<|sep|><|open|>response<|sep|>x")
    );
    // A call read to its end after an error ends at a channel marker too: the answer after it
    // is prose.
    let r = kimi(
        "<|open|>call tool=\"a\"<|sep|><|open|>json type=\"object\"<|sep|>not-json\
         <|close|>json<|sep|><|open|>response<|sep|>hi<|close|>response<|sep|>",
    );
    assert_eq!(r.errors()[0].kind, ErrorKind::InvalidJson);
    assert_eq!(r.prose(), "hi");
    // The message's header, attributes and all.
    let r = kimi(
        "<|open|>message role=\"assistant\"<|sep|><|open|>response<|sep|>hi<|close|>response<|sep|>",
    );
    assert_eq!(r.prose(), "hi");
    // Reasoning is the think channel (docs/FORMAT.md §10).
    assert_eq!(
        Dialect::KimiK3.reasoning_markers(),
        ("<|open|>think<|sep|>", "<|close|>think<|sep|>")
    );
}

/// Rule 9: a call's arguments may be one `json` block, a JSON object read as Hermes's
/// `arguments` are (the first of a repeated name stands); anything else in it is an error.
#[test]
fn kimi_rule_9_a_json_block_holds_all_the_arguments() {
    let r = kimi(
        "<|open|>call tool=\"run\" index=\"2\"<|sep|><|open|>json type=\"object\"<|sep|>\
         {\"b\": 1,  \"a\": [2 , 3], \"b\": 9}<|close|>json<|sep|>\n<|close|>call<|sep|>",
    );
    assert_eq!(r.calls().len(), 1, "{:?}", r.errors());
    assert_eq!(
        serde_json::to_value(toolcall_parser::Value::Object(
            r.calls()[0].arguments.clone()
        ))
        .expect("arguments"),
        serde_json::json!({"b": 1, "a": [2, 3]})
    );
    assert_eq!(repairs(&r), [RepairKind::DuplicateArgument]);
    // In a JSON object the names given twice are one repair of the object: it names none.
    assert_eq!(r.calls()[0].repairs[0].argument, None);
    // Markers inside the object's strings are its text: the object ends where its JSON does.
    let r = kimi(
        "<|open|>call tool=\"run\"<|sep|><|open|>json<|sep|>{\"c\": \"a <|close|>json<|sep|> \
         <|close|>call<|sep|> b\"}<|close|>json<|sep|><|close|>call<|sep|>",
    );
    assert_eq!(
        r.calls()[0].arguments["c"].as_str(),
        Some("a <|close|>json<|sep|> <|close|>call<|sep|> b")
    );
    // The JSON dialects' limits: depth and elements.
    let limited = opts(Dialect::KimiK3).with_limits(
        toolcall_parser::Limits::default()
            .with_max_depth(4)
            .with_max_elements(10),
    );
    for json in ["{\"a\": [[[[1]]]]}", "{\"a\": [1,2,3,4,5,6,7,8,9,10,11]}"] {
        let text = format!(
            "<|open|>call tool=\"f\"<|sep|><|open|>json<|sep|>{json}<|close|>json<|sep|><|close|>call<|sep|>"
        );
        let r = parse(&text, &limited);
        assert!(r.calls().is_empty(), "{json}");
        assert_eq!(r.errors()[0].kind, ErrorKind::LimitExceeded, "{json}");
    }
    for (body, kind) in [
        (
            "<|open|>json<|sep|>{} x<|close|>json<|sep|>",
            ErrorKind::UnexpectedText,
        ),
        (
            "<|open|>json<|sep|>[1]<|close|>json<|sep|>",
            ErrorKind::InvalidJson,
        ),
        (
            "<|open|>json<|sep|>{\"a\": <|close|>json<|sep|>",
            ErrorKind::InvalidJson,
        ),
        (
            "<|open|>json<|sep|>{}<|close|>json<|sep|><|open|>argument key=\"a\"<|sep|>1\
             <|close|>argument<|sep|>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<|open|>argument key=\"a\"<|sep|>1<|close|>argument<|sep|><|open|>json<|sep|>{}\
             <|close|>json<|sep|>",
            ErrorKind::UnexpectedElement,
        ),
    ] {
        let r = kimi(&format!(
            "<|open|>call tool=\"f\"<|sep|>{body}<|close|>call<|sep|>after"
        ));
        assert!(r.calls().is_empty(), "{body}");
        assert_eq!(r.errors()[0].kind, kind, "{body}");
        assert_eq!(r.prose(), "after", "{body}");
    }
}

// ----- auto (docs/FORMAT.md §9.7) --------------------------------------------------------------

fn auto(text: &str) -> ParseResult {
    parse(text, &opts(Dialect::Auto))
}

/// A reply with one call in each dialect, for the dialect.
fn samples() -> Vec<(Dialect, String)> {
    let mut v = vec![
        (
            Dialect::Tool,
            "<tool><tool_name>f</tool_name><arguments><a>1</a></arguments></tool>".to_owned(),
        ),
        (
            Dialect::Qwen3Coder,
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
                .to_owned(),
        ),
        (
            Dialect::Qwen3Coder,
            "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>".to_owned(),
        ),
        (
            Dialect::SeedOss,
            "<seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>\n</seed:tool_call>"
                .to_owned(),
        ),
        (
            Dialect::Hermes,
            "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>".to_owned(),
        ),
        (
            Dialect::Glm,
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>".to_owned(),
        ),
        (
            Dialect::KimiK3,
            "<|open|>call tool=\"f\"<|sep|><|open|>argument key=\"a\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>"
                .to_owned(),
        ),
    ];
    v.extend(INVOKE_DIALECTS.map(|d| (d, invoke_call(d, "1"))));
    v
}

#[test]
fn auto_rule_1_the_first_call_marker_picks_the_dialect() {
    for (d, call) in samples() {
        for text in [
            call.clone(),
            format!("Sure, a < b.\n{call}\nDone."),
            format!("{call}{call}"),
        ] {
            let r = auto(&text);
            assert_eq!(r, parse_with(&text, &opts(d)), "{d}: {text}");
            assert!(!r.calls().is_empty(), "{d}: {text}");
        }
        // Broken calls are reported in the dialect's own syntax.
        let mut half = call.len() / 2;
        while !call.is_char_boundary(half) {
            half += 1;
        }
        let cut = &call[..half];
        let r = auto(cut);
        assert_eq!(r, parse_with(cut, &opts(d)), "{d}: {cut}");
        assert_eq!(r.errors()[0].dialect, d);
    }
}

#[test]
fn auto_rule_2_markers_in_prose_stay_prose() {
    let text = "Use <tool> or <tool_call> tags, <function=name> or <minimax:tool_call>, \
                <|open|>call x and <｜tool_calls_begin｜> too.";
    let r = auto(text);
    assert!(r.calls().is_empty() && r.errors().is_empty());
    assert_eq!(r.prose(), text);
    // The first marker that is a call decides, however many were prose before it.
    let call = invoke_call(Dialect::MinimaxM2, "1");
    let r = auto(&format!("the <tool_call> tag:\n{call}"));
    assert_eq!(r.calls()[0].tool_name, "f");
    assert_eq!(r.prose(), "the <tool_call> tag:\n");
}

#[test]
fn auto_rule_3_a_shared_marker_is_decided_by_what_follows() {
    for (d, call) in samples() {
        if call.starts_with("<tool_call>") {
            let r = auto(&call);
            assert_eq!(r, parse_with(&call, &opts(d)), "{d}");
            assert_eq!(r.calls()[0].tool_name, "f", "{d}");
        }
    }
    // GLM's call without arguments and Hermes' JSON are told apart.
    let r = auto("<tool_call>get_time</tool_call>");
    assert_eq!(r.calls()[0].tool_name, "get_time");
}

#[test]
fn auto_rule_4_a_mixed_reply_is_read_in_the_first_calls_dialect() {
    let hermes = "<tool_call>\n{\"name\": \"h\", \"arguments\": {}}\n</tool_call>";
    let minimax = invoke_call(Dialect::MinimaxM2, "1");
    let r = auto(&format!("{hermes}\n{minimax}"));
    assert_eq!(r.calls().len(), 1);
    assert_eq!(r.calls()[0].tool_name, "h");
    assert_eq!(r.prose(), format!("\n{minimax}"));
    let r = auto(&format!("{minimax}\n{hermes}"));
    assert_eq!(r.calls().len(), 1);
    assert_eq!(r.calls()[0].tool_name, "f");
    assert_eq!(r.prose(), format!("\n{hermes}"));
}

#[test]
fn auto_rule_5_a_fenced_marker_does_not_pick_the_dialect_when_fences_are_ignored() {
    let minimax = invoke_call(Dialect::MinimaxM2, "1");
    let text = format!(
        "Example:\n```\n<tool_call>\n<function=g>\n</function>\n</tool_call>\n```\n{minimax}"
    );
    let r = parse(&text, &opts(Dialect::Auto).with_ignore_fenced_calls(true));
    assert_eq!(r.calls().len(), 1);
    assert_eq!(r.calls()[0].tool_name, "f");
    // Without the option the fenced call is the first.
    let r = auto(&text);
    assert_eq!(r.calls()[0].tool_name, "g");
}

/// §9.7 rule 6: a call opens where `auto` probes and nowhere else. Every opener a dialect reads
/// from prose is one of its markers, byte for byte (the `<tool>` form's `<tool` takes any XML
/// blank before `>`; a token dialect's block opener is its token exactly, so `<tool_call >` or
/// `<tool_call=x>` is prose), so `auto` reads each variant as that dialect does, in every
/// chunking. And a candidate that reads its marker as prose is not chosen by a call it meets
/// later in the same window: that call is decided at its own marker.
#[test]
fn auto_rule_6_calls_open_only_at_markers_and_auto_reads_them_as_the_dialect_does() {
    let qwen = "\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>";
    let hermes = "{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>";
    let glm = "f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>";
    let tool = "<tool_name>f</tool_name><arguments><a>1</a></arguments></tool>";
    let cases: [(Dialect, &[&str], &str); 5] = [
        (
            Dialect::Tool,
            &["<tool>", "<tool >", "<tool\t>", "<tool\r>", "<tool\n>"],
            tool,
        ),
        (
            Dialect::Hermes,
            &[
                "<tool_call>",
                "<tool_call >",
                "<tool_call\t>",
                "<tool_call=x>",
                "<tool_call a=\"1\">",
            ],
            hermes,
        ),
        (
            Dialect::Glm,
            &["<tool_call>", "<tool_call >", "<tool_call=x>"],
            glm,
        ),
        (
            Dialect::Qwen3Coder,
            &["<tool_call>", "<tool_call >", "<tool_call=x>"],
            qwen,
        ),
        (
            Dialect::SeedOss,
            &["<seed:tool_call>"],
            "\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</seed:tool_call>",
        ),
    ];
    for (dialect, openers, rest) in cases {
        for (k, opener) in openers.iter().enumerate() {
            let text = format!("Before {opener}{rest} after");
            let own = parse(&text, &opts(dialect));
            assert_eq!(
                parse(&text, &opts(Dialect::Auto)),
                own,
                "{dialect} {opener:?}"
            );
            // The exact marker (the first) opens a call; blanks or a value in a token
            // dialect's opener leave it prose (Qwen3-Coder's `<function=` then opens the call
            // without its block, as §9.1 rule 4 reads it).
            let exact = k == 0 || dialect == Dialect::Tool;
            assert_eq!(!own.prose().contains(opener), exact, "{dialect} {opener:?}");
            let calls =
                usize::from(exact || matches!(dialect, Dialect::Qwen3Coder | Dialect::SeedOss));
            assert_eq!(own.calls().len(), calls, "{dialect} {opener:?}: {own:?}");
        }
    }
    // Every call of every dialect's sample, and of the `<tool>` variants, begins at one of its
    // dialect's markers (what `auto` probes for).
    let tool_variants = [
        "<tool\t>",
        "<tool\r>",
        "<tool\n>",
        "<tool >",
        "<tool a=\"1\">",
    ]
    .map(|o| (Dialect::Tool, format!("{o}{tool}")));
    for (d, call) in samples().into_iter().chain(tool_variants) {
        let text = format!("Sure.\n{call} and {call}");
        let r = parse(&text, &opts(d));
        assert_eq!(r.calls().len(), 2, "{d}: {text}");
        for c in r.calls() {
            let at = &text[c.span.start..];
            assert!(
                d.call_markers().iter().any(|m| at.starts_with(m)),
                "{d}: {at}"
            );
        }
    }
    // The fuzz input that found the second half (openai_deltas, auto, 17-byte chunks): the
    // `<tool>` candidate read `<tool>]` as prose and then, in the same window, met the call at
    // `<tool\r>`; chosen in one reading and not in the other.
    let text = "#&||\u{1}\0<tool>]><![CDATA[>u<tool\r>\n<t<tool><to\0|";
    assert_eq!(
        parse(text, &opts(Dialect::Auto)),
        parse(text, &opts(Dialect::Tool))
    );
}

/// §9.7 rule 5: `auto` tracks Markdown fences as the `<tool>` grammar does, with every line end
/// (LF, CR LF, CR) and whether or not fenced calls are ignored, and the dialect it starts at a
/// marker knows the fence it stands in: a call read in a fence is `fenced` in both readings.
/// (A property found it: `auto` started the `<tool>` grammar with no fence open, so the call
/// came back unfenced.)
#[test]
fn auto_rule_5_fences_are_tracked_as_the_tool_grammar_tracks_them() {
    let call = "<tool><tool_name>f</tool_name><arguments><a>1</a></arguments></tool>";
    for end in ["\n", "\r\n", "\r"] {
        for before in ["", "<tool>", "<tool_call> is a tag. "] {
            let text = format!("{before}{end}```{end}{call}{end}```{end}after {call}");
            for ignore in [false, true] {
                let o = |d| opts(d).with_ignore_fenced_calls(ignore);
                let own = parse(&text, &o(Dialect::Tool));
                assert_eq!(
                    parse(&text, &o(Dialect::Auto)),
                    own,
                    "{text:?} ignore {ignore}"
                );
                let fenced: Vec<bool> = own.calls().iter().map(|c| c.fenced).collect();
                let want = if ignore {
                    vec![false]
                } else {
                    vec![true, false]
                };
                assert_eq!(fenced, want, "{text:?} ignore {ignore}");
            }
        }
    }
}

/// §7 in every dialect: a call longer than `max_call_bytes` is never a call, even when only its
/// last lexeme crosses the limit (`<tool\t>…</tool>` one byte over was read whole and passed;
/// found by a property once the soups held whole calls); a call of exactly the limit is one.
/// In every chunking.
#[test]
fn a_call_one_byte_over_the_call_limit_is_never_a_call() {
    let tool_variants = ["<tool\t>", "<tool >"].map(|o| {
        (
            Dialect::Tool,
            format!("{o}<tool_name>f</tool_name><arguments><a>1</a></arguments></tool>"),
        )
    });
    for (d, call) in samples().into_iter().chain(tool_variants) {
        let text = format!("Sure. {call} Done.");
        // A call's length is its span's (a block's closer after its last call is the block's).
        let len = parse(&text, &opts(d)).calls()[0].span.len();
        for over in 0..4 {
            let limits = toolcall_parser::Limits::default().with_max_call_bytes(len - over);
            let r = parse(&text, &opts(d).with_limits(limits));
            if over == 0 {
                assert_eq!(r.calls().len(), 1, "{d}: {call}");
            } else {
                assert!(r.calls().is_empty(), "{d}, {over} over: {r:?}");
                assert_eq!(
                    r.errors()[0].kind,
                    ErrorKind::LimitExceeded,
                    "{d}, {over} over"
                );
            }
        }
    }
}

/// §9.2: a Hermes block whose input ends after a complete JSON object is a call
/// (`missing_call_closer`) only if what follows can still become `</tool_call>`; any other tag
/// left open by the end of the input (`</tool_ca1`, found by `parse_mixed` with the new dialect
/// seeds) is unexpected text, as it is when the tag is closed. In every chunking.
#[test]
fn hermes_a_cut_closer_is_only_a_prefix_of_the_closer() {
    let head = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n";
    for tail in ["", "<", "</", "</too", "</tool_call"] {
        let r = parse(&format!("{head}{tail}"), &opts(Dialect::Hermes));
        assert_eq!(r.calls().len(), 1, "{tail:?}");
        assert_eq!(repairs(&r), [RepairKind::MissingCallCloser], "{tail:?}");
    }
    for tail in ["</tool_ca1", "</x", "<tool", "</tool_call x", "text"] {
        let r = parse(&format!("{head}{tail}"), &opts(Dialect::Hermes));
        assert!(r.calls().is_empty(), "{tail:?}");
        assert_eq!(r.errors()[0].kind, ErrorKind::UnexpectedText, "{tail:?}");
    }
}

/// §7 in every raw-text dialect: a value's text is read no further than the call's limit, so
/// when a value crosses both the argument limit and the call limit, the error names the one
/// crossed first, in every chunking (a value run read whole reported the argument limit
/// one-shot and the call limit in small chunks: found by `stream_chunking` with the new dialect
/// seeds). The limits swept across the value's bytes, each result chunking-invariant.
#[test]
fn a_value_crossing_two_limits_reports_the_first_in_every_chunking() {
    let value = "fn main() { é; }".repeat(4);
    let mut texts: Vec<(Dialect, String)> = INVOKE_DIALECTS
        .map(|d| (d, invoke_call(d, &value)))
        .to_vec();
    texts.push((
        Dialect::Qwen3Coder,
        format!("<tool_call>\n<function=f>\n<parameter=a>\n{value}\n</parameter>\n</function>\n</tool_call>"),
    ));
    texts.push((
        Dialect::Glm,
        format!("<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>{value}</arg_value>\n</tool_call>"),
    ));
    texts.push((
        Dialect::KimiK3,
        format!("<|open|>call tool=\"f\"<|sep|><|open|>argument key=\"a\"<|sep|>{value}<|close|>argument<|sep|><|close|>call<|sep|>"),
    ));
    texts.push((
        Dialect::MinimaxM3,
        format!("]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>{value}]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>"),
    ));
    for (d, text) in texts {
        let at = text.find(&value).expect("the value");
        for max_call in (at..at + value.len() + 2).step_by(3) {
            for max_arg in [8, 30, 1000] {
                let limits = toolcall_parser::Limits::default()
                    .with_max_call_bytes(max_call)
                    .with_max_argument_bytes(max_arg);
                // `parse` asserts that every chunking gives the one-shot result.
                let r = parse(&text, &opts(d).with_limits(limits));
                assert!(r.calls().is_empty(), "{d}: {max_call} {max_arg}");
            }
        }
    }
}

/// §7: after a value crosses `max_argument_bytes`, the call is skipped from the end of the text
/// read into the value, whether that text came in one run or in many: a run that crossed the
/// limit one-shot was read again by the skip, which then took a `<tool_call>` after it for a new
/// call, while streamed in two pieces it was the value's text (found by `stream_chunking` with
/// the new dialect seeds). Every cut into two pieces, every small chunking, the limit swept.
#[test]
fn a_skip_after_the_argument_limit_starts_where_the_value_text_ended() {
    let texts = [
        (
            Dialect::Glm,
            "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.rs</aol_cal\u{e}l><tool_call>",
        ),
        (
            Dialect::Qwen3Coder,
            "<tool_call>\n<function=f>\n<parameter=a>\na.rs</aol_cal l><tool_call>",
        ),
        (
            Dialect::MinimaxM2,
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">a.rs</aol_cal l><minimax:tool_call>",
        ),
        (
            Dialect::KimiK3,
            "<|open|>call tool=\"f\"<|sep|><|open|>argument key=\"a\"<|sep|>a.rs</aol_cal l><|open|>call",
        ),
    ];
    for (d, text) in texts {
        for max_arg in 2..30 {
            let o = opts(d)
                .with_limits(toolcall_parser::Limits::default().with_max_argument_bytes(max_arg));
            let whole = parse(text, &o);
            for cut in 1..text.len() {
                if !text.is_char_boundary(cut) {
                    continue;
                }
                let mut p = StreamParser::with_options(o.clone());
                let mut events = p.feed(&text[..cut]);
                events.extend(p.feed(&text[cut..]));
                events.extend(p.finish());
                assert_eq!(
                    ParseResult::from_events(events),
                    whole,
                    "{d} {max_arg} cut at {cut}"
                );
            }
        }
    }
}

/// §7, GLM: a key's text is read no further than the call's limit either: a long key whose
/// misspelt close lies past the limit is the call running too long in every chunking (one-shot
/// reported the misspelt close, past the limit; found by `stream_chunking`).
#[test]
fn glm_a_long_key_runs_into_the_call_limit_in_every_chunking() {
    let key = "p".repeat(60);
    let text =
        format!("<tool_call>f\n<arg_key>{key}</arg_kex>\n<arg_value>1</arg_value>\n</tool_call>");
    let close = text.find("</arg_kex>").expect("the close");
    for max_call in close - 20..close + 4 {
        let o = opts(Dialect::Glm)
            .with_limits(toolcall_parser::Limits::default().with_max_call_bytes(max_call));
        let r = parse(&text, &o);
        let kind = r.errors()[0].kind;
        if max_call < close {
            assert_eq!(kind, ErrorKind::LimitExceeded, "{max_call}");
        } else {
            assert_eq!(kind, ErrorKind::UnexpectedElement, "{max_call}");
        }
    }
}

/// §7 in every dialect: nothing past a call's `max_call_bytes` is read as the call's, so an
/// error found past the limit (a grammar read a whole tag across it), or another limit met past
/// it, is the call running too long, in every chunking (one-shot reported the later error;
/// found by `stream_chunking`). Every dialect's sample, whole, with junk markup inside and with
/// a long name, at every call limit up to its length, alone and with a small depth or element
/// limit.
#[test]
fn every_limit_on_a_call_gives_one_result_in_every_chunking() {
    let mut texts = samples();
    let broken: Vec<(Dialect, String)> = samples()
        .into_iter()
        .map(|(d, call)| {
            let mut at = call.len() * 3 / 4;
            while !call.is_char_boundary(at) {
                at += 1;
            }
            (d, format!("{}<bogus x>{}", &call[..at], &call[at..]))
        })
        .collect();
    texts.extend(broken);
    // A long tool name: a whole tag (or name) crosses the limit, and junk follows it.
    let long = "f".repeat(40);
    let named: Vec<(Dialect, String)> = samples()
        .into_iter()
        .map(|(d, call)| {
            let call = [">f<", "=f>", "\"f\"", ">f\n"]
                .iter()
                .fold(call, |c, p| c.replacen(p, &p.replace('f', &long), 1));
            // Junk right after the tag (or line) that holds the name: an error in the call's
            // structure, which a small limit puts past the limit.
            let name_end = call.find(&long).expect("the name") + long.len();
            let after = name_end + call[name_end..].find(['>', '\n']).map_or(0, |i| i + 1);
            (d, format!("{}<bogus x>{}", &call[..after], &call[after..]))
        })
        .collect();
    assert!(named.iter().all(|(_, c)| c.contains(&long)), "{named:?}");
    texts.extend(named);
    for (d, call) in texts {
        let text = format!("Sure. {call} Done.");
        let span = parse(&text, &opts(d)).calls().first().map(|c| c.span.len());
        for max_call in 1..call.len() + 2 {
            let limits = toolcall_parser::Limits::default().with_max_call_bytes(max_call);
            // `parse` asserts that every chunking gives the one-shot result.
            let r = parse(&text, &opts(d).with_limits(limits.clone()));
            if let Some(span) = span {
                assert_eq!(
                    r.calls().len(),
                    usize::from(max_call >= span),
                    "{d} {max_call}"
                );
            }
            // With another limit met too (depth, elements): one result in every chunking.
            for other in [
                limits.clone().with_max_depth(2),
                limits.with_max_elements(1),
            ] {
                parse(&text, &opts(d).with_limits(other));
            }
        }
    }
}

/// `max_argument_bytes` in every dialect, JSON ones included (the `parse_mixed` soak of
/// 2026-11-26 found Hermes arguments read whole past it: `"b": "x & y"` under a limit of 4): for
/// every limit around an argument of 11 decoded bytes (in Hermes, strings nested in an array and
/// an object), no call holds an argument's strings longer than the limit, the call exists when
/// the argument fits (with the two layout newlines raw-text dialects count) and not when it does
/// not, and every chunking gives the one-shot result.
#[test]
fn every_dialect_keeps_its_arguments_within_the_argument_limit() {
    fn string_bytes(v: &toolcall_parser::Value) -> usize {
        match v {
            toolcall_parser::Value::String(s) => s.len(),
            toolcall_parser::Value::Array(items) => items.iter().map(string_bytes).sum(),
            toolcall_parser::Value::Object(m) => m.values().map(string_bytes).sum(),
            _ => 0,
        }
    }
    for (d, call) in samples() {
        let call = if d == Dialect::Hermes {
            call.replacen("\"a\": 1", "\"a\": [\"hello\", {\"b\": \" world\"}]", 1)
        } else {
            call.replacen('1', "hello world", 1)
        };
        let text = format!("Sure. {call} Done.");
        let whole = parse(&text, &opts(d));
        assert_eq!(whole.calls().len(), 1, "{d}: {text}");
        assert_eq!(
            string_bytes(&whole.calls()[0].arguments["a"]),
            11,
            "{d}: {text}"
        );
        for max in 0..16 {
            let limits = toolcall_parser::Limits::default().with_max_argument_bytes(max);
            // `parse` asserts that every chunking gives the one-shot result.
            let r = parse(&text, &opts(d).with_limits(limits));
            for c in r.calls() {
                for (k, v) in &c.arguments {
                    assert!(string_bytes(v) <= max, "{d} {max}: {k} = {v:?}");
                }
            }
            // Raw-text dialects count the layout newlines their values drop (FORMAT §7).
            if !(11..13).contains(&max) {
                assert_eq!(r.calls().len(), usize::from(max >= 11), "{d} {max}: {r:?}");
            }
        }
    }
}

/// The per-feed fast path of the raw-text grammars (`RawValue::plain_tail`: Qwen3-Coder and
/// Seed-OSS, GLM, the invoke family, Kimi-K3) equals the general path: values of plain text, of `<`
/// and `>` inside text (cleared by the fast path or left to the general one), of line ends (CR
/// LF too) and of a close tag's prefix; the argument limit
/// and the call limit at every byte around the value's end; every chunking of `parse`, with
/// argument deltas on and off, gives the one-shot result, and where the call is read its deltas
/// concatenate to its value.
#[test]
fn raw_value_fast_path_equals_the_general_path() {
    use toolcall_parser::{Limits, StreamEvent, StreamParser, chunks};
    let values = [
        "plain text of a value, and more of it",
        "a < b and c > d, then </p> and more",
        "line one\nline two\r\nline three\n",
        "almost a close </arg_val and </paramete and <|clos",
        // A `<` the fast path clears (`<` then another byte, within a line) and each kind it
        // leaves to the general path (`</`, `<|`, a line-start `<`, a `<` ending the window),
        // several to a chunk in the longer chunkings.
        "Vec<u8> < HashMap<K, V>\n<notatag> a<|b a</b <<x\nz<",
        // A line-start `<` mid-chunk that begins the next parameter (Qwen3-Coder, the invoke
        // family: an unclosed parameter, repaired).
        "one\n<parameter=b>two",
        "one\n<parameter name=\"b\">two",
    ];
    for (d, call) in samples() {
        if d == Dialect::Tool || d == Dialect::Hermes {
            continue;
        }
        for value in values {
            let call = call.replacen('1', value, 1);
            let text = format!("Sure. {call} Done.");
            let call_at = text.find(&call).expect("the call");
            let value_end = text.find(value).expect("the value") + value.len();
            let whole = parse(&text, &opts(d));
            let calls = whole.calls();
            assert_eq!(calls.len(), 1, "{d}: {text}");
            let got = calls[0].arguments["a"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            for slack in 0..6usize {
                for limits in [
                    Limits::default().with_max_argument_bytes(got.len().saturating_sub(slack)),
                    Limits::default()
                        .with_max_call_bytes((value_end - call_at).saturating_sub(slack)),
                ] {
                    let o = opts(d).with_limits(limits.clone());
                    let want = parse(&text, &o);
                    for deltas in [true, false] {
                        for n in [1, 2, 5, 7, 16] {
                            let mut p =
                                StreamParser::with_options(o.clone()).argument_deltas(deltas);
                            let mut events = Vec::new();
                            for c in chunks(&text, n) {
                                events.extend(p.feed(c));
                            }
                            events.extend(p.finish());
                            let streamed: String = events
                                .iter()
                                .filter_map(|e| match e {
                                    StreamEvent::ArgumentDelta { text, .. } => Some(text.as_str()),
                                    _ => None,
                                })
                                .collect();
                            let r = ParseResult::from_events(events);
                            assert_eq!(
                                r, want,
                                "{d} {value:?} {limits:?} {n}-byte, deltas {deltas}"
                            );
                            if deltas && !r.calls().is_empty() {
                                assert_eq!(streamed, got, "{d} {value:?} {limits:?} {n}-byte");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// FORMAT §5.3 "An argument's schema": a tool whose properties are in root `anyOf` branches
/// has them found there by every dialect rule that asks: a parameter tag the schema names ends
/// the value before it (§9.1 rule 3; it was text, the branch's name being unknown), and the
/// values are typed by the branch (`n` was the string "5").
#[test]
fn root_alternatives_name_and_type_the_parameters() {
    let mut s = ToolSchemas::default();
    s.insert(
        "t",
        serde_json::json!({"type": "object", "anyOf": [{"properties": {
            "a": {"type": "string"}, "n": {"type": "integer"}}}]}),
    );
    let opts = opts(Dialect::Qwen3Coder).with_schemas(Arc::new(s));
    let r = parse(
        "<tool_call>\n<function=t>\n<parameter=a>\nx\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>",
        &opts,
    );
    assert_eq!(r.calls().len(), 1, "{:?}", r.errors());
    let args = &r.calls()[0].arguments;
    assert_eq!(args["a"].as_str(), Some("x"));
    assert_eq!(args["n"], toolcall_parser::Value::Int(5));
}

/// docs/FORMAT.md §4: a repair of the call itself names no argument (`argument: null`), also
/// when an argument closed just before it. The raw-text dialects end an argument in one place
/// (`RawValue::close`, and MiniMax-M3's top-level close), which ends its repairs; before, the
/// invoke family and Kimi-K3 named the last argument for a missing call closer.
/// A block whose call opening was left out, its parameters right after the block's opener, is a
/// call that names no tool: a `missing_tool_name` error at the first parameter, with feedback in
/// the dialect's syntax, the call skipped to its end, never prose (docs/FORMAT.md §9.1 rule 5,
/// §9.5 rule 1, as GLM's `<tool_call><arg_key>` in §9.4 rule 3). A placeholder stays prose.
#[test]
fn parameters_without_their_call_opening_are_a_call_missing_its_name() {
    for (dialect, text, opening) in [
        (
            Dialect::Qwen3Coder,
            "<tool_call>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>after",
            "<function=",
        ),
        (
            Dialect::SeedOss,
            "<seed:tool_call>\n<parameter=a>\n1\n</parameter>\n</seed:tool_call>after",
            "<function=",
        ),
        (
            Dialect::MinimaxM2,
            "<minimax:tool_call>\n<parameter name=\"a\">1</parameter>\n</invoke>\n\
             </minimax:tool_call>after",
            "<invoke name=",
        ),
        (
            Dialect::Anthropic,
            "<function_calls>\n<parameter name=\"a\">1</parameter>\n</function_calls>after",
            "<invoke name=",
        ),
        (
            Dialect::DeepseekDsml,
            "<｜DSML｜function_calls>\n<｜DSML｜parameter name=\"a\" string=\"true\">1\
             </｜DSML｜parameter>\n</｜DSML｜function_calls>after",
            "<｜DSML｜invoke name=",
        ),
    ] {
        let r = parse(text, &opts(dialect));
        assert!(r.calls().is_empty(), "{dialect:?}");
        let [e] = r.errors()[..] else {
            panic!("{dialect:?}: {:?}", r.errors())
        };
        assert_eq!(e.kind, ErrorKind::MissingToolName, "{dialect:?}");
        assert_eq!((e.line, e.column), (2, 1), "{dialect:?}");
        assert!(e.message.contains(opening), "{dialect:?}: {}", e.message);
        assert!(
            e.feedback().contains(opening),
            "{dialect:?}: {}",
            e.feedback()
        );
        assert_eq!(r.prose(), "after", "{dialect:?}");
    }
    // Kimi-K3: an argument marker where a call was due (its blanks before are prose, as before
    // any call).
    let r = parse(
        "<|open|>tools<|sep|>\n<|open|>argument key=\"a\"<|sep|>1<|close|>argument<|sep|>\n\
         <|close|>call<|sep|><|close|>tools<|sep|>after",
        &opts(Dialect::KimiK3),
    );
    let [e] = r.errors()[..] else {
        panic!("{:?}", r.errors())
    };
    assert!(r.calls().is_empty());
    assert_eq!(
        (e.kind, e.line, e.column),
        (ErrorKind::MissingToolName, 2, 1)
    );
    assert!(
        e.feedback().contains("<|open|>call tool="),
        "{}",
        e.feedback()
    );
    assert_eq!(r.prose(), "\nafter");
    // A later call of the block, its opening left out: the call before it stands.
    for (dialect, text, line) in [
        (
            Dialect::Qwen3Coder,
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n\
             <parameter=b>\n2\n</parameter>\n</function>\n</tool_call>after",
            7,
        ),
        (
            Dialect::MinimaxM2,
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n\
             </invoke>\n<parameter name=\"b\">2</parameter>\n</invoke>\n</minimax:tool_call>after",
            5,
        ),
    ] {
        let r = parse(text, &opts(dialect));
        assert_eq!(r.calls().len(), 1, "{dialect:?}");
        assert_eq!(
            r.calls()[0].arguments["a"].as_str(),
            Some("1"),
            "{dialect:?}"
        );
        let [e] = r.errors()[..] else {
            panic!("{dialect:?}: {:?}", r.errors())
        };
        assert_eq!(
            (e.kind, e.line, e.column),
            (ErrorKind::MissingToolName, line, 1)
        );
        assert_eq!(r.prose(), "after", "{dialect:?}");
    }
    let placeholder = "<tool_call>\n<parameter={{ p }}>\n</tool_call>";
    let r = qwen(placeholder);
    assert!(r.calls().is_empty() && r.errors().is_empty());
    assert_eq!(r.prose(), placeholder);
}

/// A value whose close tag is missing (the call's or the block's close comes first) is repaired
/// as `unclosed_parameter`, and the repair names its argument in every dialect (docs/FORMAT.md
/// §4: `null` is for repairs of the call itself). GLM and Kimi-K3 once made it after the
/// argument had ended, so it named none.
#[test]
fn an_unclosed_value_is_a_repair_of_its_argument() {
    let m3 = "§<tool_call>§<invoke name=\"f\">§<a>1§</invoke>§</tool_call>"
        .replace('§', "]<]minimax[>[");
    for (dialect, text) in [
        (
            Dialect::Qwen3Coder,
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n</function>\n</tool_call>",
        ),
        (
            Dialect::SeedOss,
            "<seed:tool_call>\n<function=f>\n<parameter=a>\n1\n</function>\n</seed:tool_call>",
        ),
        (
            Dialect::MinimaxM2,
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1\n</invoke>\n\
             </minimax:tool_call>",
        ),
        (
            Dialect::DeepseekDsml,
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" \
             string=\"true\">1\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        ),
        (
            Dialect::Glm,
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1\n</tool_call>",
        ),
        (
            Dialect::KimiK3,
            "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument \
             key=\"a\"<|sep|>1<|close|>call<|sep|><|close|>tools<|sep|>",
        ),
        (Dialect::MinimaxM3, m3.as_str()),
    ] {
        // One-shot, and every chunking the same (`parse`).
        let r = parse(text, &opts(dialect));
        assert_eq!(r.calls().len(), 1, "{dialect:?}: {:?}", r.errors());
        let call = &r.calls()[0];
        assert_eq!(repairs(&r), [RepairKind::UnclosedParameter], "{dialect:?}");
        assert_eq!(
            call.repairs[0].argument.as_deref(),
            Some("a"),
            "{dialect:?}"
        );
    }
}

#[test]
fn a_repair_of_the_call_after_an_argument_names_no_argument() {
    // MiniMax-M3's markup: each tag after its marker (tests/minimax_m3.rs).
    let m3 = "§<tool_call>§<invoke name=\"f\">§<a>1§</a>§</tool_call>after"
        .replace('§', "]<]minimax[>[");
    for (dialect, text) in [
        (
            Dialect::Qwen3Coder,
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</tool_call>after",
        ),
        (
            Dialect::MinimaxM2,
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n\
             </minimax:tool_call>after",
        ),
        (
            Dialect::DeepseekDsml,
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" \
             string=\"true\">1</｜DSML｜parameter>\n</｜DSML｜function_calls>after",
        ),
        (
            Dialect::KimiK3,
            "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument \
             key=\"a\"<|sep|>1<|close|>argument<|sep|><|close|>tools<|sep|>after",
        ),
        (Dialect::MinimaxM3, m3.as_str()),
    ] {
        let r = parse(text, &opts(dialect));
        assert_eq!(r.calls().len(), 1, "{dialect:?}: {:?}", r.errors());
        let call = &r.calls()[0];
        assert_eq!(repairs(&r), [RepairKind::MissingCallCloser], "{dialect:?}");
        assert_eq!(call.repairs[0].argument, None, "{dialect:?}");
        assert_eq!(r.prose(), "after", "{dialect:?}");
    }
}

/// docs/FORMAT.md §9.8: a qualified name the schemas do not list, whose ending after a dot they
/// do, is the listed tool (the longest listed ending), with a repair, in every dialect; the
/// streamed `tool_name` event carries the listed name and the schema types the arguments.
#[test]
fn a_qualified_name_is_the_listed_tool_it_ends_with() {
    let mut tools = ToolSchemas::default();
    for tool in ["exec_command", "spawn_agent", "collaboration.followup_task"] {
        tools.insert(
            tool,
            serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        );
    }
    let tools = Arc::new(tools);
    let calls = |name: &str| {
        [
            (
                Dialect::Glm,
                format!(
                    "<tool_call>{name}<arg_key>n</arg_key><arg_value>7</arg_value></tool_call>"
                ),
            ),
            (
                Dialect::Qwen3Coder,
                format!(
                    "<tool_call>\n<function={name}>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"
                ),
            ),
            (
                Dialect::Hermes,
                format!(
                    "<tool_call>{{\"name\": \"{name}\", \"arguments\": {{\"n\": 7}}}}</tool_call>"
                ),
            ),
            (
                Dialect::MinimaxM2,
                format!(
                    "<minimax:tool_call>\n<invoke name=\"{name}\">\n<parameter name=\"n\">7</parameter>\n</invoke>\n</minimax:tool_call>"
                ),
            ),
            (
                Dialect::Tool,
                format!(
                    "<tool><tool_name>{name}</tool_name><arguments><n>7</n></arguments></tool>"
                ),
            ),
        ]
    };
    for (written, listed) in [
        ("functions.exec_command", "exec_command"),
        ("collaboration.spawn_agent", "spawn_agent"),
        // The longest listed ending: `collaboration.followup_task` is listed itself.
        (
            "functions.collaboration.followup_task",
            "collaboration.followup_task",
        ),
    ] {
        for (dialect, text) in calls(written) {
            let typed = opts(dialect).with_schemas(Arc::clone(&tools));
            let r = parse(&text, &typed);
            let call = &r.calls()[0];
            assert_eq!(call.tool_name, listed, "{dialect} {written}");
            assert_eq!(call.arguments["n"].as_i64(), Some(7), "{dialect} {written}");
            assert_eq!(repairs(&r), [RepairKind::QualifiedToolName], "{dialect}");
            assert_eq!(call.repairs[0].argument, None);
            // Streamed, the name event already says the listed name.
            let mut p = StreamParser::with_options(typed.clone());
            let mut events = Vec::new();
            for piece in toolcall_parser::chunks(&text, 3) {
                events.extend(p.feed(piece));
            }
            events.extend(p.finish());
            let names: Vec<_> = events
                .iter()
                .filter_map(|e| match e {
                    StreamEvent::ToolName { tool_name, .. } => Some(tool_name.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(names, [listed], "{dialect} {written}");
            // Without schemas, the name as written, untyped.
            let r = parse(&text, &opts(dialect));
            assert_eq!(r.calls()[0].tool_name, written, "{dialect}");
            assert!(repairs(&r).is_empty(), "{dialect}");
        }
    }
    // A name listed as written, a bare name, an ending no tool has: as written, no repair.
    for name in [
        "collaboration.followup_task",
        "followup_task",
        "functions.other",
    ] {
        for (dialect, text) in calls(name) {
            let r = parse(&text, &opts(dialect).with_schemas(Arc::clone(&tools)));
            assert_eq!(r.calls()[0].tool_name, name, "{dialect} {name}");
            assert!(repairs(&r).is_empty(), "{dialect} {name}");
        }
    }
    // A name that is not valid stays refused, whatever it ends with.
    let r = parse(
        "<tool_call>{\"name\": \"rm -rf.exec_command\", \"arguments\": {}}</tool_call>",
        &opts(Dialect::Hermes).with_schemas(Arc::clone(&tools)),
    );
    assert!(r.calls().is_empty());
    assert_eq!(r.errors()[0].kind, ErrorKind::InvalidToolName);
}
