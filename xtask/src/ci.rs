//! `cargo xtask ci`: every check, one line per step (name, ok or FAILED, seconds), each step's
//! full output in `target/xtask-logs/<step>.log`, and a closing `N passed, N failed` line.

use crate::shell::{self, Shell, cargo, has_cargo_subcommand, logs_dir};
use crate::{bench, fuzz, python};
use anyhow::Result;
use std::io::Write;
use std::time::Instant;

/// Lines of a failing step's log printed under its line.
const TAIL_LINES: usize = 60;

/// A named check.
struct Step {
    name: &'static str,
    run: fn(&mut Shell) -> Result<bool>,
}

/// The steps, in order; `quick` leaves out the fuzz and bench smoke runs.
fn steps(quick: bool) -> Vec<Step> {
    let mut steps = vec![
        Step {
            name: "fmt",
            run: |sh| sh.run(cargo().args(["fmt", "--all", "--", "--check"])),
        },
        Step {
            name: "clippy",
            run: |sh| {
                sh.run(cargo().args([
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--all-features",
                    "--",
                    "-D",
                    "warnings",
                ]))
            },
        },
        Step {
            name: "tests",
            run: tests,
        },
        Step {
            name: "doc-tests",
            // Warnings fail here as in `docs`: a doc comment rustdoc misreads (a line opening
            // with a fence, say) is caught on private items too, which `docs` does not document.
            run: |sh| {
                sh.run(cargo().env("RUSTDOCFLAGS", "-D warnings").args([
                    "test",
                    "--workspace",
                    "--doc",
                ]))
            },
        },
        Step {
            name: "docs",
            run: |sh| {
                sh.run(cargo().env("RUSTDOCFLAGS", "-D warnings").args([
                    "doc",
                    "--workspace",
                    "--no-deps",
                ]))
            },
        },
    ];
    if !quick {
        if fuzz::exists() {
            steps.push(Step {
                name: "fuzz-smoke",
                run: fuzz::smoke,
            });
        }
        if bench::exists() {
            steps.push(Step {
                name: "bench-smoke",
                run: bench::smoke,
            });
        }
        if python::exists() {
            steps.push(Step {
                name: "python",
                run: python::check,
            });
        }
    }
    steps
}

pub(crate) fn run(quick: bool) -> Result<bool> {
    let steps = steps(quick);
    println!(
        "ci: {} steps{}; each step's output goes to {}/<step>.log",
        steps.len(),
        if quick {
            " (--quick: no fuzz-smoke, no bench-smoke)"
        } else {
            ""
        },
        shell::relative(&logs_dir()),
    );
    let width = steps.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let (mut passed, mut failed) = (0, 0);
    let started = Instant::now();
    for step in &steps {
        let log = logs_dir().join(format!("{}.log", step.name));
        print!("{:width$}  ", step.name);
        let _ = std::io::stdout().flush();
        let t = Instant::now();
        let ok = match Shell::logged(&log) {
            Ok(mut sh) => match (step.run)(&mut sh) {
                Ok(ok) => ok,
                Err(e) => {
                    sh.say(&format!("xtask: {e:#}"));
                    false
                }
            },
            Err(e) => {
                println!("cannot write its log: {e:#}");
                false
            }
        };
        let secs = t.elapsed().as_secs_f64();
        if ok {
            passed += 1;
            println!("ok      {secs:6.1} s");
        } else {
            failed += 1;
            println!("FAILED  {secs:6.1} s");
            let shown = shell::relative(&log);
            println!("---- last {TAIL_LINES} lines of {shown} ----");
            println!("{}", shell::tail(&log, TAIL_LINES));
            println!("---- full output: {shown} ----");
        }
    }
    println!(
        "{passed} passed, {failed} failed ({:.0} s)",
        started.elapsed().as_secs_f64()
    );
    Ok(failed == 0)
}

/// Every unit, integration and property test; nextest when it is installed (faster, and the
/// machine image ships it), `cargo test` otherwise.
fn tests(sh: &mut Shell) -> Result<bool> {
    if has_cargo_subcommand("nextest") {
        sh.run(cargo().args([
            "nextest",
            "run",
            "--workspace",
            "--all-features",
            "--no-fail-fast",
        ]))
    } else {
        sh.run(cargo().args([
            "test",
            "--workspace",
            "--all-features",
            "--lib",
            "--bins",
            "--tests",
            "--examples",
        ]))
    }
}
