//! Reading the command's input: a file, or standard input for `-` or no argument.

use anyhow::{Context, Result};
use std::io::Read;
use std::path::Path;

/// Whether `path` is `-`, which names standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads the whole input as UTF-8.
pub(crate) fn read_input(path: Option<&Path>) -> Result<String> {
    match path {
        None => read_stdin(),
        Some(p) if is_stdin(p) => read_stdin(),
        Some(p) => {
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))
        }
    }
}

fn read_stdin() -> Result<String> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .context("cannot read standard input")?;
    Ok(s)
}
