//! `cargo xtask fuzz`: cargo-fuzz targets in `fuzz/`, installing cargo-fuzz when missing.
//!
//! The chosen targets are built once (`cargo fuzz build` on nightly, AddressSanitizer); then
//! each built fuzzer runs directly (as `cargo fuzz run` would run it, without cargo checking the
//! build again before every target, and so that runs side by side do not wait on cargo's lock)
//! on its corpus (`fuzz/corpus/<target>`, seeded by the checked-in `seed-*` files) with the
//! format's dictionary (`fuzz/toolcall.dict`). A crash fails and prints the command that
//! reproduces it.

use crate::args::Fuzz;
use crate::libfuzzer;
use crate::shell::{self, Shell, cargo, has_cargo_subcommand, nightly, nightly_cargo, root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// Seconds each target runs in `cargo xtask ci`.
pub(crate) const SMOKE_SECONDS: u64 = 20;

/// Longest input libFuzzer makes.
const MAX_LEN: usize = 4096;

/// Seconds one input may take before libFuzzer reports a hang (a crash like any other).
const TIMEOUT_SECONDS: u64 = 10;

/// Whether the fuzz project has targets.
pub(crate) fn exists() -> bool {
    !targets().unwrap_or_default().is_empty()
}

/// The fuzz project's folder.
pub(crate) fn dir() -> PathBuf {
    root().join("fuzz")
}

/// The fuzz targets: one file each in `fuzz/fuzz_targets/`.
pub(crate) fn targets() -> Result<Vec<String>> {
    let dir = dir().join("fuzz_targets");
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

/// The named targets, checked; all of them when none is named.
pub(crate) fn choose(named: Vec<String>) -> Result<Vec<String>> {
    let all = targets()?;
    if named.is_empty() {
        return Ok(all);
    }
    for t in &named {
        if !all.contains(t) {
            bail!("no fuzz target `{t}`; targets: {}", all.join(", "));
        }
    }
    Ok(named)
}

/// Each target for a short time: the CI step.
pub(crate) fn smoke(sh: &mut Shell) -> Result<bool> {
    let all = targets()?;
    fuzz_all(sh, &all, SMOKE_SECONDS)
}

pub(crate) fn run(task: Fuzz) -> Result<bool> {
    match task {
        Fuzz::List => {
            for t in targets()? {
                println!("{t}");
            }
            Ok(true)
        }
        Fuzz::Run { targets, seconds } => {
            let chosen = choose(targets)?;
            fuzz_all(&mut Shell::terminal(), &chosen, seconds)
        }
        Fuzz::Fresh {
            targets,
            seconds,
            seeds,
        } => {
            let chosen = choose(targets)?;
            fresh(&mut Shell::terminal(), &chosen, seconds, seeds)
        }
        Fuzz::Soak {
            targets,
            seconds,
            jobs,
        } => {
            let chosen = choose(targets)?;
            let jobs = jobs.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
            });
            crate::soak::run(&chosen, seconds, jobs)
        }
    }
}

/// Builds the targets once, then runs each for `seconds`; true when none failed. The findings
/// are repeated at the end, where a log's tail shows them.
fn fuzz_all(sh: &mut Shell, chosen: &[String], seconds: u64) -> Result<bool> {
    build(sh, chosen)?;
    let mut failed = Vec::new();
    let mut reports = Vec::new();
    for t in chosen {
        if let Some(r) = fuzz_one(sh, t, command(t, seconds)?)? {
            failed.push(t.as_str());
            reports.extend(r);
        }
    }
    Ok(report(sh, chosen.len(), &failed, reports))
}

/// Each target from its checked-in seeds alone, as `fuzz-smoke` meets it on a fresh machine
/// (where the corpus is only those seeds), once for each of libFuzzer's random seeds
/// `1..=seeds`: what CI's smoke may find, found before CI finds it. The corpora are scratch
/// (`target/xtask-fuzz-fresh/`); findings go to `fuzz/artifacts/<target>` as usual.
fn fresh(sh: &mut Shell, chosen: &[String], seconds: u64, seeds: u64) -> Result<bool> {
    build(sh, chosen)?;
    let scratch = root().join("target").join("xtask-fuzz-fresh");
    let mut failed = Vec::new();
    let mut reports = Vec::new();
    for seed in 1..=seeds {
        for t in chosen {
            let corpus = scratch.join(format!("{t}-{seed}"));
            if corpus.exists() {
                std::fs::remove_dir_all(&corpus)?;
            }
            std::fs::create_dir_all(&corpus)?;
            for entry in std::fs::read_dir(corpus_dir(t))? {
                let path = entry?.path();
                if path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("seed-"))
                {
                    std::fs::copy(&path, corpus.join(path.file_name().unwrap_or_default()))?;
                }
            }
            sh.say(&format!(
                "{t}: libFuzzer seed {seed}, from the checked-in seeds"
            ));
            if let Some(r) = fuzz_one(sh, t, command_on(t, seconds, &corpus, Some(seed))?)? {
                if !failed.contains(&t.as_str()) {
                    failed.push(t.as_str());
                }
                reports.extend(r);
            }
        }
    }
    Ok(report(sh, chosen.len(), &failed, reports))
}

/// The summary of a run of `n` targets; true when none failed.
fn report(sh: &mut Shell, n: usize, failed: &[&str], reports: Vec<String>) -> bool {
    if failed.is_empty() {
        sh.say(&format!(
            "fuzz: {n} target{}, no finding",
            if n == 1 { "" } else { "s" }
        ));
        return true;
    }
    sh.say(&format!(
        "fuzz: {} of {n} failed: {}",
        failed.len(),
        failed.join(", ")
    ));
    for r in reports {
        sh.say(&r);
    }
    sh.say(
        "fix, then add each input as a regression test in the crate's tests/fuzz_regressions.rs",
    );
    false
}

/// Installs what fuzzing needs, then builds the chosen targets (all of them when more than one:
/// cargo-fuzz builds one or all).
pub(crate) fn build(sh: &mut Shell, chosen: &[String]) -> Result<()> {
    ensure_tools(sh)?;
    let mut build = nightly_cargo();
    build.args(["fuzz", "build"]);
    if let [one] = chosen {
        build.arg(one);
    }
    if !sh.run(&mut build)? {
        bail!("cannot build the fuzz targets");
    }
    Ok(())
}

fn ensure_tools(sh: &mut Shell) -> Result<()> {
    let nightly = nightly_cargo()
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !nightly {
        bail!(
            "fuzzing needs the nightly toolchain, which is not installed: \
             `rustup toolchain install nightly --profile minimal`, \
             or `cargo xtask ci --quick` to skip the fuzz and bench smoke steps"
        );
    }
    if has_cargo_subcommand("fuzz") {
        return Ok(());
    }
    sh.say("cargo-fuzz is missing; installing it");
    if !sh.run(cargo().args(["install", "cargo-fuzz", "--locked"]))? {
        bail!("cannot install cargo-fuzz");
    }
    Ok(())
}

/// The host's target triple, under which cargo-fuzz puts its builds.
fn host_triple() -> Result<String> {
    let out = nightly("rustc")
        .arg("-vV")
        .output()
        .context("cannot run the nightly rustc")?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .context("`rustc -vV` names no host")
}

/// Where cargo builds the fuzz project: `fuzz/target`, unless `CARGO_TARGET_DIR` or a cargo
/// configuration says otherwise, so cargo is asked.
fn build_dir() -> Result<PathBuf> {
    let out = cargo()
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(dir().join("Cargo.toml"))
        .output()
        .context("cannot run cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    json_string_field(&String::from_utf8_lossy(&out.stdout), "target_directory")
        .map(PathBuf::from)
        .context("cargo metadata names no target_directory")
}

/// The value of the first string field `key` in JSON text (enough for cargo metadata's
/// `target_directory`; `\\` and `\"` are the escapes a path may hold).
fn json_string_field(json: &str, key: &str) -> Option<String> {
    let at = json.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let mut value = String::new();
    let mut chars = json[at..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => value.push(chars.next()?),
            c => value.push(c),
        }
    }
    None
}

/// Where a target's corpus and artifacts live.
pub(crate) fn corpus_dir(target: &str) -> PathBuf {
    dir().join("corpus").join(target)
}

pub(crate) fn artifacts_dir(target: &str) -> PathBuf {
    dir().join("artifacts").join(target)
}

/// The built fuzzer of `target` running for `seconds` on its corpus, with the dictionary, as
/// `cargo fuzz run` runs it (its artifacts folder, its AddressSanitizer options).
pub(crate) fn command(target: &str, seconds: u64) -> Result<Command> {
    command_on(target, seconds, &corpus_dir(target), None)
}

/// As [`command`], on the corpus in `corpus`, with libFuzzer's random seed `seed` when given.
fn command_on(target: &str, seconds: u64, corpus: &Path, seed: Option<u64>) -> Result<Command> {
    let binary = build_dir()?
        .join(host_triple()?)
        .join("release")
        .join(target);
    if !binary.exists() {
        bail!("{} is not built", binary.display());
    }
    let artifacts = artifacts_dir(target);
    std::fs::create_dir_all(corpus)?;
    std::fs::create_dir_all(&artifacts)?;
    let mut asan = std::env::var("ASAN_OPTIONS").unwrap_or_default();
    if !asan.is_empty() {
        asan.push(':');
    }
    asan.push_str("detect_odr_violation=0");
    let mut cmd = Command::new(binary);
    cmd.current_dir(root())
        .env("ASAN_OPTIONS", asan)
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-max_len={MAX_LEN}"))
        .arg(format!("-timeout={TIMEOUT_SECONDS}"))
        .arg("-print_final_stats=1");
    let dict = dir().join("toolcall.dict");
    if dict.exists() {
        cmd.arg(format!("-dict={}", dict.display()));
    }
    if let Some(seed) = seed {
        cmd.arg(format!("-seed={seed}"));
    }
    cmd.arg(corpus);
    Ok(cmd)
}

/// The line that reproduces a finding.
pub(crate) fn reproduce(target: &str, artifact: &str) -> String {
    let file = Path::new(artifact);
    let file = shell::relative(file);
    format!("cargo +nightly fuzz run {target} {file}")
}

/// Runs one target; `None` when it found nothing, else what it found, each with the command
/// that reproduces it.
fn fuzz_one(sh: &mut Shell, target: &str, mut cmd: Command) -> Result<Option<Vec<String>>> {
    let started = SystemTime::now();
    let log_start = sh.log_path().map(shell::file_len);
    if sh.run(&mut cmd)? {
        return Ok(None);
    }
    // With the output in a log, read this run's part of it for the findings and their reasons.
    let findings = match (sh.log_path(), log_start) {
        (Some(log), Some(from)) => libfuzzer::parse(&shell::read_from(log, from)).findings,
        _ => Vec::new(),
    };
    let mut reports: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "- {target}: {} ({})\n  reproduce: {}",
                f.kind.name(),
                f.reason,
                reproduce(target, &f.artifact)
            )
        })
        .collect();
    if reports.is_empty() {
        let file = newest_artifact(&artifacts_dir(target), started).map_or_else(
            || format!("fuzz/artifacts/{target}/<crash-file>"),
            |p| p.display().to_string(),
        );
        reports.push(format!(
            "- {target}: failed\n  reproduce: {}",
            reproduce(target, &file)
        ));
    }
    Ok(Some(reports))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_directory_from_cargo_metadata() {
        let json = r#"{"packages":[],"target_directory":"/work/x/fuzz/target","version":1}"#;
        assert_eq!(
            json_string_field(json, "target_directory").as_deref(),
            Some("/work/x/fuzz/target")
        );
        let windows = r#"{"target_directory":"C:\\work\\fuzz \"x\"\\target"}"#;
        assert_eq!(
            json_string_field(windows, "target_directory").as_deref(),
            Some(r#"C:\work\fuzz "x"\target"#)
        );
        assert_eq!(json_string_field(json, "workspace_root"), None);
    }
}
