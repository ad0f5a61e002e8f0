//! The incremental XML lexer, shared by every tool-call grammar.
//!
//! It knows XML's lexical forms (text, references, CDATA, tags, comments, declarations) and
//! nothing of any tool-call format: grammars decide what the lexemes mean. It works over a
//! *window* of the input (the driver's buffer, or the caller's chunk when nothing is buffered) and
//! returns `None` when the window ends inside a lexeme; the driver then keeps the bytes from that
//! lexeme on and calls again with more. Long scans (for `>`, `]]>`, `-->`, digits of a reference)
//! resume where they stopped, so feeding one byte at a time stays linear.
//!
//! Line ends are normalized as XML requires: CR LF and lone CR become LF, in text and CDATA alike.

use crate::swar;
use memchr::{memchr, memchr3, memmem};
use std::borrow::Cow;
use std::sync::LazyLock;
use xml_fallback::reference::{RefMatch, ReferenceMatcher, Step};

/// Longest tag (from `<` to `>`) taken as markup; a longer one is text. Bounds the lookahead.
pub(crate) const MAX_TAG_BYTES: usize = 16 * 1024;

/// One lexical unit. Slices borrow from the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lexeme<'w> {
    /// Text holding no `<`, `&` or CR.
    Text(&'w str),
    /// A line end, normalized to LF.
    Newline,
    /// A character named by a valid reference.
    Char(char),
    /// A valid numeric reference to a character XML forbids (`&#0;`).
    BadCharRef(&'w str),
    /// An `&` that begins no valid reference, to be taken literally.
    BareAmp,
    /// `<![CDATA[`.
    CDataStart,
    /// A piece of CDATA content (no CR).
    CData(&'w str),
    /// `]]>` closing a CDATA section.
    CDataEnd,
    /// A start tag, `self_closing` for `<name/>`.
    StartTag(Tag<'w>),
    /// An end tag `</name>`.
    EndTag(&'w str),
    /// `<!-- … -->`.
    Comment,
    /// `<? … ?>`.
    ProcessingInstruction,
    /// `<!DOCTYPE`, `<!ENTITY` or another declaration.
    Declaration,
    /// A `<` that begins no well-formed markup (`a < b`, `<=`, `<u8, T>`).
    LiteralLt,
}

/// A start tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tag<'w> {
    pub(crate) name: &'w str,
    /// The value of the `<name=value>` form (raw mode only), trimmed; `None` in XML's form.
    pub(crate) value: Option<&'w str>,
    /// Raw attribute text after the name (undecoded), empty when there is none.
    pub(crate) attributes: &'w str,
    pub(crate) self_closing: bool,
}

/// Where a resumable scan stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Resume {
    #[default]
    None,
    /// The bytes after the `&` at absolute offset `at`, matched up to `matcher.seen()`.
    Reference {
        at: usize,
        matcher: ReferenceMatcher,
    },
    /// Markup starting at `at` has been scanned without finding its end up to `to`.
    Markup { at: usize, to: usize, quote: u8 },
}

#[cfg(test)]
thread_local! {
    /// Bytes examined by the lexer's searches that may look past the lexeme they return (for
    /// `]]>`, `-->`, `?>`, barriers, a CR in CDATA, a tag's `>`): the deterministic measure of
    /// work the tests hold to a linear bound.
    pub(crate) static SCANNED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `n` bytes searched (in tests; nothing otherwise).
#[inline]
fn scanned(n: usize) {
    #[cfg(test)]
    SCANNED.with(|c| c.set(c.get() + n));
    crate::work::add(n);
}

/// The next occurrence of a needle in the input, remembered so that no byte is searched twice:
/// however often the lexer asks (after every CR of a CDATA section, at every `<!--` of a value),
/// the searches of one needle cover the input once.
#[derive(Debug, Clone, Copy, Default)]
struct Seek {
    /// Where the remembered search began (absolute).
    from: usize,
    found: Found,
}

#[derive(Debug, Clone, Copy, Default)]
enum Found {
    #[default]
    Unknown,
    /// The first occurrence at or after `from` begins at this absolute offset.
    At(usize),
    /// No occurrence begins in `from..` this absolute offset.
    NoneBefore(usize),
}

impl Seek {
    /// The first occurrence of `needle` that begins at or after absolute `p` and before absolute
    /// `limit`, in the window `bytes` (absolute offset `base`); `None` when the window has none.
    fn find(
        &mut self,
        bytes: &[u8],
        base: usize,
        p: usize,
        limit: usize,
        needle: &memmem::Finder<'_>,
    ) -> Option<usize> {
        self.find_where(bytes, base, p, limit, needle, |_| Some(true))
    }

    /// As [`Seek::find`], for the first occurrence that `takes` takes: given what follows the
    /// occurrence in the window, it says whether the occurrence counts (`Some(true)`), does not
    /// (`Some(false)`: the search goes on past it), or cannot be told yet (`None`: the window
    /// ends too soon; nothing is found, and the next search resumes at that occurrence).
    fn find_where(
        &mut self,
        bytes: &[u8],
        base: usize,
        p: usize,
        limit: usize,
        needle: &memmem::Finder<'_>,
        takes: impl Fn(&[u8]) -> Option<bool>,
    ) -> Option<usize> {
        let n = needle.needle().len();
        let mut start = p;
        match self.found {
            // Found in a longer window than this one (the grammar may cap a window at a call's
            // limit after an uncapped one read further): this window does not hold it.
            Found::At(at) if self.from <= p && at >= p => {
                return (at < limit && at + n <= base + bytes.len()).then_some(at);
            }
            Found::NoneBefore(to) if self.from <= p && p <= to => start = to,
            _ => self.from = p,
        }
        // Bytes that may hold the first byte of an occurrence before `limit`, and the rest of it.
        let end = (base + bytes.len()).min(limit.saturating_add(n - 1));
        loop {
            if start >= end {
                self.found = Found::NoneBefore(start);
                return None;
            }
            let Some(i) = needle.find(&bytes[start - base..end - base]) else {
                scanned(end - start);
                self.found = Found::NoneBefore((end + 1).saturating_sub(n).max(start));
                return None;
            };
            let hit = start + i;
            scanned(i + n);
            match takes(&bytes[hit + n - base..]) {
                Some(true) => {
                    self.found = Found::At(hit);
                    return (hit < limit).then_some(hit);
                }
                Some(false) => start = hit + 1,
                None => {
                    self.found = Found::NoneBefore(hit);
                    return None;
                }
            }
        }
    }
}

/// The lexer's state between calls: whether it is inside CDATA, any resumable scan, and where
/// the terminators it looks for are.
#[derive(Debug, Clone)]
pub(crate) struct Lexer {
    /// All that changes as it reads: saved before a lexeme is read ahead and put back after
    /// ([`Lexer::save`], [`Lexer::restore`]).
    state: LexerState,
    /// Its searches, shared by every lexer of the same kind ([`Finders`]).
    finders: &'static Finders,
}

/// The searches a lexer makes for its terminators (`]]>`, `-->`, `?>`, and a barrier's `<name`
/// and `</name`), built once per process and shared: a finder's set-up costs about 270
/// instructions, and a one-shot parse of a short reply built five of them (3.3 k of the 6.2 k
/// instructions `parse` spent on a two-byte input), then copied them into its grammar, whose
/// allocation they made over-aligned.
#[derive(Debug)]
pub(crate) struct Finders {
    cdata_end: memmem::Finder<'static>,
    comment_end: memmem::Finder<'static>,
    pi_end: memmem::Finder<'static>,
    /// `<NAME` and `</NAME` of [`Finders::with_barrier`]: markup a comment may not hold.
    barrier: Option<[memmem::Finder<'static>; 2]>,
}

impl Finders {
    fn new(barrier: Option<[memmem::Finder<'static>; 2]>) -> Self {
        Finders {
            cdata_end: memmem::Finder::new(b"]]>"),
            comment_end: memmem::Finder::new(b"-->"),
            pi_end: memmem::Finder::new(b"?>"),
            barrier,
        }
    }

    /// The searches of a lexer whose comments and processing instructions may not hold `open`
    /// (`<name`) or `close` (`</name`) (docs/FORMAT.md §7): one that does is no comment, its
    /// `<` is literal, so an unclosed `<!--` cannot swallow the element `name` (a call's end,
    /// the next call). A grammar keeps them in a `static` and lexes with
    /// [`Lexer::with_finders`].
    pub(crate) fn with_barrier(open: &'static str, close: &'static str) -> Self {
        debug_assert!(open.starts_with('<') && close.starts_with("</") && close[2..] == open[1..]);
        Finders::new(Some([
            memmem::Finder::new(open.as_bytes()),
            memmem::Finder::new(close.as_bytes()),
        ]))
    }
}

/// The searches of a lexer with no barrier.
static PLAIN: LazyLock<Finders> = LazyLock::new(|| Finders::new(None));

/// What a [`Lexer`] changes as it reads (its finders never change).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LexerState {
    in_cdata: bool,
    resume: Resume,
    /// The remembered searches for `]]>`, `-->`, `?>` and the two barriers.
    seek_cdata: Seek,
    seek_comment: Seek,
    seek_pi: Seek,
    seek_barrier: [Seek; 2],
}

impl Lexer {
    /// The state [`restore`](Self::restore) puts back.
    pub(crate) fn save(&self) -> LexerState {
        self.state
    }

    /// Puts back a state saved by [`save`](Self::save): the lexer reads as if nothing had been
    /// read since.
    pub(crate) fn restore(&mut self, saved: LexerState) {
        self.state = saved;
    }
}

impl Default for Lexer {
    fn default() -> Self {
        Lexer::with_finders(&PLAIN)
    }
}

/// The bare `&`s of a text run: how many, and the offsets of the first few.
#[derive(Debug, Default)]
pub(crate) struct BareAmps {
    pub(crate) first: Vec<usize>,
    pub(crate) count: usize,
}

impl BareAmps {
    fn push(&mut self, at: usize) {
        if self.first.len() < crate::MAX_REPAIR_POSITIONS {
            self.first.push(at);
        }
        self.count += 1;
    }

    /// Empties it, keeping its allocation.
    pub(crate) fn clear(&mut self) {
        self.first.clear();
        self.count = 0;
    }
}

/// The result of one step: a lexeme and the bytes it covered, or a request for more input.
pub(crate) type Lexed<'w> = Option<(Lexeme<'w>, usize)>;

impl Lexer {
    /// A lexer searching with `finders` (a barrier's: [`Finders::with_barrier`]).
    pub(crate) fn with_finders(finders: &'static Finders) -> Self {
        Lexer {
            state: LexerState::default(),
            finders,
        }
    }

    /// Whether the lexer is inside a CDATA section.
    pub(crate) fn in_cdata(&self) -> bool {
        self.state.in_cdata
    }

    /// Forgets any scan in progress (after the grammar skipped input).
    pub(crate) fn reset(&mut self) {
        self.state.in_cdata = false;
        self.state.resume = Resume::None;
    }

    /// Lexes at `w[pos..]`; `base` is the absolute offset of `w[0]`. Returns the lexeme and its
    /// length, or `None` when more input is needed (`is_final` false) before deciding.
    pub(crate) fn next<'w>(
        &mut self,
        w: &'w str,
        pos: usize,
        base: usize,
        is_final: bool,
    ) -> Lexed<'w> {
        crate::work::add(1);
        let bytes = w.as_bytes();
        if pos >= bytes.len() {
            return None;
        }
        if self.state.in_cdata {
            return self.cdata(w, pos, base, is_final);
        }
        match bytes[pos] {
            b'&' => self.reference(w, pos, base, is_final),
            b'<' => self.markup(w, pos, base, is_final),
            b'\r' => newline(bytes, pos, is_final),
            _ => {
                let end =
                    memchr3(b'<', b'&', b'\r', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
                Some((Lexeme::Text(&w[pos..end]), end - pos))
            }
        }
    }

    /// Decodes a run of character data at `w[pos..]` straight into `out`: text, references,
    /// line ends; the hot path for entity-escaped values, one pass with no lexeme per entity.
    /// Bare `&`s are taken literally and counted in `bare`, the absolute offsets of the first
    /// [`MAX_REPAIR_POSITIONS`](crate::MAX_REPAIR_POSITIONS) kept (memory per run is bounded). It stops
    /// before `<`, before anything the general path must decide (a reference that is incomplete
    /// at the end of the window or names a forbidden character, a CR at the window's end), and
    /// at the end of the window; it returns the bytes consumed and whether references were seen.
    pub(crate) fn text_run(
        &mut self,
        w: &str,
        pos: usize,
        base: usize,
        is_final: bool,
        out: &mut String,
        bare: &mut BareAmps,
    ) -> (usize, bool) {
        debug_assert!(!self.state.in_cdata);
        let bytes = w.as_bytes();
        let mut refs = false;
        let mut i = pos;
        let mut specials = Specials::from(pos);
        loop {
            let Some(j) = specials.next(bytes, i) else {
                out.push_str(&w[i..]);
                return (bytes.len() - pos, refs);
            };
            match w.get(i..i + 16) {
                // A short run (most of escaped code's): sixteen bytes moved whole, no
                // `memcpy` call and its branches on the length, the bytes past the run dropped;
                // only into room there is (a short value's string does not grow for it).
                Some(s) if j - i <= 16 && out.capacity() - out.len() >= 16 => {
                    out.push_str(s);
                    out.truncate(out.len() - (16 - (j - i)));
                }
                _ => out.push_str(&w[i..j]),
            }
            let rest = &bytes[j + 1..];
            // Each arm pushes its own character: a literal one is a byte, not an encoding.
            let len = match bytes[j] {
                b'<' => return (j - pos, refs),
                b'\r' => {
                    let len = match rest.first() {
                        Some(b'\n') => 2,
                        Some(_) => 1,
                        None if is_final => 1,
                        None => return (j - pos, refs),
                    };
                    out.push('\n');
                    i = j + len;
                    continue;
                }
                // The five named entities first: nearly every reference a model writes (one
                // decision on the byte after `&`, then its few bytes).
                _ if let Some((c, len)) = named_entity(rest) => {
                    out.push(c);
                    len
                }
                _ => match xml_fallback::reference::match_reference(&bytes[j..]) {
                    RefMatch::Valid { len, code_point } => {
                        match xml_fallback::reference::decode_code_point(code_point) {
                            Some(c) => {
                                out.push(c);
                                len
                            }
                            None => return (j - pos, refs),
                        }
                    }
                    RefMatch::Incomplete if !is_final => return (j - pos, refs),
                    RefMatch::Incomplete | RefMatch::Bare => {
                        bare.push(base + j);
                        out.push('&');
                        i = j + 1;
                        continue;
                    }
                },
            };
            refs = true;
            i = j + len;
        }
    }

    fn cdata<'w>(&mut self, w: &'w str, pos: usize, base: usize, is_final: bool) -> Lexed<'w> {
        let bytes = w.as_bytes();
        let rest = &bytes[pos..];
        if rest.starts_with(b"]]>") {
            self.state.in_cdata = false;
            return Some((Lexeme::CDataEnd, 3));
        }
        if rest[0] == b'\r' {
            // A line end inside CDATA is CDATA.
            return newline(bytes, pos, is_final).map(|(_, n)| (Lexeme::CData("\n"), n));
        }
        let end = pos
            + if rest.len() <= SHORT_CDATA {
                short_cdata_end(rest, is_final)
            } else {
                self.long_cdata_end(bytes, pos, base, is_final)
            };
        if end == pos {
            return None;
        }
        Some((Lexeme::CData(&w[pos..end]), end - pos))
    }

    /// Where the CDATA content at `bytes[pos..]` ends, relative to `pos`: before `]]>`, before a
    /// CR, before a `]` or `]]` ending a window that is not final (it may begin `]]>`), else at
    /// the end. Where `]]>` is (or is not) is remembered: a section of many CRs is searched once.
    fn long_cdata_end(&mut self, bytes: &[u8], pos: usize, base: usize, is_final: bool) -> usize {
        let rest = &bytes[pos..];
        let at = base + pos;
        let end =
            match self
                .state
                .seek_cdata
                .find(bytes, base, at, usize::MAX, &self.finders.cdata_end)
            {
                Some(i) => i - at,
                None if is_final => rest.len(),
                None => {
                    let hold = if rest.ends_with(b"]]") {
                        2
                    } else if rest.ends_with(b"]") {
                        1
                    } else {
                        0
                    };
                    rest.len() - hold
                }
            };
        let cr = memchr(b'\r', &rest[..end]);
        scanned(cr.map_or(end, |i| i + 1));
        cr.unwrap_or(end)
    }

    fn reference<'w>(&mut self, w: &'w str, pos: usize, base: usize, is_final: bool) -> Lexed<'w> {
        let bytes = w.as_bytes();
        let at = base + pos;
        let (mut matcher, mut i) = match self.state.resume {
            Resume::Reference { at: a, matcher } if a == at => (matcher, pos + 1 + matcher.seen()),
            _ => (ReferenceMatcher::new(), pos + 1),
        };
        while i < bytes.len() {
            match matcher.push(bytes[i]) {
                Step::More => i += 1,
                Step::Done(code_point) => {
                    self.state.resume = Resume::None;
                    let len = i + 1 - pos;
                    return Some(
                        match xml_fallback::reference::decode_code_point(code_point) {
                            Some(c) => (Lexeme::Char(c), len),
                            None => (Lexeme::BadCharRef(&w[pos..pos + len]), len),
                        },
                    );
                }
                Step::Bare => {
                    self.state.resume = Resume::None;
                    return Some((Lexeme::BareAmp, 1));
                }
            }
        }
        if is_final {
            self.state.resume = Resume::None;
            return Some((Lexeme::BareAmp, 1));
        }
        self.state.resume = Resume::Reference { at, matcher };
        None
    }

    fn markup<'w>(&mut self, w: &'w str, pos: usize, base: usize, is_final: bool) -> Lexed<'w> {
        let bytes = w.as_bytes();
        let rest = &bytes[pos..];
        // Fixed prefixes first; each needs only a few bytes to decide.
        for (prefix, kind) in [
            (&b"<![CDATA["[..], Fixed::CData),
            (b"<!--", Fixed::Comment),
            (b"<?", Fixed::Pi),
        ] {
            if rest.len() < prefix.len() && prefix.starts_with(rest) {
                return if is_final {
                    Some((Lexeme::LiteralLt, 1))
                } else {
                    None
                };
            }
            if rest.starts_with(prefix) {
                return match kind {
                    Fixed::CData => {
                        self.state.in_cdata = true;
                        Some((Lexeme::CDataStart, prefix.len()))
                    }
                    Fixed::Comment | Fixed::Pi => self.until(w, pos, base, kind, is_final),
                };
            }
        }
        match rest.get(1) {
            None => {
                if is_final {
                    Some((Lexeme::LiteralLt, 1))
                } else {
                    None
                }
            }
            Some(b'!') => match rest.get(2) {
                None if !is_final => None,
                Some(c) if c.is_ascii_uppercase() => Some((Lexeme::Declaration, 2)),
                _ => Some((Lexeme::LiteralLt, 1)),
            },
            Some(b'/') => self.tag(w, pos, base, is_final, true),
            Some(&c) if is_name_start(c) => self.tag(w, pos, base, is_final, false),
            Some(_) => Some((Lexeme::LiteralLt, 1)),
        }
    }

    /// A comment or processing instruction at `pos`: markup only when its terminator ends it
    /// within [`MAX_TAG_BYTES`] of its `<` and no barrier (see [`Lexer::with_barrier`]) comes
    /// before; otherwise its `<` is literal (docs/FORMAT.md §7). Both searches are remembered, so
    /// a value of many unclosed `<!--` is searched once.
    fn until<'w>(
        &mut self,
        w: &'w str,
        pos: usize,
        base: usize,
        kind: Fixed,
        is_final: bool,
    ) -> Lexed<'w> {
        let bytes = w.as_bytes();
        let at = base + pos;
        // The body begins after the opener: `<!-->` and `<!--->` hold no `-->` (XML's rule).
        let (lexeme, finder, seek, opener) = match kind {
            Fixed::Pi => (
                Lexeme::ProcessingInstruction,
                &self.finders.pi_end,
                &mut self.state.seek_pi,
                2,
            ),
            _ => (
                Lexeme::Comment,
                &self.finders.comment_end,
                &mut self.state.seek_comment,
                4,
            ),
        };
        let n = finder.needle().len();
        // The terminator must end within the bound: it begins before `limit`.
        let limit = at + MAX_TAG_BYTES + 1 - n;
        let body = at + opener;
        let end = seek.find(bytes, base, body, limit, finder);
        // A barrier before the terminator (or, while it is not in sight, anywhere in the window).
        let barrier_limit = end.unwrap_or(limit);
        let barred = match &self.finders.barrier {
            Some(finders) => finders
                .iter()
                .zip(&mut self.state.seek_barrier)
                .any(|(f, s)| {
                    // `<NAME` begins the element only where the name ends (`<tool_name` is
                    // another element).
                    let ends = |after: &[u8]| after.first().map(|&b| !is_name_byte(b));
                    s.find_where(bytes, base, body, barrier_limit, f, ends)
                        .is_some()
                }),
            None => false,
        };
        match end {
            _ if barred => Some((Lexeme::LiteralLt, 1)),
            Some(e) => Some((lexeme, e + n - at)),
            None if is_final || base + bytes.len() >= at + MAX_TAG_BYTES => {
                Some((Lexeme::LiteralLt, 1))
            }
            None => None,
        }
    }

    /// A start or end tag at `pos`: finds its `>` (outside quotes), then checks its syntax.
    fn tag<'w>(
        &mut self,
        w: &'w str,
        pos: usize,
        base: usize,
        is_final: bool,
        end_tag: bool,
    ) -> Lexed<'w> {
        let bytes = w.as_bytes();
        let at = base + pos;
        let (mut i, mut quote) = match self.state.resume {
            Resume::Markup { at: a, to, quote } if a == at => (to - base, quote),
            _ => (pos + 1, 0),
        };
        let limit = bytes.len().min(pos + MAX_TAG_BYTES);
        let scan_from = i;
        let close = loop {
            if quote == 0 {
                i = next_tag_byte(bytes, i, limit);
            }
            if i >= limit {
                scanned(i - scan_from);
                if i >= pos + MAX_TAG_BYTES || is_final {
                    self.state.resume = Resume::None;
                    return Some((Lexeme::LiteralLt, 1));
                }
                self.state.resume = Resume::Markup {
                    at,
                    to: base + i,
                    quote,
                };
                return None;
            }
            let b = bytes[i];
            if quote != 0 {
                if b == quote {
                    quote = 0;
                } else if b == b'<' {
                    break None; // `<` is not allowed in attribute values
                }
            } else if b == b'"' || b == b'\'' {
                quote = b;
            } else if b == b'>' {
                break Some(i);
            } else if b == b'<' {
                break None;
            }
            i += 1;
        };
        scanned(i - scan_from);
        self.state.resume = Resume::None;
        let Some(close) = close else {
            return Some((Lexeme::LiteralLt, 1));
        };
        let inner = &w[pos + 1..close];
        let len = close + 1 - pos;
        let lexeme = if end_tag {
            parse_end_tag(&inner[1..]).map(Lexeme::EndTag)
        } else {
            parse_start_tag(inner).map(Lexeme::StartTag)
        };
        Some(lexeme.map_or((Lexeme::LiteralLt, 1), |l| (l, len)))
    }
}

/// Longest tag taken as markup in raw mode; a longer one is text. Raw-mode tags are names and
/// short values (`<parameter=path>`, `<invoke name="f">`), so the bound is small.
pub(crate) const MAX_RAW_TAG_BYTES: usize = 1024;

impl Lexer {
    /// Lexes raw text at `w[pos..]`, for dialects whose values are written as they are: no
    /// references, no CDATA, no comments, line ends kept as written. The only markup is tags:
    /// `<name>`, `<name attr="v">`, `<name=value>`, `</name>`; a `<` that begins none of them is
    /// [`Lexeme::LiteralLt`]. Text runs to the next `<`. Returns `None` when the window ends inside
    /// a tag (`is_final` false); the scan for its `>` resumes where it stopped.
    pub(crate) fn next_raw<'w>(
        &mut self,
        w: &'w str,
        pos: usize,
        base: usize,
        is_final: bool,
    ) -> Lexed<'w> {
        crate::work::add(1);
        let bytes = w.as_bytes();
        if pos >= bytes.len() {
            return None;
        }
        if bytes[pos] != b'<' {
            let end = memchr(b'<', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
            return Some((Lexeme::Text(&w[pos..end]), end - pos));
        }
        let at = base + pos;
        let from = match self.state.resume {
            Resume::Markup { at: a, to, .. } if a == at => to - base,
            _ => pos + 1,
        };
        let limit = bytes.len().min(pos + MAX_RAW_TAG_BYTES);
        // A raw tag ends at `>`; a `<` or a line end before it means it was no tag. Tags are
        // short: a word at a time, as `next_tag_byte` (`memchr3`'s set-up cost more).
        let close = swar::position(&bytes[from..limit], [b'>', b'<', b'\n']).map(|i| from + i);
        let Some(close) = close else {
            if limit < pos + MAX_RAW_TAG_BYTES && !is_final {
                self.state.resume = Resume::Markup {
                    at,
                    to: base + limit,
                    quote: 0,
                };
                return None;
            }
            self.state.resume = Resume::None;
            return Some((Lexeme::LiteralLt, 1));
        };
        self.state.resume = Resume::None;
        if bytes[close] != b'>' {
            return Some((Lexeme::LiteralLt, 1));
        }
        let inner = &w[pos + 1..close];
        let len = close + 1 - pos;
        let lexeme = if let Some(end) = inner.strip_prefix('/') {
            parse_end_tag(end).map(Lexeme::EndTag)
        } else {
            parse_raw_start_tag(inner).map(Lexeme::StartTag)
        };
        Some(lexeme.map_or((Lexeme::LiteralLt, 1), |l| (l, len)))
    }
}

/// A raw-mode start tag: `name=value` (blanks around `=` allowed, the value trimmed and
/// non-empty) or XML's form.
fn parse_raw_start_tag(s: &str) -> Option<Tag<'_>> {
    let n = name_len(s.as_bytes())?;
    // Models write `<function = f>` too: blanks may stand around the `=`.
    let eq = n + s.as_bytes()[n..]
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t'))
        .count();
    match s.as_bytes().get(eq) {
        Some(b'=') => {
            let value = trim_blanks(&s[eq + 1..]);
            (!value.is_empty()).then(|| Tag {
                name: &s[..n],
                value: Some(value),
                attributes: "",
                self_closing: false,
            })
        }
        _ => parse_start_tag(s),
    }
}

/// `s` without the spaces, tabs and carriage returns around it (byte by byte: a `char` pattern
/// decodes each character).
fn trim_blanks(s: &str) -> &str {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
    let bytes = s.as_bytes();
    let start = bytes.iter().position(|b| !blank(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |i| i + 1);
    // Both ends stand next to ASCII bytes or the ends of `s`: character boundaries.
    &s[start..end]
}

/// The character and length (with its `&`) of the named entity `rest` begins with, the bytes
/// after a `&`: one of the five of XML, else `None`.
#[inline(always)]
pub(crate) fn named_entity(rest: &[u8]) -> Option<(char, usize)> {
    match rest {
        [b'l', b't', b';', ..] => Some(('<', 4)),
        [b'g', b't', b';', ..] => Some(('>', 4)),
        [b'a', b'm', b'p', b';', ..] => Some(('&', 5)),
        [b'q', b'u', b'o', b't', b';', ..] => Some(('"', 6)),
        [b'a', b'p', b'o', b's', b';', ..] => Some(('\'', 6)),
        _ => None,
    }
}

/// Whether `rest`, all the bytes after a `&` to the end of a window, is a proper beginning of one
/// of the five named entities (`&`, `&l`, `&amp`…): a reference the window cuts short, whose end
/// is still to come. (Its one definition beside [`named_entity`]; any other reference is left to
/// `xml_fallback::reference::match_reference`.)
#[inline(always)]
pub(crate) fn named_entity_prefix(rest: &[u8]) -> bool {
    matches!(
        rest,
        [] | [b'l']
            | [b'l', b't']
            | [b'g']
            | [b'g', b't']
            | [b'a']
            | [b'a', b'm']
            | [b'a', b'm', b'p']
            | [b'a', b'p']
            | [b'a', b'p', b'o']
            | [b'a', b'p', b'o', b's']
            | [b'q']
            | [b'q', b'u']
            | [b'q', b'u', b'o']
            | [b'q', b'u', b'o', b't']
    )
}

/// The `<`, `&` and CR bytes of a text run in order. Where they come close together (after one
/// was found, until a block holds none) they are found a 64-byte block at a time
/// ([`swar::block`], one bit per byte) and walked lowest first: where the next one is never
/// waits for the decoding of the one before, and a block's walk ends once per block, not at an
/// unpredictable word per reference. Elsewhere (the first, a long run, the last bytes) by
/// [`next_special`]: a short value's one `<` costs no block, a long run is `memchr3`'s.
struct Specials {
    /// Where the bytes searched end: after a block, the block's end.
    end: usize,
    /// The last block's special bytes not yet returned, bit `k` for `bytes[end - 64 + k]`.
    bits: u64,
    /// Whether the next search is a block's.
    dense: bool,
}

impl Specials {
    /// The special bytes at and after `pos`.
    fn from(pos: usize) -> Self {
        Specials {
            end: pos,
            bits: 0,
            dense: false,
        }
    }

    /// The next special byte at or after `i`, where `i` is at or after the last one returned and
    /// the bytes between were read (a reference, a line end: none of them holds a special byte;
    /// one that did would be skipped).
    #[inline]
    fn next(&mut self, bytes: &[u8], i: usize) -> Option<usize> {
        loop {
            if self.bits != 0 {
                let j = self.end - 64 + self.bits.trailing_zeros() as usize;
                self.bits &= self.bits - 1;
                if j >= i {
                    return Some(j);
                }
                continue;
            }
            if self.dense
                && let Some(chunk) = bytes[self.end..].first_chunk::<64>()
            {
                self.end += 64;
                self.bits = swar::block(chunk, [b'<', b'&', b'\r']);
                self.dense = self.bits != 0;
                continue;
            }
            let j = next_special(bytes, self.end.max(i))?;
            self.end = j + 1;
            self.dense = true;
            return Some(j);
        }
    }
}

/// The next `<`, `&` or CR at or after `from`. Entity-escaped code has a reference every dozen
/// bytes or so, too close for `memchr3`'s setup to pay: the first 64 bytes are scanned eight at a
/// time ([`swar::find_first`]), the rest by `memchr3`.
#[inline]
fn next_special(bytes: &[u8], from: usize) -> Option<usize> {
    let near = bytes.len().min(from + 64);
    let (words, tail) = bytes[from..near].as_chunks::<8>();
    for (k, &word) in words.iter().enumerate() {
        let hits = swar::find_first(swar::word(word), [b'<', b'&', b'\r']);
        if hits != 0 {
            return Some(from + 8 * k + swar::first(hits));
        }
    }
    let i = near - tail.len();
    if bytes.len() <= near {
        // Under eight bytes left (a streamed chunk's tail): too few for `memchr3`'s setup.
        return bytes[i..]
            .iter()
            .position(|&b| matches!(b, b'<' | b'&' | b'\r'))
            .map(|k| i + k);
    }
    memchr3(b'<', b'&', b'\r', &bytes[i..]).map(|k| i + k)
}

/// The next `>`, `<` or quote in `bytes[from..limit]` (outside a quoted value, the bytes a tag's
/// scan acts on), else `limit`; a word at a time, since tags are short.
#[inline]
fn next_tag_byte(bytes: &[u8], from: usize, limit: usize) -> usize {
    if from >= limit {
        return limit;
    }
    swar::position(&bytes[from..limit], [b'>', b'<', b'"', b'\'']).map_or(limit, |k| from + k)
}

/// Up to this many bytes of CDATA (a streamed chunk) are scanned bytewise: `memmem` and
/// `memchr` cost more to set up than the scan.
const SHORT_CDATA: usize = 16;

/// [`Lexer::long_cdata_end`] by a bytewise scan.
fn short_cdata_end(rest: &[u8], is_final: bool) -> usize {
    for (j, &b) in rest.iter().enumerate() {
        let tail = &rest[j..];
        let ends_here = match b {
            b'\r' => true,
            b']' => tail.starts_with(b"]]>") || (!is_final && b"]]>".starts_with(tail)),
            _ => false,
        };
        if ends_here {
            return j;
        }
    }
    rest.len()
}

#[derive(Clone, Copy)]
enum Fixed {
    CData,
    Comment,
    Pi,
}

/// CR at `pos`: CR LF and lone CR are one line end.
fn newline<'w>(bytes: &[u8], pos: usize, is_final: bool) -> Lexed<'w> {
    match bytes.get(pos + 1) {
        Some(b'\n') => Some((Lexeme::Newline, 2)),
        Some(_) => Some((Lexeme::Newline, 1)),
        None if is_final => Some((Lexeme::Newline, 1)),
        None => None,
    }
}

/// Whether `b` may start an XML name (ASCII letters, `_`, `:`, or any non-ASCII character).
pub(crate) fn is_name_start(b: u8) -> bool {
    NAME_BYTES[usize::from(b)] == NAME_START
}

/// Whether `b` may continue an XML name: a start byte, an ASCII digit, `-` or `.`.
pub(crate) fn is_name_byte(b: u8) -> bool {
    NAME_BYTES[usize::from(b)] != 0
}

/// [`NAME_BYTES`]' mark of a byte that may start a name.
const NAME_START: u8 = 2;

/// What each byte may be in a name: [`NAME_START`], 1 (only after the first byte), 0 (never).
/// One lookup per byte of a tag's name, where the comparisons of the rule cost several.
const NAME_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_alphabetic() || c == b'_' || c == b':' || c >= 0x80 {
            NAME_START
        } else if c.is_ascii_digit() || c == b'-' || c == b'.' {
            1
        } else {
            0
        };
        b += 1;
    }
    t
};

fn is_ws(b: u8) -> bool {
    xml_fallback::text::is_xml_whitespace_byte(b)
}

/// The length of the name at the start of `s`, if one starts there.
fn name_len(s: &[u8]) -> Option<usize> {
    if !s.first().is_some_and(|&b| is_name_start(b)) {
        return None;
    }
    Some(s.iter().position(|&b| !is_name_byte(b)).unwrap_or(s.len()))
}

/// `name ws*` of an end tag (the text between `</` and `>`).
fn parse_end_tag(s: &str) -> Option<&str> {
    let n = name_len(s.as_bytes())?;
    s.as_bytes()[n..].iter().all(|&b| is_ws(b)).then(|| &s[..n])
}

/// `name (ws+ attr ws* = ws* quoted)* ws* /?` of a start tag (the text between `<` and `>`).
fn parse_start_tag(s: &str) -> Option<Tag<'_>> {
    let b = s.as_bytes();
    let n = name_len(b)?;
    if n == b.len() {
        // A name alone (`<path>`), most tags: nothing else to read.
        return Some(Tag {
            name: s,
            value: None,
            attributes: "",
            self_closing: false,
        });
    }
    let (body, self_closing) = match s.strip_suffix('/') {
        Some(body) => (body, true),
        None => (s, false),
    };
    let body_bytes = body.as_bytes();
    if n > body_bytes.len() {
        return None;
    }
    let mut i = n;
    loop {
        let ws_start = i;
        while i < body_bytes.len() && is_ws(body_bytes[i]) {
            i += 1;
        }
        if i == body_bytes.len() {
            break;
        }
        if i == ws_start {
            return None; // attributes must be separated by whitespace
        }
        i += name_len(&body_bytes[i..])?;
        while i < body_bytes.len() && is_ws(body_bytes[i]) {
            i += 1;
        }
        if body_bytes.get(i) != Some(&b'=') {
            return None;
        }
        i += 1;
        while i < body_bytes.len() && is_ws(body_bytes[i]) {
            i += 1;
        }
        let q = *body_bytes.get(i).filter(|&&q| q == b'"' || q == b'\'')?;
        let close = memchr(q, &body_bytes[i + 1..])?;
        i += close + 2;
    }
    Some(Tag {
        name: &s[..n],
        value: None,
        attributes: body[n..].trim_start_matches([' ', '\t', '\n', '\r']),
        self_closing,
    })
}

/// Decoded attributes of a start tag: `(name, value)` pairs. Values have references decoded
/// (bare `&` kept literally) and whitespace normalized to spaces, as XML requires.
pub(crate) fn decode_attributes(raw: &str) -> Vec<(String, String)> {
    attributes(raw)
        .map(|(name, value)| (name.to_owned(), decode_attribute_value(value).into_owned()))
        .collect()
}

/// The decoded value of the attribute `key` of a start tag (the first of that name), borrowed
/// from the tag when it holds nothing to decode: what a dialect reads of one attribute, without
/// decoding or allocating the others.
pub(crate) fn attribute<'t>(raw: &'t str, key: &str) -> Option<Cow<'t, str>> {
    attributes(raw)
        .find(|&(name, _)| name == key)
        .map(|(_, value)| decode_attribute_value(value))
}

/// The attributes of a start tag (the text after its name), as written: `(name, quoted value)`
/// pairs, in order, up to the first that is not `name = "value"` or `name = 'value'`. The one
/// reading of a tag's attributes; [`decode_attribute_value`] decodes a value.
fn attributes(raw: &str) -> impl Iterator<Item = (&str, &str)> {
    let b = raw.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && is_ws(b[i]) {
            i += 1;
        }
        let n = name_len(&b[i..])?;
        let name = &raw[i..i + n];
        i += n;
        while i < b.len() && (is_ws(b[i]) || b[i] == b'=') {
            i += 1;
        }
        let &q = b.get(i)?;
        let close = memchr(q, &b[i + 1..])?;
        let value = &raw[i + 1..i + 1 + close];
        i += close + 2;
        Some((name, value))
    })
    .fuse()
}

/// An attribute's value decoded: references (a bare `&` kept literally), and tabs and line ends
/// as spaces (a CR LF as one), as XML requires; borrowed when there is nothing to decode.
fn decode_attribute_value(v: &str) -> Cow<'_, str> {
    let b = v.as_bytes();
    if !b.iter().any(|&c| matches!(c, b'&' | b'\t' | b'\n' | b'\r')) {
        return Cow::Borrowed(v);
    }
    let mut out = String::with_capacity(v.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'&' => match xml_fallback::reference::match_reference(&b[i..]) {
                xml_fallback::reference::RefMatch::Valid { len, code_point } => {
                    out.push(
                        xml_fallback::reference::decode_code_point(code_point)
                            .unwrap_or('\u{fffd}'),
                    );
                    i += len;
                }
                _ => {
                    out.push('&');
                    i += 1;
                }
            },
            b'\r' if b.get(i + 1) == Some(&b'\n') => i += 1,
            b'\t' | b'\n' | b'\r' => {
                out.push(' ');
                i += 1;
            }
            _ => {
                let end = b[i..]
                    .iter()
                    .position(|&c| matches!(c, b'&' | b'\t' | b'\n' | b'\r'))
                    .map_or(b.len(), |p| i + p);
                out.push_str(&v[i..end]);
                i = end;
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of name bytes is the rule, for every byte: letters, `_`, `:` and non-ASCII
    /// start a name; digits, `-` and `.` continue one; nothing else is in a name.
    #[test]
    fn name_bytes_follow_the_rule() {
        for b in 0..=u8::MAX {
            let start = b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80;
            assert_eq!(is_name_start(b), start, "{b:#04x}");
            let inner = start || b.is_ascii_digit() || b == b'-' || b == b'.';
            assert_eq!(is_name_byte(b), inner, "{b:#04x}");
        }
    }

    /// Lexes `input` fed in pieces of `chunk` bytes, as the driver would (keeping the bytes of an
    /// unfinished lexeme), and returns the lexemes with owned text.
    fn lex(input: &str, chunk: usize) -> Vec<String> {
        let mut lexer = Lexer::default();
        let mut out = Vec::new();
        let mut buf = String::new();
        let mut base = 0;
        let mut fed = 0;
        while fed < input.len() || !buf.is_empty() {
            let mut end = (fed + chunk).min(input.len());
            while !input.is_char_boundary(end) {
                end += 1;
            }
            buf.push_str(&input[fed..end]);
            fed = end;
            let is_final = fed == input.len();
            let mut pos = 0;
            while let Some((l, n)) = lexer.next(&buf, pos, base, is_final) {
                out.push(format!("{l:?}"));
                pos += n;
            }
            buf.drain(..pos);
            base += pos;
            if is_final {
                break;
            }
        }
        // Text and CDATA may arrive in more pieces when chunks are smaller: merge neighbours.
        let mut merged: Vec<String> = Vec::new();
        for l in out {
            let piece = |s: &str, kind: &str| {
                s.strip_prefix(kind)
                    .and_then(|r| r.strip_suffix("\")"))
                    .map(str::to_owned)
            };
            let joined = ["Text(\"", "CData(\""].iter().find_map(|kind| {
                let last = merged.last()?;
                Some(format!(
                    "{kind}{}{}\")",
                    piece(last, kind)?,
                    piece(&l, kind)?
                ))
            });
            match joined {
                Some(j) => *merged.last_mut().expect("joined with the last") = j,
                None => merged.push(l),
            }
        }
        merged
    }

    #[test]
    fn lexemes_of_a_call() {
        let got = lex(
            "a&amp;b&&<x y='1'>\r\n<![CDATA[c]]d]]></x><!-- n --><?pi?><!DOCTYPE a < b",
            4096,
        );
        assert_eq!(
            got,
            vec![
                "Text(\"a\")",
                "Char('&')",
                "Text(\"b\")",
                "BareAmp",
                "BareAmp",
                "StartTag(Tag { name: \"x\", value: None, attributes: \"y='1'\", self_closing: false })",
                "Newline",
                "CDataStart",
                "CData(\"c]]d\")",
                "CDataEnd",
                "EndTag(\"x\")",
                "Comment",
                "ProcessingInstruction",
                "Declaration",
                "Text(\"DOCTYPE a \")",
                "LiteralLt",
                "Text(\" b\")",
            ]
        );
    }

    #[test]
    fn every_chunking_gives_the_same_lexemes() {
        let input = "x &#x3C; &quot;q&quot; <a b=\"&gt;\">Vec<T> a < b </a > \r\n\
                     <![CDATA[ ]]]]><![CDATA[> \r ]]> <!-- c --> </ x> <u8, T> &#0; é&amp";
        let whole = lex(input, input.len());
        for chunk in 1..12 {
            assert_eq!(lex(input, chunk), whole, "chunk size {chunk}");
        }
    }

    proptest::proptest! {
        /// The bytewise scan of short CDATA windows ends content where `memmem` does.
        #[test]
        fn short_and_long_cdata_scans_agree(
            rest in proptest::collection::vec(proptest::sample::select(b"a]>\r".to_vec()), 1..=SHORT_CDATA),
            is_final: bool,
        ) {
            let mut lexer = Lexer::default();
            proptest::prop_assert_eq!(
                short_cdata_end(&rest, is_final),
                lexer.long_cdata_end(&rest, 0, 0, is_final)
            );
        }

        /// One attribute read alone is that attribute of all of them, decoded alike.
        #[test]
        fn attribute_is_that_of_decode_attributes(
            raw in "([ \t\n]{0,2}[ab]{1,2}[ ]?=[ ]?(\"[a&;\t\r\nlt]{0,4}\"|'[a&\"]{0,3}')){0,4}[ =\"a]{0,2}",
            key in "[ab]{1,2}",
        ) {
            let all = decode_attributes(&raw);
            let expected = all.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str());
            let one = attribute(&raw, &key);
            proptest::prop_assert_eq!(one.as_deref(), expected);
        }

        /// The bytewise trim of a raw tag's value is `trim_matches` over the same characters.
        #[test]
        fn trim_blanks_is_trim_matches(s in "[ \t\r\na-zé]{0,8}") {
            proptest::prop_assert_eq!(trim_blanks(&s), s.trim_matches([' ', '\t', '\r']));
        }

        /// A tag's scan stops at the first `>`, `<` or quote, word by word or in the tail.
        #[test]
        fn next_tag_byte_finds_the_first_byte_a_tag_scan_acts_on(
            bytes in proptest::collection::vec(proptest::sample::select(b"ab<>\"'=".to_vec()), 0..40),
            from in 0usize..40,
            limit in 0usize..40,
        ) {
            let limit = limit.min(bytes.len());
            let expected = (from..limit)
                .find(|&i| matches!(bytes[i], b'>' | b'<' | b'"' | b'\''))
                .unwrap_or(limit);
            proptest::prop_assert_eq!(next_tag_byte(&bytes, from, limit), expected);
        }

        /// The five named entities' fast reading agrees with the general reference matcher:
        /// a complete one is the same reference, none is missed, and a proper beginning of one
        /// is incomplete there too.
        #[test]
        fn named_entities_agree_with_the_reference_matcher(
            rest in proptest::collection::vec(proptest::sample::select(b"ltgampousqx;#&".to_vec()), 0..8),
        ) {
            let mut with_amp = vec![b'&'];
            with_amp.extend_from_slice(&rest);
            let general = xml_fallback::reference::match_reference(&with_amp);
            match named_entity(&rest) {
                Some((c, len)) => proptest::prop_assert_eq!(
                    general,
                    RefMatch::Valid { len, code_point: u32::from(c) }
                ),
                None => {
                    let named = matches!(
                        general,
                        RefMatch::Valid { len, .. }
                            if [b"lt;".as_slice(), b"gt;", b"amp;", b"quot;", b"apos;"]
                                .contains(&&with_amp[1..len])
                    );
                    proptest::prop_assert!(!named, "a named entity missed: {:?}", rest);
                }
            }
            if named_entity_prefix(&rest) {
                proptest::prop_assert_eq!(general, RefMatch::Incomplete);
            }
        }

        /// `text_run` decodes what the lexemes of the general path decode, and stops where they
        /// stop (markup, a forbidden character's reference, a reference or CR the window's end
        /// cuts short), with the same bare `&`s: across 64-byte blocks, runs longer and shorter
        /// than its sixteen-byte moves, characters of every width across a move's end.
        #[test]
        fn text_run_decodes_as_the_lexemes_do(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "b c", "é", "😀", "0123456789abcdefghi", "<", "<b>", "&", "&lt;", "&gt;",
                "&amp;", "&quot;", "&apos;", "&#60;", "&#x3c;", "&#0;", "&l", "&amp", "&x;",
                "\r", "\r\n", "\n", "]]>",
            ]), 0..80),
            start in 0usize..80,
            is_final in proptest::bool::ANY,
        ) {
            let w: String = pieces.concat();
            let pos: usize = pieces[..start.min(pieces.len())].iter().map(|p| p.len()).sum();
            let base = 1000;
            let (mut out, mut bare) = (String::new(), BareAmps::default());
            let (n, refs) = Lexer::default().text_run(&w, pos, base, is_final, &mut out, &mut bare);

            let (mut expected, mut expected_bare, mut expected_refs) = (String::new(), vec![], false);
            let mut lexer = Lexer::default();
            let mut i = pos;
            while let Some((lexeme, len)) = lexer.next(&w, i, base, is_final) {
                match lexeme {
                    Lexeme::Text(s) => expected.push_str(s),
                    Lexeme::Newline => expected.push('\n'),
                    Lexeme::Char(c) => {
                        expected.push(c);
                        expected_refs = true;
                    }
                    Lexeme::BareAmp => {
                        expected.push('&');
                        expected_bare.push(base + i);
                    }
                    _ => break,
                }
                i += len;
            }
            proptest::prop_assert_eq!(&out, &expected);
            proptest::prop_assert_eq!(n, i - pos);
            proptest::prop_assert_eq!(refs, expected_refs);
            proptest::prop_assert_eq!(bare.count, expected_bare.len());
            expected_bare.truncate(crate::MAX_REPAIR_POSITIONS);
            proptest::prop_assert_eq!(bare.first, expected_bare);
        }

        /// The bytewise tail of `next_special` finds what `memchr3` finds.
        #[test]
        fn next_special_finds_the_first_special_byte(
            bytes in proptest::collection::vec(proptest::sample::select(b"ab<&\r]".to_vec()), 0..100),
            from in 0usize..100,
        ) {
            let from = from.min(bytes.len());
            let expected = memchr3(b'<', b'&', b'\r', &bytes[from..]).map(|k| from + k);
            proptest::prop_assert_eq!(next_special(&bytes, from), expected);
        }
    }

    /// Bytes searched by the lexer while parsing `text`, one-shot and in chunks of 7 bytes.
    fn work(text: &str) -> [usize; 2] {
        let count = |f: &dyn Fn()| {
            SCANNED.with(|c| c.set(0));
            f();
            SCANNED.with(|c| c.get())
        };
        [
            count(&|| drop(crate::parse(text))),
            count(&|| {
                let mut p = crate::StreamParser::new();
                for c in crate::chunks(text, 7) {
                    p.feed(c);
                }
                p.finish();
            }),
        ]
    }

    /// Issue 14 items 1 and 3: the searches for terminators (`]]>` after every CR of a CDATA
    /// section, `-->` and `?>` at every unclosed `<!--` and `<?`) cover the input a bounded number
    /// of times, one-shot and streamed: at most 8 bytes searched per input byte at every size (a
    /// search resumes a needle's length before where the last one ended, for each needle), and at
    /// most 2.2 times the work per doubling of the input.
    #[test]
    fn searches_are_linear_in_the_input() {
        let call = |value: String| {
            format!("<tool><tool_name>w</tool_name><arguments><c>{value}</c></arguments></tool>")
        };
        let inputs: [(&str, &dyn Fn(usize) -> String); 7] = [
            ("CRLF in CDATA", &|n| {
                call(format!("<![CDATA[{}]]>", "ab;\r\n".repeat(n)))
            }),
            ("lone CR in CDATA", &|n| {
                call(format!("<![CDATA[{}]]>", "\r".repeat(n)))
            }),
            ("unclosed comments", &|n| call("x <!-- y\n".repeat(n))),
            ("unclosed PIs", &|n| call("x <? y\n".repeat(n))),
            ("comments barred by calls", &|n| {
                format!("{}-->", call("a <!-- b".into()).repeat(n))
            }),
            ("unclosed tags", &|n| call("<a b='".repeat(n))),
            // Occurrences of the barriers' bytes that are no barrier (a longer name).
            ("unclosed comments holding longer names", &|n| {
                call("x <!-- <tool_name </toolbox\n".repeat(n))
            }),
        ];
        for (what, make) in inputs {
            let mut last: Option<[usize; 2]> = None;
            for n in [4_000, 8_000, 16_000, 32_000] {
                let text = make(n);
                let w = work(&text);
                for (mode, &w) in ["one-shot", "streamed"].iter().zip(&w) {
                    assert!(
                        w <= 8 * text.len(),
                        "{what}, {mode}: {w} bytes searched for {} of input",
                        text.len()
                    );
                }
                if let Some(last) = last {
                    for k in 0..2 {
                        // Linear is 2 per doubling (quadratic 4); 2.2 leaves room for the
                        // constant part of the first sizes.
                        assert!(
                            w[k] * 10 <= last[k] * 22 + 640,
                            "{what}: {last:?} then {w:?}"
                        );
                    }
                }
                last = Some(w);
            }
        }
    }

    #[test]
    fn malformed_tags_are_literal() {
        for s in [
            "<u8, T>", "< b", "<=", "<a b>", "<a b=c>", "<a\"x\">", "</ a>", "<1>",
        ] {
            assert_eq!(lex(s, 100)[0], "LiteralLt", "{s}");
        }
        assert_eq!(
            lex("<a/>", 100)[0],
            "StartTag(Tag { name: \"a\", value: None, attributes: \"\", self_closing: true })"
        );
    }

    #[test]
    fn overlong_tag_is_text() {
        let s = format!("<a {}", "x".repeat(MAX_TAG_BYTES));
        assert_eq!(lex(&s, 1000)[0], "LiteralLt");
    }

    #[test]
    fn attributes_are_decoded_and_normalized() {
        assert_eq!(
            decode_attributes("a=\"x&amp;y&z\" b='1\t2'"),
            vec![("a".into(), "x&y&z".into()), ("b".into(), "1 2".into())]
        );
    }
}
