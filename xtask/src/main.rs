//! `cargo xtask`: the project's checks, in Rust rather than shell scripts.
//!
//! - `cargo xtask ci [--quick]`: format, lint, every test, a fuzz smoke and a benchmark smoke;
//!   one line per step, full output in `target/xtask-logs/`.
//! - `cargo xtask fuzz [TARGET…] [--seconds N]`: runs fuzz targets; `--soak SECONDS` runs them
//!   long, in parallel, and records a summary in `fuzz/SOAK.md`.
//! - `cargo xtask bench [--smoke]`: runs the benchmark harness and prints its table.
//! - `cargo xtask bench --counts`: the targets that compare two workloads, as instruction counts
//!   (callgrind), free of the machine's noise.
//! - `cargo xtask bench --python`: the Python package beside SGLang's Qwen3-Coder detector.
//! - `cargo xtask bench --vllm`: the vLLM plugin beside vLLM's own parsers, in vLLM.
//! - `cargo xtask bench --peers`: toolcall beside the other Rust tool-call parsers (vLLM's,
//!   NVIDIA Dynamo's, smg's), built outside the workspace (not part of `ci`).
//! - `cargo xtask vllm`: the vLLM plugin's tests against vllm==0.32.0 (not part of `ci`).
//!
//! `cargo xtask --help` prints every task and flag ([`args::USAGE`]).

#![forbid(unsafe_code)]

mod args;
mod bench;
mod ci;
mod counts;
mod fuzz;
mod libfuzzer;
mod peers;
mod python;
mod shell;
mod soak;

use anyhow::Result;
use args::Task;

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
    match args::parse(&args)? {
        Task::Help => {
            print!("{}", args::USAGE);
            Ok(true)
        }
        Task::Ci { quick } => ci::run(quick),
        Task::Fuzz(f) => fuzz::run(f),
        Task::Bench { args } => bench::run(&args),
        Task::Vllm { args } => python::vllm(&args),
    }
}
