//! JSON text as JavaScript's `JSON.stringify` prints it, so that tool-call bodies match the
//! TypeScript system's byte for byte.
//!
//! Where `JSON.stringify` and `serde_json::to_string` differ, this module follows JavaScript:
//!
//! - numbers: an integer-valued float has no `.0` (`1.0` → `1`), and exponents are written as
//!   JavaScript does (`1e21` → `1e+21`, `1e-7` → `1e-7`, `0.000001` stays); integers that
//!   `serde_json` holds exactly (`u64`, `i64`) are printed exactly;
//! - object keys: JavaScript objects list array-index keys (`"0"`, `"17"`, …) first in
//!   ascending order, then the other keys in insertion order; so does this writer.
//!
//! One deliberate difference keeps the output usable inside XML: U+FFFE and U+FFFF, which XML
//! 1.0 forbids and `JSON.stringify` writes raw, are written as the JSON escapes `\ufffe` and
//! `\uffff` (the same value for any JSON reader). Control characters are escaped as in
//! JavaScript (`\n`, `\u001b`), so JSON text from this module never holds a character that XML
//! 1.0 forbids.

use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt::{self, Write};

/// JSON text with every lone surrogate escape replaced by `\ufffd`, so that serde_json, which
/// refuses them, can read it.
///
/// `JSON.stringify` writes a string that holds half of a surrogate pair (output cut inside an
/// emoji) with the escape `\ud83d`. An escape from `\ud800` to `\udbff` followed by one from
/// `\udc00` to `\udfff` is a pair and stays; any other escape in `\ud800`–`\udfff` becomes
/// `\ufffd`, the replacement character (what a UTF-8 encoder writes for it, and what
/// `String.prototype.toWellFormed` gives). Both escapes are six bytes: line, column and offset
/// in the result are those of the input. One pass; borrows `json` when there is nothing to
/// replace. `\\ud83d` (an escaped backslash, then text) is not an escape and stays.
///
/// ```
/// use thread_serializer::json::replace_lone_surrogates;
/// assert_eq!(replace_lone_surrogates(r#""a\ud83db""#), r#""a\ufffdb""#);
/// assert_eq!(replace_lone_surrogates(r#""\ude00\ud83d""#), r#""\ufffd\ufffd""#);
/// assert_eq!(replace_lone_surrogates(r#""\uD83D\uDE00""#), r#""\uD83D\uDE00""#);
/// assert_eq!(replace_lone_surrogates(r#""\\ud83d""#), r#""\\ud83d""#);
/// ```
pub fn replace_lone_surrogates(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while let Some(found) = bytes[i..].iter().position(|&b| b == b'\\') {
        let at = i + found;
        match surrogate_escape(bytes, at) {
            Some(Surrogate::High) if surrogate_escape(bytes, at + 6) == Some(Surrogate::Low) => {
                i = at + 12;
            }
            Some(_) => {
                out.push_str(&json[copied..at]);
                out.push_str("\\ufffd");
                i = at + 6;
                copied = i;
            }
            // Any other escape: skip the escaped character (`\\` included).
            None => i = (at + 2).min(bytes.len()),
        }
    }
    if copied == 0 {
        return Cow::Borrowed(json);
    }
    out.push_str(&json[copied..]);
    Cow::Owned(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Surrogate {
    High,
    Low,
}

/// The half of a surrogate pair that the escape `\uXXXX` at `at` denotes, if it is one.
fn surrogate_escape(bytes: &[u8], at: usize) -> Option<Surrogate> {
    let escape = bytes.get(at..at + 6)?;
    if escape[..2] != *b"\\u" {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    match u16::from_str_radix(hex, 16).ok()? {
        0xD800..=0xDBFF => Some(Surrogate::High),
        0xDC00..=0xDFFF => Some(Surrogate::Low),
        _ => None,
    }
}

/// Writes `value` as compact JSON, as `JSON.stringify(value)` would print it.
///
/// ```
/// use serde_json::json;
/// let mut out = String::new();
/// thread_serializer::json::write_json(&json!({"b": 1.0, "a": [1e21, "x\n"]}), &mut out).unwrap();
/// assert_eq!(out, r#"{"b":1,"a":[1e+21,"x\n"]}"#);
/// ```
pub fn write_json<W: Write + ?Sized>(value: &Value, out: &mut W) -> fmt::Result {
    match value {
        Value::Null => out.write_str("null"),
        Value::Bool(true) => out.write_str("true"),
        Value::Bool(false) => out.write_str("false"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write_json(item, out)?;
            }
            out.write_char(']')
        }
        Value::Object(map) => write_object(map, out),
    }
}

/// [`write_json`] into a new `String`.
///
/// ```
/// use serde_json::json;
/// assert_eq!(thread_serializer::json::to_json_string(&json!({"b":2,"1":1})), r#"{"1":1,"b":2}"#);
/// ```
pub fn to_json_string(value: &Value) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = write_json(value, &mut out);
    out
}

/// Writes a finite `f64` as JavaScript's `Number.prototype.toString` does (non-finite values,
/// which JSON cannot hold, as `null`, as `JSON.stringify` does).
///
/// ```
/// use thread_serializer::json::write_js_number;
/// let show = |x: f64| { let mut s = String::new(); write_js_number(x, &mut s).unwrap(); s };
/// assert_eq!(show(1.0), "1");
/// assert_eq!(show(-0.0), "0");
/// assert_eq!(show(1e21), "1e+21");
/// assert_eq!(show(123456789012345680000.0), "123456789012345680000");
/// assert_eq!(show(0.000001), "0.000001");
/// assert_eq!(show(1.5e-7), "1.5e-7");
/// ```
pub fn write_js_number<W: Write + ?Sized>(x: f64, out: &mut W) -> fmt::Result {
    if !x.is_finite() {
        return out.write_str("null");
    }
    if x == 0.0 {
        return out.write_char('0');
    }
    if x < 0.0 {
        out.write_char('-')?;
    }
    let x = x.abs();
    let Some(Decimal {
        digits,
        len,
        exponent,
    }) = shortest_digits(x)
    else {
        // Cannot happen; never panic all the same.
        return write!(out, "{x}");
    };
    let digits = std::str::from_utf8(&digits[..len]).map_err(|_| fmt::Error)?;
    // ECMA-262 Number::toString: digits d1..dk, decimal point after n digits.
    let k = i32::try_from(len).unwrap_or(i32::MAX);
    let n = exponent + 1;
    if k <= n && n <= 21 {
        out.write_str(digits)?;
        write_zeros(n - k, out)
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(usize::try_from(n).unwrap_or(0).min(len));
        out.write_str(int)?;
        out.write_char('.')?;
        out.write_str(frac)
    } else if -6 < n && n <= 0 {
        out.write_str("0.")?;
        write_zeros(-n, out)?;
        out.write_str(digits)
    } else {
        let (first, rest) = digits.split_at(1);
        out.write_str(first)?;
        if !rest.is_empty() {
            out.write_char('.')?;
            out.write_str(rest)?;
        }
        let e = n - 1;
        write!(
            out,
            "e{}{}",
            if e < 0 { '-' } else { '+' },
            e.unsigned_abs()
        )
    }
}

/// Decimal digits `d1 d2 … dk` (ASCII) and the power of ten of `d1`.
struct Decimal {
    digits: [u8; 24],
    len: usize,
    exponent: i32,
}

/// The shortest digits that read back as `x` (positive, finite) and, among those, the closest
/// to `x`, ties going to the even digit, as ECMA-262 requires. Rust's `{:e}` gives the shortest
/// closest digits but may round a tie up; that case is detected exactly and corrected.
fn shortest_digits(x: f64) -> Option<Decimal> {
    let mut buf = StackBuf::<40>::new();
    write!(buf, "{x:e}").ok()?;
    let mut d = parse_exp(buf.as_str())?;
    let last = d.digits[d.len - 1] - b'0';
    if last % 2 == 1 {
        // An odd last digit may come from a tie; the even neighbour on the other side of `x`
        // is then equally close and must win.
        for up in [false, true] {
            if (up && last == 9) || (!up && last == 1 && d.len == 1) {
                continue;
            }
            let mut other = Decimal { ..d };
            other.digits[d.len - 1] = if up { b'0' + last + 1 } else { b'0' + last - 1 };
            if other.value() == Some(x) && is_midpoint(x, if up { &d } else { &other }) {
                d = other;
                break;
            }
        }
    }
    Some(d)
}

impl Decimal {
    fn value(&self) -> Option<f64> {
        let mut buf = StackBuf::<40>::new();
        let digits = std::str::from_utf8(&self.digits[..self.len]).ok()?;
        write!(buf, "{}.{}e{}", &digits[..1], &digits[1..], self.exponent).ok()?;
        buf.as_str().parse().ok()
    }
}

/// Whether `x` is exactly `lower` followed by the digit 5 (the midpoint between `lower` and the
/// next number of the same length).
fn is_midpoint(x: f64, lower: &Decimal) -> bool {
    // Every f64 has at most 767 significant decimal digits: this prints it exactly.
    let mut buf = StackBuf::<800>::new();
    if write!(buf, "{x:.780e}").is_err() {
        return false;
    }
    let Some((mantissa, exponent)) = buf.as_str().split_once('e') else {
        return false;
    };
    if exponent.parse() != Ok(lower.exponent) {
        return false;
    }
    let exact = mantissa
        .trim_end_matches('0')
        .bytes()
        .filter(|&b| b != b'.');
    let expected = lower.digits[..lower.len].iter().copied().chain([b'5']);
    exact.eq(expected)
}

/// Parses Rust's `{:e}` form `d.ddde-N` into digits and exponent.
fn parse_exp(text: &str) -> Option<Decimal> {
    let (mantissa, exponent) = text.split_once('e')?;
    let mut d = Decimal {
        digits: [b'0'; 24],
        len: 0,
        exponent: exponent.parse().ok()?,
    };
    for b in mantissa.bytes().filter(|&b| b != b'.') {
        *d.digits.get_mut(d.len)? = b;
        d.len += 1;
    }
    (d.len > 0).then_some(d)
}

fn write_zeros<W: Write + ?Sized>(count: i32, out: &mut W) -> fmt::Result {
    for _ in 0..count.max(0) {
        out.write_char('0')?;
    }
    Ok(())
}

fn write_number<W: Write + ?Sized>(n: &Number, out: &mut W) -> fmt::Result {
    if let Some(u) = n.as_u64() {
        write!(out, "{u}")
    } else if let Some(i) = n.as_i64() {
        write!(out, "{i}")
    } else {
        write_js_number(n.as_f64().unwrap_or(f64::NAN), out)
    }
}

/// Writes `s` as a JSON string literal, escaping as `JSON.stringify` does (plus U+FFFE/U+FFFF).
fn write_string<W: Write + ?Sized>(s: &str, out: &mut W) -> fmt::Result {
    out.write_char('"')?;
    let bytes = s.as_bytes();
    let mut run_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !NEEDS_JSON_ESCAPE[usize::from(b)] {
            i += 1;
            continue;
        }
        // 0xEF also starts many ordinary characters; only EF BF BE / EF BF BF are escaped.
        let (escape, len): (&str, usize) = match b {
            b'"' => ("\\\"", 1),
            b'\\' => ("\\\\", 1),
            0x08 => ("\\b", 1),
            0x0C => ("\\f", 1),
            b'\n' => ("\\n", 1),
            b'\r' => ("\\r", 1),
            b'\t' => ("\\t", 1),
            0xEF => match bytes.get(i + 1..i + 3) {
                Some([0xBF, 0xBE]) => ("\\ufffe", 3),
                Some([0xBF, 0xBF]) => ("\\uffff", 3),
                _ => {
                    i += 1;
                    continue;
                }
            },
            _ => ("", 1),
        };
        out.write_str(&s[run_start..i])?;
        if escape.is_empty() {
            write!(out, "\\u{b:04x}")?;
        } else {
            out.write_str(escape)?;
        }
        i += len;
        run_start = i;
    }
    out.write_str(&s[run_start..])?;
    out.write_char('"')
}

/// The bytes [`write_string`] must look at: controls, `"`, `\`, and 0xEF (U+FFFE/U+FFFF).
static NEEDS_JSON_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[0xEF] = true;
    t
};

fn write_object<W: Write + ?Sized>(map: &Map<String, Value>, out: &mut W) -> fmt::Result {
    out.write_char('{')?;
    let mut first = true;
    let mut member = |key: &str, value: &Value, out: &mut W| -> fmt::Result {
        if !std::mem::take(&mut first) {
            out.write_char(',')?;
        }
        write_string(key, out)?;
        out.write_char(':')?;
        write_json(value, out)
    };
    if map.keys().any(|k| array_index(k).is_some()) {
        // JavaScript's property order: array indices ascending, then the rest as inserted.
        let mut indexed: Vec<(u32, &str, &Value)> = map
            .iter()
            .filter_map(|(k, v)| array_index(k).map(|i| (i, k.as_str(), v)))
            .collect();
        indexed.sort_unstable_by_key(|&(i, _, _)| i);
        for (_, k, v) in indexed {
            member(k, v, out)?;
        }
        for (k, v) in map.iter().filter(|(k, _)| array_index(k).is_none()) {
            member(k, v, out)?;
        }
    } else {
        for (k, v) in map {
            member(k, v, out)?;
        }
    }
    out.write_char('}')
}

/// The array index a property key denotes in JavaScript: the canonical decimal form of an
/// integer from 0 to 2³² − 2.
fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return None;
    }
    let n: u64 = key.parse().ok()?;
    u32::try_from(n).ok().filter(|&n| n != u32::MAX)
}

/// A small fixed buffer for formatting one number without allocating.
struct StackBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> StackBuf<N> {
    fn new() -> Self {
        StackBuf {
            bytes: [0; N],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        // Only whole `&str`s are ever copied in, so this cannot fail.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl<const N: usize> Write for StackBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        let dest = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        dest.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn js(x: f64) -> String {
        let mut s = String::new();
        write_js_number(x, &mut s).unwrap();
        s
    }

    /// `JSON.stringify(x)` as Node.js printed it for each x.
    #[test]
    fn numbers_print_as_javascript_prints_them() {
        let table: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.0, "-1"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (9.999999999999999e20, "999999999999999900000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000001234, "0.000001234"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (9007199254740992.0, "9007199254740992"),
            (9007199254740994.0, "9007199254740994"),
            (123.456, "123.456"),
            (1e100, "1e+100"),
            (-1e-100, "-1e-100"),
            (100.0, "100"),
            (1e6, "1000000"),
            (-2.5e-8, "-2.5e-8"),
            (1.2345e22, "1.2345e+22"),
            (4.35, "4.35"),
            (0.5, "0.5"),
            (1.0 / 3.0, "0.3333333333333333"),
            (18446744073709551615.0, "18446744073709552000"),
            (1e15 + 0.3, "1000000000000000.2"),
        ];
        for &(x, expected) in table {
            assert_eq!(js(x), expected, "{x:e}");
        }
        assert_eq!(js(f64::NAN), "null");
        assert_eq!(js(f64::INFINITY), "null");
    }

    #[test]
    fn numbers_round_trip() {
        for x in [
            0.1,
            1.0 / 3.0,
            5e-324,
            2.2250738585072014e-308,
            f64::MAX,
            -123.456e-9,
            6.02214076e23,
        ] {
            assert_eq!(js(x).parse::<f64>().unwrap(), x);
        }
    }

    #[test]
    fn json_from_serde_values_matches_javascript() {
        let v: Value = serde_json::from_str(
            r#"{"a":1.0,"b":"\u0000\u001b\b\f\n\r\t\"\\\u007f\u2028","c":[null,true,{}],"d":[],"e":-0,"f":1E2,"g":-7}"#,
        )
        .unwrap();
        // Node.js: JSON.stringify(JSON.parse(same text)).
        assert_eq!(
            to_json_string(&v),
            "{\"a\":1,\"b\":\"\\u0000\\u001b\\b\\f\\n\\r\\t\\\"\\\\\u{7f}\u{2028}\",\
             \"c\":[null,true,{}],\"d\":[],\"e\":0,\"f\":100,\"g\":-7}"
        );
    }

    #[test]
    fn integers_are_exact() {
        assert_eq!(to_json_string(&json!(u64::MAX)), "18446744073709551615");
        assert_eq!(to_json_string(&json!(i64::MIN)), "-9223372036854775808");
    }

    #[test]
    fn array_index_keys_come_first_like_javascript() {
        let v: Value =
            serde_json::from_str(r#"{"b":1,"10":2,"a":3,"2":4,"01":5,"-1":6,"4294967295":7}"#)
                .unwrap();
        // Node.js prints {"2":4,"10":2,"b":1,"a":3,"01":5,"-1":6,"4294967295":7}.
        assert_eq!(
            to_json_string(&v),
            r#"{"2":4,"10":2,"b":1,"a":3,"01":5,"-1":6,"4294967295":7}"#
        );
        assert_eq!(array_index("4294967294"), Some(4294967294));
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index(""), None);
        assert_eq!(array_index("99999999999"), None);
    }

    #[test]
    fn xml_forbidden_noncharacters_are_json_escapes() {
        assert_eq!(
            to_json_string(&json!("a\u{fffe}b\u{ffff}")),
            r#""a\ufffeb\uffff""#
        );
        // Other characters encoded from 0xEF stay as they are.
        assert_eq!(
            to_json_string(&json!("\u{fffd}\u{f000}\u{fefe}")),
            "\"\u{fffd}\u{f000}\u{fefe}\""
        );
        let back: Value = serde_json::from_str(r#""a\ufffeb\uffff""#).unwrap();
        assert_eq!(back, json!("a\u{fffe}b\u{ffff}"));
    }
}
