//! Prints the size of the prompt text, in bytes and approximate tokens (bytes / 4, rounded up),
//! as the table in docs/PROMPT.md.
//!
//! ```text
//! cargo run -p toolcall-prompt --example prompt_size [-- TOOLS.json]
//! ```
//!
//! Without an argument it measures the ten typical tools of `tests/data/typical_tools.json`.

use std::process::ExitCode;
use toolcall_prompt::{ToolDef, describe_tools, format_instructions, system_prompt_section};

fn main() -> ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/typical_tools.json").to_owned()
    });
    let tools = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .and_then(|json| ToolDef::from_tools_json(&json).map_err(|e| e.to_string()))
    {
        Ok(tools) => tools,
        Err(e) => {
            eprintln!("prompt_size: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let n = tools.len();
    let rows = [
        (
            "format instructions".to_owned(),
            format_instructions().len(),
        ),
        (
            format!("{n} tool descriptions"),
            describe_tools(&tools).len(),
        ),
        (
            "whole section".to_owned(),
            system_prompt_section(&tools).len(),
        ),
    ];
    println!("| text | bytes | tokens (bytes / 4) |");
    println!("| --- | ---: | ---: |");
    for (label, bytes) in rows {
        println!("| {label} | {bytes} | {} |", bytes.div_ceil(4));
    }
    ExitCode::SUCCESS
}
