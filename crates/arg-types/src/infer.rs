//! Blind type inference for scalar text, exactly the rules of docs/FORMAT.md §5.2, with their edges decided.
//!
//! | text | value |
//! | --- | --- |
//! | `true`, `FALSE`, `True` (any case) | [`Value::Bool`] |
//! | `null`, `NULL` (any case) | [`Value::Null`] |
//! | `42`, `-42`, `+42`, `007`, `-0` | [`Value::Int`] (`7`, `0`) |
//! | an integer beyond `i64` | [`Value::String`], digits kept |
//! | `2.75`, `1.`, `.5`, `1e5`, `-2.5E-3` | [`Value::Float`] |
//! | `NaN`, `+Inf`, `-Inf` (exactly so) | [`Value::Float`] (non-finite) |
//! | a finite-looking float that overflows (`1e999`) | [`Value::String`] |
//! | `"true"`, `"42"` | [`Value::String`], quotes kept |
//! | `1_000`, `0x10`, `1,000`, `inf`, `nan`, `Infinity`, `1.2.3`, ` 42` | [`Value::String`] |
//!
//! [`infer_scalar`] does not trim: callers pass text already cut by the text rule and trimmed.

use crate::Value;

/// Infers the value of already-trimmed text by the rules of FORMAT.md §5.2; never fails, never panics.
///
/// ```
/// use arg_types::{infer::infer_scalar, Value};
/// assert_eq!(infer_scalar("TRUE"), Value::Bool(true));
/// assert_eq!(infer_scalar("007"), Value::Int(7));
/// assert_eq!(infer_scalar("1.23e10"), Value::Float(1.23e10));
/// assert_eq!(infer_scalar("\"true\""), Value::String("\"true\"".into()));
/// assert_eq!(infer_scalar("./src/main.go"), Value::String("./src/main.go".into()));
/// ```
pub fn infer_scalar(text: &str) -> Value {
    infer_non_string(text).unwrap_or_else(|| Value::String(text.to_owned()))
}

/// The value [`infer_scalar`] gives `text` when it is not a string; `None` when it is one (so a
/// caller that owns the text can move it into the string instead of copying it).
pub(crate) fn infer_non_string(text: &str) -> Option<Value> {
    if text.eq_ignore_ascii_case("true") {
        return Some(Value::Bool(true));
    }
    if text.eq_ignore_ascii_case("false") {
        return Some(Value::Bool(false));
    }
    if text.eq_ignore_ascii_case("null") {
        return Some(Value::Null);
    }
    number(text)
}

/// What a numeric text looks like, by its syntax alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberSyntax {
    /// `[+-]digits`.
    Integer,
    /// `[+-](digits[.digits*] | .digits)[(e|E)[+-]digits]` with a `.` or an exponent.
    Float,
    /// `NaN`, `+Inf`, `-Inf`.
    NonFinite,
}

/// Classifies `text` as a number, or `None` when it is not one.
pub(crate) fn number_syntax(text: &str) -> Option<NumberSyntax> {
    if matches!(text, "NaN" | "+Inf" | "-Inf") {
        return Some(NumberSyntax::NonFinite);
    }
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let int_start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    let mut is_float = false;
    if b.get(i) == Some(&b'.') {
        is_float = true;
        i += 1;
        let frac_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        frac_digits = i - frac_start;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        is_float = true;
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == exp_start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    Some(if is_float {
        NumberSyntax::Float
    } else {
        NumberSyntax::Integer
    })
}

/// Parses text of [`NumberSyntax::Float`] or [`NumberSyntax::NonFinite`] syntax; `None` when a
/// finite-looking text overflows to infinity.
pub(crate) fn parse_float(text: &str) -> Option<f64> {
    match text {
        "NaN" => Some(f64::NAN),
        "+Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        _ => text.parse::<f64>().ok().filter(|f| f.is_finite()),
    }
}

fn number(text: &str) -> Option<Value> {
    match number_syntax(text)? {
        // `str::parse::<i64>` accepts exactly `[+-]digits`, leading zeros included.
        NumberSyntax::Integer => text.parse::<i64>().ok().map(Value::Int),
        NumberSyntax::Float | NumberSyntax::NonFinite => parse_float(text).map(Value::Float),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> Value {
        Value::String(t.to_owned())
    }

    #[test]
    fn booleans_in_any_case() {
        for t in ["true", "TRUE", "True", "tRuE"] {
            assert_eq!(infer_scalar(t), Value::Bool(true), "{t}");
        }
        for t in ["false", "FALSE", "False"] {
            assert_eq!(infer_scalar(t), Value::Bool(false), "{t}");
        }
        assert_eq!(infer_scalar("yes"), s("yes"));
        assert_eq!(infer_scalar("truee"), s("truee"));
    }

    #[test]
    fn null_in_any_case() {
        for t in ["null", "NULL", "Null"] {
            assert_eq!(infer_scalar(t), Value::Null, "{t}");
        }
        assert_eq!(infer_scalar("nil"), s("nil"));
        assert_eq!(infer_scalar("None"), s("None"));
    }

    #[test]
    fn integers_with_sign_and_leading_zeros() {
        assert_eq!(infer_scalar("123"), Value::Int(123));
        assert_eq!(infer_scalar("-42"), Value::Int(-42));
        assert_eq!(infer_scalar("+5"), Value::Int(5));
        assert_eq!(infer_scalar("007"), Value::Int(7));
        assert_eq!(infer_scalar("-007"), Value::Int(-7));
        assert_eq!(infer_scalar("00"), Value::Int(0));
        assert_eq!(infer_scalar("-0"), Value::Int(0));
        assert_eq!(infer_scalar("9223372036854775807"), Value::Int(i64::MAX));
        assert_eq!(infer_scalar("-9223372036854775808"), Value::Int(i64::MIN));
    }

    #[test]
    fn integers_beyond_i64_stay_strings() {
        assert_eq!(
            infer_scalar("9223372036854775808"),
            s("9223372036854775808")
        );
        assert_eq!(
            infer_scalar("-9223372036854775809"),
            s("-9223372036854775809")
        );
        assert_eq!(
            infer_scalar("123456789012345678901234567890"),
            s("123456789012345678901234567890")
        );
    }

    #[test]
    fn floats_need_a_point_or_an_exponent() {
        assert_eq!(infer_scalar("2.75"), Value::Float(2.75));
        assert_eq!(infer_scalar("1.23e10"), Value::Float(1.23e10));
        assert_eq!(infer_scalar("1e5"), Value::Float(1e5));
        assert_eq!(infer_scalar("1E+05"), Value::Float(1e5));
        assert_eq!(infer_scalar("-2.5e-3"), Value::Float(-2.5e-3));
        assert_eq!(infer_scalar("1."), Value::Float(1.0));
        assert_eq!(infer_scalar(".5"), Value::Float(0.5));
        assert_eq!(infer_scalar("-.5"), Value::Float(-0.5));
        assert_eq!(infer_scalar("1.10"), Value::Float(1.1));
        assert!(
            matches!(infer_scalar("-0.0"), Value::Float(f) if f == 0.0 && f.is_sign_negative())
        );
        assert_eq!(infer_scalar("1e-999"), Value::Float(0.0));
    }

    #[test]
    fn malformed_numbers_are_strings() {
        for t in [
            ".", "-", "+", "e5", "1e", "1e+", "1.2.3", "1_000", "0x10", "1,000", "--5", "+-5",
            "- 5", "5 ", " 5", "12abc", "١٢", "0b1", "1d", "1f", "+.e1",
        ] {
            assert_eq!(infer_scalar(t), s(t), "{t:?}");
        }
    }

    #[test]
    fn float_overflow_stays_a_string() {
        assert_eq!(infer_scalar("1e999"), s("1e999"));
        assert_eq!(infer_scalar("-1e309"), s("-1e309"));
    }

    #[test]
    fn special_floats_exact_spellings_only() {
        assert!(matches!(infer_scalar("NaN"), Value::Float(f) if f.is_nan()));
        assert_eq!(infer_scalar("+Inf"), Value::Float(f64::INFINITY));
        assert_eq!(infer_scalar("-Inf"), Value::Float(f64::NEG_INFINITY));
        for t in [
            "nan",
            "NAN",
            "Nan",
            "inf",
            "Inf",
            "INF",
            "Infinity",
            "-Infinity",
            "+NaN",
            "-NaN",
            "infinity",
        ] {
            assert_eq!(infer_scalar(t), s(t), "{t}");
        }
    }

    #[test]
    fn quoted_values_stay_strings_with_their_quotes() {
        assert_eq!(infer_scalar("\"true\""), s("\"true\""));
        assert_eq!(infer_scalar("\"42\""), s("\"42\""));
        assert_eq!(infer_scalar("'null'"), s("'null'"));
        assert_eq!(infer_scalar("\""), s("\""));
    }

    #[test]
    fn empty_and_untrimmed_text_are_strings() {
        assert_eq!(infer_scalar(""), s(""));
        assert_eq!(infer_scalar(" true"), s(" true"));
        assert_eq!(infer_scalar("true\n"), s("true\n"));
    }
}
