//! The small element tree that every parser in the workspace produces.
//!
//! Text and CDATA stay apart ([`Node::Text`], [`Node::CData`]) because they mean different things
//! to argument typing: CDATA is always a string, text is inferred. Text is stored decoded (entities
//! resolved, line ends normalized to LF), CDATA byte for byte apart from line ends.

use std::ops::Range;

/// An XML element: name, attributes, children in document order.
///
/// ```
/// use xml_fallback::tree::{Element, Node};
/// let mut edit = Element::new("edit");
/// edit.children.push(Node::Element(Element::with_text("search", "old")));
/// assert_eq!(edit.child_elements().next().unwrap().text(), "old");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Element {
    /// The tag name, as written (namespace prefixes included).
    pub name: String,
    /// Attributes in document order, values decoded.
    pub attributes: Vec<Attribute>,
    /// Child nodes in document order.
    pub children: Vec<Node>,
    /// Byte range of the element's content (after the start tag's `>`, before the end tag's
    /// `<`) in the source it was parsed from, when the parser knows it. Lets a consumer recover
    /// the inner markup verbatim (a string-typed argument holding HTML, say).
    pub content_span: Option<Range<usize>>,
}

/// One attribute of an [`Element`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    /// The attribute name, as written.
    pub name: String,
    /// The decoded value.
    pub value: String,
}

/// A child of an [`Element`].
///
/// Exhaustive by design (not `#[non_exhaustive]`): these are the kinds of content the tree
/// keeps (comments and processing instructions are dropped), and a reader of the tree must
/// handle each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A child element.
    Element(Element),
    /// Character data with references decoded.
    Text(String),
    /// The content of one CDATA section.
    CData(String),
}

impl Element {
    /// An element with no attributes and no children.
    pub fn new(name: impl Into<String>) -> Self {
        Element {
            name: name.into(),
            ..Element::default()
        }
    }

    /// An element holding one text node.
    pub fn with_text(name: impl Into<String>, text: impl Into<String>) -> Self {
        let mut e = Element::new(name);
        e.children.push(Node::Text(text.into()));
        e
    }

    /// The child elements, in order, skipping text and CDATA.
    pub fn child_elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|n| match n {
            Node::Element(e) => Some(e),
            _ => None,
        })
    }

    /// Whether any child is an element (the element is not a leaf).
    pub fn has_child_elements(&self) -> bool {
        self.children.iter().any(|n| matches!(n, Node::Element(_)))
    }

    /// Whether any child is a CDATA section.
    pub fn has_cdata(&self) -> bool {
        self.children.iter().any(|n| matches!(n, Node::CData(_)))
    }

    /// The first child element with this name.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.child_elements().find(|e| e.name == name)
    }

    /// The value of the attribute with this name.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_str())
    }

    /// The text and CDATA of the direct children, concatenated (child elements skipped).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for n in &self.children {
            if let Node::Text(t) | Node::CData(t) = n {
                out.push_str(t);
            }
        }
        out
    }
}
