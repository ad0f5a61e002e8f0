//! Schema-guided coercion over trees parsed from real argument XML.

use arg_types::schema::{coerce_arguments, coerce_arguments_all, coerce_element};
use arg_types::{Map, Value};
use serde_json::{Value as Json, json};
use xml_fallback::tree::{Element, Node};

fn parse(xml: &str) -> Element {
    xml_fallback::parse_document(xml)
        .unwrap_or_else(|e| panic!("{xml}: {e}"))
        .value
}

fn coerce(xml: &str, schema: &Json) -> Map {
    coerce_arguments(&parse(xml), schema, Some(xml)).unwrap_or_else(|e| panic!("{xml}: {e}"))
}

fn error(xml: &str, schema: &Json) -> String {
    match coerce_arguments(&parse(xml), schema, Some(xml)) {
        Ok(m) => panic!("{xml}: expected an error, got {}", Value::Object(m)),
        Err(e) => e.to_string(),
    }
}

fn props(p: Json) -> Json {
    json!({"type": "object", "properties": p})
}

fn s(t: &str) -> Value {
    Value::String(t.into())
}

#[test]
fn string_keeps_the_exact_text_where_inference_would_not() {
    let schema = props(json!({
        "a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"},
        "d": {"type": "string"}, "e": {"type": "string"}
    }));
    let m = coerce(
        "<arguments><a>007</a><b>1.10</b><c> true </c><d></d><e>\n    indented\n  </e></arguments>",
        &schema,
    );
    assert_eq!(m["a"], s("007"));
    assert_eq!(m["b"], s("1.10"));
    assert_eq!(m["c"], s("true"));
    assert_eq!(m["d"], s(""));
    assert_eq!(m["e"], s("    indented"));
}

#[test]
fn string_with_child_elements_is_the_inner_markup() {
    let schema = props(json!({"html": {"type": "string"}}));
    let xml = "<arguments><html>\n  <p class='x'>a &amp; <b>b</b></p>\n</html></arguments>";
    let mut args = parse(xml);
    // Without a span: canonical markup.
    let m = coerce_arguments(&args, &schema, Some(xml)).unwrap();
    assert_eq!(m["html"], s("  <p class=\"x\">a &amp; <b>b</b></p>"));
    // With the span the parser records: verbatim.
    let start = xml.find("<html>").unwrap() + "<html>".len();
    let end = xml.find("</html>").unwrap();
    if let Some(Node::Element(html)) = args.children.first_mut() {
        html.content_span = Some(start..end);
    }
    let m = coerce_arguments(&args, &schema, Some(xml)).unwrap();
    assert_eq!(m["html"], s("  <p class='x'>a &amp; <b>b</b></p>"));
    // The span is ignored without the source.
    let m = coerce_arguments(&args, &schema, None).unwrap();
    assert_eq!(m["html"], s("  <p class=\"x\">a &amp; <b>b</b></p>"));
}

#[test]
fn integers() {
    let schema = props(json!({"n": {"type": "integer"}}));
    let one = |t: &str| coerce(&format!("<arguments><n>{t}</n></arguments>"), &schema)["n"].clone();
    assert_eq!(one("007"), Value::Int(7));
    assert_eq!(one(" -3 "), Value::Int(-3));
    assert_eq!(one("+3"), Value::Int(3));
    assert_eq!(one("7.0"), Value::Int(7));
    assert_eq!(one("7."), Value::Int(7));
    assert_eq!(one("1e3"), Value::Int(1000));
    assert_eq!(one("<![CDATA[42]]>"), Value::Int(42));
    assert_eq!(one("9223372036854775807"), Value::Int(i64::MAX));
    // Beyond i64: every digit kept, in JSON output too.
    let big = one("-00123456789012345678901234567890");
    assert_eq!(big.to_string(), "-123456789012345678901234567890");
    assert_eq!(
        serde_json::to_string(&big).unwrap(),
        "-123456789012345678901234567890"
    );
    assert_eq!(one("9223372036854775808"), Value::from(1u64 << 63));
    // Exponent and fraction forms are read exactly, never through f64.
    assert_eq!(
        one("9.007199254740993e15"),
        Value::Int(9_007_199_254_740_993)
    );
    assert_eq!(one("1.5e1"), Value::Int(15));
    assert_eq!(one("-0.0"), Value::Int(0));
    assert_eq!(one("1e20").to_string(), "100000000000000000000");
    let err = |t: &str| error(&format!("<arguments><n>{t}</n></arguments>"), &schema);
    assert_eq!(
        err("1.5"),
        r#"argument "n": expected integer, found "1.5": not a whole number"#
    );
    assert_eq!(
        err("1.00000000000000001"),
        r#"argument "n": expected integer, found "1.00000000000000001": not a whole number"#
    );
    assert_eq!(
        err("9007199254740993e-1"),
        r#"argument "n": expected integer, found "9007199254740993e-1": not a whole number"#
    );
    assert_eq!(
        err("1e1000"),
        r#"argument "n": expected integer, found "1e1000": out of range for an exact integer"#
    );
    assert_eq!(one("1e999").to_string().len(), 1000);
    assert_eq!(err("ten"), r#"argument "n": expected integer, found "ten""#);
    assert_eq!(
        err(""),
        r#"argument "n": expected integer, found an empty element"#
    );
    assert_eq!(
        err("<x>1</x>"),
        r#"argument "n": expected integer, found an element with child elements <x>"#
    );
    assert_eq!(
        err("NaN"),
        r#"argument "n": expected integer, found "NaN": not a whole number"#
    );
}

#[test]
fn numbers() {
    let schema = props(json!({"x": {"type": "number"}}));
    let one = |t: &str| coerce(&format!("<arguments><x>{t}</x></arguments>"), &schema)["x"].clone();
    assert_eq!(one("1.10"), Value::Float(1.1));
    assert_eq!(one("5"), Value::Int(5));
    assert_eq!(one("5.0"), Value::Float(5.0));
    assert_eq!(one("-Inf"), Value::Float(f64::NEG_INFINITY));
    // Integers of any size keep every digit; other numbers are the nearest f64.
    assert_eq!(
        one("18446744073709551616").to_string(),
        "18446744073709551616"
    );
    assert_eq!(one("9007199254740993"), Value::Int(9_007_199_254_740_993));
    assert_eq!(one("201.53987407684326"), Value::Float(201.53987407684326));
    assert_eq!(one("1.25e3"), Value::Float(1250.0));
    assert!(error("<arguments><x>1e999</x></arguments>", &schema).contains("out of range"));
    assert!(error("<arguments><x>inf</x></arguments>", &schema).contains("expected number"));
}

#[test]
fn booleans_and_null() {
    let schema = props(json!({"b": {"type": "boolean"}, "z": {"type": "null"}}));
    for (t, want) in [("TRUE", true), ("false", false), ("1", true), ("0", false)] {
        let m = coerce(&format!("<arguments><b>{t}</b></arguments>"), &schema);
        assert_eq!(m["b"], Value::Bool(want), "{t}");
    }
    assert_eq!(
        error("<arguments><b>yes</b></arguments>", &schema),
        r#"argument "b": expected boolean, found "yes""#
    );
    assert_eq!(
        coerce("<arguments><z>NULL</z></arguments>", &schema)["z"],
        Value::Null
    );
    assert_eq!(
        coerce("<arguments><z/></arguments>", &schema)["z"],
        Value::Null
    );
    assert!(error("<arguments><z>0</z></arguments>", &schema).contains("expected null"));
}

#[test]
fn nullable_type_lists() {
    let schema =
        props(json!({"v": {"type": ["string", "null"]}, "w": {"type": ["null", "string"]}}));
    let m = coerce("<arguments><v>null</v><w>text</w></arguments>", &schema);
    assert_eq!(m["v"], Value::Null);
    assert_eq!(m["w"], s("text"));
    // CDATA is quoting: the string "null".
    let m = coerce("<arguments><v><![CDATA[null]]></v></arguments>", &schema);
    assert_eq!(m["v"], s("null"));
    // An empty element: the first type in the list that takes it.
    let m = coerce("<arguments><v></v><w></w></arguments>", &schema);
    assert_eq!(m["v"], s(""));
    assert_eq!(m["w"], Value::Null);
    let schema = props(json!({"n": {"type": ["integer", "string"]}}));
    let m = coerce("<arguments><n>007</n></arguments>", &schema);
    assert_eq!(m["n"], Value::Int(7), "the order given decides");
    assert_eq!(
        error("<arguments><n>a</n><n>b</n></arguments>", &schema),
        r#"argument "n": expected integer or string, found 2 <n> elements"#
    );
}

fn edits_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"search": {"type": "string"}, "replace": {"type": "string"}},
                    "required": ["search", "replace"]
                }
            }
        },
        "required": ["path", "edits"]
    })
}

#[test]
fn a_wrapper_of_one_name_is_an_array_of_objects() {
    let xml = "<arguments>
  <path>src/app.ts</path>
  <edits>
    <edit><search>true</search><replace>007</replace></edit>
    <edit><search><![CDATA[a && b]]></search><replace>1.10</replace></edit>
  </edits>
</arguments>";
    let m = coerce(xml, &edits_schema());
    let edits = m["edits"].as_array().unwrap();
    assert_eq!(edits.len(), 2);
    assert_eq!(edits[0].get("search"), Some(&s("true")));
    assert_eq!(edits[0].get("replace"), Some(&s("007")));
    assert_eq!(edits[1].get("search"), Some(&s("a && b")));
    assert_eq!(edits[1].get("replace"), Some(&s("1.10")));
}

#[test]
fn one_item_arrays() {
    let schema = edits_schema();
    // A wrapper holding one item.
    let m = coerce(
        "<arguments><path>p</path><edits><edit><search>a</search><replace>b</replace></edit></edits></arguments>",
        &schema,
    );
    assert_eq!(m["edits"].as_array().unwrap().len(), 1);
    // The item itself, no wrapper: two child names, so not a wrapper.
    let m = coerce(
        "<arguments><path>p</path><edits><search>a</search><replace>b</replace></edits></arguments>",
        &schema,
    );
    assert_eq!(
        m["edits"].as_array().unwrap()[0].get("replace"),
        Some(&s("b"))
    );
    // The item itself with one child whose name the item schema knows: one item, not a wrapper.
    let loose = json!({"type": "object", "properties": {"edits": {"type": "array", "items": {
        "type": "object", "properties": {"search": {"type": "string"}}}}}});
    let m = coerce(
        "<arguments><edits><search>a</search></edits></arguments>",
        &loose,
    );
    assert_eq!(
        m["edits"],
        Value::Array(vec![Value::Object(Map::from([("search".into(), s("a"))]))])
    );
    // Repeated siblings are the items.
    let m = coerce(
        "<arguments><edits><search>a</search></edits><edits><search>b</search></edits></arguments>",
        &loose,
    );
    assert_eq!(m["edits"].as_array().unwrap().len(), 2);
}

#[test]
fn scalar_arrays() {
    let schema = props(json!({"exclude": {"type": "array", "items": {"type": "string"}}}));
    let m = coerce("<arguments><exclude>007</exclude></arguments>", &schema);
    assert_eq!(m["exclude"], Value::Array(vec![s("007")]));
    let m = coerce(
        "<arguments><exclude>a</exclude><other>1</other><exclude>true</exclude></arguments>",
        &schema,
    );
    assert_eq!(m["exclude"], Value::Array(vec![s("a"), s("true")]));
    assert_eq!(
        m["other"],
        Value::Int(1),
        "undescribed arguments are inferred blind"
    );
    let m = coerce(
        "<arguments><exclude><p>a</p><p>b</p></exclude></arguments>",
        &schema,
    );
    assert_eq!(m["exclude"], Value::Array(vec![s("a"), s("b")]));
    let m = coerce("<arguments><exclude/></arguments>", &schema);
    assert_eq!(m["exclude"], Value::Array(vec![]));
    let ints = props(json!({"n": {"type": "array", "items": {"type": "integer"}}}));
    assert_eq!(
        error("<arguments><n>1</n><n>x</n></arguments>", &ints),
        r#"argument "n[1]": expected integer, found "x""#
    );
}

#[test]
fn nested_arrays_and_prefix_items() {
    let schema = props(
        json!({"m": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}}),
    );
    let m = coerce(
        "<arguments><m><item><item>1</item><item>2</item></item><item><item>3</item></item></m></arguments>",
        &schema,
    );
    assert_eq!(
        m["m"],
        Value::Array(vec![
            Value::Array(vec![1.into(), 2.into()]),
            Value::Array(vec![3.into()])
        ])
    );
    let tuple = props(
        json!({"t": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}}),
    );
    let m = coerce("<arguments><t>01</t><t>01</t></arguments>", &tuple);
    assert_eq!(m["t"], Value::Array(vec![s("01"), Value::Int(1)]));
}

#[test]
fn errors_name_the_path() {
    let xml = "<arguments><path>p</path><edits>
      <edit><search>a</search><replace>b</replace></edit>
      <edit><search><x>1</x></search></edit>
    </edits></arguments>";
    let mut schema = edits_schema();
    schema["properties"]["edits"]["items"]["properties"]["search"] = json!({"type": "integer"});
    let errors = coerce_arguments_all(&parse(xml), &schema, Some(xml)).unwrap_err();
    let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        [
            r#"argument "edits[0].search": expected integer, found "a""#,
            r#"argument "edits[1].search": expected integer, found an element with child elements <x>"#,
            r#"argument "edits[1].replace": expected string, found nothing: the argument is required"#,
        ]
    );
    assert_eq!(errors[1].path, "edits[1].search");
    assert_eq!(errors[1].expected, "integer");
}

#[test]
fn required_and_additional_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"path": {"type": "string"}, "mode": {"enum": ["r", "w"]}},
        "required": ["path"],
        "additionalProperties": false
    });
    assert_eq!(
        error("<arguments></arguments>", &schema),
        r#"argument "path": expected string, found nothing: the argument is required"#
    );
    assert_eq!(
        error(
            "<arguments><path>p</path><extra>1</extra></arguments>",
            &schema
        ),
        r#"argument "extra": expected no argument of this name, found <extra>: allowed: path, mode"#
    );
    let typed_extra = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let m = coerce("<arguments><a>1</a><b>true</b></arguments>", &typed_extra);
    assert_eq!(m["a"], s("1"));
    assert_eq!(m["b"], s("true"));
    let blind = json!({"type": "object"});
    let m = coerce("<arguments><a>1</a><b>true</b></arguments>", &blind);
    assert_eq!(m["a"], Value::Int(1));
    assert_eq!(m["b"], Value::Bool(true));
}

#[test]
fn objects_keep_document_order_and_reject_text() {
    let schema = props(json!({"o": {"type": "object", "properties": {"a": {"type": "integer"}}}}));
    let m = coerce("<arguments><o><z>x</z><a>1</a></o></arguments>", &schema);
    let keys: Vec<&String> = m["o"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["z", "a"]);
    assert_eq!(
        coerce("<arguments><o/></arguments>", &schema)["o"],
        Value::Object(Map::new())
    );
    assert_eq!(
        error("<arguments><o>text</o></arguments>", &schema),
        r#"argument "o": expected object, found "text""#
    );
    assert_eq!(
        error("<arguments><o>text<a>1</a></o></arguments>", &schema),
        r#"argument "o": expected object, found an element with child elements <a>: text is mixed with the elements"#
    );
}

#[test]
fn enums_and_const() {
    let schema = props(json!({
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "code": {"enum": ["007", 7, true]},
        "k": {"const": "x"}
    }));
    let m = coerce(
        "<arguments><mode>fast</mode><level>02</level><code>007</code><k>x</k></arguments>",
        &schema,
    );
    assert_eq!(m["mode"], s("fast"));
    assert_eq!(m["level"], Value::Int(2));
    assert_eq!(
        m["code"],
        s("007"),
        "the string candidate comes first and matches exactly"
    );
    assert_eq!(m["k"], s("x"));
    let m = coerce("<arguments><code>7.0</code></arguments>", &schema);
    assert_eq!(m["code"], Value::Int(7));
    let m = coerce("<arguments><code>TRUE</code></arguments>", &schema);
    assert_eq!(m["code"], Value::Bool(true));
    assert_eq!(
        error("<arguments><mode>medium</mode></arguments>", &schema),
        r#"argument "mode": expected one of "fast", "slow", found "medium""#
    );
    assert_eq!(
        error("<arguments><level>x</level></arguments>", &schema),
        r#"argument "level": expected one of 1, 2, 3, found "x""#
    );
    assert_eq!(
        error("<arguments><k>y</k></arguments>", &schema),
        r#"argument "k": expected "x", found "y""#
    );
    let floats = props(json!({"f": {"type": "number", "enum": [1.5, 2]}}));
    assert_eq!(
        coerce("<arguments><f>2.0</f></arguments>", &floats)["f"],
        Value::Float(2.0)
    );
    assert_eq!(
        coerce("<arguments><f>15e-1</f></arguments>", &floats)["f"],
        Value::Float(1.5)
    );
}

/// `enum` and `const` numbers compare exactly by decimal value, never through f64: the value
/// written is checked, and a listed value is never replaced by a neighbour.
#[test]
fn enum_and_const_numbers_compare_exactly() {
    let schema = props(json!({
        "typed": {"type": "integer", "const": 9007199254740992u64},
        "untyped": {"const": 9007199254740992u64},
        "num": {"type": "number", "enum": [0.1, 9007199254740993u64]},
        "any": {"enum": [9007199254740993u64, "x"]},
        "big": {"const": 18446744073709551615u64},
    }));
    let one = |name: &str, t: &str| {
        coerce(
            &format!("<arguments><{name}>{t}</{name}></arguments>"),
            &schema,
        )[name]
            .clone()
    };
    let rejected = |name: &str, t: &str| {
        let e = error(
            &format!("<arguments><{name}>{t}</{name}></arguments>"),
            &schema,
        );
        assert!(e.contains("expected "), "{name}={t}: {e}");
    };
    assert_eq!(
        one("typed", "9007199254740992"),
        Value::Int(9_007_199_254_740_992)
    );
    rejected("typed", "9007199254740993");
    assert_eq!(
        one("untyped", "9007199254740992"),
        Value::Int(9_007_199_254_740_992)
    );
    assert_eq!(
        one("untyped", "9.007199254740992e15"),
        Value::Int(9_007_199_254_740_992)
    );
    rejected("untyped", "9007199254740993");
    rejected("untyped", "9007199254740992.0000001");
    assert_eq!(one("num", "0.10"), Value::Float(0.1));
    rejected("num", "0.1000000000000000055511151231257827");
    assert_eq!(
        one("num", "9007199254740993"),
        Value::Int(9_007_199_254_740_993)
    );
    rejected("num", "9007199254740992");
    assert_eq!(
        one("any", "9007199254740993"),
        Value::Int(9_007_199_254_740_993)
    );
    rejected("any", "9007199254740994");
    assert_eq!(one("big", "18446744073709551615"), Value::from(u64::MAX));
    rejected("big", "18446744073709551614");
    // Numbers inside listed arrays and objects compare exactly too.
    let nested = props(json!({"a": {"enum": [[9007199254740993u64], {"k": 1.5}]}}));
    assert_eq!(
        coerce("<arguments><a>9007199254740993</a></arguments>", &nested)["a"],
        Value::Array(vec![Value::Int(9_007_199_254_740_993)])
    );
    assert!(error("<arguments><a>9007199254740992</a></arguments>", &nested).contains("expected"));
    assert_eq!(
        coerce("<arguments><a><k>1.50</k></a></arguments>", &nested)["a"].get("k"),
        Some(&Value::Float(1.5))
    );
}

#[test]
fn any_of_takes_the_first_branch_that_fits() {
    let schema = props(json!({
        "v": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "o": {"oneOf": [{"type": "null"}, {"type": "boolean"}]},
        "p": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
    }));
    let m = coerce(
        "<arguments><v>42</v><o>true</o><p>null</p></arguments>",
        &schema,
    );
    assert_eq!(m["v"], Value::Int(42));
    assert_eq!(m["o"], Value::Bool(true));
    assert_eq!(m["p"], Value::Null);
    let m = coerce("<arguments><v>4x</v><p>nullable</p></arguments>", &schema);
    assert_eq!(m["v"], s("4x"));
    assert_eq!(m["p"], s("nullable"));
    assert_eq!(
        error("<arguments><o>maybe</o></arguments>", &schema),
        r#"argument "o": expected null or boolean, found "maybe""#
    );
}

/// FORMAT §5.3: the branches of an object that declare every member are tried first, so a
/// member only a later branch names is typed by it (smg's MiniMax-M3 suite, nested composite
/// property schemas); with no branch declaring them all, the first that fits still wins.
#[test]
fn members_choose_the_object_branch() {
    let schema = props(json!({"nested": {"type": "object", "oneOf": [
        {"properties": {"string_list": {"type": "array", "items": {"type": "string"}}}},
        {"properties": {"number_list": {"type": "array", "items": {"type": "number"}}}}
    ]}}));
    let m = coerce(
        "<arguments><nested><number_list><item>12</item><item>34</item></number_list></nested></arguments>",
        &schema,
    );
    assert_eq!(m["nested"].to_string(), r#"{"number_list":[12,34]}"#);
    let m = coerce(
        "<arguments><nested><string_list><item>12</item></string_list></nested></arguments>",
        &schema,
    );
    assert_eq!(m["nested"].to_string(), r#"{"string_list":["12"]}"#);
    let m = coerce(
        "<arguments><nested><other>7</other></nested></arguments>",
        &schema,
    );
    assert_eq!(m["nested"].to_string(), r#"{"other":7}"#);
}

/// FORMAT §5.3: a root schema whose properties are in `anyOf`/`oneOf` branches types the
/// arguments by the branch that names each (it was read as a schema with no properties, so
/// `n` was inferred and `tags` read blind).
#[test]
fn root_alternatives_type_the_arguments() {
    let schema = json!({"type": "object", "anyOf": [{"properties": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "n": {"type": "string"}
    }}]});
    let m = coerce(
        "<arguments><tags><item>1</item><item>2</item></tags><n>5</n></arguments>",
        &schema,
    );
    assert_eq!(m["tags"].to_string(), r#"["1","2"]"#);
    assert_eq!(m["n"], s("5"));
    let raw = arg_types::raw::type_raw_arguments(
        [("n", "5")],
        Some(&json!({"oneOf": [
        {"$ref": "#/$defs/b"}], "$defs": {"b": {"properties": {"n": {"type": "integer"}}}}})),
    );
    assert_eq!(raw.arguments["n"], Value::Int(5));
}

#[test]
fn any_of_reports_the_branch_that_got_deepest() {
    let schema = props(json!({"e": {"anyOf": [
        {"type": "object", "properties": {"line": {"type": "integer"}}, "required": ["line"]},
        {"type": "null"}
    ]}}));
    assert_eq!(
        error("<arguments><e><line>x</line></e></arguments>", &schema),
        r#"argument "e.line": expected integer, found "x""#
    );
    assert_eq!(
        error("<arguments><e>x</e></arguments>", &schema),
        r#"argument "e": expected object or null, found "x""#
    );
}

/// FORMAT §5.3: a reference's fragment is percent-decoded before it is read as a JSON Pointer
/// (RFC 6901 §6), `~1`/`~0` escapes after; an undecodable one resolves to nothing (accepts
/// anything). Dynamo's GLM and Qwen3-Coder suites: `#/$defs/postal%20code` was never resolved.
#[test]
fn percent_encoded_references_resolve() {
    let schema = json!({
        "$defs": {"a b": {"type": "integer"}, "café+": {"type": "integer"}, "a/b~c": {"type": "integer"}},
        "properties": {
            "x": {"$ref": "#/$defs/a%20b"},
            "y": {"$ref": "#/$defs/caf%c3%a9+"},
            "z": {"$ref": "#/$defs/a%7E1b%7E0c"},
            "w": {"$ref": "#/$defs/%FF"}
        }
    });
    let m = coerce(
        "<arguments><x>42</x><y>7</y><z>1</z><w>007</w></arguments>",
        &schema,
    );
    assert_eq!(m["x"], Value::Int(42));
    assert_eq!(m["y"], Value::Int(7));
    assert_eq!(m["z"], Value::Int(1));
    assert_eq!(m["w"], Value::Int(7), "unresolved: inferred blind");
}

/// FORMAT §5.3: `type`s that meet (`allOf` parts, a `$ref` and its siblings, an `anyOf`
/// branch and the keywords beside it) are intersected, so a value fits them all: a branch the
/// sibling `type` rules out fits nothing, and types with nothing in common allow no value.
/// OpenAPI's `nullable: true` adds `null`. Dynamo's GLM, Qwen3-Coder and MiniMax-M3 suites.
#[test]
fn meeting_types_intersect_and_nullable_adds_null() {
    let schema = json!({
        "$defs": {"scalar": {"type": ["string", "integer"]}},
        "properties": {
            "sibling": {"type": "string", "anyOf": [{"minLength": 1}, {"type": "null"}]},
            "all": {"allOf": [{"type": ["string", "null"]}, {"type": "string"}]},
            "narrowed": {"$ref": "#/$defs/scalar", "allOf": [{"type": "integer"}]},
            "number_then_integer": {"allOf": [{"type": "number"}, {"type": "integer"}]},
            "nullable": {"type": "string", "nullable": true},
            "never": {"allOf": [{"type": "string"}, {"type": "integer"}]}
        }
    });
    let m = coerce(
        "<arguments><sibling>null</sibling><all>null</all><narrowed>42</narrowed>\
         <number_then_integer>7</number_then_integer><nullable>null</nullable></arguments>",
        &schema,
    );
    assert_eq!(m["sibling"], s("null"));
    assert_eq!(m["all"], s("null"));
    assert_eq!(m["narrowed"], Value::Int(42));
    assert_eq!(m["number_then_integer"], Value::Int(7));
    assert_eq!(m["nullable"], Value::Null);
    assert!(error("<arguments><never>x</never></arguments>", &schema).contains("never"));
    // Raw text is typed by the same reading.
    let root = json!({"properties": {
        "sibling": {"type": "string", "anyOf": [{"minLength": 1}, {"type": "null"}]},
        "nullable": {"type": "integer", "nullable": true}
    }});
    let raw = arg_types::raw::type_raw_arguments(
        [("sibling", "null"), ("nullable", "null")],
        Some(&root),
    );
    assert_eq!(raw.arguments["sibling"], s("null"));
    assert_eq!(raw.arguments["nullable"], Value::Null);
}

#[test]
fn refs_and_all_of() {
    // pydantic v2 style: $defs and $ref; v1 style: definitions and allOf with one $ref.
    let schema = json!({
        "type": "object",
        "$defs": {"Edit": {"type": "object", "properties": {"search": {"type": "string"}}}},
        "definitions": {"Mode": {"type": "string", "enum": ["a", "b"]}},
        "properties": {
            "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}},
            "mode": {"allOf": [{"$ref": "#/definitions/Mode"}], "description": "the mode"},
            "both": {"allOf": [
                {"properties": {"x": {"type": "string"}}, "required": ["x"]},
                {"properties": {"y": {"type": "integer"}}, "required": ["y"]}
            ]}
        }
    });
    let m = coerce(
        "<arguments><edits><edit><search>1</search></edit><edit><search>2</search></edit></edits>\
         <mode>b</mode><both><x>1</x><y>1</y></both></arguments>",
        &schema,
    );
    assert_eq!(
        m["edits"].get_index(1).and_then(|e| e.get("search")),
        Some(&s("2"))
    );
    assert_eq!(m["mode"], s("b"));
    assert_eq!(m["both"].get("x"), Some(&s("1")));
    assert_eq!(m["both"].get("y"), Some(&Value::Int(1)));
    assert_eq!(
        error("<arguments><both><x>1</x></both></arguments>", &schema),
        r#"argument "both.y": expected integer, found nothing: the argument is required"#
    );
}

#[test]
fn recursive_schemas_terminate() {
    let tree = json!({
        "type": "object",
        "$defs": {"Node": {"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        }}},
        "properties": {"root": {"$ref": "#/$defs/Node"}}
    });
    let m = coerce(
        "<arguments><root><name>1</name><children><name>2</name></children></root></arguments>",
        &tree,
    );
    let child = &m["root"]
        .get("children")
        .and_then(|c| c.get_index(0))
        .cloned();
    assert_eq!(child.as_ref().and_then(|c| c.get("name")), Some(&s("2")));
    for schema in [
        json!({"$ref": "#"}),
        json!({"anyOf": [{"$ref": "#"}]}),
        json!({"properties": {"a": {"$ref": "#/properties/a"}}}),
        json!({"properties": {"a": {"anyOf": [{"$ref": "#/properties/a"}]}}}),
        json!({"properties": {"a": {"$ref": "#/nowhere"}}}),
    ] {
        // Whatever the answer, it comes without overflowing the stack.
        let _ = coerce_arguments(&parse("<arguments><a>1</a></arguments>"), &schema, None);
    }
}

#[test]
fn trivial_schemas() {
    let xml = "<arguments><a>1</a></arguments>";
    assert_eq!(coerce(xml, &json!({}))["a"], Value::Int(1));
    assert_eq!(coerce(xml, &json!(true))["a"], Value::Int(1));
    assert_eq!(
        error(xml, &json!(false)),
        r#"arguments: expected no arguments, found arguments: the tool takes none"#
    );
    let never = props(json!({"a": false}));
    assert_eq!(
        error(xml, &never),
        r#"argument "a": expected nothing, found "1": no value is allowed here"#
    );
    let unknown_type = props(json!({"a": {"type": "file"}}));
    assert_eq!(coerce(xml, &unknown_type)["a"], Value::Int(1));
}

#[test]
fn coerce_element_roots_paths_at_the_element_name() {
    let e = parse("<edit><line>x</line></edit>");
    let schema = json!({"type": "object", "properties": {"line": {"type": "integer"}}});
    let err = coerce_element(&e, &schema, None).unwrap_err();
    assert_eq!(err.path, "edit.line");
    let v = coerce_element(&parse("<n>007</n>"), &json!({"type": "string"}), None).unwrap();
    assert_eq!(v, s("007"));
}

#[test]
fn self_referring_any_of_ends_with_an_error_not_a_hang() {
    // Each level offers two branches back to itself: without a work bound this doubles at every
    // one of the 256 levels the depth limit allows.
    let schema = json!({"type": "object", "properties": {"a": {"anyOf": [
        {"$ref": "#/properties/a"}, {"$ref": "#/properties/a"}
    ]}}});
    let mut args = Element::new("arguments");
    args.children
        .push(Node::Element(Element::with_text("a", "1")));
    let started = std::time::Instant::now();
    let err = coerce_arguments(&args, &schema, None).unwrap_err();
    assert!(err.path.starts_with('a'), "{err}");
    // Not a timing assertion on speed, a guard against the exponential case coming back.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

/// `properties` (or `required`, `additionalProperties`) imply an object and `items` an array
/// when `type` is absent: they say how to read an element that has that structure, but reject
/// nothing else, as JSON Schema applies them to objects and arrays only; listed values are
/// checked by value.
#[test]
fn schemas_without_type() {
    let one = |schema: Json, inner: &str| {
        let s = props(json!({"p": schema}));
        coerce(&format!("<arguments><p>{inner}</p></arguments>"), &s)["p"].clone()
    };
    // Once "expected \"x\", found \"x\"".
    assert_eq!(one(json!({"enum": ["x"], "properties": {}}), "x"), s("x"));
    assert_eq!(one(json!({"const": "x", "items": {}}), "x"), s("x"));
    assert_eq!(
        one(
            json!({"anyOf": [{"const": "x"}], "properties": {"a": {}}}),
            "x"
        ),
        s("x")
    );
    // The structure is still read through the implied type.
    let obj = json!({"properties": {"a": {"type": "string"}}, "required": ["a"]});
    assert_eq!(one(obj.clone(), "<a>007</a>").get("a"), Some(&s("007")));
    assert_eq!(
        error(
            "<arguments><p></p></arguments>",
            &props(json!({"p": obj.clone()}))
        ),
        r#"argument "p.a": expected string, found nothing: the argument is required"#
    );
    assert_eq!(one(obj.clone(), "x"), s("x"));
    assert_eq!(one(obj.clone(), "42"), Value::Int(42));
    let arr = json!({"items": {"type": "string"}});
    assert_eq!(one(arr.clone(), "007"), Value::Array(vec![s("007")]));
    // With an explicit type the type is required.
    let typed = json!({"type": "object", "properties": {}});
    let e = error(
        "<arguments><p>x</p></arguments>",
        &props(json!({"p": typed})),
    );
    assert_eq!(e, r#"argument "p": expected object, found "x""#);
}

/// The one rule of an empty element (`xml_fallback::text::is_empty_element`, docs/FORMAT.md §2)
/// where coercion reads "nothing": `[]`, `{}`, `null`. Attributes and CDATA are content, so an
/// element holding only attributes (which coercion does not read) is not taken for nothing.
#[test]
fn empty_elements_follow_the_one_rule() {
    let schema = props(json!({
        "a": {"type": "array", "items": {"type": "string"}},
        "o": {"type": "object"},
        "z": {"type": "null"}
    }));
    let m = coerce("<arguments><a>\n</a><o/><z> </z></arguments>", &schema);
    assert_eq!(m["a"], Value::Array(vec![]));
    assert_eq!(m["o"], Value::Object(Map::new()));
    assert_eq!(m["z"], Value::Null);
    // An attribute: one (empty) item, not `[]`; an error, not `{}` or `null`.
    let m = coerce("<arguments><a kind=\"x\"/></arguments>", &schema);
    assert_eq!(m["a"], Value::Array(vec![s("")]));
    assert_eq!(
        error("<arguments><o kind=\"x\" id=\"2\"/></arguments>", &schema),
        r#"argument "o": expected object, found an element with attributes only (kind, id)"#
    );
    assert!(error("<arguments><z kind=\"x\"/></arguments>", &schema).contains("expected null"));
    // CDATA, even empty, is a string written on purpose.
    let m = coerce("<arguments><a><![CDATA[]]></a></arguments>", &schema);
    assert_eq!(m["a"], Value::Array(vec![s("")]));
    assert!(error("<arguments><z><![CDATA[]]></z></arguments>", &schema).contains("expected null"));
}

/// Work linear in the number of names (issue 14 item 4): 100,000 distinct argument names read
/// through a schema that lists them all, blind, and on the error paths (every name unknown,
/// every required name missing). Quadratic work would take minutes here; no time is asserted
/// (`tree::tests::grouping_is_linear_in_the_number_of_names` counts the comparisons).
#[test]
fn a_hundred_thousand_argument_names() {
    let n = 100_000;
    let mut args = Element::new("arguments");
    let mut properties = serde_json::Map::new();
    for i in 0..n {
        let name = format!("p{i}");
        args.children.push(Node::Element(Element::with_text(
            name.clone(),
            i.to_string(),
        )));
        properties.insert(name, json!({"type": "integer"}));
    }
    let names: Vec<Json> = properties.keys().map(|k| json!(k)).collect();
    let schema = json!({"type": "object", "properties": properties, "required": names});
    let m = coerce_arguments(&args, &schema, None).unwrap();
    assert_eq!(m.len(), n);
    assert_eq!(m["p99999"], Value::Int(99_999));
    let blind = arg_types::tree::arguments_from_element(&args);
    assert_eq!(blind, m);

    // Every name unknown: one short error each.
    let closed = json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false});
    let errors = coerce_arguments_all(&args, &closed, None).unwrap_err();
    assert_eq!(errors.len(), n);
    assert_eq!(errors[7].message, "allowed: a");
    // Every required name missing: one error each.
    let errors = coerce_arguments_all(&Element::new("arguments"), &schema, None).unwrap_err();
    assert_eq!(errors.len(), n);
    // A schema listing 100,000 allowed names keeps each message short.
    let mut other = args.clone();
    other
        .children
        .push(Node::Element(Element::with_text("extra", "1")));
    let strict = json!({"type": "object", "properties": schema["properties"].clone(), "additionalProperties": false});
    let errors = coerce_arguments_all(&other, &strict, None).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].message.ends_with(", …") && errors[0].message.len() < 200);
}
