//! The memory side of `cargo xtask bench`: one parse of one input, with every allocation counted.
//!
//! The `throughput` harness builds this binary and runs it once per reader, as
//! `memory --case CASE FILE`, so that each figure comes from a fresh process that holds nothing
//! but its input. It is a binary of its own because a counting allocator slows every allocation
//! (by about 15% of the time of allocation-heavy paths such as 1-byte streaming, measured with
//! `perf`), and the timings of `throughput` must not pay for it.
//!
//! Prints `PEAK TOTAL`: the most bytes allocated at once during the parse (its result included,
//! the input not) and all bytes allocated during it.

#![forbid(unsafe_code)]

use cap::Cap;
use serde::Deserialize;
use std::alloc::System;
use toolcall::parser::{StreamEvent, StreamParser};

/// Counts allocated bytes: `cap` wraps `System`, passing allocation, reallocation (so in-place
/// growth stays in place) and zeroed allocation through, and keeps the current, total and maximum
/// bytes allocated in atomics.
#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// The JSON shape of the call (as in the throughput harness).
#[derive(Deserialize)]
#[allow(dead_code)]
struct JsonCall {
    server_name: String,
    tool_name: String,
    arguments: WriteArgs,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct WriteArgs {
    path: String,
    content: String,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [flag, case, path, ..] = args.as_slice() else {
        println!("memory: run by the throughput harness, one case at a time (`--case CASE FILE`)");
        return;
    };
    assert_eq!(flag, "--case", "usage: memory --case CASE FILE");
    // `read_to_string` sizes the string from the file's length: the input is allocated once.
    let input = std::fs::read_to_string(path).expect("the input file");
    let (base, base_total) = (ALLOC.allocated(), ALLOC.total_allocated());
    assert!(
        ALLOC.max_allocated() <= base + (64 << 10),
        "something before the case allocated more than its input"
    );
    let ok = match case.as_str() {
        "parse-cdata" | "parse-escaped" => {
            let r = toolcall::parser::parse(&input);
            r.calls().len() == 1 && r.errors().is_empty()
        }
        "stream-cdata" | "stream-escaped" => stream_4096(&input),
        "serde-struct" => serde_json::from_str::<JsonCall>(&input).is_ok(),
        // One call of many `<b/>`: with the default limits an error, unbounded a call.
        "elements-limited" => {
            let r = toolcall::parser::parse(&input);
            r.calls().is_empty() && r.errors()[0].kind == toolcall::parser::ErrorKind::LimitExceeded
        }
        "elements-unlimited" => {
            let options = toolcall::parser::ParseOptions::default().with_limits(
                toolcall::parser::Limits::default()
                    .with_max_elements(usize::MAX)
                    .with_max_input_elements(usize::MAX),
            );
            toolcall::parser::parse_with(&input, &options).calls().len() == 1
        }
        "serde-value" => serde_json::from_str::<serde_json::Value>(&input).is_ok(),
        other => panic!("unknown memory case {other}"),
    };
    assert!(ok, "memory case {case} did not parse");
    let peak = ALLOC.max_allocated().saturating_sub(base);
    let total = ALLOC.total_allocated() - base_total;
    println!("{peak} {total}");
}

/// Feeds `input` in 4096-byte chunks (at character boundaries), keeping only the finished call.
fn stream_4096(input: &str) -> bool {
    let mut parser = StreamParser::new();
    let mut calls = 0;
    let mut take = |events: Vec<StreamEvent>| {
        for e in events {
            if let StreamEvent::CallFinished { result: Ok(_), .. } = e {
                calls += 1;
            }
        }
    };
    for now in toolcall::parser::chunks(input, 4096) {
        take(parser.feed(now));
    }
    take(parser.finish());
    calls == 1
}
