//! `toolcall stream`: the streaming parser's events as JSON Lines.

use crate::commands::parse::call_json;
use crate::commands::shared::{load_options, stream_events};
use crate::input::read_input;
use crate::{Exit, StreamArgs};
use anyhow::Result;
use serde_json::{Value, json};
use std::io::Write;
use toolcall::parser::StreamEvent;

/// Runs the subcommand.
pub(crate) fn run(args: &StreamArgs) -> Result<Exit> {
    let text = read_input(args.file.as_deref())?;
    let options = args
        .reasoning
        .apply(load_options(args.schema.as_deref(), false)?.with_dialect(args.dialect));
    let events = stream_events(&text, &options, args.chunk_size);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut had_errors = false;
    for e in &events {
        had_errors |= matches!(
            e,
            StreamEvent::Error { .. } | StreamEvent::CallFinished { result: Err(_), .. }
        );
        writeln!(out, "{}", event_json(e))?;
    }
    out.flush()?;
    Ok(if had_errors {
        Exit::InputErrors
    } else {
        Exit::Success
    })
}

/// One event as a JSON object with an `event` field naming its kind.
fn event_json(e: &StreamEvent) -> Value {
    match e {
        StreamEvent::CallFinished { index, result } => match result {
            Ok(call) => json!({"event": "call_finished", "index": index, "call": call_json(call)}),
            Err(err) => json!({"event": "call_finished", "index": index, "error": err}),
        },
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}
