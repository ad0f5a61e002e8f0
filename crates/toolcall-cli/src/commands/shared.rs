//! What `parse` and `stream` share: options from the command line, chunked feeding.

use anyhow::{Context, Result};
use std::path::Path;
use std::sync::Arc;
use toolcall::parser::{ParseOptions, ParseResult, StreamEvent, StreamParser, ToolSchemas, chunks};

/// Parse options from `--schema` and `--ignore-fenced`.
pub(crate) fn load_options(schema: Option<&Path>, ignore_fenced: bool) -> Result<ParseOptions> {
    let mut options = ParseOptions {
        ignore_fenced_calls: ignore_fenced,
        ..ParseOptions::default()
    };
    if let Some(path) = schema {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON", path.display()))?;
        let schemas = ToolSchemas::from_tools_json(&json)
            .with_context(|| format!("{} is not a list of tool definitions", path.display()))?;
        options.schemas = Some(Arc::new(schemas));
    }
    Ok(options)
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
