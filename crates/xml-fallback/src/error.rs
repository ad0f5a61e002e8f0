//! Errors: [`XmlError`] for parsing, [`Error`] for typed decoding of a whole document.

use crate::de::DeError;
use crate::position::Position;
use std::fmt;

/// What kind of failure an [`XmlError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum XmlErrorKind {
    /// The text is not well-formed XML (and the ampersand repair did not make it so).
    Syntax,
    /// The document has a `<!DOCTYPE …>` declaration, possibly declaring entities. Refused:
    /// entity declarations are how "billion laughs" and external-entity attacks start, and a
    /// tool call never needs them.
    Doctype,
    /// Elements are nested deeper than [`Limits::max_depth`](crate::Limits::max_depth).
    TooDeep,
    /// The input is longer than [`Limits::max_input_bytes`](crate::Limits::max_input_bytes).
    TooLarge,
    /// The document has more elements and attributes than
    /// [`Limits::max_elements`](crate::Limits::max_elements).
    TooManyElements,
}

/// A parse failure, located in the text the caller passed in.
///
/// ```
/// use xml_fallback::{parse_document, XmlErrorKind};
/// let err = parse_document("<a>\n<b></a>").unwrap_err();
/// assert_eq!(err.kind, XmlErrorKind::Syntax);
/// assert_eq!(err.position.line, 2);
/// assert!(err.to_string().starts_with("line 2, column "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlError {
    /// What went wrong, in kind.
    pub kind: XmlErrorKind,
    /// What went wrong, in words.
    pub message: String,
    /// Where, in the original input (1-based line and column, columns in characters).
    pub position: Position,
    /// The byte offset of [`position`](Self::position) in the original input.
    pub offset: usize,
}

impl XmlError {
    /// An error of `kind` at byte `offset` of `text`.
    pub fn at(kind: XmlErrorKind, message: impl Into<String>, text: &str, offset: usize) -> Self {
        let offset = offset.min(text.len());
        XmlError {
            kind,
            message: message.into(),
            position: Position::at(text, offset),
            offset,
        }
    }
}

impl fmt::Display for XmlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.position, self.message)
    }
}

impl std::error::Error for XmlError {}

/// Why [`from_str_with_fallback`](crate::from_str_with_fallback) failed: the text was not XML,
/// or the XML did not fit the type.
///
/// ```
/// let err = xml_fallback::from_str_with_fallback::<u32>("<n>x</n>").unwrap_err();
/// assert!(matches!(err, xml_fallback::Error::Decode(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Parsing failed, even after the ampersand repair.
    Xml(XmlError),
    /// The document parsed, but its content does not fit the requested type.
    Decode(DeError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Xml(e) => e.fmt(f),
            Error::Decode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Xml(e) => Some(e),
            Error::Decode(e) => Some(e),
        }
    }
}

impl From<XmlError> for Error {
    fn from(e: XmlError) -> Self {
        Error::Xml(e)
    }
}

impl From<DeError> for Error {
    fn from(e: DeError) -> Self {
        Error::Decode(e)
    }
}
