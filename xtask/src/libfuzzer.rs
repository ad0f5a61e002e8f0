//! What one libFuzzer run printed, read back: executions, speed, coverage, corpus size, peak
//! memory, and each finding with its artifact.
//!
//! The lines read (libFuzzer run with `-print_final_stats=1`):
//! - status lines, `#N<TAB>KIND cov: X ft: Y corp: U/SIZE … exec/s: R rss: MMb`, the last of
//!   which (`DONE` when the time ran out) holds the final coverage;
//! - `Done N runs in S second(s)`;
//! - the final statistics, `stat::number_of_executed_units: N`, `stat::average_exec_per_sec: R`,
//!   `stat::new_units_added: N`, `stat::slowest_unit_time_sec: S`, `stat::peak_rss_mb: M`
//!   (printed after a crash too);
//! - findings: a Rust panic (`thread '…' panicked at FILE:LINE:COL:` and its message on the next
//!   line), a sanitizer or libFuzzer `ERROR:` line, and `Test unit written to PATH`, whose file
//!   name says the kind (`crash-`, `timeout-`, `oom-`, `leak-`, `slow-unit-`).

/// The figures and findings of one run; `None` where the output did not say.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct RunStats {
    /// Inputs run (`stat::number_of_executed_units`, else `Done N runs`, else the last `#N`).
    pub(crate) executions: Option<u64>,
    /// libFuzzer's own average (`stat::average_exec_per_sec`).
    pub(crate) exec_per_sec: Option<u64>,
    /// Coverage of the last status line: edges (`cov:`) and features (`ft:`).
    pub(crate) cov: Option<u64>,
    pub(crate) ft: Option<u64>,
    /// Units in the in-memory corpus at the last status line (`corp: N/…`).
    pub(crate) corpus_units: Option<u64>,
    /// Units added to the corpus during the run (`stat::new_units_added`).
    pub(crate) new_units: Option<u64>,
    /// Peak resident memory (`stat::peak_rss_mb`).
    pub(crate) peak_rss_mb: Option<u64>,
    /// The slowest input's seconds (`stat::slowest_unit_time_sec`).
    pub(crate) slowest_unit_secs: Option<u64>,
    /// Whether the run ended because its time or run count was up (`DONE`, `Done N runs`).
    pub(crate) done: bool,
    pub(crate) findings: Vec<Finding>,
}

/// What libFuzzer reported and wrote to its artifacts folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) kind: Kind,
    /// The panic (location and message), else the first `ERROR:` line of the run.
    pub(crate) reason: String,
    /// The input, as libFuzzer named it.
    pub(crate) artifact: String,
}

/// A finding's kind, from its artifact's file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Crash,
    Timeout,
    OutOfMemory,
    Leak,
    SlowUnit,
    Other,
}

impl Kind {
    fn of_artifact(path: &str) -> Kind {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        [
            ("crash-", Kind::Crash),
            ("timeout-", Kind::Timeout),
            ("oom-", Kind::OutOfMemory),
            ("leak-", Kind::Leak),
            ("slow-unit-", Kind::SlowUnit),
        ]
        .into_iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map_or(Kind::Other, |(_, k)| k)
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Crash => "crash",
            Kind::Timeout => "timeout",
            Kind::OutOfMemory => "out of memory",
            Kind::Leak => "leak",
            Kind::SlowUnit => "slow unit",
            Kind::Other => "artifact",
        }
    }

    /// Whether the finding fails a run (slow units are reported, not failures).
    pub(crate) fn fails(self) -> bool {
        self != Kind::SlowUnit
    }
}

/// Longest panic message kept as a reason, in characters.
const MAX_REASON: usize = 600;

/// At most `max` characters of `s`, `…` marking a cut.
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The number after `key` in `line` (`cov: 123` → 123), digits only.
fn number_after(line: &str, key: &str) -> Option<u64> {
    let at = line.find(key)? + key.len();
    let digits: String = line[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Reads a run's output.
///
/// libFuzzer stops at its first finding, so the reason (a panic, else the first `ERROR:` line)
/// belongs to every artifact of the run but slow units; it may come before the artifact's line
/// (a panic) or after it (a timeout).
pub(crate) fn parse(output: &str) -> RunStats {
    let mut s = RunStats::default();
    let mut last_status_execs = None;
    let mut done_runs = None;
    let mut panic: Option<String> = None;
    let mut error: Option<String> = None;
    let mut artifacts = Vec::new();
    let mut lines = output.lines().peekable();
    while let Some(line) = lines.next() {
        let line = line.trim_end();
        if let Some(status) = line.strip_prefix('#') {
            // `#1024\tpulse  cov: …`; lines starting with `#` that are not status lines (a
            // dictionary echo, say) have no number and no `cov:`/`corp:`.
            let n: String = status.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = n.parse::<u64>()
                && (line.contains(" cov: ") || line.contains(" corp: "))
            {
                last_status_execs = Some(n);
                s.cov = number_after(line, " cov:").or(s.cov);
                s.ft = number_after(line, " ft:").or(s.ft);
                s.corpus_units = number_after(line, " corp:").or(s.corpus_units);
                if status.contains("DONE") {
                    s.done = true;
                }
            }
        } else if let Some(v) = line.strip_prefix("stat::") {
            let value = number_after(v, ":");
            match v.split(':').next().unwrap_or("") {
                "number_of_executed_units" => s.executions = value,
                "average_exec_per_sec" => s.exec_per_sec = value,
                "new_units_added" => s.new_units = value,
                "slowest_unit_time_sec" => s.slowest_unit_secs = value,
                "peak_rss_mb" => s.peak_rss_mb = value,
                _ => {}
            }
        } else if line.starts_with("Done ") && line.contains(" runs in ") {
            done_runs = number_after(line, "Done");
            s.done = true;
        } else if let Some(at) = line.find("panicked at ") {
            let location = line[at + "panicked at ".len()..].trim_end_matches(':');
            // The message follows on its own lines (Rust 1.73 and later): an assertion's
            // `left:`/`right:` too, up to the backtrace or the sanitizer's report.
            let mut message = String::new();
            while let Some(next) = lines.peek() {
                let next = next.trim();
                if next.is_empty()
                    || ["stack backtrace:", "note:", "==", "SUMMARY:", "thread '"]
                        .iter()
                        .any(|p| next.starts_with(p))
                {
                    break;
                }
                if !message.is_empty() {
                    message.push(' ');
                }
                message.push_str(next);
                lines.next();
            }
            panic.get_or_insert(if message.is_empty() {
                format!("panicked at {location}")
            } else {
                format!("panicked at {location}: {}", shorten(&message, MAX_REASON))
            });
        } else if let Some(at) = line.find("ERROR: ") {
            error.get_or_insert_with(|| line[at + "ERROR: ".len()..].to_string());
        } else if let Some(at) = line.find("Test unit written to ") {
            artifacts.push(
                line[at + "Test unit written to ".len()..]
                    .trim()
                    .to_string(),
            );
        } else if let Some(secs) = line.strip_prefix("Slowest unit: ") {
            s.slowest_unit_secs = number_after(secs, "");
        }
    }
    let reason = panic.or(error).unwrap_or_default();
    for artifact in artifacts {
        let kind = Kind::of_artifact(&artifact);
        let reason = match kind {
            Kind::SlowUnit => format!(
                "slowest input: {} s",
                s.slowest_unit_secs.map_or("?".into(), |n| n.to_string())
            ),
            _ => reason.clone(),
        };
        s.findings.push(Finding {
            kind,
            reason,
            artifact,
        });
    }
    s.executions = s.executions.or(done_runs).or(last_status_execs);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Captured from `parse_mixed` running 20 s with the checked-in seeds (trimmed in the middle).
    const CLEAN: &str = include_str!("testdata/libfuzzer-clean.txt");
    /// Captured from a throwaway target that fails `assert_eq!` on inputs starting `boom`.
    const PANIC: &str = include_str!("testdata/libfuzzer-panic.txt");
    /// Captured from a throwaway target that loops forever on `hang` (`-timeout=2`).
    const TIMEOUT: &str = include_str!("testdata/libfuzzer-timeout.txt");
    /// Captured from a throwaway target that allocates 3 GiB on `oom!` (`-rss_limit_mb=2048`).
    const OOM: &str = include_str!("testdata/libfuzzer-oom.txt");

    #[test]
    fn clean_run() {
        let s = parse(CLEAN);
        assert_eq!(
            s,
            RunStats {
                executions: Some(79_259),
                exec_per_sec: Some(3774),
                cov: Some(3851),
                ft: Some(13_205),
                corpus_units: Some(1445),
                new_units: Some(2472),
                peak_rss_mb: Some(475),
                slowest_unit_secs: Some(0),
                done: true,
                findings: vec![],
            }
        );
    }

    #[test]
    fn panic_names_the_assertion_and_the_artifact() {
        let s = parse(PANIC);
        assert!(!s.done);
        assert_eq!(s.findings.len(), 1, "{:?}", s.findings);
        let f = &s.findings[0];
        assert_eq!(f.kind, Kind::Crash);
        assert!(f.artifact.contains("artifacts/sample/crash-"), "{f:?}");
        assert!(
            f.reason.starts_with("panicked at fuzz_targets/sample.rs:"),
            "{f:?}"
        );
        assert_eq!(
            f.reason,
            "panicked at fuzz_targets/sample.rs:5:9: assertion `left == right` failed: \
             a boom of 5 bytes left: 5 right: 4"
        );
        // The final statistics come after the crash too.
        assert!(s.executions.is_some());
        assert!(s.peak_rss_mb.is_some());
    }

    #[test]
    fn timeout() {
        let s = parse(TIMEOUT);
        assert_eq!(s.findings.len(), 1, "{:?}", s.findings);
        let f = &s.findings[0];
        assert_eq!(f.kind, Kind::Timeout);
        assert!(f.artifact.contains("timeout-"), "{f:?}");
        assert!(f.reason.contains("libFuzzer: timeout"), "{f:?}");
    }

    #[test]
    fn out_of_memory() {
        let s = parse(OOM);
        assert_eq!(s.findings.len(), 1, "{:?}", s.findings);
        let f = &s.findings[0];
        assert_eq!(f.kind, Kind::OutOfMemory);
        assert!(f.artifact.contains("oom-"), "{f:?}");
        assert!(f.reason.contains("out-of-memory"), "{f:?}");
    }

    #[test]
    fn status_line_fields() {
        let s = parse(
            "#2\tINITED cov: 10 ft: 12 corp: 1/1b exec/s: 0 rss: 30Mb\n\
             #4096\tpulse  cov: 1234 ft: 5678 corp: 90/2048b lim: 4 exec/s: 2048 rss: 45Mb\n",
        );
        assert_eq!(
            (s.executions, s.cov, s.ft, s.corpus_units, s.done),
            (Some(4096), Some(1234), Some(5678), Some(90), false)
        );
    }

    #[test]
    fn done_runs_line_without_final_stats() {
        let s = parse(
            "#77\tNEW    cov: 3 ft: 4 corp: 2/2b lim: 4 exec/s: 0 rss: 30Mb L: 1/1 MS: 1 \
             ChangeBit-\nDone 100 runs in 1 second(s)\n",
        );
        assert_eq!((s.executions, s.done), (Some(100), true));
    }

    #[test]
    fn artifact_kinds_by_file_name() {
        for (path, kind) in [
            ("fuzz/artifacts/t/crash-00ab", Kind::Crash),
            ("/abs/artifacts/t/timeout-1", Kind::Timeout),
            ("oom-2", Kind::OutOfMemory),
            ("a/leak-3", Kind::Leak),
            ("a/slow-unit-4", Kind::SlowUnit),
            ("a/minimized-from-5", Kind::Other),
        ] {
            assert_eq!(Kind::of_artifact(path), kind, "{path}");
        }
    }

    #[test]
    fn long_panic_messages_are_cut() {
        let long = "x".repeat(2000);
        let s = parse(&format!(
            "thread '<unnamed>' (1) panicked at a.rs:1:1:\n{long}\nstack backtrace:\n\
             artifact_prefix='a/'; Test unit written to a/crash-1\n"
        ));
        let reason = &s.findings[0].reason;
        assert!(reason.ends_with('…'), "{reason}");
        assert_eq!(
            reason.chars().count(),
            "panicked at a.rs:1:1: ".len() + MAX_REASON + 1
        );
    }

    #[test]
    fn empty_output_says_nothing() {
        assert_eq!(parse(""), RunStats::default());
    }
}
