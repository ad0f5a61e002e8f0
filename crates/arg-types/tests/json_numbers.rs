//! JSON numbers read exactly: decimal text becomes the nearest `f64` (serde_json's
//! `float_roundtrip`), the same one Rust's own parser gives, and prints back as the same text
//! (docs/FORMAT.md §5.1).

use arg_types::Value;
use proptest::prelude::*;

fn read(text: &str) -> Value {
    serde_json::from_str::<Value>(text).unwrap()
}

#[test]
fn shortest_decimal_texts_read_back_exactly() {
    // Texts as JavaScript or Rust print doubles (shortest round-trip digits); several were read
    // one unit in the last place off without `float_roundtrip`.
    for text in [
        "201.53987407684326",
        "0.30000000000000004",
        "2.2250738585072014e-308",
        "5e-324",
        "1.7976931348623157e308",
        "9007199254740993.0",
        "0.1",
        "123456789.12345679",
        "4.35679e-7",
        "-867.5309000000001",
    ] {
        let expected: f64 = text.parse().unwrap();
        assert_eq!(read(text), Value::Float(expected), "{text}");
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(json.as_f64(), Some(expected), "{text}");
    }
    assert_eq!(read("201.53987407684326").to_string(), "201.53987407684326");
    assert_eq!(
        serde_json::to_string(&read("201.53987407684326")).unwrap(),
        "201.53987407684326"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Any decimal text of up to 19 significant digits reads as the correctly rounded `f64`.
    #[test]
    fn decimal_text_reads_as_the_nearest_double(
        negative in any::<bool>(),
        int in "[1-9][0-9]{0,9}",
        frac in "[0-9]{1,9}",
        exp in -320i32..300,
    ) {
        let text = format!("{}{int}.{frac}e{exp}", if negative { "-" } else { "" });
        let expected: f64 = text.parse().unwrap();
        prop_assume!(expected.is_finite());
        prop_assert_eq!(read(&text), Value::Float(expected), "{}", text);
        // And the value prints as text that reads back as itself.
        let printed = read(&text).to_string();
        prop_assert_eq!(read(&printed), Value::Float(expected));
    }
}
