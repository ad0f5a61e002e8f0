//! Reasoning: the third channel beside prose and calls (docs/FORMAT.md §10).
//!
//! Models that think before they answer write `<think>…</think>` (each dialect has its markers)
//! before the answer. [`Reasoned`] splits that block off before the dialect's grammar sees the
//! text: the block's content becomes [`StreamEvent::Reasoning`] deltas, and the grammar starts
//! after the block, so positions, spans and prose stay those of the whole input.
//!
//! ```text
//!  Start ──open marker──► Inside ──close marker (or a call marker, policy `end`)──► Answer
//!    └──anything else (or `starts_open`: Inside from the first byte)──────────────►   │
//!                                                           dialect grammar ◄────────┘
//! ```

use crate::assemble::Assembler;
use crate::dialect::{Dialect, Grammar};
use crate::event::StreamEvent;
use memchr::memmem;
use std::borrow::Cow;
use std::sync::LazyLock;

/// What happens to call markup written inside reasoning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum CallsInReasoning {
    /// A call marker that opens a call ends reasoning, and the call is parsed (vLLM's Qwen3 and
    /// DeepSeek parsers; SGLang ends reasoning at the first tool start token). A marker quoted
    /// in backticks or quotes stays reasoning text. The default.
    #[default]
    End,
    /// Call markup inside reasoning is reasoning text, never a call (Dynamo's policy for a call
    /// inside a closed think block).
    Text,
    /// Calls inside reasoning are parsed and reported apart, as
    /// [`StreamEvent::ReasoningCall`] ([`ParseResult::reasoning_calls`]), never among the
    /// answer's calls; their text is not reasoning text, and reasoning goes on after them.
    ///
    /// ```
    /// use toolcall_parser::{CallsInReasoning, Dialect, ParseOptions, Reasoning, parse_with};
    /// let d = Dialect::Qwen3Coder;
    /// let opts = ParseOptions::new().with_dialect(d).with_reasoning(
    ///     Reasoning::for_dialect(d).with_calls_in_reasoning(CallsInReasoning::Flag),
    /// );
    /// let r = parse_with(
    ///     "<think>Try <tool_call>\n<function=ls>\n</function>\n</tool_call> first.</think>Done.",
    ///     &opts,
    /// );
    /// assert!(r.calls().is_empty());
    /// assert_eq!(r.reasoning_calls()[0].tool_name, "ls");
    /// assert_eq!(r.reasoning(), "Try  first.");
    /// assert_eq!(r.prose(), "Done.");
    /// ```
    ///
    /// [`ParseResult::reasoning_calls`]: crate::ParseResult::reasoning_calls
    Flag,
}

impl CallsInReasoning {
    /// The policy's name, as `--calls-in-reasoning` takes it.
    pub fn name(self) -> &'static str {
        match self {
            CallsInReasoning::End => "end",
            CallsInReasoning::Text => "text",
            CallsInReasoning::Flag => "flag",
        }
    }
}

impl std::str::FromStr for CallsInReasoning {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "end" => Ok(CallsInReasoning::End),
            "text" => Ok(CallsInReasoning::Text),
            "flag" => Ok(CallsInReasoning::Flag),
            other => Err(format!(
                "unknown policy `{other}` for calls in reasoning; expected end, text or flag"
            )),
        }
    }
}

/// How to split reasoning off the answer.
///
/// ```
/// use toolcall_parser::{Dialect, ParseOptions, Reasoning, parse_with};
/// let opts = ParseOptions::new()
///     .with_dialect(Dialect::Qwen3Coder)
///     .with_reasoning(Reasoning::for_dialect(Dialect::Qwen3Coder));
/// let r = parse_with("<think>Look it up.</think>It is 4.", &opts);
/// assert_eq!(r.reasoning(), "Look it up.");
/// assert_eq!(r.prose(), "It is 4.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reasoning {
    /// The markers: a dialect's own are borrowed, so that options cloned per parser allocate
    /// nothing for them.
    open: Cow<'static, str>,
    close: Cow<'static, str>,
    starts_open: bool,
    calls: CallsInReasoning,
}

impl Reasoning {
    /// The dialect's own markers and default policy (the table in docs/FORMAT.md §10).
    pub fn for_dialect(dialect: Dialect) -> Self {
        let (open, close) = dialect.reasoning_markers();
        Reasoning {
            open: Cow::Borrowed(open),
            close: Cow::Borrowed(close),
            starts_open: false,
            calls: CallsInReasoning::default(),
        }
    }

    /// Other markers (`open` may be empty when the output always starts inside reasoning).
    pub fn with_markers(mut self, open: impl Into<String>, close: impl Into<String>) -> Self {
        self.open = Cow::Owned(open.into());
        self.close = Cow::Owned(close.into());
        self
    }

    /// The output starts inside reasoning: the chat template put the opening marker in the
    /// prompt (Qwen3 thinking, DeepSeek-R1 and GLM templates do).
    pub fn starting_open(mut self, open: bool) -> Self {
        self.starts_open = open;
        self
    }

    /// What call markup inside reasoning does.
    pub fn with_calls_in_reasoning(mut self, calls: CallsInReasoning) -> Self {
        self.calls = calls;
        self
    }

    /// The opening and closing markers.
    pub fn markers(&self) -> (&str, &str) {
        (&self.open, &self.close)
    }
}

/// Where the splitter stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the first non-blank byte: an opening marker there begins reasoning.
    Start,
    /// The output starts inside reasoning (`starting_open`), before its first non-blank byte:
    /// an opening marker there repeats the prompt's and is dropped (rule 3's twin).
    OpenStart,
    /// Inside reasoning, read up to `pos`.
    Inside,
    /// After reasoning: a repeated closing marker right after it is dropped; blanks were
    /// looked at up to `pos`.
    Closed,
    /// Inside reasoning, from a call marker on, with policy `Flag`: a grammar of its own
    /// ([`Reasoned::calls`]) reads the calls there until the closing marker ends reasoning.
    Calls,
    /// The answer: everything goes to the dialect's grammar.
    Answer,
}

/// The calls inside reasoning (policy `Flag`): a grammar of the dialect of their own, so that
/// the answer's grammar starts fresh after reasoning and numbers its calls from 0.
#[derive(Debug)]
struct CallsInside {
    grammar: Box<dyn Grammar>,
    /// Reasoning text is emitted up to this absolute offset (the grammar's prose and calls).
    emitted: usize,
    /// Whether the grammar is inside a call (a closing marker there is the call's text).
    in_call: bool,
    /// The closing marker is searched for from here.
    close_from: usize,
}

/// What stands after blanks where a marker may (the opening marker at the start of the output,
/// a repeated closing marker after reasoning): the marker (at this index of the window), not
/// it, or too few bytes to tell.
enum AfterBlanks {
    Marker(usize),
    No,
    NeedMore,
}

/// Whether `marker` follows the blanks at `bytes[rel..]`.
fn marker_after_blanks(bytes: &[u8], rel: usize, marker: &str, is_final: bool) -> AfterBlanks {
    let blanks = bytes[rel..]
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    let at = rel + blanks;
    let (marker, rest) = (marker.as_bytes(), &bytes[at..]);
    if !marker.is_empty() && rest.starts_with(marker) {
        AfterBlanks::Marker(at)
    } else if !is_final && rest.len() < marker.len() && marker.starts_with(rest) {
        AfterBlanks::NeedMore
    } else {
        AfterBlanks::No
    }
}

/// A dialect's grammar behind the reasoning splitter.
#[derive(Debug)]
pub(crate) struct Reasoned {
    inner: Box<dyn Grammar>,
    reasoning: Reasoning,
    call_markers: &'static [&'static str],
    /// The distinct first bytes of the call markers, searched for.
    marker_starts: &'static [u8],
    close: Close,
    phase: Phase,
    /// Absolute offset of the next byte to read (before the answer).
    pos: usize,
    /// The next call marker found ahead (absolute offset and marker), and how far the search
    /// for one went: each byte is searched once however the input is chunked.
    marker_ahead: Option<(usize, usize)>,
    marker_scanned: usize,
    /// The longest call marker's length (at least 1): a search for one that finds none rescans
    /// this less one byte at the window's end.
    longest_marker: usize,
    /// The distinct bytes a call marker or the closing marker begins with (`<` alone in every
    /// dialect's markers): a window in which none occurs is reasoning whole, with no marker
    /// search ([`Reasoned::all_reasoning`]), and the end of a window is held back only from one
    /// of them on ([`Reasoned::held_from`]).
    first_bytes: Vec<u8>,
    /// The longest of the call markers and the closing marker (at least 1): at most this less
    /// one byte at a window's end may still begin one ([`Reasoned::held_from`]).
    hold: usize,
    /// The byte before the window's first byte, once the window no longer holds it.
    prev: Option<u8>,
    /// The dialect and options a grammar for calls inside reasoning is made with.
    dialect: Dialect,
    /// With policy `Flag`, in [`Phase::Calls`]: the grammar reading calls inside reasoning.
    calls: Option<CallsInside>,
}

/// What a splitter searches for, per dialect (by [`Dialect::index`]): its closing marker
/// and the distinct first bytes of its call markers. Made once per process: a splitter that made
/// its own spent 2.6 k instructions on it, more than a short reply's whole parse (1.8 k).
struct Searches {
    close: memmem::Finder<'static>,
    marker_starts: Vec<u8>,
}

static SEARCHES: LazyLock<Vec<Searches>> = LazyLock::new(|| {
    Dialect::ALL
        .iter()
        .map(|d| {
            let mut marker_starts: Vec<u8> = (d.call_markers().iter())
                .filter_map(|m| m.bytes().next())
                .collect();
            marker_starts.sort_unstable();
            marker_starts.dedup();
            Searches {
                close: memmem::Finder::new(d.reasoning_markers().1.as_bytes()),
                marker_starts,
            }
        })
        .collect()
});

/// The search for the closing marker: the dialect's own, shared, or one for other markers.
#[derive(Debug)]
enum Close {
    Shared(&'static memmem::Finder<'static>),
    Own(Box<memmem::Finder<'static>>),
}

impl std::ops::Deref for Close {
    type Target = memmem::Finder<'static>;

    fn deref(&self) -> &Self::Target {
        match self {
            Close::Shared(f) => f,
            Close::Own(f) => f,
        }
    }
}

impl Reasoned {
    pub(crate) fn new(inner: Box<dyn Grammar>, dialect: Dialect, reasoning: Reasoning) -> Self {
        let shared = &SEARCHES[dialect.index()];
        let close = if shared.close.needle() == reasoning.close.as_bytes() {
            Close::Shared(&shared.close)
        } else {
            Close::Own(Box::new(
                memmem::Finder::new(reasoning.close.as_bytes()).into_owned(),
            ))
        };
        let call_markers = dialect.call_markers();
        let longest_marker = call_markers.iter().map(|m| m.len()).max().unwrap_or(1);
        let hold = longest_marker.max(reasoning.close.len()).max(1);
        let mut first_bytes: Vec<u8> = (call_markers.iter().copied())
            .chain([&*reasoning.close])
            .filter_map(|m| m.bytes().next())
            .collect();
        first_bytes.sort_unstable();
        first_bytes.dedup();
        Reasoned {
            inner,
            longest_marker,
            hold,
            first_bytes,
            phase: if reasoning.starts_open {
                Phase::OpenStart
            } else {
                Phase::Start
            },
            call_markers,
            marker_starts: &shared.marker_starts,
            reasoning,
            close,
            pos: 0,
            marker_ahead: None,
            marker_scanned: 0,
            prev: None,
            dialect,
            calls: None,
        }
    }

    /// Starts reading calls inside reasoning at the call marker at absolute offset `at`.
    fn calls_from(&mut self, w: &str, base: usize, at: usize) {
        let opts = self.inner.assembler().opts.clone();
        let locator = self.inner.assembler().locator.clone();
        let mut grammar = self.dialect.grammar(opts, true);
        let asm = grammar.assembler();
        asm.locator = locator;
        asm.locator.move_anchor(w, base, at);
        grammar.start_at(at);
        self.calls = Some(CallsInside {
            grammar,
            emitted: at,
            in_call: false,
            close_from: at,
        });
        self.pos = at;
        self.phase = Phase::Calls;
    }

    /// [`Phase::Calls`]: lets the grammar of calls inside reasoning read up to the closing
    /// marker (or as far as the window allows); its prose is reasoning, its calls and errors
    /// [`StreamEvent::ReasoningCall`]s, its other events dropped. Returns the offset still needed
    /// when the window ends inside reasoning.
    fn run_calls(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> Option<usize> {
        let bytes = w.as_bytes();
        let end = base + bytes.len();
        let close_len = self.reasoning.close.len();
        let calls = self.calls.as_mut()?;
        let close_at = (close_len > 0)
            .then(|| self.close.find(&bytes[calls.close_from - base..]))
            .flatten()
            .map(|i| calls.close_from + i);
        let (limit, last) = match close_at {
            Some(c) => (c, false),
            None if is_final => (end, true),
            None => {
                // Hold back what may begin the closing marker.
                let mut upto = end
                    .saturating_sub(close_len.saturating_sub(1))
                    .max(calls.emitted);
                while !w.is_char_boundary(upto - base) {
                    upto -= 1;
                }
                calls.close_from = calls.close_from.max(upto);
                (upto.max(calls.emitted), false)
            }
        };
        let mut events = Vec::new();
        let keep = calls
            .grammar
            .run(&w[..limit - base], base, last, &mut events);
        for event in events {
            match event {
                StreamEvent::Prose { text } => out.push(StreamEvent::Reasoning { text }),
                StreamEvent::CallStarted { .. } => calls.in_call = true,
                StreamEvent::CallFinished { result, .. } => {
                    calls.in_call = false;
                    out.push(StreamEvent::ReasoningCall { result });
                }
                StreamEvent::Error { error } => {
                    out.push(StreamEvent::ReasoningCall { result: Err(error) });
                }
                _ => {}
            }
        }
        // The grammar's prose (reasoning text) is emitted up to here.
        calls.emitted = calls.emitted.max(calls.grammar.assembler().prose_start);
        let from = calls.emitted.min(limit);
        match close_at {
            Some(c) if !calls.in_call => {
                // Reasoning ends here; what the grammar still held (a marker that began no
                // call) is reasoning text.
                self.calls = None;
                self.emit(w, base, from, c, out);
                self.pos = c + close_len;
                self.phase = Phase::Closed;
                None
            }
            Some(c) => {
                // The closing marker is text of the call: look for the next one.
                calls.close_from = c + 1;
                None
            }
            None if last => {
                self.calls = None;
                self.emit(w, base, from, end, out);
                self.pos = end;
                self.answer_from(w, base, end);
                None
            }
            None => {
                let keep = keep.min(calls.emitted).max(base);
                calls.grammar.assembler().locator.move_anchor(w, base, keep);
                self.pos = keep;
                Some(keep)
            }
        }
    }

    /// Emits reasoning text `w[from..to]` (absolute offsets).
    fn emit(&mut self, w: &str, base: usize, from: usize, to: usize, out: &mut Vec<StreamEvent>) {
        if to > from {
            let text = &w[from - base..to - base];
            if !crate::recycle::fill_text_slot(out, true, text) {
                out.push(StreamEvent::Reasoning {
                    text: self.inner.assembler().recycled.text(text),
                });
            }
        }
    }

    /// The answer begins at absolute offset `at`: the grammar starts there.
    fn answer_from(&mut self, w: &str, base: usize, at: usize) {
        let asm = self.inner.assembler();
        asm.locator.move_anchor(w, base, at);
        self.inner.start_at(at);
        self.pos = at;
        self.phase = Phase::Answer;
    }

    /// Whether no byte of `hay` may begin the closing marker or a call marker (one search for
    /// their first bytes, a word at a time): then no marker is in it or begins at its end, and
    /// all of it is reasoning.
    fn all_reasoning(&self, hay: &[u8]) -> bool {
        crate::dialect::scan::find_any(&self.first_bytes, hay).is_none()
    }

    /// Where the reasoning text of the window `bytes` (at absolute `base`, read from `from`)
    /// must stop, the window not being the last: at the first of its last bytes that the
    /// closing marker or a call marker may begin with the next window (what is before it
    /// cannot begin one: a marker that starts further back would fit in the window, and the
    /// searches would have found it). Text that ends in no such prefix, as most streamed
    /// tokens do, is all emitted and nothing of it is buffered.
    fn held_from(&self, bytes: &[u8], base: usize, from: usize) -> usize {
        let end = base + bytes.len();
        let first = end.saturating_sub(self.hold - 1).max(from) - base;
        let close = self.reasoning.close.as_bytes();
        let begins_a_marker = |tail: &[u8]| {
            close.starts_with(tail)
                || (self.call_markers.iter()).any(|m| m.as_bytes().starts_with(tail))
        };
        (bytes[first..].iter().enumerate())
            .position(|(k, &b)| {
                self.first_bytes.contains(&b) && begins_a_marker(&bytes[first + k..])
            })
            .map_or(end, |k| base + first + k)
    }

    /// The earliest call marker at or after `from` that opens a call (not quoted), if any.
    fn next_call_marker(
        &mut self,
        bytes: &[u8],
        base: usize,
        from: usize,
    ) -> Option<(usize, usize)> {
        if let Some((at, len)) = self.marker_ahead.filter(|&(at, _)| at >= from) {
            return Some((at, len));
        }
        let start = from.max(self.marker_scanned);
        let rest = &bytes[start - base..];
        let mut best: Option<(usize, usize)> = None;
        let mut i = 0;
        while let Some(k) = crate::dialect::scan::find_any(self.marker_starts, &rest[i..]) {
            let at = i + k;
            if let Some(m) = self
                .call_markers
                .iter()
                .find(|m| rest[at..].starts_with(m.as_bytes()))
            {
                let quoted = at
                    .checked_sub(1)
                    .map(|p| rest[p])
                    .or_else(|| (start > base).then(|| bytes[start - base - 1]))
                    .or(self.prev)
                    .is_some_and(|b| matches!(b, b'`' | b'"' | b'\''));
                if !quoted {
                    best = Some((start + at, m.len()));
                    break;
                }
            }
            i = at + 1;
        }
        self.marker_ahead = best;
        crate::work::add(best.map_or(rest.len(), |(at, _)| at - start));
        if best.is_none() {
            self.marker_scanned = (base + bytes.len())
                .saturating_sub(self.longest_marker - 1)
                .max(start);
        }
        best
    }

    fn run_split(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> usize {
        let bytes = w.as_bytes();
        let end = base + bytes.len();
        loop {
            match self.phase {
                Phase::Answer => return self.inner.run(w, base, is_final, out),
                Phase::Calls => {
                    if let Some(keep) = self.run_calls(w, base, is_final, out) {
                        return keep;
                    }
                    if self.calls.is_none() && self.phase == Phase::Calls {
                        // Unreachable: `run_calls` leaves the phase once the grammar is gone.
                        self.phase = Phase::Answer;
                    }
                }
                Phase::Start | Phase::OpenStart => {
                    let open_already = self.phase == Phase::OpenStart;
                    let open = &self.reasoning.open;
                    match marker_after_blanks(bytes, self.pos - base, open, is_final) {
                        AfterBlanks::NeedMore => return self.pos,
                        AfterBlanks::Marker(at) => {
                            // Blanks before the marker: neither reasoning nor answer at the
                            // start; reasoning when the prompt opened it (the marker repeats).
                            if open_already {
                                self.emit(w, base, self.pos, base + at, out);
                            }
                            self.pos = base + at + self.reasoning.open.len();
                            self.phase = Phase::Inside;
                        }
                        AfterBlanks::No if open_already => self.phase = Phase::Inside,
                        AfterBlanks::No => {
                            let start = self.pos;
                            self.answer_from(w, base, start);
                        }
                    }
                }
                Phase::Inside => {
                    let from = self.pos;
                    let hay = &bytes[from - base..];
                    if !is_final
                        && self.marker_ahead.is_none_or(|(at, _)| at < from)
                        && self.all_reasoning(hay)
                    {
                        // A streamed token of reasoning, as most are: emitted whole at once.
                        crate::work::add(hay.len());
                        self.emit(w, base, from, end, out);
                        self.pos = end;
                        self.marker_scanned = end;
                        if end > base {
                            self.prev = Some(bytes[end - base - 1]);
                        }
                        return end;
                    }
                    let close_at = crate::dialect::scan::find(&self.close, hay)
                        .map(|i| from + i)
                        .filter(|_| !self.reasoning.close.is_empty());
                    crate::work::add(close_at.map_or(hay.len(), |c| c - from));
                    let marker = match self.reasoning.calls {
                        CallsInReasoning::End | CallsInReasoning::Flag => {
                            self.next_call_marker(bytes, base, from)
                        }
                        CallsInReasoning::Text => None,
                    };
                    match (close_at, marker) {
                        (Some(c), m) if m.is_none_or(|(at, _)| c <= at) => {
                            self.emit(w, base, from, c, out);
                            self.pos = c + self.reasoning.close.len();
                            self.phase = Phase::Closed;
                        }
                        (_, Some((at, _))) if self.reasoning.calls == CallsInReasoning::Flag => {
                            self.emit(w, base, from, at, out);
                            self.calls_from(w, base, at);
                        }
                        (_, Some((at, _))) => {
                            self.emit(w, base, from, at, out);
                            self.answer_from(w, base, at);
                        }
                        _ if is_final => {
                            // Output that ends inside reasoning is all reasoning.
                            self.emit(w, base, from, end, out);
                            self.pos = end;
                            self.answer_from(w, base, end);
                        }
                        _ => {
                            // Hold back what may begin the closing marker or a call marker.
                            let upto = self.held_from(bytes, base, from);
                            if upto > from {
                                self.emit(w, base, from, upto, out);
                            }
                            self.pos = upto;
                            if upto > base {
                                self.prev = Some(bytes[upto - base - 1]);
                            }
                            return upto;
                        }
                    }
                }
                Phase::Closed => {
                    let close = &self.reasoning.close;
                    match marker_after_blanks(bytes, self.pos - base, close, is_final) {
                        // A second closing marker after reasoning ended is dropped (the blanks
                        // before it too).
                        AfterBlanks::Marker(at) => self.pos = base + at + close.len(),
                        AfterBlanks::NeedMore => return self.pos,
                        AfterBlanks::No => {
                            let start = self.pos;
                            self.answer_from(w, base, start);
                        }
                    }
                }
            }
        }
    }
}

impl Grammar for Reasoned {
    fn run(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> usize {
        self.run_split(w, base, is_final, out)
    }

    fn assembler(&mut self) -> &mut Assembler {
        self.inner.assembler()
    }

    fn start_at(&mut self, at: usize) {
        self.pos = at;
    }
}
