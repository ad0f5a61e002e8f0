//! `toolcall parse`.

use crate::Exit;
use anyhow::{Result, bail};

/// Runs the subcommand.
pub(crate) fn run(_args: &crate::ParseArgs) -> Result<Exit> {
    bail!("`toolcall parse` is not implemented yet")
}
