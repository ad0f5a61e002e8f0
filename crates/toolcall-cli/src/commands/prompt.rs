//! `toolcall prompt`: the system-prompt section that teaches the tool-call format.
//!
//! Without `--tools`, prints the format instructions alone. With `--tools TOOLS.json` (an MCP
//! `tools/list` array, or an object with it under `"tools"`; `-` reads standard input), prints
//! the instructions followed by each tool's description, parameters and example call. A file
//! that cannot be read, or that is not valid JSON or not a list of tool definitions, is a usage
//! error: one line on standard error and exit status 2.

use crate::Exit;
use crate::input::read_input;
use anyhow::{Context, Result};
use std::io::Write;
use toolcall::prompt::{ToolDef, format_instructions, system_prompt_section};

/// Runs the subcommand.
pub(crate) fn run(args: &crate::PromptArgs) -> Result<Exit> {
    let text = match args.tools.as_deref() {
        None => format_instructions().to_owned(),
        Some(path) => {
            let json_text = read_input(Some(path))?;
            let json: serde_json::Value = toolcall::args::value::json_from_str(&json_text)
                .with_context(|| format!("{} is not valid JSON", path.display()))?;
            let tools = ToolDef::from_tools_json(&json)
                .with_context(|| format!("{} is not a list of tool definitions", path.display()))?;
            system_prompt_section(&tools)
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to standard output")?;
    Ok(Exit::Success)
}
