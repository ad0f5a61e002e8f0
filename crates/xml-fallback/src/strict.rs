//! The strict parse: xml-rs (the crate `xml`) events into a [`tree::Element`](crate::tree).
//!
//! The reader is configured to keep the text as written: whitespace is neither trimmed nor
//! dropped (it becomes [`Node::Text`]), CDATA sections stay [`Node::CData`] and are not merged
//! into text. Comments and processing instructions are skipped. A `<!DOCTYPE …>` (and with it
//! any entity declaration) is an error. The document is read as UTF-8 whatever its XML
//! declaration says, since it arrives as a `&str`. xml-rs normalizes CR LF and lone CR to LF.
//!
//! [`Element::content_span`] is left `None`: xml-rs reports event positions that are not reliable
//! enough to cut the source with.

use crate::error::{XmlError, XmlErrorKind};
use crate::limits::Limits;
use crate::tree::{Attribute, Element, Node};
use xml::common::{Position as _, TextPosition};
use xml::name::OwnedName;
use xml::reader::{EventReader, ParserConfig, XmlEvent};

/// Parses `text` as one well-formed XML document, with no repair.
///
/// Errors are located in `text`.
///
/// ```
/// use xml_fallback::{parse_strict, Limits, Node};
/// let root = parse_strict("<a>x<![CDATA[ y ]]></a>", &Limits::default()).unwrap();
/// assert_eq!(root.children, vec![Node::Text("x".into()), Node::CData(" y ".into())]);
/// assert!(parse_strict("<a>x && y</a>", &Limits::default()).is_err());
/// ```
pub fn parse_strict(text: &str, limits: &Limits) -> Result<Element, XmlError> {
    check_size(text, limits)?;
    parse_unchecked_size(text, limits)
}

/// Fails with [`XmlErrorKind::TooLarge`] when `text` is over the size limit.
pub(crate) fn check_size(text: &str, limits: &Limits) -> Result<(), XmlError> {
    if text.len() > limits.max_input_bytes {
        return Err(XmlError::at(
            XmlErrorKind::TooLarge,
            format!(
                "the input is {} bytes, more than the limit of {} bytes",
                text.len(),
                limits.max_input_bytes
            ),
            text,
            0,
        ));
    }
    Ok(())
}

/// The strict parse without the size check (the repaired copy may be longer than the input).
pub(crate) fn parse_unchecked_size(text: &str, limits: &Limits) -> Result<Element, XmlError> {
    let config = ParserConfig::new()
        .trim_whitespace(false)
        .whitespace_to_characters(true)
        .cdata_to_characters(false)
        .coalesce_characters(true)
        .ignore_comments(true)
        .ignore_root_level_whitespace(true)
        .allow_multiple_root_elements(false)
        .override_encoding(Some(xml::Encoding::Utf8))
        .ignore_invalid_encoding_declarations(true);
    let mut reader = EventReader::new_with_config(text.as_bytes(), config);
    let mut stack: Vec<Element> = Vec::new();
    let mut elements = 0usize;
    loop {
        let event = match reader.next() {
            Ok(event) => event,
            Err(e) => {
                return Err(XmlError::at(
                    XmlErrorKind::Syntax,
                    syntax_message(&e),
                    text,
                    offset_of(text, e.position()),
                ));
            }
        };
        match event {
            XmlEvent::StartElement {
                name, attributes, ..
            } => {
                // Attributes count as elements: each is a node of the tree too.
                elements += 1 + attributes.len();
                if elements > limits.max_elements {
                    return Err(XmlError::at(
                        XmlErrorKind::TooManyElements,
                        format!(
                            "the document has more elements and attributes than the limit of {}",
                            limits.max_elements
                        ),
                        text,
                        offset_of(text, reader.position()),
                    ));
                }
                if stack.len() >= limits.max_depth {
                    return Err(XmlError::at(
                        XmlErrorKind::TooDeep,
                        format!(
                            "elements are nested deeper than the limit of {}",
                            limits.max_depth
                        ),
                        text,
                        offset_of(text, reader.position()),
                    ));
                }
                let mut element = Element::new(qualified(name));
                element.attributes = attributes
                    .into_iter()
                    .map(|a| Attribute {
                        name: qualified(a.name),
                        value: a.value,
                    })
                    .collect();
                stack.push(element);
            }
            XmlEvent::EndElement { .. } => {
                // xml-rs checks that end tags match, so the stack is never empty here.
                let Some(done) = stack.pop() else {
                    return Err(XmlError::at(
                        XmlErrorKind::Syntax,
                        "end tag without a start tag",
                        text,
                        offset_of(text, reader.position()),
                    ));
                };
                match stack.last_mut() {
                    Some(parent) => parent.children.push(Node::Element(done)),
                    None => return finish(reader, done, text),
                }
            }
            XmlEvent::Characters(s) | XmlEvent::Whitespace(s) => {
                if let Some(top) = stack.last_mut() {
                    match top.children.last_mut() {
                        Some(Node::Text(t)) => t.push_str(&s),
                        _ => top.children.push(Node::Text(s)),
                    }
                }
            }
            XmlEvent::CData(s) => {
                if let Some(top) = stack.last_mut() {
                    top.children.push(Node::CData(s));
                }
            }
            XmlEvent::Doctype { syntax } => {
                let what = if syntax.contains("<!ENTITY") {
                    "a DOCTYPE declaration with entity declarations"
                } else {
                    "a DOCTYPE declaration"
                };
                return Err(XmlError::at(
                    XmlErrorKind::Doctype,
                    format!("{what} is not accepted (DTDs and entity declarations are refused)"),
                    text,
                    offset_of(text, reader.position()),
                ));
            }
            XmlEvent::StartDocument { .. }
            | XmlEvent::ProcessingInstruction { .. }
            | XmlEvent::Comment(_) => {}
            XmlEvent::EndDocument => {
                // Only reachable without a root element, which xml-rs reports as an error.
                return Err(XmlError::at(
                    XmlErrorKind::Syntax,
                    "no root element",
                    text,
                    text.len(),
                ));
            }
        }
    }
}

/// After the root element closes: reads on to the end, so that trailing garbage is an error.
fn finish(mut reader: EventReader<&[u8]>, root: Element, text: &str) -> Result<Element, XmlError> {
    loop {
        match reader.next() {
            Ok(XmlEvent::EndDocument) => return Ok(root),
            Ok(_) => {}
            Err(e) => {
                return Err(XmlError::at(
                    XmlErrorKind::Syntax,
                    syntax_message(&e),
                    text,
                    offset_of(text, e.position()),
                ));
            }
        }
    }
}

/// xml-rs's message without its own `row:col` prefix (the position is reported separately).
fn syntax_message(e: &xml::reader::Error) -> String {
    use xml::reader::ErrorKind;
    match e.kind() {
        ErrorKind::Syntax(msg) => msg.to_string(),
        ErrorKind::UnexpectedEof => "unexpected end of input".to_owned(),
        ErrorKind::Utf8(u) => u.to_string(),
        ErrorKind::Io(io) => io.to_string(),
        other => format!("{other:?}"),
    }
}

fn qualified(name: OwnedName) -> String {
    match name.prefix {
        Some(prefix) => format!("{prefix}:{}", name.local_name),
        None => name.local_name,
    }
}

/// The byte offset in `text` of an xml-rs position (0-based row and column, columns in
/// characters, CR LF and lone CR each one line end). Clamped to the end of `text`.
fn offset_of(text: &str, at: TextPosition) -> usize {
    let (want_row, want_col) = (at.row(), at.column());
    let (mut row, mut col) = (0u64, 0u64);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if row == want_row && col == want_col {
            return i;
        }
        if row > want_row {
            return i;
        }
        match c {
            '\r' => {
                if chars.peek().is_some_and(|&(_, n)| n == '\n') {
                    chars.next();
                }
                row += 1;
                col = 0;
            }
            '\n' => {
                row += 1;
                col = 0;
            }
            _ => col += 1,
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Element, XmlError> {
        parse_strict(s, &Limits::default())
    }

    fn pos(row: u64, column: u64) -> TextPosition {
        TextPosition { row, column }
    }

    #[test]
    fn offsets_follow_xml_rs_line_ends() {
        let t = "ab\r\ncd\réf\ng";
        assert_eq!(offset_of(t, pos(0, 1)), 1);
        assert_eq!(offset_of(t, pos(1, 0)), 4);
        assert_eq!(offset_of(t, pos(2, 1)), t.find('f').unwrap());
        assert_eq!(offset_of(t, pos(3, 0)), t.find('g').unwrap());
        assert_eq!(offset_of(t, pos(9, 9)), t.len());
    }

    #[test]
    fn text_whitespace_and_cdata_are_kept_apart() {
        let root =
            parse("<a>\n  <b k=\"v&amp;\">t&lt;u</b>\n  <![CDATA[  x ]]>y<!--c-->z</a>").unwrap();
        assert_eq!(root.name, "a");
        let b = root.child("b").unwrap();
        assert_eq!(b.attribute("k"), Some("v&"));
        assert_eq!(b.text(), "t<u");
        assert_eq!(
            root.children[2..],
            [
                Node::Text("\n  ".into()),
                Node::CData("  x ".into()),
                Node::Text("yz".into())
            ]
        );
    }

    #[test]
    fn crlf_becomes_lf_in_text_and_cdata() {
        let root = parse("<a>x\r\ny<![CDATA[p\r\nq]]></a>").unwrap();
        assert_eq!(
            root.children,
            vec![Node::Text("x\ny".into()), Node::CData("p\nq".into())]
        );
    }

    #[test]
    fn declared_encoding_is_ignored_for_str_input() {
        let root = parse("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>é</a>").unwrap();
        assert_eq!(root.text(), "é");
    }

    #[test]
    fn prefixed_names_are_kept() {
        let root = parse("<x:a xmlns:x=\"urn:x\" x:k=\"1\"><x:b/></x:a>").unwrap();
        assert_eq!(root.name, "x:a");
        assert_eq!(root.attribute("x:k"), Some("1"));
        assert_eq!(root.child_elements().next().unwrap().name, "x:b");
        assert_eq!(
            root.attributes.len(),
            1,
            "xmlns declarations are not attributes"
        );
        let e = parse("<y:a/>").unwrap_err();
        assert_eq!(e.kind, XmlErrorKind::Syntax, "unbound prefix: {e}");
    }

    #[test]
    fn doctype_and_entities_are_refused() {
        let e = parse("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>").unwrap_err();
        assert_eq!(e.kind, XmlErrorKind::Doctype);
        assert!(e.message.contains("entity declarations"), "{e}");
        let e = parse("<?xml version=\"1.0\"?>\n<!DOCTYPE a><a/>").unwrap_err();
        assert_eq!(e.kind, XmlErrorKind::Doctype);
    }

    #[test]
    fn trailing_content_and_second_roots_are_errors() {
        for s in ["<a/>x", "<a/><b/>", "", "   ", "<a>"] {
            let e = parse(s).unwrap_err();
            assert_eq!(e.kind, XmlErrorKind::Syntax, "{s:?}");
        }
        assert!(parse("  <a/>\n  ").is_ok());
    }

    #[test]
    fn errors_are_located_in_characters() {
        let e = parse("<a>\n  <é>x</b>\n</a>").unwrap_err();
        assert_eq!(e.position.line, 2);
        assert!(e.position.column > 3, "{e}");
    }
}
