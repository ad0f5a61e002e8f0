//! The one definition of a valid reference after `&`.
//!
//! The ampersand repair (docs/FORMAT.md §4) keeps an `&` unchanged when it begins `&amp;`, `&lt;`, `&gt;`, `&quot;`,
//! `&apos;`, `&#DIGITS;` or `&#xHEX;`; every other `&` is bare and is taken literally. The
//! ampersand repair ([`crate::escape_unescaped_ampersands`]), the tool-call tokenizer and the
//! writers all use this module, so they cannot disagree about what a reference is.
//!
//! The matcher is incremental ([`ReferenceMatcher`]) because a streaming parser may see a
//! reference split across chunks (`&am` | `p;`); [`match_reference`] is the one-shot form.

/// What the bytes after an `&` turned out to be. Exhaustive by design: a reference is valid,
/// bare or not yet decided, nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefMatch {
    /// A syntactically valid reference of `len` bytes (counting the `&` and the `;`).
    ///
    /// `code_point` is the value it names. For numeric references it may be out of range
    /// (`&#0;`, `&#x110000;`): the syntax is valid (so the ampersand repair leaves it alone),
    /// but decoding it fails; see [`decode_code_point`].
    Valid {
        /// Length in bytes, from the `&` to the `;` inclusive.
        len: usize,
        /// The code point named; saturates at `u32::MAX` for absurdly long numbers.
        code_point: u32,
    },
    /// The input ended while the bytes could still become a valid reference.
    Incomplete,
    /// Not a reference: the `&` is bare.
    Bare,
}

/// The five predefined entities of XML, with the character each stands for.
pub const NAMED_ENTITIES: [(&str, char); 5] = [
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
];

/// Matches a reference at the start of `s`, which must begin with `&`.
///
/// `s` is everything the caller has; when it ends before the reference is decided the answer is
/// [`RefMatch::Incomplete`], which a caller that has seen the whole input treats as bare.
///
/// ```
/// use xml_fallback::reference::{match_reference, RefMatch};
/// assert_eq!(match_reference(b"&amp; b"), RefMatch::Valid { len: 5, code_point: '&' as u32 });
/// assert_eq!(match_reference(b"&#x3C;"), RefMatch::Valid { len: 6, code_point: 0x3C });
/// assert_eq!(match_reference(b"&& b"), RefMatch::Bare);
/// assert_eq!(match_reference(b"&nbsp;"), RefMatch::Bare);
/// assert_eq!(match_reference(b"&am"), RefMatch::Incomplete);
/// ```
pub fn match_reference(s: &[u8]) -> RefMatch {
    debug_assert_eq!(s.first(), Some(&b'&'));
    // The whole input is at hand, so decide in place rather than byte by byte through
    // `ReferenceMatcher`; `one_shot_agrees_with_the_incremental_matcher` checks they agree.
    let rest = s.get(1..).unwrap_or_default();
    match rest.first() {
        None => RefMatch::Incomplete,
        Some(b'#') => match_numeric(&rest[1..]),
        Some(_) => match_named(rest),
    }
}

/// After `&`: one of the five names and `;`.
fn match_named(rest: &[u8]) -> RefMatch {
    // The first letters of the five names; most bare `&` (`&&`, `& `, `&b=`) stop here.
    if !matches!(rest.first(), Some(b'a' | b'l' | b'g' | b'q')) {
        return RefMatch::Bare;
    }
    for (name, c) in NAMED_ENTITIES {
        let name = name.as_bytes();
        if rest.len() <= name.len() {
            if name.starts_with(rest) {
                return RefMatch::Incomplete;
            }
        } else if rest.starts_with(name) {
            // No name is a prefix of another, so this is the only candidate.
            return if rest[name.len()] == b';' {
                RefMatch::Valid {
                    len: name.len() + 2,
                    code_point: c as u32,
                }
            } else {
                RefMatch::Bare
            };
        }
    }
    RefMatch::Bare
}

/// After `&#`: decimal digits, or `x` and hex digits, then `;`.
fn match_numeric(rest: &[u8]) -> RefMatch {
    let (digits, radix, prefix) = match rest.first() {
        None => return RefMatch::Incomplete,
        Some(b'x') => (&rest[1..], 16, 3),
        Some(b'0'..=b'9') => (rest, 10, 2),
        Some(_) => return RefMatch::Bare,
    };
    let mut value: u32 = 0;
    for (i, &b) in digits.iter().enumerate() {
        let digit = match b {
            b'0'..=b'9' => u32::from(b - b'0'),
            b'a'..=b'f' if radix == 16 => u32::from(b - b'a' + 10),
            b'A'..=b'F' if radix == 16 => u32::from(b - b'A' + 10),
            b';' if i > 0 => {
                return RefMatch::Valid {
                    len: prefix + i + 1,
                    code_point: value,
                };
            }
            _ => return RefMatch::Bare,
        };
        value = value.saturating_mul(radix).saturating_add(digit);
    }
    RefMatch::Incomplete
}

/// [`match_reference`] through the incremental matcher (the reference implementation).
#[cfg(test)]
fn match_reference_incremental(s: &[u8]) -> RefMatch {
    let mut matcher = ReferenceMatcher::new();
    for (i, &b) in s.iter().enumerate().skip(1) {
        match matcher.push(b) {
            Step::More => {}
            Step::Done(code_point) => {
                return RefMatch::Valid {
                    len: i + 1,
                    code_point,
                };
            }
            Step::Bare => return RefMatch::Bare,
        }
    }
    RefMatch::Incomplete
}

/// Whether `s` (beginning with `&`) starts a valid reference, treating the end of `s` as the end
/// of the input.
///
/// ```
/// assert!(xml_fallback::reference::starts_valid_reference("&lt;"));
/// assert!(!xml_fallback::reference::starts_valid_reference("&lt"));
/// ```
pub fn starts_valid_reference(s: &str) -> bool {
    matches!(match_reference(s.as_bytes()), RefMatch::Valid { .. })
}

/// One step of the incremental matcher. Exhaustive by design, as [`RefMatch`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Still possibly a reference: feed the next byte.
    More,
    /// The byte was the closing `;` of a valid reference naming this code point.
    Done(u32),
    /// The byte shows the `&` was bare. The byte itself is not consumed by the reference.
    Bare,
}

/// An incremental matcher for the bytes after one `&`, resumable across chunks.
///
/// It keeps a few bytes of state, never a buffer, so a streaming tokenizer can hold it while it
/// waits for the next chunk without rescanning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReferenceMatcher {
    state: State,
    /// Bytes seen after the `&`.
    seen: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    /// Inside a name: `prefix[..len]` is a prefix of one of the five names.
    Name {
        prefix: [u8; 4],
        len: u8,
    },
    Hash,
    HexStart,
    Decimal(u32),
    Hex(u32),
}

impl Default for ReferenceMatcher {
    fn default() -> Self {
        Self::new()
    }
}

impl ReferenceMatcher {
    /// A matcher that has seen the `&` and nothing after it.
    pub const fn new() -> Self {
        Self {
            state: State::Start,
            seen: 0,
        }
    }

    /// Bytes consumed after the `&` so far.
    pub const fn seen(&self) -> usize {
        self.seen
    }

    /// Appends `b` to a name prefix if some entity name still starts with it.
    fn extend_name(&mut self, mut prefix: [u8; 4], len: u8, b: u8) -> Step {
        let n = usize::from(len);
        if n == prefix.len() {
            return Step::Bare;
        }
        prefix[n] = b;
        let candidate = &prefix[..=n];
        if NAMED_ENTITIES
            .iter()
            .any(|(name, _)| name.as_bytes().starts_with(candidate))
        {
            self.state = State::Name {
                prefix,
                len: len + 1,
            };
            Step::More
        } else {
            Step::Bare
        }
    }

    /// Feeds the next byte. After [`Step::Done`] or [`Step::Bare`] the matcher must not be fed
    /// again.
    pub fn push(&mut self, b: u8) -> Step {
        self.seen += 1;
        match self.state {
            State::Start => match b {
                b'#' => {
                    self.state = State::Hash;
                    Step::More
                }
                _ => self.extend_name([0; 4], 0, b),
            },
            State::Name { prefix, len } => {
                if b == b';' {
                    let name = &prefix[..usize::from(len)];
                    match NAMED_ENTITIES.iter().find(|(n, _)| n.as_bytes() == name) {
                        Some(&(_, c)) => Step::Done(c as u32),
                        None => Step::Bare,
                    }
                } else {
                    self.extend_name(prefix, len, b)
                }
            }
            State::Hash => match b {
                b'x' => {
                    self.state = State::HexStart;
                    Step::More
                }
                b'0'..=b'9' => {
                    self.state = State::Decimal(u32::from(b - b'0'));
                    Step::More
                }
                _ => Step::Bare,
            },
            State::Decimal(v) => match b {
                b'0'..=b'9' => {
                    self.state =
                        State::Decimal(v.saturating_mul(10).saturating_add(u32::from(b - b'0')));
                    Step::More
                }
                b';' => Step::Done(v),
                _ => Step::Bare,
            },
            State::HexStart | State::Hex(_) => {
                let v = if let State::Hex(v) = self.state { v } else { 0 };
                match hex_digit(b) {
                    Some(d) => {
                        self.state = State::Hex(v.saturating_mul(16).saturating_add(d));
                        Step::More
                    }
                    None if b == b';' && matches!(self.state, State::Hex(_)) => Step::Done(v),
                    None => Step::Bare,
                }
            }
        }
    }
}

fn hex_digit(b: u8) -> Option<u32> {
    match b {
        b'0'..=b'9' => Some(u32::from(b - b'0')),
        b'a'..=b'f' => Some(u32::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u32::from(b - b'A' + 10)),
        _ => None,
    }
}

/// Whether `c` is a character XML 1.0 allows in a document (its production `Char`).
///
/// ```
/// use xml_fallback::reference::is_xml_char;
/// assert!(is_xml_char('\t') && is_xml_char('é'));
/// assert!(!is_xml_char('\u{1b}') && !is_xml_char('\u{fffe}'));
/// ```
pub const fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// The character a numeric reference names, if XML allows it (`&#0;` and `&#xFFFE;` do not).
///
/// ```
/// use xml_fallback::reference::decode_code_point;
/// assert_eq!(decode_code_point(0x3C), Some('<'));
/// assert_eq!(decode_code_point(0), None);
/// ```
pub fn decode_code_point(code_point: u32) -> Option<char> {
    char::from_u32(code_point).filter(|&c| is_xml_char(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(s: &str) -> Option<(usize, u32)> {
        match match_reference(s.as_bytes()) {
            RefMatch::Valid { len, code_point } => Some((len, code_point)),
            _ => None,
        }
    }

    #[test]
    fn the_five_named_entities_are_valid() {
        for (name, c) in NAMED_ENTITIES {
            let r = format!("&{name};");
            assert_eq!(valid(&r), Some((r.len(), c as u32)), "{r}");
        }
    }

    #[test]
    fn numeric_references() {
        assert_eq!(valid("&#60;"), Some((5, 60)));
        assert_eq!(valid("&#x3c;x"), Some((6, 0x3c)));
        assert_eq!(valid("&#X3C;"), None, "XML wants a lowercase x");
        assert_eq!(valid("&#;"), None);
        assert_eq!(valid("&#x;"), None);
        assert_eq!(
            valid("&#0;"),
            Some((4, 0)),
            "syntax is valid, decoding is not"
        );
        assert_eq!(decode_code_point(0), None);
        assert_eq!(valid("&#99999999999999;").map(|v| v.1), Some(u32::MAX));
    }

    #[test]
    fn other_names_and_prefixes_are_bare() {
        for s in [
            "&nbsp;", "&AMP;", "&amp", "& b", "&&", "&ampx;", "&quo;", "&apos ;",
        ] {
            assert_eq!(valid(s), None, "{s} must not be a valid reference");
        }
        assert_eq!(match_reference(b"&apo"), RefMatch::Incomplete);
        assert_eq!(match_reference(b"&#12"), RefMatch::Incomplete);
        assert_eq!(match_reference(b"&"), RefMatch::Incomplete);
    }

    #[test]
    fn one_shot_agrees_with_the_incremental_matcher() {
        // Every string of up to five bytes after `&` (enough for `&quot;` and `&#x0f;`) over an
        // alphabet that reaches every state, plus long numbers (saturation) and non-ASCII.
        let alphabet = b"amplgtquos#x09fF;&";
        let mut inputs: Vec<Vec<u8>> = vec![b"&".to_vec()];
        let mut frontier = inputs.clone();
        for _ in 0..5 {
            let mut next = Vec::new();
            for s in &frontier {
                for &b in alphabet.iter() {
                    let mut t = s.clone();
                    t.push(b);
                    next.push(t);
                }
            }
            inputs.extend(next.iter().cloned());
            frontier = next;
        }
        inputs.push(b"&#99999999999999999999;".to_vec());
        inputs.push(b"&#xFFFFFFFFFFFFFFFFFFFF;".to_vec());
        inputs.push("&#x3é;".as_bytes().to_vec());
        assert_eq!(
            inputs.len(),
            (0..=5).map(|k| 18usize.pow(k)).sum::<usize>() + 3
        );
        for s in &inputs {
            assert_eq!(
                match_reference(s),
                match_reference_incremental(s),
                "{:?}",
                String::from_utf8_lossy(s)
            );
        }
    }

    #[test]
    fn matcher_resumes_across_any_split() {
        let input = b"&quot;";
        for split in 1..input.len() {
            let mut m = ReferenceMatcher::new();
            let mut last = Step::More;
            for &b in &input[1..split] {
                last = m.push(b);
            }
            assert_eq!(last, Step::More);
            for &b in &input[split.max(1)..] {
                last = m.push(b);
            }
            assert_eq!(last, Step::Done('"' as u32));
        }
    }
}
