//! The dialect fixtures (`tests/fixtures/dialects/`, cases from SGLang's and llama.cpp's suites;
//! README there): every case of a dialect we read, one-shot and in many chunkings.
//!
//! A case passes when its calls and prose match as its `match` and `content_match` say, and when
//! every chunking gives the one-shot result. Cases whose expectation contradicts a rule of
//! docs/FORMAT.md are listed in [`DEVIATIONS`] with the rule; they must still give one result in
//! every chunking, and they must still fail their expectation (so the list stays true).

use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::sync::Arc;
use toolcall_parser::{
    Dialect, ParseOptions, ParseResult, Reasoning, StreamParser, ToolSchemas, parse_with,
};

/// Cases whose expectation our rules decide differently, and why.
const DEVIATIONS: &[(&str, &str)] = &[
    (
        "sglang/glm47/invalid_tool_call",
        "§9.8: a call to a tool the schemas do not list is still a call; the caller decides",
    ),
    (
        "sglang/minimax_m2/unknown_function_name_is_dropped",
        "§9.8: a call to a tool the schemas do not list is still a call; the caller decides",
    ),
    (
        "sglang/minimax_m2/streaming_invalid_function_name",
        "§9.8: a call to a tool the schemas do not list is still a call; the caller decides",
    ),
    (
        "sglang/glm4moe/missing_name_separator_yields_no_calls",
        "§9.4 rule 2: <tool_call>NAME</tool_call> is a call without arguments",
    ),
    (
        "sglang/glm4moe/leading_text_preserved",
        "§1.1: prose is kept byte for byte; the space before <tool_call> is not stripped",
    ),
    (
        "sglang/glm47/array_argument_windows_path",
        "§5.6: a JSON value's escapes are decoded once (\\\\\\\\ is two backslashes); SGLang \
         decodes them twice",
    ),
    (
        "sglang/glm47/array_argument_literal_backslash_n",
        "§5.6: a JSON value's escapes are decoded once (\\\\\\\\n is two backslashes and n); \
         SGLang decodes them twice",
    ),
    (
        "vllm/deepseekv32/TestExtractToolCalls::test_arguments_wrapper_repaired",
        "§9.8: a property the schema does not list is kept as written; a lone `arguments` \
         parameter is not unwrapped (vLLM's heuristic)",
    ),
    (
        "vllm/deepseekv32/TestExtractToolCalls::test_input_wrapper_repaired",
        "§9.8: a property the schema does not list is kept as written; a lone `input` parameter \
         is not unwrapped (vLLM's heuristic)",
    ),
    (
        "vllm/glm4_moe/test_extract_tool_calls_with_glm45_newline_format",
        "§1.1: prose is kept byte for byte; the space before <tool_call> is not stripped",
    ),
    (
        "vllm/minimax_m2/TestParameterWhitespace::test_whitespace_preserved_across_chunks",
        "§9.5 rule 2: one layout newline before </parameter> is dropped (MiniMax's reference \
         parser trims it too); vLLM keeps it",
    ),
    (
        "vllm/qwen3coder/test_extract_tool_calls_streaming[parallel_tools]",
        "§1.1: prose is kept byte for byte; the newline between two blocks is prose",
    ),
    (
        "sglang/minimax_m2/incomplete_block_no_closing_tag",
        "§9 (truncation): a call cut off is an unterminated_call error, and its text is the \
         error's snippet, not prose",
    ),
];

fn fixture_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dialects")
}

fn cases(file: &str) -> Vec<Json> {
    let text = std::fs::read_to_string(fixture_dir().join(file)).expect("fixture file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn options(case: &Json, dialect: Dialect) -> ParseOptions {
    let mut opts = ParseOptions::new().with_dialect(dialect);
    if let Some(tools @ Json::Array(_)) = case.get("tools") {
        // The OpenAI `tools` array, read as `--schema` reads it.
        let schemas = ToolSchemas::from_tools_json(tools).expect("the case's tools read");
        opts = opts.with_schemas(Arc::new(schemas));
    }
    // A case that expects reasoning split off is read as a server reads it: with the reasoning
    // channel on (`--reasoning`, `--reasoning-open` when the prompt opened the block).
    if case.get("expected_reasoning").is_some() {
        let open = case
            .get("reasoning_start_in_prompt")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        opts = opts.with_reasoning(Reasoning::for_dialect(dialect).starting_open(open));
    }
    opts
}

fn stream(text: &str, opts: &ParseOptions, pieces: &[&str]) -> ParseResult {
    let mut p = StreamParser::with_options(opts.clone());
    let mut events = Vec::new();
    for piece in pieces {
        events.extend(p.feed(piece));
    }
    events.extend(p.finish());
    let _ = text;
    ParseResult::from_events(events)
}

/// JSON equality where `1` equals `1.0` (the README's rule) but `3` is not `"3"`.
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            x == y
                || (x.as_f64().is_some() && x.as_f64() == y.as_f64() && !x.is_i64() || !y.is_i64())
                    && x.as_f64() == y.as_f64()
        }
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Whether the result meets the case's expectation; `Err` says how it does not.
fn check(case: &Json, r: &ParseResult) -> Result<(), String> {
    let mode = case.get("match").and_then(Json::as_str).unwrap_or("exact");
    let got: Vec<(String, Json)> = r
        .calls()
        .iter()
        .map(|c| {
            (
                c.tool_name.clone(),
                serde_json::to_value(c).expect("a call serializes")["arguments"].clone(),
            )
        })
        .collect();
    if let Some(Json::Array(expected)) = case.get("expected_calls")
        && mode != "no_crash"
    {
        if mode == "contains" {
            if got.len() < expected.len() {
                return Err(format!(
                    "expected at least {} calls, got {got:?}",
                    expected.len()
                ));
            }
        } else if got.len() != expected.len() {
            return Err(format!(
                "expected {} calls, got {} ({got:?}; errors {:?})",
                expected.len(),
                got.len(),
                r.errors()
            ));
        }
        for (e, (name, args)) in expected.iter().zip(&got) {
            if e["name"].as_str() != Some(name) {
                return Err(format!("expected tool {}, got {name}", e["name"]));
            }
            let want = &e["arguments"];
            let ok = match mode {
                "name_only" => true,
                _ if want.is_null() => true,
                "subset" => want.as_object().is_some_and(|w| {
                    w.iter()
                        .all(|(k, v)| args.get(k).is_some_and(|a| same(v, a)))
                }),
                _ => same(want, args),
            };
            if !ok {
                return Err(format!("arguments: expected {want}, got {args}"));
            }
        }
    }
    if let Some(Json::String(want)) = case.get("expected_reasoning")
        && r.reasoning() != *want
    {
        return Err(format!(
            "reasoning: expected {want:?}, got {:?}",
            r.reasoning()
        ));
    }
    let content_mode = case
        .get("content_match")
        .and_then(Json::as_str)
        .unwrap_or("exact");
    if let Some(Json::String(want)) = case.get("expected_content") {
        let prose = r.prose();
        let ok = match content_mode {
            "unchecked" => true,
            "rstrip" => prose.trim_end() == want.trim_end(),
            "strip" => prose.trim() == want.trim(),
            "contains" => prose.contains(want.as_str()),
            "startswith" => prose.starts_with(want.as_str()),
            "contains_all" => case["content_contains"].as_array().is_some_and(|all| {
                all.iter()
                    .all(|s| s.as_str().is_some_and(|s| prose.contains(s)))
            }),
            _ => prose == *want,
        };
        if !ok {
            return Err(format!(
                "prose ({content_mode}): expected {want:?}, got {prose:?}"
            ));
        }
    }
    Ok(())
}

fn run_file(file: &str, dialect: Dialect) -> BTreeMap<String, (usize, usize)> {
    let mut per_source: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in cases(file) {
        let id = case["id"].as_str().expect("an id").to_owned();
        let input = case["input"].as_str().expect("an input");
        let opts = options(&case, dialect);
        let whole = parse_with(input, &opts);
        // Every chunking gives the one-shot result, deviation or not.
        for n in [1, 2, 3, 5, 7, 16, 64] {
            let pieces: Vec<&str> = toolcall_parser::chunks(input, n).collect();
            assert_eq!(stream(input, &opts, &pieces), whole, "{id}: chunks of {n}");
        }
        if let Some(Json::Array(pieces)) = case.get("chunks") {
            let pieces: Vec<&str> = pieces.iter().filter_map(Json::as_str).collect();
            assert_eq!(
                stream(input, &opts, &pieces),
                whole,
                "{id}: the case's chunks"
            );
        }
        let source = id.split('/').next().unwrap_or_default().to_owned();
        let entry = per_source.entry(source).or_default();
        entry.1 += 1;
        let deviation = DEVIATIONS.iter().find(|(d, _)| *d == id);
        match (check(&case, &whole), deviation) {
            (Ok(()), None) => entry.0 += 1,
            (Err(e), None) => failures.push(format!("{id}: {e}")),
            (Ok(()), Some(_)) => failures.push(format!("{id}: listed as a deviation but passes")),
            (Err(_), Some(_)) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    per_source
}

#[test]
fn qwen3_coder_fixtures() {
    let passes = run_file("qwen3-coder-xml.jsonl", Dialect::Qwen3Coder);
    eprintln!("qwen3-coder: {passes:?}");
    assert!(passes.values().map(|p| p.1).sum::<usize>() >= 68);
}

#[test]
fn seed_oss_fixtures() {
    let passes = run_file("seed-oss-xml.jsonl", Dialect::SeedOss);
    eprintln!("seed-oss: {passes:?}");
    assert_eq!(passes.values().map(|p| p.1).sum::<usize>(), 7);
}

#[test]
fn glm_fixtures() {
    let passes = run_file("glm-xml.jsonl", Dialect::Glm);
    eprintln!("glm: {passes:?}");
    assert_eq!(passes.values().map(|p| p.1).sum::<usize>(), 29);
}

/// vLLM 0.32.0's tool-parser test cases (its Python suites), each dialect's file: every case
/// passes or is a written deviation.
#[test]
fn vllm_fixtures() {
    for (file, dialect, cases) in [
        ("vllm-qwen3-coder.jsonl", Dialect::Qwen3Coder, 29),
        ("vllm-glm.jsonl", Dialect::Glm, 18),
        ("vllm-minimax-m2.jsonl", Dialect::MinimaxM2, 21),
        ("vllm-step3.jsonl", Dialect::Step3, 10),
        ("vllm-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 48),
        ("vllm-hermes.jsonl", Dialect::Hermes, 13),
    ] {
        let passes = run_file(file, dialect);
        eprintln!("{file}: {passes:?}");
        let (passed, seen) = passes
            .values()
            .fold((0, 0), |(p, s), (a, b)| (p + a, s + b));
        assert_eq!(seen, cases, "{file}: every case read");
        let listed = DEVIATIONS
            .iter()
            .filter(|(id, _)| cases_of(file).iter().any(|c| c == id))
            .count();
        assert_eq!(passed + listed, cases, "{file}");
    }
}

/// The ids of a fixture file's cases.
fn cases_of(file: &str) -> Vec<String> {
    cases(file)
        .iter()
        .filter_map(|c| c["id"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn minimax_m2_fixtures() {
    let passes = run_file("minimax-m2-xml.jsonl", Dialect::MinimaxM2);
    eprintln!("minimax-m2: {passes:?}");
    assert_eq!(passes.values().map(|p| p.1).sum::<usize>(), 17);
}
