//! Raw-text typing (docs/FORMAT.md §5.6): each rule of `arg_types::raw`, pinned.

use arg_types::Value;
use arg_types::raw::{Typed, type_raw, type_raw_arguments};
use serde_json::{Value as Json, json};

fn typed(text: &str, schema: Json) -> Typed {
    type_raw(text, Some(&schema), &json!({}))
}

/// The value, asserting that the text fitted.
fn fits(text: &str, schema: Json) -> Value {
    let t = typed(text, schema.clone());
    assert_eq!(t.mismatch, None, "{text:?} under {schema}");
    t.value
}

/// The reason, asserting that the text was kept as a string.
fn kept(text: &str, schema: Json) -> String {
    let t = typed(text, schema.clone());
    assert_eq!(
        t.value,
        Value::String(text.into()),
        "{text:?} under {schema}"
    );
    t.mismatch
        .unwrap_or_else(|| panic!("{text:?} under {schema}: no mismatch"))
}

fn s(t: &str) -> Value {
    Value::String(t.into())
}

fn json_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

/// Type names that hand-written tool definitions use (`float`, `int`, `bool`, `str`, `dict`,
/// `list`, as vLLM's and MiniMax's parsers read them) name JSON Schema's types; any other name
/// still says nothing (FORMAT §5.6).
#[test]
fn common_type_aliases_name_json_schema_types() {
    assert_eq!(fits("3.25", json!({"type": "float"})), Value::Float(3.25));
    assert_eq!(fits("2.5", json!({"type": "double"})), Value::Float(2.5));
    assert_eq!(fits("42", json!({"type": "int"})), Value::Int(42));
    assert_eq!(fits("true", json!({"type": "bool"})), Value::Bool(true));
    assert_eq!(fits("42", json!({"type": "str"})), s("42"));
    assert_eq!(fits("42", json!({"type": "text"})), s("42"));
    assert_eq!(
        json_text(&fits("{\"a\": 1}", json!({"type": "dict"}))),
        r#"{"a":1}"#
    );
    assert_eq!(json_text(&fits("[1, 2]", json!({"type": "list"}))), "[1,2]");
    assert_eq!(fits("null", json!({"type": ["int", "null"]})), Value::Null);
    kept("many", json!({"type": "int"}));
    // C's and Rust's sized names (SGLang's MiMo parser, vLLM's Qwen3-Coder parser).
    for name in [
        "long", "short", "int32", "int64", "uint", "uint8", "uint32", "uint64",
    ] {
        assert_eq!(fits("42", json!({"type": name})), Value::Int(42), "{name}");
    }
    assert_eq!(fits("2.5", json!({"type": "float64"})), Value::Float(2.5));
    // Not an alias: no type.
    assert_eq!(fits("42", json!({"type": "integer32"})), s("42"));
}

#[test]
fn without_a_schema_the_text_is_a_string() {
    let root = json!({});
    for text in [
        "007",
        "true",
        "null",
        "{\"a\": 1}",
        "[1, 2]",
        " x \n",
        "1.10",
        "",
    ] {
        let t = type_raw(text, None, &root);
        assert_eq!(t, type_raw(text, None, &root));
        assert_eq!((t.value, t.mismatch), (s(text), None), "{text:?}");
    }
    // `{}`, `true` and a type JSON Schema does not define say nothing about the type either.
    for schema in [
        json!({}),
        json!(true),
        json!({"type": "file"}),
        json!({"description": "d"}),
    ] {
        assert_eq!(fits("007", schema), s("007"));
    }
}

#[test]
fn strings_keep_the_text_byte_for_byte() {
    for text in [
        "007",
        "  indented\n\tcode  ",
        "null",
        "None",
        "true",
        "",
        "\n",
        "{'a': 1}",
    ] {
        assert_eq!(fits(text, json!({"type": "string"})), s(text), "{text:?}");
    }
    assert_eq!(
        json_text(&fits("9007199254740993", json!({"type": "string"}))),
        "\"9007199254740993\""
    );
}

#[test]
fn integers_keep_every_digit() {
    let int = || json!({"type": "integer"});
    assert_eq!(fits("3", int()), Value::Int(3));
    assert_eq!(fits(" \n-42\t", int()), Value::Int(-42));
    assert_eq!(fits("1e3", int()), Value::Int(1000));
    assert_eq!(fits("7.0", int()), Value::Int(7));
    for big in [
        "9007199254740993",
        "-9007199254740993",
        "18446744073709551615",
        "1790892345000000001",
        "123456789012345678901234567890",
    ] {
        assert_eq!(json_text(&fits(big, int())), big);
    }
    assert_eq!(kept("1.5", int()), "expected integer: not a whole number");
    assert_eq!(
        kept("1.00000000000000001", int()),
        "expected integer: not a whole number"
    );
    assert_eq!(kept("three", int()), "expected integer");
    assert_eq!(kept("", int()), "expected integer");
}

#[test]
fn numbers() {
    let num = || json!({"type": "number"});
    assert_eq!(fits("42", num()), Value::Int(42));
    assert_eq!(fits("-12.5", num()), Value::Float(-12.5));
    assert_eq!(fits("1.25e3", num()), Value::Float(1250.0));
    assert_eq!(
        fits(" 9007199254740993 ", num()),
        Value::Int(9_007_199_254_740_993)
    );
    assert_eq!(
        json_text(&fits("18446744073709551615", num())),
        "18446744073709551615"
    );
    assert_eq!(
        fits("201.53987407684326", num()),
        Value::Float(201.53987407684326)
    );
    assert_eq!(kept("not-a-number", num()), "expected number");
    assert!(kept("1e999", num()).contains("out of range"));
}

#[test]
fn booleans_in_two_spellings() {
    let b = || json!({"type": "boolean"});
    assert_eq!(fits("true", b()), Value::Bool(true));
    assert_eq!(fits("True", b()), Value::Bool(true));
    assert_eq!(fits("false\n", b()), Value::Bool(false));
    assert_eq!(fits("False", b()), Value::Bool(false));
    for other in ["TRUE", "yes", "1", "0", "t"] {
        assert_eq!(kept(other, b()), "expected boolean", "{other}");
    }
}

#[test]
fn null_and_none_are_null_unless_a_string_is_allowed() {
    for word in ["null", "None", " None\n"] {
        assert_eq!(fits(word, json!({"type": "null"})), Value::Null);
        assert_eq!(
            fits(word, json!({"type": ["integer", "null"]})),
            Value::Null
        );
        assert_eq!(fits(word, json!({"type": ["string", "null"]})), Value::Null);
        assert_eq!(
            fits(
                word,
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
            ),
            Value::Null
        );
        assert_eq!(fits(word, json!({"type": "string"})), s(word));
        assert_eq!(
            fits(
                word,
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
            ),
            s(word)
        );
        // Where the schema allows neither a string nor null: null all the same, reported.
        let t = typed(word, json!({"type": "number"}));
        assert_eq!(t.value, Value::Null);
        assert_eq!(
            t.mismatch.as_deref(),
            Some("null, where the schema asks for number")
        );
    }
    assert_eq!(fits("", json!({"type": "null"})), Value::Null);
    assert_eq!(kept("nil", json!({"type": "null"})), "expected null");
    // A string schema whose enum does not list the word keeps it as text, as any other text it
    // does not list (SGLang's MiniMax-M3 case): reported, never turned into null.
    let modes = || json!({"type": "string", "enum": ["none", "low", "high"]});
    let t = typed("null", modes());
    assert_eq!(t.value, s("null"));
    assert!(t.mismatch.is_some_and(|m| m.starts_with("expected one of")));
    // An enum of numbers allows no string: null, reported.
    assert_eq!(typed("None", json!({"enum": [1, 2]})).value, Value::Null);
}

#[test]
fn objects_and_arrays_read_json_then_python_literals() {
    let obj = || json!({"type": "object"});
    let arr = || json!({"type": "array", "items": {"type": "object"}});
    assert_eq!(fits("{\"a\": 1}", obj()).to_string(), r#"{"a":1}"#);
    assert_eq!(
        fits("{'k': 'v', 'n': None}", obj()).to_string(),
        r#"{"k":"v","n":null}"#
    );
    // A JSON list with a Python-quoted value in it (as a model wrote it).
    let todos = "[\n {\"content\": \"Buy a new car\", \"status\": 'pending'},\n {\"content\": \"Sell the old one\", \"status\": 'done'}\n]";
    assert_eq!(
        fits(todos, arr()).to_string(),
        r#"[{"content":"Buy a new car","status":"pending"},{"content":"Sell the old one","status":"done"}]"#
    );
    assert_eq!(fits("(1, 'a', True)", arr()).to_string(), r#"[1,"a",true]"#);
    assert_eq!(
        fits("[true, null, {\"enabled\": false}]", arr()).to_string(),
        r#"[true,null,{"enabled":false}]"#
    );
    assert_eq!(
        json_text(&fits("[9007199254740993]", arr())),
        "[9007199254740993]"
    );
    // Items are taken as read, not checked against `items`.
    assert_eq!(fits("[1, 2]", arr()).to_string(), "[1,2]");
    assert_eq!(
        kept("[1, 2", arr()),
        "expected array: neither JSON nor a Python literal"
    );
    assert_eq!(kept("{\"a\": 1}", arr()), "expected array");
    assert_eq!(
        kept("not an object", obj()),
        "expected object: neither JSON nor a Python literal"
    );
}

#[test]
fn literals_nest_at_most_128_deep() {
    let arr = || json!({"type": "array"});
    let ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
    assert!(matches!(fits(&ok, arr()), Value::Array(_)));
    let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
    assert_eq!(
        kept(&deep, arr()),
        "expected array: neither JSON nor a Python literal"
    );
    // Hostile depth: an error, not a stack overflow.
    let hostile = "[".repeat(2_000_000);
    assert!(!typed(&hostile, arr()).fits());
}

#[test]
fn alternatives_take_the_first_type_that_accepts() {
    assert_eq!(
        fits("007", json!({"type": ["integer", "string"]})),
        Value::Int(7)
    );
    assert_eq!(
        fits("007", json!({"type": ["string", "integer"]})),
        s("007")
    );
    assert_eq!(fits("x", json!({"type": ["integer", "string"]})), s("x"));
    let cities =
        json!({"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]});
    assert_eq!(fits("[\"NYC\"]", cities.clone()).to_string(), r#"["NYC"]"#);
    assert_eq!(fits("null", cities.clone()), Value::Null);
    let nested = json!({"anyOf": [{"anyOf": [{"type": "null"}, {"anyOf": [
        {"type": "array", "items": {"anyOf": [{"type": "boolean"}, {"type": "null"}, {"type": "object"}]}},
        {"type": "string"}
    ]}]}]});
    assert_eq!(
        fits("[true, null, {\"enabled\": false}]", nested.clone()).to_string(),
        r#"[true,null,{"enabled":false}]"#
    );
    assert_eq!(fits("plain", nested), s("plain"));
    assert_eq!(
        kept(
            "x",
            json!({"oneOf": [{"type": "integer"}, {"type": "boolean"}]})
        ),
        "expected integer or boolean"
    );
    assert_eq!(
        kept("x", json!({"type": ["integer", "boolean"]})),
        "expected integer or boolean"
    );
}

#[test]
fn enum_and_const_are_checked_exactly() {
    let unit = || json!({"type": "string", "enum": ["celsius", "fahrenheit"]});
    assert_eq!(fits("celsius", unit()), s("celsius"));
    assert_eq!(fits("celsius \n", unit()), s("celsius"));
    assert_eq!(
        kept("kelvin", unit()),
        r#"expected one of "celsius", "fahrenheit""#
    );
    let big = || json!({"const": 9007199254740992u64});
    assert_eq!(
        fits("9007199254740992", big()),
        Value::Int(9_007_199_254_740_992)
    );
    assert_eq!(
        fits("9.007199254740992e15", big()),
        Value::Int(9_007_199_254_740_992)
    );
    assert_eq!(kept("9007199254740993", big()), "expected 9007199254740992");
    let mixed = || json!({"enum": ["007", 7, true, null, [1, 2], {"k": 0.5}]});
    assert_eq!(fits("007", mixed()), s("007"));
    assert_eq!(fits("7.0", mixed()), Value::Int(7));
    assert_eq!(fits("True", mixed()), Value::Bool(true));
    assert_eq!(fits("None", mixed()), Value::Null);
    assert_eq!(fits("(1, 2)", mixed()).to_string(), "[1,2]");
    assert_eq!(fits("{'k': 0.50}", mixed()).to_string(), r#"{"k":0.5}"#);
    assert!(kept("[2, 1]", mixed()).starts_with("expected one of"));
    // A listed number or boolean is also a JSON-quoted text's content, as its type reads it
    // (SGLang's GLM-4.7 schema tests); a listed string keeps the quotes.
    let levels = || json!({"type": "number", "enum": [1, 2]});
    assert_eq!(fits("\"1\"", levels()), Value::Int(1));
    assert_eq!(fits(" \"2\" ", levels()), Value::Int(2));
    assert!(kept("\"3\"", levels()).starts_with("expected one of"));
    assert_eq!(fits("\"True\"", mixed()), Value::Bool(true));
    // The quoted text's content is read as the listed number reads it (007 is 7), and a listed
    // string is compared with the text as written, quotes included.
    assert_eq!(fits("\"007\"", mixed()), Value::Int(7));
    assert!(kept("\"celsius\"", unit()).starts_with("expected one of"));
}

#[test]
fn non_strings_are_trimmed_and_json_quoted_scalars_unquoted() {
    assert_eq!(
        fits("\n\t 42 \r\n", json!({"type": "integer"})),
        Value::Int(42)
    );
    assert_eq!(fits("\"42\"", json!({"type": "number"})), Value::Int(42));
    assert_eq!(
        fits("\"true\"", json!({"type": "boolean"})),
        Value::Bool(true)
    );
    assert_eq!(fits("\"42\"", json!({"type": "string"})), s("\"42\""));
    assert_eq!(
        kept("\"4 2\"", json!({"type": "integer"})),
        "expected integer"
    );
}

/// `properties` implies an object and `items` an array when `type` is absent: such a text is
/// read as one; any other text stays a string, which JSON Schema allows.
#[test]
fn implied_types_read_structure_and_reject_nothing() {
    let props = || json!({"properties": {"a": {"type": "integer"}}});
    assert_eq!(fits("{\"a\": 1}", props()).to_string(), r#"{"a":1}"#);
    assert_eq!(fits("x", props()), s("x"));
    let items = || json!({"items": {"type": "string"}});
    assert_eq!(fits("['a']", items()).to_string(), r#"["a"]"#);
    assert_eq!(fits("x", items()), s("x"));
    assert_eq!(fits("x", json!({"const": "x", "properties": {}})), s("x"));
}

#[test]
fn refs_resolve_against_the_root() {
    let root = json!({
        "type": "object",
        "$defs": {"Mode": {"enum": ["fast", "slow"]}, "N": {"type": "integer"}},
        "properties": {"mode": {"$ref": "#/$defs/Mode"}, "n": {"allOf": [{"$ref": "#/$defs/N"}]}}
    });
    let out = type_raw_arguments([("mode", "slow"), ("n", "12")], Some(&root));
    assert_eq!(out.arguments["mode"], s("slow"));
    assert_eq!(out.arguments["n"], Value::Int(12));
    assert!(out.mismatches.is_empty());
    let out = type_raw_arguments([("mode", "medium")], Some(&root));
    assert_eq!(out.arguments["mode"], s("medium"));
    assert_eq!(
        out.mismatches[0].reason,
        r#"expected one of "fast", "slow""#
    );
}

#[test]
fn whole_calls() {
    let schema = json!({
        "type": "object",
        "properties": {
            "location": {"type": "string"},
            "days": {"type": "integer"},
            "dry_run": {"type": "boolean"}
        },
        "required": ["location"]
    });
    let out = type_raw_arguments(
        [
            ("location", "New York"),
            ("days", "x"),
            ("dry_run", "True"),
            ("extra", "42"),
        ],
        Some(&schema),
    );
    assert_eq!(
        Value::Object(out.arguments.clone()).to_string(),
        r#"{"location":"New York","days":"x","dry_run":true,"extra":"42"}"#
    );
    assert_eq!(out.mismatches.len(), 1);
    assert_eq!(
        (
            out.mismatches[0].name.as_str(),
            out.mismatches[0].reason.as_str()
        ),
        ("days", "expected integer")
    );

    // A name given twice: the first position, the last value, reported.
    let out = type_raw_arguments(
        [("days", "1"), ("location", "x"), ("days", "2")],
        Some(&schema),
    );
    assert_eq!(
        out.arguments.keys().collect::<Vec<_>>(),
        ["days", "location"]
    );
    assert_eq!(out.arguments["days"], Value::Int(2));
    assert_eq!(
        out.mismatches[0].reason,
        "given more than once; the last value is kept"
    );

    // `additionalProperties`: a schema types unknown names; `false` keeps them as text, reported.
    let typed_extra = json!({"properties": {}, "additionalProperties": {"type": "integer"}});
    assert_eq!(
        type_raw_arguments([("n", "5")], Some(&typed_extra)).arguments["n"],
        Value::Int(5)
    );
    let closed = json!({"properties": {}, "additionalProperties": false});
    let out = type_raw_arguments([("n", "5")], Some(&closed));
    assert_eq!(out.arguments["n"], s("5"));
    assert_eq!(
        out.mismatches[0].reason,
        "the tool has no parameter of this name; kept as text"
    );

    // No schema: every argument a string.
    let out = type_raw_arguments([("days", "3"), ("flag", "true")], None);
    assert_eq!(out.arguments["days"], s("3"));
    assert_eq!(out.arguments["flag"], s("true"));
}

/// Linear in the number of arguments: 100,000 distinct names under a schema that lists them all
/// (and without one). Quadratic work would take minutes here; no time is asserted.
#[test]
fn a_hundred_thousand_arguments() {
    let n = 100_000;
    let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    let props: serde_json::Map<String, Json> = names
        .iter()
        .map(|k| (k.clone(), json!({"type": "integer"})))
        .collect();
    let schema = json!({"type": "object", "properties": props});
    let texts: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let pairs = || {
        names
            .iter()
            .map(String::as_str)
            .zip(texts.iter().map(String::as_str))
    };
    let out = type_raw_arguments(pairs(), Some(&schema));
    assert_eq!(out.arguments.len(), n);
    assert_eq!(out.arguments["p99999"], Value::Int(99_999));
    assert!(out.mismatches.is_empty());
    let out = type_raw_arguments(pairs(), None);
    assert_eq!(out.arguments["p99999"], s("99999"));
}

/// Linear in the text, however many alternatives: a 4 MB array under 200 `anyOf` branches that
/// all fail is parsed once (as JSON, then as Python), not 200 times.
#[test]
fn many_alternatives_over_a_long_text() {
    let text = format!("[{}0]", "1, ".repeat(1_000_000));
    let branches: Vec<Json> = (0..200)
        .map(|i| json!({"type": "object", "title": i}))
        .collect();
    let t = typed(&text, json!({"anyOf": branches}));
    assert!(!t.fits());
    assert_eq!(t.value, Value::String(text));
}

/// An owned text that the value is takes no copy: whatever path gives the text itself (no
/// schema, `string`, a branch of `anyOf`, a type list, a property the schema does not list, a
/// text that fits nothing), the string is the one handed in; so is an owned name.
#[test]
fn an_owned_text_is_moved_into_its_value() {
    let root = json!({});
    let schemas = [
        None,
        Some(json!({"type": "string"})),
        Some(json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})),
        Some(json!({"type": ["boolean", "string"]})),
        Some(json!({"type": "integer"})),
        Some(json!({})),
    ];
    for schema in &schemas {
        let text = String::from("not a number, long enough to be its own allocation");
        let at = text.as_ptr();
        let t = type_raw(text, schema.as_ref(), &root);
        let Value::String(v) = &t.value else {
            panic!("{schema:?}: {:?}", t.value)
        };
        assert_eq!(v.as_ptr(), at, "{schema:?}: the text was copied");
    }
    let name = String::from("a parameter the schema does not list");
    let text = String::from("some text of the value, long enough");
    let (name_at, text_at) = (name.as_ptr(), text.as_ptr());
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let out = type_raw_arguments([(name, text)], Some(&schema));
    let (k, v) = out.arguments.get_index(0).expect("one argument");
    assert_eq!(k.as_ptr(), name_at);
    assert!(matches!(v, Value::String(v) if v.as_ptr() == text_at));
    // A name given twice is still reported by name.
    let out = type_raw_arguments(
        [("n".to_string(), "1".to_string()), ("n".into(), "2".into())],
        Some(&schema),
    );
    assert_eq!(out.arguments["n"], Value::Int(2));
    assert_eq!(out.mismatches[0].name, "n");
}
