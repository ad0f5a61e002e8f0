//! What `parse` and `stream` share: options from the command line, reading the response, chunked
//! feeding, and the JSON of a call or an error.

use crate::input::{is_stdin, read_input};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use toolcall::parser::{
    ParseError, ParseOptions, ParseResult, StreamEvent, StreamParser, ToolCall, ToolSchemas, chunks,
};

/// The response and the parse options of `parse` or `stream`: `file` (`-` or nothing: standard
/// input), `--schema` (`-`: standard input) and `--ignore-fenced`.
///
/// Standard input can be read once, so a schema read from it needs the response from a file.
pub(crate) fn load(
    file: Option<&Path>,
    schema: Option<&Path>,
    ignore_fenced: bool,
) -> Result<(String, ParseOptions)> {
    if schema.is_some_and(is_stdin) && file.is_none_or(is_stdin) {
        bail!(
            "--schema - reads the tool definitions from standard input, so the response cannot \
             come from it too: give the response as a FILE"
        );
    }
    // The schema first: when it comes from standard input, nothing else does.
    let options = load_options(schema, ignore_fenced)?;
    let text = read_input(file)?;
    Ok((text, options))
}

/// Parse options from `--schema` (a file, or `-` for standard input) and `--ignore-fenced`.
fn load_options(schema: Option<&Path>, ignore_fenced: bool) -> Result<ParseOptions> {
    let mut options = ParseOptions {
        ignore_fenced_calls: ignore_fenced,
        ..ParseOptions::default()
    };
    if let Some(path) = schema {
        let text = read_input(Some(path))?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON", describe(path)))?;
        let schemas = ToolSchemas::from_tools_json(&json)
            .with_context(|| format!("{} is not a list of tool definitions", describe(path)))?;
        options.schemas = Some(Arc::new(schemas));
    }
    Ok(options)
}

/// A path for messages, naming standard input as such.
fn describe(path: &Path) -> String {
    if is_stdin(path) {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    }
}

/// Every event of streaming `text` in chunks of `n` bytes.
pub(crate) fn stream_events(text: &str, options: &ParseOptions, n: u64) -> Vec<StreamEvent> {
    let mut parser = StreamParser::with_options(options.clone());
    let mut events = Vec::new();
    for chunk in chunks(text, usize::try_from(n).unwrap_or(usize::MAX)) {
        parser.feed_into(chunk, &mut events);
    }
    events.extend(parser.finish());
    events
}

/// The result of streaming `text` in chunks of `n` bytes, folded like a one-shot parse.
pub(crate) fn parse_in_chunks(text: &str, options: &ParseOptions, n: u64) -> ParseResult {
    ParseResult::from_events(stream_events(text, options, n))
}

/// One call as JSON; `arguments` is the JSON form of the typed values.
pub(crate) fn call_json(call: &ToolCall) -> Value {
    serde_json::to_value(call).unwrap_or(Value::Null)
}

/// One error as JSON: the error's own fields, then `feedback`, the text to send back to the
/// model.
pub(crate) fn error_json(error: &ParseError) -> Value {
    let mut v = serde_json::to_value(error).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut v {
        fields.insert("feedback".into(), error.feedback().into());
    }
    v
}
