//! `cargo xtask fuzz`: cargo-fuzz targets in `fuzz/`, installing cargo-fuzz when missing.
//!
//! All targets are built once (`cargo +nightly fuzz build`, AddressSanitizer), then each runs
//! on its corpus (`fuzz/corpus/<target>`, seeded by the checked-in `seed-*` files) with the
//! format's dictionary (`fuzz/toolcall.dict`). A crash fails and prints the command that
//! reproduces it.

use crate::shell::{self, cargo, has_cargo_subcommand, nightly_cargo, root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Seconds each target runs in `cargo xtask ci`.
const SMOKE_SECONDS: u64 = 20;

/// Longest input libFuzzer makes.
const MAX_LEN: usize = 4096;

/// Seconds one input may take before libFuzzer reports a hang (a crash like any other).
const TIMEOUT_SECONDS: u64 = 10;

/// Whether the fuzz project has targets.
pub(crate) fn exists() -> bool {
    !targets().unwrap_or_default().is_empty()
}

/// The fuzz targets: one file each in `fuzz/fuzz_targets/`.
pub(crate) fn targets() -> Result<Vec<String>> {
    let dir = root().join("fuzz").join("fuzz_targets");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs")
            && let Some(stem) = path.file_stem()
        {
            names.push(stem.to_string_lossy().into_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// Each target for a short time: the CI step.
pub(crate) fn smoke() -> Result<bool> {
    let all = targets()?;
    fuzz_all(&all, SMOKE_SECONDS)
}

pub(crate) fn run(args: &[String]) -> Result<bool> {
    let mut seconds = 30;
    let mut target = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => {
                seconds = it
                    .next()
                    .context("--seconds needs a number")?
                    .parse()
                    .context("--seconds needs a whole number")?
            }
            t if !t.starts_with('-') => target = Some(t.to_string()),
            other => bail!("unknown option {other}"),
        }
    }
    let all = targets()?;
    let chosen: Vec<String> = match target {
        Some(t) if all.contains(&t) => vec![t],
        Some(t) => bail!("no fuzz target `{t}`; targets: {}", all.join(", ")),
        None => all,
    };
    fuzz_all(&chosen, seconds)
}

/// Builds the targets once, then runs each for `seconds`; true when none crashed.
fn fuzz_all(chosen: &[String], seconds: u64) -> Result<bool> {
    ensure_tools()?;
    let mut build = nightly_cargo();
    build.args(["fuzz", "build"]);
    if let [one] = chosen {
        build.arg(one);
    }
    if !shell::run(&mut build)? {
        bail!("cannot build the fuzz targets");
    }
    let mut failed = Vec::new();
    for t in chosen {
        if !fuzz_one(t, seconds)? {
            failed.push(t.as_str());
        }
    }
    if !failed.is_empty() {
        eprintln!("fuzz: {} failed: {}", failed.len(), failed.join(", "));
    }
    Ok(failed.is_empty())
}

fn ensure_tools() -> Result<()> {
    let nightly = nightly_cargo()
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !nightly {
        bail!("fuzzing needs the nightly toolchain: rustup toolchain install nightly");
    }
    if has_cargo_subcommand("fuzz") {
        return Ok(());
    }
    eprintln!("cargo-fuzz is missing; installing it");
    if !shell::run(cargo().args(["install", "cargo-fuzz", "--locked"]))? {
        bail!("cannot install cargo-fuzz");
    }
    Ok(())
}

/// Runs one target on nightly with its corpus and the dictionary; a crash fails and prints the
/// command that reproduces it.
fn fuzz_one(target: &str, seconds: u64) -> Result<bool> {
    let fuzz_dir = root().join("fuzz");
    let corpus = fuzz_dir.join("corpus").join(target);
    std::fs::create_dir_all(&corpus)?;
    let artifacts = fuzz_dir.join("artifacts").join(target);
    let started = SystemTime::now();
    let dict = fuzz_dir.join("toolcall.dict");
    let mut cmd = nightly_cargo();
    cmd.args(["fuzz", "run", target])
        .arg(&corpus)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-max_len={MAX_LEN}"))
        .arg(format!("-timeout={TIMEOUT_SECONDS}"))
        .arg("-print_final_stats=1");
    if dict.exists() {
        cmd.arg(format!("-dict={}", dict.display()));
    }
    let ok = shell::run(&mut cmd)?;
    if !ok {
        let file = newest_artifact(&artifacts, started).map_or_else(
            || format!("fuzz/artifacts/{target}/<crash-file>"),
            |p| p.strip_prefix(root()).unwrap_or(&p).display().to_string(),
        );
        eprintln!(
            "fuzz target {target} failed; reproduce with:\n  cargo +nightly fuzz run {target} {file}\n\
             then add the input as a regression test in the crate's tests/fuzz_regressions.rs"
        );
    }
    Ok(ok)
}

/// The artifact (crash, timeout, leak or out-of-memory input) written since `since`.
fn newest_artifact(dir: &Path, since: SystemTime) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let modified = e.metadata().ok()?.modified().ok()?;
            (modified >= since).then(|| (modified, e.path()))
        })
        .max()
        .map(|(_, p)| p)
}
