//! [`StreamParser`]: the one parser. One-shot parsing is this parser fed one chunk.
//!
//! The driver owns the buffer. When nothing is buffered, a chunk is read in place (zero-copy) and
//! only the bytes the dialect's grammar still needs are kept: the call in progress, or the few
//! prose bytes that could still begin a call. Otherwise the chunk is appended and the grammar
//! resumes where it stopped; nothing is reparsed. The driver knows no dialect: it runs whichever
//! grammar [`ParseOptions::dialect`] names.

use crate::dialect::Grammar;
use crate::error::{ErrorKind, Limit, ParseError};
use crate::event::StreamEvent;
use crate::options::ParseOptions;
use crate::reasoning::Reasoned;

/// The incremental parser: [`feed`](StreamParser::feed) chunks as they arrive, then
/// [`finish`](StreamParser::finish).
///
/// ```
/// use toolcall_parser::{StreamParser, StreamEvent};
/// let mut p = StreamParser::new();
/// let mut events = p.feed("Writing it.\n<tool><tool_name>write_to_file</tool_name><argu");
/// events.extend(p.feed("ments><path>a.txt</path></arguments></tool>"));
/// events.extend(p.finish());
/// let done = events.iter().find_map(|e| match e {
///     StreamEvent::CallFinished { result: Ok(call), .. } => Some(call),
///     _ => None,
/// });
/// assert_eq!(done.unwrap().arguments["path"].as_str(), Some("a.txt"));
/// ```
#[derive(Debug)]
pub struct StreamParser {
    grammar: Box<dyn Grammar>,
    /// Input from absolute offset `base` on that the grammar still needs.
    buf: String,
    base: usize,
    /// Bytes accepted so far.
    fed: usize,
    /// The options' `max_input_bytes`, kept here: every feed reads it.
    max_input: usize,
    /// The first bytes of a UTF-8 character split by [`StreamParser::feed_bytes`].
    utf8_tail: Vec<u8>,
    /// Input beyond the size limit was dropped (reported at `finish`).
    truncated: bool,
    finished: bool,
}

impl Default for StreamParser {
    fn default() -> Self {
        StreamParser::new()
    }
}

impl StreamParser {
    /// A parser with default options.
    pub fn new() -> Self {
        StreamParser::with_options(ParseOptions::default())
    }

    /// A parser with these options.
    pub fn with_options(options: ParseOptions) -> Self {
        StreamParser::build(options, true)
    }

    /// Turns [`StreamEvent::ArgumentDelta`] events on (the default) or off. Off saves an event
    /// per chunk for callers that only want whole calls.
    ///
    /// ```
    /// let mut p = toolcall_parser::StreamParser::new().argument_deltas(false);
    /// let events = p.feed("<tool><tool_name>w</tool_name><arguments><c>abc");
    /// assert!(events.iter().all(|e| !matches!(e, toolcall_parser::StreamEvent::ArgumentDelta { .. })));
    /// ```
    pub fn argument_deltas(mut self, on: bool) -> Self {
        self.grammar.assembler().emit_deltas = on;
        self
    }

    /// The parser behind one-shot parsing: events that only matter while streaming (call
    /// started, tool name, argument deltas) are not made there, since the result folds them away.
    pub(crate) fn build(options: ParseOptions, progress: bool) -> Self {
        let max_input = options.limits.max_input_bytes;
        StreamParser {
            max_input,
            grammar: {
                let dialect = options.dialect;
                let reasoning = options.reasoning.clone();
                let grammar = dialect.grammar(options, progress);
                match reasoning {
                    Some(r) => Box::new(Reasoned::new(grammar, dialect, r)),
                    None => grammar,
                }
            },
            buf: String::new(),
            base: 0,
            fed: 0,
            utf8_tail: Vec::new(),
            truncated: false,
            finished: false,
        }
    }

    /// Reads the next chunk and returns the events it made certain.
    pub fn feed(&mut self, chunk: &str) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        self.feed_into(chunk, &mut out);
        out
    }

    /// Like [`feed`](StreamParser::feed), appending the events to `out`.
    pub fn feed_into(&mut self, chunk: &str, out: &mut Vec<StreamEvent>) {
        if crate::recycle::looks_like_a_slot(out) {
            // The caller's own event looks like one of `feed_reusing`'s slots: it stays as it is.
            let mut own = Vec::new();
            self.feed_events(chunk, &mut own);
            return out.append(&mut own);
        }
        self.feed_events(chunk, out);
    }

    /// The feed behind [`feed_into`](StreamParser::feed_into) and
    /// [`feed_reusing`](StreamParser::feed_reusing), inlined in each (one call less a chunk).
    #[inline(always)]
    fn feed_events(&mut self, chunk: &str, out: &mut Vec<StreamEvent>) {
        if self.finished {
            return;
        }
        let chunk = self.within_input_limit(chunk);
        if chunk.is_empty() {
            return;
        }
        if self.buf.is_empty() {
            return self.feed_unbuffered(chunk, out);
        }
        append(&mut self.buf, chunk);
        let keep = self.grammar.run(&self.buf, self.base, false, out);
        // Nothing freed, nothing to move: the locator's anchor is never before `base`.
        if keep > self.base {
            self.release(keep);
        }
    }

    /// A chunk with nothing buffered: read in place, and only what is still needed kept. Out of
    /// line, as [`release`](Self::release) is: a small chunk inside a call, the most frequent
    /// feed, takes neither path, and the feed's own code stays small.
    #[inline(never)]
    fn feed_unbuffered(&mut self, chunk: &str, out: &mut Vec<StreamEvent>) {
        let keep = self.grammar.run(chunk, self.base, false, out);
        self.grammar
            .assembler()
            .locator
            .move_anchor(chunk, self.base, keep);
        self.buf.push_str(&chunk[keep - self.base..]);
        self.base = keep;
    }

    /// Drops the buffered input before absolute offset `keep`, no longer needed.
    #[inline(never)]
    fn release(&mut self, keep: usize) {
        self.grammar
            .assembler()
            .locator
            .move_anchor(&self.buf, self.base, keep);
        self.buf.drain(..keep - self.base);
        self.base = keep;
    }

    /// Like [`feed_into`](StreamParser::feed_into), but `events` first gives back the events of
    /// the last chunk: they are dropped, and their text buffers (and the shared name of the
    /// argument their deltas belong to) become this chunk's events. When what comes back is one
    /// argument delta, one piece of prose or one of reasoning, as while a value, prose or
    /// reasoning streams, this chunk's event of that kind is written over it in place.
    /// A server that reads each chunk's events by reference and feeds the next chunk with the
    /// same `Vec` allocates no string per chunk once streaming runs (docs/PERFORMANCE.md
    /// measures the saving). What is kept between chunks is bounded (4 strings of at most
    /// 4 KiB), and the events are exactly those [`feed`](StreamParser::feed) returns, whatever
    /// the caller did to the events it hands back.
    ///
    /// ```
    /// use toolcall_parser::{StreamEvent, StreamParser};
    /// let mut p = StreamParser::new();
    /// let mut events = Vec::new();
    /// let mut content = String::new();
    /// for chunk in ["<tool><tool_name>w</tool_name><arguments><c>ab", "cd", "ef</c></arguments></tool>"] {
    ///     p.feed_reusing(chunk, &mut events);
    ///     for e in &events {
    ///         if let StreamEvent::ArgumentDelta { text, .. } = e {
    ///             content.push_str(text);
    ///         }
    ///     }
    /// }
    /// assert_eq!(content, "abcdef");
    /// ```
    pub fn feed_reusing(&mut self, chunk: &str, events: &mut Vec<StreamEvent>) {
        // One handed-back delta, piece of prose or of reasoning (a value, prose or reasoning
        // streaming) is written over in place; any other events are taken apart for their
        // strings.
        use crate::recycle::Slot;
        let slot = if events.is_empty() {
            None
        } else if crate::recycle::open_delta_slot(events) {
            Some(Slot::Delta)
        } else {
            self.take_back_or_open_text_slot(events)
        };
        self.feed_events(chunk, events);
        match slot {
            None => {}
            Some(Slot::Delta) => {
                crate::recycle::close_delta_slot(events, || &mut self.grammar.assembler().recycled)
            }
            Some(Slot::Text { reasoning })
                if crate::recycle::text_slot_unfilled(events, reasoning) =>
            {
                self.remove_text_slot(events)
            }
            Some(Slot::Text { .. }) => {}
        }
    }

    /// Events handed back that are not one delta: one piece of prose or reasoning is left as a
    /// slot for this chunk's text of its kind; otherwise their strings (and argument name) are
    /// kept for this chunk's events. Out of line: a streamed value hands back a delta.
    #[inline(never)]
    fn take_back_or_open_text_slot(
        &mut self,
        events: &mut Vec<StreamEvent>,
    ) -> Option<crate::recycle::Slot> {
        if let Some(slot) = crate::recycle::open_text_slot(events) {
            return Some(slot);
        }
        let recycled = &mut self.grammar.assembler().recycled;
        while let Some(event) = events.pop() {
            recycled.keep(event);
        }
        None
    }

    /// Removes the text slot of [`feed_reusing`](Self::feed_reusing) that no text filled,
    /// keeping its string.
    #[inline(never)]
    fn remove_text_slot(&mut self, events: &mut Vec<StreamEvent>) {
        let slot = events.remove(0);
        self.grammar.assembler().recycled.keep(slot);
    }

    /// Reads the next chunk of raw bytes, which may split a UTF-8 character anywhere: the
    /// bytes of an incomplete character wait for the next chunk. Bytes that are not UTF-8 are
    /// read as U+FFFD, as `String::from_utf8_lossy` would.
    ///
    /// ```
    /// let text = "<tool><tool_name>t</tool_name><arguments><a>é</a></arguments></tool>".as_bytes();
    /// let mut p = toolcall_parser::StreamParser::new();
    /// let mut events = Vec::new();
    /// for b in text.chunks(1) {
    ///     events.extend(p.feed_bytes(b));
    /// }
    /// events.extend(p.finish());
    /// let r = toolcall_parser::ParseResult::from_events(events);
    /// assert_eq!(r.calls()[0].arguments["a"].as_str(), Some("é"));
    /// ```
    pub fn feed_bytes(&mut self, chunk: &[u8]) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        let joined;
        let bytes = if self.utf8_tail.is_empty() {
            chunk
        } else {
            let mut v = std::mem::take(&mut self.utf8_tail);
            v.extend_from_slice(chunk);
            joined = v;
            &joined[..]
        };
        let mut rest = bytes;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    self.feed_into(s, &mut out);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // The prefix was just checked to be UTF-8.
                    self.feed_into(std::str::from_utf8(valid).unwrap_or_default(), &mut out);
                    match e.error_len() {
                        Some(bad) => {
                            self.feed_into("\u{fffd}", &mut out);
                            rest = &after[bad..];
                        }
                        None => {
                            // An incomplete character at the end: wait for its other bytes.
                            self.utf8_tail = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        out
    }

    /// Ends the input: emits held-back prose and an error for a call still open.
    pub fn finish(&mut self) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        if !self.utf8_tail.is_empty() {
            // A character cut off by the end of the input.
            self.utf8_tail.clear();
            self.feed_into("\u{fffd}", &mut out);
        }
        if !self.finished {
            let buf = std::mem::take(&mut self.buf);
            self.end(&buf, &mut out);
        }
        out
    }

    /// One-shot parsing: `text` is the one and final chunk. The same grammar runs over it in
    /// place; only the buffering between chunks (and the line count over text it would drop) is
    /// skipped, since nothing follows.
    pub(crate) fn parse_final(options: ParseOptions, text: &str) -> Vec<StreamEvent> {
        let mut parser = StreamParser::build(options, false);
        let text = parser.within_input_limit(text);
        let mut out = Vec::new();
        parser.end(text, &mut out);
        out
    }

    /// Runs the grammar over the last window (`self.base` on) as the end of the input.
    fn end(&mut self, window: &str, out: &mut Vec<StreamEvent>) {
        self.finished = true;
        self.grammar.run(window, self.base, true, out);
        if self.truncated {
            let max = self.grammar.assembler().opts.limits.max_input_bytes;
            let at = self
                .grammar
                .assembler()
                .locator
                .locate(window, self.base, self.fed);
            out.push(StreamEvent::Error {
                error: Box::new(
                    ParseError::new(
                        ErrorKind::LimitExceeded,
                        format!("the input is longer than {max} bytes; the rest was not read"),
                        at,
                    )
                    .in_dialect(self.grammar.assembler().dialect)
                    .with_span(self.fed..self.fed)
                    .with_limit(Limit::MaxInputBytes),
                ),
            });
        }
    }

    /// The part of `chunk` within the input-size limit.
    #[inline(always)]
    fn within_input_limit<'c>(&mut self, chunk: &'c str) -> &'c str {
        if !self.truncated && chunk.len() <= self.max_input.saturating_sub(self.fed) {
            self.fed += chunk.len();
            return chunk;
        }
        self.cut_to_input_limit(chunk)
    }

    /// [`within_input_limit`](Self::within_input_limit) where the chunk does not fit whole.
    #[inline(never)]
    fn cut_to_input_limit<'c>(&mut self, chunk: &'c str) -> &'c str {
        if self.truncated {
            // A character did not fit: nothing after it is read, even if it would fit.
            return &chunk[..0];
        }
        let room = self.max_input.saturating_sub(self.fed);
        let mut take = room;
        while !chunk.is_char_boundary(take) {
            take -= 1;
        }
        self.fed += take;
        if take < chunk.len() {
            self.truncated = true;
        }
        &chunk[..take]
    }
}

/// `text` in pieces of `n` bytes (at least 1), each extended to the next character boundary:
/// how a recorded reply is replayed through a [`StreamParser`] (the CLI's `--chunk-size`, tests,
/// benchmarks).
///
/// ```
/// let pieces: Vec<&str> = toolcall_parser::chunks("aé<b>", 2).collect();
/// assert_eq!(pieces, ["aé", "<b", ">"]);
/// assert_eq!(toolcall_parser::chunks("ab", 0).count(), 2);
/// ```
pub fn chunks(text: &str, n: usize) -> impl Iterator<Item = &str> {
    let n = n.max(1);
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = n.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (head, tail) = rest.split_at(end);
        rest = tail;
        Some(head)
    })
}

/// Appends `s` to `out`. A chunk of one byte (a streamed character) is appended with its length
/// known to the compiler, a byte store: a `memcpy` call for one byte costs more than the rest of
/// appending it, and `String::push` of the byte as a `char` was left out of line (12 instructions
/// a feed).
#[inline(always)]
pub(crate) fn append(out: &mut String, s: &str) {
    match s.as_bytes() {
        // `s[..1]` is all of `s`: its length, now a constant.
        &[_] => out.push_str(&s[..1]),
        _ => out.push_str(s),
    }
}

/// [`append`] for a streamed token of any size up to 16 bytes: each length its own copy of a
/// constant size (a move or two, where `memcpy` is a call branching on the size). Used where a
/// raw-text value and its deltas grow by a token per feed; the `<tool>` form's 1-byte path keeps
/// [`append`], which measured fewer instructions there.
#[inline(always)]
pub(crate) fn append_token(out: &mut String, s: &str) {
    macro_rules! by_length {
        ($($n:literal)*) => {
            match s.len() {
                // `s[..n]` is all of `s`: its length, now a constant.
                $($n => out.push_str(&s[..$n]),)*
                _ => out.push_str(s),
            }
        };
    }
    by_length!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// A new string holding `s`, copied as [`append_token`] copies (a streamed token's delta).
#[inline]
pub(crate) fn owned(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    append_token(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The by-length copies append exactly what `push_str` appends, at every length around
        /// the table's (multi-byte characters included).
        #[test]
        fn appends_are_push_str(before in "[a-zé]{0,5}", s in "[a-z<é😀]{0,24}") {
            let mut expected = before.clone();
            expected.push_str(&s);
            let (mut a, mut t) = (before.clone(), before);
            append(&mut a, &s);
            append_token(&mut t, &s);
            proptest::prop_assert_eq!(&a, &expected);
            proptest::prop_assert_eq!(&t, &expected);
            proptest::prop_assert_eq!(owned(&s), s);
        }
    }
}
