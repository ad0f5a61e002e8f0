//! Arbitrary input and an arbitrary chunking: the streamed calls, errors and prose equal the
//! one-shot result; stream events are well ordered; argument deltas are the argument's text;
//! `feed_reusing` gives `feed`'s events chunk by chunk.
//!
//! Byte 0 chooses the options and the dialect (and whether to feed `&str` chunks or raw bytes), byte 1 how many chunk sizes follow (up to 15); those bytes are
//! the chunk sizes, used in turn; the rest is the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_parser::{
    Dialect, Limits, ParseOptions, ParseResult, StreamEvent, StreamParser, parse_with,
};

fn options(flags: u8) -> ParseOptions {
    let limits = if flags & 1 == 1 {
        Limits::default()
            .with_max_input_bytes(200 + usize::from(flags >> 4) * 50)
            .with_max_calls(2)
            .with_max_depth(4)
            .with_max_call_bytes(120)
            .with_max_argument_bytes(24)
            .with_max_elements(6)
            .with_max_input_elements(10)
    } else {
        Limits::default()
    };
    // Bits 3 and up also choose the dialect: every dialect is hammered alike.
    let dialect = Dialect::ALL[usize::from(flags >> 3) % Dialect::ALL.len()];
    ParseOptions::new()
        .with_limits(limits)
        .with_ignore_fenced_calls(flags & 2 == 2)
        .with_dialect(dialect)
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let Some((&n, rest)) = rest.split_first() else {
        return;
    };
    let n = usize::from(n & 0xf).min(rest.len());
    let (sizes, rest) = rest.split_at(n);
    let text = String::from_utf8_lossy(rest);
    let opts = options(flags);

    let whole = parse_with(&text, &opts);

    let mut parser = StreamParser::with_options(opts.clone());
    let mut events = Vec::new();
    let size_at = |i: usize| {
        sizes
            .get(i % sizes.len().max(1))
            .map_or(1, |&s| usize::from(s).max(1))
    };
    if flags & 4 == 4 {
        // Raw bytes, cut anywhere, characters included: `feed_bytes` reads them as
        // `from_utf8_lossy` does.
        let mut at = 0;
        let mut i = 0;
        while at < rest.len() {
            let end = (at + size_at(i)).min(rest.len());
            i += 1;
            events.extend(parser.feed_bytes(&rest[at..end]));
            at = end;
        }
    } else {
        // Beside it, a parser fed through `feed_reusing`: each chunk's events, handed back with
        // the next, must be exactly `feed`'s.
        let mut reusing = StreamParser::with_options(opts.clone());
        let mut handed = Vec::new();
        let mut at = 0;
        let mut i = 0;
        while at < text.len() {
            let mut end = (at + size_at(i)).min(text.len());
            i += 1;
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let fed = parser.feed(&text[at..end]);
            reusing.feed_reusing(&text[at..end], &mut handed);
            assert_eq!(handed, fed, "feed_reusing's events are not feed's");
            events.extend(fed);
            at = end;
        }
    }
    events.extend(parser.finish());
    // Feeding after `finish` does nothing.
    assert!(parser.feed("<tool>").is_empty());
    assert!(parser.finish().is_empty());

    // Each call starts once, then names its tool at most once, then finishes once, in index
    // order; deltas belong to the open call.
    let mut open: Option<usize> = None;
    let mut next = 0;
    for e in &events {
        match e {
            StreamEvent::CallStarted { index, .. } => {
                assert_eq!(open, None, "a call started inside another: {events:?}");
                assert_eq!(*index, next, "call indices out of order");
                open = Some(*index);
            }
            StreamEvent::ToolName { index, .. }
            | StreamEvent::ArgumentStarted { index, .. }
            | StreamEvent::ArgumentDelta { index, .. } => {
                assert_eq!(open, Some(*index), "event outside its call: {events:?}");
            }
            StreamEvent::CallFinished { index, .. } => {
                assert_eq!(
                    open,
                    Some(*index),
                    "a call finished without starting: {events:?}"
                );
                open = None;
                next += 1;
            }
            StreamEvent::Prose { text } => {
                assert!(!text.is_empty(), "empty prose event");
                assert_eq!(open, None, "prose inside a call: {events:?}");
            }
            StreamEvent::Reasoning { text } => {
                assert!(!text.is_empty(), "empty reasoning event");
                assert_eq!(open, None, "reasoning inside a call: {events:?}");
            }
            // Errors outside calls, and any event kind added later.
            _ => {}
        }
    }
    assert_eq!(open, None, "a call never finished");

    let streamed = ParseResult::from_events(events);
    assert_eq!(streamed, whole, "chunk sizes {sizes:?}");
});
