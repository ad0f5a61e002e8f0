//! `PreparedSchema`, a tool's input schema read once, answers as the schema itself does: the
//! same typed arguments and mismatches as `type_raw_arguments`, the same property schemas as
//! `SchemaDoc::property`, over schemas built from every keyword the typing reads (references,
//! `allOf`, branches at the root, `enum`, `const`, type lists and aliases, `nullable`,
//! `additionalProperties`) and texts of every kind; and the same coerced arguments (or the
//! same errors) as `coerce_arguments` over element trees of every shape.

use arg_types::json_schema::{PreparedSchema, SchemaDoc, types};
use arg_types::raw::type_raw_arguments;
use arg_types::schema::coerce_arguments_all;
use proptest::prelude::*;
use serde_json::{Value as Json, json};
use xml_fallback::tree::{Element, Node};

const NAMES: [&str; 6] = ["a", "b", "c", "path", "n", "zz"];

/// A property's schema: every shape the raw typing reads differently.
fn arb_property() -> impl Strategy<Value = Json> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "str"})),
        Just(json!({"type": "string", "description": "free text"})),
        Just(json!({"type": "string", "enum": ["x", "007"]})),
        Just(json!({"type": "string", "const": "x"})),
        Just(json!({"type": "string", "nullable": true})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": ["string", "integer"]})),
        Just(json!({"type": "integer"})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": "null"})),
        Just(json!({"type": "array"})),
        Just(json!({"type": "object"})),
        Just(json!({"anyOf": [{"type": "string"}]})),
        Just(json!({"oneOf": [{"type": "integer"}, {"type": "string"}]})),
        Just(json!({"enum": ["a", 1]})),
        Just(json!({"$ref": "#/$defs/s"})),
        Just(json!({"$ref": "#/$defs/i"})),
        Just(json!({"$ref": "#/$defs/loop"})),
        Just(json!({"$ref": "#/nowhere", "type": "string"})),
        Just(json!({"allOf": [{"type": "string"}, {"maxLength": 3}]})),
        Just(json!({"allOf": [{"type": "string"}, {"type": "integer"}]})),
        Just(json!({"properties": {}})),
        Just(json!({})),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!("not a schema")),
    ]
}

fn arb_properties() -> impl Strategy<Value = serde_json::Map<String, Json>> {
    proptest::collection::vec((0..NAMES.len(), arb_property()), 0..5).prop_map(|ps| {
        ps.into_iter()
            .map(|(i, p)| (NAMES[i].to_string(), p))
            .collect()
    })
}

/// A tool's input schema: own properties, perhaps behind a reference or `allOf`, perhaps with
/// branches that declare more, and any `additionalProperties`.
fn arb_root() -> impl Strategy<Value = Json> {
    (
        arb_properties(),
        arb_properties(),
        0..4usize,
        0..5usize,
        any::<bool>(),
    )
        .prop_map(|(own, branch, shape, extra, object_type)| {
            let defs = json!({
                "s": {"type": "string"},
                "i": {"type": "integer"},
                "loop": {"$ref": "#/$defs/loop"},
                "own": {"properties": own.clone()},
            });
            let mut root = serde_json::Map::new();
            root.insert("$defs".into(), defs);
            if object_type {
                root.insert("type".into(), json!("object"));
            }
            match shape {
                0 => {
                    root.insert("properties".into(), Json::Object(own));
                }
                1 => {
                    root.insert("$ref".into(), json!("#/$defs/own"));
                }
                2 => {
                    root.insert(
                        "allOf".into(),
                        json!([{"properties": own}, {"required": ["a"]}]),
                    );
                }
                _ => {
                    root.insert("properties".into(), json!(["not", "an", "object"]));
                }
            }
            if !branch.is_empty() {
                root.insert(
                    "anyOf".into(),
                    json!([{"properties": branch}, {"oneOf": [{"properties": {"zz": {"type": "integer"}}}]}]),
                );
            }
            match extra {
                0 => {}
                1 => {
                    root.insert("additionalProperties".into(), json!(false));
                }
                2 => {
                    root.insert("additionalProperties".into(), json!(true));
                }
                3 => {
                    root.insert("additionalProperties".into(), json!({"type": "integer"}));
                }
                _ => {
                    root.insert("additionalProperties".into(), json!({"$ref": "#/$defs/s"}));
                }
            }
            Json::Object(root)
        })
}

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("007".to_string()),
        Just(" x ".to_string()),
        Just("x".to_string()),
        Just("null".to_string()),
        Just("None".to_string()),
        Just("True".to_string()),
        Just("3".to_string()),
        Just("-1.5e3".to_string()),
        Just("[1, 'a']".to_string()),
        Just("{\"k\": null}".to_string()),
        Just(String::new()),
        "[a-z0-9 <>&\"'\\[\\]{}]{0,12}",
    ]
}

fn arb_args() -> impl Strategy<Value = Vec<(String, String)>> {
    proptest::collection::vec(
        (0..NAMES.len(), arb_text()).prop_map(|(i, t)| (NAMES[i].to_string(), t)),
        0..6,
    )
}

/// One argument element: a leaf of text, of CDATA, empty, of text and CDATA, or holding
/// elements (an object, a wrapper of items, markup beside text).
fn arb_argument() -> impl Strategy<Value = Element> {
    (0..NAMES.len(), arb_text(), 0..6usize).prop_map(|(i, text, shape)| {
        let name = NAMES[i];
        let mut e = Element::new(name);
        match shape {
            0 | 1 => e.children.push(Node::Text(text)),
            2 => e.children.push(Node::CData(text)),
            3 => {}
            4 => {
                e.children.push(Node::Text(text.clone()));
                e.children.push(Node::CData(text));
            }
            _ => {
                e.children
                    .push(Node::Element(Element::with_text("k", &text)));
                e.children.push(Node::Element(Element::with_text("k", "2")));
            }
        }
        e
    })
}

fn arb_tree() -> impl Strategy<Value = Element> {
    proptest::collection::vec(arb_argument(), 0..6).prop_map(|args| {
        let mut e = Element::new("arguments");
        e.children = args.into_iter().map(Node::Element).collect();
        e
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Coercion through the prepared schema is coercion through the schema: the same map, or
    /// the same errors in the same order.
    #[test]
    fn prepared_coercion_is_coercion_by_the_schema(root in arb_root(), tree in arb_tree()) {
        let prepared = PreparedSchema::new(root.clone());
        let by_schema = coerce_arguments_all(&tree, &root, None);
        prop_assert_eq!(prepared.coerce_arguments_all(&tree, None), by_schema);
    }

    /// Typing through the prepared schema is typing through the schema: the same values, the
    /// same mismatches in the same order, for borrowed and for owned texts.
    #[test]
    fn prepared_typing_is_typing_by_the_schema(root in arb_root(), args in arb_args()) {
        let prepared = PreparedSchema::new(root.clone());
        let borrowed = || args.iter().map(|(n, t)| (n.as_str(), t.as_str()));
        let by_schema = type_raw_arguments(borrowed(), Some(&root));
        prop_assert_eq!(&prepared.type_raw_arguments(borrowed()), &by_schema);
        prop_assert_eq!(prepared.type_raw_arguments(args.clone()), by_schema);
    }

    /// One argument typed alone is typed as in a call of that one argument, with a schema and
    /// without.
    #[test]
    fn one_argument_is_typed_as_a_call_of_it(root in arb_root(), args in arb_args()) {
        let prepared = PreparedSchema::new(root.clone());
        for (name, text) in &args {
            let alone = prepared.type_raw_argument(name, text.as_str());
            let in_a_call = type_raw_arguments([(name.as_str(), text.as_str())], Some(&root));
            prop_assert_eq!(&alone, &in_a_call.arguments[name.as_str()]);
            prop_assert_eq!(prepared.type_raw_argument(name, text.clone()), alone);
            let blind = arg_types::raw::type_raw(text.as_str(), None, &Json::Null).value;
            let blind_call = type_raw_arguments([(name.as_str(), text.as_str())], None);
            prop_assert_eq!(&blind, &blind_call.arguments[name.as_str()]);
        }
    }

    /// Each name's schema, whether it is one, and whether it is a string's, are the schema's.
    #[test]
    fn prepared_lookups_are_the_schemas(root in arb_root()) {
        let prepared = PreparedSchema::new(root.clone());
        let doc = SchemaDoc::new(&root);
        for name in NAMES {
            let expected = doc.property(&root, name);
            prop_assert_eq!(prepared.property(name), expected.clone(), "{}", name);
            prop_assert_eq!(prepared.has_property(name), expected.is_some(), "{}", name);
            let expected_types = expected.as_deref().map(types);
            let got = prepared.types(name).map(|t| t.into_owned());
            let string = expected.is_some_and(|p| {
                let t = types(&p);
                t.contains(&"string") && t.iter().all(|t| *t == "string" || *t == "null")
            });
            let own = doc.own_property(&root, name).is_some();
            if own || !prepared.has_alternatives() {
                prop_assert_eq!(got, expected_types, "{}", name);
                prop_assert_eq!(prepared.is_string(name), string, "{}", name);
            } else {
                // Declared by the root's branches: the types of all their declarations together
                // (none when one allows anything), so text only when all of them say text.
                let got = got.unwrap_or_default();
                let first = expected_types.unwrap_or_default();
                prop_assert!(got.is_empty() || first.iter().all(|t| got.contains(t)), "{}", name);
                prop_assert!(!prepared.is_string(name) || string, "{}", name);
            }
        }
        let resolved = doc.resolve(&root);
        prop_assert_eq!(prepared.additional_properties(), resolved.get("additionalProperties"));
    }
}

/// The case the preparation is for: a plain string property's value is its text, byte for
/// byte, with no mismatch, whatever the text holds; one with an `enum` is still checked.
#[test]
fn a_plain_string_property_is_its_text() {
    let root =
        json!({"properties": {"p": {"type": "string"}, "e": {"type": "string", "enum": ["x"]}}});
    let prepared = PreparedSchema::new(root);
    let out = prepared.type_raw_arguments([("p", " null "), ("e", " x ")]);
    assert_eq!(
        out.arguments["p"],
        arg_types::Value::String(" null ".into())
    );
    assert_eq!(out.arguments["e"], arg_types::Value::String("x".into()));
    assert!(out.mismatches.is_empty());
    let out = prepared.type_raw_arguments([("e", "y")]);
    assert_eq!(out.mismatches.len(), 1);
}
