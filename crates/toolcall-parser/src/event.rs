//! [`StreamEvent`]: what the streaming parser reports, as soon as it is certain.

use crate::call::ToolCall;
use crate::error::ParseError;
use serde::Serialize;

/// One event of the streaming parser. Concatenating the [`StreamEvent::Prose`] texts gives the
/// prose of the input; each call ends with exactly one [`StreamEvent::CallFinished`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum StreamEvent {
    /// Prose text, held back only while its last bytes could still begin `<tool>`.
    Prose {
        /// The text, verbatim.
        text: String,
    },
    /// A call began (`<tool>` followed by an element or a JSON object).
    CallStarted {
        /// The call's index among the calls of this input, from 0.
        index: usize,
    },
    /// The call's `<tool_name>` is complete.
    ToolName {
        /// The call's index.
        index: usize,
        /// The tool's name.
        tool_name: String,
    },
    /// More text of a top-level argument, as decoded so far (before the value-text rule trims
    /// its blank first and last lines), so a UI can show a file being written.
    ArgumentDelta {
        /// The call's index.
        index: usize,
        /// The argument's name.
        argument: String,
        /// The new text.
        text: String,
    },
    /// The call ended, well-formed or not.
    CallFinished {
        /// The call's index.
        index: usize,
        /// The call, or why it could not be read.
        result: Result<ToolCall, ParseError>,
    },
    /// An error outside any call (a limit on the whole input).
    Error {
        /// The error.
        error: ParseError,
    },
}
