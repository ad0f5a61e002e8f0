//! The public API's promises: errors with byte spans, named limits and causes; typed decoding of a
//! call; the crate alone is enough to read values.

use std::error::Error as _;
use toolcall_parser::{
    Dialect, ErrorKind, Limit, Limits, Map, ParseOptions, Value, parse, parse_with,
};

#[test]
fn errors_carry_a_byte_span_that_starts_where_line_and_column_point() {
    let text = "ok\n<tool><tool_name>a</tool_name>junk here</tool>";
    let r = parse(text);
    let e = r.errors()[0];
    assert_eq!(e.kind, ErrorKind::UnexpectedText);
    assert_eq!(&text[e.span.clone()], "junk here</tool>");
    let before = &text[..e.span.start];
    assert_eq!(e.line as usize, before.matches('\n').count() + 1);
    assert_eq!(
        e.column as usize,
        before.rsplit('\n').next().expect("a line").chars().count() + 1
    );
}

#[test]
fn limit_errors_name_their_limit() {
    let opts = ParseOptions::new().with_limits(Limits::default().with_max_call_bytes(40));
    let r = parse_with(
        "<tool><tool_name>w</tool_name><arguments><a>0123456789012345678901234567890</a></arguments></tool>",
        &opts,
    );
    assert_eq!(r.errors()[0].limit, Some(Limit::MaxCallBytes));
    let json = serde_json::to_value(r.errors()[0]).expect("serializes");
    assert_eq!(json["limit"], "max_call_bytes");
    let opts = ParseOptions::new().with_limits(Limits::default().with_max_input_bytes(4));
    assert_eq!(
        parse_with("hello", &opts).errors()[0].limit,
        Some(Limit::MaxInputBytes)
    );
    // Errors that are not about limits name none.
    assert_eq!(
        parse("<tool><tool_name>a</tool_name>x</tool>").errors()[0].limit,
        None
    );
}

#[test]
fn errors_give_their_cause_as_source() {
    let r = parse_with(
        "<tool_call>{\"name\": \"f\", \"arguments\": \"{oops\"}</tool_call>",
        &ParseOptions::new().with_dialect(Dialect::Hermes),
    );
    let e = r.errors()[0];
    assert_eq!(e.kind, ErrorKind::InvalidJson);
    let source = e.source().expect("the JSON error");
    assert!(
        source.to_string().contains("key must be a string"),
        "{source}"
    );
    let mut schemas = toolcall_parser::ToolSchemas::default();
    schemas.insert(
        "f",
        serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
    );
    let r = parse_with(
        "<tool><tool_name>f</tool_name><arguments><n>ten</n></arguments></tool>",
        &ParseOptions::new().with_schemas(std::sync::Arc::new(schemas)),
    );
    assert!(r.errors()[0].source().is_some());
}

#[test]
fn a_call_decodes_into_a_struct() {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Edit {
        path: String,
        line: u32,
        dry_run: Option<bool>,
    }
    let r = parse(
        "<tool><tool_name>edit</tool_name><arguments><path>a.rs</path><line>3</line></arguments></tool>",
    );
    let edit: Edit = r.calls()[0].decode().expect("decodes");
    assert_eq!(
        edit,
        Edit {
            path: "a.rs".into(),
            line: 3,
            dry_run: None
        }
    );
    let wrong: Result<Edit, _> =
        parse("<tool><tool_name>edit</tool_name><arguments><path>a</path></arguments></tool>")
            .calls()[0]
            .decode();
    assert!(wrong.unwrap_err().to_string().contains("line"));
}

#[test]
fn value_and_map_come_with_the_parser() {
    let mut m = Map::new();
    m.insert("a".into(), Value::Int(1));
    assert_eq!(
        parse("<tool><tool_name>t</tool_name><arguments><a>1</a></arguments></tool>").calls()[0]
            .arguments,
        m
    );
}

/// Options and limits are built with `with_` methods and read with getters (issue 15): each
/// builder sets its own field and leaves every other as it was.
#[test]
fn options_and_limits_are_built_and_read_through_methods() {
    let d = Limits::default();
    let l = Limits::default()
        .with_max_input_bytes(1)
        .with_max_calls(2)
        .with_max_depth(3)
        .with_max_call_bytes(4)
        .with_max_argument_bytes(5)
        .with_max_elements(6)
        .with_max_input_elements(7);
    let got = [
        l.max_input_bytes(),
        l.max_calls(),
        l.max_depth(),
        l.max_call_bytes(),
        l.max_argument_bytes(),
        l.max_elements(),
        l.max_input_elements(),
    ];
    assert_eq!(got, [1, 2, 3, 4, 5, 6, 7]);
    let one = d.clone().with_max_depth(9);
    assert_eq!(one.max_depth(), 9);
    assert_eq!(one.clone().with_max_depth(d.max_depth()), d);
    let mut schemas = toolcall_parser::ToolSchemas::default();
    schemas.insert("f", serde_json::json!({"type": "object"}));
    let o = ParseOptions::new()
        .with_dialect(Dialect::Hermes)
        .with_limits(l.clone())
        .with_ignore_fenced_calls(true)
        .with_schemas(schemas)
        .with_reasoning(toolcall_parser::Reasoning::for_dialect(Dialect::Hermes));
    assert_eq!(o.dialect(), Dialect::Hermes);
    assert_eq!(o.limits(), &l);
    assert!(o.ignore_fenced_calls());
    assert!(o.schemas().is_some_and(|s| s.get("f").is_some()));
    assert_eq!(
        o.reasoning(),
        Some(&toolcall_parser::Reasoning::for_dialect(Dialect::Hermes))
    );
    let n = ParseOptions::new();
    assert_eq!(
        (n.dialect(), n.limits(), n.ignore_fenced_calls()),
        (Dialect::Tool, &d, false)
    );
    assert!(n.schemas().is_none() && n.reasoning().is_none());
}

/// The README's pattern, `call.arguments["path"]`, gives `Value::Null` for an argument the model
/// left out: no panic.
#[test]
fn a_missing_argument_indexes_as_null() {
    let r =
        parse("<tool><tool_name>read_file</tool_name><arguments><line>3</line></arguments></tool>");
    let call = &r.calls()[0];
    assert_eq!(call.arguments["path"], Value::Null);
    assert_eq!(call.arguments["path"].as_str(), None);
    assert_eq!(call.arguments["line"], Value::Int(3));
    let no_arguments = parse("<tool><tool_name>ls</tool_name></tool>");
    assert!(no_arguments.calls()[0].arguments["path"].is_null());
}

/// A call inside a Markdown fence is marked `fenced` (the host may ask before running an
/// example); with `ignore_fenced_calls` it is prose. Every chunking agrees.
#[test]
fn calls_in_fences_are_marked() {
    let text = "Example:\n```xml\n<tool><tool_name>delete_file</tool_name><arguments><path>/etc/passwd</path></arguments></tool>\n```\nNow for real:\n<tool><tool_name>ls</tool_name></tool>";
    let r = parse(text);
    let flags: Vec<(&str, bool)> = r
        .calls()
        .iter()
        .map(|c| (c.tool_name.as_str(), c.fenced))
        .collect();
    assert_eq!(flags, [("delete_file", true), ("ls", false)]);
    let json = serde_json::to_value(r.calls()[0]).expect("serializes");
    assert_eq!(json["fenced"], true);
    for n in [1, 2, 3, 7] {
        let pieces: Vec<&str> = toolcall_parser::chunks(text, n).collect();
        let mut p = toolcall_parser::StreamParser::new();
        let mut events = Vec::new();
        for piece in pieces {
            events.extend(p.feed(piece));
        }
        events.extend(p.finish());
        assert_eq!(
            toolcall_parser::ParseResult::from_events(events),
            r,
            "chunks of {n}"
        );
    }
    let ignored = parse_with(text, &ParseOptions::new().with_ignore_fenced_calls(true));
    assert_eq!(ignored.calls().len(), 1);
    assert_eq!(ignored.calls()[0].tool_name, "ls");
}
