//! `cargo xtask fuzz`: cargo-fuzz targets in `fuzz/`, installing cargo-fuzz when missing.

use crate::shell::{self, cargo, has_cargo_subcommand, root};
use anyhow::{Context, Result, bail};

/// Seconds each target runs in `cargo xtask ci`.
const SMOKE_SECONDS: u64 = 20;

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
        if path.extension().is_some_and(|e| e == "rs") {
            if let Some(stem) = path.file_stem() {
                names.push(stem.to_string_lossy().into_owned());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// Each target for a short time: the CI step.
pub(crate) fn smoke() -> Result<bool> {
    let mut ok = true;
    for t in targets()? {
        ok &= fuzz_one(&t, SMOKE_SECONDS)?;
    }
    Ok(ok)
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
    let mut ok = true;
    for t in &chosen {
        ok &= fuzz_one(t, seconds)?;
    }
    Ok(ok)
}

fn ensure_cargo_fuzz() -> Result<()> {
    if has_cargo_subcommand("fuzz") {
        return Ok(());
    }
    eprintln!("cargo-fuzz is missing; installing it");
    if !shell::run(&mut cargo().args(["install", "cargo-fuzz", "--locked"]))? {
        bail!("cannot install cargo-fuzz");
    }
    Ok(())
}

/// Runs one target on nightly with its seed corpus and dictionary; a crash fails and prints the
/// command that reproduces it.
fn fuzz_one(target: &str, seconds: u64) -> Result<bool> {
    ensure_cargo_fuzz()?;
    let fuzz_dir = root().join("fuzz");
    let corpus = fuzz_dir.join("corpus").join(target);
    std::fs::create_dir_all(&corpus)?;
    let dict = fuzz_dir.join("toolcall.dict");
    let mut cmd = cargo();
    cmd.args(["+nightly", "fuzz", "run", target])
        .arg(&corpus)
        .args(["--", &format!("-max_total_time={seconds}"), "-max_len=4096"]);
    if dict.exists() {
        cmd.arg(format!("-dict={}", dict.display()));
    }
    let ok = shell::run(&mut cmd)?;
    if !ok {
        eprintln!(
            "fuzz target {target} failed; reproduce with:\n  \
             cargo +nightly fuzz run {target} fuzz/artifacts/{target}/<crash-file>"
        );
    }
    Ok(ok)
}
