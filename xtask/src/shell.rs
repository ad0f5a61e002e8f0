//! Running commands from the workspace root, and where their output goes: the terminal, or a
//! step's log file under `target/xtask-logs/`.

use anyhow::{Context, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The workspace root (the parent of this crate's folder).
pub(crate) fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

/// The workspace's target directory (`CARGO_TARGET_DIR` when set).
pub(crate) fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root().join(dir),
        None => root().join("target"),
    }
}

/// Where xtask writes the full output of its steps.
pub(crate) fn logs_dir() -> PathBuf {
    target_dir().join("xtask-logs")
}

/// `path` relative to the root when it is inside it, for messages.
pub(crate) fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
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
    nightly("cargo")
}

/// A tool of the nightly toolchain (`cargo`, `rustc`) through rustup, from the root.
pub(crate) fn nightly(tool: &str) -> Command {
    let mut c = Command::new("rustup");
    c.args(["run", "nightly", tool])
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC")
        .env_remove("RUSTDOC")
        .current_dir(root());
    c
}

/// Where commands' output goes: inherited from xtask (the terminal), or appended to a log file.
pub(crate) struct Shell {
    log: Option<(PathBuf, File)>,
}

impl Shell {
    /// Output straight to the terminal.
    pub(crate) fn terminal() -> Shell {
        Shell { log: None }
    }

    /// Output to `path`, which is created (with its folder) or emptied.
    pub(crate) fn logged(path: &Path) -> Result<Shell> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
        }
        let file = File::create(path).with_context(|| format!("{}", path.display()))?;
        Ok(Shell {
            log: Some((path.to_path_buf(), file)),
        })
    }

    /// The log file, when output goes to one.
    pub(crate) fn log_path(&self) -> Option<&Path> {
        self.log.as_ref().map(|(p, _)| p.as_path())
    }

    /// Writes a line of xtask's own: to the log, or to stderr.
    pub(crate) fn say(&mut self, line: &str) {
        match &mut self.log {
            Some((_, f)) => {
                // A log that cannot be written loses a line; the command's status still counts.
                let _ = writeln!(f, "{line}");
            }
            None => eprintln!("{line}"),
        }
    }

    /// Runs `cmd`, echoing it first; true when it exits with status 0.
    pub(crate) fn run(&mut self, cmd: &mut Command) -> Result<bool> {
        self.say(&format!("$ {}", display(cmd)));
        if let Some((_, f)) = &self.log {
            cmd.stdout(Stdio::from(f.try_clone()?))
                .stderr(Stdio::from(f.try_clone()?));
        }
        let status = cmd
            .status()
            .with_context(|| format!("cannot start {}", display(cmd)))?;
        Ok(status.success())
    }
}

/// The last `n` lines of a file (lossily decoded).
pub(crate) fn tail(path: &Path, n: usize) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Whether `cargo SUB` is installed.
pub(crate) fn has_cargo_subcommand(sub: &str) -> bool {
    cargo()
        .args([sub, "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// A command as it would be typed.
pub(crate) fn display(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// A file's length in bytes (0 when it cannot be read).
pub(crate) fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// A file's text from byte `offset` on (lossily decoded; empty when it cannot be read).
pub(crate) fn read_from(path: &Path, offset: u64) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let from = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(bytes.len());
    String::from_utf8_lossy(&bytes[from..]).into_owned()
}
