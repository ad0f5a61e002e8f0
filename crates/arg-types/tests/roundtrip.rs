//! Property tests: written values read back equal (blind where that is possible, through a
//! schema derived from the value always); inference never panics; the JSON mapping round-trips.

use arg_types::schema::coerce_arguments;
use arg_types::tree::arguments_from_element;
use arg_types::write::write_arguments;
use arg_types::{Map, Value, from_value, infer_scalar};
use proptest::prelude::*;
use serde_json::{Value as Json, json};

/// `==` (NaN equals NaN, `-0.0` does not equal `0.0`), and object members in the same order.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        _ => a == b,
    }
}

fn same_map(a: &Map, b: &Map) -> bool {
    same(&Value::Object(a.clone()), &Value::Object(b.clone()))
}

fn arb_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("]]>".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("\n".to_owned()),
        Just(" ".to_owned()),
        Just("\t".to_owned()),
        Just("&amp;".to_owned()),
        Just("<b>".to_owned()),
        Just("42".to_owned()),
        Just("true".to_owned()),
        Just("null".to_owned()),
        Just("NaN".to_owned()),
        Just("\"".to_owned()),
        "[a-zA-Z0-9é€𝄞 .+-]{0,6}",
    ];
    prop_oneof![
        20 => prop::collection::vec(piece, 0..6).prop_map(|v| v.concat()),
        1 => Just("x".repeat(1001)),
    ]
}

fn arb_float() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => any::<f64>(),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(-0.0),
        1 => Just(1.0),
    ]
}

fn arb_key() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_.-]{0,5}".prop_filter("`item` names wrapped array items", |k| k != "item")
}

/// Integers beyond `i64`: from 128-bit integers, and of up to 60 digits.
fn arb_big_int() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<u64>().prop_map(Value::from),
        any::<i128>().prop_map(Value::from),
        "-?[1-9][0-9]{19,59}".prop_map(|t| Value::parse_integer(&t).unwrap()),
    ]
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        arb_big_int(),
        arb_float().prop_map(Value::Float),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((arb_key(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn arb_args() -> impl Strategy<Value = Map> {
    prop::collection::vec((arb_key(), arb_value()), 0..5).prop_map(|kv| kv.into_iter().collect())
}

/// Scalars and non-empty objects whose array members have two items or more, none an array.
fn arb_blind_item() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        arb_float().prop_map(Value::Float),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        let member = prop_oneof![
            3 => inner.clone(),
            1 => prop::collection::vec(inner, 2..4).prop_map(Value::Array),
        ];
        prop::collection::vec((arb_key(), member), 1..4)
            .prop_map(|kv| Value::Object(kv.into_iter().collect()))
    })
}

fn arb_blind_args() -> impl Strategy<Value = Map> {
    let member = prop_oneof![
        3 => arb_blind_item(),
        1 => prop::collection::vec(arb_blind_item(), 2..4).prop_map(Value::Array),
    ];
    prop::collection::vec((arb_key(), member), 0..5).prop_map(|kv| kv.into_iter().collect())
}

/// The schema that describes exactly this value.
fn schema_for(v: &Value) -> Json {
    match v {
        Value::Array(items) => json!({
            "type": "array",
            "prefixItems": items.iter().map(schema_for).collect::<Vec<_>>()
        }),
        Value::Object(m) => object_schema(m),
        other => json!({"type": other.type_name()}),
    }
}

fn object_schema(m: &Map) -> Json {
    let props: serde_json::Map<String, Json> =
        m.iter().map(|(k, v)| (k.clone(), schema_for(v))).collect();
    json!({
        "type": "object",
        "properties": props,
        "required": m.keys().collect::<Vec<_>>(),
        "additionalProperties": false
    })
}

/// Whether a value, as an argument or a member, reads back blind as itself.
fn blind_safe(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::String(_) => true,
        // Blind inference keeps integers beyond i64 as strings (FORMAT.md 5.2).
        Value::BigInt(_) => false,
        Value::Object(m) => !m.is_empty() && m.values().all(blind_safe),
        Value::Array(items) => {
            items.len() >= 2
                && items.iter().all(|i| {
                    !matches!(i, Value::Array(_))
                        && !matches!(i, Value::Object(m) if m.is_empty())
                        && blind_safe(i)
                })
        }
        _ => false,
    }
}

fn document(args: &Map) -> String {
    let mut xml = String::from("<arguments>\n");
    write_arguments(args, &mut xml).expect("keys are XML names");
    xml.push_str("</arguments>");
    xml
}

fn parse(xml: &str) -> xml_fallback::Element {
    let parsed = xml_fallback::parse_document(xml).unwrap_or_else(|e| panic!("{xml}\n{e}"));
    assert!(
        parsed.repairs.is_empty(),
        "the writer needed a repair:\n{xml}"
    );
    parsed.value
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn written_values_read_back_through_their_schema(args in arb_args()) {
        let xml = document(&args);
        let tree = parse(&xml);
        let schema = object_schema(&args);
        let back = coerce_arguments(&tree, &schema, Some(&xml))
            .unwrap_or_else(|e| panic!("{xml}\n{e}"));
        prop_assert!(same_map(&back, &args), "{xml}\nwrote {}\nread  {}",
            Value::Object(args.clone()), Value::Object(back));
    }

    #[test]
    fn blind_safe_values_read_back_blind(args in arb_blind_args()) {
        prop_assert!(args.values().all(blind_safe));
        let xml = document(&args);
        let back = arguments_from_element(&parse(&xml));
        prop_assert!(same_map(&back, &args), "{xml}\nwrote {}\nread  {}",
            Value::Object(args.clone()), Value::Object(back));
    }

    #[test]
    fn coercion_never_panics_on_odd_schemas(args in arb_args(), junk in arb_value(), other in arb_args()) {
        let xml = document(&args);
        let tree = parse(&xml);
        // A schema of arbitrary JSON, and a real schema for other arguments.
        for schema in [Json::from(junk), object_schema(&other)] {
            let _ = coerce_arguments(&tree, &schema, Some(&xml));
            let _ = arg_types::schema::coerce_element(&tree, &schema, None);
        }
    }

    #[test]
    fn inference_never_panics(s in any::<String>()) {
        let v = infer_scalar(&s);
        if let Value::String(t) = v {
            prop_assert_eq!(t, s);
        }
    }

    #[test]
    fn numbers_infer_back_from_their_text(i in any::<i64>(), f in arb_float()) {
        prop_assert_eq!(infer_scalar(&i.to_string()), Value::Int(i));
        let text = Value::Float(f).to_string();
        prop_assert!(same(&infer_scalar(&text), &Value::Float(f)), "{}", text);
    }

    #[test]
    fn json_mapping_round_trips(v in arb_value()) {
        let json = Json::from(v.clone());
        let back = Value::from(json.clone());
        prop_assert!(same(&back, &as_json_holds(&v)));
        // serde agrees with the conversion (but keeps every digit of an integer beyond u64), and
        // Value deserializes itself.
        let text = serde_json::to_string(&v).unwrap();
        // Every digit is in the text: the exact reader gives the value back.
        prop_assert!(same(&arg_types::literal::parse_json(&text).unwrap(), &names_for_non_finite(&v)));
        if beyond_u64(&v) {
            // Valid JSON, read by serde_json as the conversion gives it.
            let parsed: Json = serde_json::from_str(&text).unwrap();
            prop_assert!(same(&Value::from(parsed), &as_json_holds(&v)));
        } else {
            prop_assert_eq!(&text, &json.to_string());
        }
        prop_assert!(same(&from_value::<Value>(v.clone()).unwrap(), &without_huge(&v)));
        // Deserializing JSON text agrees with converting the parsed JSON value.
        let text = json.to_string();
        let direct: Value = serde_json::from_str(&text).unwrap();
        let via_json = Value::from(serde_json::from_str::<Json>(&text).unwrap());
        prop_assert!(same(&direct, &via_json));
    }
}

/// The value a `serde_json::Value` gives back: non-finite floats as their names, integers
/// beyond `u64` as the nearest float.
fn as_json_holds(v: &Value) -> Value {
    map_leaves(v, &|leaf| match leaf {
        Value::Float(f) if f.is_nan() => Value::String("NaN".into()),
        Value::Float(f) if f.is_infinite() => {
            Value::String(if *f > 0.0 { "+Inf" } else { "-Inf" }.into())
        }
        Value::BigInt(n) if n.to_u64().is_none() => Value::Float(n.to_f64()),
        other => other.clone(),
    })
}

/// Non-finite floats as the strings JSON has for them.
fn names_for_non_finite(v: &Value) -> Value {
    map_leaves(v, &|leaf| match leaf {
        Value::Float(f) if !f.is_finite() => Value::from(serde_json::Value::from(leaf.clone())),
        other => other.clone(),
    })
}

/// The value deserializing gives back: integers beyond 128 bits as the nearest float.
fn without_huge(v: &Value) -> Value {
    map_leaves(v, &|leaf| match leaf {
        Value::BigInt(n) if n.to_i128().is_none() && n.to_u128().is_none() => {
            Value::Float(n.to_f64())
        }
        other => other.clone(),
    })
}

fn map_leaves(v: &Value, f: &dyn Fn(&Value) -> Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(|i| map_leaves(i, f)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), map_leaves(v, f)))
                .collect(),
        ),
        leaf => f(leaf),
    }
}

fn beyond_u64(v: &Value) -> bool {
    match v {
        Value::BigInt(n) => n.to_u64().is_none(),
        Value::Array(items) => items.iter().any(beyond_u64),
        Value::Object(m) => m.values().any(beyond_u64),
        _ => false,
    }
}

#[test]
fn what_needs_a_schema() {
    // One-item arrays, empty arrays, empty objects and nested arrays do not survive blind.
    let cases = [
        (json!({"a": [1]}), json!({"a": 1})),
        (json!({"a": []}), json!({"a": ""})),
        (json!({"a": {}}), json!({"a": ""})),
        (
            json!({"a": [[1, 2], [3, 4]]}),
            json!({"a": {"item": [{"item": [1, 2]}, {"item": [3, 4]}]}}),
        ),
    ];
    for (written, blind) in cases {
        let args = Value::from(written.clone());
        let args = args.as_object().unwrap();
        let xml = document(args);
        let tree = parse(&xml);
        assert_eq!(
            arguments_from_element(&tree),
            *Value::from(blind).as_object().unwrap(),
            "{xml}"
        );
        let schema = object_schema(args);
        assert_eq!(
            coerce_arguments(&tree, &schema, Some(&xml)).unwrap(),
            *args,
            "{xml}"
        );
    }
}

#[test]
fn carriage_returns_survive() {
    for s in ["a\r\nb", "\r\nb\r", "\r", " \r ", "x\ry"] {
        let mut args = Map::new();
        args.insert("s".into(), Value::String(s.into()));
        let xml = document(&args);
        assert_eq!(arguments_from_element(&parse(&xml)), args, "{xml}");
    }
}

/// The property above never names a member `item` (the writer's name for wrapped array items);
/// these pin what FORMAT.md §5.5 says of such members: through their schema they read back,
/// except inside an array of arrays, where `<item>` is ambiguous.
#[test]
fn members_named_item_read_back_through_their_schema_except_in_nested_arrays() {
    let round_trip = |j: Json| {
        let Value::Object(args) = Value::from(j) else {
            unreachable!("the cases are objects")
        };
        let xml = document(&args);
        let schema = object_schema(&args);
        coerce_arguments(&parse(&xml), &schema, Some(&xml)).map(|back| same_map(&back, &args))
    };
    for j in [
        json!({"a": [{"item": 1}]}),
        json!({"a": [{"item": 1}, {"item": 2}]}),
        json!({"a": [{"item": [1, 2]}, {"item": [3]}]}),
        json!({"a": [{"item": 1, "b": 2}]}),
        json!({"a": {"item": 1}}),
        json!({"a": {"item": [1, 2]}}),
        json!({"item": 5}),
        json!({"item": [1, 2]}),
    ] {
        assert_eq!(round_trip(j.clone()), Ok(true), "{j}");
    }
    for j in [
        json!({"a": [[{"item": 1}]]}),
        json!({"a": [[{"item": 1}], [{"item": 2}]]}),
    ] {
        assert!(round_trip(j.clone()).is_err(), "{j}");
    }
}

proptest! {
    /// The workspace's JSON string writer is serde_json's, byte for byte: every control
    /// character, quote, backslash and non-ASCII character of any string.
    #[test]
    fn json_strings_are_written_as_serde_json_writes_them(
        s in prop_oneof!["(?s:.){0,40}", "[\\x00-\\x7f]{0,40}", "[a\"\\\\\\n\\x01é]{0,40}"],
        controls in proptest::collection::vec(0u8..0x20, 0..6),
    ) {
        let mut s = s;
        for c in controls {
            s.push(char::from(c));
            s.push('"');
            s.push('\\');
        }
        let mut ours = String::from("\"");
        arg_types::value::write_json_str_contents(&mut ours, &s).unwrap();
        ours.push('"');
        prop_assert_eq!(&ours, &serde_json::to_string(&s).unwrap());
        prop_assert_eq!(Value::String(s.clone()).to_string(), ours);
    }
}
