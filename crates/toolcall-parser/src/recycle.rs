//! The text buffers of events a caller hands back ([`StreamParser::feed_reusing`]), made into the
//! text of the next events: streaming then allocates nothing per chunk once it runs.
//!
//! A streamed chunk owes its caller an event with text of its own (prose, reasoning, an
//! argument's delta), so [`StreamParser::feed_into`] allocates a string per chunk and the caller
//! frees it: at a few bytes a chunk, a sixth to two fifths of the work (docs/PERFORMANCE.md,
//! "Events handed back"). The events of
//! one chunk, handed back with the next, give their strings (and the shared name of the argument
//! the deltas belong to) to the events of the next chunk. What is kept is bounded
//! ([`MAX_KEPT`] strings of at most [`MAX_KEPT_CAPACITY`] bytes), whatever comes back.
//!
//! [`StreamParser::feed_reusing`]: crate::StreamParser::feed_reusing
//! [`StreamParser::feed_into`]: crate::StreamParser::feed_into

use std::sync::Arc;

use crate::event::StreamEvent;

/// Strings kept for reuse at most: a chunk makes one or two events with text.
const MAX_KEPT: usize = 4;

/// The largest capacity of a string kept for reuse: a larger one (from a long chunk) is freed,
/// so a parser never holds more than `MAX_KEPT × MAX_KEPT_CAPACITY` bytes for this.
const MAX_KEPT_CAPACITY: usize = 4096;

/// Strings and an argument name handed back, for the next events.
#[derive(Debug, Default)]
pub(crate) struct Recycled {
    texts: Vec<String>,
    argument: Option<Arc<str>>,
}

impl Recycled {
    /// Keeps what `event` holds that the next events can use.
    #[inline(always)]
    pub(crate) fn keep(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::Prose { text } | StreamEvent::Reasoning { text } => self.keep_text(text),
            StreamEvent::ArgumentDelta { argument, text, .. } => {
                self.argument = Some(argument);
                self.keep_text(text);
            }
            _ => {}
        }
    }

    #[inline(always)]
    fn keep_text(&mut self, mut text: String) {
        if self.texts.len() < MAX_KEPT && text.capacity() <= MAX_KEPT_CAPACITY {
            text.clear();
            self.texts.push(text);
        }
    }

    /// A string holding `s`: a kept one when there is one, else a new one.
    #[inline]
    pub(crate) fn text(&mut self, s: &str) -> String {
        match self.texts.pop() {
            Some(mut t) => {
                t.push_str(s);
                t
            }
            None => s.to_owned(),
        }
    }

    /// Whether nothing is kept: the events are made as without reuse.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The text of `buf`, taken out of it: with a kept string at hand the two trade places (no
    /// copy, and `buf` keeps a buffer to grow into); else `None`, and the caller takes the text
    /// as it would without.
    #[inline]
    pub(crate) fn swap_out(&mut self, buf: &mut String) -> Option<String> {
        let spare = self.texts.pop()?;
        Some(std::mem::replace(buf, spare))
    }

    /// `argument` shared again: the kept name when it is the same one (no reference count to
    /// change), else a new reference.
    #[inline]
    pub(crate) fn argument(&mut self, argument: &Arc<str>) -> Arc<str> {
        match self.argument.take() {
            Some(kept) if Arc::ptr_eq(&kept, argument) => kept,
            _ => Arc::clone(argument),
        }
    }
}

/// The `index` a handed-back [`StreamEvent::ArgumentDelta`] carries while it waits to be written
/// over in place ([`open_delta_slot`]): no call has this index (the limits stop a response long
/// before), so the mark cannot be taken for a real event.
const DELTA_SLOT: usize = usize::MAX;

/// A slot `feed_reusing` opened: the one event handed back, left where it is for this chunk's
/// event of its kind to be written over in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// An argument delta, its `index` set to [`DELTA_SLOT`] ([`fill_delta_slot`]).
    Delta,
    /// Prose (or reasoning text, when `reasoning`), emptied ([`fill_text_slot`]): the parser
    /// never makes an empty `Prose` or `Reasoning`.
    Text { reasoning: bool },
}

/// When the events handed back are one argument delta, as while a value streams, the event
/// stays where it is, marked as a slot, for this chunk's delta to be written over in place
/// ([`fill_delta_slot`]): no event is taken apart or made, and its string and the argument's
/// name are reused as they are. Returns whether a slot was opened; [`close_delta_slot`] removes
/// one left unfilled. (Prose and reasoning have their own: [`open_text_slot`].)
#[inline(always)]
pub(crate) fn open_delta_slot(events: &mut [StreamEvent]) -> bool {
    match events {
        [StreamEvent::ArgumentDelta { index, text, .. }]
            if text.capacity() <= MAX_KEPT_CAPACITY =>
        {
            *index = DELTA_SLOT;
            true
        }
        _ => false,
    }
}

/// Writes the delta `text` of argument `name` (shared as `shared` when the call keeps it so) of
/// call `index` over the slot `out` holds, if it holds one and nothing since (the event stays
/// first, so the order of events is kept). The event takes the text's buffer and `text` the
/// slot's, cleared, to grow into. `false` when there is no slot to fill: the caller pushes the
/// event as it would without.
#[inline(always)]
pub(crate) fn fill_delta_slot(
    out: &mut [StreamEvent],
    index: usize,
    shared: Option<&Arc<str>>,
    name: &str,
    text: &mut String,
) -> bool {
    let [
        StreamEvent::ArgumentDelta {
            index: slot,
            argument,
            text: kept,
        },
    ] = out
    else {
        return false;
    };
    if *slot != DELTA_SLOT {
        return false;
    }
    *slot = index;
    match shared {
        Some(a) if Arc::ptr_eq(a, argument) => {}
        Some(a) => *argument = Arc::clone(a),
        None if **argument == *name => {}
        None => *argument = Arc::from(name),
    }
    kept.clear();
    std::mem::swap(kept, text);
    true
}

/// Writes `text` over the text slot `out` holds when it is of the kind written (an empty
/// `Reasoning` when `reasoning`, else an empty `Prose`; first and alone: nothing was pushed
/// since, so the order of events is kept). `false` when there is none to fill: the caller
/// pushes the event as it would without.
#[inline(always)]
pub(crate) fn fill_text_slot(out: &mut [StreamEvent], reasoning: bool, text: &str) -> bool {
    let slot = match out {
        [StreamEvent::Prose { text }] if !reasoning => text,
        [StreamEvent::Reasoning { text }] if reasoning => text,
        _ => return false,
    };
    if !slot.is_empty() {
        return false;
    }
    crate::stream::append_token(slot, text);
    true
}

/// The text of an event that may be a text slot: `Prose` or `Reasoning`.
fn slot_text(event: &StreamEvent) -> Option<&String> {
    match event {
        StreamEvent::Prose { text } | StreamEvent::Reasoning { text } => Some(text),
        _ => None,
    }
}

/// Removes the slot [`open_delta_slot`] opened if no delta filled it (it is still first), its
/// parts kept in `recycled`.
#[inline(always)]
pub(crate) fn close_delta_slot<'r>(
    events: &mut Vec<StreamEvent>,
    recycled: impl FnOnce() -> &'r mut Recycled,
) {
    if let Some(StreamEvent::ArgumentDelta {
        index: DELTA_SLOT, ..
    }) = events.first()
    {
        recycled().keep(events.remove(0));
    }
}

/// The text slot: when the events handed back are one piece of prose or of reasoning, as while
/// either streams, its text is emptied and it stays first in `events` for this chunk's text of
/// the same kind ([`fill_text_slot`]); the parser never makes an empty `Prose` or `Reasoning`,
/// so an empty one there is the slot. Returns the slot opened, if one was. (Each kind is matched
/// alone: prose, the most frequent, pays for no other.)
#[inline(always)]
pub(crate) fn open_text_slot(events: &mut [StreamEvent]) -> Option<Slot> {
    let (text, reasoning) = match events {
        [StreamEvent::Prose { text }] => (text, false),
        [StreamEvent::Reasoning { text }] => (text, true),
        _ => return None,
    };
    if text.capacity() > MAX_KEPT_CAPACITY {
        return None;
    }
    text.clear();
    Some(Slot::Text { reasoning })
}

/// Whether the text slot [`open_text_slot`] opened is still unfilled (first and empty): then
/// it is removed, its string kept ([`Recycled::keep`]).
#[inline(always)]
pub(crate) fn text_slot_unfilled(events: &[StreamEvent], reasoning: bool) -> bool {
    match events.first() {
        Some(StreamEvent::Prose { text }) if !reasoning => text.is_empty(),
        Some(StreamEvent::Reasoning { text }) if reasoning => text.is_empty(),
        _ => false,
    }
}

/// Whether `events` holds what a slot looks like (one delta carrying [`DELTA_SLOT`], one empty
/// `Prose` or `Reasoning`). The slots are `feed_reusing`'s: a caller's `Vec` that looks so when
/// handed to `feed_into` must not be written over, so that feed reads the chunk into a `Vec` of
/// its own.
#[inline(always)]
pub(crate) fn looks_like_a_slot(events: &[StreamEvent]) -> bool {
    match events {
        [StreamEvent::ArgumentDelta { index, .. }] => *index == DELTA_SLOT,
        [event] => slot_text(event).is_some_and(String::is_empty),
        _ => false,
    }
}

/// Argument names shared by their events (`ArgumentStarted`, the deltas), kept for the next
/// calls: the same few names come back call after call (`path`, `content`), and sharing a kept
/// one costs a reference count where making it costs an allocation. At most [`NAMES_KEPT`] are
/// kept, the oldest replaced first, so what is held is bounded whatever the names.
#[derive(Debug, Default)]
pub(crate) struct SharedNames {
    kept: Vec<Arc<str>>,
    /// The slot the next new name replaces, once all are taken.
    next: usize,
}

/// Argument names kept for the next calls at most.
const NAMES_KEPT: usize = 8;

impl SharedNames {
    /// `name`, shared: a kept one equal to it, else a new one (then kept).
    pub(crate) fn get(&mut self, name: &str) -> Arc<str> {
        if let Some(kept) = self.kept.iter().find(|k| ***k == *name) {
            return Arc::clone(kept);
        }
        let new: Arc<str> = Arc::from(name);
        if self.kept.len() < NAMES_KEPT {
            self.kept.push(Arc::clone(&new));
        } else {
            self.kept[self.next] = Arc::clone(&new);
            self.next = (self.next + 1) % NAMES_KEPT;
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_kept_is_bounded_and_comes_back_empty() {
        let mut r = Recycled::default();
        for i in 0..3 * MAX_KEPT {
            r.keep(StreamEvent::Prose {
                text: "x".repeat(i),
            });
        }
        r.keep(StreamEvent::Prose {
            text: String::with_capacity(MAX_KEPT_CAPACITY + 1),
        });
        assert_eq!(r.texts.len(), MAX_KEPT);
        for _ in 0..MAX_KEPT {
            let t = r.text("ab");
            assert_eq!(t, "ab");
            assert!(t.capacity() <= MAX_KEPT_CAPACITY);
        }
        // Nothing kept: a new string.
        assert_eq!(r.text("cd"), "cd");
        let mut buf = String::from("text");
        assert_eq!(r.swap_out(&mut buf), None);
        assert_eq!(buf, "text");
    }

    /// A name asked for again is the kept one; past the bound the oldest goes first, and no
    /// more than the bound is held.
    #[test]
    fn shared_names_are_kept_bounded_oldest_first() {
        let mut names = SharedNames::default();
        let path = names.get("path");
        assert!(Arc::ptr_eq(&path, &names.get("path")));
        for i in 0..NAMES_KEPT {
            names.get(&format!("n{i}"));
        }
        assert_eq!(names.kept.len(), NAMES_KEPT);
        // `path` was the oldest: replaced by `n7`, so asking again makes a new one.
        assert!(!Arc::ptr_eq(&path, &names.get("path")));
        assert_eq!(&*names.get("n7"), "n7");
        assert_eq!(names.kept.len(), NAMES_KEPT);
    }

    #[test]
    fn an_argument_name_is_reused_only_when_it_is_the_same_one() {
        let mut r = Recycled::default();
        let a: Arc<str> = Arc::from("content");
        let b: Arc<str> = Arc::from("content");
        r.keep(StreamEvent::ArgumentDelta {
            index: 0,
            argument: Arc::clone(&a),
            text: "t".into(),
        });
        let again = r.argument(&a);
        assert!(Arc::ptr_eq(&again, &a));
        r.keep(StreamEvent::ArgumentDelta {
            index: 0,
            argument: again,
            text: "t".into(),
        });
        // Equal text, another name: the kept one is not handed out for it.
        let other = r.argument(&b);
        assert!(Arc::ptr_eq(&other, &b));
        let mut buf = String::from("delta");
        assert_eq!(r.swap_out(&mut buf).as_deref(), Some("delta"));
        assert_eq!(buf, "");
    }
}

#[cfg(test)]
mod slot_tests {
    use crate::{StreamEvent, StreamParser};

    const OPEN: &str = "<tool><tool_name>w</tool_name><arguments><content>";

    fn deltas(events: &[StreamEvent]) -> Vec<(usize, &str, &str)> {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ArgumentDelta {
                    index,
                    argument,
                    text,
                } => Some((*index, &**argument, text.as_str())),
                _ => None,
            })
            .collect()
    }

    /// Whatever a caller did to the delta it hands back (its text taken, grown past what is
    /// kept, renamed, renumbered), the next chunk's events are the ones `feed` gives, and the
    /// slot's mark never reaches the caller.
    #[test]
    fn a_handed_back_delta_tampered_with_gives_the_same_events() {
        type Tamper = fn(&mut StreamEvent);
        let tampers: [Tamper; 4] = [
            |e| {
                if let StreamEvent::ArgumentDelta { text, .. } = e {
                    std::mem::take(text);
                }
            },
            |e| {
                if let StreamEvent::ArgumentDelta { text, .. } = e {
                    *text = String::with_capacity(super::MAX_KEPT_CAPACITY * 2);
                }
            },
            |e| {
                if let StreamEvent::ArgumentDelta { argument, .. } = e {
                    *argument = std::sync::Arc::from("other");
                }
            },
            |e| {
                if let StreamEvent::ArgumentDelta { index, .. } = e {
                    *index = usize::MAX;
                }
            },
        ];
        let pieces = [OPEN, "ab", "cd", "ef</content></arguments></tool>", "after"];
        for tamper in tampers {
            reusing_gives_feeds_events(&pieces, tamper);
        }
    }

    /// Streams `pieces` through `feed` and, beside it, through `feed_reusing` with each chunk's
    /// events handed back after `tamper` changed them: the events are `feed`'s chunk by chunk
    /// and at the end, and the slot's mark never reaches the caller.
    fn reusing_gives_feeds_events(pieces: &[&str], tamper: fn(&mut StreamEvent)) {
        reusing_gives_feeds_events_with(pieces, tamper, &crate::ParseOptions::new());
    }

    /// [`reusing_gives_feeds_events`] with `options`.
    fn reusing_gives_feeds_events_with(
        pieces: &[&str],
        tamper: fn(&mut StreamEvent),
        options: &crate::ParseOptions,
    ) {
        let mut fed = StreamParser::with_options(options.clone());
        let mut reusing = StreamParser::with_options(options.clone());
        let mut events = Vec::new();
        for piece in pieces {
            events.iter_mut().for_each(tamper);
            let expected = fed.feed(piece);
            reusing.feed_reusing(piece, &mut events);
            assert_eq!(events, expected, "at {piece:?}");
            assert!(deltas(&events).iter().all(|d| d.0 != super::DELTA_SLOT));
        }
        assert_eq!(reusing.finish(), fed.finish());
    }

    /// A delta handed back with a chunk that makes no delta of its own (the value ends) is
    /// taken away; one handed back with a chunk that makes other events before its delta
    /// (the call ends, the next begins) does not put that delta first.
    #[test]
    fn an_unfilled_slot_is_removed_and_order_is_kept() {
        let close = "</content></arguments></tool>";
        let mut p = StreamParser::new();
        let mut events = Vec::new();
        p.feed_reusing(OPEN, &mut events);
        p.feed_reusing("ab", &mut events);
        assert_eq!(deltas(&events), [(0, "content", "ab")]);
        p.feed_reusing(close, &mut events);
        assert!(deltas(&events).is_empty());
        assert!(matches!(
            events.last(),
            Some(StreamEvent::CallFinished { .. })
        ));

        p.feed_reusing(&format!("{OPEN}x"), &mut events);
        assert_eq!(deltas(&events), [(1, "content", "x")]);
        p.feed_reusing(&format!("{close}{OPEN}y"), &mut events);
        let at = |f: fn(&StreamEvent) -> bool| events.iter().position(f);
        let finished = at(|e| matches!(e, StreamEvent::CallFinished { .. }));
        let started = at(|e| matches!(e, StreamEvent::CallStarted { .. }));
        let delta = at(|e| matches!(e, StreamEvent::ArgumentDelta { .. }));
        assert!(finished < started && started < delta, "{events:?}");
        assert_eq!(deltas(&events), [(2, "content", "y")]);
    }

    /// Prose streaming: a handed-back piece of prose, whatever the caller did to it (text
    /// taken, grown past what is kept, replaced), is written over by the next chunk's prose, and
    /// the events are `feed`'s; a chunk that ends the prose and begins a call does not put its
    /// prose after the call's events.
    #[test]
    fn a_handed_back_prose_tampered_with_gives_the_same_events() {
        let pieces = [
            "Some ",
            "prose ",
            "then",
            &format!(" a call {OPEN}ab"),
            "</content></arguments></tool>",
            " and",
            " more",
        ];
        for tamper in text_tampers() {
            reusing_gives_feeds_events(&pieces, tamper);
        }
    }

    /// What a caller may do to a handed-back piece of prose or reasoning: nothing, take its
    /// text, grow it past what is kept, replace it.
    fn text_tampers() -> [fn(&mut StreamEvent); 4] {
        fn text(e: &mut StreamEvent) -> Option<&mut String> {
            match e {
                StreamEvent::Prose { text } | StreamEvent::Reasoning { text } => Some(text),
                _ => None,
            }
        }
        [
            |_| {},
            |e| {
                text(e).map(std::mem::take);
            },
            |e| {
                if let Some(t) = text(e) {
                    *t = String::with_capacity(super::MAX_KEPT_CAPACITY * 2);
                }
            },
            |e| {
                if let Some(t) = text(e) {
                    *t = "left by the caller".into();
                }
            },
        ]
    }

    /// Qwen3-Coder with the reasoning channel on.
    fn with_reasoning() -> crate::ParseOptions {
        let dialect = crate::Dialect::Qwen3Coder;
        crate::ParseOptions::new()
            .with_dialect(dialect)
            .with_reasoning(crate::Reasoning::for_dialect(dialect))
    }

    /// Reasoning streaming, as prose streams: a handed-back piece of reasoning, whatever the
    /// caller did to it, is written over by the next chunk's reasoning (never by prose, nor
    /// prose's slot by reasoning), and the events are `feed`'s, through the end of reasoning,
    /// the answer's prose and a call.
    #[test]
    fn a_handed_back_reasoning_tampered_with_gives_the_same_events() {
        let options = with_reasoning();
        let pieces = [
            "<think>so",
            " a < b",
            " </thi",
            "s> and",
            " more</th",
            "ink>The answer",
            " is",
            " <tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n</function>\n</tool_call>",
            " done",
        ];
        for tamper in text_tampers() {
            reusing_gives_feeds_events_with(&pieces, tamper, &options);
        }
    }

    /// `feed_into` appends: an event the caller left in its `Vec` is never written over, even
    /// one that looks like a slot (a delta carrying the slot's mark, an empty `Prose` or
    /// `Reasoning`). Only `feed_reusing` opens slots.
    #[test]
    fn feed_into_never_writes_over_the_callers_events() {
        let cases = [
            (
                crate::ParseOptions::new(),
                format!("{OPEN}a"),
                StreamEvent::ArgumentDelta {
                    index: super::DELTA_SLOT,
                    argument: std::sync::Arc::from("content"),
                    text: String::new(),
                },
                "bc",
            ),
            (
                crate::ParseOptions::new(),
                "Some ".to_owned(),
                StreamEvent::Prose {
                    text: String::new(),
                },
                "prose ",
            ),
            (
                with_reasoning(),
                "<think>so".to_owned(),
                StreamEvent::Reasoning {
                    text: String::new(),
                },
                " it goes",
            ),
        ];
        for (options, first, mine, chunk) in cases {
            let mut p = StreamParser::with_options(options.clone());
            p.feed(&first);
            let mut events = vec![mine.clone()];
            p.feed_into(chunk, &mut events);
            let mut fed = StreamParser::with_options(options);
            fed.feed(&first);
            let expected = fed.feed(chunk);
            assert!(!expected.is_empty(), "{chunk:?} makes an event");
            assert_eq!(events[0], mine);
            assert_eq!(events[1..], expected[..]);
        }
    }
}
