//! Argument values for text tool calls: the typed heart of arguments, usable on its own.
//!
//! ```
//! use arg_types::Value;
//! assert_eq!(Value::String("a".into()).as_str(), Some("a"));
//! ```

#![forbid(unsafe_code)]

pub mod value;

pub use value::{Map, Value};
