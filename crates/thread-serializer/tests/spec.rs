//! SPEC-01's acceptance criteria, one test (or more) each, plus the decisions of FORMAT.md §8.

use serde_json::{Value, json};
use thread_serializer::{
    AgentEvent, Role, SerializerOptions, escape_xml, parse_thread_xml, serialize_thread_to_xml,
    write_thread, write_thread_io,
};

fn xml(events: &[AgentEvent]) -> String {
    serialize_thread_to_xml(events, &SerializerOptions::default())
}

fn events(json: Value) -> Vec<AgentEvent> {
    serde_json::from_value(json).expect("valid events")
}

/// The `<event …>` lines of a thread, without the root's lines.
fn lines(xml: &str) -> Vec<&str> {
    let inner = xml
        .strip_prefix("<thread>\n")
        .and_then(|s| s.strip_suffix("</thread>"))
        .expect("a thread without a prefix");
    inner.lines().collect()
}

fn msg(role: Role, content: &str) -> AgentEvent {
    AgentEvent::Message {
        role,
        content: content.into(),
        iteration: 0,
    }
}

fn call(name: &str, id: &str, args: Value) -> AgentEvent {
    AgentEvent::ToolCall {
        tool_name: name.into(),
        tool_call_id: id.into(),
        args,
        iteration: 1,
    }
}

fn result(id: &str, result: Value) -> AgentEvent {
    AgentEvent::ToolResult {
        tool_call_id: id.into(),
        result,
        iteration: 1,
    }
}

/// Parses with xml-rs directly, as "a standard XML parser" would.
fn assert_well_formed(xml: &str) {
    let reader = xml::reader::EventReader::new_with_config(
        xml.as_bytes(),
        xml::reader::ParserConfig::new().allow_multiple_root_elements(false),
    );
    for event in reader {
        if let Err(e) = event {
            panic!("not well-formed ({e}):\n{xml}");
        }
    }
}

// --- escapeXml handles &, <, >, ", ' correctly ---

#[test]
fn escape_xml_handles_the_five_characters() {
    assert_eq!(escape_xml("&"), "&amp;");
    assert_eq!(escape_xml("<"), "&lt;");
    assert_eq!(escape_xml(">"), "&gt;");
    assert_eq!(escape_xml("\""), "&quot;");
    assert_eq!(escape_xml("'"), "&apos;");
    assert_eq!(
        escape_xml("if (a < b && c > \"d\") return 'e';"),
        "if (a &lt; b &amp;&amp; c &gt; &quot;d&quot;) return &apos;e&apos;;"
    );
    // Already-escaped text is escaped again: the text is data, not markup.
    assert_eq!(escape_xml("&amp;"), "&amp;amp;");
    // Tab, LF and CR are fine in text and left alone; other text is untouched.
    assert_eq!(escape_xml("a\tb\nc\r\nd é 😀"), "a\tb\nc\r\nd é 😀");
    assert_eq!(escape_xml(""), "");
}

#[test]
fn escape_xml_replaces_characters_xml_forbids() {
    assert_eq!(escape_xml("\u{0}"), "\\u{0}");
    assert_eq!(
        escape_xml("\u{1b}[1;32mok\u{1b}[0m"),
        "\\u{1b}[1;32mok\\u{1b}[0m"
    );
    assert_eq!(
        escape_xml("\u{7}\u{8}\u{b}\u{c}\u{1f}"),
        "\\u{7}\\u{8}\\u{b}\\u{c}\\u{1f}"
    );
    assert_eq!(escape_xml("\u{fffe}\u{ffff}"), "\\u{fffe}\\u{ffff}");
    // Allowed neighbours stay.
    assert_eq!(
        escape_xml("\u{7f}\u{fffd}\u{e000}\u{10ffff}"),
        "\u{7f}\u{fffd}\u{e000}\u{10ffff}"
    );
}

// --- serializeThreadToXml([]) returns <thread>\n</thread> ---

#[test]
fn empty_events() {
    assert_eq!(xml(&[]), "<thread>\n</thread>");
    let mut out = String::new();
    write_thread(&[], &SerializerOptions::default(), &mut out).unwrap();
    assert_eq!(out, "<thread>\n</thread>");
}

// --- The spec's example, to the byte ---

#[test]
fn the_spec_example_exactly() {
    let input = include_str!("../../../examples/thread_events.json");
    let events: Vec<AgentEvent> = serde_json::from_str(input).unwrap();
    assert_eq!(
        xml(&events),
        r#"<thread>
  <event type="human" id="0" iteration="0">What is 2+2?</event>
  <event type="tool_input" id="1" name="calculator" iteration="1">{&quot;expression&quot;:&quot;2+2&quot;}</event>
  <event type="tool_output" id="2" name="calculator" status="success" iteration="1">4</event>
  <event type="ai" id="3" iteration="1">The answer is 4.</event>
  <event type="completion" id="4" iteration="1">The answer is 4.</event>
</thread>"#
    );
}

// --- Each AgentEvent type maps to the correct type attribute; attributes in table order ---

#[test]
fn every_event_type_with_its_attributes_in_order() {
    let all = events(json!([
        {"type":"message","role":"user","content":"u","iteration":0},
        {"type":"message","role":"assistant","content":"a","iteration":0},
        {"type":"message","role":"system","content":"s","iteration":0},
        {"type":"tool_call","toolName":"t","toolCallId":"c","args":{},"iteration":1},
        {"type":"tool_result","toolCallId":"c","result":"r","iteration":1},
        {"type":"error","error":"e","recoverable":true,"iteration":2},
        {"type":"human_input_requested","question":"q","iteration":2},
        {"type":"human_input_received","response":"y","iteration":2},
        {"type":"completion","result":"done","verified":false,"iteration":3},
        {"type":"summary","summarizedIterations":[0,1,2],"summary":"sum","iteration":4}
    ]));
    assert_eq!(
        lines(&xml(&all)),
        [
            r#"  <event type="human" id="0" iteration="0">u</event>"#,
            r#"  <event type="ai" id="1" iteration="0">a</event>"#,
            r#"  <event type="system" id="2" iteration="0">s</event>"#,
            r#"  <event type="tool_input" id="3" name="t" iteration="1">{}</event>"#,
            r#"  <event type="tool_output" id="4" name="t" status="success" iteration="1">r</event>"#,
            r#"  <event type="error" id="5" iteration="2" recoverable="true">e</event>"#,
            r#"  <event type="human_input_requested" id="6" iteration="2">q</event>"#,
            r#"  <event type="human_input_received" id="7" iteration="2">y</event>"#,
            r#"  <event type="completion" id="8" iteration="3">done</event>"#,
            r#"  <event type="summary" id="9" iteration="4" summarizedIterations="0,1,2">sum</event>"#,
        ]
    );
}

// --- message events dispatch on role ---

#[test]
fn messages_dispatch_on_role() {
    let t = xml(&[
        msg(Role::System, "rules"),
        msg(Role::User, "hi"),
        msg(Role::Assistant, "hello"),
    ]);
    let types: Vec<String> = parse_thread_xml(&t)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.event_type)
        .collect();
    assert_eq!(types, ["system", "human", "ai"]);
}

// --- tool_call events serialize args as JSON in the body ---

#[test]
fn tool_call_args_are_compact_json_in_javascript_order_and_form() {
    let args: Value = serde_json::from_str(
        r#"{"path": "src/a.rs", "line": 10, "ratio": 1.0, "big": 1e21, "tiny": 1e-7,
            "nested": {"z": [true, null, "x\ty"], "a": {}}, "7": "index keys first"}"#,
    )
    .unwrap();
    let t = xml(&[call("edit", "c1", args.clone())]);
    assert_eq!(
        lines(&t)[0],
        "  <event type=\"tool_input\" id=\"0\" name=\"edit\" iteration=\"1\">\
         {&quot;7&quot;:&quot;index keys first&quot;,&quot;path&quot;:&quot;src/a.rs&quot;,\
         &quot;line&quot;:10,&quot;ratio&quot;:1,&quot;big&quot;:1e+21,&quot;tiny&quot;:1e-7,\
         &quot;nested&quot;:{&quot;z&quot;:[true,null,&quot;x\\ty&quot;],&quot;a&quot;:{}}}</event>"
    );
    // What a reader gets back is the JSON text, and it means the same value.
    let body = &parse_thread_xml(&t).unwrap().entries[0].text;
    assert_eq!(
        body,
        r#"{"7":"index keys first","path":"src/a.rs","line":10,"ratio":1,"big":1e+21,"tiny":1e-7,"nested":{"z":[true,null,"x\ty"],"a":{}}}"#
    );
    let back: Value = serde_json::from_str(body).unwrap();
    assert_eq!(back["nested"], args["nested"]);
    assert_eq!(back["ratio"].as_f64(), Some(1.0));
    assert_eq!(back["big"].as_f64(), Some(1e21));
}

#[test]
fn non_object_args_are_json_too() {
    let t = xml(&[
        call("a", "1", json!(null)),
        call("b", "2", json!([1, "two"])),
        call("c", "3", json!("text")),
    ]);
    let bodies: Vec<String> = parse_thread_xml(&t)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.text)
        .collect();
    assert_eq!(bodies, ["null", r#"[1,"two"]"#, r#""text""#]);
}

// --- tool_result resolves name from the matching tool_call by toolCallId ---

#[test]
fn tool_result_name_comes_from_its_tool_call() {
    let t = xml(&[
        call("search", "a", json!({})),
        call("read_file", "b", json!({})),
        result("b", json!("file")),
        result("a", json!("hits")),
    ]);
    let entries = parse_thread_xml(&t).unwrap().entries;
    assert_eq!(entries[2].attribute("name"), Some("read_file"));
    assert_eq!(entries[3].attribute("name"), Some("search"));
    assert_eq!(entries[3].attribute("status"), Some("success"));
}

// --- tool_result falls back to name="unknown" ---

#[test]
fn tool_result_without_a_preceding_tool_call_is_unknown() {
    let t = xml(&[
        result("early", json!("1")),
        call("late", "early", json!({})),
        result("other", json!("2")),
    ]);
    assert_eq!(
        lines(&t)[0],
        r#"  <event type="tool_output" id="0" name="unknown" status="success" iteration="1">1</event>"#
    );
    assert!(lines(&t)[2].contains(r#"name="unknown""#));
}

#[test]
fn a_reused_tool_call_id_resolves_to_the_nearest_preceding_call() {
    let t = xml(&[
        call("first", "x", json!({})),
        result("x", json!("1")),
        call("second", "x", json!({})),
        result("x", json!("2")),
    ]);
    let entries = parse_thread_xml(&t).unwrap().entries;
    assert_eq!(entries[1].attribute("name"), Some("first"));
    assert_eq!(entries[3].attribute("name"), Some("second"));
}

#[test]
fn tool_result_bodies() {
    let t = xml(&[
        result("s", json!("plain <text> & \"quotes\"")),
        result("o", json!({"b": 2, "a": [1.5, 2.0]})),
        result("n", json!(null)),
        result("k", json!(42)),
        result("f", json!(false)),
        result("e", json!("")),
    ]);
    let bodies: Vec<String> = parse_thread_xml(&t)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.text)
        .collect();
    assert_eq!(
        bodies,
        [
            "plain <text> & \"quotes\"",
            r#"{"b":2,"a":[1.5,2]}"#,
            "null",
            "42",
            "false",
            ""
        ]
    );
    assert!(lines(&t)[5].ends_with("\"1\"></event>"));
}

// --- error events include recoverable ---

#[test]
fn error_recoverable_attribute() {
    let t = xml(&events(json!([
        {"type":"error","error":"timeout","recoverable":true,"iteration":3},
        {"type":"error","error":"fatal","toolCallId":"c","recoverable":false,"iteration":3}
    ])));
    assert_eq!(
        lines(&t),
        [
            r#"  <event type="error" id="0" iteration="3" recoverable="true">timeout</event>"#,
            r#"  <event type="error" id="1" iteration="3" recoverable="false">fatal</event>"#,
        ]
    );
}

// --- summary events include summarizedIterations as a comma-separated list ---

#[test]
fn summary_iterations_comma_separated() {
    let summary = |its: Vec<u64>| AgentEvent::Summary {
        summarized_iterations: its,
        summary: "s".into(),
        iteration: 9,
    };
    let t = xml(&[summary(vec![1, 2, 3]), summary(vec![7]), summary(vec![])]);
    let entries = parse_thread_xml(&t).unwrap().entries;
    assert_eq!(entries[0].attribute("summarizedIterations"), Some("1,2,3"));
    assert_eq!(entries[1].attribute("summarizedIterations"), Some("7"));
    assert_eq!(entries[2].attribute("summarizedIterations"), Some(""));
}

// --- responsePrefix is appended after </thread> ---

#[test]
fn response_prefix_after_the_closing_tag_and_a_newline() {
    let events = [msg(Role::User, "hi")];
    let options =
        SerializerOptions::new().with_response_prefix("Based on the above thread, I will now");
    let t = serialize_thread_to_xml(&events, &options);
    assert_eq!(
        t,
        "<thread>\n  <event type=\"human\" id=\"0\" iteration=\"0\">hi</event>\n</thread>\n\
         Based on the above thread, I will now"
    );
    let parsed = parse_thread_xml(&t).unwrap();
    assert_eq!(
        parsed.response_prefix.as_deref(),
        Some("Based on the above thread, I will now")
    );
    assert_eq!(parsed.entries.len(), 1);
}

#[test]
fn response_prefix_is_written_as_given_and_empty_means_none() {
    let raw = SerializerOptions::new().with_response_prefix("<reply> & \"go\"");
    assert_eq!(
        serialize_thread_to_xml(&[], &raw),
        "<thread>\n</thread>\n<reply> & \"go\""
    );
    let empty = SerializerOptions::new().with_response_prefix("");
    assert_eq!(serialize_thread_to_xml(&[], &empty), "<thread>\n</thread>");
}

// --- All attribute values and text content are XML-escaped ---

#[test]
fn attribute_values_and_text_are_escaped() {
    let t = xml(&[
        call(
            "we<ird> & \"name\" 'x'",
            "c",
            json!({"q": "<a href='x'>&amp;</a>"}),
        ),
        result("c", json!("</event><event type=\"forged\">")),
        msg(Role::User, "]]> <![CDATA[ &#0; &unknown;"),
    ]);
    assert_eq!(
        lines(&t)[0],
        "  <event type=\"tool_input\" id=\"0\" name=\"we&lt;ird&gt; &amp; &quot;name&quot; \
         &apos;x&apos;\" iteration=\"1\">{&quot;q&quot;:&quot;&lt;a href=&apos;x&apos;&gt;\
         &amp;amp;&lt;/a&gt;&quot;}</event>"
    );
    assert_well_formed(&t);
    let entries = parse_thread_xml(&t).unwrap().entries;
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0].attribute("name"), Some("we<ird> & \"name\" 'x'"));
    assert_eq!(entries[1].attribute("name"), Some("we<ird> & \"name\" 'x'"));
    assert_eq!(entries[1].text, "</event><event type=\"forged\">");
    assert_eq!(entries[2].text, "]]> <![CDATA[ &#0; &unknown;");
}

#[test]
fn whitespace_in_attributes_survives_as_character_references() {
    let t = xml(&[call("a\tb\nc\r\nd", "c", json!({}))]);
    assert!(lines(&t)[0].contains(r#"name="a&#9;b&#10;c&#13;&#10;d""#));
    let entries = parse_thread_xml(&t).unwrap().entries;
    assert_eq!(entries[0].attribute("name"), Some("a\tb\nc\r\nd"));
}

#[test]
fn line_ends_in_bodies_are_written_raw_and_read_back_normalized() {
    let t = xml(&[msg(Role::User, "one\r\ntwo\rthree\n\tfour")]);
    assert!(t.contains(">one\r\ntwo\rthree\n\tfour</event>"));
    // XML readers normalize CR LF and lone CR to LF; tab and LF are kept.
    assert_eq!(
        parse_thread_xml(&t).unwrap().entries[0].text,
        "one\ntwo\nthree\n\tfour"
    );
}

// --- Output is valid XML, whatever the events hold ---

#[test]
fn terminal_output_with_control_characters_stays_well_formed() {
    let output = "\u{1b}[32m✔\u{1b}[0m built\r\n\u{0}\u{7}bell\u{8}\u{b}\u{c}\u{ffff}";
    let t = xml(&[
        call(
            "shell\u{1b}",
            "c",
            json!({"cmd": "ls\u{1b}[0m\u{0}\u{fffe}"}),
        ),
        result("c", json!(output)),
        AgentEvent::Error {
            error: "\u{1}".into(),
            recoverable: false,
            iteration: 0,
        },
    ]);
    assert_well_formed(&t);
    let entries = parse_thread_xml(&t).unwrap().entries;
    assert_eq!(entries[0].attribute("name"), Some("shell\\u{1b}"));
    // In JSON, control characters are JSON escapes (valid JSON, the exact value back).
    assert_eq!(entries[0].text, r#"{"cmd":"ls\u001b[0m\u0000\ufffe"}"#);
    let args: Value = serde_json::from_str(&entries[0].text).unwrap();
    assert_eq!(args["cmd"], "ls\u{1b}[0m\u{0}\u{fffe}");
    // In text, the visible escape.
    assert_eq!(
        entries[1].text,
        "\\u{1b}[32m✔\\u{1b}[0m built\n\\u{0}\\u{7}bell\\u{8}\\u{b}\\u{c}\\u{ffff}"
    );
    assert_eq!(entries[2].text, "\\u{1}");
}

// --- ids are positional; unknown fields are not written ---

#[test]
fn ids_are_positions_and_extra_fields_are_not_written() {
    let t = xml(&events(json!([
        {"type":"tool_call","toolName":"t","toolCallId":"c","args":{},"durationMs":5,
         "parallelGroup":"g","timestamp":1,"id":"evt_9","iteration":7},
        {"type":"tool_result","toolCallId":"c","result":"r","durationMs":5,"iteration":7}
    ])));
    let entries = parse_thread_xml(&t).unwrap().entries;
    let names: Vec<Vec<&str>> = entries
        .iter()
        .map(|e| e.attributes.iter().map(|(n, _)| n.as_str()).collect())
        .collect();
    assert_eq!(
        names,
        [
            vec!["type", "id", "name", "iteration"],
            vec!["type", "id", "name", "status", "iteration"]
        ]
    );
    assert_eq!(entries[0].attribute("id"), Some("0"));
    assert_eq!(entries[1].attribute("id"), Some("1"));
    assert_eq!(entries[1].attribute("iteration"), Some("7"));
}

// --- The io::Write form ---

#[test]
fn io_writer_gets_the_same_bytes() {
    let events = events(json!([
        {"type":"message","role":"user","content":"héllo <&>","iteration":0},
        {"type":"tool_call","toolName":"t","toolCallId":"c","args":{"x":0.5},"iteration":1}
    ]));
    let options = SerializerOptions::new().with_response_prefix("Go:");
    let mut bytes = Vec::new();
    write_thread_io(&events, &options, &mut bytes).unwrap();
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        serialize_thread_to_xml(&events, &options)
    );
}

#[test]
fn io_errors_are_returned() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "disk full",
            ))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = write_thread_io(&[], &SerializerOptions::default(), &mut Full).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::StorageFull);
}

#[test]
fn large_thread_is_one_document() {
    let mut events = Vec::new();
    for i in 0..1_000u64 {
        let id = format!("call_{i}");
        events.push(AgentEvent::ToolCall {
            tool_name: format!("tool_{}", i % 7),
            tool_call_id: id.clone(),
            args: json!({"i": i, "text": "x".repeat(100)}),
            iteration: i,
        });
        events.push(AgentEvent::ToolResult {
            tool_call_id: id,
            result: json!("ok & done"),
            iteration: i,
        });
    }
    let t = xml(&events);
    let entries = parse_thread_xml(&t).unwrap().entries;
    assert_eq!(entries.len(), 2_000);
    assert_eq!(entries[1999].attribute("name"), Some("tool_5"));
    assert_eq!(entries[1999].attribute("id"), Some("1999"));
    assert_eq!(entries[1999].text, "ok & done");
}
