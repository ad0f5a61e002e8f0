//! Numbers kept exactly: [`BigInt`], integers beyond `i64` as their digits, and the exact
//! comparison of decimal texts that schema `enum`/`const` checks and `integer` coercion use.
//!
//! A number is never compared through `f64` here: `9007199254740993` and `9007199254740992`
//! differ, `1.00000000000000001` is not a whole number, and `2.50`, `2.5` and `25e-1` are the same
//! number. Decimal text is normalized to a sign, its significant digits and a power of ten.
//!
//! ```
//! use arg_types::Value;
//! let big = Value::parse_integer("-123456789012345678901234567890").unwrap();
//! assert_eq!(big.to_string(), "-123456789012345678901234567890");
//! assert_eq!(serde_json::to_string(&big).unwrap(), "-123456789012345678901234567890");
//! assert_eq!(Value::parse_integer("+007"), Some(Value::Int(7)));
//! ```

use crate::Value;
use crate::infer::{NumberSyntax, number_syntax};
use std::fmt;

/// An integer outside `i64`, kept exactly as its decimal digits.
///
/// Its text is canonical: `-` for a negative number, then the digits without leading zeros. A
/// `BigInt` is only ever made for integers that do not fit `i64` (those are [`Value::Int`]), so
/// each integer has one representation and equality is equality of the digits. Make one with
/// [`Value::parse_integer`], or `Value::from` a `u64`, `i128` or `u128`.
///
/// ```
/// use arg_types::Value;
/// let Some(Value::BigInt(n)) = Value::parse_integer("18446744073709551615") else { panic!() };
/// assert_eq!(n.as_str(), "18446744073709551615");
/// assert_eq!(n.to_u64(), Some(u64::MAX));
/// assert!(!n.is_negative());
/// assert_eq!(Value::from(u64::MAX), Value::BigInt(n));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BigInt(Box<str>);

impl BigInt {
    /// The canonical digits, with `-` first when negative.
    ///
    /// ```
    /// let v = arg_types::Value::parse_integer("-0009223372036854775809").unwrap();
    /// assert_eq!(v.as_big_int().unwrap().as_str(), "-9223372036854775809");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the integer is below zero.
    ///
    /// ```
    /// let v = arg_types::Value::from(i128::MIN);
    /// assert!(v.as_big_int().unwrap().is_negative());
    /// ```
    pub fn is_negative(&self) -> bool {
        self.0.starts_with('-')
    }

    /// The nearest `f64` (correctly rounded; infinite beyond `f64::MAX`).
    ///
    /// ```
    /// let v = arg_types::Value::parse_integer("9223372036854775809").unwrap();
    /// assert_eq!(v.as_big_int().unwrap().to_f64(), 9223372036854775808.0);
    /// ```
    pub fn to_f64(&self) -> f64 {
        self.0.parse().unwrap_or(f64::NAN)
    }

    /// The integer as a `u64`, when it fits.
    ///
    /// ```
    /// let v = arg_types::Value::from(u128::MAX);
    /// assert_eq!(v.as_big_int().unwrap().to_u64(), None);
    /// ```
    pub fn to_u64(&self) -> Option<u64> {
        self.0.parse().ok()
    }

    /// The integer as an `i128`, when it fits.
    ///
    /// ```
    /// let v = arg_types::Value::from(i128::MIN);
    /// assert_eq!(v.as_big_int().unwrap().to_i128(), Some(i128::MIN));
    /// ```
    pub fn to_i128(&self) -> Option<i128> {
        self.0.parse().ok()
    }

    /// The integer as a `u128`, when it fits.
    ///
    /// ```
    /// let v = arg_types::Value::from(u128::MAX);
    /// assert_eq!(v.as_big_int().unwrap().to_u128(), Some(u128::MAX));
    /// ```
    pub fn to_u128(&self) -> Option<u128> {
        self.0.parse().ok()
    }
}

impl fmt::Display for BigInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The integer of canonical digits `digits` (no sign, no leading zeros, not empty) as a value.
fn integer_value(negative: bool, digits: &str) -> Value {
    debug_assert!(digits.bytes().all(|b| b.is_ascii_digit()), "{digits}");
    // Up to 18 digits always fit `i64`: read without a copy (arguments are such integers).
    if digits.len() <= 18 {
        let n = (digits.bytes()).fold(0i64, |n, b| n * 10 + i64::from(b - b'0'));
        return Value::Int(if negative { -n } else { n });
    }
    let mut text = String::with_capacity(digits.len() + 1);
    if negative && digits != "0" {
        text.push('-');
    }
    text.push_str(digits);
    match text.parse::<i64>() {
        Ok(i) => Value::Int(i),
        Err(_) => Value::BigInt(BigInt(text.into_boxed_str())),
    }
}

/// The value of `text`, which [`number_syntax`] found to be integer text (`[+-]digits`).
pub(crate) fn integer_text_value(text: &str) -> Value {
    let (negative, digits) = match text.as_bytes()[0] {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let digits = digits.trim_start_matches('0');
    integer_value(negative, if digits.is_empty() { "0" } else { digits })
}

impl Value {
    /// The integer written `[+-]digits` (ASCII digits, leading zeros allowed): [`Value::Int`]
    /// when it fits `i64`, else [`Value::BigInt`] with every digit; `None` for any other text.
    ///
    /// ```
    /// use arg_types::Value;
    /// assert_eq!(Value::parse_integer("-42"), Some(Value::Int(-42)));
    /// let big = Value::parse_integer("9223372036854775808").unwrap();
    /// assert_eq!(big.type_name(), "integer");
    /// assert_eq!(big.to_string(), "9223372036854775808");
    /// assert_eq!(Value::parse_integer("1.0"), None);
    /// assert_eq!(Value::parse_integer(" 1"), None);
    /// ```
    pub fn parse_integer(text: &str) -> Option<Value> {
        (number_syntax(text) == Some(NumberSyntax::Integer)).then(|| integer_text_value(text))
    }

    /// The [`BigInt`], if this is one.
    ///
    /// ```
    /// assert!(arg_types::Value::Int(1).as_big_int().is_none());
    /// ```
    pub fn as_big_int(&self) -> Option<&BigInt> {
        match self {
            Value::BigInt(n) => Some(n),
            _ => None,
        }
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        match i64::try_from(n) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::BigInt(BigInt(n.to_string().into_boxed_str())),
        }
    }
}

impl From<i128> for Value {
    fn from(n: i128) -> Self {
        match i64::try_from(n) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::BigInt(BigInt(n.to_string().into_boxed_str())),
        }
    }
}

impl From<u128> for Value {
    fn from(n: u128) -> Self {
        match i64::try_from(n) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::BigInt(BigInt(n.to_string().into_boxed_str())),
        }
    }
}

/// Exponents are held up to this magnitude; beyond it they saturate (`1e10^31` and `1e10^32`
/// compare equal). Texts are far shorter than 10^30 digits, so nothing real is affected.
const MAX_EXPONENT: i128 = 1_000_000_000_000_000_000_000_000_000_000;

/// A decimal number exactly: `±0.DIGITS × 10^point`, with no leading or trailing zero in
/// `digits`; zero has empty digits, point 0 and no sign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decimal {
    negative: bool,
    digits: String,
    point: i128,
}

impl Decimal {
    /// Reads text of integer or float syntax ([`number_syntax`]: `[+-]`, digits, an optional
    /// `.` and fraction, an optional exponent); `None` for anything else, `NaN` and the
    /// infinities included.
    pub(crate) fn parse(text: &str) -> Option<Decimal> {
        if !matches!(
            number_syntax(text),
            Some(NumberSyntax::Integer | NumberSyntax::Float)
        ) {
            return None;
        }
        let (negative, rest) = match text.as_bytes()[0] {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        let (mantissa, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], parse_exponent(&rest[i + 1..])),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let int = int.trim_start_matches('0');
        let (mut digits, point) = if int.is_empty() {
            let sig = frac.trim_start_matches('0');
            let zeros = (frac.len() - sig.len()) as i128;
            (sig.to_owned(), exp - zeros)
        } else {
            let mut d = String::with_capacity(int.len() + frac.len());
            d.push_str(int);
            d.push_str(frac);
            (d, int.len() as i128 + exp)
        };
        let kept = digits.trim_end_matches('0').len();
        digits.truncate(kept);
        if digits.is_empty() {
            return Some(Decimal {
                negative: false,
                digits,
                point: 0,
            });
        }
        Some(Decimal {
            negative,
            digits,
            point,
        })
    }

    /// The decimal of a finite number value; `None` for other values and non-finite floats.
    pub(crate) fn of_value(v: &Value) -> Option<Decimal> {
        match v {
            Value::Int(i) => Decimal::parse(&i.to_string()),
            Value::BigInt(n) => Decimal::parse(n.as_str()),
            // Debug is the shortest text that reads back as the same f64.
            Value::Float(f) if f.is_finite() => Decimal::parse(&format!("{f:?}")),
            _ => None,
        }
    }

    /// The decimal of a JSON number, from serde_json's text of it (exact for integers, the
    /// shortest round-trip text for floats).
    pub(crate) fn of_json(n: &serde_json::Number) -> Option<Decimal> {
        Decimal::parse(&n.to_string())
    }

    /// The number as an integer value when it is whole and has at most `max_digits` digits;
    /// `Err(true)` when it is whole but longer, `Err(false)` when it has a fractional part.
    pub(crate) fn to_integer(&self, max_digits: usize) -> Result<Value, bool> {
        if self.digits.is_empty() {
            return Ok(Value::Int(0));
        }
        let len = self.digits.len() as i128;
        if self.point < len {
            return Err(false);
        }
        if self.point > max_digits as i128 {
            return Err(true);
        }
        let mut digits = self.digits.clone();
        for _ in len..self.point {
            digits.push('0');
        }
        Ok(integer_value(self.negative, &digits))
    }
}

/// The exponent digits (with an optional sign), saturating at [`MAX_EXPONENT`].
fn parse_exponent(text: &str) -> i128 {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut e: i128 = 0;
    for b in digits.bytes() {
        e = (e * 10 + i128::from(b - b'0')).min(MAX_EXPONENT);
    }
    if negative { -e } else { e }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// An integer of any length reads as `str::parse` reads it when it fits `i64`, and as
        /// its canonical digits when it does not (the short path and the long one agree at
        /// 18, 19 and 20 digits).
        #[test]
        fn integers_read_as_std_reads_them(
            sign in "[+-]?",
            zeros in "0{0,3}",
            digits in "[0-9]{1,22}",
        ) {
            let text = format!("{sign}{zeros}{digits}");
            let v = Value::parse_integer(&text).expect("integer text");
            match text.parse::<i64>() {
                Ok(i) => prop_assert_eq!(v, Value::Int(i)),
                Err(_) => {
                    let canonical = digits.trim_start_matches('0');
                    let minus = if sign == "-" { "-" } else { "" };
                    let Value::BigInt(b) = &v else { panic!("{text}: {v:?}") };
                    prop_assert_eq!(b.as_str(), format!("{minus}{canonical}"));
                }
            }
        }
    }

    fn d(text: &str) -> Decimal {
        Decimal::parse(text).unwrap_or_else(|| panic!("{text}"))
    }

    #[test]
    fn equal_numbers_normalize_alike() {
        for group in [
            &["2.5", "2.50", "25e-1", "0.25E1", "+2.5", "00002.5000"][..],
            &["0", "-0", "0.0", "-0e5", ".0", "0.", "000"],
            &["1000", "1e3", "1.000e3", "10E2", "0.001e6"],
            &["-0.001", "-1e-3", "-.001", "-0.0010"],
            &["9007199254740993", "9.007199254740993e15"],
        ] {
            for t in group {
                assert_eq!(d(t), d(group[0]), "{t} vs {}", group[0]);
            }
        }
    }

    #[test]
    fn different_numbers_differ_however_close() {
        for (a, b) in [
            ("9007199254740992", "9007199254740993"),
            ("1", "1.00000000000000001"),
            ("0.1", "0.1000000000000000055511151231257827"),
            ("1e400", "1e401"),
            ("-1", "1"),
            ("12", "1.2"),
            ("123", "12"),
        ] {
            assert_ne!(d(a), d(b), "{a} vs {b}");
        }
    }

    #[test]
    fn not_numbers() {
        for t in [
            "NaN", "+Inf", "-Inf", "", "1.2.3", "0x10", " 1", "1_0", "e5",
        ] {
            assert_eq!(Decimal::parse(t), None, "{t}");
        }
    }

    #[test]
    fn whole_numbers_expand_exactly_and_within_a_bound() {
        assert_eq!(d("1e3").to_integer(100), Ok(Value::Int(1000)));
        assert_eq!(d("-7.000").to_integer(100), Ok(Value::Int(-7)));
        assert_eq!(d("-0.0").to_integer(100), Ok(Value::Int(0)));
        assert_eq!(
            d("9.007199254740993e15").to_integer(100),
            Ok(Value::Int(9_007_199_254_740_993))
        );
        assert_eq!(
            d("1e20").to_integer(100).unwrap().to_string(),
            "100000000000000000000"
        );
        assert_eq!(d("1.00000000000000001").to_integer(100), Err(false));
        assert_eq!(d("1.5e1").to_integer(100), Ok(Value::Int(15)));
        assert_eq!(d("1.55e1").to_integer(100), Err(false));
        assert_eq!(d("1e100").to_integer(100).map(|_| ()), Err(true));
        assert_eq!(
            d("1e99").to_integer(100).map(|v| v.to_string().len()),
            Ok(100)
        );
        // A huge exponent saturates rather than overflowing.
        assert_eq!(
            d("1e99999999999999999999999999999999999999999").to_integer(10),
            Err(true)
        );
        assert_eq!(
            d("1e-99999999999999999999999999999999999999999").to_integer(10),
            Err(false)
        );
    }

    #[test]
    fn values_and_json_numbers_have_decimals() {
        assert_eq!(Decimal::of_value(&Value::Float(2.5)), Some(d("2.5")));
        assert_eq!(Decimal::of_value(&Value::Float(-0.0)), Some(d("0")));
        assert_eq!(Decimal::of_value(&Value::Float(f64::NAN)), None);
        assert_eq!(
            Decimal::of_value(&Value::from(u64::MAX)),
            Some(d("18446744073709551615"))
        );
        let n: serde_json::Number = serde_json::from_str("9007199254740993").unwrap();
        assert_eq!(Decimal::of_json(&n), Some(d("9007199254740993")));
        let f: serde_json::Number = serde_json::from_str("1e21").unwrap();
        assert_eq!(Decimal::of_json(&f), Some(d("1000000000000000000000")));
    }

    #[test]
    fn big_ints_are_canonical() {
        let v = Value::parse_integer("+000018446744073709551616").unwrap();
        assert_eq!(
            v.as_big_int().map(BigInt::as_str),
            Some("18446744073709551616")
        );
        assert_eq!(
            Value::parse_integer("-9223372036854775808"),
            Some(Value::Int(i64::MIN))
        );
        assert_eq!(Value::parse_integer("-000"), Some(Value::Int(0)));
        assert_eq!(
            Value::from(i128::from(i64::MAX) + 1),
            Value::parse_integer("9223372036854775808").unwrap()
        );
        assert_eq!(Value::from(5u64), Value::Int(5));
        assert_eq!(Value::from(-5i128), Value::Int(-5));
    }
}
