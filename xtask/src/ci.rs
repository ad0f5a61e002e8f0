//! `cargo xtask ci`: every check, each step timed, a closing `N passed, N failed` line.

use crate::shell::{self, cargo, has_cargo_subcommand};
use crate::{bench, fuzz, python};
use anyhow::Result;
use std::time::Instant;

/// A named check.
struct Step {
    name: &'static str,
    run: Box<dyn Fn() -> Result<bool>>,
}

pub(crate) fn run(args: &[String]) -> Result<bool> {
    let quick = args.iter().any(|a| a == "--quick");
    let mut steps = vec![
        Step {
            name: "fmt",
            run: Box::new(|| shell::run(cargo().args(["fmt", "--all", "--", "--check"]))),
        },
        Step {
            name: "clippy",
            run: Box::new(|| {
                shell::run(cargo().args([
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--all-features",
                    "--",
                    "-D",
                    "warnings",
                ]))
            }),
        },
        Step {
            name: "tests",
            run: Box::new(tests),
        },
        Step {
            name: "doc-tests",
            run: Box::new(|| shell::run(cargo().args(["test", "--workspace", "--doc"]))),
        },
        Step {
            name: "docs",
            run: Box::new(|| {
                shell::run(cargo().env("RUSTDOCFLAGS", "-D warnings").args([
                    "doc",
                    "--workspace",
                    "--no-deps",
                ]))
            }),
        },
    ];
    if !quick {
        if fuzz::exists() {
            steps.push(Step {
                name: "fuzz smoke",
                run: Box::new(fuzz::smoke),
            });
        }
        if bench::exists() {
            steps.push(Step {
                name: "bench smoke",
                run: Box::new(bench::smoke),
            });
        }
        if python::exists() {
            steps.push(Step {
                name: "python",
                run: Box::new(python::check),
            });
        }
    }

    let (mut passed, mut failed) = (0, 0);
    let started = Instant::now();
    for step in &steps {
        eprintln!("\n==> {}", step.name);
        let t = Instant::now();
        let ok = match (step.run)() {
            Ok(ok) => ok,
            Err(e) => {
                eprintln!("{e:#}");
                false
            }
        };
        let secs = t.elapsed().as_secs_f64();
        if ok {
            passed += 1;
            eprintln!("==> {}: ok ({secs:.1} s)", step.name);
        } else {
            failed += 1;
            eprintln!("==> {}: FAILED ({secs:.1} s)", step.name);
        }
    }
    eprintln!("\nci: {:.0} s in all", started.elapsed().as_secs_f64());
    println!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

/// Every unit, integration and property test; nextest when it is installed (faster, and the
/// machine image ships it), `cargo test` otherwise.
fn tests() -> Result<bool> {
    if has_cargo_subcommand("nextest") {
        shell::run(cargo().args([
            "nextest",
            "run",
            "--workspace",
            "--all-features",
            "--no-fail-fast",
        ]))
    } else {
        shell::run(cargo().args([
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
