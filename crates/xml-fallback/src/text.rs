//! The value-text rules: how an element's text becomes an argument value.
//!
//! One definition, used by typed decoding here, by `arg-types` and by the tool-call parser:
//!
//! - CDATA is kept as written; whitespace-only text before the first and after the last CDATA
//!   section is layout and is dropped (`<content>\n<![CDATA[x]]>\n</content>` is `x`).
//! - Text without CDATA on one line is trimmed.
//! - Text over several lines loses its first line if that line is blank and its last line if
//!   that line is blank: the newline after `<content>` and the indentation before `</content>`.
//!   The indentation of the first real line is kept, which a plain trim would destroy.
//!
//! "Blank" and "trim" use XML's whitespace (space, tab, LF, CR), not Unicode's.

use crate::tree::{Element, Node};
use std::borrow::Cow;

/// Whether `c` is XML whitespace.
#[inline]
pub const fn is_xml_whitespace(c: char) -> bool {
    c.is_ascii() && is_xml_whitespace_byte(c as u8)
}

/// Whether the byte `b` is XML whitespace (space, tab, line feed, carriage return): the one
/// definition every scan of blanks between markup uses.
///
/// ```
/// use xml_fallback::text::is_xml_whitespace_byte;
/// assert!(is_xml_whitespace_byte(b'\r') && !is_xml_whitespace_byte(0x0c));
/// ```
#[inline]
pub const fn is_xml_whitespace_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `s` is empty or only XML whitespace.
pub fn is_blank(s: &str) -> bool {
    s.bytes().all(is_xml_whitespace_byte)
}

/// `s` without leading and trailing XML whitespace.
pub fn trim_xml(s: &str) -> &str {
    s.trim_matches(is_xml_whitespace)
}

/// Applies the text rule to text that holds no CDATA.
///
/// ```
/// use xml_fallback::text::text_value;
/// assert_eq!(text_value("  src/main.rs  "), "src/main.rs");
/// assert_eq!(text_value("\n    fn main() {}\n  "), "    fn main() {}");
/// assert_eq!(text_value("\n  a\n\n  b\n"), "  a\n\n  b");
/// ```
pub fn text_value(s: &str) -> &str {
    let Some(first_nl) = s.find('\n') else {
        return trim_xml(s);
    };
    let mut start = 0;
    if is_blank(&s[..first_nl]) {
        start = first_nl + 1;
    }
    let mut end = s.len();
    if let Some(last_nl) = s.rfind('\n')
        && last_nl + 1 >= start
        && is_blank(&s[last_nl + 1..])
    {
        end = last_nl.max(start);
    }
    &s[start..end]
}

/// The value text of a leaf element (its child elements, if any, are skipped).
///
/// ```
/// use xml_fallback::tree::{Element, Node};
/// use xml_fallback::text::element_value;
/// let mut e = Element::new("content");
/// e.children = vec![Node::Text("\n  ".into()), Node::CData("  code\n".into()), Node::Text("\n".into())];
/// assert_eq!(element_value(&e), "  code\n");
/// ```
pub fn element_value(e: &Element) -> Cow<'_, str> {
    // A leaf of one text node or one CDATA section (almost every argument): its value, borrowed,
    // as the general reading below gives it.
    match e.children.as_slice() {
        [] => Cow::Borrowed(""),
        [Node::Text(t)] => Cow::Borrowed(text_value(t)),
        [Node::CData(c)] => Cow::Borrowed(c),
        _ => pieces_value(e),
    }
}

/// [`element_value`] of any children: the text and CDATA pieces joined by the value-text rule.
fn pieces_value(e: &Element) -> Cow<'_, str> {
    let pieces: Vec<&Node> = e
        .children
        .iter()
        .filter(|n| !matches!(n, Node::Element(_)))
        .collect();
    let has_cdata = pieces.iter().any(|n| matches!(n, Node::CData(_)));
    if !has_cdata {
        return match pieces.as_slice() {
            [] => Cow::Borrowed(""),
            [Node::Text(t)] => Cow::Borrowed(text_value(t)),
            _ => {
                let joined: String = pieces.iter().map(|n| piece(n)).collect();
                Cow::Owned(text_value(&joined).to_owned())
            }
        };
    }
    let first = pieces
        .iter()
        .position(|n| matches!(n, Node::CData(_)))
        .unwrap_or(0);
    let last = pieces
        .iter()
        .rposition(|n| matches!(n, Node::CData(_)))
        .unwrap_or(0);
    let keep =
        |i: usize, n: &Node| !matches!(n, Node::Text(t) if (i < first || i > last) && is_blank(t));
    let kept: Vec<&str> = pieces
        .iter()
        .enumerate()
        .filter(|(i, n)| keep(*i, n))
        .map(|(_, n)| piece(n))
        .collect();
    match kept.as_slice() {
        [one] => Cow::Borrowed(one),
        many => Cow::Owned(many.concat()),
    }
}

fn piece(n: &Node) -> &str {
    match n {
        Node::Text(t) | Node::CData(t) => t,
        Node::Element(_) => "",
    }
}

/// Whether `e` is an *empty element*, one that carries no value: no attributes, no child
/// elements, no CDATA, and text that is empty or XML whitespace only (docs/FORMAT.md §2).
///
/// The workspace's one definition: typed decoding reads an empty element as an empty list, a
/// unit or a unit variant ([`crate::de`]), and schema coercion (`arg-types`) as `[]`, `{}` or
/// `null`. An attribute is data (typed decoding reads it), so an element with one is never taken
/// for "nothing", even where attributes are not read; CDATA, even empty, is a string written
/// on purpose.
///
/// ```
/// use xml_fallback::text::is_empty_element;
/// use xml_fallback::tree::{Attribute, Element, Node};
/// assert!(is_empty_element(&Element::new("tags")));
/// assert!(is_empty_element(&Element::with_text("tags", "\n  \t")));
/// assert!(!is_empty_element(&Element::with_text("tags", "x")));
/// let mut cdata = Element::new("tags");
/// cdata.children.push(Node::CData(String::new()));
/// assert!(!is_empty_element(&cdata));
/// let mut attributed = Element::new("tag");
/// attributed.attributes.push(Attribute { name: "kind".into(), value: "x".into() });
/// assert!(!is_empty_element(&attributed));
/// ```
pub fn is_empty_element(e: &Element) -> bool {
    e.attributes.is_empty()
        && e.children.iter().all(|n| match n {
            Node::Text(t) => is_blank(t),
            Node::Element(_) | Node::CData(_) => false,
        })
}

/// The items of an array argument, given the sibling elements that carry its name.
///
/// Several siblings of one name are the items, in order (`<exclude>a</exclude><exclude>b</exclude>`).
/// A single element whose child elements all share one name, with no text of its own, is a
/// wrapper and its children are the items (`<edits><edit>…</edit><edit>…</edit></edits>`).
/// Any other single element is a one-item array.
///
/// ```
/// use xml_fallback::tree::{Element, Node};
/// use xml_fallback::text::array_items;
/// let mut edits = Element::new("edits");
/// for _ in 0..2 { edits.children.push(Node::Element(Element::with_text("edit", "x"))); }
/// assert_eq!(array_items(&[&edits]).len(), 2);
/// let one = Element::with_text("exclude", "dist");
/// assert_eq!(array_items(&[&one]).len(), 1);
/// ```
pub fn array_items<'a>(siblings: &[&'a Element]) -> Vec<&'a Element> {
    if let [single] = siblings
        && is_wrapper(single)
    {
        return single.child_elements().collect();
    }
    siblings.to_vec()
}

/// Whether `e` only wraps child elements that all share one name.
pub fn is_wrapper(e: &Element) -> bool {
    let mut names = e.child_elements().map(|c| c.name.as_str());
    let Some(first) = names.next() else {
        return false;
    };
    names.all(|n| n == first)
        && e.children.iter().all(|n| match n {
            Node::Element(_) => true,
            Node::Text(t) => is_blank(t),
            Node::CData(_) => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_node() -> impl Strategy<Value = Node> {
        let text = "[ \nab]{0,4}";
        prop_oneof![
            text.prop_map(Node::Text),
            text.prop_map(Node::CData),
            Just(Node::Element(Element::with_text("x", "1"))),
        ]
    }

    proptest! {
        /// The one-piece shortcuts of `element_value` read as the general reading does.
        #[test]
        fn element_values_are_the_pieces_value(children in prop::collection::vec(arb_node(), 0..4)) {
            let mut e = Element::new("a");
            e.children = children;
            prop_assert_eq!(element_value(&e), pieces_value(&e));
        }
    }

    #[test]
    fn single_line_is_trimmed_with_xml_whitespace_only() {
        assert_eq!(text_value(" \t x y \t "), "x y");
        assert_eq!(text_value("\u{a0}x\u{a0}"), "\u{a0}x\u{a0}");
    }

    #[test]
    fn multi_line_keeps_first_line_indentation() {
        assert_eq!(text_value("\n    a\n      b\n  "), "    a\n      b");
        assert_eq!(text_value("a\n  b"), "a\n  b");
        assert_eq!(text_value("  a  \n  b  "), "  a  \n  b  ");
        assert_eq!(text_value("\n\n"), "");
        assert_eq!(text_value("\n"), "");
        assert_eq!(text_value(" \n x \n "), " x ");
    }

    #[test]
    fn cdata_is_kept_and_layout_text_dropped() {
        let mut e = Element::new("c");
        e.children = vec![
            Node::Text(" x ".into()),
            Node::CData("]]".into()),
            Node::CData(">".into()),
        ];
        assert_eq!(element_value(&e), " x ]]>");
    }

    #[test]
    fn wrapper_needs_one_child_name_and_no_text() {
        let mut mixed = Element::new("edits");
        mixed.children = vec![
            Node::Element(Element::new("a")),
            Node::Element(Element::new("b")),
        ];
        assert!(!is_wrapper(&mixed));
        let mut texty = Element::new("edits");
        texty.children = vec![Node::Text("x".into()), Node::Element(Element::new("a"))];
        assert!(!is_wrapper(&texty));
        assert_eq!(array_items(&[&mixed, &texty]).len(), 2);
    }
}
