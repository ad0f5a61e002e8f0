//! `cargo xtask bench --peers`: toolcall beside the other Rust tool-call parsers
//! (`benches/peers`, docs/PERFORMANCE.md "Peers").
//!
//! `benches/peers` is a Cargo project outside the workspace, so that the peers' dependencies
//! never reach a user or the default build. Three peers come from crates.io; vLLM's Rust parser
//! is published only inside vLLM's source distribution, so its `rust/` folder is unpacked into
//! the git-ignored `benches/peers/vendor/` the first time (the tarball checked against the
//! package index's sha256) and the project depends on `rust/src/parser` by path.

use crate::shell::{Shell, cargo, root, target_dir};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The vLLM release whose Rust parser is measured.
const VLLM: &str = "vllm";
const VLLM_VERSION: &str = "0.32.0";

/// The peers project, relative to the root.
const PROJECT: &str = "benches/peers";

/// The helper that downloads a source distribution from the package index without building it
/// (`pip download --no-binary` would build vLLM's metadata, minutes of work), beside the
/// worktrees; `TOOLCALL_FETCH_SDIST` names another.
const FETCH_SDIST: &str = "../shared/tools/fetch_sdist.py";

/// Fetches vLLM's Rust sources when missing, then builds and runs the peers project (release,
/// into its own `benches/peers/target`, as `fuzz/` has its own), passing `args` on (`--smoke`).
pub(crate) fn run(args: &[String]) -> Result<bool> {
    let sh = &mut Shell::terminal();
    let project = root().join(PROJECT);
    vllm_sources(sh, &project.join("vendor"))?;
    let manifest = project.join("Cargo.toml");
    sh.run(
        cargo()
            .args(["run", "--release", "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(project.join("target"))
            .arg("--")
            .args(args),
    )
}

/// `vendor/vllm-VERSION/rust`, unpacked from the source distribution unless already there.
fn vllm_sources(sh: &mut Shell, vendor: &Path) -> Result<()> {
    let unpacked = vendor.join(format!("{VLLM}-{VLLM_VERSION}"));
    if unpacked
        .join("rust")
        .join("src")
        .join("parser")
        .join("Cargo.toml")
        .exists()
    {
        return Ok(());
    }
    let download = target_dir().join("peers-sdist");
    std::fs::create_dir_all(&download).with_context(|| format!("{}", download.display()))?;
    std::fs::create_dir_all(vendor).with_context(|| format!("{}", vendor.display()))?;
    let tarball = download.join(format!("{VLLM}-{VLLM_VERSION}.tar.gz"));
    if !tarball.exists() && !fetch(sh, &download)? {
        bail!("cannot download {VLLM} {VLLM_VERSION}'s source distribution");
    }
    // Only the Rust workspace: its manifest (which the parser's inherits from) and crates.
    if !sh.run(
        Command::new("tar")
            .arg("-xzf")
            .arg(&tarball)
            .arg("-C")
            .arg(vendor)
            .arg(format!("{VLLM}-{VLLM_VERSION}/rust")),
    )? {
        bail!("cannot unpack {}", tarball.display());
    }
    Ok(())
}

/// Downloads the source distribution into `dir`: with [`FETCH_SDIST`] when it is there, else
/// with `pip download` (slower: pip prepares vLLM's metadata).
fn fetch(sh: &mut Shell, dir: &Path) -> Result<bool> {
    let helper = std::env::var_os("TOOLCALL_FETCH_SDIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(FETCH_SDIST));
    if helper.exists() {
        return sh.run(
            Command::new("python3")
                .arg(&helper)
                .args([VLLM, VLLM_VERSION])
                .arg(dir),
        );
    }
    sh.run(
        Command::new("python3")
            .args(["-m", "pip", "download", "--no-deps", "--no-binary", ":all:"])
            .arg(format!("{VLLM}=={VLLM_VERSION}"))
            .arg("--dest")
            .arg(dir),
    )
}
