//! Parse strictly; on failure escape the bare ampersands and retry once (docs/FORMAT.md §4).

use crate::ampersand::escape_bare_ampersands_in_document;
use crate::de::from_element;
use crate::error::{Error, XmlError, XmlErrorKind};
use crate::limits::Limits;
use crate::position::Position;
use crate::repair::{Parsed, Repair, RepairKind};
use crate::strict::{check_size, parse_unchecked_size};
use crate::tree::Element;
use serde::de::DeserializeOwned;

/// Parses a whole document with the default [`Limits`], repairing bare ampersands if the strict
/// parse fails.
///
/// Valid XML is never modified: the strict parse runs first and, when it succeeds, its tree is
/// returned with no repair. Otherwise every bare `&` outside CDATA sections, comments and
/// processing instructions is read as `&amp;` and the parse runs once more; [`Parsed::repairs`]
/// says where. If that fails too, or there was no bare `&` to repair, the error is the strict
/// parse's, located in the original input.
///
/// ```
/// use xml_fallback::parse_document;
/// let parsed = parse_document("<arguments><path>src & tests</path></arguments>").unwrap();
/// assert_eq!(parsed.value.child("path").unwrap().text(), "src & tests");
/// assert_eq!(parsed.repairs[0].position.column, 22);
///
/// let err = parse_document("<a>x & y</b>").unwrap_err();
/// assert_eq!(err.position.column, 7, "the first error, in the original input: {err}");
/// ```
pub fn parse_document(text: &str) -> Result<Parsed<Element>, XmlError> {
    parse_document_with(text, &Limits::default())
}

/// [`parse_document`] with explicit [`Limits`].
///
/// DOCTYPE declarations and exceeded limits are final: no repair can change them, so there is no
/// retry.
pub fn parse_document_with(text: &str, limits: &Limits) -> Result<Parsed<Element>, XmlError> {
    check_size(text, limits)?;
    let first = match parse_unchecked_size(text, limits) {
        Ok(value) => {
            return Ok(Parsed {
                value,
                repairs: Vec::new(),
            });
        }
        Err(e) => e,
    };
    if first.kind != XmlErrorKind::Syntax {
        return Err(first);
    }
    let escaped = escape_bare_ampersands_in_document(text);
    if escaped.offsets.is_empty() {
        return Err(first);
    }
    match parse_unchecked_size(&escaped.text, limits) {
        Ok(value) => Ok(Parsed {
            value,
            repairs: repairs_at(text, &escaped.offsets),
        }),
        Err(_) => Err(first),
    }
}

/// One [`RepairKind::BareAmpersand`] per offset, positions computed in one pass.
fn repairs_at(text: &str, offsets: &[usize]) -> Vec<Repair> {
    let bytes = text.as_bytes();
    let mut position = Position::START;
    let mut from = 0;
    offsets
        .iter()
        .map(|&offset| {
            position.advance(&bytes[from..offset]);
            from = offset;
            Repair {
                kind: RepairKind::BareAmpersand,
                position,
                offset,
            }
        })
        .collect()
}

/// Decodes a whole document into `T`, with the ampersand repair when the strict parse fails.
///
/// The root element's name is not checked; its content is decoded by [`from_element`] (see
/// [`crate::de`] for the rules).
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Args { pattern: String, path: String }
///
/// let args: Args = xml_fallback::from_str_with_fallback(
///     "<arguments><pattern>func.*&&.*return</pattern><path>src</path></arguments>",
/// ).unwrap();
/// assert_eq!(args, Args { pattern: "func.*&&.*return".into(), path: "src".into() });
/// ```
pub fn from_str_with_fallback<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    Ok(from_str_with_repairs(text, &Limits::default())?.value)
}

/// [`from_str_with_fallback`] with explicit [`Limits`], also returning the repairs made.
///
/// ```
/// use xml_fallback::{from_str_with_repairs, Limits};
/// let parsed = from_str_with_repairs::<Vec<String>>(
///     "<urls><url>?a=1&b=2&c=3</url></urls>", &Limits::default()).unwrap();
/// assert_eq!(parsed.value, ["?a=1&b=2&c=3"]);
/// assert_eq!(parsed.repairs.len(), 2);
/// ```
pub fn from_str_with_repairs<T: DeserializeOwned>(
    text: &str,
    limits: &Limits,
) -> Result<Parsed<T>, Error> {
    let parsed = parse_document_with(text, limits)?;
    let value = from_element(&parsed.value)?;
    Ok(Parsed {
        value,
        repairs: parsed.repairs,
    })
}
