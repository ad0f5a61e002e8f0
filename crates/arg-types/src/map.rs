//! [`Map`], the arguments of a call (and the members of an object) in document order.
//!
//! A [`Map`] is an [`IndexMap<String, Value>`] behind a newtype, for one reason: indexing it by
//! a name it does not hold gives [`Value::Null`] instead of panicking, as indexing a
//! `serde_json::Value` does. So `call.arguments["path"]` is safe whatever the model wrote:
//!
//! ```
//! use arg_types::{Map, Value};
//! let args: Map = [("path".to_string(), Value::from("a.txt"))].into_iter().collect();
//! assert_eq!(args["path"], Value::from("a.txt"));
//! assert_eq!(args["missing"], Value::Null); // no panic
//! assert!(args["missing"].is_null());
//! ```
//!
//! A missing member and a member that is `null` both index as [`Value::Null`]; use
//! [`IndexMap::get`] or [`IndexMap::contains_key`] to tell them apart.
//!
//! Every other operation is the [`IndexMap`]'s: a [`Map`] dereferences to it ([`Deref`] and
//! [`DerefMut`]), so `get`, `insert`, `iter`, `keys`, `len`, `shift_remove`, `entry` and the rest
//! are called on it directly. Positional indexing, `args[0]`, is the value at that position in
//! document order, and [`Value::Null`] past the end, too.
//!
//! There is no [`IndexMut`](std::ops::IndexMut): `args["new"] = v` could not add a member
//! without a panic (serde_json's choice for a non-object) or a silent surprise, so it does not
//! compile; call `insert`, or `get_mut` to change a member in place:
//!
//! ```compile_fail
//! use arg_types::{Map, Value};
//! let mut args = Map::new();
//! args["path"] = Value::from("a.txt"); // error: IndexMut is not implemented for Map
//! ```
//!
//! ```
//! use arg_types::{Map, Value};
//! let mut args = Map::new();
//! args.insert("path".to_string(), Value::from("a.txt"));
//! if let Some(v) = args.get_mut("path") {
//!     *v = Value::from("b.txt");
//! }
//! assert_eq!(args["path"], Value::from("b.txt"));
//! ```

use crate::value::Value;
use indexmap::IndexMap;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt;
use std::ops::{Deref, DerefMut, Index};

/// The value that indexing gives for a missing member or item.
static NULL: Value = Value::Null;

/// An ordered map from argument names to values, keeping document order; indexing it by a
/// missing name gives [`Value::Null`] (see the [module](crate::map) documentation).
///
/// ```
/// use arg_types::{Map, Value};
/// let mut m = Map::new();
/// m.insert("line".to_string(), Value::Int(3));
/// assert_eq!(m["line"], Value::Int(3));
/// assert_eq!(m["column"], Value::Null);
/// assert_eq!(m.len(), 1); // IndexMap's methods, through Deref
/// ```
///
/// Equality is the [`IndexMap`]'s: the same members with equal values, in any order.
/// Serialization is transparent: a [`Map`] is written and read as the JSON object it holds.
///
/// ```
/// use arg_types::{Map, Value};
/// let m: Map = serde_json::from_str(r#"{"b":1,"a":[true]}"#).unwrap();
/// assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"b":1,"a":[true]}"#);
/// let swapped: Map = serde_json::from_str(r#"{"a":[true],"b":1}"#).unwrap();
/// assert_eq!(m, swapped);
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Map(IndexMap<String, Value>);

impl Map {
    /// An empty map.
    ///
    /// ```
    /// assert!(arg_types::Map::new().is_empty());
    /// ```
    pub fn new() -> Self {
        Map(IndexMap::new())
    }

    /// An empty map with room for `capacity` members.
    ///
    /// ```
    /// let m = arg_types::Map::with_capacity(4);
    /// assert!(m.is_empty() && m.capacity() >= 4);
    /// ```
    pub fn with_capacity(capacity: usize) -> Self {
        Map(IndexMap::with_capacity(capacity))
    }

    /// The [`IndexMap`] inside.
    ///
    /// ```
    /// use arg_types::{Map, Value};
    /// let m = Map::from([("a".to_string(), Value::Int(1))]);
    /// let inner: indexmap::IndexMap<String, Value> = m.into_inner();
    /// assert_eq!(inner["a"], Value::Int(1));
    /// ```
    pub fn into_inner(self) -> IndexMap<String, Value> {
        self.0
    }
}

/// As the [`IndexMap`] inside: `{"name": value, ...}`, no wrapper.
///
/// ```
/// use arg_types::{Map, Value};
/// let m = Map::from([("a".to_string(), Value::Int(1))]);
/// assert_eq!(format!("{m:?}"), format!("{:?}", m.clone().into_inner()));
/// ```
impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// The [`IndexMap`]'s methods, reading.
///
/// ```
/// use arg_types::{Map, Value};
/// let m = Map::from([("a".to_string(), Value::Int(1)), ("b".to_string(), Value::Null)]);
/// assert_eq!(m.get("a"), Some(&Value::Int(1)));
/// assert_eq!(m.get("c"), None); // `get` still tells a missing member from a null one
/// assert_eq!(m.get_index(1), Some((&"b".to_string(), &Value::Null)));
/// assert!(m.contains_key("b") && !m.contains_key("c"));
/// ```
impl Deref for Map {
    type Target = IndexMap<String, Value>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// The [`IndexMap`]'s methods, changing.
///
/// ```
/// use arg_types::{Map, Value};
/// let mut m = Map::new();
/// m.insert("a".to_string(), Value::Int(1));
/// m.insert("b".to_string(), Value::Int(2));
/// m.shift_remove("a");
/// assert_eq!(m.keys().collect::<Vec<_>>(), ["b"]);
/// ```
impl DerefMut for Map {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// The member named `key`, or [`Value::Null`] when there is none (never a panic).
///
/// ```
/// use arg_types::{Map, Value};
/// let m = Map::from([("n".to_string(), Value::Int(7))]);
/// assert_eq!(m["n"], Value::Int(7));
/// assert_eq!(m["absent"], Value::Null);
/// ```
impl Index<&str> for Map {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        self.0.get(key).unwrap_or(&NULL)
    }
}

/// As indexing by `&str`.
///
/// ```
/// use arg_types::{Map, Value};
/// let m = Map::from([("n".to_string(), Value::Int(7))]);
/// assert_eq!(m[&"n".to_string()], Value::Int(7));
/// assert_eq!(m[&String::from("absent")], Value::Null);
/// ```
impl Index<&String> for Map {
    type Output = Value;

    fn index(&self, key: &String) -> &Value {
        &self[key.as_str()]
    }
}

/// The value at position `index` in document order, or [`Value::Null`] past the end (never a
/// panic, unlike [`IndexMap`]'s own positional indexing, which this replaces).
///
/// ```
/// use arg_types::{Map, Value};
/// let m = Map::from([("a".to_string(), Value::Int(1)), ("b".to_string(), Value::Int(2))]);
/// assert_eq!(m[1], Value::Int(2));
/// assert_eq!(m[2], Value::Null);
/// ```
impl Index<usize> for Map {
    type Output = Value;

    fn index(&self, index: usize) -> &Value {
        self.0.get_index(index).map_or(&NULL, |(_, v)| v)
    }
}

/// Wraps an [`IndexMap`], keeping its order.
///
/// ```
/// use arg_types::{Map, Value};
/// let mut inner = indexmap::IndexMap::new();
/// inner.insert("a".to_string(), Value::Null);
/// assert_eq!(Map::from(inner).len(), 1);
/// ```
impl From<IndexMap<String, Value>> for Map {
    fn from(inner: IndexMap<String, Value>) -> Self {
        Map(inner)
    }
}

/// The [`IndexMap`] inside (as [`Map::into_inner`]).
///
/// ```
/// use arg_types::{Map, Value};
/// let inner = indexmap::IndexMap::from(Map::from([("a".to_string(), Value::Null)]));
/// assert!(inner.contains_key("a"));
/// ```
impl From<Map> for IndexMap<String, Value> {
    fn from(m: Map) -> Self {
        m.0
    }
}

/// A map of these members, in this order (a later duplicate name replaces the value in the
/// earlier one's place).
///
/// ```
/// use arg_types::{Map, Value};
/// let m = Map::from([("b".to_string(), Value::Int(1)), ("a".to_string(), Value::Int(2))]);
/// assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "a"]);
/// ```
impl<const N: usize> From<[(String, Value); N]> for Map {
    fn from(members: [(String, Value); N]) -> Self {
        Map(IndexMap::from(members))
    }
}

/// Collects members in order (a later duplicate name replaces the value in the earlier one's
/// place).
///
/// ```
/// use arg_types::{Map, Value};
/// let m: Map = (0..3).map(|i| (format!("k{i}"), Value::Int(i))).collect();
/// assert_eq!(m["k2"], Value::Int(2));
/// ```
impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        Map(IndexMap::from_iter(iter))
    }
}

/// Adds members in order, as [`IndexMap::insert`] does for each.
///
/// ```
/// use arg_types::{Map, Value};
/// let mut m = Map::from([("a".to_string(), Value::Int(1))]);
/// m.extend([("b".to_string(), Value::Int(2)), ("a".to_string(), Value::Int(3))]);
/// assert_eq!(m, Map::from([("a".to_string(), Value::Int(3)), ("b".to_string(), Value::Int(2))]));
/// ```
impl Extend<(String, Value)> for Map {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

/// The members, owned, in order.
///
/// ```
/// use arg_types::{Map, Value};
/// let m = Map::from([("a".to_string(), Value::Int(1))]);
/// let members: Vec<(String, Value)> = m.into_iter().collect();
/// assert_eq!(members, [("a".to_string(), Value::Int(1))]);
/// ```
impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = indexmap::map::IntoIter<String, Value>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// The members, borrowed, in order.
///
/// ```
/// use arg_types::{Map, Value};
/// let m = Map::from([("a".to_string(), Value::Int(1))]);
/// for (name, value) in &m {
///     assert_eq!((name.as_str(), value), ("a", &Value::Int(1)));
/// }
/// ```
impl<'a> IntoIterator for &'a Map {
    type Item = (&'a String, &'a Value);
    type IntoIter = indexmap::map::Iter<'a, String, Value>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// The members, values mutable, in order.
///
/// ```
/// use arg_types::{Map, Value};
/// let mut m = Map::from([("a".to_string(), Value::Int(1))]);
/// for (_, value) in &mut m {
///     *value = Value::Null;
/// }
/// assert_eq!(m["a"], Value::Null);
/// assert!(m.contains_key("a"));
/// ```
impl<'a> IntoIterator for &'a mut Map {
    type Item = (&'a String, &'a mut Value);
    type IntoIter = indexmap::map::IterMut<'a, String, Value>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

/// As the JSON object it holds, members in order (transparent): the text of
/// `Value::Object(map)`.
///
/// ```
/// use arg_types::{Map, Value};
/// let m = Map::from([("z".to_string(), Value::Int(1)), ("a".to_string(), Value::Float(f64::NAN))]);
/// assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"z":1,"a":"NaN"}"#);
/// assert_eq!(serde_json::to_string(&m).unwrap(), serde_json::to_string(&Value::Object(m)).unwrap());
/// ```
impl Serialize for Map {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// From an object, members in order (transparent); a later duplicate name replaces the value.
/// Anything but an object is an error.
///
/// ```
/// use arg_types::{Map, Value};
/// let m: Map = serde_json::from_str(r#"{"b":[1,2.5],"a":null}"#).unwrap();
/// assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "a"]);
/// assert_eq!(m["b"][1], Value::Float(2.5));
/// assert!(serde_json::from_str::<Map>("[1]").is_err());
/// ```
impl<'de> Deserialize<'de> for Map {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MapVisitor)
    }
}

struct MapVisitor;

impl<'de> Visitor<'de> for MapVisitor {
    type Value = Map;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of arguments")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Map, A::Error> {
        let mut m = Map::with_capacity(access.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = access.next_entry::<String, Value>()? {
            m.insert(k, v);
        }
        Ok(m)
    }
}

/// The member `key` of an object, or [`Value::Null`] when this is not an object or has no such
/// member (never a panic), as `serde_json::Value` indexing does.
///
/// ```
/// use arg_types::Value;
/// let v: Value = serde_json::json!({"user": {"name": "ada"}, "tags": ["x"]}).into();
/// assert_eq!(v["user"]["name"], Value::from("ada"));
/// assert_eq!(v["user"]["age"], Value::Null);
/// assert_eq!(v["tags"]["name"], Value::Null); // an array has no members
/// assert_eq!(v["nobody"]["name"], Value::Null);
/// ```
impl Index<&str> for Value {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

/// The item at `index` of an array, or [`Value::Null`] when this is not an array or the index
/// is out of range (never a panic), as `serde_json::Value` indexing does.
///
/// ```
/// use arg_types::Value;
/// let v: Value = serde_json::json!({"tags": ["x", "y"]}).into();
/// assert_eq!(v["tags"][1], Value::from("y"));
/// assert_eq!(v["tags"][2], Value::Null);
/// assert_eq!(v[0], Value::Null); // an object has no items
/// ```
impl Index<usize> for Value {
    type Output = Value;

    fn index(&self, index: usize) -> &Value {
        self.get_index(index).unwrap_or(&NULL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_member_indexes_as_null_and_a_present_one_as_itself() {
        let m = Map::from([
            ("a".to_string(), Value::Int(1)),
            ("n".to_string(), Value::Null),
        ]);
        assert_eq!(m["a"], Value::Int(1));
        assert!(std::ptr::eq(&m["a"], m.get("a").unwrap()));
        assert_eq!(m["n"], Value::Null);
        assert_eq!(m["missing"], Value::Null);
        assert!(!m.contains_key("missing"));
    }

    #[test]
    fn serialization_is_the_objects() {
        let m = Map::from([
            ("z".to_string(), Value::Int(1)),
            ("a".to_string(), Value::Float(0.5)),
        ]);
        let object = Value::Object(m.clone());
        assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"z":1,"a":0.5}"#);
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            serde_json::to_string(&object).unwrap()
        );
        let back: Map = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back.keys().collect::<Vec<_>>(), ["z", "a"]);
    }
}
