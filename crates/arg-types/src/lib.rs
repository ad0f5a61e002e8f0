//! Argument values for text tool calls: the typed heart of arguments, usable on its own.
//!
//! - [`Value`] and [`Map`]: argument values, with JSON conversions, serde, and [`from_value`];
//!   indexing a [`Map`] or [`Value`] by a missing name gives [`Value::Null`], no panic ([`map`]).
//! - [`infer`]: blind type inference (docs/FORMAT.md §5.2) for scalar text.
//! - [`tree`]: blind conversion of an element tree ([`tree::arguments_from_element`]).
//! - [`schema`]: reading the raw tree through a tool's JSON Schema
//!   ([`schema::coerce_arguments`]), so that `007` stays a string when the schema says so.
//! - [`decode()`]: typed decoding of the raw tree, driven by the target type.
//! - [`write`](mod@write): the writer, values back to argument elements.
//! - [`raw`]: raw-text arguments (the Qwen3-Coder family's `<parameter=name>`) typed by their
//!   schema ([`raw::type_raw`], [`raw::type_raw_arguments`]), and nested elements whose leaves
//!   are raw text (MiniMax-M3, [`raw::type_raw_tree`]); [`literal`]: the JSON and Python
//!   literal readers they use; [`number`]: exact numbers ([`BigInt`], exact decimal comparison).
//!
//! ```
//! use arg_types::{tree::arguments_from_element, write::write_arguments, Map, Value};
//! let mut args = Map::new();
//! args.insert("path".into(), "src/main.rs".into());
//! args.insert("line".into(), Value::Int(3));
//! let mut xml = String::from("<arguments>\n");
//! write_arguments(&args, &mut xml).unwrap();
//! xml.push_str("</arguments>");
//! let parsed = xml_fallback::parse_document(&xml).unwrap();
//! assert_eq!(arguments_from_element(&parsed.value), args);
//! ```

#![forbid(unsafe_code)]

pub mod de;
pub mod decode;
pub mod infer;
pub mod json_schema;
pub mod literal;
pub mod map;
pub mod number;
pub mod raw;
pub mod schema;
pub mod tree;
pub mod value;
pub mod write;

pub use de::from_value;
pub use decode::{DecodeError, decode};
pub use infer::infer_scalar;
pub use map::Map;
pub use schema::{CoerceError, coerce_arguments, coerce_element};
pub use tree::{arguments_from_element, value_from_element};
pub use value::{BigInt, Value};
pub use write::{WriteError, write_arguments, write_value};
