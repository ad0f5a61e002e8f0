//! Arbitrary agent events, serialized: the document always parses with xml-rs (strict, XML 1.0),
//! holds one `<event>` per event with the right `type`, reads back with `parse_thread_xml`
//! (texts and JSON bodies intact), and the `io::Write` writer agrees.

#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::Value as Json;
use thread_serializer::{
    AgentEvent, Role, SerializerOptions, parse_thread_xml, serialize_thread_to_xml, write_thread_io,
};
use toolcall_fuzz::{forbidden, json, text};
use xml::reader::{EventReader, XmlEvent};

fn any_text(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 3)? {
        u.arbitrary()
    } else {
        text(u)
    }
}

fn id(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 4)? {
        any_text(u)
    } else {
        Ok((*u.choose(&["c1", "c2", "", "a\"b"])?).to_owned())
    }
}

fn event(u: &mut Unstructured<'_>) -> Result<AgentEvent> {
    let iteration = if u.arbitrary()? { u.arbitrary()? } else { 1 };
    Ok(match u.int_in_range(0..=7)? {
        0 => AgentEvent::Message {
            role: *u.choose(&[Role::User, Role::Assistant, Role::System])?,
            content: any_text(u)?,
            iteration,
        },
        1 => AgentEvent::ToolCall {
            tool_name: any_text(u)?,
            tool_call_id: id(u)?,
            args: json(u, 3)?,
            iteration,
        },
        2 => AgentEvent::ToolResult {
            tool_call_id: id(u)?,
            result: json(u, 3)?,
            iteration,
        },
        3 => AgentEvent::Error {
            error: any_text(u)?,
            recoverable: u.arbitrary()?,
            iteration,
        },
        4 => AgentEvent::HumanInputRequested {
            question: any_text(u)?,
            iteration,
        },
        5 => AgentEvent::HumanInputReceived {
            response: any_text(u)?,
            iteration,
        },
        6 => AgentEvent::Completion {
            result: any_text(u)?,
            iteration,
        },
        _ => AgentEvent::Summary {
            summarized_iterations: u.arbitrary()?,
            summary: any_text(u)?,
            iteration,
        },
    })
}

/// The event's text body, when it is text rather than JSON.
fn text_body(e: &AgentEvent) -> Option<&str> {
    match e {
        AgentEvent::Message { content, .. } => Some(content),
        AgentEvent::Error { error, .. } => Some(error),
        AgentEvent::HumanInputRequested { question, .. } => Some(question),
        AgentEvent::HumanInputReceived { response, .. } => Some(response),
        AgentEvent::Completion { result, .. } => Some(result),
        AgentEvent::Summary { summary, .. } => Some(summary),
        AgentEvent::ToolCall { .. } | AgentEvent::ToolResult { .. } => None,
        other => unreachable!("the generator makes no other event: {other:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(n) = u.int_in_range(0..=6) else { return };
    let mut events = Vec::new();
    for _ in 0..n {
        match event(&mut u) {
            Ok(e) => events.push(e),
            Err(_) => return,
        }
    }
    let prefix: Option<String> = u.arbitrary().unwrap_or(None);

    let plain = serialize_thread_to_xml(&events, &SerializerOptions::default());
    // Strict xml-rs with its defaults: the document is well-formed XML 1.0.
    let mut depth = 0;
    let mut types = Vec::new();
    for e in EventReader::new(plain.as_bytes()) {
        match e {
            Ok(XmlEvent::StartElement {
                name, attributes, ..
            }) => {
                depth += 1;
                match depth {
                    1 => assert_eq!(name.local_name, "thread"),
                    2 => {
                        assert_eq!(name.local_name, "event");
                        let t = attributes
                            .iter()
                            .find(|a| a.name.local_name == "type")
                            .map(|a| a.value.clone());
                        types.push(t.expect("every event has a type"));
                    }
                    _ => panic!("an element inside an event:\n{plain}"),
                }
            }
            Ok(XmlEvent::EndElement { .. }) => depth -= 1,
            Ok(XmlEvent::EndDocument) => break,
            Ok(_) => {}
            Err(e) => panic!("not well-formed: {e}\n{plain:?}"),
        }
    }
    let expected: Vec<&str> = events.iter().map(AgentEvent::xml_type).collect();
    assert_eq!(types, expected);

    let options = match &prefix {
        Some(p) => SerializerOptions::new().with_response_prefix(p.as_str()),
        None => SerializerOptions::new(),
    };
    let xml = serialize_thread_to_xml(&events, &options);
    assert!(xml.starts_with(&plain));
    let parsed = parse_thread_xml(&xml).unwrap_or_else(|e| panic!("{e}\n{xml:?}"));
    assert_eq!(parsed.response_prefix, prefix.filter(|p| !p.is_empty()));
    assert_eq!(parsed.entries.len(), events.len());
    for (entry, event) in parsed.entries.iter().zip(&events) {
        assert_eq!(entry.event_type, event.xml_type());
        match (text_body(event), event) {
            (Some(t), _) => {
                if !t.chars().any(forbidden) && !t.contains('\r') {
                    assert_eq!(entry.text, t);
                }
            }
            (None, AgentEvent::ToolCall { .. } | AgentEvent::ToolResult { .. }) => {
                if !matches!(
                    event,
                    AgentEvent::ToolResult {
                        result: Json::String(_),
                        ..
                    }
                ) {
                    // Valid JSON, checked without `serde_json::Value`: with serde_json's
                    // `raw_value` feature (on in this workspace) `Value` cannot read an object
                    // whose first key is serde_json's reserved raw-value token, a valid key.
                    let _: serde::de::IgnoredAny = serde_json::from_str(&entry.text)
                        .unwrap_or_else(|e| {
                            panic!("JSON body does not parse: {e}\n{:?}", entry.text)
                        });
                }
            }
            (None, _) => {}
        }
    }

    let mut bytes = Vec::new();
    write_thread_io(&events, &options, &mut bytes).expect("a Vec never fails");
    assert_eq!(String::from_utf8(bytes).expect("UTF-8"), xml);
});
