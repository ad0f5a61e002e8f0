//! Typed decoding from the raw element tree, driven by the target type.
//!
//! This delegates to [`xml_fallback::de::from_element`], the workspace's one raw-tree
//! deserializer: a `String` field receives the exact text (`007`, not `7`), numbers and `bool`
//! are parsed from the trimmed text (`bool` takes `true`, `false`, `1`, `0`), `Vec` fields take
//! repeated siblings or unwrap a single wrapper (`<edits><edit>…</edit></edits>`), and `Option`
//! fields are `None` when the element is missing. No inference happens, so nothing has to be
//! undone.

use serde::de::DeserializeOwned;
use std::fmt;
use xml_fallback::tree::Element;

/// A typed-decoding failure: the path of the value that failed and what went wrong.
///
/// ```
/// #[derive(serde::Deserialize, Debug)]
/// struct Args { #[allow(dead_code)] line: u32 }
/// let args = xml_fallback::tree::Element::new("arguments");
/// let err = arg_types::decode::<Args>(&args).unwrap_err();
/// assert_eq!(err.to_string(), "missing field `line`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Field names joined by `.`, indices in brackets (`edits[1].line`); empty for the root.
    pub path: String,
    /// What went wrong, without the path.
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for DecodeError {}

impl From<xml_fallback::de::DeError> for DecodeError {
    fn from(e: xml_fallback::de::DeError) -> Self {
        DecodeError {
            path: e.path().to_owned(),
            message: e.message().to_owned(),
        }
    }
}

/// Decodes the content of `e` (an `<arguments>` element, say) into a `T`.
///
/// ```
/// use xml_fallback::tree::{Element, Node};
/// #[derive(serde::Deserialize)]
/// struct Args { code: String, count: u32 }
/// let mut args = Element::new("arguments");
/// args.children.push(Node::Element(Element::with_text("code", "007")));
/// args.children.push(Node::Element(Element::with_text("count", "007")));
/// let a: Args = arg_types::decode(&args).unwrap();
/// assert_eq!((a.code.as_str(), a.count), ("007", 7));
/// ```
pub fn decode<T: DeserializeOwned>(e: &Element) -> Result<T, DecodeError> {
    xml_fallback::de::from_element(e).map_err(DecodeError::from)
}
