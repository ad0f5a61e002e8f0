//! What `parse` and `stream` share: options from the command line, chunked feeding.

use anyhow::{Context, Result};
use std::path::Path;
use std::sync::Arc;
use toolcall::parser::{ParseOptions, ParseResult, StreamParser, ToolSchemas, chunks};

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

/// The result of streaming `text` in chunks of `n` bytes, folded like a one-shot parse. Each
/// chunk's events are folded into the result as they come (`ParseResult::push_event`), never
/// collected: a 2 MB value in 1-byte chunks held every event before (161 MiB). Argument deltas,
/// which the result drops, are not made at all.
pub(crate) fn parse_in_chunks(text: &str, options: &ParseOptions, n: u64) -> ParseResult {
    let mut parser = StreamParser::with_options(options.clone()).argument_deltas(false);
    let mut result = ParseResult::default();
    let mut events = Vec::new();
    for chunk in chunks(text, usize::try_from(n).unwrap_or(usize::MAX)) {
        parser.feed_into(chunk, &mut events);
        events.drain(..).for_each(|e| result.push_event(e));
    }
    parser
        .finish()
        .into_iter()
        .for_each(|e| result.push_event(e));
    result
}
