//! `toolcall parse`: one JSON object with the calls and errors of a response.

use crate::commands::shared::{InferenceCount, Out, call_json, error_json, load, parse_in_chunks};
use crate::{Exit, ParseArgs};
use anyhow::Result;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use toolcall::parser::{ParseOptions, ParseResult, Segment};

/// Runs the subcommand.
pub(crate) fn run(args: &ParseArgs) -> Result<Exit> {
    let (text, options) = load(
        args.file.as_deref(),
        args.schema.as_deref(),
        args.ignore_fenced,
    )?;
    let options = args.reasoning.apply(options.with_dialect(args.dialect));
    let result = match args.chunk_size {
        Some(n) => parse_in_chunks(&text, &options, n),
        None => toolcall::parser::parse_with(&text, &options),
    };
    let mut members = report(&result, &options);
    if args.reasoning.enabled() {
        members.push(("reasoning", Out::Value(Value::String(result.reasoning()))));
        // Calls written inside reasoning (`--calls-in-reasoning flag`), apart from the answer's.
        let calls = result
            .reasoning_calls()
            .into_iter()
            .map(|c| call_json(c, &options))
            .collect();
        members.push(("reasoning_calls", Out::Array(calls)));
        let errors = result
            .reasoning_errors()
            .into_iter()
            .map(error_json)
            .collect();
        members.push(("reasoning_errors", Out::Value(Value::Array(errors))));
    }
    if args.stats {
        members.push(("stats", Out::Value(stats(&result))));
    }
    let out = Out::Object(members);
    {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        stdout.flush()?;
    }
    let mut inferred = InferenceCount::default();
    for call in result.calls() {
        inferred.add(call, &options);
    }
    if let Some(note) = inferred.note(&options) {
        eprintln!("{note}");
    }
    Ok(if result.errors().is_empty() {
        Exit::Success
    } else {
        Exit::InputErrors
    })
}

/// The JSON object of the CLI contract: `calls` (each with its `typed_by`), `errors` (each with
/// its `feedback`), and the prose.
fn report<'a>(result: &'a ParseResult, options: &ParseOptions) -> Vec<(&'static str, Out<'a>)> {
    let calls = result
        .calls()
        .into_iter()
        .map(|c| call_json(c, options))
        .collect();
    let errors = result.errors().into_iter().map(error_json).collect();
    vec![
        ("calls", Out::Array(calls)),
        ("errors", Out::Value(Value::Array(errors))),
        ("prose", Out::Value(Value::String(result.prose()))),
    ]
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
            _ => {}
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
