//! [`Value`] as a serde `Deserializer`: `T::deserialize(value)` and [`from_value`] work as
//! `serde_json::from_value` does.
//!
//! The mapping is strict, as serde_json's is: a [`Value::String`] does not become a number and a
//! [`Value::Int`] does not become a `String`. (To read the *raw tree* by the target type, so that
//! a `String` field receives `007`, use [`crate::decode::decode`].) `Option` fields read `null`
//! as `None`; enums are a string (unit variant) or an object with one member (variant with data).
//! A [`Value::BigInt`] is offered as a `u64`, `i128` or `u128`, whichever holds it (so an `i128`
//! field receives it exactly), and beyond 128 bits as the nearest `f64`.

use crate::{BigInt, Map, Value};
use serde::de::value::{BorrowedStrDeserializer, MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Unexpected, Visitor};
use serde::forward_to_deserialize_any;
use std::fmt;

/// Why a [`Value`] could not be deserialized into the target type.
///
/// ```
/// let err = arg_types::from_value::<u8>(arg_types::Value::Int(300)).unwrap_err();
/// assert_eq!(err.to_string(), "invalid value: integer `300`, expected u8");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error {
            message: msg.to_string(),
        }
    }
}

/// Deserializes a `T` from a [`Value`], like `serde_json::from_value`.
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Args { path: String, line: Option<u32>, tags: Vec<String> }
///
/// let v: arg_types::Value = serde_json::json!({"path": "a.rs", "line": 3, "tags": ["x"]}).into();
/// let args: Args = arg_types::from_value(v).unwrap();
/// assert_eq!(args, Args { path: "a.rs".into(), line: Some(3), tags: vec!["x".into()] });
/// ```
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    T::deserialize(value)
}

/// Deserializes a `T` from a borrowed [`Value`]; `&str` fields may borrow from it.
///
/// ```
/// let v = arg_types::Value::String("hello".into());
/// let s: &str = arg_types::de::from_value_ref(&v).unwrap();
/// assert_eq!(s, "hello");
/// ```
pub fn from_value_ref<'de, T: serde::Deserialize<'de>>(value: &'de Value) -> Result<T, Error> {
    T::deserialize(value)
}

fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Int(i) => Unexpected::Signed(*i),
        Value::BigInt(_) => Unexpected::Other("an integer beyond 64 bits"),
        Value::Float(f) => Unexpected::Float(*f),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

impl<'de> IntoDeserializer<'de, Error> for Value {
    type Deserializer = Value;

    fn into_deserializer(self) -> Value {
        self
    }
}

impl<'de> IntoDeserializer<'de, Error> for &'de Value {
    type Deserializer = &'de Value;

    fn into_deserializer(self) -> &'de Value {
        self
    }
}

/// Offers a large integer to `visitor` in the narrowest type that holds it.
fn visit_big_int<'de, V: Visitor<'de>>(n: &BigInt, visitor: V) -> Result<V::Value, Error> {
    if let Some(u) = n.to_u64() {
        visitor.visit_u64(u)
    } else if let Some(i) = n.to_i128() {
        visitor.visit_i128(i)
    } else if let Some(u) = n.to_u128() {
        visitor.visit_u128(u)
    } else {
        visitor.visit_f64(n.to_f64())
    }
}

/// The one member of an object read as an enum variant with data.
fn single_member(m: &Map) -> Result<(), Error> {
    if m.len() == 1 {
        Ok(())
    } else {
        Err(de::Error::invalid_length(
            m.len(),
            &"an object with exactly one member (the variant)",
        ))
    }
}

impl<'de> Deserializer<'de> for Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(i) => visitor.visit_i64(i),
            Value::BigInt(n) => visit_big_int(&n, visitor),
            Value::Float(f) => visitor.visit_f64(f),
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => SeqDeserializer::new(items.into_iter()).deserialize_any(visitor),
            Value::Object(m) => MapDeserializer::new(m.into_iter()).deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            Value::String(s) => visitor.visit_enum(s.into_deserializer()),
            Value::Object(m) => {
                single_member(&m)?;
                visitor.visit_enum(de::value::MapAccessDeserializer::new(MapDeserializer::new(
                    m.into_iter(),
                )))
            }
            other => Err(de::Error::invalid_type(
                unexpected(&other),
                &"a string or an object with one member",
            )),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

impl<'de> Deserializer<'de> for &'de Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Int(i) => visitor.visit_i64(*i),
            Value::BigInt(n) => visit_big_int(n, visitor),
            Value::Float(f) => visitor.visit_f64(*f),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => SeqDeserializer::new(items.iter()).deserialize_any(visitor),
            Value::Object(m) => MapDeserializer::new(
                m.iter()
                    .map(|(k, v)| (BorrowedStrDeserializer::<Error>::new(k), v)),
            )
            .deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            Value::String(s) => visitor.visit_enum(BorrowedStrDeserializer::<Error>::new(s)),
            Value::Object(m) => {
                single_member(m)?;
                visitor.visit_enum(de::value::MapAccessDeserializer::new(MapDeserializer::new(
                    m.iter()
                        .map(|(k, v)| (BorrowedStrDeserializer::<Error>::new(k), v)),
                )))
            }
            other => Err(de::Error::invalid_type(
                unexpected(other),
                &"a string or an object with one member",
            )),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Edit {
        search: String,
        replace: String,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Args {
        path: String,
        edits: Vec<Edit>,
        dry_run: Option<bool>,
        ratio: f32,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    enum Mode {
        Fast,
        Limit(u8),
        Range { from: i32, to: i32 },
    }

    fn v(j: serde_json::Value) -> Value {
        j.into()
    }

    #[test]
    fn struct_like_serde_json() {
        let value = v(json!({
            "path": "a.rs",
            "edits": [{"search": "x", "replace": "y"}],
            "dry_run": null,
            "ratio": 0.5
        }));
        let expected = Args {
            path: "a.rs".into(),
            edits: vec![Edit {
                search: "x".into(),
                replace: "y".into(),
            }],
            dry_run: None,
            ratio: 0.5,
        };
        assert_eq!(from_value::<Args>(value.clone()).unwrap(), expected);
        assert_eq!(Args::deserialize(&value).unwrap(), expected);
        let from_json: Args = serde_json::from_value(serde_json::Value::from(value)).unwrap();
        assert_eq!(from_json, expected);
    }

    #[test]
    fn strict_types_like_serde_json() {
        assert!(from_value::<String>(Value::Int(7)).is_err());
        assert!(from_value::<i64>(Value::String("7".into())).is_err());
        assert!(from_value::<u8>(Value::Int(-1)).is_err());
        assert!(from_value::<i64>(Value::Float(1.0)).is_err());
        assert_eq!(from_value::<f64>(Value::Int(2)).unwrap(), 2.0);
        assert!(from_value::<f64>(Value::Float(f64::NAN)).unwrap().is_nan());
        let err = from_value::<Args>(v(json!({"path": 1}))).unwrap_err();
        assert_eq!(
            err.message(),
            "invalid type: integer `1`, expected a string"
        );
    }

    #[test]
    fn unknown_fields_and_missing_fields() {
        let err = from_value::<Args>(v(json!({"path": "a", "edits": [], "ratio": 1.0, "x": 1})))
            .unwrap_err();
        assert!(err.to_string().contains("unknown field `x`"), "{err}");
        let err = from_value::<Args>(v(json!({"path": "a"}))).unwrap_err();
        assert_eq!(err.to_string(), "missing field `edits`");
    }

    #[test]
    fn enums() {
        assert_eq!(from_value::<Mode>(v(json!("Fast"))).unwrap(), Mode::Fast);
        assert_eq!(
            from_value::<Mode>(v(json!({"Limit": 3}))).unwrap(),
            Mode::Limit(3)
        );
        assert_eq!(
            Mode::deserialize(&v(json!({"Range": {"from": 1, "to": 2}}))).unwrap(),
            Mode::Range { from: 1, to: 2 }
        );
        assert!(from_value::<Mode>(v(json!({"Limit": 3, "Fast": null}))).is_err());
        assert!(from_value::<Mode>(v(json!(3))).is_err());
    }

    #[test]
    fn maps_tuples_and_values() {
        let m: BTreeMap<String, Vec<i64>> = from_value(v(json!({"a": [1, 2], "b": []}))).unwrap();
        assert_eq!(m["a"], [1, 2]);
        let t: (bool, String, ()) = from_value(v(json!([true, "x", null]))).unwrap();
        assert_eq!(t, (true, "x".into(), ()));
        assert!(from_value::<(bool,)>(v(json!([true, 1]))).is_err());
        let original = v(json!({"k": [1, 2.5, "s", null, {"z": false}]}));
        assert_eq!(from_value::<Value>(original.clone()).unwrap(), original);
        let j: serde_json::Value = from_value(original.clone()).unwrap();
        assert_eq!(Value::from(j), original);
    }

    #[test]
    fn big_ints_reach_128_bit_fields_exactly() {
        let v = Value::from(i128::MIN);
        assert_eq!(from_value::<i128>(v.clone()).unwrap(), i128::MIN);
        assert!(from_value::<i64>(v.clone()).is_err());
        assert_eq!(from_value::<Value>(v.clone()).unwrap(), v);
        let u = Value::from(u64::MAX);
        assert_eq!(u64::deserialize(&u).unwrap(), u64::MAX);
        assert_eq!(
            from_value::<serde_json::Value>(u).unwrap(),
            json!(18446744073709551615u64)
        );
        let huge = Value::parse_integer(&"9".repeat(40)).unwrap();
        assert_eq!(from_value::<f64>(huge).unwrap(), 1e40);
    }

    #[test]
    fn borrowed_strings() {
        let value = v(json!({"name": "n"}));
        #[derive(Deserialize)]
        struct B<'a> {
            name: &'a str,
        }
        let b: B<'_> = from_value_ref(&value).unwrap();
        assert_eq!(b.name, "n");
    }
}
