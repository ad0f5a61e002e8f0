//! The prompt side of text tool calling: format instructions, tool descriptions, retry messages.
//!
//! ```
//! assert_eq!(toolcall_prompt::DEFAULT_SERVER_NAME, "local");
//! ```

#![forbid(unsafe_code)]

/// The server name used when a tool definition names none (ADR-0002's `local`).
pub const DEFAULT_SERVER_NAME: &str = "local";
