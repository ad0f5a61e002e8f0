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
use toolcall_parser::{ParseOptions, StreamParser, parse_with};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

const CALL_OPEN: &str = "<tool><tool_name>w</tool_name><arguments>";
const CALL_CLOSE: &str = "</arguments></tool>\n";

/// The input of `case` at size step `n` (about `n` KiB, or `n` thousand items), and its options.
fn input(case: &str, n: usize) -> (String, ParseOptions) {
    let mut opts = ParseOptions::default();
    if case == "qwen-params" {
        opts = opts.with_dialect(toolcall_parser::Dialect::Qwen3Coder);
    }
    if case == "hermes-values" {
        opts = opts.with_dialect(toolcall_parser::Dialect::Hermes);
    }
    if case.starts_with("many-names") {
        let limits = opts.limits().clone().with_max_elements(usize::MAX);
        opts = opts.with_limits(limits);
        if case.ends_with("qwen") {
            opts = opts.with_dialect(toolcall_parser::Dialect::Qwen3Coder);
        }
    }
    if let Some(case) = case.strip_suffix("-schema") {
        let (text, o) = input(case, n);
        let names: serde_json::Map<String, serde_json::Value> = (0..n * 1000)
            .map(|i| (format!("a{i}"), serde_json::json!({"type": "string"})))
            .collect();
        let mut schemas = toolcall_parser::ToolSchemas::default();
        schemas.insert(
            "w",
            serde_json::json!({"type": "object", "properties": names}),
        );
        return (text, o.with_schemas(schemas));
    }
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
        "many-names-repairs" => {
            let mut s = CALL_OPEN.to_owned();
            for i in 0..n * 1000 {
                s.push_str(&format!("<a{i}>a & b</a{i}>"));
            }
            s.push_str(CALL_CLOSE);
            s
        }
        "many-names-legacy" => {
            let mut s = "<tool>{\"tool_name\": \"w\", \"arguments\": {".to_owned();
            for i in 0..n * 1000 {
                s.push_str(&format!("\"a{i}\": \"v\", "));
            }
            s.push_str("\"z\": 1}}</tool>");
            s
        }
        "many-names-qwen" => {
            let mut s = "<tool_call>\n<function=w>\n".to_owned();
            for i in 0..n * 1000 {
                s.push_str(&format!("<parameter=a{i}>\nv\n</parameter>\n"));
            }
            s.push_str("</function>\n</tool_call>");
            s
        }
        // Item 5: many calls of many small elements, each call under `max_elements`.
        "many-elements" => {
            format!("{CALL_OPEN}<c>{}</c>{CALL_CLOSE}", "<b/>".repeat(99_000)).repeat(n)
        }
        // Item 5: candidates for the worst peak ÷ input under the default limits.
        "elements-one-call" => format!("{CALL_OPEN}<c>{}</c>{CALL_CLOSE}", "<b/>".repeat(n * 1000)),
        "attributes" => format!(
            "{CALL_OPEN}<c>{}</c>{CALL_CLOSE}",
            "<b x=\"\" y=\"\" z=\"\"/>".repeat(n * 250)
        ),
        "text-elements" => format!("{CALL_OPEN}<c>{}</c>{CALL_CLOSE}", "x<b/>".repeat(n * 1000)),
        "text-cdata" => format!(
            "{CALL_OPEN}<c>{}</c>{CALL_CLOSE}",
            "x<![CDATA[]]>".repeat(n * 1000)
        ),
        "named-elements" => {
            let mut s = format!("{CALL_OPEN}<c>");
            for i in 0..n * 1000 {
                s.push_str(&format!("<b{}/>", i % 10));
            }
            s + "</c>" + CALL_CLOSE
        }
        "legacy-values" => format!(
            "<tool>{{\"tool_name\": \"w\", \"arguments\": {{\"a\": [{}0]}}}}</tool>",
            "0,".repeat(n * 1000)
        ),
        "qwen-params" => format!(
            "<tool_call>\n<function=w>\n{}</function>\n</tool_call>",
            "<parameter=a>\n</parameter>\n".repeat(n * 1000)
        ),
        "hermes-values" => format!(
            "<tool_call>\n{{\"name\": \"w\", \"arguments\": {{\"a\": [{}0]}}}}\n</tool_call>",
            "0,".repeat(n * 1000)
        ),
        // Item 5: many CDATA sections in one value.
        "cdata-sections" => format!(
            "{CALL_OPEN}<c>{}</c>{CALL_CLOSE}",
            "<![CDATA[a]]>".repeat(k / 13)
        ),
        other => panic!("unknown case {other}"),
    };
    (text, opts)
}

const CASES: &[(&str, &[usize])] = &[
    ("cdata-crlf", &[256, 512, 1024, 2048]),
    ("bare-amp", &[256, 512, 1024, 2048]),
    ("unclosed-comment", &[128, 256, 512, 1024]),
    ("unclosed-pi", &[128, 256, 512, 1024]),
    ("many-names", &[25, 50, 100, 200]),
    ("many-names-schema", &[6, 12, 25, 50]),
    ("many-names-repairs", &[25, 50, 100, 200]),
    ("many-names-legacy", &[25, 50, 100, 200]),
    ("many-names-qwen", &[25, 50, 100, 200]),
    ("many-elements", &[1, 2, 4, 8, 16]),
    ("elements-one-call", &[12, 25, 50, 99]),
    ("attributes", &[12, 25, 50, 99]),
    ("text-elements", &[12, 25, 50, 99]),
    ("text-cdata", &[12, 25, 50, 99]),
    ("named-elements", &[12, 25, 50, 99]),
    ("legacy-values", &[12, 25, 50, 99]),
    ("qwen-params", &[12, 25, 50, 99]),
    ("hermes-values", &[12, 25, 50, 99]),
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
