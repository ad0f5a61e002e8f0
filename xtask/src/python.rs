//! The Python package (`crates/toolcall-py`): its CI step, its benchmarks and its vLLM tests.
//!
//! The crate is outside the Cargo workspace (PyO3 stays out of workspace builds), so its step
//! checks it whole: fmt and clippy on its manifest, then the package built by maturin into a
//! virtual environment under `target/` and its pytest suite run there. The environment and
//! the build directory (`target/python`) are kept between runs: a second run installs nothing
//! and rebuilds only what changed.

use crate::shell::{Shell, cargo, root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The package's folder, relative to the root.
const CRATE: &str = "crates/toolcall-py";

/// What the test environment needs besides the package (maturin as pyproject.toml bounds it).
const TEST_REQUIREMENTS: &[&str] = &["maturin>=1.5,<2", "pytest"];

/// What the benchmark environment needs: SGLang's Qwen3-Coder detector, as published in
/// `llm-router-utils`.
const BENCH_REQUIREMENTS: &[&str] = &["maturin>=1.5,<2", "llm-router-utils==0.8.1"];

/// What the vLLM environment needs: vLLM itself (torch and CUDA wheels come along, ~6 GB).
const VLLM_REQUIREMENTS: &[&str] = &["maturin>=1.5,<2", "pytest", "vllm==0.32.0"];

/// Whether the package exists.
pub(crate) fn exists() -> bool {
    root().join(CRATE).join("pyproject.toml").exists()
}

/// The CI step: fmt, clippy, build into `target/python-venv`, pytest.
pub(crate) fn check(sh: &mut Shell) -> Result<bool> {
    let manifest = root().join(CRATE).join("Cargo.toml");
    let manifest = manifest.to_str().context("a UTF-8 path")?;
    if !sh.run(cargo().args(["fmt", "--manifest-path", manifest, "--", "--check"]))? {
        return Ok(false);
    }
    if !sh.run(build_dir(cargo()).args([
        "clippy",
        "--manifest-path",
        manifest,
        "--all-targets",
        "--features",
        "extension-module",
        "--",
        "-D",
        "warnings",
    ]))? {
        return Ok(false);
    }
    let venv = venv(sh, "python-venv", TEST_REQUIREMENTS)?;
    if !develop(sh, &venv)? {
        return Ok(false);
    }
    sh.run(
        Command::new(bin(&venv, "python"))
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root().join(CRATE).join("tests"))
            .current_dir(root().join(CRATE)),
    )
}

/// `cargo xtask vllm`: the vLLM plugin's tests against the real vLLM, in `target/vllm-venv`
/// (made once: installing vLLM takes minutes and gigabytes, so `cargo xtask ci` does not).
pub(crate) fn vllm(args: &[String]) -> Result<bool> {
    let sh = &mut Shell::terminal();
    let venv = venv(sh, "vllm-venv", VLLM_REQUIREMENTS)?;
    if !develop(sh, &venv)? {
        return Ok(false);
    }
    sh.run(
        Command::new(bin(&venv, "python"))
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root().join(CRATE).join("tests").join("test_vllm.py"))
            .args(args)
            .current_dir(root().join(CRATE)),
    )
}

/// `cargo xtask bench --python`: the package beside SGLang's Qwen3-Coder detector, in one
/// process, on the same inputs.
pub(crate) fn bench(args: &[String]) -> Result<bool> {
    let sh = &mut Shell::terminal();
    let venv = venv(sh, "python-bench-venv", BENCH_REQUIREMENTS)?;
    if !develop(sh, &venv)? {
        return Ok(false);
    }
    sh.run(
        Command::new(bin(&venv, "python"))
            .arg(
                root()
                    .join(CRATE)
                    .join("bench")
                    .join("bench_qwen3_coder.py"),
            )
            .args(args)
            .current_dir(root()),
    )
}

/// `cargo xtask bench --vllm`: the vLLM plugin beside vLLM's own parsers and the driver's
/// floor, driven as vLLM's serving layer drives a tool parser, in `target/vllm-venv` (the
/// environment of `cargo xtask vllm`).
pub(crate) fn bench_vllm(args: &[String]) -> Result<bool> {
    let sh = &mut Shell::terminal();
    let venv = venv(sh, "vllm-venv", VLLM_REQUIREMENTS)?;
    if !develop(sh, &venv)? {
        return Ok(false);
    }
    sh.run(
        Command::new(bin(&venv, "python"))
            .arg(root().join(CRATE).join("bench").join("bench_vllm.py"))
            .args(args)
            .current_dir(root()),
    )
}

/// Builds the package (release) into `venv`, editable: its Python files are the source's.
fn develop(sh: &mut Shell, venv: &Path) -> Result<bool> {
    sh.run(
        build_dir(Command::new(bin(venv, "maturin")))
            .args(["develop", "--release", "--manifest-path"])
            .arg(root().join(CRATE).join("Cargo.toml"))
            .env("VIRTUAL_ENV", venv)
            .current_dir(root()),
    )
}

/// The package's own build directory, so that its release build does not evict the workspace's.
fn build_dir(mut cmd: Command) -> Command {
    cmd.env("CARGO_TARGET_DIR", root().join("target").join("python"));
    cmd
}

/// `target/NAME` with `requirements` installed: made and filled once, reused after.
fn venv(sh: &mut Shell, name: &str, requirements: &[&str]) -> Result<PathBuf> {
    let dir = root().join("target").join(name);
    let ready = dir.join(".requirements");
    let wanted = requirements.join("\n");
    if std::fs::read_to_string(&ready).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(dir);
    }
    if !bin(&dir, "python").exists() {
        let python = ["python3", "python"]
            .into_iter()
            .find(|p| {
                Command::new(p)
                    .arg("--version")
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
            .context("no python3 on PATH: the Python package needs Python 3.9 or later")?;
        if !sh.run(Command::new(python).args(["-m", "venv"]).arg(&dir))? {
            bail!("cannot make a virtual environment at {}", dir.display());
        }
    }
    if !sh.run(
        Command::new(bin(&dir, "python"))
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args(requirements),
    )? {
        bail!(
            "cannot install {} into {}",
            requirements.join(", "),
            dir.display()
        );
    }
    std::fs::write(&ready, wanted)?;
    Ok(dir)
}

fn bin(venv: &Path, name: &str) -> PathBuf {
    venv.join("bin").join(name)
}
