//! Tool calling for any LLM, through plain-text XML.
//!
//! The model writes its calls inside ordinary prose, as `<tool>` elements; `toolcall` finds them,
//! reads them even when the model's XML is sloppy (a bare `&`, a `<` in code), types their
//! arguments, streams them as they arrive, and tells the model how to fix the calls it cannot
//! read. No provider's function-calling API is involved, so one agent runs on any model that
//! writes text. `docs/FORMAT.md` in the repository is the format's reference; the [`guide`]
//! walks through everything below in seven steps.
//!
//! # The main job: read a reply, run its calls, answer its errors
//!
//! [`parser::parse`] returns a [`ParseResult`](parser::ParseResult): the reply's prose, its
//! calls ([`ToolCall`](parser::ToolCall): `server_name`, `tool_name`, typed `arguments`, the
//! repairs made) and the calls it could not read ([`ParseError`](parser::ParseError)), all in
//! order. Each error's [`feedback`](parser::ParseError::feedback) is what to send back to the
//! model: what failed, where, and how to fix it.
//!
//! ```
//! let reply = "I'll read the file, then write the new one.\n\
//!     <tool><tool_name>read_file</tool_name>\
//!     <arguments><path>src/lib.rs</path><line_start>10</line_start></arguments></tool>\n\
//!     <tool><tool_name>write_to_file</tool_name>\
//!     <arguments><path>a.rs</path><content>if a && b {}</contnet></arguments></tool>";
//!
//! let result = toolcall::parser::parse(reply);
//! let mut ran = Vec::new();
//! for call in result.calls() {
//!     // Run the tool: `call.server_name` routes it, `call.arguments` are its typed arguments.
//!     let path = call.arguments["path"].as_str().unwrap_or_default();
//!     ran.push(format!("{} {path}", call.tool_name));
//! }
//! let mut answer = String::new();
//! for error in result.errors() {
//!     // Send this back to the model, and it corrects the call.
//!     answer.push_str(&error.feedback());
//! }
//!
//! assert_eq!(ran, ["read_file src/lib.rs"]);
//! assert!(answer.starts_with("Your call to `write_to_file` could not be read: "));
//! assert!(answer.contains("expected </content>"));
//! assert_eq!(result.calls()[0].arguments["line_start"].as_i64(), Some(10));
//! ```
//!
//! [`prompt::retry_message`] frames several errors' feedback as one reply to the model.
//!
//! # Streaming
//!
//! [`StreamParser`](parser::StreamParser) takes the reply chunk by chunk, split anywhere, and
//! reports each [`StreamEvent`](parser::StreamEvent) as soon as it is certain: prose, a call
//! started, its tool name, its argument text as it arrives, the finished call or its error.
//! [`parser::parse`] is this parser fed one chunk, so both give the same calls.
//!
//! ```
//! use toolcall::parser::{StreamEvent, StreamParser};
//!
//! let mut parser = StreamParser::new();
//! let mut started = Vec::new();
//! for chunk in ["Writing.\n<tool><tool_name>write_to", "_file</tool_name><arguments>",
//!               "<path>a.txt</path><content>Hi</content></arguments></tool>"] {
//!     for event in parser.feed(chunk) {
//!         match event {
//!             StreamEvent::ToolName { tool_name, .. } => started.push(tool_name),
//!             StreamEvent::CallFinished { result: Ok(call), .. } => {
//!                 assert_eq!(call.arguments["content"].as_str(), Some("Hi"));
//!             }
//!             StreamEvent::CallFinished { result: Err(error), .. } => panic!("{}", error.feedback()),
//!             _ => {}
//!         }
//!     }
//! }
//! parser.finish();
//! assert_eq!(started, ["write_to_file"]);
//! ```
//!
//! # Typing arguments by the tools' schemas
//!
//! Without a schema, argument types are inferred from the text: `007` reads as the integer 7,
//! one `<exclude>` as a string but two as an array, HTML content as an object. Give the parser
//! the tools' JSON Schemas ([`ParseOptions::schemas`](parser::ParseOptions::schemas), from the
//! same [`ToolDef`](prompt::ToolDef)s that build the prompt) and each call of a known tool is
//! read through its schema instead; [`args::from_value`] then decodes the arguments into your
//! own type.
//!
//! ```
//! use serde::Deserialize;
//! use std::sync::Arc;
//! use toolcall::parser::{parse_with, ParseOptions};
//! use toolcall::prelude::*;
//!
//! let tools = ToolDef::from_tools_json(&serde_json::json!([{
//!     "name": "search_files",
//!     "description": "Search files under a folder.",
//!     "inputSchema": {"type": "object", "required": ["path", "pattern"], "properties": {
//!         "path": {"type": "string"},
//!         "pattern": {"type": "string"},
//!         "exclude": {"type": "array", "items": {"type": "string"}}
//!     }}
//! }]))
//! .unwrap();
//! let options = ParseOptions::new().with_schemas(Arc::new(toolcall::prompt::tool_schemas(&tools)));
//! let reply = "<tool><tool_name>search_files</tool_name><arguments><path>007</path>\
//!              <pattern>TODO</pattern><exclude>target</exclude></arguments></tool>";
//!
//! #[derive(Deserialize)]
//! struct SearchFiles { path: String, pattern: String, exclude: Vec<String> }
//!
//! let call = parse_with(reply, &options).into_calls().remove(0);
//! let args: SearchFiles = toolcall::args::from_value(Value::Object(call.arguments)).unwrap();
//! assert_eq!((args.path.as_str(), args.pattern.as_str()), ("007", "TODO"));
//! assert_eq!(args.exclude, ["target"]);
//!
//! // The same reply without the schema: inferred.
//! let blind = toolcall::parser::parse(reply).into_calls().remove(0);
//! assert_eq!(blind.arguments["path"], Value::Int(7));
//! assert_eq!(blind.arguments["exclude"], Value::from("target"));
//! ```
//!
//! # Where everything is
//!
//! Each module re-exports one crate of the workspace, behind a default-on Cargo feature of the
//! same name, so an application can depend on `toolcall` alone.
//!
//! | module | crate | what for | start with |
//! |---|---|---|---|
//! | [`parser`] | `toolcall-parser` | tool calls out of model prose, one-shot and streaming; repairs; errors with feedback | [`parse`](parser::parse), [`parse_with`](parser::parse_with), [`StreamParser`](parser::StreamParser), [`ParseOptions`](parser::ParseOptions) |
//! | [`args`] | `arg-types` | argument values, inference, schema coercion, serde decoding, the XML writer | [`Value`](args::Value), [`from_value`](args::from_value), [`decode`](args::decode()) |
//! | [`prompt`] | `toolcall-prompt` | the system-prompt text that teaches the format, examples from schemas, retry messages | [`system_prompt_section`](prompt::system_prompt_section), [`ToolDef`](prompt::ToolDef), [`retry_message`](prompt::retry_message) |
//! | [`thread`] | `thread-serializer` | an agent's history as one `<thread>` document for the model | [`serialize_thread_to_xml`](thread::serialize_thread_to_xml), [`AgentEvent`](thread::AgentEvent) |
//! | [`bridge`] | (this crate) | calls as MCP `tools/call` params and OpenAI-style native tool calls, tool lists both ways | [`bridge::mcp`], [`bridge::openai`] |
//! | [`fallback`] | `xml-fallback` | strict XML with the ampersand repair, the element tree, typed decoding of whole documents | [`parse_document`](fallback::parse_document), [`from_str_with_fallback`](fallback::from_str_with_fallback) |
//!
//! Besides its own `<tool>` format, the parser reads the formats some models write natively
//! ([`Dialect`](parser::Dialect): Qwen3-Coder, Seed-OSS, Hermes; set by
//! [`ParseOptions::with_dialect`](parser::ParseOptions::with_dialect)) and splits a reasoning
//! block off the answer ([`ParseOptions::with_reasoning`](parser::ParseOptions::with_reasoning)).
//!
//! [`prelude`] imports the names most programs need at once. The `agent_loop` example
//! (`cargo run -q -p toolcall --example agent_loop`) puts the pieces together into an agent: a
//! scripted model, real tools in a temporary directory, a malformed call corrected after its
//! feedback.

#![forbid(unsafe_code)]

// `doc(inline)`: each re-exported crate is documented here as a module, so that
// `cargo doc --no-deps -p toolcall` gives working links to all of it (a plain re-export of a
// crate that is not documented is an unlinked line).
/// Argument values: inference, schema coercion, serde decoding, the XML writer (the `arg-types`
/// crate).
///
#[cfg(feature = "args")]
#[doc(inline)]
pub use arg_types as args;
#[cfg(feature = "bridge")]
pub mod bridge;
/// An agent's history as one `<thread>` document for the model (the `thread-serializer` crate).
///
#[cfg(feature = "thread")]
#[doc(inline)]
pub use thread_serializer as thread;
/// Tool calls out of model prose, one-shot and streaming (the `toolcall-parser` crate).
///
#[cfg(feature = "parser")]
#[doc(inline)]
pub use toolcall_parser as parser;
/// The system-prompt text that teaches the format, and retry messages (the `toolcall-prompt`
/// crate).
///
#[cfg(feature = "prompt")]
#[doc(inline)]
pub use toolcall_prompt as prompt;
/// Strict XML with the ampersand repair, the element tree, typed decoding (the `xml-fallback`
/// crate).
///
#[cfg(feature = "fallback")]
#[doc(inline)]
pub use xml_fallback as fallback;

/// The guide (docs/GUIDE.md): parse, stream, type, serialize a thread, prompt, run the calls.
///
#[cfg(all(feature = "bridge", feature = "thread"))]
#[doc = include_str!("../../../docs/GUIDE.md")]
pub mod guide {}

/// The README's Rust example runs as a doc-test, so the front page cannot rot.
#[cfg(all(doctest, feature = "parser"))]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The names most programs need, in one import.
///
/// ```
/// use toolcall::prelude::*;
/// let mut parser = StreamParser::with_options(ParseOptions::default());
/// let mut events = parser.feed("<tool><tool_name>ls</tool_name></tool>");
/// events.extend(parser.finish());
/// assert!(matches!(&events[..], [StreamEvent::CallStarted { .. }, StreamEvent::ToolName { .. },
///     StreamEvent::CallFinished { result: Ok(_), .. }]));
/// ```
pub mod prelude {
    // `no_inline`: listed as re-exports that link to the items in their modules.
    #[cfg(feature = "args")]
    #[doc(no_inline)]
    pub use crate::args::{Map, Value};
    #[cfg(feature = "parser")]
    #[doc(no_inline)]
    pub use crate::parser::{ParseError, ParseOptions, StreamEvent, StreamParser, ToolCall};
    #[cfg(feature = "prompt")]
    #[doc(no_inline)]
    pub use crate::prompt::ToolDef;
    #[cfg(feature = "thread")]
    #[doc(no_inline)]
    pub use crate::thread::{AgentEvent, Role, SerializerOptions};
}
