//! Provider-agnostic tool calling through plain-text XML.
//!
//! This facade re-exports the workspace's crates, each behind a default-on feature, so an
//! application can depend on `toolcall` alone:
//!
//! | module | crate | what for |
//! |---|---|---|
//! | [`fallback`] | `xml-fallback` | strict XML with the ampersand repair, the element tree |
//! | [`args`] | `arg-types` | argument values, type inference, schema coercion |
//! | [`parser`] | `toolcall-parser` | tool calls out of model prose, one-shot and streaming |
//! | [`thread`] | `thread-serializer` | agent events as a `<thread>` document |
//! | [`prompt`] | `toolcall-prompt` | the prompt that teaches the format |
//! | [`bridge`] | (this crate) | calls as MCP `tools/call` params and OpenAI-style tool calls, tool lists |
//!
//! [`guide`] walks through all of it, from parsing one reply to building a prompt; the
//! `agent_loop` example (`cargo run -q -p toolcall --example agent_loop`) puts the pieces
//! together into an agent.
//!
//! ```
//! use toolcall::prelude::*;
//! assert_eq!(toolcall::fallback::escape::escape_text("a && b"), "a &amp;&amp; b");
//! ```

#![forbid(unsafe_code)]

#[cfg(feature = "args")]
pub use arg_types as args;
#[cfg(feature = "bridge")]
pub mod bridge;
#[cfg(feature = "thread")]
pub use thread_serializer as thread;
#[cfg(feature = "parser")]
pub use toolcall_parser as parser;
#[cfg(feature = "prompt")]
pub use toolcall_prompt as prompt;
#[cfg(feature = "fallback")]
pub use xml_fallback as fallback;

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
    #[cfg(feature = "args")]
    pub use arg_types::{Map, Value};
    #[cfg(feature = "thread")]
    pub use thread_serializer::{AgentEvent, Role, SerializerOptions};
    #[cfg(feature = "parser")]
    pub use toolcall_parser::{ParseError, ParseOptions, StreamEvent, StreamParser, ToolCall};
    #[cfg(feature = "prompt")]
    pub use toolcall_prompt::ToolDef;
}
