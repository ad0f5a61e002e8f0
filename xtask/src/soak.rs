//! `cargo xtask fuzz --soak SECONDS [--jobs N] [TARGET…]`: every chosen target for SECONDS, N
//! at a time, each on its kept corpus; a summary per target, printed and appended to
//! `fuzz/SOAK.md`.
//!
//! libFuzzer stops at its first finding; the target then starts again for the time left (its
//! corpus holds what it learnt; the failing input is not in it), up to [`MAX_FINDINGS`] times.

use crate::fuzz;
use crate::libfuzzer::{self, Finding, RunStats};
use crate::shell::{self, Shell, logs_dir, root};
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Findings after which a target is not started again.
const MAX_FINDINGS: usize = 5;

/// Time left below which a target is not started again after a finding.
const MIN_RESTART_SECONDS: u64 = 10;

/// One target's soak: its runs so far, and the one running.
struct Job {
    target: String,
    log: PathBuf,
    started: Instant,
    corpus_before: usize,
    runs: Vec<RunStats>,
    /// Failures that were not findings (the fuzzer did not start, say).
    errors: Vec<String>,
    /// The running fuzzer and where its output starts in the log.
    child: Option<(Child, u64)>,
}

/// A target's figures over all its runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) target: String,
    pub(crate) seconds: u64,
    pub(crate) executions: u64,
    pub(crate) cov: Option<u64>,
    pub(crate) ft: Option<u64>,
    pub(crate) corpus_before: usize,
    pub(crate) corpus_after: usize,
    pub(crate) peak_rss_mb: Option<u64>,
    pub(crate) findings: Vec<Finding>,
    pub(crate) errors: Vec<String>,
}

impl Summary {
    fn exec_per_sec(&self) -> u64 {
        self.executions / self.seconds.max(1)
    }

    fn failed(&self) -> bool {
        !self.errors.is_empty() || self.findings.iter().any(|f| f.kind.fails())
    }

    /// `none`, or the findings' kinds with their counts (`1 crash, 2 timeout`).
    fn findings_cell(&self) -> String {
        let mut kinds: Vec<(&str, usize)> = Vec::new();
        for f in &self.findings {
            match kinds.iter_mut().find(|(k, _)| *k == f.kind.name()) {
                Some((_, n)) => *n += 1,
                None => kinds.push((f.kind.name(), 1)),
            }
        }
        let mut cells: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        if !self.errors.is_empty() {
            cells.push(format!("{} failed run", self.errors.len()));
        }
        if cells.is_empty() {
            "none".into()
        } else {
            cells.join(", ")
        }
    }
}

pub(crate) fn run(targets: &[String], seconds: u64, jobs: usize) -> Result<bool> {
    let dir = logs_dir().join("soak");
    let build_log = dir.join("build.log");
    let n = targets.len();
    println!(
        "soak: {n} target{}, {seconds} s each, {jobs} at a time; logs in {}/",
        if n == 1 { "" } else { "s" },
        shell::relative(&dir)
    );
    print!("building the fuzz targets … ");
    let _ = std::io::stdout().flush();
    let mut sh = Shell::logged(&build_log)?;
    let t = Instant::now();
    if let Err(e) = fuzz::build(&mut sh, targets) {
        println!("FAILED");
        println!("{}", shell::tail(&build_log, 60));
        return Err(e);
    }
    println!("ok ({:.0} s)", t.elapsed().as_secs_f64());

    // What the figures depend on, as it was when the fuzzers were built.
    let (started_at, context) = (utc_now(), context());
    let mut queue: std::collections::VecDeque<&String> = targets.iter().collect();
    let mut running: Vec<Job> = Vec::new();
    let mut done: Vec<Summary> = Vec::new();
    while !queue.is_empty() || !running.is_empty() {
        while running.len() < jobs
            && let Some(target) = queue.pop_front()
        {
            running.push(start(target, &dir, seconds)?);
        }
        std::thread::sleep(Duration::from_millis(500));
        let mut i = 0;
        while i < running.len() {
            if poll(&mut running[i], seconds)? {
                let job = running.remove(i);
                let s = summarize(job);
                println!("{}", one_line(&s));
                done.push(s);
            } else {
                i += 1;
            }
        }
    }
    done.sort_by_key(|s| targets.iter().position(|t| *t == s.target));

    let report = render(&started_at, &context, seconds, jobs, &done);
    println!("\n{report}");
    let path = fuzz::dir().join("SOAK.md");
    append_report(&path, &report)?;
    println!("appended to {}", shell::relative(&path));
    Ok(!done.iter().any(Summary::failed))
}

/// Starts a target's first run, its log emptied.
fn start(target: &str, dir: &Path, seconds: u64) -> Result<Job> {
    std::fs::create_dir_all(dir)?;
    let log = dir.join(format!("{target}.log"));
    File::create(&log).with_context(|| format!("{}", log.display()))?;
    let mut job = Job {
        target: target.to_string(),
        log,
        started: Instant::now(),
        corpus_before: count_files(&fuzz::corpus_dir(target)),
        runs: Vec::new(),
        errors: Vec::new(),
        child: None,
    };
    launch(&mut job, seconds)?;
    println!(
        "{target}: started ({seconds} s, log {})",
        shell::relative(&job.log)
    );
    Ok(job)
}

/// Starts a run of the job's target for `seconds`, appending its output to the log.
fn launch(job: &mut Job, seconds: u64) -> Result<()> {
    let offset = shell::file_len(&job.log);
    let mut log = OpenOptions::new().append(true).open(&job.log)?;
    let mut cmd: Command = fuzz::command(&job.target, seconds)?;
    writeln!(log, "$ {}", shell::display(&cmd))?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(log.try_clone()?))
        .stderr(Stdio::from(log));
    let child = cmd
        .spawn()
        .with_context(|| format!("cannot start {}", shell::display(&cmd)))?;
    job.child = Some((child, offset));
    Ok(())
}

/// Checks on a job; true when it is over (its time is up, or it found too much).
fn poll(job: &mut Job, seconds: u64) -> Result<bool> {
    let Some((child, offset)) = &mut job.child else {
        return Ok(true);
    };
    let Some(status) = child.try_wait()? else {
        return Ok(false);
    };
    let stats = libfuzzer::parse(&shell::read_from(&job.log, *offset));
    job.child = None;
    let found = stats.findings.iter().any(|f| f.kind.fails());
    if !status.success() && !found {
        job.errors.push(format!(
            "the fuzzer exited with {status} and no finding; see {}",
            shell::relative(&job.log)
        ));
    }
    job.runs.push(stats);
    let findings: usize = job.runs.iter().map(|r| r.findings.len()).sum();
    let left = seconds.saturating_sub(job.started.elapsed().as_secs());
    if found && findings < MAX_FINDINGS && left >= MIN_RESTART_SECONDS {
        launch(job, left)?;
        return Ok(false);
    }
    Ok(true)
}

fn summarize(job: Job) -> Summary {
    let max = |f: fn(&RunStats) -> Option<u64>| job.runs.iter().filter_map(f).max();
    Summary {
        seconds: job.started.elapsed().as_secs(),
        executions: job.runs.iter().filter_map(|r| r.executions).sum(),
        cov: max(|r| r.cov),
        ft: max(|r| r.ft),
        corpus_before: job.corpus_before,
        corpus_after: count_files(&fuzz::corpus_dir(&job.target)),
        peak_rss_mb: max(|r| r.peak_rss_mb),
        findings: job.runs.iter().flat_map(|r| r.findings.clone()).collect(),
        errors: job.errors,
        target: job.target,
    }
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.filter(|e| e.is_ok()).count())
}

/// A finished target, in one line.
fn one_line(s: &Summary) -> String {
    format!(
        "{}: {} s, {} executions, {}/s, cov {}, ft {}, corpus {} -> {}, findings: {}",
        s.target,
        s.seconds,
        thousands(s.executions),
        thousands(s.exec_per_sec()),
        opt(s.cov),
        opt(s.ft),
        thousands(s.corpus_before as u64),
        thousands(s.corpus_after as u64),
        s.findings_cell()
    )
}

/// The Markdown section of one soak run.
pub(crate) fn render(
    date: &str,
    context: &str,
    seconds: u64,
    jobs: usize,
    summaries: &[Summary],
) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## {date}: {seconds} s per target, {jobs} at a time\n\n{context}\n"
    );
    md.push_str(
        "| target | seconds | executions | exec/s | cov | ft | corpus before → after | peak RSS | findings |\n\
         |---|--:|--:|--:|--:|--:|--:|--:|---|\n",
    );
    for s in summaries {
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {} | {} | {} → {} | {} | {} |",
            s.target,
            s.seconds,
            thousands(s.executions),
            thousands(s.exec_per_sec()),
            opt(s.cov),
            opt(s.ft),
            thousands(s.corpus_before as u64),
            thousands(s.corpus_after as u64),
            s.peak_rss_mb.map_or("?".into(), |m| format!("{m} MB")),
            s.findings_cell()
        );
    }
    let details: Vec<String> = summaries
        .iter()
        .flat_map(|s| {
            let findings = s.findings.iter().map(|f| {
                format!(
                    "- `{}`: {}, {}: `{}`",
                    s.target,
                    f.kind.name(),
                    if f.reason.is_empty() {
                        "no reason printed"
                    } else {
                        &f.reason
                    },
                    shell::relative(Path::new(&f.artifact))
                )
            });
            let errors = s.errors.iter().map(|e| format!("- `{}`: {e}", s.target));
            findings.chain(errors).collect::<Vec<_>>()
        })
        .collect();
    if !details.is_empty() {
        md.push_str("\nFindings (reproduce with `cargo +nightly fuzz run TARGET FILE`):\n\n");
        for d in details {
            md.push_str(&d);
            md.push('\n');
        }
    }
    md
}

/// Appends a report to `SOAK.md`, which starts with a title and what its columns mean.
fn append_report(path: &Path, report: &str) -> Result<()> {
    let mut text = std::fs::read_to_string(path).unwrap_or_default();
    if text.is_empty() {
        text.push_str(SOAK_HEADER);
    }
    if !text.ends_with("\n\n") {
        text.push('\n');
    }
    text.push_str(report);
    std::fs::write(path, text).with_context(|| format!("{}", path.display()))
}

const SOAK_HEADER: &str = "# Fuzz soak runs

Appended by `cargo xtask fuzz --soak SECONDS [--jobs N] [TARGET…]`, one section per run.
Columns: wall seconds of the target (restarts after a finding included); inputs executed; their
rate; libFuzzer's final edge coverage (`cov`) and features (`ft`); files in
`fuzz/corpus/<target>` before and after (the checked-in `seed-*` files and the working corpus,
which git ignores); libFuzzer's peak resident memory (AddressSanitizer included). Rates depend on
the machine's load: compare them only between runs on the same machine.
";

/// The commit, the cores, the niceness: what the figures depend on.
fn context() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "?".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let mut s = format!(
        "Commit `{commit}`{}, {cores} cores",
        if dirty {
            " with uncommitted changes"
        } else {
            ""
        }
    );
    if let Some(nice) = niceness() {
        let _ = write!(s, ", nice {nice}");
    }
    s.push_str(", AddressSanitizer, `-max_len=4096 -timeout=10`.");
    s
}

/// This process's nice value, from `/proc/self/stat` (Linux; none elsewhere).
fn niceness() -> Option<i64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces, so split after its `)`): state is
    // the first, nice the 17th.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(16)?.parse().ok()
}

fn opt(n: Option<u64>) -> String {
    n.map_or("?".into(), thousands)
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The time now, `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = date(secs / 86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        secs % 86_400 / 3600,
        secs % 3600 / 60
    )
}

/// The Gregorian date `days` after 1970-01-01, counted out year by year and month by month.
fn date(mut days: u64) -> (u64, u64, u64) {
    let leap = |y: u64| (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let mut year = 1970;
    loop {
        let len = if leap(year) { 366 } else { 365 };
        if days < len {
            break;
        }
        days -= len;
        year += 1;
    }
    let months = [
        31,
        if leap(year) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let mut month = 1;
    for len in months {
        if days < len {
            break;
        }
        days -= len;
        month += 1;
    }
    (year, month, days + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::libfuzzer::Kind;

    #[test]
    fn dates() {
        assert_eq!(date(0), (1970, 1, 1));
        assert_eq!(date(31 + 28), (1970, 3, 1));
        // 2000 is a leap year, 2100 is not.
        assert_eq!(date(10_957), (2000, 1, 1));
        assert_eq!(date(10_957 + 31 + 28), (2000, 2, 29));
        assert_eq!(date(10_957 + 366), (2001, 1, 1));
        assert_eq!(date(47_482 + 31 + 28), (2100, 3, 1));
        assert_eq!(date(20_454), (2026, 1, 1));
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(2_609_400), "2,609,400");
    }

    #[test]
    fn report_table_and_findings() {
        let clean = Summary {
            target: "parse_mixed".into(),
            seconds: 600,
            executions: 2_609_400,
            cov: Some(4751),
            ft: Some(26_285),
            corpus_before: 14,
            corpus_after: 1203,
            peak_rss_mb: Some(512),
            findings: vec![],
            errors: vec![],
        };
        let crashed = Summary {
            target: "stream_chunking".into(),
            findings: vec![
                Finding {
                    kind: Kind::Crash,
                    reason: "panicked at fuzz_targets/stream_chunking.rs:90:5: left != right"
                        .into(),
                    artifact: "fuzz/artifacts/stream_chunking/crash-abc".into(),
                },
                Finding {
                    kind: Kind::Crash,
                    reason: String::new(),
                    artifact: "fuzz/artifacts/stream_chunking/crash-def".into(),
                },
            ],
            ..clean.clone()
        };
        assert!(!clean.failed());
        assert!(crashed.failed());
        let md = render(
            "2026-08-05 07:00 UTC",
            "Commit `abc`.",
            600,
            1,
            &[clean, crashed],
        );
        assert!(md.starts_with(
            "## 2026-08-05 07:00 UTC: 600 s per target, 1 at a time\n\nCommit `abc`.\n\n|"
        ));
        assert!(md.contains(
            "| `parse_mixed` | 600 | 2,609,400 | 4,349 | 4,751 | 26,285 | 14 → 1,203 | 512 MB | none |"
        ));
        assert!(md.contains("| 2 crash |"));
        assert!(md.contains(
            "- `stream_chunking`: crash, panicked at fuzz_targets/stream_chunking.rs:90:5: \
             left != right: `fuzz/artifacts/stream_chunking/crash-abc`"
        ));
        assert!(md.contains("no reason printed"));
    }
}
