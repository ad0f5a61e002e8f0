//! [`BridgeError`]: JSON from another convention that cannot be read as calls or tools.

use std::fmt;
use toolcall_prompt::PromptError;

/// JSON that does not have the shape a bridge expects. Every variant displays as one line.
///
/// ```
/// use toolcall::bridge::{openai, BridgeError};
/// let native = openai::OpenAiToolCall::new("call_1", "read_file", "{\"path\": ");
/// let err = openai::from_openai(&native, &[]).unwrap_err();
/// assert!(matches!(err, BridgeError::InvalidArguments { .. }));
/// assert!(err.to_string().starts_with("the arguments of `read_file` are not JSON"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BridgeError {
    /// A native call's `arguments` string is not JSON.
    InvalidArguments {
        /// The function named by the call.
        tool_name: String,
        /// serde_json's message, with its line and column.
        message: String,
    },
    /// A native call's arguments are JSON, but not an object.
    ArgumentsNotAnObject {
        /// The function named by the call.
        tool_name: String,
        /// The JSON type found instead (`an array`, `a string`, …).
        found: &'static str,
    },
    /// A native call, a tool definition or a result of the wrong shape.
    Shape {
        /// What was expected and what was found.
        message: String,
    },
    /// A JSON-RPC response that carries an error instead of a result.
    Rpc {
        /// The JSON-RPC error code.
        code: i64,
        /// The error message.
        message: String,
    },
    /// A tool list whose definitions cannot be read.
    ToolList(PromptError),
}

impl BridgeError {
    pub(crate) fn shape(message: impl Into<String>) -> Self {
        BridgeError::Shape {
            message: message.into(),
        }
    }
}

impl fmt::Display for BridgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BridgeError::InvalidArguments { tool_name, message } => {
                write!(f, "the arguments of `{tool_name}` are not JSON: {message}")
            }
            BridgeError::ArgumentsNotAnObject { tool_name, found } => write!(
                f,
                "the arguments of `{tool_name}` must be a JSON object, found {found}"
            ),
            BridgeError::Shape { message } => f.write_str(message),
            BridgeError::Rpc { code, message } => {
                write!(f, "the server answered with error {code}: {message}")
            }
            BridgeError::ToolList(e) => write!(f, "the tool list cannot be read: {e}"),
        }
    }
}

impl std::error::Error for BridgeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BridgeError::ToolList(e) => Some(e),
            _ => None,
        }
    }
}

impl From<PromptError> for BridgeError {
    fn from(e: PromptError) -> Self {
        BridgeError::ToolList(e)
    }
}
