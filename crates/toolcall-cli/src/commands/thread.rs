//! `toolcall thread`: a JSON array of agent events in, the `<thread>` document (docs/FORMAT.md
//! §8) out.
//!
//! Standard output gets exactly the serializer's output (the document, then the response
//! prefix after a newline when one is given) followed by one newline, as a command's output
//! conventionally ends. Malformed or unrecognized events (bad JSON, an unknown `type`, a missing
//! field) are reported as `invalid events JSON at line L, column C: …` with exit status 1.

use crate::Exit;
use crate::input::read_input;
use anyhow::{Context, Result};
use std::io::Write;
use toolcall::thread::{AgentEvent, SerializerOptions, write_thread_io};

/// Runs the subcommand.
pub(crate) fn run(args: &crate::ThreadArgs) -> Result<Exit> {
    let input = read_input(args.file.as_deref())?;
    let events: Vec<AgentEvent> = match toolcall::thread::events_from_json(&input) {
        Ok(events) => events,
        Err(e) => {
            eprintln!("toolcall: error: {}", describe_json_error(&e));
            return Ok(Exit::InputErrors);
        }
    };
    let options = match &args.response_prefix {
        Some(prefix) => SerializerOptions::new().with_response_prefix(prefix.as_str()),
        None => SerializerOptions::new(),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    write_thread_io(&events, &options, &mut out)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .context("cannot write to standard output")?;
    Ok(Exit::Success)
}

/// `invalid events JSON at line L, column C: message`, without serde_json's own position suffix.
fn describe_json_error(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    format!(
        "invalid events JSON at line {}, column {}: {message}",
        e.line(),
        e.column()
    )
}
