//! `toolcall stream`.

use crate::Exit;
use anyhow::{Result, bail};

/// Runs the subcommand.
pub(crate) fn run(_args: &crate::StreamArgs) -> Result<Exit> {
    bail!("`toolcall stream` is not implemented yet")
}
