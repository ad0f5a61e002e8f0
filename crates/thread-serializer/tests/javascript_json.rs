//! Events JSON as JavaScript writes it goes through `toolcall thread`'s path (`events_from_json`,
//! `serialize_thread_to_xml`, `parse_thread_xml`) with its JSON bodies unchanged, byte for byte
//! (FORMAT.md §8.3, §8.5): numbers printed by `Number::toString`, strings by `JSON.stringify`,
//! including the lone surrogate escapes it writes; integral floats where integers are expected.
//!
//! The numbers are printed here by a reference written from ECMA-262's definition of
//! `Number::toString`, independently of the crate's `write_js_number`, and the reference is
//! itself checked against Node.js's output (`tests/data/js_numbers.txt`).

use proptest::prelude::*;
use thread_serializer::{
    AgentEvent, SerializerOptions, events_from_json, parse_thread_xml, serialize_thread_to_xml,
};

/// ECMA-262 `Number::toString(x)` (radix 10) for a finite `x`.
///
/// Step 5 of the definition: the fewest digits `k` of an integer `s` such that `s × 10^(n−k)`
/// reads back as `x`; among several such `s`, the one closest to `x` (as V8 chooses). Rust's
/// `{:.*e}` gives the closest `k`-digit decimal exactly; when it does not read back, the only
/// other candidate is its neighbour on the other side of `x` (the reading interval is convex
/// and holds `x`). Steps 6–10 lay the digits out.
fn js_number(x: f64) -> String {
    assert!(x.is_finite());
    if x == 0.0 {
        return "0".into();
    }
    if x < 0.0 {
        return format!("-{}", js_number(-x));
    }
    let (digits, n) = (1..=17)
        .find_map(|k| shortest_with(x, k))
        .expect("17 digits always read back");
    let k = i32::try_from(digits.len()).unwrap();
    if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        let e = n - 1;
        let sign = if e < 0 { '-' } else { '+' };
        format!("{first}{point}{rest}e{sign}{}", e.unsigned_abs())
    }
}

/// The `k`-digit `s` (as digits without trailing zeros) and `n` of `x`, if `k` digits suffice.
fn shortest_with(x: f64, k: usize) -> Option<(String, i32)> {
    let closest = format!("{:.*e}", k - 1, x);
    let (mantissa, exponent) = closest.split_once('e').unwrap();
    let s: u64 = mantissa.replace('.', "").parse().unwrap();
    // x ≈ s × 10^scale
    let scale = exponent.parse::<i32>().unwrap() - (k as i32 - 1);
    let reads_back = |s: u64| format!("{s}e{scale}").parse::<f64>() == Ok(x);
    let s = if reads_back(s) {
        s
    } else {
        let value = format!("{s}e{scale}").parse::<f64>().unwrap();
        let other = if value < x { s + 1 } else { s - 1 };
        if !reads_back(other) {
            return None;
        }
        other
    };
    let mut digits = s.to_string();
    let mut scale = scale;
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
        scale += 1;
    }
    let n = scale + digits.len() as i32;
    Some((digits, n))
}

#[test]
fn the_reference_prints_what_node_prints() {
    let table = include_str!("data/js_numbers.txt");
    let mut checked = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let (bits, node) = line.split_once(' ').unwrap();
        let x = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
        assert_eq!(js_number(x), node, "{bits}");
        checked += 1;
    }
    assert!(checked > 2_500);
    assert_eq!(js_number(1e21), "1e+21");
    assert_eq!(js_number(1e15 + 0.25), "1000000000000000.2");
}

/// A string as `JSON.stringify` writes it, from UTF-16 code units (as JavaScript holds it):
/// `"`, `\`, `\b \f \n \r \t` and other controls escaped, a lone surrogate as `\udXXX`
/// (lowercase hex), everything else as it is.
fn js_string(units: &[u16]) -> String {
    let mut out = String::from("\"");
    let mut i = 0;
    while i < units.len() {
        let u = units[i];
        let pair = (0xD800..0xDC00).contains(&u)
            && units
                .get(i + 1)
                .is_some_and(|l| (0xDC00..0xE000).contains(l));
        if pair {
            out.push_str(&String::from_utf16(&units[i..i + 2]).unwrap());
            i += 2;
            continue;
        }
        match u {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0..0x20 | 0xD800..0xE000 => out.push_str(&format!("\\u{u:04x}")),
            _ => out.push(char::from_u32(u.into()).unwrap()),
        }
        i += 1;
    }
    out.push('"');
    out
}

/// JavaScript strings: ASCII, other BMP characters, surrogate pairs, and lone halves.
fn js_units() -> impl Strategy<Value = Vec<u16>> {
    let piece = prop_oneof![
        4 => (0x20u16..0x7F).prop_map(|u| vec![u]),
        1 => (0u16..0x20).prop_map(|u| vec![u]),
        1 => prop_oneof![Just(0x22u16), Just(0x5C), Just(0x26), Just(0x3C)].prop_map(|u| vec![u]),
        1 => (0xA0u16..0xD800).prop_map(|u| vec![u]),
        2 => (0xD800u16..0xDC00, 0xDC00u16..0xE000).prop_map(|(h, l)| vec![h, l]),
        2 => (0xD800u16..0xE000).prop_map(|u| vec![u]),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|p| p.concat())
}

/// Numbers as JavaScript programs meet them: any double, integers, short decimals, and values
/// near the layout boundaries (1e21, 1e-7).
fn js_double() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        any::<i64>().prop_map(|i| i as f64),
        (-1_000_000i64..1_000_000, 0u32..6).prop_map(|(i, d)| i as f64 / 10f64.powi(d as i32)),
        (1u64..u64::MAX, -30i32..30).prop_map(|(m, e)| (m as f64) * 10f64.powi(e)),
        (18_446_744_073_709_551_616.0f64..1e22),
    ]
}

/// The events JSON text, and the expected bodies of the tool_input and tool_output events.
fn events_text(numbers: &[String], text: &str) -> (String, String, String) {
    let args = format!(
        "{{\"n\":{},\"all\":[{}],\"s\":{text}}}",
        numbers[0],
        numbers.join(",")
    );
    let result = numbers.last().unwrap().clone();
    let json = format!(
        "[{{\"type\":\"tool_call\",\"toolName\":\"calc\",\"toolCallId\":\"c1\",\"args\":{args},\"iteration\":1}},\
         {{\"type\":\"tool_result\",\"toolCallId\":\"c1\",\"result\":{result},\"iteration\":1}}]"
    );
    (json, args, result)
}

fn through_thread(json: &str) -> Vec<String> {
    let events = events_from_json(json).expect("JavaScript's JSON reads");
    let xml = serialize_thread_to_xml(&events, &SerializerOptions::default());
    let thread = parse_thread_xml(&xml).expect("the thread reads back");
    thread.entries.into_iter().map(|e| e.text).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// JSON bodies come out as JavaScript wrote them: numbers (read exactly, printed as
    /// `Number::toString`) and strings without lone surrogates.
    #[test]
    fn javascript_json_bodies_go_through_byte_for_byte(
        xs in prop::collection::vec(js_double(), 1..6),
        units in js_units(),
    ) {
        // U+FFFE and U+FFFF are the writer's documented exception (§8.2); a lone surrogate
        // becomes U+FFFD (the next property).
        let s = String::from_utf16_lossy(&units).replace(['\u{fffe}', '\u{ffff}', '\u{fffd}'], "x");
        let units: Vec<u16> = s.encode_utf16().collect();
        let numbers: Vec<String> = xs.iter().map(|&x| js_number(x)).collect();
        let (json, args, result) = events_text(&numbers, &js_string(&units));
        let bodies = through_thread(&json);
        prop_assert_eq!(&bodies[0], &args);
        prop_assert_eq!(&bodies[1], &result);
    }

    /// Each lone surrogate `JSON.stringify` writes reads as U+FFFD, wherever it is: in text
    /// bodies, in JSON bodies, in keys; the events are otherwise read as they are.
    #[test]
    fn lone_surrogates_read_as_the_replacement_character(units in js_units(), key in js_units()) {
        let content = js_string(&units);
        let json = format!(
            "[{{\"type\":\"message\",\"role\":\"assistant\",\"content\":{content},\"iteration\":0}},\
             {{\"type\":\"tool_call\",\"toolName\":{content},\"toolCallId\":\"c\",\"args\":{{{}:{content}}},\"iteration\":0}}]",
            js_string(&key),
        );
        let events = events_from_json(&json).expect("lone surrogates are accepted");
        let expected = String::from_utf16_lossy(&units);
        let AgentEvent::Message { content: read, .. } = &events[0] else { panic!("{events:?}") };
        prop_assert_eq!(read, &expected);
        let AgentEvent::ToolCall { tool_name, args, .. } = &events[1] else { panic!("{events:?}") };
        prop_assert_eq!(tool_name, &expected);
        let object = args.as_object().unwrap();
        prop_assert_eq!(object.keys().next().unwrap(), &String::from_utf16_lossy(&key));
        prop_assert_eq!(object.values().next().unwrap().as_str(), Some(expected.as_str()));
    }
}

#[test]
fn a_string_cut_inside_an_emoji_is_accepted() {
    // JSON.stringify("a😀b".slice(0, 2)) and the rest of a thread: the whole thread used to fail.
    let json = r#"[
      {"type":"tool_call","toolName":"echo","toolCallId":"c","args":{"text":"a\ud83d"},"iteration":1},
      {"type":"tool_result","toolCallId":"c","result":"a\ud83d","iteration":1},
      {"type":"message","role":"assistant","content":"\ude00 done \ud83d\ude00","iteration":1}
    ]"#;
    let bodies = through_thread(json);
    assert_eq!(
        bodies,
        ["{\"text\":\"a\u{fffd}\"}", "a\u{fffd}", "\u{fffd} done 😀"]
    );
}

#[test]
fn integral_floats_are_read_where_integers_are_expected() {
    let json = r#"[
      {"type":"message","role":"user","content":"hi","iteration":1.0},
      {"type":"summary","summarizedIterations":[0, 1.0, 2e0],"summary":"s","iteration":3.0},
      {"type":"completion","result":"r","iteration":-0.0}
    ]"#;
    let events = events_from_json(json).unwrap();
    assert_eq!(events[0].iteration(), 1);
    assert_eq!(
        events[1],
        AgentEvent::Summary {
            summarized_iterations: vec![0, 1, 2],
            summary: "s".into(),
            iteration: 3
        }
    );
    assert_eq!(events[2].iteration(), 0);
    let xml = serialize_thread_to_xml(&events, &SerializerOptions::default());
    assert!(
        xml.contains(" iteration=\"3\" summarizedIterations=\"0,1,2\">"),
        "{xml}"
    );
}

#[test]
fn fractions_and_negative_iterations_are_errors_with_a_position() {
    let cases = [
        (
            "[\n {\"type\":\"completion\",\"result\":\"r\",\"iteration\":1.5}\n]",
            "invalid value: floating point `1.5`, expected a non-negative integer (such as 3 or 3.0)",
        ),
        (
            "[\n {\"type\":\"completion\",\"result\":\"r\",\"iteration\":-1}\n]",
            "invalid value: integer `-1`, expected a non-negative integer (such as 3 or 3.0)",
        ),
        (
            "[\n {\"type\":\"completion\",\"result\":\"r\",\"iteration\":1e20}\n]",
            "invalid value: floating point `1e+20`, expected a non-negative integer",
        ),
        (
            "[\n {\"type\":\"summary\",\"summarizedIterations\":[1,2.5],\"summary\":\"s\",\"iteration\":3}\n]",
            "invalid value: floating point `2.5`, expected a non-negative integer",
        ),
    ];
    for (json, message) in cases {
        let err = events_from_json(json).unwrap_err();
        assert!(err.to_string().starts_with(message), "{err}");
        // Just after the event (serde reads an event whole before its fields), as for every
        // error in an event's fields: here the `]` on line 3.
        assert_eq!((err.line(), err.column()), (3, 1), "{err}");
    }
}
