//! The parser's behaviour, one decision of docs/FORMAT.md per test. Every input is also checked
//! for chunking invariance: streaming it in any chunk size gives the one-shot result.

mod common;

use arg_types::Value;
use common::{assert_chunking_invariant, call, stream_events};
use serde_json::json;
use std::sync::Arc;
use toolcall_parser::{
    Encoding, ErrorKind, Limits, ParseOptions, RepairKind, StreamEvent, ToolSchemas,
};

fn parse(text: &str) -> toolcall_parser::ParseResult {
    assert_chunking_invariant(text, &ParseOptions::default())
}

fn args_json(text: &str) -> serde_json::Value {
    let r = parse(text);
    assert!(r.errors().is_empty(), "unexpected errors: {:?}", r.errors());
    assert_eq!(r.calls().len(), 1, "{r:?}");
    serde_json::Value::from(Value::Object(r.calls()[0].arguments.clone()))
}

fn repairs(text: &str) -> Vec<RepairKind> {
    let r = parse(text);
    r.calls()[0].repairs.iter().map(|r| r.kind).collect()
}

fn with_schema(tool: &str, schema: serde_json::Value) -> ParseOptions {
    let mut s = ToolSchemas::default();
    s.insert(tool, schema);
    ParseOptions::default().with_schemas(Arc::new(s))
}

#[test]
fn the_mission_example() {
    let text = "I'll create the file.\n<tool>\n<server_name>local</server_name>\n\
                <tool_name>write_to_file</tool_name>\n<arguments>\n  <path>src/main.rs</path>\n  \
                <content>fn main() { if a &amp;&amp; b { .. } }</content>\n</arguments>\n</tool>";
    let r = parse(text);
    let c = &r.calls()[0];
    assert_eq!(c.server_name, "local");
    assert_eq!(c.tool_name, "write_to_file");
    assert_eq!(c.arguments["path"], Value::String("src/main.rs".into()));
    assert_eq!(
        c.arguments["content"],
        Value::String("fn main() { if a && b { .. } }".into())
    );
    assert!(c.repairs.is_empty());
    assert_eq!(r.prose(), "I'll create the file.\n");
    assert_eq!(c.span, text.find("<tool>").unwrap()..text.len());
}

#[test]
fn several_calls_in_order_with_prose_between() {
    let text = format!(
        "First.\n{}\nThen.\n{}\nDone.",
        call("a", "<x>1</x>"),
        call("b", "<y>2</y>")
    );
    let r = parse(&text);
    let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.clone()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(r.prose(), "First.\n\nThen.\n\nDone.");
    assert!(matches!(r.segments[0], toolcall_parser::Segment::Prose(_)));
    assert!(matches!(r.segments[1], toolcall_parser::Segment::Call(_)));
}

#[test]
fn prose_that_looks_like_markup_is_prose() {
    let text = "Use <toolbox> or <tools>, a < b && c, <b>bold</b>, `<tool>` in backticks, \
                and {\"json\": true}. </tool> is stray.";
    let r = parse(text);
    assert!(r.calls().is_empty());
    assert!(r.errors().is_empty());
    assert_eq!(r.prose(), text);
}

#[test]
fn server_name_defaults_to_local_and_arguments_are_optional() {
    let r = parse("<tool><tool_name>list</tool_name></tool>");
    let c = &r.calls()[0];
    assert_eq!(c.server_name, "local");
    assert!(c.arguments.is_empty());
}

#[test]
fn elements_of_a_call_may_come_in_any_order() {
    let r = parse(
        "<tool><arguments><a>1</a></arguments><tool_name>t</tool_name><server_name>s</server_name></tool>",
    );
    let c = &r.calls()[0];
    assert_eq!((c.server_name.as_str(), c.tool_name.as_str()), ("s", "t"));
    assert_eq!(c.arguments["a"], Value::Int(1));
}

#[test]
fn repeated_elements_are_arrays_and_nested_elements_objects() {
    let args = args_json(&call(
        "search_files",
        "<path>src</path><exclude>node_modules</exclude><exclude>dist</exclude>\
         <options><depth>3</depth><hidden>false</hidden></options>",
    ));
    assert_eq!(
        args,
        json!({"path": "src", "exclude": ["node_modules", "dist"],
               "options": {"depth": 3, "hidden": false}})
    );
}

#[test]
fn cdata_is_kept_byte_for_byte_and_never_typed() {
    let code = "  if (a && b < c) {\n\treturn \"x\";\n  }\n";
    let text = call(
        "w",
        &format!("<content><![CDATA[{code}]]></content><n><![CDATA[42]]></n>"),
    );
    let args = args_json(&text);
    assert_eq!(args["content"], json!(code));
    assert_eq!(args["n"], json!("42"));
}

#[test]
fn close_tags_inside_cdata_end_nothing() {
    let text = call(
        "w",
        "<content><![CDATA[</content></arguments></tool> <tool>]]></content>",
    );
    assert_eq!(
        args_json(&text)["content"],
        json!("</content></arguments></tool> <tool>")
    );
}

#[test]
fn split_cdata_joins() {
    let text = call("w", "<c><![CDATA[a]]]]><![CDATA[>b]]></c>");
    assert_eq!(args_json(&text)["c"], json!("a]]>b"));
}

#[test]
fn named_and_numeric_references_are_decoded() {
    let text = call("w", "<c>&lt;&gt;&amp;&quot;&apos; &#60;&#x3C;&#x1F600;</c>");
    assert_eq!(args_json(&text)["c"], json!("<>&\"' <<😀"));
}

#[test]
fn single_line_text_is_trimmed_multi_line_keeps_indentation() {
    let text = call(
        "w",
        "<a>   x y   </a>\n<b>\n    fn main() {\n        go();\n    }\n  </b>",
    );
    let args = args_json(&text);
    assert_eq!(args["a"], json!("x y"));
    assert_eq!(args["b"], json!("    fn main() {\n        go();\n    }"));
}

#[test]
fn crlf_and_lf_alike() {
    let lf = call("w", "<b>\nline 1\nline 2\n</b><c><![CDATA[x\ny]]></c>");
    let crlf = lf.replace('\n', "\r\n");
    assert_eq!(args_json(&crlf), args_json(&lf));
    assert_eq!(args_json(&crlf)["b"], json!("line 1\nline 2"));
}

#[test]
fn any_unicode() {
    // In argument names and values; tool and server names are ASCII (§3.4).
    let text = call("unicode", "<名前>値 🦀</名前>");
    let r = parse(&text);
    assert_eq!(r.calls()[0].tool_name, "unicode");
    assert_eq!(
        r.calls()[0].arguments["名前"],
        Value::String("値 🦀".into())
    );
    let r = parse(&call("ünïcødé", ""));
    assert_eq!(r.errors()[0].kind, ErrorKind::InvalidToolName);
}

#[test]
fn legacy_json_form_gives_the_same_call() {
    let xml = call("write_to_file", "<path>a.txt</path><n>3</n>");
    let legacy = "<tool>{\"server_name\": \"local\", \"tool_name\": \"write_to_file\", \
                  \"arguments\": {\"path\": \"a.txt\", \"n\": 3}}</tool>";
    let a = parse(&xml);
    let b = parse(legacy);
    assert_eq!(a.calls()[0].arguments, b.calls()[0].arguments);
    assert_eq!(a.calls()[0].tool_name, b.calls()[0].tool_name);
    assert!(b.calls()[0].legacy_json);
}

/// serde_json's `raw_value` feature (on in this build, for big integers) makes
/// `serde_json::Value` read an object whose first member is named
/// `$serde_json::private::RawValue` as raw JSON text. JSON calls are read by our own visitors, so
/// the name is a member like any other wherever it stands, in the legacy form and in Hermes.
#[test]
fn json_calls_may_use_any_member_name() {
    const NAME: &str = "$serde_json::private::RawValue";
    let args = [
        format!(r#"{{"{NAME}": "a", "b": 1}}"#),
        format!(r#"{{"b": 1, "{NAME}": [2]}}"#),
        format!(r#"{{"o": {{"{NAME}": "{{}}"}}}}"#),
        format!(r#"{{"l": [{{"{NAME}": 3}}]}}"#),
    ];
    for a in &args {
        let expected: serde_json::Value = serde_json::from_str(&a.replace(NAME, "k")).unwrap();
        let texts = [
            format!(r#"<tool>{{"tool_name": "t", "arguments": {a}}}</tool>"#),
            format!(r#"<tool>{{"{NAME}": 0, "tool_name": "t", "arguments": {a}}}</tool>"#),
            format!(r#"<tool_call>{{"name": "t", "arguments": {a}}}</tool_call>"#),
            format!(r#"<tool_call>{{"{NAME}": 0, "name": "t", "arguments": {a}}}</tool_call>"#),
        ];
        for text in texts {
            let options = if text.starts_with("<tool_call>") {
                ParseOptions::new().with_dialect(toolcall_parser::Dialect::Hermes)
            } else {
                ParseOptions::default()
            };
            let r = toolcall_parser::parse_with(&text, &options);
            assert!(r.errors().is_empty(), "{text}: {:?}", r.errors());
            let got = serde_json::to_string(&r.calls()[0].arguments).unwrap();
            assert_eq!(got.replace(NAME, "k"), expected.to_string(), "{text}");
        }
    }
}

#[test]
fn legacy_json_may_hold_close_tags_in_strings() {
    let legacy = "<tool>{\"tool_name\": \"w\", \"arguments\": {\"c\": \"</tool> and }\"}}</tool>";
    assert_eq!(
        parse(legacy).calls()[0].arguments["c"],
        Value::String("</tool> and }".into())
    );
}

#[test]
fn broken_legacy_json_is_an_error_with_position() {
    let r = parse("x\n<tool>{\"tool_name\": \"w\", \"arguments\": {\"c\": 1,}}</tool>\nafter");
    let e = r.errors()[0];
    assert_eq!(e.kind, ErrorKind::InvalidJson);
    assert_eq!(e.line, 2);
    assert!(e.column > 30, "{e:?}");
    assert_eq!(r.prose(), "x\n\nafter");
}

#[test]
fn bare_ampersands_are_repaired_and_recorded() {
    let text = call(
        "s",
        "<pattern>if .*&& .*x</pattern><url>?a=1&b=2&amp;c=3</url>",
    );
    let r = parse(&text);
    let c = &r.calls()[0];
    assert_eq!(c.arguments["pattern"], Value::String("if .*&& .*x".into()));
    assert_eq!(c.arguments["url"], Value::String("?a=1&b=2&c=3".into()));
    // One entry per kind and argument (§4): `&&` is one entry of count 2.
    assert_eq!(repairs(&text), vec![RepairKind::BareAmpersand; 2]);
    let (p, u) = (&c.repairs[0], &c.repairs[1]);
    assert_eq!((p.argument.as_deref(), p.count), (Some("pattern"), 2));
    assert_eq!((u.argument.as_deref(), u.count), (Some("url"), 1));
    assert_eq!((p.line, p.column), (5, 15));
    let at = |r: &toolcall_parser::Repair| {
        r.positions
            .iter()
            .map(|p| (p.line, p.column))
            .collect::<Vec<_>>()
    };
    assert_eq!(at(p), [(5, 15), (5, 16)]);
    assert_eq!(at(u), [(5, 40)]);
}

/// §4: repairs are aggregated per kind and argument, with the first `MAX_REPAIR_POSITIONS`
/// positions, so any density of repairs costs a bounded number of entries and positions: the
/// class of issue 14 item 2 (1 MB of bare `&` made a million entries). Counts stay exact.
#[test]
fn repairs_are_aggregated_with_bounded_positions() {
    use toolcall_parser::MAX_REPAIR_POSITIONS;
    for n in [1, 7, 8, 9, 100, 10_000] {
        let amps = "&".repeat(n);
        let lts = "a < ".repeat(n);
        let text = call("w", &format!("<a>{amps}</a><b>{lts}</b><a>x{amps}</a>"));
        for chunk in [1, 5, usize::MAX] {
            let r = if chunk == usize::MAX {
                toolcall_parser::parse(&text)
            } else {
                common::parse_chunked(&text, &ParseOptions::default(), chunk)
            };
            let reps = &r.calls()[0].repairs;
            let kinds: Vec<_> = reps
                .iter()
                .map(|r| (r.kind, r.argument.as_deref(), r.count))
                .collect();
            assert_eq!(
                kinds,
                [
                    (RepairKind::BareAmpersand, Some("a"), 2 * n),
                    (RepairKind::LiteralLessThan, Some("b"), n),
                ],
                "n = {n}, chunk {chunk}"
            );
            for rep in reps {
                assert_eq!(rep.positions.len(), rep.count.min(MAX_REPAIR_POSITIONS));
                assert_eq!(
                    (rep.line, rep.column),
                    (rep.positions[0].line, rep.positions[0].column)
                );
                assert!(
                    rep.positions.windows(2).all(|w| w[0] < w[1]),
                    "in input order"
                );
            }
        }
    }
}

#[test]
fn literal_less_than_inside_a_value() {
    let text = call("w", "<c>a < b, x <= y, HashMap<u8, Vec<T>> and 1<2</c>");
    assert_eq!(
        args_json(&text)["c"],
        json!("a < b, x <= y, HashMap<u8, Vec<T>> and 1<2")
    );
    let kinds = repairs(&text);
    assert!(kinds.contains(&RepairKind::LiteralLessThan));
    assert!(kinds.contains(&RepairKind::UnclosedTagAsText));
}

#[test]
fn generic_type_opened_inside_text_is_text() {
    let text = call("w", "<c>fn f() -> Vec<String> { todo!() }</c>");
    assert_eq!(
        args_json(&text)["c"],
        json!("fn f() -> Vec<String> { todo!() }")
    );
    assert_eq!(repairs(&text), vec![RepairKind::UnclosedTagAsText]);
}

#[test]
fn close_tag_followed_by_text_is_text() {
    let text = call("w", "<content>Close with </content> and go on.</content>");
    assert_eq!(
        args_json(&text)["content"],
        json!("Close with </content> and go on.")
    );
    assert_eq!(repairs(&text), vec![RepairKind::CloseTagAsText]);
}

#[test]
fn stray_close_tag_inside_a_value_is_text() {
    let text = call("w", "<c>use </div> here</c>");
    assert_eq!(args_json(&text)["c"], json!("use </div> here"));
}

#[test]
fn well_formed_mixed_content_is_not_repaired() {
    // `<b>` opens after text, but closes properly: it stays an element, no repair.
    let r = parse(&call("w", "<c>a <b>x</b> c</c>"));
    assert!(r.errors().is_empty());
    assert!(r.calls()[0].repairs.is_empty());
}

#[test]
fn schema_string_keeps_inner_markup_verbatim() {
    let text = call(
        "w",
        "<path>a.html</path><content><div class=\"x\"><p>Hi &amp; bye</p></div></content>",
    );
    let opts = with_schema(
        "w",
        json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}),
    );
    let r = assert_chunking_invariant(&text, &opts);
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    let c = &r.calls()[0];
    assert_eq!(
        c.arguments["content"],
        Value::String("<div class=\"x\"><p>Hi &amp; bye</p></div>".into())
    );
    assert_eq!(c.repairs[0].kind, RepairKind::MarkupAsString);
}

#[test]
fn schema_types_override_inference() {
    let text = call("r", "<path>007</path><line>007</line><flag>true</flag>");
    let opts = with_schema(
        "r",
        json!({"type": "object", "properties": {"path": {"type": "string"},
               "line": {"type": "integer"}, "flag": {"type": "string"}}}),
    );
    let r = assert_chunking_invariant(&text, &opts);
    let a = &r.calls()[0].arguments;
    assert_eq!(a["path"], Value::String("007".into()));
    assert_eq!(a["line"], Value::Int(7));
    assert_eq!(a["flag"], Value::String("true".into()));
}

#[test]
fn schema_mismatch_is_an_error_naming_the_argument() {
    let text = call("r", "<path>a</path><line>ten</line>");
    let opts = with_schema(
        "r",
        json!({"type": "object", "properties": {"path": {"type": "string"}, "line": {"type": "integer"}}}),
    );
    let r = assert_chunking_invariant(&text, &opts);
    let e = r.errors()[0];
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert!(e.message.contains("line"), "{}", e.message);
    assert_eq!(e.line, 5);
}

#[test]
fn encodings_are_recorded_per_argument() {
    let r = parse(&call(
        "w",
        "<a>plain</a><b>x &amp; y</b><c><![CDATA[z]]></c><d><e>1</e></d>",
    ));
    let enc: Vec<_> = r.calls()[0].encodings.iter().map(|e| e.encoding).collect();
    assert_eq!(
        enc,
        [
            Encoding::Plain,
            Encoding::EntityEscaped,
            Encoding::Cdata,
            Encoding::Structured
        ]
    );
}

#[test]
fn one_bad_call_never_hides_the_good_ones() {
    let text = format!(
        "{}\n{}\n{}",
        call("good1", "<a>1</a>"),
        "<tool><tool_name>bad</tool_name><arguments><a>1</b></arguments></tool>",
        call("good2", "<a>2</a>")
    );
    let r = parse(&text);
    let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.clone()).collect();
    assert_eq!(names, ["good1", "good2"]);
    let e = r.errors()[0];
    assert_eq!(e.kind, ErrorKind::MismatchedTag);
    assert_eq!(e.tool_name.as_deref(), Some("bad"));
}

#[test]
fn unterminated_call_before_a_new_call() {
    let text = format!(
        "<tool><tool_name>bad</tool_name><arguments><a>1</a>\n{}",
        call("good", "<a>2</a>")
    );
    let r = parse(&text);
    assert_eq!(r.calls()[0].tool_name, "good");
    let e = r.errors()[0];
    assert_eq!(e.kind, ErrorKind::UnterminatedCall);
    assert_eq!(e.partial, Some(json!({"a": 1})));
}

#[test]
fn unterminated_call_at_the_end_carries_what_was_parsed() {
    let r = parse("Sure.\n<tool><tool_name>w</tool_name><arguments><path>a</path><content>par");
    let e = r.errors()[0];
    assert_eq!(e.kind, ErrorKind::UnterminatedCall);
    assert_eq!((e.line, e.column), (2, 1));
    assert_eq!(e.partial, Some(json!({"path": "a"})));
    assert_eq!(r.prose(), "Sure.\n");
}

/// `partial` is what `<arguments>` held when the call was cut: nothing before it opens, `{}`
/// once it is open and empty, with schemas given (the tree read whole) or not (each argument
/// converted as it closes), in a cut before it or inside it and at a new `<tool>`.
#[test]
fn partial_arguments_are_none_before_arguments_open() {
    let with_schemas = ParseOptions::new().with_schemas(toolcall_parser::ToolSchemas::default());
    for options in [ParseOptions::new(), with_schemas] {
        for (text, want) in [
            ("<tool><tool_name>x</tool_name>", None),
            ("<tool><tool_name>x</tool_name><tool>", None),
            ("<tool><tool_name>x</tool_name><arguments>", Some(json!({}))),
            (
                "<tool><tool_name>x</tool_name><arguments><a>1</a><b>",
                Some(json!({"a": 1})),
            ),
            (
                "<tool><arguments></arguments><tool_name>x</tool_name>",
                Some(json!({})),
            ),
        ] {
            let r = toolcall_parser::parse_with(text, &options);
            let e = r.errors()[0];
            assert_eq!(e.kind, ErrorKind::UnterminatedCall, "{text}");
            assert_eq!(e.partial, want, "{text}");
        }
    }
}

#[test]
fn missing_tool_name() {
    let r = parse("<tool><arguments><a>1</a></arguments></tool>");
    assert_eq!(r.errors()[0].kind, ErrorKind::MissingToolName);
}

/// docs/FORMAT.md §3.4: tool and server names are trimmed, then must be valid names; anything
/// else is an `invalid_tool_name` error with feedback, never a call (and no `ToolName` event).
#[test]
fn names_are_trimmed_and_invalid_names_are_errors() {
    let r = parse(
        "<tool><tool_name>\n  read_file\n</tool_name><server_name> fs\t</server_name></tool>",
    );
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    assert_eq!(r.calls()[0].tool_name, "read_file");
    assert_eq!(r.calls()[0].server_name, "fs");
    for bad in [
        "read file",
        "read\nfile",
        "a\u{0}b",
        "rm;ls",
        "$(id)",
        "`id`",
        "../etc",
        "a/b",
        "..",
        "{{ tc.name }}",
        "é",
        &"x".repeat(129),
    ] {
        let escaped = xml_fallback::escape::Escaper::TEXT.escape(bad);
        for text in [
            format!("<tool><tool_name>{escaped}</tool_name></tool>after"),
            format!(
                "<tool><tool_name>ok</tool_name><server_name>{escaped}</server_name></tool>after"
            ),
            format!(
                "<tool>{{\"tool_name\": {}, \"arguments\": {{}}}}</tool>after",
                serde_json::to_string(bad).unwrap()
            ),
        ] {
            let r = parse(&text);
            assert!(r.calls().is_empty(), "{bad:?} made a call: {text}");
            let e = r.errors()[0];
            assert_eq!(e.kind, ErrorKind::InvalidToolName, "{text}");
            assert!(e.feedback().contains("not a valid"), "{}", e.feedback());
            assert_eq!(r.prose(), "after");
            let events = stream_events(&text, &ParseOptions::default(), 1);
            assert!(
                events.iter().all(|e| match e {
                    StreamEvent::ToolName { tool_name, .. } => tool_name == "ok",
                    _ => true,
                }),
                "{events:?}"
            );
        }
    }
}

#[test]
fn structure_errors() {
    for (text, kind) in [
        (
            "<tool><tool_name>a</tool_name><foo/></tool>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<tool><tool_name>a</tool_name><tool_name>b</tool_name></tool>",
            ErrorKind::DuplicateElement,
        ),
        (
            "<tool><tool_name>a</tool_name>junk</tool>",
            ErrorKind::UnexpectedText,
        ),
        (
            "<tool><tool_name>a<b/></tool_name></tool>",
            ErrorKind::UnexpectedElement,
        ),
        (
            "<tool><tool_name>a</tool_name><arguments><x>&#0;</x></arguments></tool>",
            ErrorKind::InvalidCharacterReference,
        ),
        (
            "<tool><tool_name>a</tool_name><arguments><!DOCTYPE x></arguments></tool>",
            ErrorKind::ForbiddenMarkup,
        ),
        (
            "<tool><tool_name>a</tool_name><arguments><!ENTITY x \"y\"></arguments></tool>",
            ErrorKind::ForbiddenMarkup,
        ),
        (
            "<tool><tool_name>a</tool_name><arguments><x><?php echo 1; ?></x></arguments></tool>",
            ErrorKind::ForbiddenMarkup,
        ),
    ] {
        let r = parse(text);
        assert_eq!(r.errors().len(), 1, "{text}");
        assert_eq!(r.errors()[0].kind, kind, "{text}");
        assert!(r.calls().is_empty());
    }
}

/// docs/FORMAT.md §7: inside a call, a comment or processing instruction is markup only when it
/// ends within 16 KiB of its `<` and holds neither `<tool` nor `</tool`; otherwise its `<` is a
/// literal `<`. So an unclosed `<!--` or `<?` cannot swallow the calls and prose after it, even
/// when a `-->` or `?>` comes later.
#[test]
fn unclosed_comments_and_instructions_swallow_nothing() {
    let second = call("b", "<p>2</p>");
    for opener in ["<!--", "<?"] {
        let closer = if opener == "<?" { "?>" } else { "-->" };
        let text = format!(
            "{}\nprose {closer}\n{second}\nend {closer}",
            call("a", &format!("<c>x {opener} y</c>"))
        );
        let r = parse(&text);
        assert!(r.errors().is_empty(), "{opener}: {:?}", r.errors());
        let calls = r.calls();
        assert_eq!(calls.len(), 2, "{opener}");
        assert_eq!(
            calls[0].arguments["c"].as_str(),
            Some(&*format!("x {opener} y"))
        );
        assert_eq!(calls[0].repairs[0].kind, RepairKind::LiteralLessThan);
        assert_eq!(calls[1].tool_name, "b");
        assert_eq!(r.prose(), format!("\nprose {closer}\n\nend {closer}"));
    }
    // A comment holding a call's end is no comment: the call ends there (an error, as `<c>` is
    // open), and the call after it is read.
    let text = format!("{}{second}-->", call("a", "<c>x <!-- </tool> y</c>"));
    let r = parse(&text);
    assert_eq!(r.errors()[0].kind, ErrorKind::MismatchedTag);
    assert_eq!(r.calls().len(), 1);
    assert_eq!(r.calls()[0].tool_name, "b");
    // One of more than 16 KiB is text; closed ones within the bound are skipped, as before.
    let long = format!("x <!--{}--> y", "c".repeat(16 * 1024));
    let text = call(
        "a",
        &format!("<c>{long}</c><!-- note --><d>1<!-- n --></d>"),
    );
    let r = parse(&text);
    let args = &r.calls()[0].arguments;
    assert_eq!(args["c"].as_str(), Some(long.as_str()));
    assert_eq!(args["d"], Value::Int(1));
}

/// For each `(value, expected)`: the argument `c` written as `<c>value</c>` reads `expected`, in
/// every chunking.
fn assert_value_of_c(cases: &[(&str, &str)]) {
    for &(value, expected) in cases {
        let text = call("a", &format!("<c>{value}</c>"));
        let r = assert_chunking_invariant(&text, &ParseOptions::default());
        assert_eq!(
            r.calls()[0].arguments["c"].as_str(),
            Some(expected),
            "{value}"
        );
    }
}

/// docs/FORMAT.md §7: a comment's `-->` comes after its `<!--`; the two never share a dash, as
/// in XML. `<!-->` and `<!--->` open a comment that the next `-->` closes (they were taken as
/// whole comments, swallowing nothing but themselves, found by `comments_follow_the_rule`).
#[test]
fn a_comment_ends_after_its_opener() {
    assert_value_of_c(&[
        ("x <!--> y --> z", "x  z"),
        ("x <!--->--> z", "x  z"),
        ("x <!----> z", "x  z"),
        ("x <!---> z", "x <!---> z"),
    ]);
}

/// docs/FORMAT.md §4 rule 3 and §7: a value that holds a child element is its inner markup as
/// written, comments included; one of text alone drops its comments (found by
/// `comments_follow_the_rule`, whose oracle had not allowed for the first).
#[test]
fn a_comment_is_kept_in_markup_as_written_and_dropped_from_text() {
    assert_value_of_c(&[
        ("a <!----><tool/>--> b", "a <!----><tool/>--> b"),
        ("a <!-- x --><b>y</b>", "a <!-- x --><b>y</b>"),
        ("a <!-- x --> b", "a  b"),
    ]);
}

/// docs/FORMAT.md §7: the barrier of a comment is the element `tool`, not its name's prefix. A
/// comment or processing instruction holding `<tool_name>`, `</toolbox`, `<tool-1`, `<tool.x` or
/// `<tool:a` is skipped as XML skips it; one holding `<tool>`, `<tool `, `<tool/`, `</tool>` or
/// `</tool ` is text. Every chunking reads alike, a cut right after `<tool` included.
#[test]
fn only_the_call_element_itself_bars_a_comment() {
    for (opener, closer) in [("<!--", "-->"), ("<?", "?>")] {
        for inner in [
            "<tool_name>",
            "</toolbox",
            "<tool-1",
            "<tool.x",
            "<tool:a",
            "<toolé",
        ] {
            let text = call("a", &format!("<c>x {opener} {inner} {closer}y</c>"));
            let r = assert_chunking_invariant(&text, &ParseOptions::default());
            if opener == "<?" {
                // A closed processing instruction is an error inside a call, wherever it is.
                assert_eq!(r.errors()[0].kind, ErrorKind::ForbiddenMarkup, "{inner}");
                continue;
            }
            assert!(r.errors().is_empty(), "{inner}: {:?}", r.errors());
            let c = &r.calls()[0];
            assert_eq!(c.arguments["c"].as_str(), Some("x y"), "{inner}");
            assert!(c.repairs.is_empty(), "{inner}: {:?}", c.repairs);
        }
        for inner in ["<tool>", "<tool ", "<tool/", "</tool>", "</tool "] {
            let text = format!(
                "{}{}{closer}",
                call("a", &format!("<c>x {opener} {inner}y</c>")),
                call("b", "<p>2</p>")
            );
            let r = assert_chunking_invariant(&text, &ParseOptions::default());
            // The comment's `<` is literal; what comes after it is read as markup, so the
            // second call is read whatever the first became.
            assert!(
                r.calls().iter().any(|c| c.tool_name == "b"),
                "{opener} {inner}: {:?}",
                r.segments
            );
            assert!(
                !r.calls()
                    .iter()
                    .any(|c| c.tool_name == "a" && c.arguments["c"].as_str() == Some("x y")),
                "{opener} {inner} was skipped as a comment"
            );
        }
    }
}

/// docs/FORMAT.md §7: errors point at the first offending byte. A misspelt close tag of a value
/// (`</contnet>` on line 7) is text at first (a stray close tag, §4 rule 4); when the value is
/// never closed, the error is reported at it, not at `</arguments>` on line 8 (issue 14 item 19).
#[test]
fn a_misspelt_close_tag_is_reported_where_it_stands() {
    let text = "Writing.\n<tool>\n<tool_name>write_to_file</tool_name>\n<arguments>\n\
                <path>a.rs</path>\n<content>\nfn main() {}\n</contnet>\n</arguments>\n</tool>\nafter";
    let r = parse(text);
    let e = r.errors()[0];
    assert_eq!(e.kind, ErrorKind::MismatchedTag);
    assert_eq!((e.line, e.column), (8, 1), "{e:?}");
    assert!(
        e.message.contains("</contnet>") && e.message.contains("<content>"),
        "{e:?}"
    );
    assert!(e.snippet.starts_with("</contnet>"), "{e:?}");
    assert_eq!(r.prose(), "Writing.\n\nafter");
    // Without a stray close tag, the tag that finds the element open is the first offence.
    let r = parse(&call("w", "<a>1</arguments>"));
    let e = r.errors()[0];
    assert!(e.message.starts_with("</arguments>"), "{e:?}");
}

#[test]
fn fenced_calls_are_calls_by_default_and_ignored_on_request() {
    let text = format!(
        "Example:\n```xml\n{}\n```\nReal:\n{}",
        call("example", ""),
        call("real", "")
    );
    assert_eq!(parse(&text).calls().len(), 2);
    let opts = ParseOptions::default().with_ignore_fenced_calls(true);
    let r = assert_chunking_invariant(&text, &opts);
    let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.clone()).collect();
    assert_eq!(names, ["real"]);
    assert!(r.prose().contains("<tool_name>example</tool_name>"));
    // Issue 14 item 18: a fence closes at any line end, lone CR included (a later real call
    // was prose), and a fence marker after a CR is a fence.
    for end in ["\r\n", "\r"] {
        let text = text.replace('\n', end);
        let r = assert_chunking_invariant(&text, &opts);
        let names: Vec<_> = r.calls().iter().map(|c| c.tool_name.clone()).collect();
        assert_eq!(names, ["real"], "line ends {end:?}");
    }
}

#[test]
fn deep_nesting_hits_the_depth_limit_without_overflow() {
    let depth = 200_000;
    let text = format!(
        "<tool><tool_name>x</tool_name><arguments>{}{}</arguments></tool>after",
        "<a>".repeat(depth),
        "</a>".repeat(depth)
    );
    let r = toolcall_parser::parse(&text);
    assert_eq!(r.errors()[0].kind, ErrorKind::LimitExceeded);
    assert_eq!(r.prose(), "after");
}

#[test]
fn many_openers_without_closer_end_in_bounded_errors() {
    let text = "<tool>".repeat(2_000_000); // 12 MB
    let r = toolcall_parser::parse(&text);
    assert!(r.calls().is_empty());
    let limits = Limits::default();
    assert!(
        r.errors().len() <= limits.max_calls() + 1,
        "{}",
        r.errors().len()
    );
}

#[test]
fn call_limit_leaves_later_calls_as_prose() {
    let one = call("t", "<a>1</a>");
    let text = [one.as_str(); 5].join("\n");
    let opts = ParseOptions::default().with_limits(Limits::default().with_max_calls(3));
    let r = assert_chunking_invariant(&text, &opts);
    assert_eq!(r.calls().len(), 3);
    assert_eq!(r.errors()[0].kind, ErrorKind::LimitExceeded);
    assert!(r.prose().contains("<tool_name>t</tool_name>"));
}

#[test]
fn argument_and_input_limits() {
    let text = call("t", &format!("<a>{}</a>", "x".repeat(1000)));
    let opts = ParseOptions::default().with_limits(Limits::default().with_max_argument_bytes(100));
    let r = assert_chunking_invariant(&text, &opts);
    assert_eq!(r.errors()[0].kind, ErrorKind::LimitExceeded);
    let opts = ParseOptions::default().with_limits(Limits::default().with_max_input_bytes(10));
    let r = toolcall_parser::parse_with("hello world, this is long", &opts);
    assert_eq!(r.prose(), "hello worl");
    assert_eq!(r.errors()[0].kind, ErrorKind::LimitExceeded);
}

/// A sample call in each dialect, for properties that must hold in all of them.
fn dialect_samples() -> Vec<(toolcall_parser::Dialect, String)> {
    use toolcall_parser::Dialect;
    vec![
        (Dialect::Tool, format!("Hi\n{}\nbye", call("w", "<p>a.rs</p><c>x &amp; y</c>"))),
        (
            Dialect::Tool,
            "<tool>{\"tool_name\": \"w\", \"arguments\": {\"p\": \"a\"}}</tool>".to_owned(),
        ),
        (
            Dialect::Qwen3Coder,
            "Hi\n<tool_call>\n<function=w>\n<parameter=p>\na.rs\n</parameter>\n</function>\n</tool_call>"
                .to_owned(),
        ),
        (
            Dialect::SeedOss,
            "<seed:tool_call>\n<function=w>\n<parameter=p>\na.rs\n</parameter>\n</function>\n</seed:tool_call>"
                .to_owned(),
        ),
        (
            Dialect::Hermes,
            "Hi\n<tool_call>\n{\"name\": \"w\", \"arguments\": {\"p\": \"a.rs\"}}\n</tool_call>"
                .to_owned(),
        ),
    ]
}

/// docs/FORMAT.md §7: `usize::MAX` is no limit. Every limit, alone and all together, set to
/// `usize::MAX` gives the default result in every dialect (no overflow panic, nothing rejected).
#[test]
fn every_limit_at_usize_max_is_no_limit() {
    let max = usize::MAX;
    let d = Limits::default();
    let variants = [
        d.clone().with_max_input_bytes(max),
        d.clone().with_max_calls(max),
        d.clone().with_max_depth(max),
        d.clone().with_max_call_bytes(max),
        d.clone().with_max_argument_bytes(max),
        d.clone().with_max_elements(max),
        Limits::default()
            .with_max_input_bytes(max)
            .with_max_calls(max)
            .with_max_depth(max)
            .with_max_call_bytes(max)
            .with_max_argument_bytes(max)
            .with_max_elements(max)
            .with_max_input_elements(max),
        d.clone().with_max_input_elements(max),
    ];
    for (dialect, text) in dialect_samples() {
        let base = ParseOptions::new().with_dialect(dialect);
        let expected = toolcall_parser::parse_with(&text, &base);
        assert_eq!(expected.calls().len(), 1, "{dialect}: {expected:?}");
        for limits in &variants {
            let opts = base.clone().with_limits(limits.clone());
            let got = assert_chunking_invariant(&text, &opts);
            assert_eq!(got, expected, "{dialect} with {limits:?}");
        }
    }
}

#[test]
fn stream_events_arrive_early_and_deltas_concatenate() {
    let text = format!(
        "Writing.\n{}",
        call("w", "<content>line one\nline two</content>")
    );
    let events = stream_events(&text, &ParseOptions::default(), 5);
    let started = events
        .iter()
        .position(|e| matches!(e, StreamEvent::CallStarted { .. }))
        .unwrap();
    let named = events
        .iter()
        .position(|e| matches!(e, StreamEvent::ToolName { .. }))
        .unwrap();
    let finished = events
        .iter()
        .position(|e| matches!(e, StreamEvent::CallFinished { .. }))
        .unwrap();
    assert!(started < named && named < finished);
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ArgumentDelta { argument, text, .. } if &**argument == "content" => {
                Some(text.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "line one\nline two");
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, StreamEvent::ArgumentDelta { .. }))
            .count()
            > 2
    );
}

/// docs/FORMAT.md §2 (streaming): each top-level argument is announced before its deltas, and
/// the close tag that reverts an argument's markup to text and closes it (`Vec<T>` after an
/// element) is no delta of the next argument.
#[test]
fn arguments_are_announced_and_a_reverting_close_tag_is_no_delta() {
    let schema = serde_json::json!({"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "string"}}});
    let opts = with_schema("w", schema);
    let text =
        "<tool><tool_name>w</tool_name><arguments><a><br/>Vec<T></a><b></b></arguments></tool>";
    let mut p = toolcall_parser::StreamParser::with_options(opts);
    let mut events = p.feed(text);
    events.extend(p.finish());
    let kinds: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ArgumentStarted { argument, .. } => Some(format!("start {argument}")),
            StreamEvent::ArgumentDelta { argument, text, .. } => {
                Some(format!("{argument}: {text}"))
            }
            StreamEvent::ArgumentDecoded { argument, .. } => Some(format!("decoded {argument}")),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["start a", "a: <br/>Vec<T>", "start b"]);
}

#[test]
fn prose_is_held_back_only_while_it_could_begin_a_call() {
    let mut p = toolcall_parser::StreamParser::new();
    let e = p.feed("Hello <to");
    assert_eq!(
        e,
        vec![StreamEvent::Prose {
            text: "Hello ".into()
        }]
    );
    let e = p.feed("ol-less");
    assert_eq!(
        e,
        vec![StreamEvent::Prose {
            text: "<tool-less".into()
        }]
    );
}

#[test]
fn feedback_says_where_and_how_to_fix() {
    let r = parse("<tool><tool_name>w</tool_name><arguments><c>a</c></tool>");
    let e = r.errors()[0];
    let f = e.feedback();
    assert!(f.contains("line 1, column"), "{f}");
    assert!(
        f.contains("&amp;") && f.contains("CDATA") && f.contains("]]>"),
        "{f}"
    );
    assert!(f.contains("close tag of its own name"), "{f}");
    assert!(f.contains("expected </arguments>"), "{f}");
}

#[test]
fn to_xml_round_trips() {
    let text = call(
        "apply_diff",
        "<path>src/app.ts</path><edits><edit><search>a &lt; b</search><replace>a &gt; b</replace></edit>\
         <edit><search><![CDATA[  x\n]]></search><replace>y</replace></edit></edits><n>3</n><f>1.5</f>",
    );
    let c = parse(&text).calls()[0].clone();
    let again = parse(&c.to_xml().unwrap());
    assert_eq!(again.calls()[0].arguments, c.arguments);
    assert_eq!(again.calls()[0].tool_name, c.tool_name);
}

#[test]
fn raw_bytes_may_split_characters_anywhere() {
    let text = format!("Ünïcødé prose 🦀\n{}", call("wrïte", "<c>ça &amp; 🦀</c>"));
    let whole = parse(&text);
    for n in [1, 2, 3, 5] {
        let streamed = common::parse_bytes_chunked(text.as_bytes(), &ParseOptions::default(), n);
        assert_eq!(streamed, whole, "chunk {n}");
    }
    let mut p = toolcall_parser::StreamParser::new();
    let mut events = p.feed_bytes(b"ok \xff then \xe2\x82");
    events.extend(p.finish());
    assert_eq!(
        toolcall_parser::ParseResult::from_events(events).prose(),
        "ok \u{fffd} then \u{fffd}"
    );
}

#[test]
fn legacy_json_nesting_obeys_the_depth_limit() {
    let opts = |max_depth| {
        ParseOptions::default().with_limits(Limits::default().with_max_depth(max_depth))
    };
    // `<tool>` is 1, the object 2, `arguments` 3, `a` 4, `b` 5.
    let json = r#"{"tool_name": "t", "arguments": {"a": {"b": [1]}}}"#;
    let text = format!("<tool>{json}</tool>\nafter");
    let r = assert_chunking_invariant(&text, &opts(5));
    assert_eq!(r.calls().len(), 1, "{:?}", r.errors());
    let a = serde_json::Value::from(r.calls()[0].arguments["a"].clone());
    assert_eq!(a, serde_json::json!({"b": [1]}));

    let r = assert_chunking_invariant(&text, &opts(4));
    assert!(r.calls().is_empty());
    let e = &r.errors()[0];
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    assert!(e.message.contains("deeper than 4"), "{}", e.message);
    // At the `[` that went one level too deep.
    assert_eq!(
        (e.line, e.column),
        (1, 1 + 6 + json.find('[').unwrap() as u32)
    );
    assert_eq!(r.prose(), "\nafter");

    // The default limit (64) stops deep JSON before serde_json's own recursion limit (128).
    let deep = format!(
        "<tool>{{\"tool_name\": \"t\", \"arguments\": {{\"a\": {}{}}}}}</tool>",
        "[".repeat(100),
        "]".repeat(100)
    );
    let r = toolcall_parser::parse(&deep);
    assert!(
        r.errors()[0].message.contains("deeper than 64"),
        "{}",
        r.errors()[0].message
    );
}

/// §7: `max_input_elements` bounds the elements of all the calls of an input: the call in which
/// they run out is an error, later calls are prose after one error; CDATA sections count, one
/// right after another joins it.
#[test]
fn the_input_element_budget_spans_calls() {
    let opts = ParseOptions::default().with_limits(Limits::default().with_max_input_elements(10));
    // Four elements per call (<tool_name>, <arguments>, <a>, and the CDATA section).
    let one = "<tool><tool_name>t</tool_name><arguments><a><![CDATA[x]]><![CDATA[y]]></a></arguments></tool>";
    let text = format!("{one}\n{one}\n{one}\n{one}");
    let r = assert_chunking_invariant(&text, &opts);
    assert_eq!(r.calls().len(), 2);
    assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("xy"));
    let errors = r.errors();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].message.contains("more than 10 elements"),
        "{errors:?}"
    );
    assert!(
        errors[1].message.contains("the rest are left as prose"),
        "{errors:?}"
    );
    assert!(r.prose().ends_with(one));
}

#[test]
fn element_limit_bounds_calls_of_many_small_elements() {
    let opts = |max_elements| {
        ParseOptions::default().with_limits(Limits::default().with_max_elements(max_elements))
    };
    // <server_name>, <tool_name>, <arguments> and three arguments: six elements.
    let text = format!("{}\nafter", call("t", "<a>1</a><b>2</b><c>3</c>"));
    let r = assert_chunking_invariant(&text, &opts(6));
    assert_eq!(r.calls().len(), 1, "{:?}", r.errors());
    let r = assert_chunking_invariant(&text, &opts(5));
    assert!(r.calls().is_empty());
    assert_eq!(r.errors()[0].kind, ErrorKind::LimitExceeded);
    assert!(r.errors()[0].message.contains("more than 5 elements"));
    // Attributes count as elements.
    let with_attrs = call("t", "<a x='1'>1</a>");
    assert_eq!(
        assert_chunking_invariant(&with_attrs, &opts(5))
            .calls()
            .len(),
        1
    );
    let attrs_over = assert_chunking_invariant(&with_attrs, &opts(4));
    assert_eq!(attrs_over.errors()[0].kind, ErrorKind::LimitExceeded);
    // At the start tag one too many: `<c>`.
    let c = text.find("<c>").unwrap();
    let line = text[..c].matches('\n').count() as u32 + 1;
    let column = (c - text[..c].rfind('\n').map_or(0, |i| i + 1)) as u32 + 1;
    assert_eq!((r.errors()[0].line, r.errors()[0].column), (line, column));
    assert_eq!(r.prose(), "\nafter");

    // 8 MB of `<b/>` (353 MB of tree and values unbounded, by the memory benchmark): the default
    // limit stops them at 100,000.
    let many = format!(
        "<tool><tool_name>t</tool_name><arguments><a>{}</a></arguments></tool>after",
        "<b/>".repeat(2_000_000)
    );
    let r = toolcall_parser::parse(&many);
    assert!(r.calls().is_empty());
    assert!(r.errors()[0].message.contains("more than 100000 elements"));
    assert_eq!(r.prose(), "after");

    // The legacy JSON form: each `{`, `[` and `,` begins a value (six here).
    let json = r#"<tool>{"tool_name": "t", "arguments": {"a": [1, 2, 3]}}</tool>"#;
    let r = assert_chunking_invariant(json, &opts(6));
    assert_eq!(r.calls().len(), 1, "{:?}", r.errors());
    let r = assert_chunking_invariant(json, &opts(5));
    assert_eq!(r.errors()[0].kind, ErrorKind::LimitExceeded);
    assert!(
        r.errors()[0].message.contains("more than 5"),
        "{}",
        r.errors()[0].message
    );
    assert_eq!(r.errors()[0].column as usize, json.rfind(',').unwrap() + 1);
}

/// A call cut at `cut`: what parsing the input up to there must give. The call's arguments are
/// `(name, bytes from the call's start to the end of its close tag, value)`.
#[derive(Clone)]
struct CutCall {
    dialect: toolcall_parser::Dialect,
    text: String,
    /// Where the call has begun for certain (its first byte past the opener's blanks), and
    /// where it is complete.
    begun: usize,
    ends: usize,
    arguments: Vec<(String, usize, serde_json::Value)>,
}

fn cut_calls() -> Vec<CutCall> {
    use toolcall_parser::Dialect;
    let tool = |args: &[(&str, &str, serde_json::Value)], server: bool| {
        let mut text = String::from("<tool>\n  ");
        let begun = text.len();
        if server {
            text.push_str("<server_name>fs</server_name>\n  ");
        }
        text.push_str("<tool_name>write_to_file</tool_name>\n  <arguments>\n");
        let mut arguments = Vec::new();
        for (name, xml, value) in args {
            text.push_str(&format!("    <{name}>{xml}</{name}>"));
            arguments.push((name.to_string(), text.len(), value.clone()));
            text.push('\n');
        }
        text.push_str("  </arguments>\n</tool>");
        CutCall {
            dialect: Dialect::Tool,
            ends: text.len(),
            text,
            begun,
            arguments,
        }
    };
    let qwen = |dialect: Dialect, block: &str| {
        let mut text = format!("<{block}>\n<function=write_file>");
        let begun = text.len() - 1;
        text.push('\n');
        let mut arguments = Vec::new();
        for (name, v) in [("path", "a.rs"), ("content", "fn main() {\n    x < y;\n}")] {
            text.push_str(&format!("<parameter={name}>\n{v}\n</parameter>"));
            arguments.push((name.to_owned(), text.len(), json!(v)));
            text.push('\n');
        }
        // `</function>` completes the call; the block's close tag only ends the block.
        text.push_str("</function>");
        let ends = text.len();
        text.push_str(&format!("\n</{block}>"));
        CutCall {
            dialect,
            text,
            begun,
            ends,
            arguments,
        }
    };
    // A raw-text dialect's call: where it has begun for certain (after `begun`), and each
    // argument complete at the end of `ends_with` (its first occurrence).
    let raw = |dialect, text: &str, begun: &str, args: &[(&str, &str, serde_json::Value)]| {
        let arguments = args
            .iter()
            .map(|(name, ends_with, value)| {
                let end = text.find(ends_with).expect("the argument's end") + ends_with.len();
                ((*name).to_owned(), end, value.clone())
            })
            .collect();
        CutCall {
            dialect,
            text: text.to_owned(),
            begun: begun.len(),
            ends: text.len(),
            arguments,
        }
    };
    vec![
        tool(
            &[
                ("path", "src/a.rs", json!("src/a.rs")),
                (
                    "content",
                    "fn f() -&gt; Vec&lt;u8&gt; { a &amp;&amp; b }",
                    json!("fn f() -> Vec<u8> { a && b }"),
                ),
            ],
            true,
        ),
        tool(
            &[
                ("n", "42", json!(42)),
                (
                    "code",
                    "<![CDATA[x </code> ]]]]><![CDATA[>\r\n]]>",
                    json!("x </code> ]]>\n"),
                ),
                ("obj", "<a>1</a><b>t</b>", json!({"a": 1, "b": "t"})),
            ],
            false,
        ),
        CutCall {
            dialect: Dialect::Tool,
            text: "<tool>\n{\"tool_name\": \"w\", \"arguments\": {\"p\": \"</tool>\"}}\n</tool>"
                .to_owned(),
            begun: "<tool>\n".len(),
            ends: "<tool>\n{\"tool_name\": \"w\", \"arguments\": {\"p\": \"</tool>\"}}\n</tool>"
                .len(),
            arguments: vec![(
                "p".to_owned(),
                "<tool>\n{\"tool_name\": \"w\", \"arguments\": {\"p\": \"</tool>\"}}".len(),
                json!("</tool>"),
            )],
        },
        qwen(Dialect::Qwen3Coder, "tool_call"),
        qwen(Dialect::SeedOss, "seed:tool_call"),
        raw(
            Dialect::Glm,
            "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.rs</arg_value>\n\
             <arg_key>content</arg_key>\n<arg_value>x < y;\n</arg_value>\n</tool_call>",
            "<tool_call>write_file\n<arg_key>",
            &[
                ("path", "a.rs</arg_value>", json!("a.rs")),
                ("content", "y;\n</arg_value>", json!("x < y;\n")),
            ],
        ),
        // An invoke is a call once `</invoke>` closes it, block closed or not (§9.5).
        CutCall {
            ends:
                "<minimax:tool_call>\n<invoke name=\"write_file\">\n<parameter name=\"path\">a.rs\
                   </parameter>\n<parameter name=\"content\">x < y;</parameter>\n</invoke>"
                    .len(),
            ..raw(
                Dialect::MinimaxM2,
                "<minimax:tool_call>\n<invoke name=\"write_file\">\n<parameter name=\"path\">a.rs\
                 </parameter>\n<parameter name=\"content\">x < y;</parameter>\n</invoke>\n\
                 </minimax:tool_call>",
                "<minimax:tool_call>\n<invoke name=\"write_file\">",
                &[
                    ("path", "a.rs</parameter>", json!("a.rs")),
                    ("content", "y;</parameter>", json!("x < y;")),
                ],
            )
        },
        raw(
            Dialect::KimiK3,
            "<|open|>call tool=\"write_file\" index=\"1\"<|sep|><|open|>argument key=\"path\" \
             type=\"string\"<|sep|>a.rs<|close|>argument<|sep|><|open|>argument key=\"content\" \
             type=\"string\"<|sep|>x < y;<|close|>argument<|sep|><|close|>call<|sep|>",
            "<|open|>call tool=\"write_file\" index=\"1\"<|sep|>",
            &[
                ("path", "a.rs<|close|>argument<|sep|>", json!("a.rs")),
                ("content", "y;<|close|>argument<|sep|>", json!("x < y;")),
            ],
        ),
        CutCall {
            dialect: Dialect::Hermes,
            text: "<tool_call>\n{\"name\": \"w\", \"arguments\": {\"p\": \"a\"}}\n</tool_call>"
                .to_owned(),
            begun: "<tool_call>\n".len(),
            ends: "<tool_call>\n{\"name\": \"w\", \"arguments\": {\"p\": \"a\"}}\n</tool_call>"
                .len(),
            arguments: Vec::new(),
        },
    ]
}

/// The cut points of `c` that give a wrong result, one line each.
fn cut_failures(c: &CutCall) -> Vec<String> {
    let opts = ParseOptions::new().with_dialect(c.dialect);
    let mut failures = Vec::new();
    for cut in c.begun + 1..c.ends {
        if !c.text.is_char_boundary(cut) {
            continue;
        }
        let input = format!("Before.\n{}", &c.text[..cut]);
        let shown = &c.text[..cut];
        let r = toolcall_parser::parse_with(&input, &opts);
        let streamed = common::parse_chunked(&input, &opts, 1);
        if streamed != r {
            failures.push(format!("{shown:?}: streamed differs"));
        }
        let errors = r.errors();
        let [e] = errors.as_slice() else {
            failures.push(format!(
                "{shown:?}: {} errors, {} calls",
                errors.len(),
                r.calls().len()
            ));
            continue;
        };
        if e.kind != ErrorKind::UnterminatedCall {
            failures.push(format!("{shown:?}: {:?} {}", e.kind, e.message));
            continue;
        }
        if r.prose() != "Before.\n" {
            failures.push(format!("{shown:?}: prose {:?}", r.prose()));
        }
        if c.dialect == toolcall_parser::Dialect::Hermes {
            continue;
        }
        let complete: serde_json::Map<String, serde_json::Value> = c
            .arguments
            .iter()
            .filter(|(_, end, _)| *end <= cut)
            .map(|(n, _, v)| (n.clone(), v.clone()))
            .collect();
        let expected = Some(serde_json::Value::Object(complete));
        let got = e
            .partial
            .clone()
            .filter(|p| p.as_object().is_some_and(|m| !m.is_empty()));
        let expected = expected.filter(|p| p.as_object().is_some_and(|m| !m.is_empty()));
        if got != expected {
            failures.push(format!("{shown:?}: partial {got:?}, expected {expected:?}"));
        }
    }
    failures
}

/// docs/FORMAT.md §7: a call cut anywhere after it began (the input ends inside it: a tag, a
/// reference, CDATA, a close tag) is `unterminated_call`, with the arguments completed before the
/// cut in `partial` and none other; never another error, never a call (issue 14 item 7). Checked
/// at every cut point, one-shot and streamed byte by byte.
#[test]
fn every_cut_inside_a_tool_call_is_unterminated_with_the_complete_arguments() {
    for c in cut_calls()
        .iter()
        .filter(|c| c.dialect == toolcall_parser::Dialect::Tool)
    {
        let failures = cut_failures(c);
        assert!(
            failures.is_empty(),
            "{} of the cut points of {:?}:\n{}",
            failures.len(),
            c.text,
            failures.join("\n")
        );
    }
}

/// The same property in the other dialects (issue 14 item 7, issue 15): qwen3-coder and
/// seed-oss read the tags inside a call as if more input followed, so a cut `<parameter=…` or a
/// cut tag after `</parameter>` is the cut, not an unexpected element nor text of the value.
/// Hermes by its own rule (docs/FORMAT.md §9.2): once the JSON object is complete, the end of
/// the input (after blanks, or inside `</tool_call>`) gives the call with a
/// `missing_call_closer` repair; before that, `unterminated_call`.
#[test]
fn every_cut_inside_a_call_of_another_dialect_is_unterminated() {
    let mut failures = Vec::new();
    for c in cut_calls()
        .iter()
        .filter(|c| c.dialect != toolcall_parser::Dialect::Tool)
    {
        let mut c = c.clone();
        if c.dialect == toolcall_parser::Dialect::Hermes {
            // The cut points after the object are calls, checked below.
            let object_end = c.text.rfind('}').expect("an object") + 1;
            for cut in object_end..c.ends {
                let r = toolcall_parser::parse_with(
                    &format!("Before.\n{}", &c.text[..cut]),
                    &ParseOptions::new().with_dialect(c.dialect),
                );
                assert!(r.errors().is_empty(), "{cut}: {:?}", r.errors());
                let call = r.calls()[0];
                assert_eq!(call.arguments["p"].as_str(), Some("a"));
                assert_eq!(call.repairs[0].kind, RepairKind::MissingCallCloser);
                // Blanks alone after the object are prose; a cut closer is the call's.
                let rest = &c.text[object_end..cut];
                let (end, prose) = if rest.trim().is_empty() {
                    (object_end, format!("Before.\n{rest}"))
                } else {
                    (cut, "Before.\n".to_owned())
                };
                assert_eq!(call.span.end, "Before.\n".len() + end, "{cut}");
                assert_eq!(r.prose(), prose);
            }
            c.ends = object_end;
        }
        let f = cut_failures(&c);
        if !f.is_empty() {
            failures.push(format!(
                "{}: {} of the cut points of {:?}:\n{}",
                c.dialect,
                f.len(),
                c.text,
                f.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
