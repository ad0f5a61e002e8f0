//! Property tests: whatever the events hold, the output is well-formed XML 1.0 (checked with
//! xml-rs), reads back to the expected text and attributes, and equals a naive reference
//! construction written from the spec's table.

use proptest::prelude::*;
use serde_json::{Map, Value};
use thread_serializer::json::{to_json_string, write_js_number};
use thread_serializer::{
    AgentEvent, Role, SerializerOptions, parse_thread_xml, serialize_thread_to_xml, write_thread_io,
};

// ---------- strategies ----------

/// Text with a high share of what matters: markup characters, line ends, characters XML
/// forbids, and arbitrary Unicode.
fn text() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        '\0',
        '\u{1}',
        '\u{8}',
        '\u{b}',
        '\u{c}',
        '\u{1b}',
        '\u{1f}',
        '\t',
        '\n',
        '\r',
        '&',
        '<',
        '>',
        '"',
        '\'',
        ';',
        '#',
        ']',
        '\u{7f}',
        '\u{85}',
        '\u{2028}',
        '\u{fffd}',
        '\u{fffe}',
        '\u{ffff}',
        '\u{10ffff}',
        '\\',
        '{',
        '}',
    ]);
    prop::collection::vec(
        prop_oneof![3 => any::<char>(), 3 => special, 2 => prop::char::range('a', 'e')],
        0..16,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn json_value(floats: bool) -> impl Strategy<Value = Value> {
    let number = if floats {
        prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
                .map(Value::Number)),
            prop::sample::select(vec![0.5, 1.0, -0.0, 1e21, 1e-7, 1e15 + 0.25, 0.1 + 0.2])
                .prop_map(Value::from),
        ]
        .boxed()
    } else {
        prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from)
        ]
        .boxed()
    };
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number,
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key(floats), inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Object keys. For the reference construction (no floats), keys that JavaScript would move
/// to the front (array indices) are avoided, since `serde_json` keeps insertion order.
fn key(any_key: bool) -> BoxedStrategy<String> {
    if any_key {
        prop_oneof![text(), (0u32..20).prop_map(|n| n.to_string())].boxed()
    } else {
        text().prop_map(|k| format!("k{k}")).boxed()
    }
}

fn tool_call_id() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["a", "b", "c"]).prop_map(String::from),
        1 => text(),
    ]
}

fn event(floats: bool) -> impl Strategy<Value = AgentEvent> {
    let iteration = 0u64..1_000_000;
    prop_oneof![
        (
            prop::sample::select(vec![Role::User, Role::Assistant, Role::System]),
            text(),
            iteration.clone()
        )
            .prop_map(|(role, content, iteration)| AgentEvent::Message {
                role,
                content,
                iteration
            }),
        (
            text(),
            tool_call_id(),
            json_value(floats),
            iteration.clone()
        )
            .prop_map(
                |(tool_name, tool_call_id, args, iteration)| AgentEvent::ToolCall {
                    tool_name,
                    tool_call_id,
                    args,
                    iteration
                }
            ),
        (tool_call_id(), json_value(floats), iteration.clone()).prop_map(
            |(tool_call_id, result, iteration)| AgentEvent::ToolResult {
                tool_call_id,
                result,
                iteration
            }
        ),
        (text(), any::<bool>(), iteration.clone()).prop_map(|(error, recoverable, iteration)| {
            AgentEvent::Error {
                error,
                recoverable,
                iteration,
            }
        }),
        (text(), iteration.clone()).prop_map(|(question, iteration)| {
            AgentEvent::HumanInputRequested {
                question,
                iteration,
            }
        }),
        (text(), iteration.clone()).prop_map(|(response, iteration)| {
            AgentEvent::HumanInputReceived {
                response,
                iteration,
            }
        }),
        (text(), iteration.clone())
            .prop_map(|(result, iteration)| AgentEvent::Completion { result, iteration }),
        (prop::collection::vec(any::<u64>(), 0..4), text(), iteration).prop_map(
            |(summarized_iterations, summary, iteration)| AgentEvent::Summary {
                summarized_iterations,
                summary,
                iteration
            }
        ),
    ]
}

fn events(floats: bool) -> impl Strategy<Value = Vec<AgentEvent>> {
    prop::collection::vec(event(floats), 0..12)
}

// ---------- the model: what a reader must get back ----------

fn forbidden(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}')
}

/// The documented visible escape of characters XML 1.0 forbids.
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| {
            if forbidden(c) {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Line-end normalization of XML readers (text only; attributes use references).
fn normalized(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "\n")
}

/// The name the nearest preceding tool_call gives each event (by backward scan, the spec's
/// own wording, independent of the serializer's map).
fn looked_up_name(events: &[AgentEvent], at: usize, id: &str) -> String {
    events[..at]
        .iter()
        .rev()
        .find_map(|e| match e {
            AgentEvent::ToolCall {
                tool_name,
                tool_call_id,
                ..
            } if tool_call_id == id => Some(tool_name.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

fn expected_attributes(events: &[AgentEvent], at: usize) -> Vec<(String, String)> {
    let e = &events[at];
    let mut attrs = vec![
        ("type".to_owned(), e.xml_type().to_owned()),
        ("id".to_owned(), at.to_string()),
    ];
    match e {
        AgentEvent::ToolCall { tool_name, .. } => attrs.push(("name".into(), tool_name.clone())),
        AgentEvent::ToolResult { tool_call_id, .. } => {
            attrs.push(("name".into(), looked_up_name(events, at, tool_call_id)));
            attrs.push(("status".into(), "success".into()));
        }
        _ => {}
    }
    attrs.push(("iteration".into(), e.iteration().to_string()));
    match e {
        AgentEvent::Error { recoverable, .. } => {
            attrs.push(("recoverable".into(), recoverable.to_string()))
        }
        AgentEvent::Summary {
            summarized_iterations,
            ..
        } => {
            let joined: Vec<String> = summarized_iterations.iter().map(u64::to_string).collect();
            attrs.push(("summarizedIterations".into(), joined.join(",")));
        }
        _ => {}
    }
    attrs.into_iter().map(|(n, v)| (n, visible(&v))).collect()
}

enum Body<'a> {
    Text(&'a str),
    Json(&'a Value),
}

fn body(e: &AgentEvent) -> Body<'_> {
    match e {
        AgentEvent::Message { content: t, .. }
        | AgentEvent::Error { error: t, .. }
        | AgentEvent::HumanInputRequested { question: t, .. }
        | AgentEvent::HumanInputReceived { response: t, .. }
        | AgentEvent::Completion { result: t, .. }
        | AgentEvent::Summary { summary: t, .. } => Body::Text(t),
        AgentEvent::ToolResult {
            result: Value::String(t),
            ..
        } => Body::Text(t),
        AgentEvent::ToolCall { args: v, .. } | AgentEvent::ToolResult { result: v, .. } => {
            Body::Json(v)
        }
        other => unreachable!("the generator makes no other event: {other:?}"),
    }
}

/// Same JSON value, numbers compared as doubles, exactly: the crate reads numbers with
/// serde_json's `float_roundtrip` (its default parser was off by an ulp for about 30% of
/// random doubles, which this comparison used to tolerate).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn assert_well_formed(xml: &str) -> Result<(), TestCaseError> {
    let reader = xml::reader::EventReader::new_with_config(
        xml.as_bytes(),
        xml::reader::ParserConfig::new().allow_multiple_root_elements(false),
    );
    for event in reader {
        if let Err(e) = event {
            return Err(TestCaseError::fail(format!("xml-rs: {e}\n{xml:?}")));
        }
    }
    Ok(())
}

// ---------- a naive reference construction, written from the spec ----------

fn reference_escape(s: &str, attribute: bool) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            c if forbidden(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

fn reference(events: &[AgentEvent], prefix: Option<&str>) -> String {
    let mut out = String::from("<thread>\n");
    for (i, e) in events.iter().enumerate() {
        let attrs: Vec<String> = expected_attributes(events, i)
            .into_iter()
            .map(|(n, _)| n)
            .zip(raw_attribute_values(events, i))
            .map(|(n, v)| format!("{n}=\"{}\"", reference_escape(&v, true)))
            .collect();
        let body = match body(e) {
            Body::Text(t) => reference_escape(t, false),
            Body::Json(v) => {
                // serde_json prints integers, strings and structure as JSON.stringify does; the
                // serializer writes U+FFFE/U+FFFF as JSON escapes to stay well-formed.
                let json = serde_json::to_string(v)
                    .unwrap()
                    .replace('\u{fffe}', "\\ufffe")
                    .replace('\u{ffff}', "\\uffff");
                reference_escape(&json, false)
            }
        };
        out.push_str(&format!("  <event {}>{body}</event>\n", attrs.join(" ")));
    }
    out.push_str("</thread>");
    if let Some(p) = prefix.filter(|p| !p.is_empty()) {
        out.push('\n');
        out.push_str(p);
    }
    out
}

fn raw_attribute_values(events: &[AgentEvent], at: usize) -> Vec<String> {
    let e = &events[at];
    let mut values = vec![e.xml_type().to_owned(), at.to_string()];
    match e {
        AgentEvent::ToolCall { tool_name, .. } => values.push(tool_name.clone()),
        AgentEvent::ToolResult { tool_call_id, .. } => {
            values.push(looked_up_name(events, at, tool_call_id));
            values.push("success".into());
        }
        _ => {}
    }
    values.push(e.iteration().to_string());
    match e {
        AgentEvent::Error { recoverable, .. } => values.push(recoverable.to_string()),
        AgentEvent::Summary {
            summarized_iterations,
            ..
        } => values.push(
            summarized_iterations
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(","),
        ),
        _ => {}
    }
    values
}

// ---------- properties ----------

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn output_is_well_formed_and_reads_back(events in events(true), prefix in proptest::option::of(text())) {
        let plain = serialize_thread_to_xml(&events, &SerializerOptions::default());
        assert_well_formed(&plain)?;

        let options = prefix.clone().map_or_else(SerializerOptions::new, |p| SerializerOptions::new().with_response_prefix(p));
        let xml = serialize_thread_to_xml(&events, &options);
        let parsed = parse_thread_xml(&xml).map_err(|e| TestCaseError::fail(format!("{e}\n{xml:?}")))?;
        prop_assert_eq!(parsed.response_prefix, prefix.filter(|p| !p.is_empty()));
        prop_assert_eq!(parsed.entries.len(), events.len());
        for (i, (entry, event)) in parsed.entries.iter().zip(&events).enumerate() {
            prop_assert_eq!(&entry.event_type, event.xml_type());
            prop_assert_eq!(&entry.attributes, &expected_attributes(&events, i));
            match body(event) {
                Body::Text(t) => prop_assert_eq!(&entry.text, &normalized(&visible(t))),
                Body::Json(v) => {
                    prop_assert_eq!(&entry.text, &to_json_string(v));
                    let back: Value = serde_json::from_str(&entry.text)
                        .map_err(|e| TestCaseError::fail(format!("{e}: {:?}", entry.text)))?;
                    prop_assert!(same_json(&back, v), "{:?} vs {:?}", back, v);
                }
            }
        }
    }

    #[test]
    fn output_equals_the_reference_construction(events in events(false), prefix in proptest::option::of(text())) {
        let options = prefix.clone().map_or_else(SerializerOptions::new, |p| SerializerOptions::new().with_response_prefix(p));
        prop_assert_eq!(serialize_thread_to_xml(&events, &options), reference(&events, prefix.as_deref()));
    }

    #[test]
    fn io_and_fmt_writers_agree(events in events(true)) {
        let options = SerializerOptions::new().with_response_prefix("next");
        let mut bytes = Vec::new();
        write_thread_io(&events, &options, &mut bytes).unwrap();
        prop_assert_eq!(String::from_utf8(bytes).unwrap(), serialize_thread_to_xml(&events, &options));
    }

    #[test]
    fn events_round_trip_through_their_json_shape(events in events(false)) {
        let json = serde_json::to_string(&events).unwrap();
        let back: Vec<AgentEvent> = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, events);
    }

    #[test]
    fn numbers_read_back_exactly_and_look_like_javascript(x in any::<f64>().prop_filter("finite", |x| x.is_finite())) {
        let mut s = String::new();
        write_js_number(x, &mut s).unwrap();
        prop_assert_eq!(s.parse::<f64>().unwrap(), if x == 0.0 { 0.0 } else { x });
        prop_assert!(!s.ends_with(".0") && !s.contains(".e") && !s.contains("e+0") || s == "0");
        let a = x.abs();
        let exponent_form = a != 0.0 && !(1e-6..1e21).contains(&a);
        prop_assert_eq!(s.contains('e'), exponent_form, "{}", s);
    }

    #[test]
    fn reading_never_panics(input in text(), events in events(false), cut in any::<prop::sample::Index>()) {
        let _ = parse_thread_xml(&input);
        // Truncated and spliced real threads, too.
        let xml = serialize_thread_to_xml(&events, &SerializerOptions::default());
        let mut at = cut.index(xml.len() + 1);
        while !xml.is_char_boundary(at) {
            at -= 1;
        }
        let _ = parse_thread_xml(&xml[..at]);
        let _ = parse_thread_xml(&format!("{}{input}{}", &xml[..at], &xml[at..]));
    }
}
