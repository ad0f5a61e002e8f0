//! [`PromptError`]: tool definitions that cannot be read.

use std::fmt;

/// A list of tool definitions that is not of the MCP `tools/list` shape.
///
/// Every variant displays as one line that names the offending tool.
///
/// ```
/// use toolcall_prompt::{PromptError, ToolDef};
/// let err = ToolDef::from_tools_json(&serde_json::json!([{"description": "no name"}])).unwrap_err();
/// assert!(matches!(err, PromptError::InvalidTool { index: 0, .. }));
/// assert!(err.to_string().starts_with("tool 0: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PromptError {
    /// The JSON is neither an array of tools nor an object with a `"tools"` array.
    NotAToolList {
        /// The JSON type that was found instead (`object without "tools"`, `string`, …).
        found: String,
    },
    /// One tool definition is not of the MCP shape.
    InvalidTool {
        /// Its position in the list, from 0.
        index: usize,
        /// Its name, when it has a string one.
        name: Option<String>,
        /// What is wrong with it.
        reason: String,
    },
    /// Two tools in one list have the same name; a call could not say which one it means.
    DuplicateName {
        /// The name.
        name: String,
        /// Position of the first tool with the name.
        first: usize,
        /// Position of the second.
        second: usize,
    },
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PromptError::NotAToolList { found } => write!(
                f,
                "expected an array of tool definitions or {{\"tools\": [...]}}, found {found}"
            ),
            PromptError::InvalidTool {
                index,
                name: Some(name),
                reason,
            } => write!(f, "tool {index} ({name:?}): {reason}"),
            PromptError::InvalidTool {
                index,
                name: None,
                reason,
            } => write!(f, "tool {index}: {reason}"),
            PromptError::DuplicateName {
                name,
                first,
                second,
            } => write!(f, "tools {first} and {second} are both named {name:?}"),
        }
    }
}

impl std::error::Error for PromptError {}
