//! Line and column positions, the one way every error in the workspace says where it is.

use std::fmt;

/// A 1-based line and column. Columns count Unicode scalar values, as editors do; CR LF counts
/// as one line end.
///
/// ```
/// use xml_fallback::position::Position;
/// let text = "ab\nçd&e";
/// assert_eq!(Position::at(text, text.find('&').unwrap()), Position { line: 2, column: 3 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// Line number, from 1.
    pub line: u32,
    /// Column number, from 1, in characters.
    pub column: u32,
}

impl Default for Position {
    fn default() -> Self {
        Position::START
    }
}

impl Position {
    /// The first character of a text.
    pub const START: Position = Position { line: 1, column: 1 };

    /// The position of byte `offset` of `text` (clamped to its length).
    pub fn at(text: &str, offset: usize) -> Position {
        let mut p = Position::START;
        p.advance(&text.as_bytes()[..offset.min(text.len())]);
        p
    }

    /// Moves past `bytes`. Split UTF-8 sequences are fine: only lead bytes count as columns.
    pub fn advance(&mut self, bytes: &[u8]) {
        // Short spans (positions of nearby repairs) are cheaper byte by byte than with SIMD setup.
        if bytes.len() <= 64 {
            for &b in bytes {
                if b == b'\n' {
                    self.line = self.line.saturating_add(1);
                    self.column = 1;
                } else if (b as i8) >= -0x40 {
                    self.column = self.column.saturating_add(1);
                }
            }
            return;
        }
        // memchr's counting is SIMD (tens of GB/s); columns are counted after the last LF only.
        let newlines = memchr::memchr_iter(b'\n', bytes).count();
        let tail = match memchr::memrchr(b'\n', bytes) {
            Some(i) => {
                self.column = 1;
                &bytes[i + 1..]
            }
            None => bytes,
        };
        self.line = self
            .line
            .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        let chars = tail.iter().filter(|&&b| (b as i8) >= -0x40).count();
        self.column = self
            .column
            .saturating_add(u32::try_from(chars).unwrap_or(u32::MAX));
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advance_in_pieces_equals_advance_at_once() {
        let text = "héllo\r\nwörld\n\nend";
        let whole = Position::at(text, text.len());
        assert_eq!(whole, Position { line: 4, column: 4 });
        for split in 0..=text.len() {
            let mut p = Position::START;
            p.advance(&text.as_bytes()[..split]);
            p.advance(&text.as_bytes()[split..]);
            assert_eq!(p, whole, "split at {split}");
        }
    }
}
