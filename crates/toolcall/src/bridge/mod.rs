//! Bridges from parsed calls to the tool-calling conventions programs already run.
//!
//! A [`ToolCall`] read from a model's text is the same call whichever way it reached you, so
//! the tools behind it need not change when the transport does:
//!
//! - [`mcp`]: a call as the params of an MCP `tools/call` request, calls grouped by
//!   `server_name` (one MCP server each), an MCP `tools/list` result as the [`ToolDef`]s that
//!   build the prompt, and a `tools/call` result as text for the thread.
//! - [`openai`]: a call as an OpenAI-style native tool call
//!   (`{"id", "type": "function", "function": {"name", "arguments": "<json>"}}`) and back, and
//!   tool definitions both ways, so one program can switch between native function calling and
//!   XML text calling.
//!
//! Everything here is a pure function over `serde_json` values; nothing is sent anywhere.
//!
//! ```
//! use toolcall::bridge::{mcp, openai};
//! let reply = "<tool><server_name>files</server_name><tool_name>read_file</tool_name>\
//!              <arguments><path>a.txt</path></arguments></tool>";
//! let call = &toolcall::parser::parse(reply).calls()[0].clone();
//!
//! let params = serde_json::to_value(mcp::call_params(call)).unwrap();
//! assert_eq!(params, serde_json::json!({"name": "read_file", "arguments": {"path": "a.txt"}}));
//!
//! let native = openai::to_openai(call, "call_1");
//! assert_eq!(native.function.arguments, r#"{"path":"a.txt"}"#);
//! ```
//!
//! [`ToolDef`]: crate::prompt::ToolDef

mod deltas;
mod error;
pub mod mcp;
pub mod openai;

pub use error::BridgeError;

use arg_types::{Map, Value};
use serde_json::Value as Json;
use toolcall_parser::{ArgumentEncoding, Encoding, ToolCall};

/// A call's arguments as a JSON object, in argument order. Values convert as
/// `serde_json::Value::from` does: non-finite floats become the strings `"NaN"`, `"+Inf"`,
/// `"-Inf"` (docs/FORMAT.md §5.1).
///
/// ```
/// use toolcall::prelude::*;
/// let mut args = Map::new();
/// args.insert("path".into(), "a.txt".into());
/// args.insert("line".into(), Value::Int(3));
/// let json = toolcall::bridge::arguments_to_json(&args);
/// assert_eq!(serde_json::Value::Object(json), serde_json::json!({"path": "a.txt", "line": 3}));
/// ```
pub fn arguments_to_json(arguments: &Map) -> serde_json::Map<String, Json> {
    arguments
        .iter()
        .map(|(name, value)| (name.clone(), Json::from(value)))
        .collect()
}

/// A JSON object as call arguments, in member order (integers that fit `i64` become
/// [`Value::Int`], other numbers [`Value::Float`]).
///
/// ```
/// let args = toolcall::bridge::arguments_from_json(
///     serde_json::json!({"path": "a.txt", "line": 3}).as_object().unwrap().clone(),
/// );
/// assert_eq!(args["line"].as_i64(), Some(3));
/// ```
pub fn arguments_from_json(object: serde_json::Map<String, Json>) -> Map {
    object
        .into_iter()
        .map(|(name, value)| (name, Value::from(value)))
        .collect()
}

/// A [`ToolCall`] that came as JSON rather than as text: no repairs, every argument's
/// encoding [`Encoding::Json`], not the legacy text form, and an empty span (it has no place in
/// any text). An empty `server_name` becomes `local`, as in the parser.
///
/// ```
/// use toolcall::prelude::*;
/// let call = toolcall::bridge::call_from_parts("", "list_files", Map::new());
/// assert_eq!((call.server_name.as_str(), call.tool_name.as_str()), ("local", "list_files"));
/// assert!(call.repairs.is_empty() && call.span.is_empty());
/// ```
pub fn call_from_parts(
    server_name: impl Into<String>,
    tool_name: impl Into<String>,
    arguments: Map,
) -> ToolCall {
    let encodings = arguments
        .keys()
        .map(|name| ArgumentEncoding::new(name.clone(), Encoding::Json))
        .collect();
    let mut call = ToolCall::new(server_name, tool_name, arguments);
    call.encodings = encodings;
    call
}

/// The JSON type of a value, for error messages.
fn json_type(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}
