//! Property tests: examples generated from any well-formed schema parse back to their values
//! through that schema; any JSON at all, taken as a schema, never makes the generator or the
//! describer panic.

use proptest::prelude::*;
use serde_json::{Value as Json, json};
use std::sync::Arc;
use toolcall_parser::{ParseOptions, ToolSchemas};
use toolcall_prompt::{ToolDef, describe_tool, example_arguments, example_call};

/// Property names: XML names, including words the generator gives meaning to.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("path".to_owned()),
        Just("content".to_owned()),
        Just("command".to_owned()),
        Just("line_end".to_owned()),
        Just("file_pattern".to_owned()),
        "[a-z][a-z_]{0,6}".prop_filter("`item` is the writer's wrapper name", |n| n != "item"),
    ]
}

fn leaf() -> impl Strategy<Value = Json> {
    prop_oneof![
        Just(json!({"type": "string"})),
        (0u64..1300).prop_map(|n| json!({"type": "string", "minLength": n})),
        (1u64..20).prop_map(|n| json!({"type": "string", "maxLength": n})),
        prop::collection::vec("[a-z0-9]{1,5}", 1..4)
            .prop_map(|v| json!({"type": "string", "enum": v})),
        Just(json!({"type": "string", "format": "uri"})),
        Just(json!({"type": "integer"})),
        (-50i64..50, 0i64..50)
            .prop_map(|(lo, span)| json!({"type": "integer", "minimum": lo, "maximum": lo + span})),
        Just(json!({"type": "number"})),
        (-5.0f64..5.0).prop_map(|lo| json!({"type": "number", "minimum": lo})),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": "null"})),
        Just(json!({"enum": [3, "three", true]})),
        Just(json!({"const": "1.10"})),
        Just(json!({"type": "integer", "default": 42})),
    ]
}

/// Schemas of every shape, arrays and objects with or without `type` (`items` alone means an
/// array, `properties` alone an object).
fn schema() -> impl Strategy<Value = Json> {
    leaf().prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            (inner.clone(), 0u64..4, any::<bool>()).prop_map(|(items, min, typed)| typed_or_not(
                json!({"type": "array", "items": items, "minItems": min}),
                typed
            )),
            (inner.clone(), 1u64..3, any::<bool>()).prop_map(|(items, max, typed)| typed_or_not(
                json!({"type": "array", "items": items, "maxItems": max}),
                typed
            )),
            object(inner.clone()),
            inner
                .clone()
                .prop_map(|s| json!({"anyOf": [{"type": "null"}, s]})),
            inner.prop_map(|s| json!({"$defs": {"d": s}, "$ref": "#/$defs/d"})),
        ]
    })
}

/// `schema` without its `type` keyword when `typed` is false.
fn typed_or_not(mut schema: Json, typed: bool) -> Json {
    if !typed && let Some(o) = schema.as_object_mut() {
        o.remove("type");
    }
    schema
}

/// Object schemas, half of them without `type`.
fn object(inner: impl Strategy<Value = Json>) -> impl Strategy<Value = Json> {
    (
        prop::collection::vec((name(), inner, any::<bool>()), 0..5),
        any::<bool>(),
    )
        .prop_map(|(members, typed)| {
            let mut properties = serde_json::Map::new();
            let mut required = Vec::new();
            for (n, s, req) in members {
                if req && !properties.contains_key(&n) {
                    required.push(Json::String(n.clone()));
                }
                properties.insert(n, s);
            }
            typed_or_not(
                json!({"type": "object", "properties": properties, "required": required}),
                typed,
            )
        })
}

/// Any JSON, with the keywords the generator reads appearing often.
fn any_json() -> impl Strategy<Value = Json> {
    let key = prop_oneof![
        Just("type".to_owned()),
        Just("properties".to_owned()),
        Just("items".to_owned()),
        Just("prefixItems".to_owned()),
        Just("required".to_owned()),
        Just("enum".to_owned()),
        Just("const".to_owned()),
        Just("default".to_owned()),
        Just("anyOf".to_owned()),
        Just("allOf".to_owned()),
        Just("$ref".to_owned()),
        Just("minLength".to_owned()),
        Just("maxItems".to_owned()),
        Just("minimum".to_owned()),
        Just("additionalProperties".to_owned()),
        "[a-z ]{1,4}",
    ];
    let scalar = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<f64>().prop_map(|f| json!(f)),
        prop_oneof![
            Just("object".to_owned()),
            Just("array".to_owned()),
            Just("string".to_owned()),
            Just("#".to_owned()),
            Just("#/properties/a".to_owned()),
            ".{0,6}",
        ]
        .prop_map(Json::String),
    ];
    scalar.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
            prop::collection::vec((key.clone(), inner), 0..5)
                .prop_map(|kv| Json::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The example the prompt shows parses, and coerced under the tool's schema gives the
    /// example's values: for schemas with and without `type` (FORMAT.md §5.3: `properties`
    /// means an object, `items` an array).
    #[test]
    fn examples_parse_back_through_their_schema(root in object(schema())) {
        let tool = ToolDef::new("t", "A tool.", root.clone());
        let expected = example_arguments(&root);
        let xml = example_call(&tool).expect("generated names are XML names");
        // Parsed blind, the example is one call without errors.
        let blind = toolcall_parser::parse(&xml);
        prop_assert!(blind.errors().is_empty(), "{:?}\n{}", blind.errors(), xml);
        prop_assert_eq!(blind.calls().len(), 1);
        // Coerced under the schema, it gives exactly the example's values.
        let mut schemas = ToolSchemas::default();
        schemas.insert("t", root.clone());
        let options = ParseOptions::default().with_schemas(Arc::new(schemas));
        let r = toolcall_parser::parse_with(&xml, &options);
        prop_assert!(r.errors().is_empty(), "{:?}\n{}\n{}", r.errors(), xml, root);
        prop_assert_eq!(r.calls().len(), 1);
        prop_assert_eq!(&r.calls()[0].arguments, &expected, "{}\n{}", xml, root);
        prop_assert!(describe_tool(&tool).contains(&xml));
    }

    #[test]
    fn any_json_as_a_schema_never_panics(schema in any_json()) {
        let _ = example_arguments(&schema);
        let tool = ToolDef::new("t", "", schema);
        let text = describe_tool(&tool);
        prop_assert!(text.starts_with("### t\n"));
        if let Ok(xml) = example_call(&tool) {
            // Whatever the schema, the example is one well-formed call.
            let r = toolcall_parser::parse(&xml);
            prop_assert!(r.errors().is_empty(), "{:?}\n{}", r.errors(), xml);
            prop_assert_eq!(r.calls().len(), 1);
        }
    }
}
