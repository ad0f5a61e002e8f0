//! Printing: aligned tables, numbers, the machine, and the targets with met/missed.

use std::fmt::Write as _;

/// A table: a header row and rows of cells; the first `left` columns are left-aligned.
pub(crate) struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    left: usize,
}

impl Table {
    pub(crate) fn new(header: &[&str], left: usize) -> Self {
        Table {
            header: header.iter().map(|s| (*s).to_owned()).collect(),
            rows: Vec::new(),
            left,
        }
    }

    pub(crate) fn row(&mut self, cells: Vec<String>) {
        assert_eq!(cells.len(), self.header.len(), "row width");
        self.rows.push(cells);
    }

    /// The table as Markdown with padded columns (readable in a terminal, pasteable in a doc).
    pub(crate) fn render(&self) -> String {
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, cells: &[String]| {
            out.push('|');
            for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
                let pad = w - c.chars().count();
                if i < self.left {
                    let _ = write!(out, " {c}{} |", " ".repeat(pad));
                } else {
                    let _ = write!(out, " {}{c} |", " ".repeat(pad));
                }
            }
            out.push('\n');
        };
        line(&mut out, &self.header);
        out.push('|');
        for (i, w) in widths.iter().enumerate() {
            if i < self.left {
                let _ = write!(out, "{}|", "-".repeat(w + 2));
            } else {
                let _ = write!(out, "{}:|", "-".repeat(w + 1));
            }
        }
        out.push('\n');
        for row in &self.rows {
            line(&mut out, row);
        }
        out
    }
}

/// A size in bytes: `1 KiB`, `100 KiB`, `1 MiB`, `10 MiB`, else with thousands separators.
pub(crate) fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        thousands(bytes as f64)
    }
}

/// An integer-valued figure with thousands separators.
pub(crate) fn thousands(x: f64) -> String {
    let s = format!("{:.0}", x);
    let (sign, digits) = s.split_at(usize::from(s.starts_with('-')));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

/// MB/s: whole numbers from 100 on, else three significant digits.
pub(crate) fn mbps(x: f64) -> String {
    if x >= 100.0 {
        thousands(x)
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A ratio, `1.23×`.
pub(crate) fn ratio(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}×")
    } else if x >= 0.1 {
        format!("{x:.2}×")
    } else {
        format!("{x:.3}×")
    }
}

/// A duration per iteration in the unit that suits it.
pub(crate) fn duration(secs: f64) -> String {
    if secs >= 1.0 {
        format!("{secs:.2} s")
    } else if secs >= 1e-3 {
        format!("{:.2} ms", secs * 1e3)
    } else if secs >= 1e-6 {
        format!("{:.2} µs", secs * 1e6)
    } else {
        format!("{:.0} ns", secs * 1e9)
    }
}

/// A relative spread, `±3%`.
pub(crate) fn spread(x: f64) -> String {
    format!("±{:.0}%", x * 50.0)
}

/// One target of the issue, with what was measured.
pub(crate) struct Target {
    pub(crate) what: String,
    pub(crate) measured: f64,
    pub(crate) limit: f64,
    /// Whether the measured figure must be at least (`true`) or at most the limit.
    pub(crate) at_least: bool,
}

impl Target {
    pub(crate) fn met(&self) -> bool {
        if self.at_least {
            self.measured >= self.limit
        } else {
            self.measured <= self.limit
        }
    }

    /// `met`, or `MISSED by N%` (how far the measured figure is from the limit).
    pub(crate) fn verdict(&self) -> String {
        if self.met() {
            "met".into()
        } else {
            let by = if self.at_least {
                self.limit / self.measured - 1.0
            } else {
                self.measured / self.limit - 1.0
            };
            format!("MISSED by {:.0}%", by * 100.0)
        }
    }
}

/// The machine and its state: CPU, cores, compiler, date, load, whether a fuzzer is running.
pub(crate) fn machine() -> Vec<String> {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let rustc =
        std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|| "rustc (version unknown)".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    vec![
        format!("machine: {cpu}, {cores} cores; {rustc}"),
        format!(
            "date (UTC): {}; load average before the run: {load}",
            today()
        ),
        format!(
            "fuzzer running: {}",
            if fuzzer_running() {
                "YES (figures disturbed)"
            } else {
                "no"
            }
        ),
    ]
}

/// Whether a process other than this one has `fuzz` in its command line (a `cargo fuzz run`, a
/// libFuzzer binary).
pub(crate) fn fuzzer_running() -> bool {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|entry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == me || !name.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        std::fs::read(entry.path().join("cmdline")).is_ok_and(|c| {
            let cmd = String::from_utf8_lossy(&c).replace('\0', " ");
            cmd.contains("fuzz") && !cmd.contains("cargo install")
        })
    })
}

/// Today's date, `YYYY-MM-DD` (UTC), from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
