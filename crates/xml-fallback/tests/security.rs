//! DOCTYPE and entity declarations are refused, limits hold, and no input panics.

use proptest::prelude::*;
use xml_fallback::{
    Limits, XmlErrorKind, from_str_with_fallback, parse_document, parse_document_with,
};

#[test]
fn billion_laughs_is_refused_before_any_expansion() {
    let xml = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<lolz>&lol3;</lolz>"#;
    let err = parse_document(xml).unwrap_err();
    assert_eq!(err.kind, XmlErrorKind::Doctype);
    assert!(err.message.contains("entity declarations"), "{err}");
    assert_eq!(err.position.line, 2, "{err}");
}

#[test]
fn parameter_entities_are_never_expanded() {
    // xml-rs expands parameter entities while it reads a DTD, before it reports the DOCTYPE,
    // without bound: ten levels of tenfold references would grow to 10^11 bytes (it took 100 MB
    // and 0.1 s at seven levels). The DOCTYPE is refused before xml-rs reads any of it.
    let mut xml = String::from("<!DOCTYPE a [\n<!ENTITY % e0 \"xxxxxxxxxx\">\n");
    for level in 1..=10 {
        let refs = format!("%e{};", level - 1).repeat(10);
        xml.push_str(&format!("<!ENTITY % e{level} \"{refs}\">\n"));
    }
    xml.push_str("<!ENTITY all \"%e10;\">\n]>\n<a>&all;</a>");
    let err = parse_document(&xml).unwrap_err();
    assert_eq!(err.kind, XmlErrorKind::Doctype);
    assert_eq!((err.position.line, err.position.column), (1, 1));
    assert!(err.message.contains("entity declarations"), "{err}");
}

#[test]
fn external_entities_are_refused() {
    let xml = "<!DOCTYPE a [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><a>&xxe;</a>";
    assert_eq!(parse_document(xml).unwrap_err().kind, XmlErrorKind::Doctype);
    let xml = "<!DOCTYPE a SYSTEM \"http://example.invalid/a.dtd\"><a/>";
    assert_eq!(parse_document(xml).unwrap_err().kind, XmlErrorKind::Doctype);
}

#[test]
fn a_doctype_is_refused_even_when_ampersands_are_bare() {
    // No retry: no repair can remove a DOCTYPE.
    let err = parse_document("<!DOCTYPE a><a>x && y</a>").unwrap_err();
    assert_eq!(err.kind, XmlErrorKind::Doctype);
}

#[test]
fn undeclared_entities_are_bare_and_read_literally() {
    // `&nbsp;` is bare by the rule, so it is repaired into the literal text `&nbsp;`.
    let parsed = parse_document("<a>&nbsp;</a>").unwrap();
    assert_eq!(parsed.value.text(), "&nbsp;");
    assert_eq!(parsed.repairs.len(), 1);
}

#[test]
fn nesting_depth_is_limited_without_recursion() {
    let deep = "<a>".repeat(200_000);
    let err = parse_document(&deep).unwrap_err();
    assert_eq!(err.kind, XmlErrorKind::TooDeep);
    assert_eq!(err.position.column, 128 * 3 + 1, "{err}");

    let ok = format!("{}{}", "<a>".repeat(128), "</a>".repeat(128));
    let parsed = parse_document(&ok).unwrap();
    assert_eq!(parsed.value.name, "a");
    let v: serde_json::Value = from_str_with_fallback(&ok).unwrap();
    assert!(v.is_object());

    let limits = Limits::default().with_max_depth(1);
    assert!(parse_document_with("<a>x</a>", &limits).is_ok());
    assert_eq!(
        parse_document_with("<a><b/></a>", &limits)
            .unwrap_err()
            .kind,
        XmlErrorKind::TooDeep
    );
}

#[test]
fn element_count_is_limited() {
    let limits = Limits::default().with_max_elements(3);
    assert!(parse_document_with("<a><b/><c/></a>", &limits).is_ok());
    let err = parse_document_with("<a><b/><c/><d/></a>", &limits).unwrap_err();
    assert_eq!(err.kind, XmlErrorKind::TooManyElements);
    // At the element one too many.
    assert_eq!(err.position.column, 12, "{err}");
    // Attributes count too.
    let err = parse_document_with("<a x='1'><b y='2'/></a>", &limits).unwrap_err();
    assert_eq!(err.kind, XmlErrorKind::TooManyElements);
    // A million `<b/>`: the default stops them at 100,000.
    let many = format!("<a>{}</a>", "<b/>".repeat(1_000_000));
    let err = parse_document(&many).unwrap_err();
    assert_eq!(err.kind, XmlErrorKind::TooManyElements);
    assert_eq!(Limits::default().max_elements(), 100_000);
}

#[test]
fn input_size_is_limited() {
    let limits = Limits::default().with_max_input_bytes(10);
    assert!(parse_document_with("<a>12</a>", &limits).is_ok());
    let err = parse_document_with("<a>1234</a>", &limits).unwrap_err();
    assert_eq!(err.kind, XmlErrorKind::TooLarge);
    assert!(err.to_string().contains("11 bytes"), "{err}");
    assert_eq!(Limits::default().max_input_bytes(), 16 * 1024 * 1024);
    assert_eq!(Limits::default().max_depth(), 128);
}

const PIECES: &[&str] = &[
    "<",
    ">",
    "/",
    "&",
    ";",
    "#",
    "x",
    "!",
    "-",
    "[",
    "]",
    "CDATA",
    "?",
    "=",
    "\"",
    "'",
    " ",
    "a",
    "b",
    "\n",
    "\r",
    "<a>",
    "</a>",
    "<b k='v'>",
    "</b>",
    "<!DOCTYPE",
    "<!ENTITY",
    "<?xml",
    "version=\"1.0\"",
    "&amp;",
    "&#0;",
    "&#x110000;",
    "é",
    "\u{feff}",
    "\u{0}",
    "%",
    "xmlns",
    ":",
    "1",
    "<![CDATA[",
    "]]>",
    "<!--",
    "-->",
    "SYSTEM",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn no_xml_like_input_panics(
        open in any::<bool>(),
        pieces in prop::collection::vec(prop::sample::select(PIECES), 0..40),
    ) {
        let mut s = if open { "<a>".to_owned() } else { String::new() };
        s.push_str(&pieces.concat());
        let limits = Limits::default().with_max_depth(4);
        match parse_document_with(&s, &limits) {
            Ok(p) => prop_assert!(p.repairs.iter().all(|r| s.as_bytes()[r.offset] == b'&')),
            Err(e) => prop_assert!(e.offset <= s.len() && e.position.line >= 1),
        }
        let _ = from_str_with_fallback::<serde_json::Value>(&s);
    }

    #[test]
    fn no_arbitrary_input_panics(s in any::<String>()) {
        if let Err(e) = parse_document(&s) {
            prop_assert!(!e.message.is_empty());
        }
    }
}
