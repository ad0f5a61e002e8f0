//! Strict XML for text written by language models, with the ampersand repair (docs/FORMAT.md §4).
//!
//! Models write `a && b` and `?x=1&y=2` inside XML far more often than they write broken XML of
//! any other kind. This crate parses strictly first and, only when that fails, escapes the bare
//! ampersands and tries once more, reporting which repairs it made and, when even the retry fails,
//! the *first* error at its position in the original text.
//!
//! - [`escape_unescaped_ampersands`]: the repair itself, a one-pass `memchr` scan.
//! - [`parse_document`] / [`parse_document_with`]: strict parse into an [`Element`] tree, with the
//!   repair as fallback; [`Parsed`] lists the [`Repair`]s. [`parse_strict`] is the parse alone.
//! - [`from_str_with_fallback`]: typed decoding of a whole document through serde, with the same
//!   fallback; [`from_element`] decodes any element of a tree ([`de`] has the rules).
//! - DOCTYPE declarations are refused and input size and nesting depth are bounded ([`Limits`]).
//! - [`reader_config`] and [`StrictReader`]: the workspace's one configuration of the xml-rs
//!   reader, with the DOCTYPE refusal, for every crate that reads XML with xml-rs.
//!
//! It also holds what the rest of the workspace shares about XML: the one definition of a valid
//! reference ([`reference`](mod@reference)), the one escaping routine ([`escape`]), the
//! value-text rules ([`text`]), the element tree ([`tree`]), positions ([`position`]), the
//! word-at-a-time byte finder ([`swar`]) and the index of names by position ([`name_index`]).
//!
//! ```
//! use xml_fallback::reference::starts_valid_reference;
//! use xml_fallback::escape::escape_text;
//!
//! assert!(starts_valid_reference("&amp; b"));
//! assert!(!starts_valid_reference("&& b"));
//! assert_eq!(escape_text("a && b"), "a &amp;&amp; b");
//!
//! #[derive(serde::Deserialize)]
//! struct Args { pattern: String }
//! let args: Args = xml_fallback::from_str_with_fallback(
//!     "<arguments><pattern>a && b</pattern></arguments>").unwrap();
//! assert_eq!(args.pattern, "a && b");
//! ```

#![forbid(unsafe_code)]

pub mod ampersand;
pub mod de;
pub mod error;
pub mod escape;
mod fallback;
pub mod limits;
pub mod name_index;
pub mod position;
pub mod reference;
pub mod repair;
mod strict;
pub mod swar;
pub mod text;
pub mod tree;

pub use ampersand::escape_unescaped_ampersands;
pub use de::{DeError, from_element};
pub use error::{Error, XmlError, XmlErrorKind};
pub use fallback::{
    from_str_with_fallback, from_str_with_repairs, parse_document, parse_document_with,
};
pub use limits::Limits;
pub use position::Position;
pub use repair::{Parsed, Repair, RepairKind};
pub use strict::{StrictReader, parse_strict, reader_config};
pub use tree::{Attribute, Element, Node};
