//! The dialect fixtures (`tests/fixtures/dialects/`, cases from the test suites of SGLang,
//! llama.cpp, vLLM, smg and Dynamo; README there): every case of a dialect we read, one-shot and
//! in many chunkings.
//!
//! A case passes when its calls and prose match as its `match` and `content_match` say (and its
//! extra expectations: `expected_reasoning`, `expected_arguments_text`, `expected_keys`,
//! `expected_absent_keys`, `argument_contains`/`arg_contains`, `args_not_contain`,
//! `content_excludes`/`content_not_contains`), and when every chunking gives the one-shot result.
//! A case whose expectation contradicts a rule of docs/FORMAT.md says so in its `deviation` field
//! (the first files: in [`DEVIATIONS`]), naming the rule; it must still give one result in every
//! chunking, and it must still fail its expectation (so a stale mark is noticed).

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

/// The chunk sizes every case is streamed in, besides the case's own `chunks`.
const CHUNK_SIZES: &[usize] = &[1, 2, 3, 5, 7, 16, 64];

fn fixture_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dialects")
}

fn cases(file: &str) -> Vec<Json> {
    let text = std::fs::read_to_string(fixture_dir().join(file)).expect("fixture file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| Json::read(l).unwrap_or_else(|e| panic!("{file}: a JSON line: {e}: {l}")))
        .collect()
}

fn options(case: &Json, dialect: Dialect) -> ParseOptions {
    let mut opts = ParseOptions::new().with_dialect(dialect);
    if let Some(tools @ Json::Array(_)) = case.get("tools") {
        // The OpenAI `tools` array, read as `--schema` reads it (its numbers as serde_json reads
        // them).
        let schemas =
            ToolSchemas::from_tools_json(&tools.to_serde()).expect("the case's tools read");
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

fn stream(opts: &ParseOptions, pieces: &[&str]) -> ParseResult {
    let mut p = StreamParser::with_options(opts.clone());
    let mut events = Vec::new();
    for piece in pieces {
        events.extend(p.feed(piece));
    }
    events.extend(p.finish());
    ParseResult::from_events(events)
}

/// A JSON value as a case writes it: numbers keep their text, so that they compare by exact
/// decimal value (`9007199254740992.5` is not the float `9007199254740992.0`, a 400-digit
/// integer keeps every digit), and nesting is not limited. serde_json's `Value` (without its
/// `arbitrary_precision` feature, which would change the library's own reading) holds neither.
#[derive(Debug, Clone)]
enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Reads one JSON text (RFC 8259).
    fn read(text: &str) -> Result<Json, String> {
        let mut r = Reader {
            s: text.as_bytes(),
            at: 0,
        };
        let v = r.value()?;
        r.blanks();
        if r.at != r.s.len() {
            return Err(format!("text after the value at byte {}", r.at));
        }
        Ok(v)
    }

    /// The member `key` of an object (the last, if given twice).
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// The value as serde_json reads its text (the library takes schemas so).
    fn to_serde(&self) -> serde_json::Value {
        use serde_json::Value as V;
        match self {
            Json::Null => V::Null,
            Json::Bool(b) => V::Bool(*b),
            Json::Number(n) => serde_json::from_str(n).expect("a number serde_json reads"),
            Json::String(s) => V::String(s.clone()),
            Json::Array(a) => V::Array(a.iter().map(Json::to_serde).collect()),
            Json::Object(m) => {
                V::Object(m.iter().map(|(k, v)| (k.clone(), v.to_serde())).collect())
            }
        }
    }
}

impl std::ops::Index<&str> for Json {
    type Output = Json;
    fn index(&self, key: &str) -> &Json {
        self.get(key).unwrap_or(&Json::Null)
    }
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Number(n) => f.write_str(n),
            Json::String(s) => write!(f, "{}", serde_json::Value::String(s.clone())),
            Json::Array(a) => {
                f.write_str("[")?;
                for (i, v) in a.iter().enumerate() {
                    write!(f, "{}{v}", if i > 0 { ", " } else { "" })?;
                }
                f.write_str("]")
            }
            Json::Object(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    let k = serde_json::Value::String(k.clone());
                    write!(f, "{}{k}: {v}", if i > 0 { ", " } else { "" })?;
                }
                f.write_str("}")
            }
        }
    }
}

/// [`Json::read`]'s reader: recursive descent over the bytes.
struct Reader<'a> {
    s: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn blanks(&mut self) {
        while self.s.get(self.at).is_some_and(|b| b" \t\r\n".contains(b)) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.blanks();
        let ok = self.s.get(self.at) == Some(&b);
        self.at += usize::from(ok);
        ok
    }

    fn value(&mut self) -> Result<Json, String> {
        self.blanks();
        let rest = &self.s[self.at..];
        for (word, v) in [
            ("null", Json::Null),
            ("true", Json::Bool(true)),
            ("false", Json::Bool(false)),
        ] {
            if rest.starts_with(word.as_bytes()) {
                self.at += word.len();
                return Ok(v);
            }
        }
        match rest.first() {
            Some(b'"') => self.string().map(Json::String),
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(format!("expected , or ] at byte {}", self.at));
                        }
                    }
                }
                Ok(Json::Array(items))
            }
            Some(b'{') => {
                self.at += 1;
                let mut members = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        self.blanks();
                        let key = self.string()?;
                        if !self.eat(b':') {
                            return Err(format!("expected : at byte {}", self.at));
                        }
                        members.push((key, self.value()?));
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(format!("expected , or }} at byte {}", self.at));
                        }
                    }
                }
                Ok(Json::Object(members))
            }
            Some(b'-' | b'0'..=b'9') => {
                let len = rest
                    .iter()
                    .position(|b| !b"+-.eE0123456789".contains(b))
                    .unwrap_or(rest.len());
                let text = std::str::from_utf8(&rest[..len]).expect("ASCII");
                Decimal::of(text).ok_or_else(|| format!("bad number {text:?}"))?;
                self.at += len;
                Ok(Json::Number(text.to_owned()))
            }
            _ => Err(format!("expected a value at byte {}", self.at)),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.at) != Some(&b'"') {
            return Err(format!("expected a string at byte {}", self.at));
        }
        self.at += 1;
        let mut out = Vec::new();
        let mut units: Vec<u16> = Vec::new();
        loop {
            let b = *self.s.get(self.at).ok_or("unterminated string")?;
            if b == b'\\' && self.s.get(self.at + 1) == Some(&b'u') {
                let hex = self
                    .s
                    .get(self.at + 2..self.at + 6)
                    .ok_or("short \\u escape")?;
                let hex = std::str::from_utf8(hex).map_err(|e| e.to_string())?;
                units.push(u16::from_str_radix(hex, 16).map_err(|e| e.to_string())?);
                self.at += 6;
                continue;
            }
            // UTF-16 units written as \u escapes end here (a surrogate pair joins).
            if !units.is_empty() {
                let text: String = char::decode_utf16(units.drain(..))
                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                    .collect();
                out.extend_from_slice(text.as_bytes());
            }
            self.at += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let e = *self.s.get(self.at).ok_or("unterminated escape")?;
                    self.at += 1;
                    out.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'b' => 8,
                        b'f' => 12,
                        b'"' | b'\\' | b'/' => e,
                        _ => return Err(format!("bad escape at byte {}", self.at)),
                    });
                }
                _ => out.push(b),
            }
        }
        String::from_utf8(out).map_err(|e| e.to_string())
    }
}

/// A number's exact decimal value: sign, significant digits (no leading or trailing zeros) and
/// the power of ten of the last digit. `1`, `1.0` and `10e-1` are one value.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Decimal {
    fn of(text: &str) -> Option<Decimal> {
        let (negative, t) = match text.strip_prefix('-') {
            Some(t) => (true, t),
            None => (false, text),
        };
        let (mantissa, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
            None => (t, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() || !(int.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let all = format!("{int}{frac}");
        let digits = all.trim_start_matches('0');
        let trimmed = digits.trim_end_matches('0');
        let exponent = exp - frac.len() as i64 + (digits.len() - trimmed.len()) as i64;
        Some(if trimmed.is_empty() {
            Decimal {
                negative: false,
                digits: String::new(),
                exponent: 0,
            }
        } else {
            Decimal {
                negative,
                digits: trimmed.to_owned(),
                exponent,
            }
        })
    }
}

/// A call's arguments as [`Json`], read from their JSON text (every digit of an integer, a
/// float's shortest text).
fn arguments(call: &toolcall_parser::ToolCall) -> Json {
    Json::read(&arguments_text(call)).expect("the arguments' JSON reads back")
}

/// A call's arguments as compact JSON text, members in order, numbers as the output writes them.
fn arguments_text(call: &toolcall_parser::ToolCall) -> String {
    serde_json::to_string(&call.arguments).expect("arguments serialize")
}

/// JSON equality where numbers compare by exact decimal value, so `1` equals `1.0` (the README's
/// rule), but `3` is not `"3"`; objects in any order.
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Null, Json::Null) => true,
        (Json::Bool(x), Json::Bool(y)) => x == y,
        (Json::String(x), Json::String(y)) => x == y,
        (Json::Number(x), Json::Number(y)) => Decimal::of(x) == Decimal::of(y),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        _ => false,
    }
}

/// Whether `want` holds in `got` as `match: subset` reads it: the listed keys, each value equal
/// by [`same`].
fn subset(want: &Json, got: &Json) -> bool {
    match want {
        Json::Object(w) => w
            .iter()
            .all(|(k, v)| got.get(k).is_some_and(|a| same(v, a))),
        _ => false,
    }
}

/// The strings of a field that holds one string or a list of them.
fn strings(v: Option<&Json>) -> Vec<&str> {
    match v {
        Some(Json::String(s)) => vec![s.as_str()],
        Some(Json::Array(a)) => a.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether the result meets the case's expectation; `Err` says how it does not.
fn check(case: &Json, r: &ParseResult) -> Result<(), String> {
    let mode = case.get("match").and_then(Json::as_str).unwrap_or("exact");
    let calls = r.calls();
    let got: Vec<(String, Json)> = calls
        .iter()
        .map(|c| (c.tool_name.clone(), arguments(c)))
        .collect();
    if let Some(Json::Array(expected)) = case.get("expected_calls")
        && mode != "no_crash"
    {
        if mode == "contains" {
            // Each expected call is among the calls, in order; its arguments, when given, as a
            // subset.
            let mut rest = got.iter();
            for e in expected {
                let want = &e["arguments"];
                if !rest.any(|(name, args)| {
                    e["name"].as_str() == Some(name) && (want.is_null() || subset(want, args))
                }) {
                    return Err(format!("expected a call {e} in order among {got:?}"));
                }
            }
        } else {
            if got.len() != expected.len() {
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
                    "subset" => subset(want, args),
                    _ => same(want, args),
                };
                if !ok {
                    return Err(format!("arguments: expected {want}, got {args}"));
                }
            }
        }
    }
    // The arguments' JSON text, compact, members in order, numbers as written (`1.0` stays).
    if let Some(Json::Array(texts)) = case.get("expected_arguments_text") {
        for (i, (want, call)) in texts.iter().zip(&calls).enumerate() {
            let text = arguments_text(call);
            if want.as_str() != Some(text.as_str()) {
                return Err(format!("call {i}: arguments text {text}, expected {want}"));
            }
        }
    }
    // The first call's argument names, in order.
    if let Some(Json::Array(keys)) = case.get("expected_keys")
        && let Some(call) = calls.first()
    {
        let names: Vec<&str> = call.arguments.iter().map(|(k, _)| k.as_str()).collect();
        if keys
            .iter()
            .map(Json::as_str)
            .ne(names.iter().map(|k| Some(*k)))
        {
            return Err(format!("argument names {names:?}, expected {keys:?}"));
        }
    }
    // Names each call must not have, call by call.
    if let Some(Json::Array(per_call)) = case.get("expected_absent_keys") {
        for (i, (keys, (_, args))) in per_call.iter().zip(&got).enumerate() {
            if let Some(k) = strings(Some(keys))
                .into_iter()
                .find(|k| args.get(k).is_some())
            {
                return Err(format!("call {i}: argument {k:?} present, expected absent"));
            }
        }
    }
    // Substrings of string arguments, call by call (`arg_contains`: the first call's).
    let contains = match (case.get("argument_contains"), case.get("arg_contains")) {
        (Some(Json::Array(per_call)), _) => per_call.iter().collect(),
        (_, Some(first @ Json::Object(_))) => vec![first],
        _ => Vec::new(),
    };
    for (i, (want, (_, args))) in contains.iter().zip(&got).enumerate() {
        let Json::Object(want) = want else { continue };
        for (k, subs) in want {
            let value = args.get(k).and_then(Json::as_str);
            if let Some(s) = strings(Some(subs))
                .into_iter()
                .find(|s| !value.is_some_and(|v| v.contains(s)))
            {
                return Err(format!(
                    "call {i}: argument {k:?} = {value:?} does not contain {s:?}"
                ));
            }
        }
    }
    // Text no call's arguments may hold (in their JSON text).
    for s in strings(case.get("args_not_contain")) {
        if let Some(call) = calls.iter().find(|c| arguments_text(c).contains(s)) {
            return Err(format!("the arguments of {} contain {s:?}", call.tool_name));
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
    let prose = r.prose();
    // `contains_all`, and `contains` with a list, check `content_contains`.
    let all = strings(case.get("content_contains"));
    let listed = content_mode == "contains_all"
        || (content_mode == "contains" && case.get("content_contains").is_some());
    if listed {
        if let Some(s) = all.iter().find(|s| !prose.contains(*s)) {
            return Err(format!("prose lacks {s:?}: {prose:?}"));
        }
    } else if let Some(Json::String(want)) = case.get("expected_content") {
        let ok = match content_mode {
            "unchecked" => true,
            "rstrip" => prose.trim_end() == want.trim_end(),
            "strip" => prose.trim() == want.trim(),
            "contains" => prose.contains(want.as_str()),
            "startswith" => prose.starts_with(want.as_str()),
            _ => prose == *want,
        };
        if !ok {
            return Err(format!(
                "prose ({content_mode}): expected {want:?}, got {prose:?}"
            ));
        }
    }
    // Text the prose must not hold (`content_excludes`, or `content_not_contains`).
    for field in ["content_excludes", "content_not_contains"] {
        if let Some(s) = strings(case.get(field))
            .into_iter()
            .find(|s| prose.contains(s))
        {
            return Err(format!("prose contains {s:?}: {prose:?}"));
        }
    }
    Ok(())
}

/// What [`run_file`] found in a file: per source (the id's first segment), the cases that pass,
/// the cases that carry a deviation (and fail their expectation, as they must), and all cases.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    passed: usize,
    deviations: usize,
    seen: usize,
}

fn run_file(file: &str, dialect: Dialect) -> BTreeMap<String, Tally> {
    let mut per_source: BTreeMap<String, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in cases(file) {
        let id = case["id"].as_str().expect("an id").to_owned();
        let input = case["input"].as_str().expect("an input");
        let opts = options(&case, dialect);
        let whole = parse_with(input, &opts);
        // Every chunking gives the one-shot result, deviation or not.
        let mut chunkings: Vec<(String, Vec<&str>)> = CHUNK_SIZES
            .iter()
            .map(|&n| {
                (
                    format!("chunks of {n}"),
                    toolcall_parser::chunks(input, n).collect(),
                )
            })
            .collect();
        if let Some(Json::Array(pieces)) = case.get("chunks") {
            let pieces: Vec<&str> = pieces.iter().filter_map(Json::as_str).collect();
            assert_eq!(
                pieces.concat(),
                input,
                "{id}: the case's chunks make its input"
            );
            chunkings.push(("the case's chunks".to_owned(), pieces));
        }
        let mut split = false;
        for (how, pieces) in &chunkings {
            let streamed = stream(&opts, pieces);
            if streamed != whole {
                failures.push(format!(
                    "{id}: {how}: {streamed:?} is not the one-shot {whole:?}"
                ));
                split = true;
                break;
            }
        }
        let source = id.split('/').next().unwrap_or_default().to_owned();
        let tally = per_source.entry(source).or_default();
        tally.seen += 1;
        // A deviation is written in the case (`deviation`), or, for the first files, listed in
        // DEVIATIONS.
        let deviation = case.get("deviation").and_then(Json::as_str).or_else(|| {
            DEVIATIONS
                .iter()
                .find(|(d, _)| *d == id)
                .map(|(_, why)| *why)
        });
        match (check(&case, &whole), deviation) {
            (_, _) if split => {}
            (Ok(()), None) => tally.passed += 1,
            (Err(e), None) => failures.push(format!("{id}: {e}")),
            (Ok(()), Some(_)) => failures.push(format!("{id}: marked as a deviation but passes")),
            (Err(_), Some(_)) => tally.deviations += 1,
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    per_source
}

/// The cases of fixture files: each file is read, and every case passes or carries a deviation
/// that it fails (the counts are asserted, so a lost line is noticed).
fn run_files(files: &[(&str, Dialect, usize)]) {
    let mut failures = Vec::new();
    for &(file, dialect, cases) in files {
        let result = std::panic::catch_unwind(|| run_file(file, dialect));
        match result {
            Ok(per_source) => {
                let total = per_source.values().fold(Tally::default(), |t, s| Tally {
                    passed: t.passed + s.passed,
                    deviations: t.deviations + s.deviations,
                    seen: t.seen + s.seen,
                });
                eprintln!(
                    "{file}: {} cases, {} pass, {} deviations",
                    total.seen, total.passed, total.deviations
                );
                if total.seen != cases {
                    failures.push(format!(
                        "{file}: {} cases read, expected {cases}",
                        total.seen
                    ));
                }
            }
            Err(e) => failures.push(
                e.downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| format!("{file}: panicked")),
            ),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn qwen3_coder_fixtures() {
    let passes = run_file("qwen3-coder-xml.jsonl", Dialect::Qwen3Coder);
    eprintln!("qwen3-coder: {passes:?}");
    assert!(passes.values().map(|t| t.seen).sum::<usize>() >= 68);
}

#[test]
fn seed_oss_fixtures() {
    let passes = run_file("seed-oss-xml.jsonl", Dialect::SeedOss);
    eprintln!("seed-oss: {passes:?}");
    assert_eq!(passes.values().map(|t| t.seen).sum::<usize>(), 7);
}

#[test]
fn glm_fixtures() {
    let passes = run_file("glm-xml.jsonl", Dialect::Glm);
    eprintln!("glm: {passes:?}");
    assert_eq!(passes.values().map(|t| t.seen).sum::<usize>(), 29);
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
            .fold((0, 0), |(p, s), t| (p + t.passed, s + t.seen));
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
    assert_eq!(passes.values().map(|t| t.seen).sum::<usize>(), 17);
}

/// smg's tool-parser test cases (its Rust suites), each dialect's file; deviations are marked in
/// the cases (`deviation`).
#[test]
fn smg_fixtures() {
    run_files(&[
        ("smg-qwen3-coder.jsonl", Dialect::Qwen3Coder, 58),
        ("smg-glm.jsonl", Dialect::Glm, 17),
        ("smg-minimax-m2.jsonl", Dialect::MinimaxM2, 36),
        ("smg-hermes.jsonl", Dialect::Hermes, 24),
        ("smg-step3.jsonl", Dialect::Step3, 11),
        ("smg-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 32),
        ("smg-minimax-m3.jsonl", Dialect::MinimaxM3, 100),
        ("smg-kimi-k3.jsonl", Dialect::KimiK3, 16),
    ]);
}

/// Dynamo's (dynamo-parsers 11.0.1) tool-parser test cases, each dialect's file.
#[test]
fn dynamo_fixtures() {
    run_files(&[
        ("dynamo-qwen3-coder.jsonl", Dialect::Qwen3Coder, 47),
        ("dynamo-glm.jsonl", Dialect::Glm, 242),
        ("dynamo-minimax-m2.jsonl", Dialect::MinimaxM2, 15),
        ("dynamo-hermes.jsonl", Dialect::Hermes, 28),
        ("dynamo-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 80),
        ("dynamo-minimax-m3.jsonl", Dialect::MinimaxM3, 74),
        ("dynamo-kimi-k3.jsonl", Dialect::KimiK3, 62),
    ]);
}

/// Dynamo's second parser crate (dynamo-parsers-v2 0.9.6), each dialect's file.
#[test]
fn dynamo2_fixtures() {
    run_files(&[
        ("dynamo2-qwen3-coder.jsonl", Dialect::Qwen3Coder, 196),
        ("dynamo2-glm.jsonl", Dialect::Glm, 275),
        ("dynamo2-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 11),
        ("dynamo2-minimax-m3.jsonl", Dialect::MinimaxM3, 247),
        ("dynamo2-kimi-k3.jsonl", Dialect::KimiK3, 232),
    ]);
}

/// Ollama's model-output parsers' tests (`model/parsers/*_test.go`), each dialect's file.
#[test]
fn ollama_fixtures() {
    run_files(&[
        ("ollama-qwen3-coder.jsonl", Dialect::Qwen3Coder, 176),
        ("ollama-glm.jsonl", Dialect::Glm, 70),
        ("ollama-minimax-m2.jsonl", Dialect::MinimaxM2, 36),
        ("ollama-hermes.jsonl", Dialect::Hermes, 113),
    ]);
}

/// TensorRT-LLM's tool-parser tests (`tests/unittest/llmapi/apps/test_tool_parsers.py`), each dialect's file.
#[test]
fn trtllm_fixtures() {
    run_files(&[
        ("trtllm-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 33),
        ("trtllm-glm.jsonl", Dialect::Glm, 428),
        ("trtllm-hermes.jsonl", Dialect::Hermes, 26),
        ("trtllm-kimi-k3.jsonl", Dialect::KimiK3, 29),
        ("trtllm-minimax-m2.jsonl", Dialect::MinimaxM2, 22),
        ("trtllm-qwen3-coder.jsonl", Dialect::Qwen3Coder, 14),
    ]);
}

/// LMDeploy's parser tests (`tests/test_lmdeploy/serve/parsers/`), each dialect's file.
#[test]
fn lmdeploy_fixtures() {
    run_files(&[
        ("lmdeploy-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 14),
        ("lmdeploy-glm.jsonl", Dialect::Glm, 30),
        ("lmdeploy-hermes.jsonl", Dialect::Hermes, 42),
        ("lmdeploy-qwen3-coder.jsonl", Dialect::Qwen3Coder, 31),
    ]);
}

/// mlx-lm's tool-parsing tests (`tests/test_tool_parsing.py`, `tests/test_tool_parsers.py`, `tests/test_deepseek_dsml_close_tag.py`), each dialect's file.
#[test]
fn mlx_fixtures() {
    run_files(&[
        ("mlx-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 2),
        ("mlx-glm.jsonl", Dialect::Glm, 2),
        ("mlx-hermes.jsonl", Dialect::Hermes, 3),
        ("mlx-minimax-m2.jsonl", Dialect::MinimaxM2, 13),
        ("mlx-qwen3-coder.jsonl", Dialect::Qwen3Coder, 4),
    ]);
}

/// LocalAI's function-parsing tests (`pkg/functions/*_test.go`), each dialect's file.
#[test]
fn localai_fixtures() {
    run_files(&[
        ("localai-glm.jsonl", Dialect::Glm, 12),
        ("localai-hermes.jsonl", Dialect::Hermes, 6),
        ("localai-minimax-m2.jsonl", Dialect::MinimaxM2, 3),
        ("localai-qwen3-coder.jsonl", Dialect::Qwen3Coder, 77),
    ]);
}

/// SGLang's function-call tests beyond the development set (`test/registered/unit/function_call/`), each dialect's file.
#[test]
fn sgl_fixtures() {
    run_files(&[
        ("sgl-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 187),
        ("sgl-glm.jsonl", Dialect::Glm, 303),
        ("sgl-hermes.jsonl", Dialect::Hermes, 54),
        ("sgl-kimi-k3.jsonl", Dialect::KimiK3, 15),
        ("sgl-minimax-m2.jsonl", Dialect::MinimaxM2, 69),
        ("sgl-minimax-m3.jsonl", Dialect::MinimaxM3, 60),
        ("sgl-qwen3-coder.jsonl", Dialect::Qwen3Coder, 115),
        ("sgl-step3.jsonl", Dialect::Step3, 46),
    ]);
}

/// vLLM's tool-parser tests after 0.32.0 (`tests/tool_parsers/`, newer cases and files), each dialect's file.
#[test]
fn vllmmain_fixtures() {
    run_files(&[
        ("vllmmain-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 12),
        ("vllmmain-glm.jsonl", Dialect::Glm, 26),
        ("vllmmain-hermes.jsonl", Dialect::Hermes, 1),
        ("vllmmain-kimi-k3.jsonl", Dialect::KimiK3, 4),
        ("vllmmain-minimax-m2.jsonl", Dialect::MinimaxM2, 5),
        ("vllmmain-minimax-m3.jsonl", Dialect::MinimaxM3, 5),
        ("vllmmain-qwen3-coder.jsonl", Dialect::Qwen3Coder, 60),
        ("vllmmain-seed-oss.jsonl", Dialect::SeedOss, 7),
    ]);
}

/// llama.cpp's chat tests beyond the development set (`tests/test-chat.cpp`, the PEG and auto parsers' tests), each dialect's file.
#[test]
fn llamacpp2_fixtures() {
    run_files(&[
        ("llamacpp2-glm.jsonl", Dialect::Glm, 16),
        ("llamacpp2-hermes.jsonl", Dialect::Hermes, 15),
        ("llamacpp2-minimax-m2.jsonl", Dialect::MinimaxM2, 12),
        ("llamacpp2-qwen3-coder.jsonl", Dialect::Qwen3Coder, 27),
        ("llamacpp2-seed-oss.jsonl", Dialect::SeedOss, 4),
    ]);
}

/// ms-swift's agent-template tests that parse a written response, each dialect's file.
#[test]
fn swift_fixtures() {
    run_files(&[
        ("swift-deepseek-dsml.jsonl", Dialect::DeepseekDsml, 1),
        ("swift-kimi-k3.jsonl", Dialect::KimiK3, 1),
    ]);
}
