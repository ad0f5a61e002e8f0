//! OpenAI-style streamed `tool_calls` deltas (`bridge::openai::ToolCallDeltas`): for every
//! chunking, each call's fragments concatenate to the compact JSON of its final arguments and
//! the calls equal the one-shot parse; string values stream as they arrive; handing each chunk's
//! deltas back (`feed_reusing`) changes none of them.

use proptest::prelude::*;
use serde_json::Value as Json;
use std::sync::Arc;
use toolcall::bridge::openai::{DeltaEvent, ToolCallDeltas};
use toolcall::parser::{Dialect, ParseOptions, ToolSchemas, parse_with};

/// Streams `text` cut at `cuts`; returns per delta index (name, concatenated arguments, done).
fn stream(text: &str, opts: &ParseOptions, cuts: &[usize]) -> Vec<(String, String, bool)> {
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
    let mut d = ToolCallDeltas::new(opts.clone());
    // A second stream hands each chunk's deltas back with the next (`feed_reusing`): it must
    // make exactly the same deltas, chunk by chunk.
    let (mut reusing, mut reused) = (ToolCallDeltas::new(opts.clone()), Vec::new());
    let mut events = Vec::new();
    let mut last = 0;
    for p in points.into_iter().chain([text.len()]) {
        let fed = d.feed(&text[last..p]);
        reusing.feed_reusing(&text[last..p], &mut reused);
        assert_eq!(
            fed, reused,
            "feed_reusing differs from feed at {last}..{p} of {text:?}"
        );
        events.extend(fed);
        last = p;
    }
    let finished = d.finish();
    assert_eq!(finished, reusing.finish());
    events.extend(finished);
    let mut calls: Vec<(String, String, bool)> = Vec::new();
    for e in events {
        match e {
            DeltaEvent::ToolCallStart { index, name, id } => {
                assert_eq!(index, calls.len(), "indexes are dense, in order");
                assert_eq!(id, format!("call_{index}"));
                calls.push((name, String::new(), false));
            }
            DeltaEvent::Arguments { index, fragment } => {
                assert!(!calls[index].2, "no fragment after the call is done");
                calls[index].1.push_str(&fragment);
            }
            DeltaEvent::CallDone { index } => calls[index].2 = true,
            DeltaEvent::CallFailed {
                index: Some(index), ..
            } => calls[index].2 = false,
            _ => {}
        }
    }
    calls
}

/// The finished calls of the one-shot parse: name and compact arguments JSON.
fn one_shot(text: &str, opts: &ParseOptions) -> Vec<(String, String)> {
    parse_with(text, opts)
        .calls()
        .iter()
        .map(|c| {
            let v = serde_json::to_value(c).expect("serializes");
            (c.tool_name.clone(), v["arguments"].to_string())
        })
        .collect()
}

fn check(text: &str, opts: &ParseOptions, cuts: &[usize]) {
    let want = one_shot(text, opts);
    let got: Vec<(String, String)> = stream(text, opts, cuts)
        .into_iter()
        .filter(|c| c.2)
        .map(|(n, a, _)| (n, a))
        .collect();
    assert_eq!(got, want, "{text:?} cut at {cuts:?}");
}

fn fixture_cases(file: &str) -> Vec<(String, ParseOptions)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../toolcall-parser/tests/fixtures/dialects")
        .join(file);
    let dialect: Dialect = file
        .trim_end_matches("-xml.jsonl")
        .parse()
        .expect("a dialect");
    std::fs::read_to_string(path)
        .expect("fixture")
        .lines()
        .map(|l| {
            let case: Json = serde_json::from_str(l).expect("JSON");
            let mut opts = ParseOptions::new().with_dialect(dialect);
            if let Some(tools @ Json::Array(_)) = case.get("tools") {
                opts = opts.with_schemas(Arc::new(ToolSchemas::from_tools_json(tools).unwrap()));
            }
            (case["input"].as_str().expect("input").to_owned(), opts)
        })
        .collect()
}

#[test]
fn fixtures_in_every_small_chunking() {
    for file in [
        "qwen3-coder-xml.jsonl",
        "seed-oss-xml.jsonl",
        "glm-xml.jsonl",
        "minimax-m2-xml.jsonl",
    ] {
        for (text, opts) in fixture_cases(file) {
            for n in [1, 2, 3, 5, 8, 64] {
                let cuts: Vec<usize> = (n..text.len()).step_by(n).collect();
                check(&text, &opts, &cuts);
            }
        }
    }
}

#[test]
fn a_long_string_streams_as_it_arrives() {
    let body = "x".repeat(100_000);
    let text = format!(
        "<tool_call>\n<function=write>\n<parameter=content>\n{body}\n</parameter>\n</function>\n</tool_call>"
    );
    let opts = ParseOptions::new().with_dialect(Dialect::Qwen3Coder);
    let mut d = ToolCallDeltas::new(opts);
    let mut streamed = 0;
    let mut fed = 0;
    for piece in toolcall::parser::chunks(&text, 1000) {
        fed += piece.len();
        for e in d.feed(piece) {
            if let DeltaEvent::Arguments { fragment, .. } = e {
                streamed += fragment.len();
            }
        }
        // Every byte of the value is out within a few bytes of its arrival.
        let value_in = fed.saturating_sub(text.find("content>\n").unwrap() + 9);
        if value_in > 0 && value_in < body.len() {
            assert!(
                streamed + 16 >= value_in,
                "{streamed} sent of {value_in} read"
            );
        }
    }
    d.finish();
}

/// GLM, MiniMax-M2, DeepSeek DSML, Kimi-K3 and Hermes values stream as they arrive too (their
/// deltas are the values' text; DSML and Kimi-K3 declare the type before the value, a Hermes
/// value's first byte does), named or found by `auto`.
#[test]
fn a_long_string_streams_as_it_arrives_in_glm_minimax_m2_dsml_kimi_k3_and_hermes() {
    let body = "y".repeat(50_000);
    for (dialect, text, opener) in [
        (
            Dialect::Glm,
            format!(
                "<tool_call>write\n<arg_key>content</arg_key>\n<arg_value>{body}</arg_value>\n</tool_call>"
            ),
            "<arg_value>",
        ),
        (
            Dialect::MinimaxM2,
            format!(
                "<minimax:tool_call>\n<invoke name=\"write\">\n<parameter name=\"content\">{body}\
                 </parameter>\n</invoke>\n</minimax:tool_call>"
            ),
            "name=\"content\">",
        ),
        // A declared number first: its value waits for its close, the string after it streams.
        (
            Dialect::DeepseekDsml,
            format!(
                "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write\">\n<｜DSML｜parameter \
                 name=\"line\" string=\"false\">7</｜DSML｜parameter>\n<｜DSML｜parameter \
                 name=\"content\" string=\"true\">{body}</｜DSML｜parameter>\n</｜DSML｜invoke>\n\
                 </｜DSML｜function_calls>"
            ),
            "name=\"content\" string=\"true\">",
        ),
        (
            Dialect::KimiK3,
            format!(
                "<|open|>call tool=\"write\" index=\"1\"<|sep|>\n<|open|>argument key=\"line\" \
                 type=\"integer\"<|sep|>7<|close|>argument<|sep|>\n<|open|>argument \
                 key=\"content\" type=\"string\"<|sep|>{body}<|close|>argument<|sep|>\n\
                 <|close|>call<|sep|>"
            ),
            "type=\"string\"<|sep|>",
        ),
        (
            Dialect::Hermes,
            format!(
                "<tool_call>\n{{\"name\": \"write\", \"arguments\": {{\"line\": 7, \
                 \"content\": \"{body}\"}}}}\n</tool_call>"
            ),
            "\"content\": \"",
        ),
    ]
    .into_iter()
    // Under `auto` too: the call's events follow the dialect its marker chose.
    .flat_map(|(dialect, text, opener)| {
        [(dialect, text.clone(), opener), (Dialect::Auto, text, opener)]
    }) {
        let mut d = ToolCallDeltas::new(ParseOptions::new().with_dialect(dialect));
        let start = text.find(opener).unwrap() + opener.len();
        let (mut streamed, mut fed, mut checked) = (0, 0, 0);
        let mut all = String::new();
        let mut done = false;
        for piece in toolcall::parser::chunks(&text, 997) {
            fed += piece.len();
            for e in d.feed(piece) {
                match e {
                    DeltaEvent::Arguments { fragment, .. } => {
                        streamed += fragment.len();
                        all.push_str(&fragment);
                    }
                    DeltaEvent::CallDone { .. } => done = true,
                    _ => {}
                }
            }
            let value_in = fed.saturating_sub(start);
            if value_in > 0 && value_in < body.len() {
                assert!(
                    streamed + 32 >= value_in,
                    "{dialect}: {streamed} sent of {value_in} read"
                );
                checked += 1;
            }
        }
        d.finish();
        assert!(checked > 40, "{dialect}: {checked}");
        assert!(done, "{dialect}");
        let want = if text.contains("line") {
            format!("{{\"line\":7,\"content\":\"{body}\"}}")
        } else {
            format!("{{\"content\":\"{body}\"}}")
        };
        assert_eq!(all, want, "{dialect}");
    }
}

#[test]
fn zero_argument_calls_and_failures() {
    let q = ParseOptions::new().with_dialect(Dialect::Qwen3Coder);
    check(
        "<tool_call>\n<function=now>\n</function>\n</tool_call>",
        &q,
        &[3, 17],
    );
    // A call cut off by the end is failed, never done.
    let calls = stream(
        "<tool_call>\n<function=rm>\n<parameter=path>\n/tmp/build",
        &q,
        &[5, 30],
    );
    assert_eq!(calls.len(), 1);
    assert!(!calls[0].2, "a truncated call is not done");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random calls in every dialect and random chunkings: fragments form the final JSON.
    #[test]
    fn fragments_form_the_final_arguments(
        values in prop::collection::vec("[a-z0-9<>&\" \n{}\\[\\]:,é😀\\\\/]{0,12}", 0..4),
        numbers in prop::collection::vec(-1000i64..1000, 0..3),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
        typed in any::<bool>(),
        repeat in any::<bool>(),
        declare in any::<bool>(),
        escape_all in any::<bool>(),
    ) {
        // Hermes: one JSON object, its strings escaped as serde_json writes them or every
        // character as `\uXXXX` (surrogate pairs past the BMP), names given again too.
        let json_string = |v: &str| if escape_all {
            let mut out = String::from("\"");
            for unit in v.encode_utf16() {
                out.push_str(&format!("\\u{unit:04x}"));
            }
            out.push('"');
            out
        } else {
            serde_json::to_string(v).unwrap()
        };
        let mut hermes_members: Vec<String> = Vec::new();
        // DeepSeek DSML and Kimi-K3 declare types themselves, or leave them to the schema.
        let (dsml_s, dsml_n, kimi_s, kimi_n) = if declare {
            (" string=\"true\"", " string=\"false\"", " type=\"string\"", " type=\"integer\"")
        } else {
            ("", "", "", "")
        };
        let mut dsml = String::from("<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n");
        let mut kimi = String::from("Ok.<|open|>call tool=\"f\" index=\"1\"<|sep|>\n");
        let mut qwen = String::from("Sure.\n<tool_call>\n<function=f>\n");
        let mut xml = String::from("<tool><tool_name>f</tool_name><arguments>");
        let mut glm = String::from("Ok.<tool_call>f\n");
        let mut minimax = String::from("<minimax:tool_call>\n<invoke name=\"f\">\n");
        let mut props = serde_json::Map::new();
        for (i, v) in values.iter().enumerate() {
            glm.push_str(&format!("<arg_key>s{i}</arg_key>\n<arg_value>{v}</arg_value>\n"));
            minimax.push_str(&format!("<parameter name=\"s{i}\">{v}</parameter>\n"));
            dsml.push_str(&format!("<｜DSML｜parameter name=\"s{i}\"{dsml_s}>{v}</｜DSML｜parameter>\n"));
            hermes_members.push(format!("\"s{i}\": {}", json_string(v)));
            kimi.push_str(&format!("<|open|>argument key=\"s{i}\"{kimi_s}<|sep|>{v}<|close|>argument<|sep|>\n"));
            qwen.push_str(&format!("<parameter=s{i}>\n{v}\n</parameter>\n"));
            xml.push_str(&format!("<s{i}>{}</s{i}>", toolcall::fallback::escape::escape_text(v)));
            props.insert(format!("s{i}"), serde_json::json!({"type": "string"}));
        }
        for (i, n) in numbers.iter().enumerate() {
            qwen.push_str(&format!("<parameter=n{i}>\n{n}\n</parameter>\n"));
            glm.push_str(&format!("<arg_key>n{i}</arg_key>\n<arg_value>{n}</arg_value>\n"));
            minimax.push_str(&format!("<parameter name=\"n{i}\">{n}</parameter>\n"));
            dsml.push_str(&format!("<｜DSML｜parameter name=\"n{i}\"{dsml_n}>{n}</｜DSML｜parameter>\n"));
            hermes_members.push(format!("\"n{i}\" :{n}"));
            kimi.push_str(&format!("<|open|>argument key=\"n{i}\"{kimi_n}<|sep|>{n}<|close|>argument<|sep|>\n"));
            xml.push_str(&format!("<n{i}>{n}</n{i}>"));
            props.insert(format!("n{i}"), serde_json::json!({"type": "integer"}));
        }
        // A name given twice: the first value stands, and the fragments stay true.
        if repeat && !values.is_empty() {
            let v = "again";
            glm.push_str(&format!("<arg_key>s0</arg_key>\n<arg_value>{v}</arg_value>\n"));
            minimax.push_str(&format!("<parameter name=\"s0\">{v}</parameter>\n"));
            dsml.push_str(&format!("<｜DSML｜parameter name=\"s0\"{dsml_n}>{v}</｜DSML｜parameter>\n"));
            hermes_members.push(format!("\"s0\": {}", json_string(v)));
            hermes_members.push("\"o\": {\"k\": [1, {\"k\": 2, \"k\": 3}], \"k\": 4}".into());
            kimi.push_str(&format!("<|open|>argument key=\"s0\"{kimi_s}<|sep|>{v}<|close|>argument<|sep|>\n"));
            qwen.push_str(&format!("<parameter=s0>\n{v}\n</parameter>\n"));
        }
        qwen.push_str("</function>\n</tool_call>\nDone.");
        xml.push_str("</arguments></tool>");
        glm.push_str("</tool_call>");
        minimax.push_str("</invoke>\n</minimax:tool_call>");
        dsml.push_str("</｜DSML｜invoke>\n</｜DSML｜function_calls>");
        kimi.push_str("<|close|>call<|sep|>Done.");
        let hermes = format!(
            "Sure.\n<tool_call>\n{{\"name\": \"f\", \"arguments\": {{{}}}}}\n</tool_call>",
            hermes_members.join(", ")
        );
        let mut schemas = ToolSchemas::default();
        schemas.insert("f", serde_json::json!({"type": "object", "properties": props}));
        let schemas = Arc::new(schemas);
        for (dialect, text) in [
            (Dialect::Qwen3Coder, &qwen),
            (Dialect::Tool, &xml),
            (Dialect::Glm, &glm),
            (Dialect::MinimaxM2, &minimax),
            (Dialect::DeepseekDsml, &dsml),
            (Dialect::KimiK3, &kimi),
            (Dialect::Hermes, &hermes),
        ] {
            for dialect in [dialect, Dialect::Auto] {
                let mut opts = ParseOptions::new().with_dialect(dialect);
                if typed {
                    opts = opts.with_schemas(Arc::clone(&schemas));
                }
                check(text, &opts, &cuts);
            }
        }
    }
}

/// A name given twice, in every raw-text dialect: the first value stands and the later one is
/// dropped (`duplicate_argument`), so the deltas streamed of the first stay true. Before, GLM, the
/// invoke family and Kimi-K3 kept the later value: the streamed arguments (`{"a":"onetwo`) were
/// no prefix of the call's (`{"a":"two"}`), and the bridge failed a call the parser read.
#[test]
fn a_name_given_twice_keeps_its_first_value_and_its_deltas_stay_true() {
    let p = |d: &str, name: &str, v: &str| {
        format!("<{d}parameter name=\"{name}\">{v}</{d}parameter>\n")
    };
    let cases: Vec<(Dialect, String)> = vec![
        (Dialect::Qwen3Coder, "<tool_call>\n<function=f>\n<parameter=a>\none\n</parameter>\n<parameter=b>\nx\n</parameter>\n<parameter=a>\ntwo\n</parameter>\n</function>\n</tool_call>".into()),
        (Dialect::SeedOss, "<seed:tool_call>\n<function=f>\n<parameter=a>\none\n</parameter>\n<parameter=b>\nx\n</parameter>\n<parameter=a>\ntwo\n</parameter>\n</function>\n</seed:tool_call>".into()),
        (Dialect::Glm, "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>one</arg_value>\n<arg_key>b</arg_key>\n<arg_value>x</arg_value>\n<arg_key>a</arg_key>\n<arg_value>two</arg_value>\n</tool_call>".into()),
        (Dialect::MinimaxM2, format!("<minimax:tool_call>\n<invoke name=\"f\">\n{}{}{}</invoke>\n</minimax:tool_call>", p("", "a", "one"), p("", "b", "x"), p("", "a", "two"))),
        (Dialect::Anthropic, format!("<function_calls>\n<invoke name=\"f\">\n{}{}{}</invoke>\n</function_calls>", p("", "a", "one"), p("", "b", "x"), p("", "a", "two"))),
        (Dialect::DeepseekDsml, format!("<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n{}{}{}</｜DSML｜invoke>\n</｜DSML｜function_calls>", p("｜DSML｜", "a", "one"), p("｜DSML｜", "b", "x"), p("｜DSML｜", "a", "two"))),
        (Dialect::Step3, format!("<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\">\n{}{}{}</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>", p("steptml:", "a", "one"), p("steptml:", "b", "x"), p("steptml:", "a", "two"))),
        (Dialect::KimiK3, "<|open|>call tool=\"f\"<|sep|><|open|>argument key=\"a\"<|sep|>one<|close|>argument<|sep|><|open|>argument key=\"b\"<|sep|>x<|close|>argument<|sep|><|open|>argument key=\"a\"<|sep|>two<|close|>argument<|sep|><|close|>call<|sep|>".into()),
    ];
    for (dialect, text) in cases {
        let opts = ParseOptions::new().with_dialect(dialect);
        let r = parse_with(&text, &opts);
        assert_eq!(r.calls().len(), 1, "{dialect}: {r:?}");
        let call = &r.calls()[0];
        assert_eq!(call.arguments["a"].as_str(), Some("one"), "{dialect}");
        assert_eq!(call.arguments["b"].as_str(), Some("x"), "{dialect}");
        assert_eq!(
            call.repairs[0].kind,
            toolcall::parser::RepairKind::DuplicateArgument,
            "{dialect}"
        );
        for n in 1..=9 {
            let cuts: Vec<usize> = (n..text.len()).step_by(n).collect();
            check(&text, &opts, &cuts);
        }
    }
}

/// A dialect's declared type stands where the tool's schema lets it, and elsewhere the schema
/// types the text, streamed as one-shot (docs/FORMAT.md §9.5 rule 6, §9.6 rule 5): DSML's
/// `string="true"` and Kimi-K3's `type="string"` stream a string where the schema allows one
/// (`d`) and are typed by the schema where it says integer (`a`: 12); a declared array where the
/// schema says string is the text (`b`); a declared integer whose text does not fit is typed by
/// the schema (`c`).
#[test]
fn declared_types_stand_where_the_schema_lets_them_when_streamed() {
    let mut schemas = ToolSchemas::default();
    schemas.insert(
        "f",
        serde_json::json!({"type": "object", "properties": {
            "d": {"type": "string"}, "a": {"type": "integer"}, "b": {"type": "string"},
            "c": {"type": "integer"}}}),
    );
    let schemas = Arc::new(schemas);
    let dsml = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n\
        <｜DSML｜parameter name=\"d\" string=\"true\">hi there</｜DSML｜parameter>\n\
        <｜DSML｜parameter name=\"a\" string=\"true\">12</｜DSML｜parameter>\n\
        <｜DSML｜parameter name=\"b\" string=\"false\">[1, 2]</｜DSML｜parameter>\n\
        <｜DSML｜parameter name=\"c\" string=\"false\">x y</｜DSML｜parameter>\n\
        </｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let kimi = "<|open|>call tool=\"f\"<|sep|>\
        <|open|>argument key=\"d\" type=\"string\"<|sep|>hi there<|close|>argument<|sep|>\
        <|open|>argument key=\"a\" type=\"string\"<|sep|>12<|close|>argument<|sep|>\
        <|open|>argument key=\"b\" type=\"array\"<|sep|>[1, 2]<|close|>argument<|sep|>\
        <|open|>argument key=\"c\" type=\"integer\"<|sep|>x y<|close|>argument<|sep|>\
        <|close|>call<|sep|>";
    for (dialect, text) in [(Dialect::DeepseekDsml, dsml), (Dialect::KimiK3, kimi)] {
        let opts = ParseOptions::new()
            .with_dialect(dialect)
            .with_schemas(Arc::clone(&schemas));
        let want = one_shot(text, &opts);
        assert_eq!(want.len(), 1, "{dialect}");
        assert_eq!(
            want[0].1, r#"{"d":"hi there","a":12,"b":"[1, 2]","c":"x y"}"#,
            "{dialect}"
        );
        for n in 1..=9 {
            let cuts: Vec<usize> = (n..text.len()).step_by(n).collect();
            check(text, &opts, &cuts);
        }
        // The declared string the schema allows streamed before its argument closed.
        let mut d = ToolCallDeltas::new(opts.clone());
        let upto = text.find("hi there").unwrap() + "hi the".len();
        let sent: String = d
            .feed(&text[..upto])
            .into_iter()
            .filter_map(|e| match e {
                DeltaEvent::Arguments { fragment, .. } => Some(fragment),
                _ => None,
            })
            .collect();
        assert_eq!(sent, r#"{"d":"hi the"#, "{dialect}");
    }
}

/// Hermes calls whose object is not in the usual order or shape: what is streamed is what the
/// call holds, in every chunking. The name after the arguments (nothing can stream before the
/// name: the arguments come whole), `parameters` instead of `arguments`, arguments as a JSON
/// string, names given again at both levels (the first stands), members the call ignores.
#[test]
fn hermes_objects_of_every_shape_stream_true() {
    let cases = [
        r#"<tool_call>{"arguments": {"a": "x"}, "name": "f"}</tool_call>"#,
        r#"<tool_call>{"name": "f", "parameters": {"a": "x", "b": [1]}}</tool_call>"#,
        r#"<tool_call>{"name": "f", "arguments": "{\"a\": \"x\"}"}</tool_call>"#,
        r#"<tool_call>{"name": "f", "arguments": {"a": "x"}, "arguments": {"a": "y"}}</tool_call>"#,
        r#"<tool_call>{"name": "f", "name": "g", "arguments": {"a": "x", "a": "y", "b": 2}}</tool_call>"#,
        r#"<tool_call>{"id": 3, "name": " f ", "arguments": {"a": {"b": 1, "b": 2}}, "extra": [1, 2]}</tool_call>"#,
        r#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#,
        r#"<tool_call>{"name": "f", "arguments": null}</tool_call>"#,
        r#"<tool_call>{"name": "f", "arguments": {"a": -1.5e3, "b": true, "c": null, "d": "\ud83d\ude00"}}</tool_call>"#,
    ];
    let opts = ParseOptions::new().with_dialect(Dialect::Hermes);
    for text in cases {
        let want = one_shot(text, &opts);
        assert_eq!(want.len(), 1, "{text}");
        for n in 1..=7 {
            let cuts: Vec<usize> = (n..text.len()).step_by(n).collect();
            check(text, &opts, &cuts);
        }
    }
    // The first value stands, with the repair that says a name was given again.
    let r = parse_with(cases[4], &opts);
    assert_eq!(r.calls()[0].tool_name, "f");
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("x"));
    assert!(
        r.calls()[0]
            .repairs
            .iter()
            .any(|rep| rep.kind == toolcall::parser::RepairKind::DuplicateArgument)
    );
    let r = parse_with(cases[5], &opts);
    assert_eq!(
        serde_json::to_value(r.calls()[0].clone()).unwrap()["arguments"],
        serde_json::json!({"a": {"b": 1}})
    );
}

/// `<tool>` string arguments (typed string by the schema) stream as they arrive, held back only
/// where the value-text rule (docs/FORMAT.md §2) may still drop or trim: a first line that
/// begins blank, a single line's trailing blanks, a last line blank so far. For any text of
/// blanks, newlines and words, in every chunking, the fragments form the final arguments; and
/// the settled part was sent before the argument closed.
#[test]
fn tool_string_arguments_stream_under_the_value_text_rule() {
    let mut schemas = ToolSchemas::default();
    schemas.insert(
        "write",
        serde_json::json!({"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}, "n": {"type": "integer"}}}),
    );
    let opts = ParseOptions::new()
        .with_dialect(Dialect::Tool)
        .with_schemas(Arc::new(schemas));
    let pieces = ["", " ", "  ", "\n", "\n  ", "a", "b c", "\t", "x\n", " \n"];
    let mut texts = Vec::new();
    for a in pieces {
        for b in pieces {
            for c in pieces {
                texts.push(format!("{a}{b}{c}"));
            }
        }
    }
    for t in &texts {
        let text = format!(
            "<tool><tool_name>write</tool_name><arguments><path>{t}</path><content>{t}</content>\
             </arguments></tool>"
        );
        for n in [1, 2, 3, 7] {
            let cuts: Vec<usize> = (n..text.len()).step_by(n).collect();
            check(&text, &opts, &cuts);
        }
    }
    // A long value of code streams within a few bytes of its arrival; a later integer and
    // anything after it come whole with the call.
    let body = "fn main() {\n    println!(\"hi\");\n}\n".repeat(2_000);
    let text = format!(
        "<tool><tool_name>write</tool_name><arguments><path>src/main.rs</path><content>\n{body}\
         </content><n>3</n></arguments></tool>"
    );
    let start = text.find("<content>").unwrap() + "<content>\n".len();
    let mut d = ToolCallDeltas::new(opts.clone());
    let (mut streamed, mut fed, mut checked) = (0usize, 0usize, 0);
    let mut all = String::new();
    for piece in toolcall::parser::chunks(&text, 509) {
        fed += piece.len();
        for e in d.feed(piece) {
            if let DeltaEvent::Arguments { fragment, .. } = e {
                // Escaped `"` and `\n` are two bytes for one: count the value's bytes.
                streamed += serde_json::from_str::<String>(&format!("\"{fragment}\""))
                    .map_or(0, |f| f.len());
                all.push_str(&fragment);
            }
        }
        let value_in = fed.saturating_sub(start);
        if value_in > 64 && value_in < body.len() {
            assert!(
                streamed + 64 >= value_in + r#"{"path":"src/main.rs","content":""#.len(),
                "{streamed} sent of {value_in} read"
            );
            checked += 1;
        }
    }
    for e in d.finish() {
        if let DeltaEvent::Arguments { fragment, .. } = e {
            all.push_str(&fragment);
        }
    }
    assert!(checked > 100, "{checked}");
    assert_eq!(one_shot(&text, &opts)[0].1, all);
}

/// MiniMax-M3: arguments come whole with the finished call. A string argument is its content
/// verbatim (FORMAT §9.9), but a name given again makes it an array, which a streamed string
/// could not be taken back from; so the bridge waits. In every chunking the fragments form the
/// final arguments (nested, repeated, typed, blank).
#[test]
fn minimax_m3_arguments_come_whole_and_true() {
    let m = "]<]minimax[>[";
    let call = |args: &str| {
        format!(
            "Ok.\n{m}<tool_call>\n{m}<invoke name=\"f\">\n{}\n{m}</invoke>\n{m}</tool_call>\nDone.",
            args.replace('§', m)
        )
    };
    let mut schemas = ToolSchemas::default();
    schemas.insert(
        "f",
        serde_json::json!({"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "string"}, "n": {"type": "integer"},
            "o": {"type": "object"}}}),
    );
    let typed = ParseOptions::new()
        .with_dialect(Dialect::MinimaxM3)
        .with_schemas(Arc::new(schemas));
    let cases = [
        "§<a>\n  a <b> & c\n§</a>§<b>second</b>§</b>",
        "§<a>text §<day>Mon§</day> x§</a>§<b>after</b>",
        "§<a>one§</a>§<n> 7 §</n>§<b>two§</b>",
        "§<a>one§</a>§<a>two§</a>§<b>three§</b>",
        "§<o>§<k>v§</k>§</o>§<a>last§</a>",
        "§<a>   §</a>§<b>§</b>",
    ];
    for opts in [typed, ParseOptions::new().with_dialect(Dialect::MinimaxM3)] {
        for args in cases {
            let text = call(args);
            assert_eq!(one_shot(&text, &opts).len(), 1, "{text}");
            for n in 1..=7 {
                let cuts: Vec<usize> = (n..text.len()).step_by(n).collect();
                check(&text, &opts, &cuts);
            }
        }
    }
}

/// A schema whose root is a reference: a name its properties do not give is typed by the
/// `additionalProperties` of the definition the root resolves to, and the bridge decides whether
/// it streams as a string by that same resolved schema, so its fragments are the call's
/// arguments in every chunking (before, it read the unresolved root's, streamed `5` as a string
/// and then failed the call: "the streamed arguments differ").
#[test]
fn additional_properties_behind_a_root_reference_decide_streaming() {
    let mut schemas = ToolSchemas::default();
    schemas.insert(
        "t",
        serde_json::json!({
            "$defs": {"args": {"properties": {"s": {"type": "string"}},
                               "additionalProperties": {"type": "integer"}}},
            "$ref": "#/$defs/args"
        }),
    );
    let opts = ParseOptions::new()
        .with_dialect(Dialect::Qwen3Coder)
        .with_schemas(Arc::new(schemas));
    let text = "<tool_call>\n<function=t>\n<parameter=s>\nab\n</parameter>\n\
                <parameter=n>\n5\n</parameter>\n</function>\n</tool_call>";
    assert_eq!(one_shot(text, &opts)[0].1, r#"{"s":"ab","n":5}"#);
    for size in [1, 2, 3, 5, 8, 13, text.len()] {
        let cuts: Vec<usize> = (size..text.len()).step_by(size).collect();
        let calls = stream(text, &opts, &cuts);
        assert_eq!(calls.len(), 1);
        assert!(calls[0].2, "the call failed in chunks of {size}");
        assert_eq!(calls[0].1, r#"{"s":"ab","n":5}"#, "chunks of {size}");
    }
}

/// A tool whose schema's root is a discriminated union: which branch types the arguments is
/// known only at the call's end, so its arguments are sent whole with the finished call, equal
/// to the one-shot parse's, in every chunking and every dialect that types raw text.
#[test]
fn a_root_union_is_sent_whole_with_the_finished_call() {
    let mut schemas = ToolSchemas::default();
    schemas.insert(
        "inspect",
        serde_json::json!({"oneOf": [
            {"properties": {"kind": {"const": "text"}, "value": {"type": "string"}}},
            {"properties": {"kind": {"const": "count"}, "value": {"type": "integer"}}}
        ]}),
    );
    let schemas = Arc::new(schemas);
    for (kind, want) in [
        ("count", r#"{"kind":"count","value":7}"#),
        ("text", r#"{"kind":"text","value":"7"}"#),
    ] {
        for (dialect, text) in [
            (
                Dialect::Glm,
                format!(
                    "<tool_call>inspect<arg_key>kind</arg_key><arg_value>{kind}</arg_value><arg_key>value</arg_key><arg_value>7</arg_value></tool_call>"
                ),
            ),
            (
                Dialect::Qwen3Coder,
                format!(
                    "<tool_call>\n<function=inspect>\n<parameter=value>\n7\n</parameter>\n<parameter=kind>\n{kind}\n</parameter>\n</function>\n</tool_call>"
                ),
            ),
        ] {
            let opts = ParseOptions::new()
                .with_dialect(dialect)
                .with_schemas(Arc::clone(&schemas));
            let whole = one_shot(&text, &opts);
            let whole_args: Json = serde_json::from_str(&whole[0].1).expect("JSON");
            let want_args: Json = serde_json::from_str(want).expect("JSON");
            assert_eq!(whole_args, want_args, "{dialect} {kind}");
            for size in [1, 2, 3, 5, 8, 13, text.len()] {
                let cuts: Vec<usize> = (size..text.len()).step_by(size).collect();
                let calls = stream(&text, &opts, &cuts);
                assert_eq!(calls.len(), 1);
                assert!(calls[0].2, "{dialect}: the call failed in chunks of {size}");
                assert_eq!(calls[0].1, whole[0].1, "{dialect} {kind}, chunks of {size}");
            }
        }
    }
}

// The parser's damaged-call generators, shared rather than copied.
#[allow(dead_code)]
#[path = "../../toolcall-parser/tests/common/damaged.rs"]
mod damaged;

/// Every damaged call of eight dialects (a call of two arguments with any pieces of its markup
/// dropped, toolcall-parser's `tests/common/damaged.rs`), streamed in 1- and 3-byte chunks: the
/// calls the stream completes are exactly the one-shot parse's, each call's fragments form its
/// final arguments, and `feed_reusing` makes the same deltas. A call the parser fails is never
/// completed by the stream.
#[test]
fn every_damaged_call_streams_as_it_parses() {
    for (dialect, text, _) in damaged::damaged_calls() {
        let opts = ParseOptions::new().with_dialect(dialect);
        for n in [1, 3] {
            let cuts: Vec<usize> = (n..text.len()).step_by(n).collect();
            check(&text, &opts, &cuts);
        }
    }
}
