//! toolcall beside the other Rust tool-call parsers, on the same inputs in one run: a `write_file`
//! call of 1 MiB of dense code in the Qwen3-Coder, GLM and MiniMax-M2 forms, 1,000 small calls
//! in each form, every input whole and in 16-, 4- and 1-byte chunks, and the Qwen3-Coder call
//! from 64 KiB to 4 MiB for the scaling. Prints Markdown tables: MB/s, toolcall ÷ the fastest
//! peer, and whether each parser gave the `content` (and `path`) back byte for byte.
//!
//! A project of its own, outside the workspace, so that the peers' dependencies never reach a
//! user or the default build; `cargo xtask bench --peers` runs it (docs/PERFORMANCE.md).
//!
//! `--smoke`: small inputs, one run per case (checks that everything runs; figures meaningless).
//!
//! `--profile PARSER FORM WORKLOAD MODE` (for example `--profile toolcall glm small 16`): one
//! parse of one case and nothing else, for an instruction counter such as callgrind. `PARSER` is a
//! prefix of a parser's name (`toolcall`, `vllm`, `dynamo-v2`, …, case-insensitive); `FORM` is
//! `qwen`, `glm` or `minimax`; `WORKLOAD` is `small` (1,000 small calls) or `big` (the 1 MiB
//! call); `MODE` is `0` (one-shot) or a chunk size.

mod inputs;
mod parsers;

use inputs::{Expected, Form, Workload};
use parsers::{Output, Parser};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// A streaming case predicted to take longer than this (from two smaller sizes) is not run.
const CAP: Duration = Duration::from_secs(60);

/// How the input is handed over: whole, or in chunks of this many bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    OneShot,
    Chunks(usize),
}

impl Mode {
    fn label(self) -> String {
        match self {
            Mode::OneShot => "one-shot".into(),
            Mode::Chunks(n) => format!("{n}-byte chunks"),
        }
    }
}

const MODES: [Mode; 4] = [
    Mode::OneShot,
    Mode::Chunks(16),
    Mode::Chunks(4),
    Mode::Chunks(1),
];

/// What one parser did with one input in one mode.
enum Cell {
    /// Seconds per parse (the median of the runs) and whether every call came back exactly.
    Ran {
        secs: f64,
        exact: Result<(), String>,
    },
    /// Not run: predicted over [`CAP`] from a smaller size.
    Skipped {
        size: usize,
        secs: f64,
        predicted: f64,
        exponent: f64,
    },
    /// The parser returned an error or panicked.
    Failed(String),
    /// The parser has no reader for this form.
    Unsupported(&'static str),
}

struct Settings {
    smoke: bool,
}

impl Settings {
    /// Seconds of repeated runs per case (the first run included).
    fn budget(&self) -> f64 {
        if self.smoke { 0.0 } else { 0.6 }
    }
}

fn split(text: &str, mode: Mode) -> Vec<&str> {
    match mode {
        Mode::OneShot => vec![text],
        Mode::Chunks(n) => toolcall_parser::chunks(text, n).collect(),
    }
}

/// One parse, timed, its panics caught.
fn run_once(
    p: &mut dyn Parser,
    form: Form,
    mode: Mode,
    pieces: &[&str],
) -> (f64, Result<Output, String>) {
    let start = Instant::now();
    let out = catch_unwind(AssertUnwindSafe(|| match mode {
        Mode::OneShot => p.one_shot(form, pieces[0]),
        Mode::Chunks(_) => p.stream(form, pieces),
    }));
    let secs = start.elapsed().as_secs_f64();
    let out = match out {
        Ok(r) => r,
        Err(panic) => Err(format!(
            "panicked: {}",
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        )),
    };
    (secs, out)
}

/// Whether the calls are the expected ones, byte for byte; else what differs first.
fn check(out: &Output, expected: &[Expected]) -> Result<(), String> {
    let got = out.calls()?;
    if got.len() != expected.len() {
        let missing = expected
            .iter()
            .find(|e| !got.iter().any(|g| g.path == e.path))
            .map(|e| format!(", first missing: {}", e.path))
            .unwrap_or_default();
        return Err(format!(
            "{} calls came back of {}{missing}",
            got.len(),
            expected.len()
        ));
    }
    let mut wrong = 0;
    let mut first = None;
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        if g == e {
            continue;
        }
        wrong += 1;
        if first.is_none() {
            first = Some(if g.path != e.path {
                format!("call {i}: path {:?}, expected {:?}", g.path, e.path)
            } else {
                let at = g
                    .content
                    .bytes()
                    .zip(e.content.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(g.content.len().min(e.content.len()));
                let from = floor_char(&e.content, at.saturating_sub(12));
                let show = |s: &str| {
                    let to = floor_char(s, (at + 12).min(s.len()));
                    let from = floor_char(s, from.min(to));
                    format!("{:?}", &s[from..to])
                };
                format!(
                    "call {i}: content of {} bytes, expected {}; first difference at byte {at}: {} for {}",
                    g.content.len(),
                    e.content.len(),
                    show(&g.content),
                    show(&e.content)
                )
            });
        }
    }
    match first {
        None => Ok(()),
        Some(f) if expected.len() > 1 => {
            Err(format!("{wrong} of {} calls differ; {f}", expected.len()))
        }
        Some(f) => Err(f),
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Runs `p` on `w` in `mode`: once, checked, then again until the budget is spent; the median.
fn measure(p: &mut dyn Parser, form: Form, mode: Mode, w: &Workload, s: &Settings) -> Cell {
    if let Some(why) = p.unsupported(form) {
        return Cell::Unsupported(why);
    }
    let pieces = split(&w.text, mode);
    let (first, out) = run_once(p, form, mode, &pieces);
    let out = match out {
        Ok(o) => o,
        Err(e) => return Cell::Failed(e),
    };
    let exact = check(&out, &w.expected);
    drop(out);
    let mut times = vec![first];
    let mut spent = first;
    while spent < s.budget() && times.len() < 50 {
        let (t, out) = run_once(p, form, mode, &pieces);
        drop(out);
        times.push(t);
        spent += t;
    }
    times.sort_by(f64::total_cmp);
    Cell::Ran {
        secs: times[times.len() / 2],
        exact,
    }
}

/// One timed run of `p` on the one-call input of `size` (for predictions), or `None` on failure.
fn probe(p: &mut dyn Parser, form: Form, mode: Mode, size: usize) -> Option<f64> {
    let w = inputs::one_call(form, size);
    let pieces = split(&w.text, mode);
    let (t, out) = run_once(p, form, mode, &pieces);
    out.ok().map(|_| t)
}

/// The predicted time at `size` from times at two smaller sizes: `t2 · (size/s2)^k`, with the
/// growth exponent `k` measured between them (at least 1).
fn predict((s1, t1): (usize, f64), (s2, t2): (usize, f64), size: usize) -> (f64, f64) {
    let k = ((t2 / t1).ln() / (s2 as f64 / s1 as f64).ln()).max(1.0);
    (t2 * (size as f64 / s2 as f64).powf(k), k)
}

/// [`measure`] on a one-call input of `size`, unless two smaller sizes predict over [`CAP`].
fn measure_capped(
    p: &mut dyn Parser,
    form: Form,
    mode: Mode,
    size: usize,
    known: &[(usize, f64)],
    s: &Settings,
) -> Cell {
    if p.unsupported(form).is_none() && size >= 256 * KIB {
        let (a, b) = match known {
            [.., a, b] => (*a, *b),
            _ => {
                let (s1, s2) = (size / 32, size / 16);
                let Some(t1) = probe(p, form, mode, s1) else {
                    return measure(p, form, mode, &inputs::one_call(form, size), s);
                };
                // Even linear growth from here would pass the cap: no second probe.
                if t1 * (size / s1) as f64 > CAP.as_secs_f64() {
                    return Cell::Skipped {
                        size: s1,
                        secs: t1,
                        predicted: t1 * (size / s1) as f64,
                        exponent: 1.0,
                    };
                }
                let Some(t2) = probe(p, form, mode, s2) else {
                    return measure(p, form, mode, &inputs::one_call(form, size), s);
                };
                ((s1, t1), (s2, t2))
            }
        };
        let (predicted, exponent) = predict(a, b, size);
        if predicted > CAP.as_secs_f64() {
            return Cell::Skipped {
                size: b.0,
                secs: b.1,
                predicted,
                exponent,
            };
        }
    }
    measure(p, form, mode, &inputs::one_call(form, size), s)
}

fn all_parsers() -> Vec<Box<dyn Parser>> {
    vec![
        Box::new(parsers::Ours),
        Box::new(parsers::Vllm),
        Box::new(parsers::DynamoV2),
        Box::new(parsers::DynamoV1),
        Box::new(parsers::Smg),
        Box::new(parsers::Floor {
            kind: parsers::FloorKind::Owned,
        }),
        Box::new(parsers::Floor {
            kind: parsers::FloorKind::Reused,
        }),
        Box::new(parsers::Floor {
            kind: parsers::FloorKind::InPlace,
        }),
        Box::new(parsers::Floor {
            kind: parsers::FloorKind::ScanCopy,
        }),
    ]
}

fn size_label(bytes: usize) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} B")
    }
}

fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / secs / 1e6
}

fn fmt_mbps(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A table cell: MB/s and exactness, or why there is no figure; notes collect the details.
fn show(cell: &Cell, bytes: usize, notes: &mut Vec<String>, who: &str, case: &str) -> String {
    match cell {
        Cell::Ran { secs, exact, .. } => {
            let v = fmt_mbps(mbps(bytes, *secs));
            match exact {
                Ok(()) => format!("{v} yes"),
                Err(e) => {
                    notes.push(format!("{who}, {case}: not byte for byte: {e}"));
                    format!("{v} **no** [{}]", notes.len())
                }
            }
        }
        Cell::Skipped {
            size,
            secs,
            predicted,
            exponent,
        } => {
            let growth = if *exponent > 1.0 {
                format!("time grew as size^{exponent:.2} up to there")
            } else {
                "even linear growth from there".to_string()
            };
            notes.push(format!(
                "{who}, {case}: not run; at {} it took {secs:.2} s ({} MB/s); {growth}, so this size would take ≈ {predicted:.0} s",
                size_label(*size),
                fmt_mbps(mbps(*size, *secs))
            ));
            format!(
                "skipped, ≈ {} (extrapolated) [{}]",
                fmt_mbps(mbps(bytes, *predicted)),
                notes.len()
            )
        }
        Cell::Failed(e) => {
            notes.push(format!("{who}, {case}: {e}"));
            format!("failed [{}]", notes.len())
        }
        Cell::Unsupported(why) => {
            notes.push(format!("{who}, {case}: {why}"));
            format!("n/a [{}]", notes.len())
        }
    }
}

fn secs_of(cell: &Cell) -> Option<f64> {
    match cell {
        Cell::Ran { secs, .. } => Some(*secs),
        _ => None,
    }
}

/// Ours ÷ the fastest peer that ran and gave every call back byte for byte (throughput), with
/// that peer's name: a peer that drops calls has not done the job (vLLM's MiniMax-M2 parser
/// returns the first of 1,000 small calls).
fn ratio(row: &[Cell], names: &[&str]) -> Option<(f64, String)> {
    let ours = secs_of(&row[0])?;
    let (i, best) = row
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, _)| !names[*i].starts_with("floor"))
        .filter(|(_, c)| matches!(c, Cell::Ran { exact: Ok(()), .. }))
        .filter_map(|(i, c)| secs_of(c).map(|t| (i, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some((best / ours, names[i].to_string()))
}

/// One table: a row per parser, a column per mode, then the ratio row and the verdicts.
fn table(
    title: &str,
    w: &Workload,
    cells: &[Vec<Cell>],
    names: &[&str],
    modes: &[Mode],
    targets: bool,
) {
    let bytes = w.text.len();
    println!("\n### {title} ({} bytes of input)\n", bytes);
    print!("| parser |");
    for m in modes {
        print!(" {} |", m.label());
    }
    println!();
    print!("|---|");
    for _ in modes {
        print!("---:|");
    }
    println!();
    let mut notes = Vec::new();
    for (pi, name) in names.iter().enumerate() {
        print!("| {name} |");
        for (mi, m) in modes.iter().enumerate() {
            let case = format!("{title}, {}", m.label());
            print!(
                " {} |",
                show(&cells[mi][pi], bytes, &mut notes, name, &case)
            );
        }
        println!();
    }
    print!("| **toolcall ÷ fastest peer** |");
    let mut verdicts = Vec::new();
    for (mi, m) in modes.iter().enumerate() {
        match ratio(&cells[mi], names) {
            Some((r, peer)) => {
                print!(" {r:.2}× ({peer}) |");
                if let (true, Mode::Chunks(n @ (16 | 4))) = (targets, m) {
                    verdicts.push(format!(
                        "{n}-byte chunks: toolcall ÷ fastest peer {r:.2}× (target ≥ 5×): {}",
                        if r >= 5.0 { "met" } else { "**missed**" }
                    ));
                }
            }
            None => print!(" – |"),
        }
        if let (true, Mode::OneShot, Some(t)) = (targets, m, secs_of(&cells[mi][0])) {
            let v = mbps(bytes, t);
            verdicts.push(format!(
                "one-shot: toolcall {} MB/s (target ≥ 7,800 MB/s): {}",
                fmt_mbps(v),
                if v >= 7800.0 {
                    "met".to_string()
                } else {
                    format!("**missed**, at {:.1}% of it", v / 78.0)
                }
            ));
        }
    }
    println!();
    if !verdicts.is_empty() {
        println!();
    }
    for v in verdicts {
        println!("- {v}");
    }
    if !notes.is_empty() {
        println!();
        for (i, n) in notes.iter().enumerate() {
            println!("{}. {n}", i + 1);
        }
    }
}

/// `--profile PARSER FORM WORKLOAD MODE`: one parse of one case (see the crate's docs).
fn profile(args: &[String]) {
    let [parser, form, workload, mode] = args else {
        eprintln!("usage: --profile PARSER FORM small|big 0|CHUNK");
        std::process::exit(2);
    };
    let form = match form.as_str() {
        "qwen" => Form::Qwen3Coder,
        "glm" => Form::Glm,
        "minimax" => Form::MiniMaxM2,
        _ => {
            eprintln!("FORM: qwen, glm or minimax");
            std::process::exit(2);
        }
    };
    let w = match workload.as_str() {
        "small" => inputs::small_calls(form, 1000),
        "big" => inputs::one_call(form, MIB),
        _ => {
            eprintln!("WORKLOAD: small or big");
            std::process::exit(2);
        }
    };
    let mode = match mode.parse::<usize>() {
        Ok(0) => Mode::OneShot,
        Ok(n) => Mode::Chunks(n),
        Err(_) => {
            eprintln!("MODE: 0 (one-shot) or a chunk size");
            std::process::exit(2);
        }
    };
    let wanted = parser.to_lowercase();
    let mut parsers = all_parsers();
    let Some(p) = parsers.iter_mut().find(|p| {
        p.name()
            .to_lowercase()
            .replace(' ', "-")
            .starts_with(&wanted)
    }) else {
        eprintln!("no parser named {parser}");
        std::process::exit(2);
    };
    let pieces = split(&w.text, mode);
    let (secs, out) = run_once(p.as_mut(), form, mode, &pieces);
    let verdict = match out {
        Ok(o) => match check(&o, &w.expected) {
            Ok(()) => "every call byte for byte".to_string(),
            Err(e) => e,
        },
        Err(e) => format!("failed: {e}"),
    };
    println!("{}: {:.3} ms; {verdict}", p.name(), secs * 1e3);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--profile") {
        profile(&args[1..]);
        return;
    }
    let smoke = args.iter().any(|a| a == "--smoke");
    let settings = Settings { smoke };
    // Peers that panic are reported in the table; their panic messages are kept from stderr.
    std::panic::set_hook(Box::new(|_| {}));

    let mut parsers = all_parsers();
    let names: Vec<&str> = parsers.iter().map(|p| p.name()).collect();
    let big = if smoke { 64 * KIB } else { MIB };
    let small = if smoke { 100 } else { 1000 };
    let started = Instant::now();

    println!("# toolcall beside its peers");
    println!(
        "\nMB/s = input bytes ÷ seconds ÷ 10^6, the median of repeated runs (runs for at least {:.1} s per case); \
         `yes`/`no`: every call's `path` and `content` came back byte for byte.",
        settings.budget()
    );

    for form in Form::ALL {
        let w = inputs::one_call(form, big);
        let mut cells = Vec::new();
        for mode in MODES {
            let mut row = Vec::new();
            for p in parsers.iter_mut() {
                eprintln!(
                    "{} {} {}: {}",
                    form.label(),
                    size_label(big),
                    mode.label(),
                    p.name()
                );
                let cell = match mode {
                    Mode::Chunks(_) => measure_capped(p.as_mut(), form, mode, big, &[], &settings),
                    Mode::OneShot => measure(p.as_mut(), form, mode, &w, &settings),
                };
                row.push(cell);
            }
            cells.push(row);
        }
        let title = format!(
            "{}: one `write_file` call, {} of dense code",
            form.label(),
            size_label(big)
        );
        table(&title, &w, &cells, &names, &MODES, true);
    }

    for form in Form::ALL {
        let w = inputs::small_calls(form, small);
        let mut cells = Vec::new();
        for mode in MODES {
            let mut row = Vec::new();
            for p in parsers.iter_mut() {
                eprintln!(
                    "{} {small} small calls {}: {}",
                    form.label(),
                    mode.label(),
                    p.name()
                );
                row.push(measure(p.as_mut(), form, mode, &w, &settings));
            }
            cells.push(row);
        }
        let title = format!("{}: {small} small `write_file` calls", form.label());
        table(&title, &w, &cells, &names, &MODES, true);
    }

    // Scaling: the Qwen3-Coder call from 64 KiB to 4 MiB, whole and in 16-byte chunks.
    let sizes: Vec<usize> = if smoke {
        vec![16 * KIB, 32 * KIB, 64 * KIB]
    } else {
        (0..7).map(|i| (64 * KIB) << i).collect()
    };
    for mode in [Mode::OneShot, Mode::Chunks(16)] {
        println!(
            "\n### Scaling: the Qwen3-Coder call, {} (MB/s)\n",
            mode.label()
        );
        print!("| parser |");
        for s in &sizes {
            print!(" {} |", size_label(*s));
        }
        println!();
        print!("|---|");
        for _ in &sizes {
            print!("---:|");
        }
        println!();
        let mut notes = Vec::new();
        for p in parsers.iter_mut() {
            let name = p.name();
            print!("| {name} |");
            let mut known: Vec<(usize, f64)> = Vec::new();
            for &size in &sizes {
                eprintln!("scaling {} {}: {name}", mode.label(), size_label(size));
                let cell =
                    measure_capped(p.as_mut(), Form::Qwen3Coder, mode, size, &known, &settings);
                let bytes = inputs::one_call(Form::Qwen3Coder, size).text.len();
                if let Some(t) = secs_of(&cell) {
                    known.push((size, t));
                }
                let case = format!("scaling, {}, {}", mode.label(), size_label(size));
                print!(" {} |", show(&cell, bytes, &mut notes, name, &case));
            }
            println!();
        }
        if !notes.is_empty() {
            println!();
            for (i, n) in notes.iter().enumerate() {
                println!("{}. {n}", i + 1);
            }
        }
    }
    println!("\n(run took {:.0} s)", started.elapsed().as_secs_f64());
}
