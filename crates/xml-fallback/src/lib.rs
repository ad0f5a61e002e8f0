//! Strict XML for text written by language models, with the ampersand repair of ADR-0024.
//!
//! Models write `a && b` and `?x=1&y=2` inside XML far more often than they write broken XML of
//! any other kind. This crate parses strictly first and, only when that fails, escapes the bare
//! ampersands and tries once more, reporting which repairs it made and, when even the retry fails,
//! the *first* error at its position in the original text.
//!
//! It also holds what the rest of the workspace shares about XML: the one definition of a valid
//! reference ([`reference`]), the one escaping routine ([`escape`]), the element tree
//! ([`tree`]) and positions ([`position`]).
//!
//! ```
//! use xml_fallback::reference::starts_valid_reference;
//! use xml_fallback::escape::escape_text;
//!
//! assert!(starts_valid_reference("&amp; b"));
//! assert!(!starts_valid_reference("&& b"));
//! assert_eq!(escape_text("a && b"), "a &amp;&amp; b");
//! ```

#![forbid(unsafe_code)]

pub mod escape;
pub mod position;
pub mod reference;
pub mod text;
pub mod tree;

pub use position::Position;
pub use tree::{Attribute, Element, Node};
