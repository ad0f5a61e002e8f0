//! Reading a `<thread>` document back, for tests and for tools that inspect threads.

use crate::error::{ParseThreadError, ParseThreadErrorKind};
use xml::name::OwnedName;
use xml::reader::XmlEvent;
use xml_fallback::{Position, StrictReader, XmlErrorKind};

/// One `<event>` of a thread, as an XML reader sees it. More fields may come
/// (`#[non_exhaustive]`); entries are made by [`parse_thread_xml`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ThreadEntry {
    /// The `type` attribute: `human`, `tool_input`, `summary`, …
    pub event_type: String,
    /// Every attribute, `type` included, in document order, with references resolved.
    pub attributes: Vec<(String, String)>,
    /// The element's text, with references resolved (and line ends normalized to LF, as XML
    /// readers do).
    pub text: String,
}

impl ThreadEntry {
    /// The value of the attribute `name`, if present.
    ///
    /// ```
    /// let t = thread_serializer::parse_thread_xml(
    ///     "<thread>\n  <event type=\"error\" id=\"0\" iteration=\"1\" recoverable=\"true\">x</event>\n</thread>",
    /// ).unwrap();
    /// assert_eq!(t.entries[0].attribute("recoverable"), Some("true"));
    /// assert_eq!(t.entries[0].attribute("name"), None);
    /// ```
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A thread read back: its entries, and the response prefix that followed `</thread>`. More
/// fields may come (`#[non_exhaustive]`); it is made by [`parse_thread_xml`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParsedThread {
    /// The `<event>` elements, in order.
    pub entries: Vec<ThreadEntry>,
    /// The text after `</thread>` and its newline, if any (`None` when empty).
    pub response_prefix: Option<String>,
}

/// Reads a `<thread>` document, as [`serialize_thread_to_xml`](crate::serialize_thread_to_xml)
/// writes it, back into entries.
///
/// The document ends at the first `</thread>` (the writer escapes every `<` before it); what
/// follows must be nothing, or a newline and the response prefix. Inside, the reader is strict:
/// well-formed XML 1.0, a `<thread>` root holding only whitespace and `<event type="…">`
/// elements, which hold only text (CDATA and references allowed; comments ignored). The XML
/// reader is xml-fallback's ([`StrictReader`]), the workspace's one configuration of xml-rs:
/// a `<!DOCTYPE>` is refused, before any of it is read, so no entity is ever declared or
/// expanded.
///
/// ```
/// use thread_serializer::parse_thread_xml;
/// let xml = "<thread>\n  <event type=\"tool_input\" id=\"0\" name=\"calc\" iteration=\"1\">\
///            {&quot;a&quot;:1}</event>\n</thread>\nGo on:";
/// let thread = parse_thread_xml(xml).unwrap();
/// assert_eq!(thread.entries.len(), 1);
/// assert_eq!(thread.entries[0].event_type, "tool_input");
/// assert_eq!(thread.entries[0].attribute("name"), Some("calc"));
/// assert_eq!(thread.entries[0].text, r#"{"a":1}"#);
/// assert_eq!(thread.response_prefix.as_deref(), Some("Go on:"));
/// ```
///
/// # Errors
///
/// A [`ParseThreadError`] with the first problem and its position.
pub fn parse_thread_xml(text: &str) -> Result<ParsedThread, ParseThreadError> {
    let (document, response_prefix) = split_response_prefix(text)?;
    let mut reader = StrictReader::new(document);
    let mut entries = Vec::new();
    let mut current: Option<ThreadEntry> = None;
    let mut in_thread = false;
    loop {
        let event = reader.next_event().map_err(|e| {
            let kind = match e.kind {
                XmlErrorKind::Doctype => ParseThreadErrorKind::Doctype(e.message),
                _ => ParseThreadErrorKind::Xml(e.message),
            };
            ParseThreadError::new(kind, e.position)
        })?;
        let at = || reader.position();
        match event {
            XmlEvent::StartElement {
                name, attributes, ..
            } => {
                let name = qualified(&name);
                if !in_thread {
                    if name != crate::THREAD_ROOT {
                        return Err(ParseThreadError::new(
                            ParseThreadErrorKind::NotAThread(name),
                            at(),
                        ));
                    }
                    in_thread = true;
                } else if current.is_some() || name != "event" {
                    return Err(ParseThreadError::new(
                        ParseThreadErrorKind::UnexpectedElement(name),
                        at(),
                    ));
                } else {
                    let attributes: Vec<(String, String)> = attributes
                        .into_iter()
                        .map(|a| (qualified(&a.name), a.value))
                        .collect();
                    let Some(event_type) = attributes
                        .iter()
                        .find(|(n, _)| n == "type")
                        .map(|(_, v)| v.clone())
                    else {
                        return Err(ParseThreadError::new(
                            ParseThreadErrorKind::MissingType,
                            at(),
                        ));
                    };
                    current = Some(ThreadEntry {
                        event_type,
                        attributes,
                        text: String::new(),
                    });
                }
            }
            XmlEvent::EndElement { .. } => {
                if let Some(entry) = current.take() {
                    entries.push(entry);
                }
            }
            XmlEvent::Characters(chars) | XmlEvent::CData(chars) | XmlEvent::Whitespace(chars) => {
                match current.as_mut() {
                    Some(entry) => entry.text.push_str(&chars),
                    None if in_thread && !chars.bytes().all(is_xml_space) => {
                        return Err(ParseThreadError::new(
                            ParseThreadErrorKind::TextOutsideEvent,
                            at(),
                        ));
                    }
                    None => {}
                }
            }
            XmlEvent::EndDocument => break,
            XmlEvent::StartDocument { .. }
            | XmlEvent::ProcessingInstruction { .. }
            | XmlEvent::Comment(_)
            | XmlEvent::Doctype { .. } => {}
        }
    }
    Ok(ParsedThread {
        entries,
        response_prefix,
    })
}

/// Splits off what follows the first `</thread>`: nothing, or a newline and the prefix.
fn split_response_prefix(text: &str) -> Result<(&str, Option<String>), ParseThreadError> {
    const CLOSE: &str = "</thread";
    let mut from = 0;
    while let Some(found) = text[from..].find(CLOSE) {
        let after_name = from + found + CLOSE.len();
        let rest = &text[after_name..];
        let spaces = rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
        if rest[spaces..].starts_with('>') {
            let end = after_name + spaces + 1;
            let trailing = &text[end..];
            let prefix = if trailing.is_empty() {
                None
            } else if let Some(p) = trailing
                .strip_prefix('\n')
                .or_else(|| trailing.strip_prefix("\r\n"))
            {
                (!p.is_empty()).then(|| p.to_owned())
            } else if trailing.bytes().all(is_xml_space) {
                None
            } else {
                return Err(ParseThreadError::new(
                    ParseThreadErrorKind::TrailingText,
                    Position::at(text, end),
                ));
            };
            return Ok((&text[..end], prefix));
        }
        from = after_name;
    }
    // No closing tag: the XML reader says what is wrong.
    Ok((text, None))
}

fn is_xml_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn qualified(name: &OwnedName) -> String {
    match &name.prefix {
        Some(prefix) => format!("{prefix}:{}", name.local_name),
        None => name.local_name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> ParseThreadErrorKind {
        parse_thread_xml(text).unwrap_err().kind().clone()
    }

    #[test]
    fn empty_thread() {
        assert_eq!(
            parse_thread_xml("<thread>\n</thread>").unwrap(),
            ParsedThread::default()
        );
        assert_eq!(
            parse_thread_xml("<thread/>").unwrap(),
            ParsedThread::default()
        );
    }

    #[test]
    fn response_prefix_forms() {
        let p = |t: &str| parse_thread_xml(t).unwrap().response_prefix;
        assert_eq!(p("<thread>\n</thread>\nNext"), Some("Next".into()));
        assert_eq!(p("<thread>\n</thread >\r\nNext\n"), Some("Next\n".into()));
        assert_eq!(p("<thread>\n</thread>\n"), None);
        assert_eq!(p("<thread>\n</thread>  "), None);
        // The prefix may itself contain anything, even another </thread>.
        assert_eq!(
            p("<thread></thread>\n</thread> & <"),
            Some("</thread> & <".into())
        );
        assert_eq!(
            kind("<thread></thread>oops"),
            ParseThreadErrorKind::TrailingText
        );
    }

    #[test]
    fn structure_is_checked() {
        assert_eq!(
            kind("<threads></threads>"),
            ParseThreadErrorKind::NotAThread("threads".into())
        );
        assert_eq!(
            kind("<thread><event type=\"a\"><b/></event></thread>"),
            ParseThreadErrorKind::UnexpectedElement("b".into())
        );
        assert_eq!(
            kind("<thread><event id=\"0\">x</event></thread>"),
            ParseThreadErrorKind::MissingType
        );
        assert_eq!(
            kind("<thread>stray<event type=\"a\"/></thread>"),
            ParseThreadErrorKind::TextOutsideEvent
        );
        assert!(matches!(
            kind("<thread><event type=\"a\">\u{1b}</event></thread>"),
            ParseThreadErrorKind::Xml(_)
        ));
        assert!(matches!(kind(""), ParseThreadErrorKind::Xml(_)));
        assert!(matches!(
            kind("<thread><event type=\"a\">"),
            ParseThreadErrorKind::Xml(_)
        ));
    }

    #[test]
    fn xml_errors_have_positions_without_duplicating_them() {
        let err =
            parse_thread_xml("<thread>\n  <event type=\"a\">a & b</event>\n</thread>").unwrap_err();
        assert_eq!(err.position().line, 2);
        let message = err.to_string();
        assert!(message.starts_with("line 2, column "), "{message}");
        let xml_rs_form = format!("{}:{}", err.position().line, err.position().column);
        assert!(!message.contains(&xml_rs_form), "{message}");
        assert!(!message.ends_with(' '), "{message:?}");
    }

    #[test]
    fn doctype_and_entities_are_refused_with_a_position() {
        // Before: accepted, and `&who;` expanded to "Mallory".
        let text = "<?xml version=\"1.0\"?>\n<!DOCTYPE thread [\n  <!ENTITY who \"Mallory\">\n]>\n\
                    <thread>\n  <event type=\"human\" id=\"0\" iteration=\"0\">&who;</event>\n</thread>";
        let err = parse_thread_xml(text).unwrap_err();
        assert_eq!(
            err.kind(),
            &ParseThreadErrorKind::Doctype(
                "a DOCTYPE declaration with entity declarations is not accepted \
                 (DTDs and entity declarations are refused)"
                    .into()
            )
        );
        assert_eq!((err.position().line, err.position().column), (2, 1));
        assert_eq!(
            err.to_string(),
            "line 2, column 1: a DOCTYPE declaration with entity declarations is not accepted \
             (DTDs and entity declarations are refused)"
        );
        let err = parse_thread_xml("<!DOCTYPE thread><thread></thread>").unwrap_err();
        assert!(
            matches!(err.kind(), ParseThreadErrorKind::Doctype(m) if m.starts_with("a DOCTYPE declaration is not accepted"))
        );
        // An entity never declared is an XML error, as before.
        let err =
            parse_thread_xml("<thread><event type=\"ai\">&who;</event></thread>").unwrap_err();
        assert!(matches!(err.kind(), ParseThreadErrorKind::Xml(_)), "{err}");
    }

    #[test]
    fn the_text_is_utf8_whatever_the_declaration_says() {
        // xml-fallback's reader configuration: a `&str` is UTF-8 (it was read as Latin-1).
        let t = parse_thread_xml(
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><thread><event type=\"ai\">é</event></thread>",
        )
        .unwrap();
        assert_eq!(t.entries[0].text, "é");
    }

    #[test]
    fn cdata_comments_and_references() {
        let t = parse_thread_xml(
            "<thread><!-- c --><event type=\"ai\" x=\"a&#10;b\">1<![CDATA[<2>]]><!-- no -->&amp;3&#x41;</event></thread>",
        )
        .unwrap();
        assert_eq!(t.entries[0].text, "1<2>&3A");
        assert_eq!(t.entries[0].attribute("x"), Some("a\nb"));
        assert_eq!(
            t.entries[0].attributes,
            [("type".into(), "ai".into()), ("x".into(), "a\nb".into())]
        );
    }
}
