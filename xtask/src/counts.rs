//! `cargo xtask bench --counts`: the targets of docs/PERFORMANCE.md that compare two workloads
//! of the `throughput` harness, as ratios of instructions executed (callgrind), which the noise
//! of a shared machine does not move the way it moves timed ratios.
//!
//! Each workload is one `throughput --profile CASE --quick` run under
//! `valgrind --tool=callgrind --toggle-collect=FUNCTION`, so that only the function doing the
//! work is counted (the parse, serde_json's read, a floor's loop), not building the input.
//! Instructions are not time: a `memcpy` of a megabyte is a few instructions per 32 bytes, a
//! branch mispredicted costs many cycles in one instruction. The report says so beside the table;
//! the timed harness (`cargo xtask bench`) stays the measure of speed, this one the measure of
//! work, comparable between builds and between the two sides of a target.

use crate::shell::{cargo, root, target_dir};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The function counted for a case: toolcall's one-shot parse.
const PARSE: &str = "toolcall_parser::parse";
/// serde_json's read, a function of the harness of its own.
const JSON: &str = "throughput::serde_json_read*";
/// The streaming harness's loop (chunking, feeding, dropping the events).
const STREAM: &str = "throughput::stream_deltas";
/// The 1-byte floors' loops.
const NOOP: &str = "throughput::noop_stream";
const DELTA: &str = "throughput::delta_floor_stream";
const DELTA_REUSED: &str = "throughput::delta_reused_floor_stream";

/// A workload: its `--profile` case and the function whose instructions count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Work {
    case: &'static str,
    counted: &'static str,
}

const fn work(case: &'static str, counted: &'static str) -> Work {
    Work { case, counted }
}

/// How a target reads its two counts.
#[derive(Debug, Clone, Copy)]
enum Bound {
    /// ours ÷ reference at most this (a cost ratio).
    AtMost(f64),
    /// reference ÷ ours at least this (a throughput ratio: ours is the slower side).
    AtLeast(f64),
    /// No target: a reference point (a floor) beside the targets.
    Floor,
}

/// One row: what is compared, the two workloads, the bound.
struct Row {
    what: String,
    ours: Work,
    reference: Work,
    bound: Bound,
}

fn rows() -> Vec<Row> {
    let row = |what: String, ours, reference, bound| Row {
        what,
        ours,
        reference,
        bound,
    };
    let small = work("small-calls", PARSE);
    let small_value = work("small-calls-json-value", JSON);
    let mut rows = vec![
        row(
            "1 MiB entity-escaped call, one-shot: serde_json into a struct ÷ toolcall \
             (throughput ratio)"
                .into(),
            work("escaped", PARSE),
            work("escaped-json-struct", JSON),
            Bound::AtLeast(0.5),
        ),
        row(
            "1,000 small calls: toolcall ÷ serde_json into Vec<struct>".into(),
            small,
            work("small-calls-json-struct", JSON),
            Bound::AtMost(2.0),
        ),
        row(
            "1,000 small calls: toolcall ÷ serde_json into Value".into(),
            small,
            small_value,
            Bound::AtMost(1.0),
        ),
        row(
            "floor: cloning toolcall's result of the small calls ÷ serde_json into Value".into(),
            work("small-calls-clone", "throughput::clone_result"),
            small_value,
            Bound::Floor,
        ),
        row(
            "floor: quick-xml's bare events over the small calls (nothing built) ÷ serde_json \
             into Value"
                .into(),
            work(
                "small-calls-quick-xml",
                "throughput::support::readers::quick_xml_events",
            ),
            small_value,
            Bound::Floor,
        ),
        row(
            "`&` repair (1 MiB, 9.3% bare `&`) ÷ the same text escaped".into(),
            work("repair", PARSE),
            work("repair-clean", PARSE),
            Bound::AtMost(1.5),
        ),
    ];
    // The 1-byte rows, for each form of the 256 KiB value: the parser through `feed` and through
    // `feed_into` (deltas off), through `feed` with deltas on, against the no-op feed and, with
    // deltas on, against the feed that only returns the owed delta event.
    for (
        form,
        [
            quiet,
            reused,
            deltas,
            reusing,
            noop,
            delta_floor,
            reused_floor,
        ],
    ) in ONE_BYTE
    {
        let (quiet, reused, deltas, reusing) = (
            work(quiet, STREAM),
            work(reused, STREAM),
            work(deltas, STREAM),
            work(reusing, STREAM),
        );
        let (noop, delta_floor, reused_floor) = (
            work(noop, NOOP),
            work(delta_floor, DELTA),
            work(reused_floor, DELTA_REUSED),
        );
        let prefix = format!("256 KiB of {form} in 1-byte chunks");
        rows.extend([
            row(
                format!("{prefix} (feed), deltas off ÷ the no-op feed"),
                quiet,
                noop,
                Bound::AtMost(5.0),
            ),
            row(
                format!(
                    "{prefix} (feed_into: one Vec of events reused), deltas off ÷ the no-op feed"
                ),
                reused,
                noop,
                Bound::AtMost(5.0),
            ),
            row(
                format!("{prefix}, deltas on ÷ the no-op feed"),
                deltas,
                noop,
                Bound::AtMost(5.0),
            ),
            row(
                format!(
                    "floor: a feed returning one delta event per byte of {form} ÷ the no-op feed"
                ),
                delta_floor,
                noop,
                Bound::Floor,
            ),
            row(
                format!("{prefix}, deltas on ÷ that delta-event floor"),
                deltas,
                delta_floor,
                Bound::AtMost(5.0),
            ),
            row(
                format!(
                    "{prefix} (feed_reusing: the events handed back), deltas on ÷ the no-op feed"
                ),
                reusing,
                noop,
                Bound::AtMost(5.0),
            ),
            row(
                format!(
                    "floor: a feed_reusing returning one delta event per byte of {form}, written \
                     over in place, ÷ the no-op feed"
                ),
                reused_floor,
                noop,
                Bound::Floor,
            ),
            row(
                format!("{prefix} (feed_reusing), deltas on ÷ that reused delta-event floor"),
                reusing,
                reused_floor,
                Bound::AtMost(5.0),
            ),
        ]);
    }
    rows
}

/// The `--profile` cases of the 1-byte rows, by form: deltas off through `feed` and through
/// `feed_into`, deltas on through `feed` and through `feed_reusing`, the no-op feed, the
/// delta-event floor and its reused form.
const ONE_BYTE: [(&str, [&str; 7]); 2] = [
    (
        "CDATA",
        [
            "stream1q-cdata",
            "stream1r-cdata",
            "stream1-cdata",
            "stream1u-cdata",
            "stream1-noop-cdata",
            "stream1-delta-cdata",
            "stream1-deltau-cdata",
        ],
    ),
    (
        "escaped text",
        [
            "stream1q-escaped",
            "stream1r-escaped",
            "stream1-escaped",
            "stream1u-escaped",
            "stream1-noop-escaped",
            "stream1-delta-escaped",
            "stream1-deltau-escaped",
        ],
    ),
];

/// Runs every workload once under callgrind and prints the table; `false` when a workload
/// could not be counted. Targets missed do not fail the task: it reports.
pub(crate) fn run(args: &[String]) -> Result<bool> {
    if let Some(other) = args.first() {
        bail!("unknown argument `{other}` for bench --counts (cargo xtask --help)");
    }
    let probe = Command::new("valgrind").arg("--version").output();
    if !probe.is_ok_and(|o| o.status.success()) {
        bail!("bench --counts needs valgrind (callgrind) on the PATH");
    }
    let harness = build_harness()?;
    let dir = target_dir().join("xtask-logs").join("counts");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut counts = BTreeMap::new();
    let mut works: Vec<Work> = rows().iter().flat_map(|r| [r.ours, r.reference]).collect();
    works.sort();
    works.dedup();
    for w in works {
        let n = count(&harness, w, &dir)?;
        eprintln!(
            "counted {:<24} {:>14} instructions in {}",
            w.case, n, w.counted
        );
        counts.insert(w, n);
    }
    println!("{}", report(&counts));
    Ok(true)
}

/// Builds the `throughput` harness and returns its executable.
fn build_harness() -> Result<PathBuf> {
    let out = cargo()
        .args([
            "bench",
            "-p",
            "toolcall",
            "--bench",
            "throughput",
            "--no-run",
        ])
        .output()
        .context("running cargo bench --no-run")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("building the throughput harness failed:\n{stderr}");
    }
    executable(&stderr)
        .map(|p| root().join(p))
        .context("cargo did not name the throughput harness's executable")
}

/// The executable cargo names in `Executable benches/throughput.rs (PATH)`.
fn executable(cargo_stderr: &str) -> Option<&str> {
    let line = cargo_stderr
        .lines()
        .find(|l| l.contains("Executable") && l.contains("throughput.rs"))?;
    let open = line.rfind('(')?;
    let close = line.rfind(')')?;
    (open < close).then(|| &line[open + 1..close])
}

/// Instructions executed inside `w.counted` during one run of `w.case`.
fn count(harness: &Path, w: Work, dir: &Path) -> Result<u64> {
    let file = dir.join(format!("{}.callgrind", w.case));
    let out = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--toggle-collect={}", w.counted))
        .arg(format!("--callgrind-out-file={}", file.display()))
        .arg(harness)
        .args(["--profile", w.case, "--quick"])
        .output()
        .with_context(|| format!("running callgrind on {}", w.case))?;
    if !out.status.success() {
        bail!(
            "callgrind on {} failed:\n{}",
            w.case,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let n = totals(&text).with_context(|| format!("no totals in {}", file.display()))?;
    if n == 0 {
        bail!(
            "{} counted no instruction in {}: the function was renamed or inlined",
            w.case,
            w.counted
        );
    }
    Ok(n)
}

/// The `totals:` line of a callgrind output file (one event, `Ir`).
fn totals(callgrind: &str) -> Option<u64> {
    callgrind
        .lines()
        .find_map(|l| l.strip_prefix("totals:"))
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
}

/// The Markdown table of the rows, from the counts.
fn report(counts: &BTreeMap<Work, u64>) -> String {
    let mut s = String::from(
        "| comparison | toolcall side | reference side | ratio | target | verdict |\n\
         |---|---:|---:|---:|---:|---|\n",
    );
    for r in rows() {
        let (ours, reference) = (counts[&r.ours], counts[&r.reference]);
        let cost = ours as f64 / reference as f64;
        let (ratio, target, verdict) = match r.bound {
            Bound::AtMost(limit) => (cost, format!("≤ {limit}×"), verdict(cost <= limit)),
            Bound::AtLeast(limit) => (
                1.0 / cost,
                format!("≥ {limit}×"),
                verdict(1.0 / cost >= limit),
            ),
            Bound::Floor => (cost, "(floor)".into(), String::new()),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {ratio:.2}× | {target} | {verdict} |\n",
            r.what,
            millions(ours),
            millions(reference),
        ));
    }
    s.push_str(
        "\nInstructions executed (callgrind), in millions, each side counted in the function that \
         does its work. Instructions are not time; the timed report is `cargo xtask bench`.\n",
    );
    s
}

fn verdict(met: bool) -> String {
    if met { "met" } else { "missed" }.into()
}

fn millions(n: u64) -> String {
    format!("{:.2} M", n as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_executable_cargo_names() {
        let stderr = "   Compiling toolcall v0.1.0\n    Finished `bench` profile\n  \
                      Executable benches/throughput.rs (target/release/deps/throughput-921a)\n";
        assert_eq!(
            executable(stderr),
            Some("target/release/deps/throughput-921a")
        );
        assert_eq!(executable("  Executable benches/memory.rs (x)\n"), None);
    }

    #[test]
    fn reads_callgrind_totals() {
        let file = "events: Ir\nsummary: 12974321\ntotals: 12974321\n";
        assert_eq!(totals(file), Some(12_974_321));
        assert_eq!(totals("events: Ir\n"), None);
    }

    #[test]
    fn every_row_reads_both_sides_and_bounds_in_their_direction() {
        let mut counts = BTreeMap::new();
        for r in rows() {
            // toolcall's side twice the reference's: a cost ratio of 2, a throughput ratio 0.5.
            counts.insert(r.ours, 200_000_000);
            counts.entry(r.reference).or_insert(100_000_000);
        }
        let table = report(&counts);
        assert!(table.contains(
            "| 1 MiB entity-escaped call, one-shot: serde_json into a struct ÷ toolcall \
             (throughput ratio) | 200.00 M | 100.00 M | 0.50× | ≥ 0.5× | met |"
        ));
        assert!(table.contains(
            "| 1,000 small calls: toolcall ÷ serde_json into Value | 200.00 M | 100.00 M | \
             2.00× | ≤ 1× | missed |"
        ));
        assert!(table.contains(
            "| 256 KiB of escaped text in 1-byte chunks (feed_reusing: the events handed back), \
             deltas on ÷ the no-op feed |"
        ));
        assert_eq!(
            table.lines().filter(|l| l.starts_with("| ")).count(),
            rows().len() + 1
        );
    }
}
