//! OpenAI-style streamed deltas (`toolcall::bridge::openai::ToolCallDeltas`) over arbitrary input
//! in every dialect and an arbitrary chunking:
//! - call indexes are dense and in order, ids are `call_{index}`, no fragment follows a call's
//!   end, no call both completes and fails;
//! - the calls that complete are the one-shot parse's calls, in order, by name, and each call's
//!   fragments concatenate, byte for byte, to the compact JSON of its one-shot arguments;
//! - content and reasoning deltas are the one-shot prose and reasoning;
//! - handing each chunk's deltas back (`feed_reusing`) changes none of them.
//!
//! Byte 0 chooses the dialect (its low bits) and whether the reasoning channel is on (bit 7),
//! with the `flag` policy (bit 6); byte 1 the chunk size (1 to 32 bytes); the rest is the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall::bridge::openai::{DeltaEvent, ToolCallDeltas};
use toolcall::parser::{CallsInReasoning, Dialect, ParseOptions, Reasoning, chunks, parse_with};

#[derive(Debug, Default)]
struct Streamed {
    name: String,
    arguments: String,
    done: bool,
    failed: bool,
}

fuzz_target!(|data: &[u8]| {
    let [flags, size, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let dialect = Dialect::ALL[usize::from(flags & 0x3f) % Dialect::ALL.len()];
    let mut opts = ParseOptions::new().with_dialect(dialect);
    if flags & 0x80 != 0 {
        let policy = if flags & 0x40 != 0 {
            CallsInReasoning::Flag
        } else {
            CallsInReasoning::End
        };
        opts = opts.with_reasoning(Reasoning::for_dialect(dialect).with_calls_in_reasoning(policy));
    }
    let chunk = 1 + usize::from(size % 32);

    let mut deltas = ToolCallDeltas::new(opts.clone());
    // A second stream hands each chunk's deltas back with the next: the same deltas, chunk by
    // chunk.
    let (mut reusing, mut reused) = (ToolCallDeltas::new(opts.clone()), Vec::new());
    let mut events = Vec::new();
    for piece in chunks(text, chunk) {
        let fed = deltas.feed(piece);
        reusing.feed_reusing(piece, &mut reused);
        assert_eq!(fed, reused, "feed_reusing differs from feed");
        events.extend(fed);
    }
    let finished = deltas.finish();
    assert_eq!(
        finished,
        reusing.finish(),
        "finish after feed_reusing differs"
    );
    events.extend(finished);

    let mut calls: Vec<Streamed> = Vec::new();
    let (mut content, mut reasoning) = (String::new(), String::new());
    for e in events {
        match e {
            DeltaEvent::ToolCallStart { index, id, name } => {
                assert_eq!(index, calls.len(), "indexes are dense and in order");
                assert_eq!(id, format!("call_{index}"));
                calls.push(Streamed {
                    name,
                    ..Streamed::default()
                });
            }
            DeltaEvent::Arguments { index, fragment } => {
                let call = &mut calls[index];
                assert!(
                    !call.done && !call.failed,
                    "a fragment after the call ended"
                );
                call.arguments.push_str(&fragment);
            }
            DeltaEvent::CallDone { index } => {
                assert!(!calls[index].failed, "a call both failed and completed");
                calls[index].done = true;
            }
            DeltaEvent::CallFailed {
                index: Some(index), ..
            } => {
                assert!(!calls[index].done, "a call both completed and failed");
                calls[index].failed = true;
            }
            DeltaEvent::Content { text } => content.push_str(&text),
            DeltaEvent::Reasoning { text } => reasoning.push_str(&text),
            _ => {}
        }
    }

    let whole = parse_with(text, &opts);
    let expected: Vec<(String, String)> = whole
        .calls()
        .iter()
        .map(|c| {
            let v = serde_json::to_value(c).expect("a call serializes");
            (c.tool_name.clone(), v["arguments"].to_string())
        })
        .collect();
    let got: Vec<(String, String)> = calls
        .into_iter()
        .filter(|c| c.done)
        .map(|c| (c.name, c.arguments))
        .collect();
    assert_eq!(got, expected, "{dialect}, chunks of {chunk}: {text:?}");
    assert_eq!(
        content,
        whole.prose(),
        "{dialect}, chunks of {chunk}: {text:?}"
    );
    assert_eq!(
        reasoning,
        whole.reasoning(),
        "{dialect}, chunks of {chunk}: {text:?}"
    );
});
