//! The prompt side of text tool calling: what the model is told, examples generated from tool
//! schemas, and the message sent back when a call cannot be read (docs/FORMAT.md §3, §7).
//!
//! - [`format_instructions`]: the system-prompt section that teaches the `<tool>` format.
//! - [`describe_tools`]: each tool's description, parameters and an example call generated from
//!   its schema ([`example_arguments`]).
//! - [`system_prompt_section`]: both together.
//! - [`retry_message`]: what to send back after parse errors, built on each error's
//!   [`toolcall_parser::ParseError::feedback`].
//! - [`ToolDef`]: toolcall-parser's tool definition, re-exported; [`ToolDef::from_tools_json`]
//!   reads the MCP and OpenAI shapes of a tools JSON, the same reading as the parser's
//!   [`ToolSchemas`](toolcall_parser::ToolSchemas).
//!
//! ```
//! use toolcall_prompt::{system_prompt_section, ToolDef};
//! let tools = ToolDef::from_tools_json(&serde_json::json!([{
//!     "name": "read_file",
//!     "description": "Read a file.",
//!     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
//! }])).unwrap();
//! let prompt = system_prompt_section(&tools);
//! assert!(prompt.contains("&amp;"));
//! assert!(prompt.contains("- path (string, required)"));
//! assert!(prompt.contains("<tool_name>read_file</tool_name>"));
//! ```

#![forbid(unsafe_code)]

mod describe;
mod example;
mod instructions;
mod prompt;
mod retry;
mod tool_def;

pub use describe::{describe_tool, describe_tools, example_call};
pub use example::{example_arguments, example_value};
pub use instructions::format_instructions;
pub use prompt::system_prompt_section;
pub use retry::{no_tool_call_message, retry_message};
pub use tool_def::{assign_server, tool_schemas};
// The tool definitions are toolcall-parser's, so that one reading of a tools JSON serves the
// prompt and the parser; re-exported under the names this crate always had.
pub use toolcall_parser::{DEFAULT_SERVER_NAME, SchemaError as PromptError, ToolDef};
