//! Inputs that the fuzz targets in `fuzz/` found failing, each pinned with what it broke.

use arg_types::tree::inner_markup;
use xml_fallback::tree::{Element, Node};
use xml_fallback::{Limits, parse_strict};

/// Rebuilds the inner markup of the root of `doc` from its tree (no source), parses that markup
/// again and rebuilds it once more.
fn rebuilt_twice(doc: &str) -> (String, String) {
    let e = parse_strict(doc, &Limits::default()).unwrap();
    let once = inner_markup(&e, None);
    let again = parse_strict(&format!("<x>{once}</x>"), &Limits::default()).unwrap();
    (once.clone(), inner_markup(&again, None))
}

/// `differential_xml_rs`: mixed content rebuilt from a tree wrote a carriage return (from
/// `&#13;`) raw, so reading the markup again gave a line feed, and a leading one was trimmed
/// away as layout. It is written `&#13;` now, in text and between CDATA sections.
#[test]
fn rebuilt_markup_keeps_carriage_returns() {
    let (once, again) = rebuilt_twice("<a>&#13;&gt;true&#13;<b x=\"1\"/>\t]]=42</a>");
    assert_eq!(once, "&#13;&gt;true&#13;<b x=\"1\"/>\t]]=42");
    assert_eq!(again, once);
    let e = parse_strict(&format!("<x>{once}</x>"), &Limits::default()).unwrap();
    assert!(e.text().starts_with("\r>true\r"), "{:?}", e.text());

    // A tree can hold a CR in CDATA (a parser that keeps it); it is split out as a reference.
    let mut a = Element::new("a");
    a.children = vec![
        Node::CData("c\rd]]>e".into()),
        Node::Element(Element::with_text("b", "1")),
    ];
    let markup = inner_markup(&a, None);
    assert_eq!(
        markup,
        "<![CDATA[c]]>&#13;<![CDATA[d]]]]><![CDATA[>e]]><b>1</b>"
    );
    let e = parse_strict(&format!("<x>{markup}</x>"), &Limits::default()).unwrap();
    assert_eq!(e.text(), "c\rd]]>e");
}

/// `differential_xml_rs`: verbatim inner markup (from the source, as the parser gives it) took
/// the text rule on raw text, where only LF ended a line: with CR LF line ends a mixed-content
/// string kept a trailing CR, and with CR alone it was trimmed as if on one line. The rule now
/// sees raw line ends as an XML reader would.
#[test]
fn verbatim_markup_with_cr_line_ends_follows_the_text_rule() {
    use arg_types::tree::arguments_from_element_in;
    for (source, expected) in [
        ("<c>\r\n  a <b>x</b> c\r\n</c>", "  a <b>x</b> c"),
        ("<c>\n  a <b>x</b> c\n</c>", "  a <b>x</b> c"),
        ("<c>\r  a <b>x</b> c\r</c>", "  a <b>x</b> c"),
        ("<c> a <b>x</b>\r c </c>", " a <b>x</b>\r c "),
        ("<c> a <b>x</b> c </c>", "a <b>x</b> c"),
        ("<c>\r\n\r\nz<b>x</b>\r\n\r\n</c>", "\r\nz<b>x</b>\r\n"),
    ] {
        let inner = &source[3..source.len() - 4];
        let (before, rest) = inner.split_at(inner.find('<').unwrap());
        let after = &rest[rest.find("</b>").unwrap() + 4..];
        let mut c = Element::new("c");
        c.children = vec![
            Node::Text(before.into()),
            Node::Element(Element::with_text("b", "x")),
            Node::Text(after.into()),
        ];
        c.content_span = Some(3..source.len() - 4);
        let mut args = Element::new("arguments");
        args.children.push(Node::Element(c));
        let m = arguments_from_element_in(&args, Some(source));
        assert_eq!(m["c"].as_str(), Some(expected), "{source:?}");
    }
}
