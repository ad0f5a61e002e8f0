//! `cargo xtask`: the project's checks, in Rust rather than shell scripts.
//!
//! - `cargo xtask ci`: format, lint, every test, a fuzz smoke and a benchmark smoke; prints each
//!   step with its time and ends with `N passed, N failed`.
//! - `cargo xtask fuzz [TARGET] [--seconds N]`: runs one fuzz target, or all of them.
//! - `cargo xtask bench [--smoke]`: runs the benchmark harness and prints its table.
//! - `cargo xtask bench --python`: the Python package beside SGLang's Qwen3-Coder detector.
//! - `cargo xtask vllm`: the vLLM plugin's tests against vllm==0.32.0 (not part of `ci`).

#![forbid(unsafe_code)]

mod bench;
mod ci;
mod fuzz;
mod python;
mod shell;

use anyhow::{Result, bail};

fn main() -> std::process::ExitCode {
    match run() {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

fn run() -> Result<bool> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (task, rest) = match args.split_first() {
        Some((t, r)) => (t.as_str(), r),
        None => ("help", &[][..]),
    };
    match task {
        "ci" => ci::run(rest),
        "fuzz" => fuzz::run(rest),
        "bench" => bench::run(rest),
        "vllm" => python::vllm(rest),
        "help" | "--help" | "-h" => {
            println!("{}", USAGE);
            Ok(true)
        }
        other => bail!("unknown task `{other}`\n{USAGE}"),
    }
}

const USAGE: &str = "usage: cargo xtask <task>
  ci                         every check: fmt, clippy, tests, fuzz smoke, bench smoke, python
  fuzz [TARGET] [--seconds N] run one fuzz target or all (default 30 s each)
  bench [--smoke]            the benchmark table (--smoke: each benchmark once, small input)
  bench --python             the Python package beside SGLang's Qwen3-Coder detector
  vllm [PYTEST ARGS]         the vLLM plugin's tests against vllm==0.32.0 (target/vllm-venv)";
