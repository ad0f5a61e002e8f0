//! Valid XML is never modified; bare ampersands are repaired without touching anything else.
//!
//! Documents are generated from trees, written out, and parsed back: the result must be the
//! tree, with no repair (valid) or with exactly one repair per `&` written bare (repaired).

use proptest::prelude::*;
use xml_fallback::escape::Escaper;
use xml_fallback::reference::starts_valid_reference;
use xml_fallback::{Attribute, Element, Limits, Node, parse_document, parse_strict};

const NAMES: &[&str] = &["a", "b", "path", "edit", "x-y", "n_1", "é", "ns.v"];

fn text() -> impl Strategy<Value = String> {
    "[a-z &<>\"';#\\]\t\né😀]{1,12}"
}

fn cdata() -> impl Strategy<Value = String> {
    text().prop_map(|mut s| {
        while s.contains("]]>") {
            s = s.replace("]]>", "]]");
        }
        s
    })
}

fn attributes() -> impl Strategy<Value = Vec<Attribute>> {
    prop::collection::btree_map(prop::sample::select(NAMES), text(), 0..3).prop_map(|m| {
        m.into_iter()
            .map(|(name, value)| Attribute {
                name: name.to_owned(),
                value,
            })
            .collect()
    })
}

fn leaf_child() -> impl Strategy<Value = Node> {
    prop_oneof![text().prop_map(Node::Text), cdata().prop_map(Node::CData)]
}

fn element() -> impl Strategy<Value = Element> {
    let leaf = (
        prop::sample::select(NAMES),
        attributes(),
        prop::collection::vec(leaf_child(), 0..3),
    )
        .prop_map(|(name, attributes, children)| make(name, attributes, children));
    leaf.prop_recursive(4, 40, 5, |inner| {
        (
            prop::sample::select(NAMES),
            attributes(),
            prop::collection::vec(
                prop_oneof![leaf_child(), inner.prop_map(Node::Element)],
                0..5,
            ),
        )
            .prop_map(|(name, attributes, children)| make(name, attributes, children))
    })
}

/// An element as the parser gives it back: adjacent text nodes are one.
fn make(name: &str, attributes: Vec<Attribute>, children: Vec<Node>) -> Element {
    let mut e = Element::new(name);
    e.attributes = attributes;
    for child in children {
        match (e.children.last_mut(), child) {
            (Some(Node::Text(t)), Node::Text(more)) => t.push_str(&more),
            (_, child) => e.children.push(child),
        }
    }
    e
}

/// How text is written: escaped, or with `&` left bare wherever that is unambiguous.
#[derive(Clone, Copy)]
enum Amp {
    Escaped,
    Bare,
}

/// Writes `e`; returns how many `&` were written bare.
fn write(e: &Element, amp: Amp, comments: bool, out: &mut String) -> usize {
    let mut bare = 0;
    out.push('<');
    out.push_str(&e.name);
    for a in &e.attributes {
        out.push(' ');
        out.push_str(&a.name);
        out.push_str("=\"");
        bare += write_text(&a.value, Escaper::ATTRIBUTE, amp, out);
        out.push('"');
    }
    if e.children.is_empty() {
        out.push_str("/>");
        return bare;
    }
    out.push('>');
    for child in &e.children {
        if comments {
            out.push_str("<!-- & - x -->");
        }
        match child {
            Node::Element(c) => bare += write(c, amp, comments, out),
            Node::Text(t) => bare += write_text(t, Escaper::TEXT, amp, out),
            Node::CData(c) => {
                out.push_str("<![CDATA[");
                out.push_str(c);
                out.push_str("]]>");
            }
        }
    }
    out.push_str("</");
    out.push_str(&e.name);
    out.push('>');
    bare
}

fn write_text(s: &str, escaper: Escaper, amp: Amp, out: &mut String) -> usize {
    let mut bare = 0;
    for (i, c) in s.char_indices() {
        let mut buf = [0; 4];
        let c = c.encode_utf8(&mut buf);
        if c == "&" && matches!(amp, Amp::Bare) && !starts_valid_reference(&s[i..]) {
            out.push('&');
            bare += 1;
        } else {
            escaper.escape_into(c, out);
        }
    }
    bare
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn valid_documents_are_never_modified(
        tree in element(),
        comments in any::<bool>(),
        declaration in any::<bool>(),
    ) {
        let mut doc = String::new();
        if declaration {
            doc.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        }
        write(&tree, Amp::Escaped, comments, &mut doc);
        doc.push('\n');
        let parsed = parse_document(&doc).unwrap();
        prop_assert!(parsed.repairs.is_empty());
        prop_assert_eq!(&parsed.value, &parse_strict(&doc, &Limits::default()).unwrap());
        prop_assert_eq!(&parsed.value, &tree);
    }

    #[test]
    fn bare_ampersands_are_repaired_and_nothing_else_changes(
        tree in element(),
        comments in any::<bool>(),
    ) {
        let mut doc = String::new();
        let bare = write(&tree, Amp::Bare, comments, &mut doc);
        let parsed = parse_document(&doc).unwrap();
        prop_assert_eq!(&parsed.value, &tree);
        prop_assert_eq!(parsed.repairs.len(), bare);
        prop_assert_eq!(parse_strict(&doc, &Limits::default()).is_ok(), bare == 0);
        for r in &parsed.repairs {
            prop_assert_eq!(doc.as_bytes()[r.offset], b'&');
            prop_assert_eq!(r.position, xml_fallback::Position::at(&doc, r.offset));
        }
    }
}

#[test]
fn cdata_keeps_its_ampersands_when_the_rest_is_repaired() {
    let doc = "<a><p>x && y</p><c><![CDATA[if a && b { c &amp; d }]]></c></a>";
    let parsed = parse_document(doc).unwrap();
    assert_eq!(parsed.repairs.len(), 2);
    assert_eq!(
        parsed.value.child("c").unwrap().children,
        vec![Node::CData("if a && b { c &amp; d }".into())]
    );
}

#[test]
fn empty_cdata_is_kept() {
    let root = parse_document("<a><![CDATA[]]></a>").unwrap().value;
    assert_eq!(root.children, vec![Node::CData(String::new())]);
}
