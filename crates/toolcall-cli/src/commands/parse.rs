//! `toolcall parse`: one JSON object with the calls and errors of a response.

use crate::commands::shared::{load_options, parse_in_chunks};
use crate::input::read_input;
use crate::{Exit, ParseArgs};
use anyhow::Result;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use toolcall::parser::{ParseResult, Segment, ToolCall};

/// Runs the subcommand.
pub(crate) fn run(args: &ParseArgs) -> Result<Exit> {
    let text = read_input(args.file.as_deref())?;
    let options = load_options(args.schema.as_deref(), args.ignore_fenced)?;
    let result = match args.chunk_size {
        Some(n) => parse_in_chunks(&text, &options, n),
        None => toolcall::parser::parse_with(&text, &options),
    };
    let mut out = report(&result);
    if args.stats {
        out["stats"] = stats(&result);
    }
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(if result.errors().is_empty() {
        Exit::Success
    } else {
        Exit::InputErrors
    })
}

/// The JSON object of the CLI contract: `calls`, `errors`, and the prose.
pub(crate) fn report(result: &ParseResult) -> Value {
    let calls: Vec<Value> = result.calls().into_iter().map(call_json).collect();
    let errors: Vec<Value> = result
        .errors()
        .into_iter()
        .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
        .collect();
    json!({ "calls": calls, "errors": errors, "prose": result.prose() })
}

/// One call as JSON; `arguments` is the JSON form of the typed values.
pub(crate) fn call_json(call: &ToolCall) -> Value {
    serde_json::to_value(call).unwrap_or(Value::Null)
}

/// Counts that let an agent watch a model's habits: calls, errors, repairs, encodings.
fn stats(result: &ParseResult) -> Value {
    let mut errors: BTreeMap<&str, usize> = BTreeMap::new();
    let mut repairs: BTreeMap<&str, usize> = BTreeMap::new();
    let mut encodings: BTreeMap<&str, usize> = BTreeMap::new();
    let mut calls = 0;
    for s in &result.segments {
        match s {
            Segment::Call(c) => {
                calls += 1;
                for r in &c.repairs {
                    *repairs.entry(r.kind.as_str()).or_default() += r.count;
                }
                for e in &c.encodings {
                    *encodings.entry(e.encoding.as_str()).or_default() += 1;
                }
            }
            Segment::Error(e) => *errors.entry(e.kind.as_str()).or_default() += 1,
            Segment::Prose(_) => {}
        }
    }
    json!({
        "calls": calls,
        "errors": errors.values().sum::<usize>(),
        "errors_by_kind": errors,
        "repairs_by_kind": repairs,
        "encodings": encodings,
    })
}
