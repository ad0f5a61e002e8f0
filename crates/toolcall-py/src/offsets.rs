//! [`CharOffsets`]: the parser's byte offsets as the character offsets Python slices `str` by.

use std::borrow::Cow;

/// Maps byte offsets into the text fed so far to character (code point) offsets.
///
/// While the text is ASCII a byte is a character and nothing is kept. From the first chunk
/// holding another character on, the text is kept (from that chunk's start; borrowed when it is
/// the whole input) so that offsets in it can be counted; a cursor makes increasing queries, the
/// order spans come in, linear in all.
#[derive(Debug, Default)]
pub(crate) struct CharOffsets<'a> {
    /// Bytes fed.
    bytes: usize,
    /// Where the kept text starts: its byte and character offsets. `None` while all is ASCII.
    kept_from: Option<(usize, usize)>,
    /// The text from `kept_from` on.
    kept: Cow<'a, str>,
    /// The last answer inside `kept`: a byte offset into it and the characters before it.
    cursor: (usize, usize),
}

impl<'a> CharOffsets<'a> {
    /// The offsets of one whole text, borrowed: nothing is copied.
    pub(crate) fn of(text: &'a str) -> Self {
        let mut o = CharOffsets::default();
        if text.is_ascii() {
            o.bytes = text.len();
        } else {
            o.kept_from = Some((0, 0));
            o.kept = Cow::Borrowed(text);
            o.bytes = text.len();
        }
        o
    }

    /// Records the next chunk of text.
    pub(crate) fn push(&mut self, chunk: &str) {
        if self.kept_from.is_none() {
            if chunk.is_ascii() {
                self.bytes += chunk.len();
                return;
            }
            // Everything before this chunk was ASCII: bytes so far are characters so far.
            self.kept_from = Some((self.bytes, self.bytes));
        }
        self.kept.to_mut().push_str(chunk);
        self.bytes += chunk.len();
    }

    /// The character offset of byte offset `b` (offsets past the end count as the end).
    pub(crate) fn char_at(&mut self, b: usize) -> usize {
        let Some((from_b, from_c)) = self.kept_from else {
            return b.min(self.bytes);
        };
        if b <= from_b {
            return b;
        }
        let off = (b - from_b).min(self.kept.len());
        let (mut at, mut chars) = self.cursor;
        if at > off {
            (at, chars) = (0, 0);
        }
        // A character starts at every byte that is not a UTF-8 continuation byte.
        chars += self.kept.as_bytes()[at..off]
            .iter()
            .filter(|&&byte| byte & 0xC0 != 0x80)
            .count();
        self.cursor = (off, chars);
        from_c + chars
    }

    /// A byte range as a character range.
    pub(crate) fn span(&mut self, r: &std::ops::Range<usize>) -> (usize, usize) {
        let start = self.char_at(r.start);
        let end = self.char_at(r.end);
        (start, end)
    }
}
