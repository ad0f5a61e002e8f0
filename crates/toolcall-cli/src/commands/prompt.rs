//! `toolcall prompt`.

use crate::Exit;
use anyhow::{Result, bail};

/// Runs the subcommand.
pub(crate) fn run(_args: &crate::PromptArgs) -> Result<Exit> {
    bail!("`toolcall prompt` is not implemented yet")
}
