//! `toolcall thread`.

use crate::Exit;
use anyhow::{Result, bail};

/// Runs the subcommand.
pub(crate) fn run(_args: &crate::ThreadArgs) -> Result<Exit> {
    bail!("`toolcall thread` is not implemented yet")
}
