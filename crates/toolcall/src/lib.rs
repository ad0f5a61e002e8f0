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
//!
//! ```
//! use toolcall::prelude::*;
//! assert_eq!(toolcall::fallback::escape::escape_text("a && b"), "a &amp;&amp; b");
//! ```

#![forbid(unsafe_code)]

#[cfg(feature = "args")]
pub use arg_types as args;
#[cfg(feature = "thread")]
pub use thread_serializer as thread;
#[cfg(feature = "parser")]
pub use toolcall_parser as parser;
#[cfg(feature = "prompt")]
pub use toolcall_prompt as prompt;
#[cfg(feature = "fallback")]
pub use xml_fallback as fallback;

/// The names most programs need, in one import.
pub mod prelude {
    #[cfg(feature = "args")]
    pub use arg_types::{Map, Value};
}
