//! Example argument values generated from a tool's input schema, for the example call shown with
//! each tool.
//!
//! Values come, in this order of preference, from `const`, the first `enum` value, a scalar
//! `default` or first `examples` value of the schema's type, and otherwise from the type:
//!
//! - **string**: a plausible value chosen by the parameter's name (then its description and
//!   `format`): `path` → `src/main.rs`, `command` → `cargo build && cargo test`, `content` or
//!   `code` → a short function holding `<`, `>` and `&&`, so that the example shows entity
//!   escaping. `minLength` is met by repeating the value (up to 4096 characters), `maxLength`
//!   by cutting it. The writer puts strings over 1000 characters in CDATA (docs/FORMAT.md §3).
//! - **integer**: 1, or a value fitting the name (`timeout` → 30, `limit` → 10), kept within
//!   `minimum`/`maximum`; **number**: 1.5 likewise; **boolean**: `true`; **null**: `null`.
//! - **array**: two items (within `minItems`/`maxItems`), different where the type allows;
//!   **object**: its properties, required ones first, then the optional ones.
//! - `anyOf`/`oneOf` and `type` lists: the first alternative that is not `null`. Local `$ref`s
//!   are followed and `allOf` merged. Deeply nested or recursive schemas stop with required
//!   members only, then empty arrays.
//!
//! Optional properties whose names are not XML element names are left out (no call could
//! carry them).

use arg_types::json_schema::{
    SchemaDoc, alternatives, item_schema, required, types_with_values, value_type,
};
use arg_types::write::is_element_name;
use arg_types::{Map, Value};
use serde_json::Value as Json;
use std::collections::HashSet;

/// Depth from which optional members are left out and arrays get only `minItems` items.
const SHALLOW_DEPTH: usize = 4;
/// Depth at which generation stops (recursive schemas with required recursion).
const MAX_DEPTH: usize = 12;
/// Longest string generated to meet `minLength`.
const MAX_STRING_CHARS: usize = 4096;
/// Most items generated for one array.
const MAX_ITEMS: usize = 3;

/// Example arguments for a tool: the members of an example value of its input schema (empty
/// when the schema does not describe an object).
///
/// ```
/// use arg_types::Value;
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {
///         "line_start": {"type": "integer", "minimum": 1},
///         "path": {"type": "string"},
///         "mode": {"type": "string", "enum": ["fast", "slow"]}
///     },
///     "required": ["path"]
/// });
/// let args = toolcall_prompt::example_arguments(&schema);
/// let names: Vec<&str> = args.keys().map(String::as_str).collect();
/// assert_eq!(names, ["path", "line_start", "mode"]); // required first
/// assert_eq!(args["path"], Value::String("src/main.rs".into()));
/// assert_eq!(args["line_start"], Value::Int(1));
/// assert_eq!(args["mode"], Value::String("fast".into()));
/// ```
pub fn example_arguments(input_schema: &Json) -> Map {
    let generator = Generator {
        doc: SchemaDoc::new(input_schema),
    };
    let resolved = generator.doc.resolve(input_schema);
    if types_with_values(&resolved).contains(&"object") || resolved.get("properties").is_some() {
        generator.object(&resolved, 0, 0)
    } else {
        Map::new()
    }
}

/// An example value for one schema; `name` is the parameter's name, which chooses plausible
/// strings and numbers.
///
/// ```
/// use arg_types::Value;
/// let v = toolcall_prompt::example_value("exclude", &serde_json::json!({
///     "type": "array", "items": {"type": "string"}}));
/// assert_eq!(v, Value::Array(vec!["node_modules".into(), "target".into()]));
/// ```
pub fn example_value(name: &str, schema: &Json) -> Value {
    let generator = Generator {
        doc: SchemaDoc::new(schema),
    };
    generator.value(name, schema, 0, 0)
}

struct Generator<'a> {
    doc: SchemaDoc<'a>,
}

impl Generator<'_> {
    /// An example for `schema`; `index` is the value's position when it is an array item, so
    /// that items differ.
    fn value(&self, name: &str, schema: &Json, depth: usize, index: usize) -> Value {
        if depth >= MAX_DEPTH {
            return Value::Null;
        }
        let resolved = self.doc.resolve(schema);
        let s = resolved.as_ref();
        if let Some(c) = s.get("const") {
            return Value::from(c);
        }
        if let Some(values) = s.get("enum").and_then(Json::as_array) {
            let pick = values
                .get(index)
                .filter(|v| !v.is_null())
                .or_else(|| values.iter().find(|v| !v.is_null()))
                .or(values.first());
            if let Some(v) = pick {
                return Value::from(v);
            }
        }
        let allowed = types_with_values(s);
        if let Some(v) = given_example(s, &allowed) {
            return v;
        }
        if allowed.is_empty()
            && let Some(alts) = alternatives(s)
        {
            let pick = alts
                .iter()
                .find(|a| !is_null_schema(&self.doc.resolve(a)))
                .or(alts.first());
            if let Some(alt) = pick {
                let v = self.branch(name, s, alt, depth, index);
                let null_allowed = alts.iter().any(|a| is_null_schema(&self.doc.resolve(a)));
                return null_if_empty(v, null_allowed);
            }
        }
        let ty = allowed
            .iter()
            .copied()
            .find(|t| *t != "null")
            .or(allowed.first().copied());
        let v = match ty {
            Some("object") => Value::Object(self.object(s, depth, index)),
            Some("array") => Value::Array(self.array(name, s, depth)),
            Some("integer") => Value::Int(integer_for(name, s, index)),
            Some("number") => number_for(name, s, index),
            Some("boolean") => Value::Bool(index.is_multiple_of(2)),
            Some("null") => Value::Null,
            _ => Value::String(string_for(name, s, index)),
        };
        null_if_empty(v, allowed.contains(&"null"))
    }

    /// An `anyOf`/`oneOf` branch; an inline branch inherits the parent's description, which
    /// chooses plausible strings.
    fn branch(&self, name: &str, parent: &Json, alt: &Json, depth: usize, index: usize) -> Value {
        match (alt, parent.get("description")) {
            (Json::Object(o), Some(d)) if !o.contains_key("description") => {
                let mut alt = o.clone();
                alt.insert("description".into(), d.clone());
                self.value(name, &Json::Object(alt), depth + 1, index)
            }
            _ => self.value(name, alt, depth + 1, index),
        }
    }

    /// The members of an object schema (already resolved): required ones first, in property
    /// order, then the optional ones. `index` is the object's position as an array item, passed
    /// on so that the members of two items differ.
    fn object(&self, s: &Json, depth: usize, index: usize) -> Map {
        let mut out = Map::new();
        let required = required(s);
        // A set: `required` may list tens of thousands of names, each looked up per property.
        let required_set: HashSet<&str> = required.iter().copied().collect();
        let empty = serde_json::Map::new();
        let properties = s
            .get("properties")
            .and_then(Json::as_object)
            .unwrap_or(&empty);
        for (name, schema) in properties {
            if required_set.contains(name.as_str()) {
                out.insert(name.clone(), self.value(name, schema, depth + 1, index));
            }
        }
        for name in &required {
            if !properties.contains_key(*name) && !out.contains_key(*name) {
                let any = Json::Object(serde_json::Map::new());
                let schema = match s.get("additionalProperties") {
                    Some(extra @ Json::Object(_)) => extra,
                    _ => &any,
                };
                out.insert(
                    (*name).to_owned(),
                    self.value(name, schema, depth + 1, index),
                );
            }
        }
        if depth >= SHALLOW_DEPTH {
            return out;
        }
        for (name, schema) in properties {
            if !out.contains_key(name) && is_element_name(name) {
                // An optional empty list or object shows nothing and reads back blind as "".
                match self.value(name, schema, depth + 1, index) {
                    Value::Array(a) if a.is_empty() => {}
                    Value::Object(m) if m.is_empty() => {}
                    v => {
                        out.insert(name.clone(), v);
                    }
                }
            }
        }
        if properties.is_empty()
            && out.is_empty()
            && let Some(extra @ Json::Object(_)) = s.get("additionalProperties")
        {
            out.insert("key".into(), self.value("key", extra, depth + 1, index));
        }
        out
    }

    /// Items of an array schema (already resolved): two, within `minItems` and `maxItems`; one
    /// per `prefixItems` position when there are more.
    fn array(&self, name: &str, s: &Json, depth: usize) -> Vec<Value> {
        let min = bound(s, "minItems").unwrap_or(0).min(MAX_ITEMS);
        let max = bound(s, "maxItems").unwrap_or(usize::MAX);
        let prefix = s
            .get("prefixItems")
            .or_else(|| s.get("items").filter(|i| i.is_array()))
            .and_then(Json::as_array)
            .map_or(0, Vec::len);
        let wanted = if depth >= SHALLOW_DEPTH {
            min
        } else {
            2.max(min).max(prefix.min(MAX_ITEMS))
        };
        let count = wanted.min(max);
        let any = Json::Object(serde_json::Map::new());
        (0..count)
            .filter_map(|i| {
                let item = item_schema(s, i);
                // Past the positions, `items` or `additionalItems` may allow no more items.
                if matches!(item, None | Some(Json::Bool(false)))
                    && prefix > 0
                    && s.get("items").is_some()
                {
                    return None;
                }
                Some(self.value(name, item.unwrap_or(&any), depth + 1, i))
            })
            .collect()
    }
}

/// `null` instead of a value whose written form a `null` alternative would also take: an empty
/// element (`""`, `[]`, `{}`) or the text `null` of a one-item array `[null]`. When the schema
/// allows `null`, such a value may read back as `null`.
fn null_if_empty(v: Value, null_allowed: bool) -> Value {
    let reads_as_null = match &v {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => matches!(a.as_slice(), [] | [Value::Null]),
        Value::Object(m) => m.is_empty(),
        _ => false,
    };
    if reads_as_null && null_allowed {
        Value::Null
    } else {
        v
    }
}

/// A schema that only allows `null`.
fn is_null_schema(s: &Json) -> bool {
    types_with_values(s) == ["null"]
}

/// A non-negative integer keyword (`minItems`, `minLength`, …).
fn bound(s: &Json, key: &str) -> Option<usize> {
    s.get(key)
        .and_then(Json::as_u64)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// A scalar `default` or first `examples` value whose type the schema allows.
fn given_example(s: &Json, allowed: &[&str]) -> Option<Value> {
    let candidates = [
        s.get("default"),
        s.get("examples")
            .and_then(Json::as_array)
            .and_then(|e| e.first()),
    ];
    candidates.into_iter().flatten().find_map(|v| {
        let t = value_type(v);
        let scalar = !matches!(v, Json::Array(_) | Json::Object(_));
        let fits = allowed.is_empty()
            || allowed.contains(&t)
            || (t == "integer" && allowed.contains(&"number"));
        (scalar && fits).then(|| Value::from(v))
    })
}

/// The name's words, lowercase: `line_start` → `line`, `start`; `timeoutSecs` → `timeout`,
/// `secs`. A plural `s` is dropped from words longer than three letters.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if (!c.is_alphanumeric() || (c.is_uppercase() && prev_lower)) && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    for w in &mut out {
        if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
            w.pop();
        }
    }
    out
}

/// Kinds of string parameters with a plausible example each.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum StringKind {
    Url,
    Email,
    Glob,
    Exclude,
    Pattern,
    Command,
    Search,
    Replace,
    Dir,
    Path,
    Code,
    Query,
    Message,
    Language,
    Branch,
    Title,
    Id,
    Name,
    Other,
}

/// Name words that choose a kind, in order of precedence.
const KINDS_BY_WORD: &[(StringKind, &[&str])] = &[
    (StringKind::Url, &["url", "uri", "link", "endpoint", "href"]),
    (StringKind::Email, &["email"]),
    (StringKind::Glob, &["glob", "include"]),
    (StringKind::Exclude, &["exclude", "ignore"]),
    (StringKind::Pattern, &["pattern", "regex", "regexp"]),
    (StringKind::Command, &["command", "cmd", "script", "shell"]),
    (StringKind::Search, &["search", "old", "find", "original"]),
    (StringKind::Replace, &["replace", "replacement", "new"]),
    (
        StringKind::Dir,
        &["dir", "directory", "folder", "cwd", "workdir"],
    ),
    (StringKind::Path, &["path", "file", "filename", "filepath"]),
    (
        StringKind::Code,
        &[
            "content", "code", "source", "body", "text", "snippet", "diff", "patch",
        ],
    ),
    (StringKind::Query, &["query", "question", "prompt", "q"]),
    (
        StringKind::Message,
        &[
            "message", "result", "summary", "reason", "comment", "note", "answer",
        ],
    ),
    (StringKind::Language, &["language", "lang"]),
    (StringKind::Branch, &["branch"]),
    (StringKind::Title, &["title", "subject"]),
    (StringKind::Id, &["id", "uuid"]),
    (StringKind::Name, &["name"]),
];

fn string_kind(name: &str, s: &Json) -> StringKind {
    let w = words(name);
    let has = |word: &str| w.iter().any(|x| x == word);
    // `file_pattern` is a glob, not a regular expression.
    if has("file") && has("pattern") {
        return StringKind::Glob;
    }
    match s.get("format").and_then(Json::as_str) {
        Some("uri" | "url" | "iri" | "uri-reference") => return StringKind::Url,
        Some("email") => return StringKind::Email,
        _ => {}
    }
    let description = s
        .get("description")
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_lowercase();
    if let Some((kind, _)) = KINDS_BY_WORD
        .iter()
        .find(|(_, words)| words.iter().any(|x| has(x)))
    {
        // A `path` described as a folder is one.
        let folder = ["folder", "directory"]
            .iter()
            .any(|w| description.contains(w));
        return match kind {
            StringKind::Path if folder => StringKind::Dir,
            other => *other,
        };
    }
    let by_description: &[(StringKind, &[&str])] = &[
        (StringKind::Url, &["url"]),
        (StringKind::Pattern, &["regular expression", "regex"]),
        (StringKind::Glob, &["glob"]),
        (StringKind::Command, &["command"]),
        (StringKind::Dir, &["directory", "folder"]),
        (StringKind::Path, &["path", "file"]),
        (StringKind::Code, &["code", "content"]),
    ];
    by_description
        .iter()
        .find(|(_, needles)| needles.iter().any(|n| description.contains(n)))
        .map_or(StringKind::Other, |(kind, _)| *kind)
}

/// Two plausible values per kind: an array's items take them in turn.
fn samples(kind: StringKind) -> [&'static str; 2] {
    match kind {
        StringKind::Url => ["https://example.com/docs", "https://example.com/api"],
        StringKind::Email => ["dev@example.com", "ops@example.com"],
        StringKind::Glob => ["*.rs", "*.toml"],
        StringKind::Exclude => ["node_modules", "target"],
        StringKind::Pattern => ["fn \\w+\\(", "TODO|FIXME"],
        StringKind::Command => ["cargo build && cargo test", "ls -la"],
        StringKind::Search => ["if a < b && ok {", "let x = 1;"],
        StringKind::Replace => ["if a <= b && ok {", "let x = 2;"],
        StringKind::Dir => ["src", "tests"],
        StringKind::Path => ["src/main.rs", "src/lib.rs"],
        StringKind::Code => [
            "fn check(a: i32, b: i32) -> bool {\n    a < b && b < 10\n}",
            "x < y && y > 0",
        ],
        StringKind::Query => ["where is the config loaded", "error handling"],
        StringKind::Message => ["Added the check and its test.", "Fixed the typo."],
        StringKind::Language => ["rust", "python"],
        StringKind::Branch => ["main", "dev"],
        StringKind::Title => ["Fix the parser", "Add a test"],
        StringKind::Id => ["abc123", "def456"],
        StringKind::Name => ["example", "example-2"],
        StringKind::Other => ["example", "example 2"],
    }
}

fn string_for(name: &str, s: &Json, index: usize) -> String {
    let [first, second] = samples(string_kind(name, s));
    let mut out = String::from(if index.is_multiple_of(2) {
        first
    } else {
        second
    });
    match s.get("format").and_then(Json::as_str) {
        Some("date") => out = "2024-05-01".into(),
        Some("date-time") => out = "2024-05-01T12:00:00Z".into(),
        Some("uuid") => out = "123e4567-e89b-12d3-a456-426614174000".into(),
        _ => {}
    }
    let min = bound(s, "minLength").unwrap_or(0).min(MAX_STRING_CHARS);
    let len = out.chars().count();
    if len < min {
        let seed = out.clone();
        while out.chars().count() < min {
            out.push('\n');
            out.push_str(&seed);
        }
        out = out.chars().take(min).collect();
    }
    if let Some(max) = bound(s, "maxLength")
        && out.chars().count() > max
    {
        out = out.chars().take(max).collect();
    }
    out
}

/// A numeric bound of the schema as `f64`.
fn number_bound(s: &Json, key: &str) -> Option<f64> {
    s.get(key).and_then(Json::as_f64).filter(|f| f.is_finite())
}

/// `base` moved into the schema's `minimum`/`maximum` (exclusive bounds by `step`).
fn clamp(base: f64, s: &Json, step: f64) -> f64 {
    let mut v = base;
    let lows = [
        number_bound(s, "minimum"),
        number_bound(s, "exclusiveMinimum").map(|m| m + step),
    ];
    let highs = [
        number_bound(s, "maximum"),
        number_bound(s, "exclusiveMaximum").map(|m| m - step),
    ];
    for high in highs.into_iter().flatten() {
        v = v.min(high);
    }
    for low in lows.into_iter().flatten() {
        v = v.max(low);
    }
    v
}

fn integer_for(name: &str, s: &Json, index: usize) -> i64 {
    let w = words(name);
    let has = |options: &[&str]| w.iter().any(|x| options.contains(&x.as_str()));
    let base: i64 = if has(&["timeout", "sec", "second", "secs"]) {
        30
    } else if has(&["port"]) {
        8080
    } else if has(&["limit", "max", "count", "top", "size", "result"]) {
        10
    } else if has(&["end", "last", "stop"]) {
        40
    } else {
        1
    };
    let step = i64::try_from(index).unwrap_or(0);
    let v = clamp(base.saturating_add(step) as f64, s, 1.0);
    let v = if v.fract() != 0.0 { v.ceil() } else { v };
    // `as` saturates; a bound beyond i64 gives i64::MIN or MAX, still an integer.
    v as i64
}

fn number_for(name: &str, s: &Json, index: usize) -> Value {
    let w = words(name);
    let base = if w.iter().any(|x| x == "temperature") {
        0.5
    } else {
        1.5
    };
    Value::Float(clamp(base + index as f64, s, 0.5))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words_split_snake_camel_and_plurals() {
        assert_eq!(words("line_start"), ["line", "start"]);
        assert_eq!(words("timeoutSecs"), ["timeout", "sec"]);
        assert_eq!(words("file-pattern"), ["file", "pattern"]);
        assert_eq!(words("paths"), ["path"]);
        assert_eq!(words("class"), ["class"]);
        assert_eq!(words("URL"), ["url"]);
    }

    #[test]
    fn strings_are_chosen_by_name_format_and_description() {
        let plain = json!({"type": "string"});
        let cases = [
            ("path", &plain, "src/main.rs"),
            ("file_path", &plain, "src/main.rs"),
            ("working_dir", &plain, "src"),
            ("command", &plain, "cargo build && cargo test"),
            ("file_pattern", &plain, "*.rs"),
            ("pattern", &plain, "fn \\w+\\("),
            ("old_string", &plain, "if a < b && ok {"),
            ("new_string", &plain, "if a <= b && ok {"),
            (
                "homepage",
                &json!({"type": "string", "format": "uri"}),
                "https://example.com/docs",
            ),
            (
                "target",
                &json!({"type": "string", "description": "Path of the file"}),
                "src/main.rs",
            ),
            (
                "path",
                &json!({"type": "string", "description": "Folder to list"}),
                "src",
            ),
            (
                "x",
                &json!({"type": "string", "format": "date"}),
                "2024-05-01",
            ),
            ("whatever", &plain, "example"),
        ];
        for (name, schema, expected) in cases {
            assert_eq!(
                example_value(name, schema),
                Value::String(expected.into()),
                "{name}"
            );
        }
        let code = example_value("content", &plain);
        let code = code.as_str().unwrap();
        assert!(
            code.contains('<') && code.contains('>') && code.contains("&&"),
            "{code}"
        );
    }

    #[test]
    fn string_lengths_are_met() {
        let long = example_value("content", &json!({"type": "string", "minLength": 1500}));
        assert_eq!(long.as_str().map(|s| s.chars().count()), Some(1500));
        let huge = example_value("content", &json!({"type": "string", "minLength": u64::MAX}));
        assert_eq!(
            huge.as_str().map(|s| s.chars().count()),
            Some(MAX_STRING_CHARS)
        );
        let short = example_value("path", &json!({"type": "string", "maxLength": 3}));
        assert_eq!(short, Value::String("src".into()));
    }

    #[test]
    fn numbers_respect_bounds_and_names() {
        let int = |name: &str, s: Json| example_value(name, &s);
        assert_eq!(int("n", json!({"type": "integer"})), Value::Int(1));
        assert_eq!(
            int("n", json!({"type": "integer", "minimum": 5})),
            Value::Int(5)
        );
        assert_eq!(
            int("n", json!({"type": "integer", "exclusiveMinimum": 5})),
            Value::Int(6)
        );
        assert_eq!(
            int("n", json!({"type": "integer", "maximum": -3})),
            Value::Int(-3)
        );
        assert_eq!(
            int("n", json!({"type": "integer", "minimum": 0.5})),
            Value::Int(1)
        );
        assert_eq!(
            int("n", json!({"type": "integer", "minimum": 1e300})),
            Value::Int(i64::MAX)
        );
        assert_eq!(
            int("timeout_secs", json!({"type": "integer"})),
            Value::Int(30)
        );
        assert_eq!(
            int("max_results", json!({"type": "integer", "maximum": 5})),
            Value::Int(5)
        );
        assert_eq!(int("line_end", json!({"type": "integer"})), Value::Int(40));
        assert_eq!(int("x", json!({"type": "number"})), Value::Float(1.5));
        assert_eq!(
            int("x", json!({"type": "number", "maximum": 1})),
            Value::Float(1.0)
        );
        assert_eq!(
            int("temperature", json!({"type": "number"})),
            Value::Float(0.5)
        );
    }

    #[test]
    fn enums_consts_defaults_and_examples() {
        let v = |s: Json| example_value("x", &s);
        assert_eq!(
            v(json!({"type": "string", "enum": ["b", "a"]})),
            Value::String("b".into())
        );
        assert_eq!(v(json!({"enum": [null, 3]})), Value::Int(3));
        assert_eq!(v(json!({"const": "fixed"})), Value::String("fixed".into()));
        assert_eq!(v(json!({"type": "integer", "default": 7})), Value::Int(7));
        assert_eq!(v(json!({"type": "integer", "default": "7"})), Value::Int(1));
        assert_eq!(v(json!({"type": "number", "default": 2})), Value::Int(2));
        assert_eq!(
            v(json!({"type": "string", "examples": ["hello"]})),
            Value::String("hello".into())
        );
        assert_eq!(v(json!({"type": "boolean"})), Value::Bool(true));
        assert_eq!(v(json!({"type": "null"})), Value::Null);
    }

    #[test]
    fn arrays_give_distinct_items_within_bounds() {
        let v = |s: Json| example_value("tags", &s);
        assert_eq!(
            v(json!({"type": "array", "items": {"type": "integer"}})),
            Value::Array(vec![Value::Int(1), Value::Int(2)])
        );
        assert_eq!(
            v(json!({"type": "array", "items": {"type": "boolean"}, "maxItems": 1})),
            Value::Array(vec![Value::Bool(true)])
        );
        assert_eq!(
            v(json!({"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 3})),
            Value::Array(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(
            v(
                json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}], "items": false})
            ),
            Value::Array(vec!["example".into(), Value::Int(2), Value::Bool(true)])
        );
        assert_eq!(
            v(json!({"type": "array", "items": {"type": "array", "items": {"type": "integer"}}})),
            Value::Array(vec![
                Value::Array(vec![Value::Int(1), Value::Int(2)]),
                Value::Array(vec![Value::Int(1), Value::Int(2)])
            ])
        );
    }

    #[test]
    fn no_items_where_the_schema_allows_none() {
        let v = |s: Json| example_value("tags", &s);
        let one = Value::Array(vec!["example".into()]);
        assert_eq!(
            v(json!({"type": "array", "items": [{"type": "string"}], "additionalItems": false})),
            one
        );
        assert_eq!(
            v(json!({"type": "array", "prefixItems": [{"type": "string"}], "items": false})),
            one
        );
    }

    #[test]
    fn alternatives_skip_null() {
        let v = |s: Json| example_value("path", &s);
        assert_eq!(
            v(json!({"type": ["null", "string"]})),
            Value::String("src/main.rs".into())
        );
        assert_eq!(
            v(json!({"anyOf": [{"type": "null"}, {"type": "integer"}]})),
            Value::Int(1)
        );
        assert_eq!(
            v(json!({"description": "a file", "oneOf": [{"type": "string"}]})),
            Value::String("src/main.rs".into())
        );
        // Values whose written form a `null` alternative would also read become `null`.
        assert_eq!(
            v(json!({"anyOf": [{"type": "null"}, {"type": "object", "properties": {}}]})),
            Value::Null
        );
        assert_eq!(
            v(
                json!({"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "null"}, "maxItems": 1}]})
            ),
            Value::Null
        );
        assert_eq!(
            v(json!({"type": ["string", "null"], "maxLength": 0})),
            Value::Null
        );
    }

    #[test]
    fn recursive_schemas_end() {
        let tree = json!({
            "$defs": {"node": {"type": "object", "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
            }, "required": ["name"]}},
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/node"}},
            "required": ["root"]
        });
        let args = example_arguments(&tree);
        let mut depth = 0;
        let mut node = &args["root"];
        while let Some(Value::Array(children)) = node.get("children") {
            assert_eq!(children.len(), 2);
            node = &children[0];
            depth += 1;
        }
        assert!(depth > 0 && depth < MAX_DEPTH, "{depth}");
        let forced = json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}, "required": ["next"]}},
                            "$ref": "#/$defs/n"});
        let args = example_arguments(&forced);
        assert!(args.contains_key("next"));
    }

    #[test]
    fn objects_put_required_first_and_skip_unwritable_optional_names() {
        let s = json!({"type": "object", "properties": {
            "b": {"type": "integer"}, "a b": {"type": "string"}, "c": {"type": "string"}
        }, "required": ["c"]});
        let args = example_arguments(&s);
        let names: Vec<_> = args.keys().map(String::as_str).collect();
        assert_eq!(names, ["c", "b"]);
        let env = example_value(
            "env",
            &json!({"type": "object", "additionalProperties": {"type": "string"}}),
        );
        assert_eq!(env.get("key"), Some(&Value::String("example".into())));
        assert!(example_arguments(&json!({"type": "string"})).is_empty());
        assert!(example_arguments(&json!(true)).is_empty());
    }
}
