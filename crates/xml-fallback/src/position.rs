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
        // Short spans (a streamed chunk of prose, positions of nearby repairs) are cheaper a word
        // at a time than with memchr's set-up.
        if bytes.len() <= 64 {
            let (words, tail) = bytes.as_chunks::<8>();
            for &w in words {
                self.advance_lanes(crate::swar::word(w), 8);
            }
            if !tail.is_empty() {
                // The last bytes as one word, the lanes past them zeros that the lane count
                // leaves out (put in byte by byte: a copy of a length not known costs a call).
                let last =
                    (tail.iter().enumerate()).fold(0u64, |w, (i, &b)| w | u64::from(b) << (8 * i));
                self.advance_lanes(last, tail.len() as u32);
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

    /// [`advance`](Self::advance) past the first `n` bytes (1 to 8) of a word: its line feeds
    /// and the lead bytes after the last of them found as bit masks (`swar`), not byte by byte.
    /// Lanes from `n` on are left out.
    #[inline]
    fn advance_lanes(&mut self, w: u64, n: u32) {
        debug_assert!((1..=8).contains(&n));
        let lanes = u64::MAX >> (64 - 8 * n);
        let feeds = crate::swar::find(w, [b'\n']) & lanes;
        // A continuation byte is `10xxxxxx`: its high bit set and the bit below clear.
        let continuations = w & !(w << 1) & crate::swar::HIGHS & lanes;
        // Marked lanes (each its high bit) counted by one multiplication: `count_ones` is a
        // loop of shifts and masks on targets without a population-count instruction.
        let lane_count = |m: u64| ((m >> 7).wrapping_mul(crate::swar::ONES) >> 56) as u32;
        if feeds == 0 {
            self.column = self.column.saturating_add(n - lane_count(continuations));
            return;
        }
        self.line = self.line.saturating_add(lane_count(feeds));
        // The lanes after the last line feed (the highest marked lane).
        let last = 63 - feeds.leading_zeros();
        let after = (!0u64).checked_shl(last + 1).unwrap_or(0);
        let lanes_after = n - 1 - last / 8;
        self.column = 1 + lanes_after - lane_count(continuations & after);
    }

    /// [`advance`](Self::advance) byte by byte: what the word-at-a-time steps are held to.
    #[cfg(test)]
    fn advance_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                self.line = self.line.saturating_add(1);
                self.column = 1;
            } else if (b as i8) >= -0x40 {
                self.column = self.column.saturating_add(1);
            }
        }
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

    proptest::proptest! {
        /// A word at a time, the position is the byte-by-byte one: line feeds, lead bytes and
        /// continuation bytes anywhere in the word, from any starting column.
        #[test]
        fn advance_by_words_equals_advance_by_bytes(
            bytes in proptest::collection::vec(proptest::sample::select(vec![b'a', b'\n', 0xc3, 0xa9, 0xe2, 0x80, 0xff, 0x7f]), 0..=80),
            column in 1u32..5,
        ) {
            let start = Position { line: 3, column };
            let mut by_bytes = start;
            by_bytes.advance_bytes(&bytes);
            let mut by_words = start;
            by_words.advance(&bytes);
            proptest::prop_assert_eq!(by_words, by_bytes);
        }
    }

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
