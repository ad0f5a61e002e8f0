//! Eight bytes at a time in a `u64` ("SIMD within a register"): the one way the hot paths find a
//! few given bytes in a short window, where `memchr`'s set-up costs more than the scan (a streamed
//! token; a tag; the next byte a JSON string escapes), and a 64-byte block at a time as a bit
//! mask ([`block`]) where such bytes come a dozen apart (the references of entity-escaped code).
//! Here, below the crates that use it, so that every crate has the one.
//!
//! ```
//! use xml_fallback::swar::{first, find_first, position, word};
//! assert_eq!(position(b"abcdefghij<k", [b'<', b'&']), Some(10));
//! let w = word(*b"ab&cd<ef");
//! assert_eq!(first(find_first(w, [b'<', b'&'])), 2);
//! ```

/// The byte 1 in every lane.
pub(crate) const ONES: u64 = u64::from_le_bytes([1; 8]);
/// Every lane's low seven bits.
const LOWS: u64 = u64::from_le_bytes([0x7f; 8]);
/// Every lane's high bit.
pub(crate) const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// A word's bytes, the first byte in the lowest lane.
#[inline]
pub fn word(bytes: [u8; 8]) -> u64 {
    u64::from_le_bytes(bytes)
}

/// The high bit of each lane of `v` that is not zero, and some low bits (masked off by callers).
#[inline]
fn nonzero(v: u64) -> u64 {
    ((v & LOWS) + LOWS) | v
}

/// The high bit of each lane of `word` that holds one of `needles`, and no other bit: exact in
/// every lane (the shorter `(v - ONES) & !v` test may mark a lane above a match), so a caller
/// may walk every match, not only the first.
///
/// ```
/// use xml_fallback::swar::{find, word};
/// assert_eq!(find(word(*b"<a&<<b&c"), [b'<']).to_le_bytes(), [0x80, 0, 0, 0x80, 0x80, 0, 0, 0]);
/// ```
#[inline]
pub fn find<const N: usize>(word: u64, needles: [u8; N]) -> u64 {
    let mut misses = !0u64;
    for n in needles {
        misses &= nonzero(word ^ (ONES * u64::from(n)));
    }
    !(misses | LOWS)
}

/// Like [`find`], one operation cheaper per needle, where only the first match counts: the
/// lowest mark is exact, marks above a match may be false (a zero lane's borrow). The escaped-text
/// scan, which stops at its first special byte, measured 1.9% fewer instructions with it.
#[inline]
pub fn find_first<const N: usize>(word: u64, needles: [u8; N]) -> u64 {
    let mut marks = 0;
    for n in needles {
        let v = word ^ (ONES * u64::from(n));
        marks |= v.wrapping_sub(ONES) & !v;
    }
    marks & HIGHS
}

/// Like [`find_first`], for the bytes below `limit` (at most 0x80): the lowest mark is exact,
/// marks above a marked lane may be false (a borrow).
///
/// ```
/// use xml_fallback::swar::{below, first, word};
/// assert_eq!(first(below(word(*b"ab\ncd\x01ef"), 0x20)), 2);
/// assert_eq!(below(word(*b"abcdefgh"), 0x20), 0);
/// ```
#[inline]
pub fn below(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGHS
}

/// The index of the first byte of `bytes` that is one of `needles`: a word at a time
/// ([`find_first`]), the last bytes (under eight) one by one. (The escaped-text scan keeps its
/// own loop: this one's tail cost it 1% more instructions.)
#[inline]
pub fn position<const N: usize>(bytes: &[u8], needles: [u8; N]) -> Option<usize> {
    let (words, tail) = bytes.as_chunks::<8>();
    for (k, &w) in words.iter().enumerate() {
        let hits = find_first(word(w), needles);
        if hits != 0 {
            return Some(8 * k + first(hits));
        }
    }
    let at = bytes.len() - tail.len();
    (tail.iter())
        .position(|b| needles.contains(b))
        .map(|k| at + k)
}

/// One bit per byte of a 64-byte block: bit `k` set when `block[k]` is one of `needles`. The
/// comparison is written a byte at a time so that the compiler makes it vector compares (SSE2's
/// sixteen bytes an instruction on x86-64, with no `unsafe` and no target feature); each word of
/// the resulting 0-or-1 bytes gives its eight bits in one multiply. Where the special bytes are
/// a dozen apart, a block's bits walked lowest first find each one with no loop ending at an
/// unpredictable word, and without waiting for the work done at the one before.
///
/// ```
/// use xml_fallback::swar::block;
/// let mut bytes = [b'a'; 64];
/// bytes[3] = b'&';
/// bytes[63] = b'<';
/// assert_eq!(block(&bytes, [b'<', b'&']), 1 << 3 | 1 << 63);
/// ```
#[inline]
pub fn block<const N: usize>(block: &[u8; 64], needles: [u8; N]) -> u64 {
    let mut hit = [0u8; 64];
    for (h, b) in hit.iter_mut().zip(block) {
        let mut m = false;
        for n in needles {
            m |= *b == n;
        }
        *h = u8::from(m);
    }
    let (words, _) = hit.as_chunks::<8>();
    let mut bits = 0;
    for (k, &w) in words.iter().enumerate() {
        // Lane j's 1 (bit 8j) times the multiplier's bit 7(7 - j) + 7 lands on bit 56 + j; no
        // two products share a bit, so nothing carries into the top byte.
        bits |= (word(w).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    bits
}

/// The lane (byte index in the word) of the lowest mark of `marks`, which is not zero.
#[inline]
pub fn first(marks: u64) -> usize {
    (marks.trailing_zeros() / 8) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Every lane holding a needle is marked, and no other lane, whatever the other bytes
        /// (a lane above a match included: the borrow of the shorter test would mark it).
        #[test]
        fn find_marks_exactly_the_lanes_of_the_needles(
            bytes in proptest::collection::vec(proptest::sample::select(
                vec![0u8, 1, b'<', b'=', b'&', b'\r', 0x7f, 0x80, 0xbc, 0xff]), 8),
        ) {
            let bytes: [u8; 8] = bytes.try_into().unwrap();
            let marks = find(word(bytes), [b'<', b'&', b'\r']).to_le_bytes();
            for (b, m) in bytes.iter().zip(marks) {
                let hit = matches!(b, b'<' | b'&' | b'\r');
                proptest::prop_assert_eq!(m, if hit { 0x80 } else { 0 });
            }
            let zeros = find(word(bytes), [0]).to_le_bytes();
            for (b, m) in bytes.iter().zip(zeros) {
                proptest::prop_assert_eq!(m, if *b == 0 { 0x80 } else { 0 });
            }
        }

        /// `block` marks exactly the bytes that are needles.
        #[test]
        fn block_marks_exactly_the_needles(
            bytes in proptest::collection::vec(proptest::sample::select(
                vec![0u8, 1, b'<', b'=', b'&', b'\'', b'\r', 0x0c, 0x7f, 0x80, 0xff]), 64),
        ) {
            let bytes: [u8; 64] = bytes.try_into().unwrap();
            let bits = block(&bytes, [b'<', b'&', b'\r']);
            for (k, b) in bytes.iter().enumerate() {
                let hit = matches!(b, b'<' | b'&' | b'\r');
                proptest::prop_assert_eq!(bits >> k & 1 == 1, hit, "byte {}", k);
            }
        }

        /// `below`'s lowest mark is the first byte under the limit, or it marks nothing.
        #[test]
        fn below_marks_first_the_first_byte_under_the_limit(
            bytes in proptest::collection::vec(proptest::sample::select(
                vec![0u8, 1, 0x1f, 0x20, 0x21, b'"', 0x7f, 0x80, 0xff]), 8),
        ) {
            let bytes: [u8; 8] = bytes.try_into().unwrap();
            let marks = below(word(bytes), 0x20);
            let expected = bytes.iter().position(|&b| b < 0x20);
            proptest::prop_assert_eq!((marks != 0).then(|| first(marks)), expected);
        }

        /// Both finders' lowest mark is the first needle, or neither marks anything.
        #[test]
        fn first_is_the_first_needle(
            bytes in proptest::collection::vec(proptest::sample::select(
                vec![0u8, 1, b'<', b'=', b'&', 0x7f, 0x80, 0xff]), 8),
        ) {
            let bytes: [u8; 8] = bytes.try_into().unwrap();
            let expected = bytes.iter().position(|&b| b == b'<' || b == b'&');
            for marks in [find(word(bytes), [b'<', b'&']), find_first(word(bytes), [b'<', b'&'])] {
                proptest::prop_assert_eq!((marks != 0).then(|| first(marks)), expected);
            }
        }
    }
}
