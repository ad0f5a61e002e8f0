//! Tool calls out of model prose, correctly, fast, and with useful errors.
//!
//! Models write calls inside ordinary text:
//!
//! ```
//! let reply = "I'll create the file.\n\
//! <tool>\n<server_name>local</server_name>\n<tool_name>write_to_file</tool_name>\n\
//! <arguments>\n  <path>src/main.rs</path>\n  <content>if a &amp;&amp; b { go() }</content>\n</arguments>\n</tool>";
//! let result = toolcall_parser::parse(reply);
//! let call = &result.calls()[0];
//! assert_eq!(call.tool_name, "write_to_file");
//! assert_eq!(call.arguments["content"].as_str(), Some("if a && b { go() }"));
//! assert_eq!(result.prose(), "I'll create the file.\n");
//! ```
//!
//! One parser does all the work: [`StreamParser`] reads chunks as they arrive; [`parse`] is that
//! parser given the whole text as its one and final chunk, so one-shot and streaming results
//! cannot disagree (and properties and a fuzz target check that they do not). It is built in layers:
//! the [`lexer`](crate) knows XML's lexical forms, the `<tool>` grammar knows the format (docs/
//! FORMAT.md), `xml-fallback` holds the shared XML rules and `arg-types` types the arguments.

#![forbid(unsafe_code)]

mod assemble;
mod call;
mod dialect;
mod error;
mod event;
mod fence;
mod json_scan;
mod lexer;
mod locate;
mod names;
mod options;
mod output;
mod reasoning;
mod recycle;
mod schema;
mod stream;
use xml_fallback::swar;
mod work;
mod write;

/// The argument values and their map, from `arg-types`, so that this crate is enough to read
/// calls.
pub use arg_types::{Map, Value};
pub use call::{ArgumentEncoding, Encoding, MAX_REPAIR_POSITIONS, Repair, RepairKind, ToolCall};
pub use dialect::{Dialect, UnknownDialect};
pub use error::{Cause, ErrorKind, Limit, ParseError};
pub use event::StreamEvent;
pub use names::{MAX_NAME_BYTES, is_valid_name};
pub use options::{Limits, ParseOptions};
pub use output::{ParseResult, Segment};
pub use reasoning::{CallsInReasoning, Reasoning};
pub use schema::{SchemaError, ToolSchemas};
pub use stream::{StreamParser, chunks};
#[cfg(feature = "work-counter")]
pub use work::work_units;

/// The element that wraps one call.
pub const TOOL_TAG: &str = "tool";

// The one tool definition type, read from any tools JSON; toolcall-prompt re-exports it.
pub use schema::{DEFAULT_SERVER_NAME, ToolDef};

/// Parses a whole response with default options.
pub fn parse(text: &str) -> ParseResult {
    parse_with(text, &ParseOptions::default())
}

/// Parses a whole response: the streaming parser given the text as its one and final chunk.
pub fn parse_with(text: &str, options: &ParseOptions) -> ParseResult {
    ParseResult::from_events(StreamParser::parse_final(options.clone(), text))
}
