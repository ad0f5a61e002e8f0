//! `toolcall stream`: the streaming parser's events as JSON Lines.

use crate::commands::shared::{InferenceCount, Out, call_json, error_json, load, stream_events};
use crate::{Exit, StreamArgs};
use anyhow::Result;
use serde_json::{Value, json};
use std::io::Write;
use toolcall::parser::{ParseOptions, StreamEvent};

/// Runs the subcommand.
pub(crate) fn run(args: &StreamArgs) -> Result<Exit> {
    let (text, options) = load(
        args.file.as_deref(),
        args.schema.as_deref(),
        args.ignore_fenced,
    )?;
    let options = args.reasoning.apply(options.with_dialect(args.dialect));
    let events = stream_events(&text, &options, args.chunk_size);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut had_errors = false;
    let mut inferred = InferenceCount::default();
    for e in &events {
        had_errors |= matches!(
            e,
            StreamEvent::Error { .. } | StreamEvent::CallFinished { result: Err(_), .. }
        );
        if let StreamEvent::CallFinished {
            result: Ok(call), ..
        } = e
        {
            inferred.add(call, &options);
        }
        writeln!(out, "{}", serde_json::to_string(&event_json(e, &options))?)?;
    }
    out.flush()?;
    if let Some(note) = inferred.note(&options) {
        eprintln!("{note}");
    }
    Ok(if had_errors {
        Exit::InputErrors
    } else {
        Exit::Success
    })
}

/// One event as a JSON object with an `event` field naming its kind; calls carry their
/// `typed_by`, errors their `feedback`.
fn event_json<'a>(e: &'a StreamEvent, options: &ParseOptions) -> Out<'a> {
    match e {
        StreamEvent::CallFinished { index, result } => match result {
            Ok(call) => Out::Object(vec![
                ("event", Out::Value(json!("call_finished"))),
                ("index", Out::Value(json!(index))),
                ("call", call_json(call, options)),
            ]),
            Err(err) => Out::Value(
                json!({"event": "call_finished", "index": index, "error": error_json(err)}),
            ),
        },
        StreamEvent::Error { error } => {
            Out::Value(json!({"event": "error", "error": error_json(error)}))
        }
        other => Out::Value(serde_json::to_value(other).unwrap_or(Value::Null)),
    }
}
