//! `Value` equality is reflexive: any value, NaN and signed zeros and infinities included, at any
//! depth, equals itself and its clone (docs/FORMAT.md §5.1).

use arg_types::{Map, Value};
use proptest::prelude::*;

/// Floats with the awkward cases over-represented: NaNs of several payloads and signs, both
/// zeros, both infinities, subnormals.
fn arb_float() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => any::<f64>(),
        1 => any::<u64>().prop_map(|bits| f64::from_bits(bits | 0x7ff0_0000_0000_0001)),
        1 => Just(f64::NAN),
        1 => Just(-f64::NAN),
        1 => Just(0.0),
        1 => Just(-0.0),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(f64::MIN_POSITIVE / 2.0),
    ]
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any::<i128>().prop_map(Value::from),
        arb_float().prop_map(Value::Float),
        "[a-z0-9 ]{0,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-c]{1,2}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map>())),
        ]
    })
}

/// Values without objects from a small domain, so that two drawn independently are often
/// equal: the awkward floats, two integers, two strings, nested in arrays.
fn arb_plain() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        (0..2i64).prop_map(Value::Int),
        prop::sample::select(vec![0.0, -0.0, 1.0, f64::NAN, -f64::NAN, f64::INFINITY])
            .prop_map(Value::Float),
        prop::sample::select(vec!["a", "1"]).prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 8, 2, |inner| {
        prop::collection::vec(inner, 0..3).prop_map(Value::Array)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn every_value_equals_itself_and_its_clone(v in arb_value()) {
        #[allow(clippy::eq_op)]
        let reflexive = v == v;
        prop_assert!(reflexive, "{v:?}");
        prop_assert_eq!(&v.clone(), &v);
        // Through serde as well: `Value` deserializes itself.
        prop_assert_eq!(arg_types::from_value::<Value>(v.clone()).unwrap(), v);
    }

    #[test]
    fn without_objects_equal_means_the_same_text(a in arb_plain(), b in arb_plain()) {
        prop_assert_eq!(a == b, a.to_string() == b.to_string(), "{} / {}", a, b);
    }

    #[test]
    fn floats_compare_by_bits_with_all_nans_equal(x in arb_float(), y in arb_float()) {
        let expected = x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
        prop_assert_eq!(Value::Float(x) == Value::Float(y), expected);
    }
}

#[test]
fn the_float_rules() {
    let nan = Value::Float(f64::NAN);
    assert_eq!(nan, Value::Float(f64::NAN));
    assert_eq!(nan, Value::Float(-f64::NAN));
    assert_eq!(nan, Value::Float(f64::from_bits(0x7ff0_0000_0000_0001)));
    assert_ne!(Value::Float(0.0), Value::Float(-0.0));
    assert_eq!(Value::Float(-0.0), Value::Float(-0.0));
    assert_eq!(Value::Float(f64::INFINITY), Value::Float(f64::INFINITY));
    assert_ne!(Value::Float(f64::INFINITY), Value::Float(f64::NEG_INFINITY));
    assert_ne!(nan, Value::Float(f64::INFINITY));
    assert_ne!(Value::Int(1), Value::Float(1.0));
    assert_ne!(Value::Null, Value::String("null".into()));
}

#[test]
fn objects_compare_by_members_in_any_order() {
    let mut a = Map::new();
    a.insert("x".into(), Value::Float(f64::NAN));
    a.insert("y".into(), Value::Int(1));
    let mut b = Map::new();
    b.insert("y".into(), Value::Int(1));
    b.insert("x".into(), Value::Float(f64::NAN));
    assert_eq!(Value::Object(a.clone()), Value::Object(b));
    let mut c = a.clone();
    c.insert("x".into(), Value::Float(0.0));
    assert_ne!(Value::Object(a), Value::Object(c));
}

/// A type holding values can derive `Eq` now, and a parse-result-like struct equals itself.
#[test]
fn structs_over_values_are_eq() {
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Call {
        arguments: Map,
    }
    let mut arguments = Map::new();
    arguments.insert("ratio".into(), Value::Float(f64::NAN));
    let call = Call { arguments };
    assert_eq!(call, call.clone());
}
