//! Tool calls out of model prose.
//!
//! ```
//! assert_eq!(toolcall_parser::TOOL_TAG, "tool");
//! ```

#![forbid(unsafe_code)]

/// The element that wraps one call.
pub const TOOL_TAG: &str = "tool";
