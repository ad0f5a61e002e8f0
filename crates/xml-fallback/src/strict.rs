//! The strict parse: xml-rs (the crate `xml`) events into a [`tree::Element`](crate::tree), and
//! the workspace's one configuration of that reader ([`reader_config`], [`StrictReader`]).
//!
//! The reader is configured to keep the text as written: whitespace is neither trimmed nor
//! dropped (it becomes [`Node::Text`]), CDATA sections stay [`Node::CData`] and are not merged
//! into text. Comments and processing instructions are skipped. A `<!DOCTYPE …>` (and with it
//! any entity declaration) is an error, found before xml-rs reads the declaration. The document
//! is read as UTF-8 whatever its XML declaration says, since it arrives as a `&str`. xml-rs
//! normalizes CR LF and lone CR to LF.
//!
//! [`Element::content_span`] is left `None`: xml-rs reports event positions that are not reliable
//! enough to cut the source with.

use crate::error::{XmlError, XmlErrorKind};
use crate::limits::Limits;
use crate::position::Position;
use crate::tree::{Attribute, Element, Node};
use memchr::memmem;
use xml::common::{Position as _, TextPosition};
use xml::name::OwnedName;
use xml::reader::{EventReader, ParserConfig, XmlEvent};

/// The one configuration of the xml-rs reader in the workspace, used by [`StrictReader`] (so by
/// [`parse_strict`] and the whole-document functions) and by `thread-serializer`'s reader:
/// whitespace kept and reported as characters, CDATA kept apart from text, adjacent text
/// coalesced, comments skipped, whitespace outside the root ignored, one root element, the text
/// read as UTF-8 whatever encoding its XML declaration names.
///
/// The configuration alone does not refuse a DOCTYPE (xml-rs has no such setting, and reads the
/// declaration, expanding parameter entities, before it reports it): read through
/// [`StrictReader`], which does.
///
/// ```
/// let config = xml_fallback::reader_config();
/// assert!(!config.trim_whitespace && !config.cdata_to_characters && config.ignore_comments);
/// assert!(!config.allow_multiple_root_elements);
/// ```
pub fn reader_config() -> ParserConfig {
    ParserConfig::new()
        .trim_whitespace(false)
        .whitespace_to_characters(true)
        .cdata_to_characters(false)
        .coalesce_characters(true)
        .ignore_comments(true)
        .ignore_root_level_whitespace(true)
        .allow_multiple_root_elements(false)
        .override_encoding(Some(xml::Encoding::Utf8))
        .ignore_invalid_encoding_declarations(true)
}

/// The message of [`XmlErrorKind::Doctype`] errors.
fn doctype_message(declares_entities: bool) -> String {
    let what = if declares_entities {
        "a DOCTYPE declaration with entity declarations"
    } else {
        "a DOCTYPE declaration"
    };
    format!("{what} is not accepted (DTDs and entity declarations are refused)")
}

/// xml-rs events of a whole document read with [`reader_config`], errors located in the text as
/// [`XmlError`]s, and a `<!DOCTYPE …>` refused ([`XmlErrorKind::Doctype`]).
///
/// The DOCTYPE is found by a scan of the prolog (the text before the root element: an XML
/// declaration, comments, processing instructions, whitespace) before xml-rs reads anything,
/// so no part of a DTD is ever read: xml-rs expands parameter entities while it reads one,
/// without bound, so that a 454-byte internal subset would grow to 100 MB. A DOCTYPE the scan
/// does not reach (one after a malformed prolog) is refused when xml-rs reports it.
///
/// ```
/// use xml_fallback::{StrictReader, XmlErrorKind};
/// use xml::reader::XmlEvent;
///
/// let mut reader = StrictReader::new("<a>x</a>");
/// assert!(matches!(reader.next_event(), Ok(XmlEvent::StartDocument { .. })));
/// assert!(matches!(reader.next_event(), Ok(XmlEvent::StartElement { .. })));
/// assert_eq!(reader.next_event(), Ok(XmlEvent::Characters("x".into())));
///
/// let mut reader = StrictReader::new("<?xml version=\"1.0\"?>\n<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>");
/// let err = reader.next_event().unwrap_err();
/// assert_eq!(err.kind, XmlErrorKind::Doctype);
/// assert_eq!((err.position.line, err.position.column), (2, 1));
/// assert!(err.message.contains("entity declarations"));
/// ```
pub struct StrictReader<'a> {
    text: &'a str,
    reader: EventReader<&'a [u8]>,
    /// Where the prolog's DOCTYPE starts, until it is reported.
    doctype: Option<usize>,
}

impl<'a> StrictReader<'a> {
    /// A reader of `text`, a whole document.
    pub fn new(text: &'a str) -> Self {
        StrictReader {
            text,
            reader: EventReader::new_with_config(text.as_bytes(), reader_config()),
            doctype: doctype_in_prolog(text),
        }
    }

    /// The next event, or the first error. After an error, do not call it again.
    ///
    /// # Errors
    ///
    /// [`XmlErrorKind::Doctype`] for a DOCTYPE, [`XmlErrorKind::Syntax`] for text that is not
    /// well-formed XML, each located in the text.
    pub fn next_event(&mut self) -> Result<XmlEvent, XmlError> {
        if let Some(offset) = self.doctype.take() {
            let declares = declares_entities(&self.text[offset..]);
            return Err(XmlError::at(
                XmlErrorKind::Doctype,
                doctype_message(declares),
                self.text,
                offset,
            ));
        }
        match self.reader.next() {
            Ok(XmlEvent::Doctype { syntax }) => Err(XmlError::at(
                XmlErrorKind::Doctype,
                doctype_message(syntax.contains("<!ENTITY")),
                self.text,
                offset_of(self.text, self.reader.position()),
            )),
            Ok(event) => Ok(event),
            Err(e) => Err(XmlError::at(
                XmlErrorKind::Syntax,
                syntax_message(&e),
                self.text,
                offset_of(self.text, e.position()),
            )),
        }
    }

    /// The byte offset where the last event read starts. Computed from the start of the text:
    /// meant for errors, not for every event.
    pub fn offset(&self) -> usize {
        offset_of(self.text, self.reader.position())
    }

    /// The line and column of [`offset`](Self::offset).
    pub fn position(&self) -> Position {
        Position::at(self.text, self.offset())
    }

    /// An error of `kind` where the last event read starts.
    ///
    /// ```
    /// use xml_fallback::{StrictReader, XmlErrorKind};
    /// let mut reader = StrictReader::new("<a>\n  <b/></a>");
    /// for _ in 0..4 { reader.next_event().unwrap(); }
    /// let err = reader.error_here(XmlErrorKind::TooDeep, "too deep");
    /// assert_eq!((err.position.line, err.position.column), (2, 3));
    /// ```
    pub fn error_here(&self, kind: XmlErrorKind, message: impl Into<String>) -> XmlError {
        XmlError::at(kind, message, self.text, self.offset())
    }
}

/// The offset of a `<!DOCTYPE` in the prolog: after an optional byte-order mark, any run of
/// whitespace, the XML declaration, processing instructions and comments. `None` when the
/// prolog ends (at the root element, or at anything else) without one. One pass over the
/// prolog.
fn doctype_in_prolog(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = if text.starts_with('\u{feff}') { 3 } else { 0 };
    loop {
        while bytes
            .get(i)
            .is_some_and(|&b| crate::text::is_xml_whitespace_byte(b))
        {
            i += 1;
        }
        let rest = &bytes[i..];
        if rest.starts_with(b"<!DOCTYPE") {
            return Some(i);
        }
        let (open, close): (usize, &[u8]) = if rest.starts_with(b"<!--") {
            (4, b"-->")
        } else if rest.starts_with(b"<?") {
            (2, b"?>")
        } else {
            return None;
        };
        i += open + memmem::find(&rest[open..], close)? + close.len();
    }
}

/// Whether the DOCTYPE that `from` starts with declares entities (in its internal subset).
fn declares_entities(from: &str) -> bool {
    // The declaration ends at the first `>`, or after its internal subset `[…]` when a `[`
    // comes first.
    let bytes = from.as_bytes();
    let end = match memchr::memchr2(b'[', b'>', bytes) {
        Some(i) if bytes[i] == b'[' => {
            memmem::find(&bytes[i..], b"]").map_or(bytes.len(), |j| i + j)
        }
        Some(i) => i,
        None => bytes.len(),
    };
    memmem::find(&bytes[..end], b"<!ENTITY").is_some()
}

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
    let mut reader = StrictReader::new(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut elements = 0usize;
    loop {
        match reader.next_event()? {
            XmlEvent::StartElement {
                name, attributes, ..
            } => {
                // Attributes count as elements: each is a node of the tree too.
                elements += 1 + attributes.len();
                if elements > limits.max_elements {
                    return Err(reader.error_here(
                        XmlErrorKind::TooManyElements,
                        format!(
                            "the document has more elements and attributes than the limit of {}",
                            limits.max_elements
                        ),
                    ));
                }
                if stack.len() >= limits.max_depth {
                    return Err(reader.error_here(
                        XmlErrorKind::TooDeep,
                        format!(
                            "elements are nested deeper than the limit of {}",
                            limits.max_depth
                        ),
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
                    return Err(
                        reader.error_here(XmlErrorKind::Syntax, "end tag without a start tag")
                    );
                };
                match stack.last_mut() {
                    Some(parent) => parent.children.push(Node::Element(done)),
                    None => return finish(reader, done),
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
            XmlEvent::StartDocument { .. }
            | XmlEvent::ProcessingInstruction { .. }
            | XmlEvent::Comment(_)
            // Refused by the reader; never returned.
            | XmlEvent::Doctype { .. } => {}
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
fn finish(mut reader: StrictReader<'_>, root: Element) -> Result<Element, XmlError> {
    loop {
        if let XmlEvent::EndDocument = reader.next_event()? {
            return Ok(root);
        }
    }
}

/// xml-rs's message without its own `row:col` prefix (the position is reported separately).
fn syntax_message(e: &xml::reader::Error) -> String {
    use xml::reader::ErrorKind;
    match e.kind() {
        ErrorKind::Syntax(msg) => msg.trim_end().to_owned(),
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
    fn the_prolog_scan_finds_the_doctype_where_it_starts() {
        let cases = [
            ("<!DOCTYPE a><a/>", Some(0)),
            ("\u{feff}<!DOCTYPE a><a/>", Some(3)),
            (
                "<?xml version=\"1.0\"?>\r\n <!-- c > --><?pi ?>\n<!DOCTYPE a><a/>",
                Some(44),
            ),
            ("<a><![CDATA[<!DOCTYPE html>]]></a>", None),
            ("<a/><!DOCTYPE a>", None),
            ("<!-- unterminated <!DOCTYPE a>", None),
            ("text <!DOCTYPE a>", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(doctype_in_prolog(text), expected, "{text:?}");
            if let Some(at) = expected {
                assert!(text[at..].starts_with("<!DOCTYPE"));
            }
        }
        // A DOCTYPE in a CDATA section is text; one after the root is an error all the same.
        assert_eq!(
            parse("<a><![CDATA[<!DOCTYPE html>]]></a>")
                .unwrap()
                .children,
            [Node::CData("<!DOCTYPE html>".into())]
        );
        assert!(parse("<a/><!DOCTYPE a>").is_err());
        assert!(parse("<a><!DOCTYPE a></a>").is_err());
    }

    #[test]
    fn the_message_says_whether_entities_are_declared() {
        assert!(declares_entities("<!DOCTYPE a [<!ENTITY x \"y\">]>"));
        assert!(declares_entities("<!DOCTYPE a [\n <!ENTITY % p \"y\">\n]>"));
        assert!(!declares_entities(
            "<!DOCTYPE a><a><![CDATA[<!ENTITY]]></a>"
        ));
        assert!(!declares_entities("<!DOCTYPE a SYSTEM \"a.dtd\"><a/>"));
        let e = parse("<!DOCTYPE a SYSTEM \"a.dtd\"><a/>").unwrap_err();
        assert_eq!(
            e.message,
            "a DOCTYPE declaration is not accepted (DTDs and entity declarations are refused)"
        );
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
