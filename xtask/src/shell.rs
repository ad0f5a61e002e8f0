//! Running commands from the workspace root, and the tools they need.

use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::Command;

/// The workspace root (the parent of this crate's folder).
pub(crate) fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

/// A `cargo` command run from the root, with the cargo that runs us.
pub(crate) fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

/// `cargo` of the nightly toolchain, from the root. `cargo +nightly` only works through rustup's
/// proxy, and under `cargo xtask` the `CARGO` variable names the stable toolchain's own binary,
/// so this asks rustup directly, with the variables the outer cargo set removed.
pub(crate) fn nightly_cargo() -> Command {
    let mut c = Command::new("rustup");
    c.args(["run", "nightly", "cargo"])
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC")
        .env_remove("RUSTDOC")
        .current_dir(root());
    c
}

/// Runs `cmd`, echoing it; true when it exits with status 0.
pub(crate) fn run(cmd: &mut Command) -> Result<bool> {
    eprintln!("$ {}", display(cmd));
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {}", display(cmd)))?;
    Ok(status.success())
}

/// Whether `cargo SUB` is installed.
pub(crate) fn has_cargo_subcommand(sub: &str) -> bool {
    cargo()
        .args([sub, "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn display(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}
