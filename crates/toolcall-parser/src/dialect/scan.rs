//! What the raw-text dialects share (Qwen3-Coder and Seed-OSS, GLM, the invoke family,
//! Kimi-K3): the window being read, what a handler tells its dispatcher, `memmem` scans that remember their answers, probes
//! for markers in prose, and the value being read (its text, its layout newlines, its deltas).
//!
//! Each piece is small and has no opinion on any format; the grammars decide what the bytes mean.

use crate::assemble::{Assembler, CallCore};
use crate::call::RepairKind;
use crate::event::StreamEvent;
use crate::lexer::{Lexeme, Lexer};
use crate::swar;
use memchr::memmem;
use std::ops::Range;
use std::sync::{Arc, LazyLock};

/// The window being read: text, its absolute offset, and whether it ends the input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Input<'w> {
    pub(crate) w: &'w str,
    pub(crate) base: usize,
    pub(crate) is_final: bool,
}

impl Input<'_> {
    /// The window read as if more input followed, as markup inside a call is (docs/FORMAT.md
    /// §7): a marker or tag cut by the end of the input is the cut, never text.
    pub(crate) fn as_if_more(self) -> Self {
        Input {
            is_final: false,
            ..self
        }
    }

    /// The absolute offset after the window.
    pub(crate) fn end(&self) -> usize {
        self.base + self.w.len()
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        self.w.as_bytes()
    }

    /// The bytes from absolute offset `at` on.
    pub(crate) fn from(&self, at: usize) -> &[u8] {
        &self.w.as_bytes()[at - self.base..]
    }
}

/// What a value's text takes when it first grows while streaming: a small value would otherwise
/// be reallocated at each doubling from its first token (16, 32, 64 bytes), each time copied,
/// which cost more than the rest of reading it. A value read in one final window is copied once
/// into a string of its own size instead (one-shot parsing: [`Unflushed`]).
const STREAMED_TEXT_ROOM: usize = 64;

/// Gives an empty, unallocated streamed value's `text` room for `n` bytes and at least
/// [`STREAMED_TEXT_ROOM`]. The one place the growth of a streamed value is decided.
#[inline(always)]
pub(crate) fn first_room(text: &mut String, n: usize) {
    if text.capacity() == 0 {
        text.reserve(n.max(STREAMED_TEXT_ROOM));
    }
}

/// A value's text read in place and not copied yet: the window's bytes from absolute offset
/// `from` to where the value scan stands. A raw-text value loop appends its runs to the value
/// once, when the text must be seen (a close tag, a new argument) or the window ends, so that a
/// value read in one window is copied once, into a string of its own size, instead of growing
/// run by run (a 1 MiB value of code: one copy, where there were a push per run and a doubling
/// series of reallocations, each copying what was there).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unflushed {
    from: usize,
}

impl Unflushed {
    /// Nothing unflushed yet; the scan stands at absolute offset `pos`.
    pub(crate) fn at(pos: usize) -> Self {
        Unflushed { from: pos }
    }

    /// Appends the unflushed bytes up to absolute offset `to` to `text`.
    pub(crate) fn flush(&mut self, text: &mut String, inp: Input<'_>, to: usize) {
        if to > self.from {
            let run = &inp.w[self.from - inp.base..to - inp.base];
            if !inp.is_final {
                first_room(text, run.len());
            }
            text.push_str(run);
            self.from = to;
        }
    }

    /// Whether the value (`text`, then the unflushed bytes up to absolute offset `to`) stands
    /// at the start of a line ([`at_line_start`]).
    pub(crate) fn at_line_start(&self, text: &str, inp: Input<'_>, to: usize) -> bool {
        if to > self.from {
            inp.bytes()[to - inp.base - 1] == b'\n'
        } else {
            at_line_start(text)
        }
    }
}

/// A value left unclosed at absolute offset `at` (its close tag missing where the next argument,
/// the call's close or the block's close stands): a repair of its argument, made before the value
/// closes so that it names the argument (docs/FORMAT.md §4). Every raw-text grammar's.
pub(crate) fn repair_unclosed_value(
    asm: &mut Assembler,
    core: &mut CallCore,
    inp: Input<'_>,
    at: usize,
) {
    asm.repair(inp.w, inp.base, core, RepairKind::UnclosedParameter, at);
}

/// Whether what follows a raw-text value's `text` stands at the start of one of its lines: the
/// value is empty or ends with a line feed. Where a parameter tag may begin (docs/FORMAT.md
/// §9.1 rule 3), in every raw-text grammar and fast path.
pub(crate) fn at_line_start(text: &str) -> bool {
    text.is_empty() || text.ends_with('\n')
}

/// Whether the rest of a window inside a raw-text value (`rest`, all of it text so far as the
/// per-feed fast paths go) holds no `<` that markup of any raw-text dialect could begin there:
/// each `<` is followed, within the window, by a byte other than `/` (a close tag) and `|` (a
/// Kimi-K3 marker), and does not stand at the start of a line (a parameter tag);
/// `line_start_before`: whether the value, before `rest`, ends a line (or is empty). Dense code
/// holds a `<` in most streamed tokens (`a < b`, `Vec<u8>`), which the general path would read
/// as text one byte at a time; a `<` this does not clear sends the window to the general path,
/// which decides. Conservative for every dialect, so one rule serves all.
pub(crate) fn lt_is_text_throughout(rest: &[u8], line_start_before: bool) -> bool {
    let clear = |i: usize| {
        let line_start = match i.checked_sub(1) {
            Some(j) => rest[j] == b'\n',
            None => line_start_before,
        };
        !line_start && rest.get(i + 1).is_some_and(|&b| b != b'/' && b != b'|')
    };
    if rest.len() > SHORT_WINDOW {
        return memchr::memchr_iter(b'<', rest).all(clear);
    }
    // A streamed token: eight bytes at a time, each `<` found exactly (no `memchr` set-up).
    let (words, tail) = rest.as_chunks::<8>();
    for (k, &word) in words.iter().enumerate() {
        let mut lts = swar::find(swar::word(word), [b'<']);
        while lts != 0 {
            if !clear(8 * k + swar::first(lts)) {
                return false;
            }
            lts &= lts - 1;
        }
    }
    let at = rest.len() - tail.len();
    (tail.iter().enumerate()).all(|(k, &b)| b != b'<' || clear(at + k))
}

/// Windows up to this many bytes (a streamed token) are scanned a word at a time in
/// [`lt_is_text_throughout`] and [`Ahead::next`]: `memchr` and `memmem` cost more to set up
/// than the scan.
const SHORT_WINDOW: usize = 32;

/// Where `needle` first occurs in `hay`, a short window: its first byte found a word at a time,
/// the rest compared there. `memmem` gives the same answer (the property
/// `short_find_is_memmem`); it reads a short haystack by Rabin-Karp, at several times the cost.
fn short_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    let matches_at = |i: usize| hay[i + 1..].starts_with(rest);
    let (words, tail) = hay.as_chunks::<8>();
    for (k, &word) in words.iter().enumerate() {
        let mut hits = swar::find(swar::word(word), [first]);
        while hits != 0 {
            let i = 8 * k + swar::first(hits);
            if matches_at(i) {
                return Some(i);
            }
            hits &= hits - 1;
        }
    }
    let at = hay.len() - tail.len();
    (tail.iter().enumerate())
        .find(|&(k, &b)| b == first && matches_at(at + k))
        .map(|(k, _)| at + k)
}

/// Where `finder`'s needle first occurs in `hay`: a short window (a streamed token) by
/// [`short_find`], a longer one by `memmem`. Every search of a needle in a window does this.
#[inline]
pub(crate) fn find(finder: &memmem::Finder<'_>, hay: &[u8]) -> Option<usize> {
    if hay.len() <= SHORT_WINDOW {
        short_find(hay, finder.needle())
    } else {
        finder.find(hay)
    }
}

/// Where `needle` first occurs in `hay`: a short window (a streamed token of prose) a word at
/// a time, a longer one by `memchr` ([`find_any`]).
#[inline]
pub(crate) fn find_byte(needle: u8, hay: &[u8]) -> Option<usize> {
    find_any(&[needle], hay)
}

/// Where one of `needles` (any bytes) first occurs in `hay`: a short window a word at a time
/// (`swar::position`), a longer one by `memchr`.
#[inline]
pub(crate) fn find_any(needles: &[u8], hay: &[u8]) -> Option<usize> {
    use xml_fallback::swar::position;
    let short = hay.len() <= SHORT_WINDOW;
    match *needles {
        [a] if short => position(hay, [a]),
        [a, b] if short => position(hay, [a, b]),
        [a, b, c] if short => position(hay, [a, b, c]),
        [a] => memchr::memchr(a, hay),
        [a, b] => memchr::memchr2(a, b, hay),
        [a, b, c] => memchr::memchr3(a, b, c, hay),
        _ => hay.iter().position(|x| needles.contains(x)),
    }
}

/// The per-feed fast path of prose in the grammars whose markup all begins with `<`
/// (Qwen3-Coder and Seed-OSS, GLM, the invoke family, Hermes, Kimi-K3), run before anything else
/// while they read prose: a window that is not the last and holds no `<` from `*pos` on is prose
/// to its end, emitted at once and `*pos` moved there, as their prose scan would, without a turn
/// of their state machine. Gives the first absolute offset to keep; `None`, having done nothing, when
/// the general path must read the window.
#[inline(always)]
pub(crate) fn prose_tail(
    asm: &mut Assembler,
    inp: Input<'_>,
    pos: &mut usize,
    out: &mut Vec<StreamEvent>,
) -> Option<usize> {
    if inp.is_final || find_byte(b'<', inp.from(*pos)).is_some() {
        return None;
    }
    *pos = inp.end();
    asm.emit_prose(inp.w, inp.base, *pos, out);
    Some(asm.kept_from(*pos))
}

/// What a handler tells the dispatcher: go on with the next state, or stop for more input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Again,
    Stop,
}

/// Where a needle occurs next in the input, as far as it has been scanned: kept between calls
/// so that a value's bytes are scanned once however often the scan is asked.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Ahead {
    /// The absolute offset of the next occurrence found.
    at: Option<usize>,
    /// No occurrence starts before this absolute offset (beyond `at`'s, if any).
    scanned: usize,
}

impl Ahead {
    /// The next occurrence at or after absolute offset `from` in the window.
    pub(crate) fn next(
        &mut self,
        finder: &memmem::Finder<'static>,
        inp: Input<'_>,
        from: usize,
    ) -> Option<usize> {
        if let Some(at) = self.at.filter(|&at| at >= from) {
            return Some(at);
        }
        let start = from.max(self.scanned);
        let hay = inp.from(start);
        let found = find(finder, hay).map(|i| start + i);
        crate::work::add(found.map_or(hay.len(), |at| at - start));
        self.at = found;
        if found.is_none() {
            // A needle may straddle the window's end: rescan its first bytes next time.
            self.scanned = inp
                .end()
                .saturating_sub(finder.needle().len() - 1)
                .max(start);
        }
        found
    }
}

/// The needles of a value scan.
#[derive(Debug)]
pub(crate) struct Finders {
    /// `</`: a close tag.
    pub(crate) close: memmem::Finder<'static>,
    /// A line end followed by `<`: a tag at the start of a line.
    pub(crate) line: memmem::Finder<'static>,
}

/// The value scan's needles, built once per process and shared by every grammar that scans raw
/// values (a finder's set-up costs about 270 instructions a parse, and held in the grammar it
/// made the grammar's allocation over-aligned: `lexer::Finders` has the figures).
pub(crate) static VALUE_FINDERS: LazyLock<Finders> = LazyLock::new(|| Finders {
    close: memmem::Finder::new(b"</"),
    line: memmem::Finder::new(b"\n<"),
});

/// Whether the bytes at a `<` begin one of a list of literals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Literal {
    /// The bytes begin the literal of this index.
    Is(usize),
    /// The window ends inside one of them (and is not final).
    NeedMore,
    /// None of them.
    No,
}

/// Which of `literals` the bytes `s` begin with. A literal that `s` is still a prefix of wins
/// over a shorter one `s` holds (`NeedMore`), so the answer does not depend on chunking.
pub(crate) fn literal_at(s: &[u8], literals: &[&str], is_final: bool) -> Literal {
    let mut found = None;
    for (i, lit) in literals.iter().enumerate() {
        let lit = lit.as_bytes();
        if s.starts_with(lit) {
            if found.is_none_or(|j: usize| literals[j].len() < lit.len()) {
                found = Some(i);
            }
        } else if !is_final && s.len() < lit.len() && lit.starts_with(s) {
            return Literal::NeedMore;
        }
    }
    found.map_or(Literal::No, Literal::Is)
}

/// Blanks between markup: space, tab, line ends.
pub(crate) fn is_blank(b: u8) -> bool {
    xml_fallback::text::is_xml_whitespace_byte(b)
}

/// The absolute offset where the blanks just before `at` begin, not before `floor`: where a
/// call that something after those blanks ends stops, so that they are prose, as after any call.
pub(crate) fn before_blanks(inp: Input<'_>, at: usize, floor: usize) -> usize {
    let from = floor.max(inp.base);
    let kept = inp.w.as_bytes()[from - inp.base..at - inp.base]
        .iter()
        .rposition(|&b| !is_blank(b))
        .map_or(0, |i| i + 1);
    from + kept
}

/// The absolute offset of the first non-blank byte at or after `from`, if the window has one.
/// A window may end before `from` (one cut shorter than an earlier one, as `auto` cuts them):
/// it has none then.
pub(crate) fn non_blank(inp: Input<'_>, from: usize) -> Option<usize> {
    let from = from.min(inp.end());
    inp.from(from)
        .iter()
        .position(|b| !is_blank(*b))
        .map(|i| from + i)
}

/// The lexeme at absolute offset `at` after a close tag met inside a value, which decides
/// whether that close tag is structural (docs/FORMAT.md §9.1 rule 2).
pub(crate) enum Peek<'w> {
    /// The input ends inside it: the close tag before it stands (the call is cut there).
    End,
    /// The window ends inside it: wait for more (the lexer keeps its progress).
    Wait,
    Lexeme(Lexeme<'w>),
}

/// Reads the lexeme at absolute `at` (a `<` after a close tag inside a value) as if more input
/// followed (docs/FORMAT.md §7), without moving `lexer` past it.
pub(crate) fn peek_markup<'w>(lexer: &mut Lexer, inp: Input<'w>, at: usize) -> Peek<'w> {
    let saved = lexer.save();
    let peek = match lexer.next_raw(inp.w, at - inp.base, inp.base, false) {
        None if inp.is_final => Peek::End,
        // The lexer keeps its progress on the lexeme the window cut.
        None => return Peek::Wait,
        Some((lexeme, _)) => Peek::Lexeme(lexeme),
    };
    lexer.restore(saved);
    peek
}

/// What follows a close tag met inside a raw-text value, blanks from `scanned` on skipped: what
/// decides whether the tag is structural (docs/FORMAT.md §9.1 rule 2).
pub(crate) enum AfterClose<'w> {
    /// The input ends (after blanks, or inside a tag it cuts): the close tag stands.
    End,
    /// The window ends first: wait for more, the scan to resume at this absolute offset.
    Wait(usize),
    /// Text that is no markup: the close tag is the value's text.
    Text,
    /// Markup, which the dialect judges.
    Markup(Lexeme<'w>),
}

/// [`AfterClose`] for the close tag whose blanks were scanned up to absolute `scanned`; the
/// markup is read as [`peek_markup`] reads it.
#[inline]
pub(crate) fn after_close<'w>(lexer: &mut Lexer, inp: Input<'w>, scanned: usize) -> AfterClose<'w> {
    match non_blank(inp, scanned) {
        None if inp.is_final => AfterClose::End,
        None => AfterClose::Wait(inp.end()),
        Some(at) if inp.from(at)[0] != b'<' => AfterClose::Text,
        Some(at) => match peek_markup(lexer, inp, at) {
            Peek::End => AfterClose::End,
            Peek::Wait => AfterClose::Wait(at),
            Peek::Lexeme(lexeme) => AfterClose::Markup(lexeme),
        },
    }
}

/// A value being read as raw text.
#[derive(Debug)]
pub(crate) struct RawValue {
    /// The argument's name, moved into the call's arguments when the value closes (its deltas
    /// share an `Arc` of it, `CallCore::delta_argument`, made only when deltas are on).
    pub(crate) name: String,
    pub(crate) text: String,
    /// One layout newline after the opening tag and one before the closing tag are dropped
    /// (docs/FORMAT.md §9.1 rule 1); without, every byte is the value's.
    layout: bool,
    /// Whether the layout newline after the opening tag was looked for.
    started: bool,
    /// Bytes of `text` already delivered as argument deltas.
    sent: usize,
    /// The argument was given before: this value is read (so the call goes on) but dropped, and
    /// sends no deltas, so that what was streamed of the first value stays true (docs/FORMAT.md
    /// §9: a name given twice keeps its first value).
    pub(crate) repeated: bool,
    /// The next `</` and the next line-start `<` ahead of the value scan.
    pub(crate) close: Ahead,
    pub(crate) line: Ahead,
}

/// A raw-text argument whose value closed ([`RawValue::close`]).
#[derive(Debug)]
pub(crate) struct ClosedValue {
    pub(crate) name: String,
    pub(crate) text: String,
    /// The name the argument's deltas shared, for an event about its value.
    pub(crate) shared: Option<Arc<str>>,
}

impl RawValue {
    pub(crate) fn new(name: String, layout: bool) -> Self {
        RawValue {
            name,
            text: String::new(),
            layout,
            started: !layout,
            sent: 0,
            repeated: false,
            close: Ahead::default(),
            line: Ahead::default(),
        }
    }

    /// The value of the argument an opening tag began, as [`Assembler::open_raw_argument`]
    /// gave it: its name, and whether the name was given before (then the value is read, never
    /// delivered, and dropped: the first value stands, docs/FORMAT.md §9).
    pub(crate) fn opened((name, repeated): (String, bool), layout: bool) -> Self {
        RawValue {
            repeated,
            ..RawValue::new(name, layout)
        }
    }

    /// Ends the value at its structural close tag, in every raw-text dialect alike: its last
    /// delta (the layout newline before the tag dropped), and the end of the argument (a later
    /// repair is the call's, `argument: null`, docs/FORMAT.md §4). Gives the argument's name and
    /// text and the name its deltas shared (made only with deltas on), unless the name was
    /// given before (`None`: the value is dropped).
    #[inline]
    pub(crate) fn close(
        mut self,
        asm: &mut Assembler,
        core: &mut CallCore,
        out: &mut Vec<StreamEvent>,
    ) -> Option<ClosedValue> {
        self.deliver(asm, core, true, out);
        let shared = core.delta_argument.take();
        core.argument_ended();
        if self.repeated {
            return None;
        }
        let (name, text) = self.into_parts();
        Some(ClosedValue { name, text, shared })
    }

    /// Whether the next byte stands at the start of a line of the value.
    pub(crate) fn at_line_start(&self) -> bool {
        at_line_start(&self.text)
    }

    /// Skips the layout newline after the opening tag, once: how many bytes at absolute `pos` it
    /// takes, or `None` when the window cannot tell yet.
    pub(crate) fn start(&mut self, inp: Input<'_>, pos: usize) -> Option<usize> {
        if self.started {
            return Some(0);
        }
        let rest = inp.from(pos);
        let n = match (rest.first(), rest.get(1)) {
            (None, _) if !inp.is_final => return None,
            (Some(b'\r'), None) if !inp.is_final => return None,
            (Some(b'\n'), _) => 1,
            (Some(b'\r'), Some(b'\n')) => 2,
            _ => 0,
        };
        self.started = true;
        Some(n)
    }

    /// Bytes at the end of the text that may still be the layout newline before the close tag.
    /// Read from the last byte (a streamed value asks on every feed).
    #[inline(always)]
    fn held(&self) -> usize {
        if !self.layout {
            return 0;
        }
        match self.text.as_bytes() {
            [.., b'\r', b'\n'] => 2,
            [.., b'\n' | b'\r'] => 1,
            _ => 0,
        }
    }

    /// The length of the value once its close tag is structural.
    fn closed_len(&self) -> usize {
        if !self.layout {
            self.text.len()
        } else if self.text.ends_with("\r\n") {
            self.text.len() - 2
        } else if self.text.ends_with('\n') {
            self.text.len() - 1
        } else {
            self.text.len()
        }
    }

    /// The argument's name and its value: the text, less the layout newline at its end.
    pub(crate) fn into_parts(mut self) -> (String, String) {
        let n = self.closed_len();
        self.text.truncate(n);
        (self.name, self.text)
    }

    /// Moves the value's new text to the call's delta, holding back what may still be the
    /// layout newline before its close tag (unless `closing`, when that newline is dropped).
    #[inline(always)]
    pub(crate) fn deliver(
        &mut self,
        asm: &mut Assembler,
        core: &mut CallCore,
        closing: bool,
        out: &mut Vec<StreamEvent>,
    ) {
        if !asm.emit_deltas || self.repeated {
            return;
        }
        let end = if closing {
            self.closed_len()
        } else {
            self.text.len() - self.held()
        };
        if end > self.sent {
            crate::stream::append_token(&mut core.delta, &self.text[self.sent..end]);
            self.sent = end;
        }
        asm.push_delta(core, &self.name, out);
    }

    /// A close tag at `close` inside the value that is text after all (docs/FORMAT.md §9.1 rule
    /// 2): kept as written, with its repair. `false` when it takes the argument past its limit
    /// (the call then has that error).
    pub(crate) fn keep_close_tag(
        &mut self,
        asm: &mut Assembler,
        core: &mut CallCore,
        inp: Input<'_>,
        close: Range<usize>,
    ) -> bool {
        asm.repair(
            inp.w,
            inp.base,
            core,
            RepairKind::CloseTagAsText,
            close.start,
        );
        if !asm.count_argument_bytes(inp.w, inp.base, core, close.len(), close.start) {
            return false;
        }
        self.text
            .push_str(&inp.w[close.start - inp.base..close.end - inp.base]);
        true
    }

    /// The per-feed fast path of the grammars built on this value (all the raw-text ones:
    /// Qwen3-Coder and Seed-OSS, GLM, the invoke family, Kimi-K3): when all that is left of a window
    /// that is not final is text whose every `<` is text too ([`lt_is_text_throughout`]: no
    /// markup of these dialects can begin there), as a streamed token inside a value usually
    /// is, it is the value's, appended at once and `*pos` moved past it. `false`, having done
    /// nothing, when the general path must decide: a `<` that may begin markup, the layout
    /// newline after the opening tag not looked for yet, a limit that could be met in it. The
    /// chunking properties hold the two paths to the same result
    /// (`raw_value_fast_path_equals_the_general_path`).
    #[inline(always)]
    fn plain_tail(
        &mut self,
        asm: &mut Assembler,
        core: &mut CallCore,
        inp: Input<'_>,
        pos: &mut usize,
    ) -> bool {
        if inp.is_final || !self.started {
            return false;
        }
        let rest = inp.from(*pos);
        if rest.is_empty()
            || asm.call_too_long(core, inp.end())
            || core.argument_bytes.saturating_add(rest.len()) > asm.opts.limits.max_argument_bytes
            || !lt_is_text_throughout(rest, self.at_line_start())
        {
            return false;
        }
        crate::work::add(rest.len());
        let counted = asm.count_argument_bytes(inp.w, inp.base, core, rest.len(), *pos);
        debug_assert!(
            counted,
            "checked above: the argument stays within its limit"
        );
        first_room(&mut self.text, rest.len());
        crate::stream::append_token(&mut self.text, &inp.w[*pos - inp.base..]);
        *pos = inp.end();
        true
    }

    /// The whole per-feed fast path of a streamed value, as every raw-text grammar runs it
    /// before anything else: [`plain_tail`](Self::plain_tail), then the delta of what it
    /// appended ([`deliver`](Self::deliver)). Gives the first absolute offset the grammar keeps
    /// (the open call's source from its start, [`Assembler::kept_from`]) when it took the
    /// window; `None`, having done nothing, when the general path must read it. Inlined whole,
    /// with no second look at the grammar's state: a streamed token of a value is most feeds.
    #[inline(always)]
    pub(crate) fn stream_tail(
        &mut self,
        asm: &mut Assembler,
        core: &mut CallCore,
        inp: Input<'_>,
        pos: &mut usize,
        out: &mut Vec<StreamEvent>,
    ) -> Option<usize> {
        if !self.plain_tail(asm, core, inp, pos) {
            return None;
        }
        self.deliver(asm, core, false, out);
        Some(asm.kept_from(core.start))
    }

    /// How many bytes from absolute `pos` are plain text of the value: everything before the
    /// next `<` that can matter, a close tag (`</`) or, with `line_starts`, a `<` at the start of
    /// a line; found by `memmem` with the answers kept, so each byte is scanned once. A `<` at the
    /// end of a window that is not final waits. `at_line_start`: whether `pos` stands at the
    /// start of a line of the value ([`Unflushed::at_line_start`]).
    pub(crate) fn plain_text(
        &mut self,
        inp: Input<'_>,
        pos: usize,
        finders: &Finders,
        line_starts: bool,
        at_line_start: bool,
    ) -> usize {
        let bytes = inp.bytes();
        let rel = pos - inp.base;
        if let Some(&b'<') = bytes.get(rel) {
            let matters = (line_starts && at_line_start)
                || match bytes.get(rel + 1) {
                    Some(&b) => b == b'/',
                    None => !inp.is_final,
                };
            return usize::from(!matters);
        }
        let close = self.close.next(&finders.close, inp, pos);
        let line = if line_starts {
            self.line.next(&finders.line, inp, pos).map(|at| at + 1)
        } else {
            None
        };
        let end = match (close, line) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) if !inp.is_final && bytes.last() == Some(&b'<') => inp.end() - 1,
            (None, None) => inp.end(),
        };
        end - pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The short-window finder answers as `memmem` does, for the needles of the value scans
        /// and others, at every length around the words and the short-window bound.
        #[test]
        fn short_find_is_memmem(
            hay in proptest::collection::vec(proptest::sample::select(b"a</\n<".to_vec()), 0..=SHORT_WINDOW + 2),
            needle in proptest::sample::select(vec![&b"</"[..], b"\n<", b"<", b"", b"<</", b"a\n<"]),
        ) {
            proptest::prop_assert_eq!(short_find(&hay, needle), memmem::find(&hay, needle));
        }

        /// The word-at-a-time scan of short windows answers as the rule read byte by byte does,
        /// at every length around the words and the short-window bound.
        #[test]
        fn lt_is_text_throughout_follows_the_rule(
            rest in proptest::collection::vec(proptest::sample::select(b"a<</|\n".to_vec()), 0..48),
            line_start_before: bool,
        ) {
            let expected = rest.iter().enumerate().all(|(i, &b)| {
                let line_start = if i == 0 { line_start_before } else { rest[i - 1] == b'\n' };
                b != b'<'
                    || (!line_start && rest.get(i + 1).is_some_and(|&n| n != b'/' && n != b'|'))
            });
            proptest::prop_assert_eq!(lt_is_text_throughout(&rest, line_start_before), expected);
        }

    }

    #[test]
    fn the_longest_literal_wins_and_a_prefix_waits() {
        let lits = ["<a>", "<a>b<c>"];
        assert_eq!(literal_at(b"<a>b<c>x", &lits, false), Literal::Is(1));
        assert_eq!(literal_at(b"<a>b<", &lits, false), Literal::NeedMore);
        assert_eq!(literal_at(b"<a>b<", &lits, true), Literal::Is(0));
        assert_eq!(literal_at(b"<a>x", &lits, false), Literal::Is(0));
        assert_eq!(literal_at(b"<b>", &lits, false), Literal::No);
    }

    #[test]
    fn layout_newlines_are_held_and_dropped_only_with_layout() {
        let mut v = RawValue::new("a".to_owned(), true);
        v.text.push_str("x\r\n");
        assert_eq!((v.held(), v.closed_len()), (2, 1));
        let mut v = RawValue::new("a".to_owned(), false);
        v.text.push_str("x\n");
        assert_eq!((v.held(), v.closed_len()), (0, 2));
        assert_eq!(v.into_parts(), ("a".to_owned(), "x\n".to_owned()));
    }
}

/// A call's arguments written as one JSON object inside a dialect's markup (Kimi-K3's `json`
/// block, a DSML invoke's body: docs/FORMAT.md §9.6 rule 9, §9.5 rule 5). Its end is where the
/// object ends, found by the scanner of the JSON dialects (markup inside a JSON string ends
/// nothing; their depth and element limits) within the call's byte limit; then it is read as
/// Hermes's `arguments` are. The grammar says what may stand around it.
#[derive(Debug)]
pub(crate) struct JsonBody {
    /// Absolute offset of the object's `{` (before it is found, of where it is looked for).
    pub(crate) from: usize,
    /// Scanned up to here.
    pub(crate) scanned: usize,
    scanner: crate::json_scan::JsonScanner,
    /// Where the object ends, once it has.
    pub(crate) end: Option<usize>,
}

/// How far [`JsonBody::scan`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyScan {
    /// The object ended (at [`JsonBody::end`]).
    Ended,
    /// The window ended inside it.
    More,
    /// The call failed (too long, a limit, not JSON): its error is recorded.
    Failed,
}

impl JsonBody {
    /// A body whose object starts at (or is looked for from) absolute offset `from`.
    pub(crate) fn at(from: usize) -> Self {
        JsonBody {
            from,
            scanned: from,
            scanner: crate::json_scan::JsonScanner::default(),
            end: None,
        }
    }

    /// Scans on from where it stopped, setting `pos` to where the grammar reads on; a failure
    /// is the call's error, recorded in `core`.
    pub(crate) fn scan(
        &mut self,
        asm: &mut Assembler,
        inp: Input<'_>,
        core: &mut CallCore,
        pos: &mut usize,
    ) -> BodyScan {
        use crate::json_scan::JsonScan;
        let limits = &asm.opts.limits;
        let (max_depth, max_values) = (limits.max_depth, limits.max_elements);
        let limit =
            (core.start.saturating_add(limits.max_call_bytes)).clamp(self.scanned, inp.end());
        let window = &inp.w.as_bytes()[self.scanned - inp.base..limit - inp.base];
        match self.scanner.scan(window, max_depth, max_values) {
            JsonScan::End(n) => {
                self.scanned += n;
                self.end = Some(self.scanned);
                *pos = self.scanned;
                BodyScan::Ended
            }
            JsonScan::More if limit < inp.end() => {
                *pos = limit;
                asm.fail_too_long(inp.w, inp.base, core);
                BodyScan::Failed
            }
            JsonScan::More => {
                self.scanned = limit;
                *pos = limit;
                BodyScan::More
            }
            JsonScan::Failed(f) => {
                let at = self.scanned + f.at;
                *pos = at;
                match f.limit {
                    Some(l) => asm.limit_error(inp.w, inp.base, core, l, f.message, at),
                    None => asm.error(inp.w, inp.base, core, f.kind, f.message, at),
                }
                BodyScan::Failed
            }
        }
    }

    /// The ended object read as the call's arguments (Hermes's reading: JSON types, a name given
    /// twice keeps its first value, the argument-size limit); `None` when it is not such an
    /// object, the call's error recorded in `core`.
    pub(crate) fn read(
        &self,
        asm: &mut Assembler,
        inp: Input<'_>,
        core: &mut CallCore,
    ) -> Option<arg_types::Map> {
        let end = self.end?;
        let text = &inp.w[self.from - inp.base..end - inp.base];
        match crate::dialect::hermes::read_arguments(text) {
            Ok((map, dropped)) => {
                asm.json_arguments(inp.w, inp.base, core, map, dropped, self.from)
            }
            Err((offset, kind, msg, cause)) => {
                let at = (self.from + offset).min(end);
                asm.error(inp.w, inp.base, core, kind, msg, at);
                if let (Some(e), Some(cause)) = (core.error.as_mut(), cause) {
                    e.cause = Some(crate::error::Cause::new(cause));
                }
                None
            }
        }
    }
}
