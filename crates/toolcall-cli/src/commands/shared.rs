//! What `parse` and `stream` share: options from the command line, reading the response, chunked
//! feeding, and the JSON of a call or an error.

use crate::input::{is_stdin, read_input};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use toolcall::parser::{
    Dialect, ParseError, ParseOptions, ParseResult, StreamParser, ToolCall, ToolSchemas, chunks,
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
    // The schema first: when it comes from standard input, nothing else does.
    let options = options_for(file, schema, ignore_fenced)?;
    let text = read_input(file)?;
    Ok((text, options))
}

/// Parse options from `--schema` (a file, or `-` for standard input) and `--ignore-fenced`,
/// for a response read from `file` (`-` or nothing: standard input), which is not read here.
pub(crate) fn options_for(
    file: Option<&Path>,
    schema: Option<&Path>,
    ignore_fenced: bool,
) -> Result<ParseOptions> {
    if schema.is_some_and(is_stdin) && file.is_none_or(is_stdin) {
        bail!(
            "--schema - reads the tool definitions from standard input, so the response cannot \
             come from it too: give the response as a FILE"
        );
    }
    load_options(schema, ignore_fenced)
}

/// Parse options from `--schema` (a file, or `-` for standard input) and `--ignore-fenced`.
fn load_options(schema: Option<&Path>, ignore_fenced: bool) -> Result<ParseOptions> {
    let mut options = ParseOptions::default().with_ignore_fenced_calls(ignore_fenced);
    if let Some(path) = schema {
        let text = read_input(Some(path))?;
        let json: serde_json::Value = toolcall::args::value::json_from_str(&text)
            .with_context(|| format!("{} is not valid JSON", describe(path)))?;
        let schemas = ToolSchemas::from_tools_json(&json)
            .with_context(|| format!("{} is not a list of tool definitions", describe(path)))?;
        options = options.with_schemas(Arc::new(schemas));
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

/// What typed a call's arguments:
///
/// - `"schema"`: its tool's input schema from `--schema`;
/// - `"inference"`: no schema for its tool, so the `<tool>` format inferred the types from the
///   text (docs/FORMAT.md §5.2: `007` is 7, one `<exclude>` a string but two an array);
/// - `"text"`: no schema for its tool, so a raw-text dialect (the Qwen3-Coder family, GLM, the
///   invoke family, Kimi-K3) kept every value a string, but those DeepSeek's `string="false"` or
///   Kimi-K3's `type` typed (docs/FORMAT.md §9);
/// - `"json"`: the arguments were JSON and keep JSON's types (the legacy `<tool>{…}</tool>`
///   form, Hermes).
///
/// Under `auto`, the call's encodings tell which of these its dialect did.
pub(crate) fn typed_by(call: &ToolCall, options: &ParseOptions) -> &'static str {
    let has_schema = options
        .schemas()
        .is_some_and(|s| s.get(&call.tool_name).is_some());
    let typing = typing(options.dialect()).map(|t| match t {
        Typing::ByCall => by_call(call),
        t => t,
    });
    match (typing, has_schema) {
        (Some(Typing::Json), _) => "json",
        (Some(Typing::Tree), _) if call.legacy_json => "json",
        (_, true) => "schema",
        (Some(Typing::Raw | Typing::ByCall), false) => "text",
        // A dialect this command does not know yet: say inference, so the note suggests a schema.
        (Some(Typing::Tree) | None, false) => "inference",
    }
}

/// How a dialect's arguments are typed when no schema applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Typing {
    /// An element tree: inferred (`<tool>`; its legacy JSON form is JSON).
    Tree,
    /// Raw text per argument: kept as strings.
    Raw,
    /// JSON as written, schema or not.
    Json,
    /// As the dialect `auto` chose for the call: told by how its arguments were written.
    ByCall,
}

/// How `auto`'s call was typed, from how its arguments were written: JSON (Hermes, the legacy
/// form), raw text (the raw-text dialects), or elements (`<tool>`).
fn by_call(call: &ToolCall) -> Typing {
    use toolcall::parser::Encoding;
    let all = |f: fn(Encoding) -> bool| call.encodings.iter().all(|e| f(e.encoding));
    if call.legacy_json || (!call.encodings.is_empty() && all(|e| e == Encoding::Json)) {
        Typing::Json
    } else if all(|e| matches!(e, Encoding::Raw | Encoding::Json)) {
        // DeepSeek DSML marks its `string="false"` values JSON among raw ones.
        Typing::Raw
    } else {
        Typing::Tree
    }
}

/// The typing of each dialect; `None` for one added to the parser after this command.
fn typing(dialect: Dialect) -> Option<Typing> {
    match dialect {
        Dialect::Tool => Some(Typing::Tree),
        Dialect::Qwen3Coder
        | Dialect::SeedOss
        | Dialect::Glm
        | Dialect::MinimaxM2
        | Dialect::Anthropic
        | Dialect::Step3
        | Dialect::DeepseekDsml
        | Dialect::KimiK3
        | Dialect::MinimaxM3 => Some(Typing::Raw),
        Dialect::Auto => Some(Typing::ByCall),
        Dialect::Hermes => Some(Typing::Json),
        _ => None,
    }
}

/// Output JSON: `serde_json` values, and calls and events written from themselves, so that
/// their values keep every digit (`serde_json::Value` holds no integer beyond 2^64 exactly, and
/// none at all beyond a float's range).
pub(crate) enum Out<'a> {
    /// A plain value.
    Value(Value),
    /// A call: its own fields, then `typed_by`.
    Call(&'a ToolCall, &'static str),
    /// A stream event, as it serializes itself.
    Event(&'a toolcall::parser::StreamEvent),
    /// An object, its members in order.
    Object(Vec<(&'static str, Out<'a>)>),
    /// An array.
    Array(Vec<Out<'a>>),
}

/// A call's own fields, then `typed_by`.
#[derive(serde::Serialize)]
struct TypedCall<'a> {
    #[serde(flatten)]
    call: &'a ToolCall,
    typed_by: &'static str,
}

impl serde::Serialize for Out<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Out::Value(v) => v.serialize(s),
            // Written by the output's own serializer, never through `serde_json::Value`: an
            // integer beyond the range of a float cannot be held there, and the call's fields
            // were lost with it (Dynamo's suite: a 309-digit integer printed `{"typed_by": …}`).
            Out::Call(call, typed_by) => TypedCall { call, typed_by }.serialize(s),
            Out::Event(event) => event.serialize(s),
            Out::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            Out::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
        }
    }
}

/// One call as JSON: the call's own fields (`arguments` is the JSON form of the typed values),
/// then `typed_by`.
pub(crate) fn call_json<'a>(call: &'a ToolCall, options: &ParseOptions) -> Out<'a> {
    Out::Call(call, typed_by(call, options))
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

/// Counts the calls typed by inference, for [`inference_note`].
#[derive(Debug, Default)]
pub(crate) struct InferenceCount {
    calls: usize,
    /// Tool names typed by inference although a schema file was given, first seen first.
    unknown_tools: Vec<String>,
}

impl InferenceCount {
    /// Counts `call` if it was typed by inference.
    pub(crate) fn add(&mut self, call: &ToolCall, options: &ParseOptions) {
        if typed_by(call, options) == "inference" {
            self.calls += 1;
            if options.schemas().is_some() && !self.unknown_tools.contains(&call.tool_name) {
                self.unknown_tools.push(call.tool_name.clone());
            }
        }
    }

    /// The one line for standard error when any call was typed by inference, else `None`.
    pub(crate) fn note(&self, options: &ParseOptions) -> Option<String> {
        if self.calls == 0 {
            return None;
        }
        let calls = match self.calls {
            1 => "1 call".to_owned(),
            n => format!("{n} calls"),
        };
        Some(if options.schemas().is_none() {
            format!(
                "toolcall: note: {calls} typed by inference; pass --schema TOOLS.json to type \
                 arguments by the tools' schemas"
            )
        } else {
            format!(
                "toolcall: note: {calls} typed by inference, for tools the schema file does not \
                 define ({}); add them to it to type their arguments by their schemas",
                self.unknown_tools.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_says_how_it_types() {
        for &dialect in Dialect::ALL {
            assert!(
                typing(dialect).is_some(),
                "say how {dialect} types its arguments, for \"typed_by\""
            );
        }
    }
}
