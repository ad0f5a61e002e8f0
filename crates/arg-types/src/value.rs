//! [`Value`], the typed form of one argument, and [`Map`], arguments in document order.

use indexmap::IndexMap;

/// One argument value.
///
/// ```
/// use arg_types::{Map, Value};
/// let mut m = Map::new();
/// m.insert("line".to_string(), Value::Int(3));
/// assert_eq!(Value::Object(m).get("line"), Some(&Value::Int(3)));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in `i64`.
    Int(i64),
    /// A floating-point number, possibly non-finite (`NaN`, `+Inf`, `-Inf`).
    Float(f64),
    /// Text.
    String(String),
    /// Values in document order.
    Array(Vec<Value>),
    /// Named values in document order.
    Object(Map),
}

/// An ordered map from argument names to values, keeping document order.
pub type Map = IndexMap<String, Value>;

impl Value {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.get(key),
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
}
