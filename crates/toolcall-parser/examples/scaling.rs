//! Work and memory per doubling of hostile inputs (issue 14), measured outside the tests.
//!
//! `cargo run --release -p toolcall-parser --example scaling [CASE]` prints, for each case and
//! each size, the time of one parse, its ratio to the previous size (2.0 is linear, 4.0
//! quadratic) and the peak bytes allocated during the parse divided by the input's length. Each
//! measurement runs in a child process of its own, since the allocator's peak cannot be reset.

#![forbid(unsafe_code)]

use cap::Cap;
use std::alloc::System;
use std::time::Instant;
use toolcall_parser::{Limits, ParseOptions, StreamParser, parse_with};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

const CALL_OPEN: &str = "<tool><tool_name>w</tool_name><arguments>";
const CALL_CLOSE: &str = "</arguments></tool>\n";

/// The input of `case` at size step `n` (about `n` KiB, or `n` thousand items), and its options.
fn input(case: &str, n: usize) -> (String, ParseOptions) {
    let opts = ParseOptions::default();
    let k = n * 1024;
    let text = match case {
        // Item 1: CRLF code in one CDATA value.
        "cdata-crlf" => format!(
            "{CALL_OPEN}<c><![CDATA[{}]]></c>{CALL_CLOSE}",
            "let x = 1;\r\n".repeat(k / 12)
        ),
        // Item 2: bare `&` in one value.
        "bare-amp" => format!("{CALL_OPEN}<c>{}</c>{CALL_CLOSE}", "&".repeat(k)),
        // Item 3: unclosed comments (processing instructions) in a value.
        "unclosed-comment" => format!(
            "{CALL_OPEN}<c>{}</c>{CALL_CLOSE}",
            "x <!-- y\n".repeat(k / 10)
        ),
        "unclosed-pi" => format!("{CALL_OPEN}<c>{}</c>{CALL_CLOSE}", "x <? y\n".repeat(k / 8)),
        // Item 4: one call with many distinct argument names.
        "many-names" => {
            let mut s = CALL_OPEN.to_owned();
            for i in 0..n * 1000 {
                s.push_str(&format!("<a{i}>v</a{i}>"));
            }
            s.push_str(CALL_CLOSE);
            s
        }
        // Item 5: many calls of many small elements, each call under `max_elements`.
        "many-elements" => {
            format!("{CALL_OPEN}<c>{}</c>{CALL_CLOSE}", "<b/>".repeat(99_000)).repeat(n)
        }
        // Item 5: many CDATA sections in one value.
        "cdata-sections" => format!(
            "{CALL_OPEN}<c>{}</c>{CALL_CLOSE}",
            "<![CDATA[a]]>".repeat(k / 13)
        ),
        other => panic!("unknown case {other}"),
    };
    let _ = Limits::default();
    (text, opts)
}

const CASES: &[(&str, &[usize])] = &[
    ("cdata-crlf", &[256, 512, 1024, 2048]),
    ("bare-amp", &[256, 512, 1024, 2048]),
    ("unclosed-comment", &[16, 32, 64, 128]),
    ("unclosed-pi", &[16, 32, 64, 128]),
    ("many-names", &[12, 25, 50, 100]),
    ("many-elements", &[1, 2, 4, 8]),
    ("cdata-sections", &[2048, 4096, 8192, 16384]),
];

/// Runs one measurement: `MODE CASE N` with MODE `oneshot` or `stream1` (1-byte chunks).
fn child(mode: &str, case: &str, n: usize) {
    let (text, opts) = input(case, n);
    let base = ALLOC.allocated();
    let start = Instant::now();
    let (calls, errors) = match mode {
        "oneshot" => {
            let r = parse_with(&text, &opts);
            (r.calls().len(), r.errors().len())
        }
        _ => {
            let mut p = StreamParser::with_options(opts);
            let mut r = toolcall_parser::ParseResult::default();
            for c in toolcall_parser::chunks(&text, 1) {
                for e in p.feed(c) {
                    r.push_event(e);
                }
            }
            for e in p.finish() {
                r.push_event(e);
            }
            (r.calls().len(), r.errors().len())
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let peak = ALLOC.max_allocated().saturating_sub(base);
    println!("{secs} {peak} {} {calls} {errors}", text.len());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, mode, case, n] = args.as_slice()
        && flag == "--child"
    {
        child(mode, case, n.parse().expect("a size"));
        return;
    }
    let mode = std::env::var("MODE").unwrap_or_else(|_| "oneshot".into());
    let exe = std::env::current_exe().expect("this program");
    println!("case             size(B)     time(s)  ratio  peak/input  calls errors");
    for &(case, sizes) in CASES {
        if !args.is_empty() && !args.iter().any(|a| a == case) {
            continue;
        }
        let mut last: Option<f64> = None;
        for &n in sizes {
            let out = std::process::Command::new(&exe)
                .args(["--child", &mode, case, &n.to_string()])
                .output()
                .expect("the child runs");
            let line = String::from_utf8_lossy(&out.stdout);
            let f: Vec<f64> = line
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            let [secs, peak, len, calls, errors] = f[..] else {
                println!(
                    "{case}: child failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                break;
            };
            let ratio = last.map_or("-".to_owned(), |l| format!("{:.2}", secs / l));
            println!(
                "{case:16} {len:>9} {secs:>11.4} {ratio:>6} {:>10.1} {calls:>6} {errors:>6}",
                peak / len
            );
            last = Some(secs);
        }
    }
}
