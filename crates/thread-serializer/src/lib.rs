//! docs/FORMAT.md §8: agent events serialized as a `<thread>` XML document.
//!
//! An agent's whole history — messages, tool calls and results, errors, questions to the human,
//! summaries — becomes one document that is sent to the model as a single message:
//!
//! ```
//! use thread_serializer::{serialize_thread_to_xml, AgentEvent, SerializerOptions};
//!
//! let json = r#"[
//!   {"type":"message","role":"user","content":"What is 2+2?","timestamp":1,"iteration":0},
//!   {"type":"tool_call","toolName":"calculator","toolCallId":"c1","args":{"expression":"2+2"},"iteration":1},
//!   {"type":"tool_result","toolCallId":"c1","result":"4","iteration":1},
//!   {"type":"message","role":"assistant","content":"The answer is 4.","iteration":1},
//!   {"type":"completion","result":"The answer is 4.","verified":true,"iteration":1}
//! ]"#;
//! let events: Vec<AgentEvent> = thread_serializer::events_from_json(json).unwrap();
//! let xml = serialize_thread_to_xml(&events, &SerializerOptions::default());
//! assert_eq!(xml, "\
//! <thread>
//!   <event type=\"human\" id=\"0\" iteration=\"0\">What is 2+2?</event>
//!   <event type=\"tool_input\" id=\"1\" name=\"calculator\" iteration=\"1\">{&quot;expression&quot;:&quot;2+2&quot;}</event>
//!   <event type=\"tool_output\" id=\"2\" name=\"calculator\" status=\"success\" iteration=\"1\">4</event>
//!   <event type=\"ai\" id=\"3\" iteration=\"1\">The answer is 4.</event>
//!   <event type=\"completion\" id=\"4\" iteration=\"1\">The answer is 4.</event>
//! </thread>");
//!
//! let back = thread_serializer::parse_thread_xml(&xml).unwrap();
//! assert_eq!(back.entries[1].text, r#"{"expression":"2+2"}"#);
//! ```
//!
//! The output is well-formed XML 1.0 whatever the events hold: characters XML 1.0 forbids
//! (NUL, ESC and the other C0 controls but tab, LF and CR; U+FFFE, U+FFFF), common in the
//! terminal output of tools, are replaced by a visible escape in Rust notation (`\u{1b}`).
//! `docs/FORMAT.md` §8 states the layout and every decision.
//!
//! Events are read with [`events_from_json`] (or serde): numbers are read exactly and written
//! back as `JSON.stringify` prints them, byte for byte; lone surrogate escapes that
//! `JSON.stringify` writes read as U+FFFD; an integral float (`1.0`) is read where an integer is
//! expected.
//!
//! Modules, one concern each: [`event`] (the events and their JSON shape), [`serialize`]
//! (writing), [`json`] (JSON text as JavaScript prints it), [`read`] (reading a thread back),
//! [`error`].

#![forbid(unsafe_code)]

pub mod error;
pub mod event;
pub mod json;
pub mod read;
pub mod serialize;

pub use error::{ParseThreadError, ParseThreadErrorKind};
pub use event::{AgentEvent, Role, events_from_json};
pub use read::{ParsedThread, ThreadEntry, parse_thread_xml};
pub use serialize::{
    SerializerOptions, escape_xml, serialize_thread_to_xml, write_thread, write_thread_io,
};

/// The root element's name.
pub const THREAD_ROOT: &str = "thread";
