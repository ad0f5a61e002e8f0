//! [`Value`], the typed form of one argument; [`Map`] (arguments in document order) is defined in
//! [`crate::map`] and re-exported here.
//!
//! # JSON
//!
//! [`Value`] converts to and from [`serde_json::Value`] and implements [`Serialize`] and
//! [`Deserialize`]. The mapping is the identity on everything JSON can hold, with three
//! documented edges:
//!
//! - Non-finite floats have no JSON number. They become the JSON **strings** `"NaN"`, `"+Inf"`
//!   and `"-Inf"` (both in `From<Value> for serde_json::Value` and
//!   in [`Serialize`]). Reading JSON back does not turn those strings into floats: a string is a
//!   string.
//! - A JSON integer that fits `i64` becomes [`Value::Int`]; a larger one (`u64` beyond
//!   `i64::MAX`) becomes [`Value::BigInt`], exactly.
//! - A JSON number written with a fraction or exponent (`1.0`, `1e3`) stays a [`Value::Float`].
//! - A [`Value::BigInt`] serializes with every digit (`serde_json::to_string`). In a
//!   `serde_json::Value`, which holds no integer beyond `u64` (the workspace does not build
//!   serde_json with `arbitrary_precision`), one beyond `u64` becomes the nearest `f64`; serialize
//!   the [`Value`] itself to keep every digit. Likewise JSON *text* read through serde_json gives
//!   integers beyond `u64` as the nearest float; [`crate::literal::parse_json`] keeps them.
//!
//! ```
//! use arg_types::Value;
//! let v = Value::Float(f64::NAN);
//! assert_eq!(serde_json::Value::from(v.clone()), serde_json::json!("NaN"));
//! assert_eq!(serde_json::to_string(&v).unwrap(), r#""NaN""#);
//! let big: Value = serde_json::json!(u64::MAX).into();
//! assert_eq!(big, Value::parse_integer("18446744073709551615").unwrap());
//! let huge = Value::parse_integer("123456789012345678901234567890").unwrap();
//! assert_eq!(serde_json::to_string(&huge).unwrap(), "123456789012345678901234567890");
//! assert_eq!(serde_json::Value::from(huge), serde_json::json!(1.2345678901234568e29));
//! ```

pub use crate::map::Map;
pub use crate::number::BigInt;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::fmt;

/// One argument value.
///
/// ```
/// use arg_types::{Map, Value};
/// let mut m = Map::new();
/// m.insert("line".to_string(), Value::Int(3));
/// assert_eq!(Value::Object(m).get("line"), Some(&Value::Int(3)));
/// ```
///
/// # Equality
///
/// Equality is structural and **reflexive**, so `Value` is [`Eq`] and a parse result always
/// equals itself and its clone:
///
/// - two floats are equal when they are the same `f64` bit for bit, except that every `NaN`
///   equals every `NaN` whatever its sign and payload (all are written `NaN`). So
///   `NaN == NaN`, and `0.0 != -0.0` (they are written `0.0` and `-0.0`);
/// - a float never equals an integer (`Int(1) != Float(1.0)`: they are written `1` and `1.0`);
/// - objects are equal when they hold the same members with equal values, in any order (as
///   [`indexmap::IndexMap`] compares); arrays item by item, in order.
///
/// Two values without objects are thus equal exactly when their [`Display`](fmt::Display)
/// texts are.
///
/// ```
/// use arg_types::Value;
/// let nan = Value::Float(f64::NAN);
/// assert_eq!(nan, nan.clone());
/// assert_eq!(nan, Value::Float(-f64::NAN));
/// assert_ne!(Value::Float(0.0), Value::Float(-0.0));
/// assert_ne!(Value::Int(1), Value::Float(1.0));
/// let nested = Value::Array(vec![Value::Float(f64::NAN), Value::Float(f64::INFINITY)]);
/// assert_eq!(nested, nested.clone());
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in `i64`.
    Int(i64),
    /// An integer outside `i64`, every digit kept (see [`BigInt`]).
    BigInt(BigInt),
    /// A floating-point number, possibly non-finite (`NaN`, `+Inf`, `-Inf`).
    Float(f64),
    /// Text.
    String(String),
    /// Values in document order.
    Array(Vec<Value>),
    /// Named values in document order.
    Object(Map),
}

/// Float equality for [`Value`]: the same bits, or both `NaN`. An equivalence relation, unlike
/// `==` on `f64`.
pub(crate) fn same_float(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::BigInt(a), Value::BigInt(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => same_float(*a, *b),
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => a == b,
            _ => false,
        }
    }
}

/// Equality on [`Value`] is reflexive (see [`Value`]'s "Equality").
impl Eq for Value {}

impl Value {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.get(key),
            _ => None,
        }
    }

    /// The item at `index` of an array.
    ///
    /// ```
    /// use arg_types::Value;
    /// let v = Value::Array(vec![Value::Int(1), Value::Int(2)]);
    /// assert_eq!(v.get_index(1), Some(&Value::Int(2)));
    /// assert_eq!(v.get_index(2), None);
    /// ```
    pub fn get_index(&self, index: usize) -> Option<&Value> {
        match self {
            Value::Array(a) => a.get(index),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The integer, if this is a [`Value::Int`].
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The number as `f64` (the nearest one for a large integer), if this is a number.
    ///
    /// ```
    /// use arg_types::Value;
    /// assert_eq!(Value::Int(2).as_f64(), Some(2.0));
    /// assert_eq!(Value::from(u64::MAX).as_f64(), Some(18446744073709551615.0));
    /// assert_eq!(Value::String("2".into()).as_f64(), None);
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::BigInt(n) => Some(n.to_f64()),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The items, if this is an array.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// Whether this is [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The JSON Schema type name of this value: `null`, `boolean`, `integer`, `number`,
    /// `string`, `array` or `object`.
    ///
    /// ```
    /// use arg_types::Value;
    /// assert_eq!(Value::Float(1.5).type_name(), "number");
    /// ```
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::BigInt(_) => "integer",
            Value::Float(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

/// Writes a float so that reading it back gives the same `f64`: shortest round-trip digits,
/// always with a `.` or an exponent, and `NaN`, `+Inf`, `-Inf` for the non-finite values.
pub(crate) fn write_float<W: fmt::Write + ?Sized>(f: f64, out: &mut W) -> fmt::Result {
    if f.is_nan() {
        out.write_str("NaN")
    } else if f.is_infinite() {
        out.write_str(if f > 0.0 { "+Inf" } else { "-Inf" })
    } else {
        // `Debug` for f64 is the shortest text that parses back to the same value, and it always
        // carries a `.` or an `e` (`1.0`, `1e16`, `-0.0`).
        write!(out, "{f:?}")
    }
}

/// The name of a non-finite float in JSON (`"NaN"`, `"+Inf"`, `"-Inf"`), `None` when finite.
fn non_finite_name(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f == f64::INFINITY {
        Some("+Inf")
    } else if f == f64::NEG_INFINITY {
        Some("-Inf")
    } else {
        None
    }
}

/// Compact JSON-like text: JSON, except that floats always show a `.` or an exponent (`1.0`,
/// so that they differ from integers) and non-finite floats appear bare as `NaN`, `+Inf`, `-Inf`.
///
/// ```
/// use arg_types::{Map, Value};
/// let mut m = Map::new();
/// m.insert("a".into(), Value::Array(vec![Value::Int(1), Value::Float(1.0), Value::Null]));
/// m.insert("b".into(), Value::String("say \"hi\"".into()));
/// m.insert("c".into(), Value::Float(f64::NEG_INFINITY));
/// assert_eq!(Value::Object(m).to_string(), r#"{"a":[1,1.0,null],"b":"say \"hi\"","c":-Inf}"#);
/// ```
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::BigInt(n) => f.write_str(n.as_str()),
            Value::Float(x) => write_float(*x, f),
            Value::String(s) => write_json_string(s, f),
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    fmt::Display::fmt(item, f)?;
                }
                f.write_str("]")
            }
            Value::Object(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write_json_string(k, f)?;
                    f.write_str(":")?;
                    fmt::Display::fmt(v, f)?;
                }
                f.write_str("}")
            }
        }
    }
}

fn write_json_string(s: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("\"")?;
    write_json_str_contents(f, s)?;
    f.write_str("\"")
}

/// Writes `s` as the inside of a JSON string, without its quotes, escaped byte for byte as
/// serde_json escapes it: `"` and `\` with a backslash, the control characters below U+0020 as
/// `\b`, `\t`, `\n`, `\f`, `\r` or `\u00XX` (lowercase hexadecimal), everything else as it is.
/// Where text must be serde_json's, this is how it is written: `Value`'s `Display`, and the
/// OpenAI bridge's argument fragments (which must join into serde_json's text of the
/// arguments). (The thread serializer's JSON is another rule: XML-safe, `thread_serializer::json`.)
///
/// ```
/// use arg_types::value::write_json_str_contents;
/// let mut out = String::new();
/// write_json_str_contents(&mut out, "a\"b\\c\n\u{8}\u{1}é").unwrap();
/// assert_eq!(out, r#"a\"b\\c\n\b\u0001é"#);
/// assert_eq!(format!("\"{out}\""), serde_json::to_string("a\"b\\c\n\u{8}\u{1}é").unwrap());
/// ```
///
/// # Errors
///
/// Those of `w` (none, for a `String`).
pub fn write_json_str_contents<W: fmt::Write + ?Sized>(w: &mut W, s: &str) -> fmt::Result {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    loop {
        i = next_json_escape(bytes, i);
        let Some(&b) = bytes.get(i) else { break };
        // `b` is ASCII: `i` and `i + 1` are character boundaries.
        w.write_str(&s[start..i])?;
        match b {
            b'"' => w.write_str("\\\"")?,
            b'\\' => w.write_str("\\\\")?,
            0x08 => w.write_str("\\b")?,
            b'\t' => w.write_str("\\t")?,
            b'\n' => w.write_str("\\n")?,
            0x0C => w.write_str("\\f")?,
            b'\r' => w.write_str("\\r")?,
            _ => {
                let hex = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xF)],
                ];
                w.write_str(std::str::from_utf8(&hex).unwrap_or_default())?;
            }
        }
        i += 1;
        start = i;
    }
    w.write_str(&s[start..])
}

/// Appends the compact JSON of `value` that `serde_json::to_string(value)` gives, byte for
/// byte: strings escaped by [`write_json_str_contents`] (serde_json's escaping, a word at a time,
/// copied in runs), arrays, objects, null, booleans and integers written here, the rest (floats,
/// integers past `i64`) by serde_json itself. For writers of JSON that must be `ToolCall`'s (the
/// OpenAI bridge's fragments), at a fraction of serde_json's cost on long strings.
///
/// ```
/// use arg_types::value::push_json;
/// use arg_types::{Map, Value};
/// let mut args = Map::new();
/// args.insert("path".into(), Value::from("a \"b\"\n"));
/// args.insert("n".into(), Value::Array(vec![Value::Int(-3), Value::Float(0.5), Value::Null]));
/// let v = Value::Object(args);
/// let mut out = String::new();
/// push_json(&mut out, &v);
/// assert_eq!(out, serde_json::to_string(&v).unwrap());
/// ```
pub fn push_json(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => push_i64(out, *i),
        Value::String(s) => push_json_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json(out, item);
            }
            out.push(']');
        }
        Value::Object(m) => push_json_object(out, m),
        Value::BigInt(_) | Value::Float(_) => {
            out.push_str(&serde_json::to_string(value).unwrap_or_else(|_| "null".into()));
        }
    }
}

/// `i` in decimal, as serde_json (and `Display`) writes it, without the formatting machinery.
fn push_i64(out: &mut String, i: i64) {
    if i < 0 {
        out.push('-');
    }
    push_decimal(out, i.unsigned_abs());
}

/// Appends `n` in decimal, as `Display` (and serde_json) writes it, without the formatting
/// machinery, which costs several times as much for a short number: for writers of JSON by
/// hand (`push_json`'s integers, the CLI's event indexes).
///
/// ```
/// let mut out = String::from("[");
/// arg_types::value::push_decimal(&mut out, 0);
/// arg_types::value::push_decimal(&mut out, u64::MAX);
/// assert_eq!(out, format!("[0{}", u64::MAX));
/// ```
pub fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // `n % 10` is below 10: the cast keeps it.
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// [`push_json`] of an object's members: `{"name":value,…}`, as serde_json writes a [`Map`].
///
/// ```
/// use arg_types::{Map, Value};
/// let mut args = Map::new();
/// args.insert("line".into(), Value::Int(3));
/// let mut out = String::new();
/// arg_types::value::push_json_object(&mut out, &args);
/// assert_eq!(out, r#"{"line":3}"#);
/// ```
pub fn push_json_object(out: &mut String, members: &Map) {
    out.push('{');
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_str(out, k);
        out.push(':');
        push_json(out, v);
    }
    out.push('}');
}

/// Appends `s` as a quoted JSON string, escaped as serde_json escapes it
/// ([`write_json_str_contents`]).
///
/// ```
/// let mut out = String::new();
/// arg_types::value::push_json_str(&mut out, "a\"\n");
/// assert_eq!(out, serde_json::to_string("a\"\n").unwrap());
/// ```
pub fn push_json_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    // A short string (a name, a number's text) with nothing to escape, the usual one, is
    // checked by one loop and copied whole.
    if bytes.len() < 8 && !bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s);
    } else {
        // Writing to a `String` cannot fail.
        let _ = write_json_str_contents(out, s);
    }
    out.push('"');
}

/// The position of the first byte at or after `from` that a JSON string escapes (a control
/// character, `"` or `\\`), or the length: a word at a time ([`xml_fallback::swar`]), the last
/// bytes (under eight) one by one. (Reading the string's last word instead, its lanes before
/// them masked off, measured 0.8% more instructions on a 1 MiB argument streamed to the OpenAI
/// bridge in 16-byte fragments.)
fn next_json_escape(bytes: &[u8], from: usize) -> usize {
    use xml_fallback::swar;
    let escapes = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
    let mut i = from;
    while let Some(&eight) = bytes.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
        let w = swar::word(eight);
        let hits = swar::below(w, 0x20) | swar::find_first(w, [b'"', b'\\']);
        if hits != 0 {
            return i + swar::first(hits);
        }
        i += 8;
    }
    (i..bytes.len())
        .find(|&k| escapes(bytes[k]))
        .unwrap_or(bytes.len())
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}

impl From<i32> for Value {
    fn from(i: i32) -> Self {
        Value::Int(i64::from(i))
    }
}

impl From<u32> for Value {
    fn from(i: u32) -> Self {
        Value::Int(i64::from(i))
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::Array(items)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Object(m)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Self {
        o.map_or(Value::Null, Into::into)
    }
}

/// To JSON: the identity, except that non-finite floats become the strings `"NaN"`, `"+Inf"`,
/// `"-Inf"`, and an integer beyond `u64` the nearest float.
impl From<Value> for serde_json::Value {
    fn from(v: Value) -> Self {
        use serde_json::Value as J;
        match v {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(b),
            Value::Int(i) => J::Number(i.into()),
            Value::BigInt(n) => match n.to_u64() {
                Some(u) => J::Number(u.into()),
                None => serde_json::Number::from_f64(n.to_f64()).map_or(J::Null, J::Number),
            },
            Value::Float(f) => match serde_json::Number::from_f64(f) {
                Some(n) => J::Number(n),
                None => J::String(non_finite_name(f).unwrap_or("NaN").to_owned()),
            },
            Value::String(s) => J::String(s),
            Value::Array(items) => J::Array(items.into_iter().map(J::from).collect()),
            Value::Object(m) => J::Object(m.into_iter().map(|(k, v)| (k, J::from(v))).collect()),
        }
    }
}

impl From<&Value> for serde_json::Value {
    fn from(v: &Value) -> Self {
        serde_json::Value::from(v.clone())
    }
}

/// From JSON: integers that fit `i64` become [`Value::Int`], larger ones [`Value::BigInt`],
/// numbers with a fraction or exponent [`Value::Float`]; order of object members is kept.
impl From<serde_json::Value> for Value {
    fn from(j: serde_json::Value) -> Self {
        use serde_json::Value as J;
        match j {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(b),
            J::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Value::Int(i),
                (None, Some(u)) => Value::from(u),
                // Without serde_json's `arbitrary_precision`, every number is an i64, a u64 or
                // an f64, so `as_f64` always answers; NaN cannot occur.
                _ => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            J::String(s) => Value::String(s),
            J::Array(items) => Value::Array(items.into_iter().map(Value::from).collect()),
            J::Object(m) => {
                Value::Object(m.into_iter().map(|(k, v)| (k, Value::from(v))).collect())
            }
        }
    }
}

impl From<&serde_json::Value> for Value {
    fn from(j: &serde_json::Value) -> Self {
        Value::from(j.clone())
    }
}

/// Serializes as the JSON mapping does: non-finite floats as the strings `"NaN"`, `"+Inf"`,
/// `"-Inf"`, so that `serde_json::to_string(&v)` equals the text of `serde_json::Value::from(v)`
/// — except for a [`Value::BigInt`] beyond `u64`, which serializes with every digit, as
/// serde_json's raw number text (`serde_json::to_value` reads that back as the nearest float;
/// formats other than JSON receive serde_json's raw-value token, a struct).
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(i) => serializer.serialize_i64(*i),
            Value::BigInt(n) => match n.to_u64() {
                Some(u) => serializer.serialize_u64(u),
                None => serde_json::value::RawValue::from_string(n.as_str().to_owned())
                    .map_err(serde::ser::Error::custom)?
                    .serialize(serializer),
            },
            Value::Float(f) => match non_finite_name(*f) {
                Some(name) => serializer.serialize_str(name),
                None => serializer.serialize_f64(*f),
            },
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(m) => {
                let mut map = serializer.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// Deserializes from any self-describing format, with the JSON mapping's number rules.
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

/// Reads any JSON value into a `serde_json::Value` through [`Value`]'s own visitor, for
/// `#[serde(deserialize_with = "arg_types::value::deserialize_json")]` on a field that holds JSON
/// from outside (a model, a tool, a client).
///
/// `serde_json::Value`'s own `Deserialize` gives a meaning to the member name
/// `$serde_json::private::RawValue` whenever any crate in the build enables serde_json's
/// `raw_value` feature (this crate does, so that a big integer is written with every digit): an
/// object whose first member has that name is read as the raw JSON text of its value, and an
/// object such as `{"$serde_json::private::RawValue": "x"}` fails to read. Read here, that name is
/// a member like any other. Numbers follow the JSON mapping (`From<Value>`): an integer beyond
/// `u64` is the nearest `f64`, as serde_json reads it.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Event {
///     #[serde(deserialize_with = "arg_types::value::deserialize_json")]
///     result: serde_json::Value,
/// }
/// let text = r#"{"result": {"$serde_json::private::RawValue": "x", "n": 1}}"#;
/// let e: Event = serde_json::from_str(text).unwrap();
/// assert_eq!(e.result["$serde_json::private::RawValue"], "x");
/// assert_eq!(e.result["n"], 1);
/// ```
///
/// # Errors
///
/// The deserializer's error for input that is no value.
pub fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<serde_json::Value, D::Error> {
    Value::deserialize(d).map(serde_json::Value::from)
}

/// As [`deserialize_json`], for a field that must hold a JSON object.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Params {
///     #[serde(default, deserialize_with = "arg_types::value::deserialize_json_object")]
///     arguments: serde_json::Map<String, serde_json::Value>,
/// }
/// let p: Params = serde_json::from_str(r#"{"arguments": {"$serde_json::private::RawValue": 1}}"#).unwrap();
/// assert_eq!(p.arguments.len(), 1);
/// assert!(serde_json::from_str::<Params>(r#"{"arguments": [1]}"#).is_err());
/// ```
///
/// # Errors
///
/// The deserializer's error for input that is no JSON object.
pub fn deserialize_json_object<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<serde_json::Map<String, serde_json::Value>, D::Error> {
    match deserialize_json(d)? {
        serde_json::Value::Object(m) => Ok(m),
        other => Err(serde::de::Error::invalid_type(
            serde::de::Unexpected::Other(json_kind(&other)),
            &"a JSON object",
        )),
    }
}

/// Reads JSON text into a `serde_json::Value` as [`deserialize_json`] does: with no member name
/// that means anything to the reader.
///
/// ```
/// let v = arg_types::value::json_from_str(r#"{"$serde_json::private::RawValue": "x"}"#).unwrap();
/// assert_eq!(v["$serde_json::private::RawValue"], "x");
/// ```
///
/// # Errors
///
/// serde_json's error, with its line and column, for text that is not one JSON value.
pub fn json_from_str(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::from_str::<Value>(text).map(serde_json::Value::from)
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any argument value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut m = Map::with_capacity(access.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = access.next_entry::<String, Value>()? {
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

        /// The next byte a JSON string escapes, from any start, at every length (the word loop,
        /// the bytes after the last whole word, a string shorter than a word): the first byte
        /// below 0x20, `"` or `\\` at or after the start. The bytes include the ones next to
        /// the limits (0x1f, 0x20, 0x7f, 0x80, 0x9f, 0xa0) and escapes before the start.
        #[test]
        fn next_json_escape_is_the_first_escaped_byte(
            bytes in proptest::collection::vec(proptest::sample::select(vec![
                b'a', b' ', b'"', b'\\', 0, 0x1f, 0x20, b'\n', 0x7f, 0x80, 0x9f, 0xa0, 0xe9, 0xff,
            ]), 0..40),
            from in 0usize..41,
        ) {
            let from = from.min(bytes.len());
            let want = (from..bytes.len())
                .find(|&k| bytes[k] < 0x20 || bytes[k] == b'"' || bytes[k] == b'\\')
                .unwrap_or(bytes.len());
            proptest::prop_assert_eq!(next_json_escape(&bytes, from), want);
        }
    }

    #[test]
    fn json_numbers_that_fit_i64_are_ints_and_others_floats() {
        assert_eq!(Value::from(json!(42)), Value::Int(42));
        assert_eq!(Value::from(json!(-7)), Value::Int(-7));
        assert_eq!(Value::from(json!(i64::MAX)), Value::Int(i64::MAX));
        assert_eq!(
            Value::from(json!(i64::MAX as u64 + 1)),
            Value::parse_integer("9223372036854775808").unwrap()
        );
        assert_eq!(Value::from(json!(1.0)), Value::Float(1.0));
        assert_eq!(Value::from(json!(1e3)), Value::Float(1000.0));
    }

    #[test]
    fn non_finite_floats_are_strings_in_json() {
        assert_eq!(
            serde_json::Value::from(Value::Float(f64::INFINITY)),
            json!("+Inf")
        );
        assert_eq!(
            serde_json::Value::from(Value::Float(f64::NEG_INFINITY)),
            json!("-Inf")
        );
        assert_eq!(
            serde_json::Value::from(Value::Float(f64::NAN)),
            json!("NaN")
        );
        // And the strings stay strings on the way back.
        assert_eq!(Value::from(json!("NaN")), Value::String("NaN".into()));
        let v = Value::Array(vec![
            Value::Float(f64::NAN),
            Value::Float(f64::INFINITY),
            Value::Float(f64::NEG_INFINITY),
        ]);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"["NaN","+Inf","-Inf"]"#
        );
    }

    #[test]
    fn serialize_matches_the_json_conversion() {
        let v: Value = json!({"z": 1, "a": [1.5, -0.0, "x", null, true], "m": {}}).into();
        let via_json = serde_json::Value::from(v.clone()).to_string();
        assert_eq!(serde_json::to_string(&v).unwrap(), via_json);
        assert_eq!(via_json, r#"{"z":1,"a":[1.5,-0.0,"x",null,true],"m":{}}"#);
    }

    #[test]
    fn deserialize_keeps_member_order_and_number_rules() {
        let v: Value = serde_json::from_str(r#"{"b":1,"a":18446744073709551615,"c":2.5}"#).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert_eq!(v.get("a"), Some(&Value::from(u64::MAX)));
        assert_eq!(v.get("c"), Some(&Value::Float(2.5)));
    }

    #[test]
    fn display_distinguishes_floats_from_ints() {
        assert_eq!(Value::Float(1.0).to_string(), "1.0");
        assert_eq!(Value::Int(1).to_string(), "1");
        assert_eq!(Value::Float(1e16).to_string(), "1e16");
        assert_eq!(Value::Float(-0.0).to_string(), "-0.0");
        assert_eq!(Value::Float(f64::NAN).to_string(), "NaN");
        assert_eq!(Value::Float(f64::INFINITY).to_string(), "+Inf");
        assert_eq!(
            Value::String("a\u{1}\n".into()).to_string(),
            r#""a\u0001\n""#
        );
    }

    #[test]
    fn accessors() {
        let v: Value = json!({"a": [true, 2, 2.5, null]}).into();
        let a = v.get("a").unwrap();
        assert_eq!(a.get_index(0).and_then(Value::as_bool), Some(true));
        assert_eq!(a.get_index(1).and_then(Value::as_i64), Some(2));
        assert_eq!(a.get_index(2).and_then(Value::as_f64), Some(2.5));
        assert!(a.get_index(3).is_some_and(Value::is_null));
        assert_eq!(a.as_array().map(Vec::len), Some(4));
        assert_eq!(Value::from(None::<i64>), Value::Null);
        assert_eq!(Value::from(Some("x")), Value::String("x".into()));
    }
}
