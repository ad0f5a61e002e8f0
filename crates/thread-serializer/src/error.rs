//! The error of [`parse_thread_xml`](crate::parse_thread_xml).

use std::fmt;
use xml_fallback::Position;

/// Why a text is not a `<thread>` document, and where.
///
/// ```
/// use thread_serializer::{parse_thread_xml, ParseThreadErrorKind};
/// let err = parse_thread_xml("<thread>\n  <note/>\n</thread>").unwrap_err();
/// assert_eq!(err.kind(), &ParseThreadErrorKind::UnexpectedElement("note".into()));
/// assert_eq!((err.position().line, err.position().column), (2, 3));
/// assert_eq!(err.to_string(), "line 2, column 3: unexpected element <note>, expected <event>");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseThreadError {
    kind: ParseThreadErrorKind,
    position: Position,
}

/// The kinds of [`ParseThreadError`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseThreadErrorKind {
    /// The text is not well-formed XML; the XML reader's message.
    Xml(String),
    /// The text has a `<!DOCTYPE …>` declaration, refused as everywhere in the workspace (no
    /// DTD is read, no entity declared or expanded); the XML reader's message.
    Doctype(String),
    /// The root element is not `<thread>`; its name.
    NotAThread(String),
    /// An element other than `<event>` inside `<thread>`, or any element inside an `<event>`.
    UnexpectedElement(String),
    /// An `<event>` without a `type` attribute.
    MissingType,
    /// Text other than whitespace directly inside `<thread>`.
    TextOutsideEvent,
    /// Something other than a newline and the response prefix after `</thread>`.
    TrailingText,
}

impl ParseThreadError {
    pub(crate) fn new(kind: ParseThreadErrorKind, position: Position) -> Self {
        ParseThreadError { kind, position }
    }

    /// What is wrong.
    pub fn kind(&self) -> &ParseThreadErrorKind {
        &self.kind
    }

    /// Where, 1-based.
    pub fn position(&self) -> Position {
        self.position
    }
}

impl fmt::Display for ParseThreadErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseThreadErrorKind::Xml(message) => write!(f, "not well-formed XML: {message}"),
            ParseThreadErrorKind::Doctype(message) => f.write_str(message),
            ParseThreadErrorKind::NotAThread(name) => {
                write!(f, "the root element is <{name}>, expected <thread>")
            }
            ParseThreadErrorKind::UnexpectedElement(name) => {
                write!(f, "unexpected element <{name}>, expected <event>")
            }
            ParseThreadErrorKind::MissingType => f.write_str("<event> without a type attribute"),
            ParseThreadErrorKind::TextOutsideEvent => {
                f.write_str("text directly inside <thread>, outside any <event>")
            }
            ParseThreadErrorKind::TrailingText => {
                f.write_str("text after </thread> that does not start on a new line")
            }
        }
    }
}

impl fmt::Display for ParseThreadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.position, self.kind)
    }
}

impl std::error::Error for ParseThreadError {}
