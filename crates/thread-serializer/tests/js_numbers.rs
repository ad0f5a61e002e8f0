//! Numbers in tool-call bodies are printed exactly as JavaScript prints them: checked against
//! `JSON.stringify` in Node.js on 2,700 numbers (random bit patterns, numbers near the
//! fixed/exponent boundaries, arithmetic results, and numbers whose shortest digits are a tie).

use thread_serializer::json::{to_json_string, write_js_number};

const TABLE: &str = include_str!("data/js_numbers.txt");

#[test]
fn every_number_matches_node() {
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
        let (bits, expected) = line.split_once(' ').expect("bits and text");
        let x = f64::from_bits(u64::from_str_radix(bits, 16).expect("hex bits"));
        let mut got = String::new();
        write_js_number(x, &mut got).unwrap();
        if got != expected {
            mismatches.push(format!("{bits}: got {got}, Node.js {expected}"));
        }
        // Through a JSON value too, when serde_json holds it as a float.
        if let Some(n) = serde_json::Number::from_f64(x).filter(|n| n.is_f64()) {
            assert_eq!(to_json_string(&serde_json::Value::Number(n)), expected);
        }
        checked += 1;
    }
    assert!(checked > 2_500, "only {checked} numbers read");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn ties_go_to_the_even_digit() {
    // 1e15 + 0.25 lies exactly between 1000000000000000.2 and 1000000000000000.3, both of
    // which read back as it; JavaScript picks the even digit.
    let mut s = String::new();
    write_js_number(1e15 + 0.25, &mut s).unwrap();
    assert_eq!(s, "1000000000000000.2");
}
