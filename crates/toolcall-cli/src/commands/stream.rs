//! `toolcall stream`: the streaming parser's events as JSON Lines, printed as they become certain.
//!
//! Standard input is read as it arrives (whatever is available, up to 64 KiB at a time), fed to
//! the parser in pieces of `--chunk-size` bytes as raw bytes (a UTF-8 character may be split
//! anywhere; bytes that are not UTF-8 read as U+FFFD), and each event's line is printed and
//! flushed at once: a reply piped from a model shows its calls while it is still being written.
//! A file is replayed in pieces of `--chunk-size` bytes.

use crate::commands::shared::{InferenceCount, Out, call_json, error_json, options_for};
use crate::input::{is_stdin, read_input};
use crate::{Exit, StreamArgs};
use anyhow::{Context, Result};
use serde_json::{Value, json};
use std::io::{Read, Write};
use toolcall::parser::{ParseOptions, StreamEvent, StreamParser, chunks};

/// The most bytes read from standard input at once.
const READ_BYTES: usize = 64 << 10;

/// Runs the subcommand.
pub(crate) fn run(args: &StreamArgs) -> Result<Exit> {
    let file = args.file.as_deref();
    let options = options_for(file, args.schema.as_deref(), args.ignore_fenced)?;
    let options = args.reasoning.apply(options.with_dialect(args.dialect));
    let chunk = usize::try_from(args.chunk_size).unwrap_or(usize::MAX);
    if args.openai {
        return openai(args, file, &options, chunk);
    }
    let mut parser = StreamParser::with_options(options.clone());
    let stdout = std::io::stdout();
    let mut printer = Printer {
        out: std::io::BufWriter::new(stdout.lock()),
        line: String::new(),
        options: &options,
        had_errors: false,
        inferred: InferenceCount::default(),
    };
    match file {
        Some(path) if !is_stdin(path) => {
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
    if let Some(note) = printer.inferred.note(&options) {
        eprintln!("{note}");
    }
    Ok(if printer.had_errors {
        Exit::InputErrors
    } else {
        Exit::Success
    })
}

/// Prints events as JSON Lines, flushing after each batch so that each line is out as soon as
/// its event is certain.
struct Printer<'o, W: Write> {
    out: W,
    /// The line being written (its buffer reused from line to line).
    line: String,
    options: &'o ParseOptions,
    had_errors: bool,
    inferred: InferenceCount,
}

impl<W: Write> Printer<'_, W> {
    fn print(&mut self, events: Vec<StreamEvent>) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        for e in &events {
            self.had_errors |= matches!(
                e,
                StreamEvent::Error { .. } | StreamEvent::CallFinished { result: Err(_), .. }
            );
            if let StreamEvent::CallFinished {
                result: Ok(call), ..
            } = e
            {
                self.inferred.add(call, self.options);
            }
            self.line.clear();
            if !direct_line(e, &mut self.line) {
                self.line = serde_json::to_string(&event_json(e, self.options))?;
            }
            self.line.push('\n');
            self.out.write_all(self.line.as_bytes())?;
        }
        self.out.flush()?;
        Ok(())
    }
}

/// Writes the line of a frequent event (prose, reasoning, an argument's delta) into `line`
/// directly, as its serialization writes it (`"event"` first, then the fields in order, strings
/// escaped as serde_json escapes them); `false` for any other event.
fn direct_line(e: &StreamEvent, line: &mut String) -> bool {
    use toolcall::args::value::push_json_str;
    match e {
        StreamEvent::Prose { text } => {
            line.push_str("{\"event\":\"prose\",\"text\":");
            push_json_str(line, text);
        }
        StreamEvent::Reasoning { text } => {
            line.push_str("{\"event\":\"reasoning\",\"text\":");
            push_json_str(line, text);
        }
        StreamEvent::ArgumentDelta {
            index,
            argument,
            text,
        } => {
            line.push_str("{\"event\":\"argument_delta\",\"index\":");
            push_index(line, *index);
            line.push_str(",\"argument\":");
            push_json_str(line, argument);
            line.push_str(",\"text\":");
            push_json_str(line, text);
        }
        _ => return false,
    }
    line.push('}');
    true
}

/// Writes the `--openai` line of a frequent delta (content, reasoning, an argument fragment)
/// into `line` directly, as `json!` writes it; `false` for any other delta.
fn openai_direct_line(e: &toolcall::bridge::openai::DeltaEvent, line: &mut String) -> bool {
    use toolcall::args::value::push_json_str;
    use toolcall::bridge::openai::DeltaEvent;
    match e {
        DeltaEvent::Content { text } => {
            line.push_str("{\"content\":");
            push_json_str(line, text);
            line.push('}');
        }
        DeltaEvent::Reasoning { text } => {
            line.push_str("{\"reasoning\":");
            push_json_str(line, text);
            line.push('}');
        }
        DeltaEvent::Arguments { index, fragment } => {
            line.push_str("{\"tool_calls\":[{\"index\":");
            push_index(line, *index);
            line.push_str(",\"function\":{\"arguments\":");
            push_json_str(line, fragment);
            line.push_str("}}]}");
        }
        _ => return false,
    }
    true
}

/// Appends an event's index in decimal ([`push_decimal`](toolcall::args::value::push_decimal):
/// `write!` of an index was a third of a line's work).
fn push_index(line: &mut String, n: usize) {
    toolcall::args::value::push_decimal(line, u64::try_from(n).unwrap_or(u64::MAX));
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
        StreamEvent::ReasoningCall { result } => match result {
            Ok(call) => Out::Object(vec![
                ("event", Out::Value(json!("reasoning_call"))),
                ("call", call_json(call, options)),
            ]),
            Err(err) => Out::Value(json!({"event": "reasoning_call", "error": error_json(err)})),
        },
        other => Out::Event(other),
    }
}

/// `--openai`: OpenAI-style chat-completion deltas, one JSON object per line, flushed as they
/// become certain.
fn openai(
    args: &StreamArgs,
    file: Option<&std::path::Path>,
    options: &ParseOptions,
    chunk: usize,
) -> Result<Exit> {
    use toolcall::bridge::openai::{DeltaEvent, ToolCallDeltas};
    let _ = args;
    let mut deltas = ToolCallDeltas::new(options.clone());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut failed = false;
    // The deltas of the last chunk, handed back with the next (`feed_reusing`), and one line
    // buffer: the frequent lines (content, reasoning, argument fragments) are written here
    // directly, the others through serde_json.
    let mut events = Vec::new();
    let mut line = String::new();
    let mut print = |events: &[DeltaEvent], out: &mut dyn Write| -> Result<()> {
        for e in events {
            line.clear();
            match e {
                _ if openai_direct_line(e, &mut line) => {}
                DeltaEvent::ToolCallStart { index, id, name } => {
                    line = json!({"tool_calls": [{
                        "index": index, "id": id, "type": "function",
                        "function": {"name": name, "arguments": ""}}]})
                    .to_string();
                }
                DeltaEvent::CallDone { index } => {
                    line = json!({"tool_call_done": {"index": index}}).to_string();
                }
                DeltaEvent::CallFailed {
                    index,
                    message,
                    error,
                } => {
                    failed = true;
                    let error = error.as_deref().map(error_json);
                    line = json!({"tool_call_failed": {"index": index, "message": message, "error": error}})
                        .to_string();
                }
                other => {
                    line = serde_json::to_value(other)
                        .unwrap_or(Value::Null)
                        .to_string()
                }
            }
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        if !events.is_empty() {
            out.flush()?;
        }
        Ok(())
    };
    match file {
        Some(path) if !is_stdin(path) => {
            let text = read_input(Some(path))?;
            for piece in chunks(&text, chunk) {
                deltas.feed_reusing(piece, &mut events);
                print(&events, &mut out)?;
            }
        }
        _ => {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            let mut buf = vec![0; READ_BYTES];
            let mut pending: Vec<u8> = Vec::new();
            loop {
                let n = match input.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e).context("cannot read standard input"),
                };
                // Whole characters only: the bytes of one cut at the end wait for the next read.
                pending.extend_from_slice(&buf[..n]);
                let valid = match std::str::from_utf8(&pending) {
                    Ok(_) => pending.len(),
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    Err(_) => pending.len(),
                };
                let text = String::from_utf8_lossy(&pending[..valid]).into_owned();
                pending.drain(..valid);
                for piece in chunks(&text, chunk) {
                    deltas.feed_reusing(piece, &mut events);
                    print(&events, &mut out)?;
                }
            }
            if !pending.is_empty() {
                let text = String::from_utf8_lossy(&pending).into_owned();
                deltas.feed_reusing(&text, &mut events);
                print(&events, &mut out)?;
            }
        }
    }
    print(&deltas.finish(), &mut out)?;
    Ok(if failed {
        Exit::InputErrors
    } else {
        Exit::Success
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The lines written directly are the events' own serialization, byte for byte: every field
    /// in order, strings escaped as serde_json escapes them (quotes, backslashes, controls, DEL,
    /// non-ASCII, line separators), indexes of every width. A field added to these events would
    /// make them differ, and this test fail.
    #[test]
    fn direct_lines_are_the_events_serialization() {
        let texts = [
            "",
            "plain",
            "a \"quoted\" \\ back\\slash",
            "\n\r\t\u{0}\u{1f}\u{7f}",
            "é 🦀 \u{2028}",
            "</tool_call>",
        ];
        let options = ParseOptions::default();
        for text in texts {
            let mut events = vec![
                StreamEvent::Prose { text: text.into() },
                StreamEvent::Reasoning { text: text.into() },
            ];
            for index in [0, 7, 10, 123_456, usize::MAX] {
                events.push(StreamEvent::ArgumentDelta {
                    index,
                    argument: Arc::from(text),
                    text: text.into(),
                });
            }
            for e in &events {
                let mut line = String::new();
                assert!(direct_line(e, &mut line), "{e:?}");
                let serialized = serde_json::to_string(&event_json(e, &options)).unwrap();
                assert_eq!(line, serialized);
            }
        }
        // The `--openai` lines, as `json!` wrote them.
        use toolcall::bridge::openai::DeltaEvent;
        for text in texts {
            for (e, want) in [
                (
                    DeltaEvent::Content { text: text.into() },
                    json!({ "content": text }),
                ),
                (
                    DeltaEvent::Reasoning { text: text.into() },
                    json!({ "reasoning": text }),
                ),
                (
                    DeltaEvent::Arguments {
                        index: 123,
                        fragment: text.into(),
                    },
                    json!({"tool_calls": [{"index": 123, "function": {"arguments": text}}]}),
                ),
            ] {
                let mut line = String::new();
                assert!(openai_direct_line(&e, &mut line));
                assert_eq!(line, want.to_string());
            }
        }
        let other = StreamEvent::CallStarted {
            index: 0,
            dialect: toolcall::parser::Dialect::Tool,
        };
        assert!(!direct_line(&other, &mut String::new()));
    }
}
