//! `cargo xtask bench`: the benchmark harness of the `toolcall` crate, printed as one report.
//!
//! `crates/toolcall/benches/throughput.rs` times everything in one run (about two minutes) and
//! prints the tables with their ratios and the targets of docs/PERFORMANCE.md; it builds and runs
//! the `memory` bench (a counting allocator, one process per case) for the peak-memory figures.
//! `cargo xtask bench SECTION…` runs some sections only (`one_call`, `repair`, `streaming`,
//! `small_calls`, `schema`, `thread`, `prompt`, `memory`); `--smoke` runs each benchmark once
//! on small input, checking every result, as `cargo xtask ci` does. `--python`, `--vllm` and
//! `--peers` run the benchmarks beside other parsers (Python's and vLLM's, in `python.rs`;
//! Rust's, in `peers.rs`), which `cargo xtask ci` never runs; `--counts` counts instructions
//! (callgrind) on both sides of the targets that compare two workloads (`counts.rs`).

use crate::shell::{Shell, cargo, root};
use anyhow::Result;

/// The harness: a `harness = false` bench target that prints its own report.
const BENCH_PACKAGE: &str = "toolcall";
const BENCH_TARGET: &str = "throughput";

/// Whether the harness exists yet.
pub(crate) fn exists() -> bool {
    root()
        .join("crates")
        .join(BENCH_PACKAGE)
        .join("benches")
        .join(format!("{BENCH_TARGET}.rs"))
        .exists()
}

/// Each benchmark once, on small input, so none can rot: the CI step. Its report's figures and
/// target verdicts (`met`, `MISSED by N%`) mean nothing at that size; the step only fails when a
/// benchmark's result check does.
pub(crate) fn smoke(sh: &mut Shell) -> Result<bool> {
    sh.say(
        "bench smoke: each benchmark once on small input; the figures and the targets' \
         verdicts below are not judged (a MISSED verdict does not fail the step)",
    );
    sh.run(cargo().args([
        "bench",
        "-p",
        BENCH_PACKAGE,
        "--bench",
        BENCH_TARGET,
        "--",
        "--smoke",
    ]))
}

pub(crate) fn run(args: &[String]) -> Result<bool> {
    if args.iter().any(|a| a == "--python") {
        let rest: Vec<String> = args.iter().filter(|a| *a != "--python").cloned().collect();
        return crate::python::bench(&rest);
    }
    if args.iter().any(|a| a == "--vllm") {
        let rest: Vec<String> = args.iter().filter(|a| *a != "--vllm").cloned().collect();
        return crate::python::bench_vllm(&rest);
    }
    if args.iter().any(|a| a == "--counts") {
        let rest: Vec<String> = args.iter().filter(|a| *a != "--counts").cloned().collect();
        return crate::counts::run(&rest);
    }
    if args.iter().any(|a| a == "--peers") {
        let rest: Vec<String> = args.iter().filter(|a| *a != "--peers").cloned().collect();
        return crate::peers::run(&rest);
    }
    Shell::terminal().run(
        cargo()
            .args(["bench", "-p", BENCH_PACKAGE, "--bench", BENCH_TARGET, "--"])
            .args(args),
    )
}
