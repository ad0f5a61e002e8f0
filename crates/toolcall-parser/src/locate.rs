//! Byte offsets to line and column, lazily and in one pass overall.
//!
//! The parser keeps absolute byte offsets everywhere and asks for a [`Position`] only when it
//! records a repair or an error. The [`Locator`] moves a cursor forward through the text it is
//! asked about, so the total cost is one (vectorized) pass, paid only when positions are needed.

use xml_fallback::Position;

/// Turns absolute offsets into positions. `anchor` never moves past text the driver still holds;
/// `cursor` follows the latest request.
#[derive(Debug, Clone)]
pub(crate) struct Locator {
    anchor: (usize, Position),
    cursor: (usize, Position),
}

impl Default for Locator {
    fn default() -> Self {
        Locator {
            anchor: (0, Position::START),
            cursor: (0, Position::START),
        }
    }
}

impl Locator {
    /// The position of absolute offset `at`; `w` is the window, starting at absolute `base`, and
    /// must hold the text from the anchor on.
    pub(crate) fn locate(&mut self, w: &str, base: usize, at: usize) -> Position {
        let slice = |from: usize| &w.as_bytes()[from - base..at - base];
        if at >= self.cursor.0 {
            let (from, mut p) = self.cursor;
            p.advance(slice(from));
            self.cursor = (at, p);
            p
        } else {
            let (from, mut p) = self.anchor;
            p.advance(slice(from.min(at)));
            p
        }
    }

    /// Moves the anchor to `to` before the driver drops the text before it.
    pub(crate) fn move_anchor(&mut self, w: &str, base: usize, to: usize) {
        if to <= self.anchor.0 {
            return;
        }
        let (from, mut p) = if self.cursor.0 <= to {
            self.cursor
        } else {
            self.anchor
        };
        p.advance(&w.as_bytes()[from - base..to - base]);
        self.anchor = (to, p);
        if self.cursor.0 < to {
            self.cursor = self.anchor;
        }
    }
}
