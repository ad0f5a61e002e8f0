//! `value::push_json` writes what `serde_json::to_string` writes, byte for byte, for any value:
//! the OpenAI bridge's fragments must concatenate to `ToolCall`'s JSON of the arguments.

use arg_types::value::{push_json, push_json_object};
use arg_types::{Map, Value};
use proptest::prelude::*;

/// Text with every byte class a JSON string escapes or keeps: controls, quotes, backslashes,
/// DEL, multi-byte characters, long runs (copied a word at a time).
fn arb_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => "[a-z ]{0,12}",
            1 => prop::sample::select(vec![
                "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{0}", "\u{1f}", "\u{7f}", "é",
                "🦀", "\u{2028}", "</tool>", "&amp;",
            ])
            .prop_map(String::from),
        ],
        0..10,
    )
    .prop_map(|v| v.concat())
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        prop::sample::select(vec![i64::MIN, i64::MAX, 0, -1, 9, 10, -10]).prop_map(Value::Int),
        any::<i128>().prop_map(Value::from),
        any::<u64>().prop_map(|u| Value::from(i128::from(u))),
        any::<f64>().prop_map(Value::Float),
        prop::sample::select(vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            1e16,
            0.1
        ])
        .prop_map(Value::Float),
        arb_text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((arb_text(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn push_json_is_serde_json_to_string(v in arb_value()) {
        let mut out = String::from("before");
        push_json(&mut out, &v);
        prop_assert_eq!(&out["before".len()..], serde_json::to_string(&v).unwrap());
        if let Value::Object(m) = &v {
            let mut object = String::new();
            push_json_object(&mut object, m);
            prop_assert_eq!(object, serde_json::to_string(m).unwrap());
        }
    }
}
