//! `toolcall stream`: the streaming parser's events as JSON Lines, printed as they become certain.
//!
//! Standard input is read as it arrives (whatever is available, up to 64 KiB at a time), fed to
//! the parser in pieces of `--chunk-size` bytes as raw bytes (a UTF-8 character may be split
//! anywhere; bytes that are not UTF-8 read as U+FFFD), and each event's line is printed and
//! flushed at once: a reply piped from a model shows its calls while it is still being written.
//! A file is replayed in pieces of `--chunk-size` bytes.

use crate::commands::parse::call_json;
use crate::commands::shared::load_options;
use crate::input::read_input;
use crate::{Exit, StreamArgs};
use anyhow::{Context, Result};
use serde_json::{Value, json};
use std::io::{Read, Write};
use toolcall::parser::{StreamEvent, StreamParser, chunks};

/// The most bytes read from standard input at once.
const READ_BYTES: usize = 64 << 10;

/// Runs the subcommand.
pub(crate) fn run(args: &StreamArgs) -> Result<Exit> {
    let options = load_options(args.schema.as_deref(), false)?;
    let chunk = usize::try_from(args.chunk_size).unwrap_or(usize::MAX);
    let mut parser = StreamParser::with_options(options);
    let stdout = std::io::stdout();
    let mut printer = Printer {
        out: std::io::BufWriter::new(stdout.lock()),
        had_errors: false,
    };
    match args.file.as_deref() {
        Some(path) if path.as_os_str() != "-" => {
            let text = read_input(Some(path))?;
            for piece in chunks(&text, chunk) {
                printer.print(parser.feed(piece))?;
            }
        }
        _ => {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            let mut buf = vec![0; READ_BYTES];
            loop {
                let n = match input.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e).context("cannot read standard input"),
                };
                for piece in buf[..n].chunks(chunk) {
                    printer.print(parser.feed_bytes(piece))?;
                }
            }
        }
    }
    printer.print(parser.finish())?;
    Ok(if printer.had_errors {
        Exit::InputErrors
    } else {
        Exit::Success
    })
}

/// Prints events as JSON Lines, flushing after each batch so that each line is out as soon as
/// its event is certain.
struct Printer<W: Write> {
    out: W,
    had_errors: bool,
}

impl<W: Write> Printer<W> {
    fn print(&mut self, events: Vec<StreamEvent>) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        for e in &events {
            self.had_errors |= matches!(
                e,
                StreamEvent::Error { .. } | StreamEvent::CallFinished { result: Err(_), .. }
            );
            writeln!(self.out, "{}", event_json(e))?;
        }
        self.out.flush()?;
        Ok(())
    }
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
