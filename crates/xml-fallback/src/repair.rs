//! What the fallback changed: [`Parsed`] carries a value and the [`Repair`]s made to get it.

use crate::position::Position;

/// A parsed value and the repairs that were needed to parse it (none for valid XML).
///
/// ```
/// use xml_fallback::{parse_document, RepairKind};
/// let parsed = parse_document("<a>x && y</a>").unwrap();
/// assert_eq!(parsed.value.text(), "x && y");
/// assert_eq!(parsed.repairs.len(), 2);
/// assert_eq!(parsed.repairs[0].kind, RepairKind::BareAmpersand);
/// assert_eq!(parsed.repairs[0].position.column, 6);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<T> {
    /// The result.
    pub value: T,
    /// The repairs applied to the input, in order of position; empty when the input was valid.
    pub repairs: Vec<Repair>,
}

impl<T> Parsed<T> {
    /// Whether any repair was needed.
    pub fn was_repaired(&self) -> bool {
        !self.repairs.is_empty()
    }

    /// Applies `f` to the value, keeping the repairs.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Parsed<U> {
        Parsed {
            value: f(self.value),
            repairs: self.repairs,
        }
    }
}

/// One repair: what was changed and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repair {
    /// What was changed.
    pub kind: RepairKind,
    /// Where, in the original input.
    pub position: Position,
    /// The byte offset of [`position`](Self::position) in the original input.
    pub offset: usize,
}

/// The kinds of repair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RepairKind {
    /// A bare `&` (one that begins no valid reference) was read as `&amp;`.
    BareAmpersand,
}
