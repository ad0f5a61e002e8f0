//! Helpers shared by the fuzz targets: structured generators driven by [`Unstructured`], value
//! comparison, and the value predicates of docs/FORMAT.md §5.
//!
//! The generators draw from small pools of the format's own tokens most of the time and from
//! arbitrary text the rest, so that libFuzzer reaches the deep states of the grammar quickly and
//! still tries everything.

#![forbid(unsafe_code)]

use arbitrary::{Result, Unstructured};
use arg_types::{Map, Value};
use serde_json::{Value as Json, json};
use xml_fallback::tree::{Attribute, Element, Node};

/// Deepest nesting the generators build.
pub const MAX_DEPTH: u32 = 5;

/// Pieces of text values: the characters that need escaping, line ends, CDATA markers, text that
/// inference types, and some Unicode.
pub const TEXT_PIECES: &[&str] = &[
    "a",
    "Z",
    "0",
    "7",
    "42",
    "-1.5",
    "1e400",
    "NaN",
    "true",
    "null",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "&",
    "&&",
    "&amp;",
    "&lt;",
    "&#60;",
    "&#x3C;",
    "<",
    ">",
    "<b>",
    "</b>",
    "</tool>",
    "<tool>",
    "]]>",
    "]]",
    "<![CDATA[",
    "\"",
    "'",
    "{",
    "}",
    "é",
    "🦀",
    "\u{1b}",
    "\u{0}",
    "\u{fffe}",
];

/// Element and argument names: ordinary, the format's own, the array-item name, and names that
/// are legal in XML but unusual (dots, dashes, non-ASCII, a namespace prefix).
pub const NAMES: &[&str] = &[
    "a",
    "b",
    "c",
    "path",
    "content",
    "item",
    "tool",
    "tool_name",
    "server_name",
    "arguments",
    "a.b",
    "x-1",
    "données",
    "_",
    "ns:a",
];

/// A text value: pool pieces, or arbitrary text.
pub fn text(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 8)? {
        return u.arbitrary();
    }
    let n = u.int_in_range(0..=6)?;
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(u.choose(TEXT_PIECES)?);
    }
    Ok(s)
}

/// A name: from [`NAMES`] mostly, else arbitrary (usually not an XML name).
pub fn name(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 16)? {
        return u.arbitrary();
    }
    Ok((*u.choose(NAMES)?).to_owned())
}

/// A float, with the special values often.
pub fn float(u: &mut Unstructured<'_>) -> Result<f64> {
    Ok(match u.int_in_range(0..=7)? {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => -0.0,
        4 => 1.0,
        5 => 1e21,
        _ => u.arbitrary()?,
    })
}

/// An argument value, at most `depth` levels of arrays and objects deep.
pub fn value(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    let kinds = if depth == 0 { 4 } else { 6 };
    Ok(match u.int_in_range(0..=kinds)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::Int(u.arbitrary()?),
        3 => Value::Float(float(u)?),
        4 => Value::String(text(u)?),
        5 => {
            let n = u.int_in_range(0..=3)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(value(u, depth - 1)?);
            }
            Value::Array(items)
        }
        _ => Value::Object(map(u, depth - 1)?),
    })
}

/// An object's members, at most `depth` levels deep.
pub fn map(u: &mut Unstructured<'_>, depth: u32) -> Result<Map> {
    let n = u.int_in_range(0..=4)?;
    let mut m = Map::new();
    for _ in 0..n {
        let k = name(u)?;
        let v = value(u, depth)?;
        m.insert(k, v);
    }
    Ok(m)
}

/// Arbitrary JSON, at most `depth` levels deep.
pub fn json(u: &mut Unstructured<'_>, depth: u32) -> Result<Json> {
    let kinds = if depth == 0 { 4 } else { 6 };
    Ok(match u.int_in_range(0..=kinds)? {
        0 => Json::Null,
        1 => Json::Bool(u.arbitrary()?),
        2 => Json::from(u.arbitrary::<i64>()?),
        3 => serde_json::Number::from_f64(float(u)?).map_or(Json::Null, Json::Number),
        4 => Json::String(text(u)?),
        5 => {
            let n = u.int_in_range(0..=3)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(json(u, depth - 1)?);
            }
            Json::Array(items)
        }
        _ => {
            let n = u.int_in_range(0..=3)?;
            let mut m = serde_json::Map::new();
            for _ in 0..n {
                let k: String = if u.ratio(1, 4)? {
                    u.arbitrary()?
                } else {
                    name(u)?
                };
                m.insert(k, json(u, depth - 1)?);
            }
            Json::Object(m)
        }
    })
}

const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "null", "array", "object", "bogus",
];

/// A JSON Schema made of the keywords coercion understands (and some it does not), with local
/// `$ref`s that may point anywhere, loops included; sometimes arbitrary JSON instead.
pub fn schema(u: &mut Unstructured<'_>, depth: u32) -> Result<Json> {
    if depth == 0 || u.ratio(1, 10)? {
        return Ok(match u.int_in_range(0..=4)? {
            0 => Json::Bool(true),
            1 => Json::Bool(false),
            2 => json!({}),
            3 => json!({"type": *u.choose(TYPES)?}),
            _ => json(u, 2)?,
        });
    }
    let mut s = serde_json::Map::new();
    let keywords = u.int_in_range(1..=4)?;
    for _ in 0..keywords {
        match u.int_in_range(0..=14)? {
            0 | 1 => {
                s.insert("type".into(), json!(*u.choose(TYPES)?));
            }
            2 => {
                let a = *u.choose(TYPES)?;
                let b = *u.choose(TYPES)?;
                s.insert("type".into(), json!([a, b]));
            }
            3 | 4 => {
                let n = u.int_in_range(0..=3)?;
                let mut props = serde_json::Map::new();
                for _ in 0..n {
                    props.insert(name(u)?, schema(u, depth - 1)?);
                }
                s.insert("properties".into(), Json::Object(props));
            }
            5 => {
                let n = u.int_in_range(0..=2)?;
                let mut req = Vec::new();
                for _ in 0..n {
                    req.push(Json::String(name(u)?));
                }
                s.insert("required".into(), Json::Array(req));
            }
            6 => {
                let v = if u.arbitrary()? {
                    Json::Bool(u.arbitrary()?)
                } else {
                    schema(u, depth - 1)?
                };
                s.insert("additionalProperties".into(), v);
            }
            7 => {
                s.insert("items".into(), schema(u, depth - 1)?);
            }
            8 => {
                let n = u.int_in_range(0..=2)?;
                let mut items = Vec::new();
                for _ in 0..n {
                    items.push(schema(u, depth - 1)?);
                }
                let key = if u.arbitrary()? {
                    "prefixItems"
                } else {
                    "items"
                };
                s.insert(key.into(), Json::Array(items));
            }
            9 => {
                let n = u.int_in_range(0..=3)?;
                let mut branches = Vec::new();
                for _ in 0..n {
                    branches.push(schema(u, depth - 1)?);
                }
                let key = *u.choose(&["anyOf", "oneOf", "allOf"])?;
                s.insert(key.into(), Json::Array(branches));
            }
            10 => {
                let n = u.int_in_range(0..=3)?;
                let mut values = Vec::new();
                for _ in 0..n {
                    values.push(json(u, 1)?);
                }
                s.insert("enum".into(), Json::Array(values));
            }
            11 => {
                s.insert("const".into(), json(u, 1)?);
            }
            12 => {
                let target = *u.choose(&[
                    "#",
                    "#/$defs/a",
                    "#/$defs/b",
                    "#/properties/a",
                    "#/items",
                    "#/nowhere",
                    "other.json",
                ])?;
                s.insert("$ref".into(), json!(target));
            }
            13 => {
                let mut defs = serde_json::Map::new();
                defs.insert("a".into(), schema(u, depth - 1)?);
                defs.insert("b".into(), schema(u, depth - 1)?);
                s.insert("$defs".into(), Json::Object(defs));
            }
            _ => {
                s.insert("patternProperties".into(), json!({".*": {}}));
            }
        }
    }
    Ok(Json::Object(s))
}

/// An element tree as a parser might produce it: text, CDATA and child elements mixed, at most
/// `depth` levels of children.
pub fn element(u: &mut Unstructured<'_>, name_: String, depth: u32) -> Result<Element> {
    let mut e = Element::new(name_);
    if u.ratio(1, 16)? {
        e.attributes.push(Attribute {
            name: "x".into(),
            value: text(u)?,
        });
    }
    let n = u.int_in_range(0..=4)?;
    for _ in 0..n {
        let child = match u.int_in_range(0..=5)? {
            0 | 1 => Node::Text(text(u)?),
            2 => Node::CData(text(u)?),
            _ if depth > 0 => {
                let child_name = name(u)?;
                Node::Element(element(u, child_name, depth - 1)?)
            }
            _ => Node::Text(text(u)?),
        };
        e.children.push(child);
    }
    Ok(e)
}

/// Equality of values that takes NaN to equal NaN.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => same_map(x, y),
        _ => a == b,
    }
}

/// [`same`] for maps, in order.
pub fn same_map(x: &Map, y: &Map) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y)
            .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
}

/// Whether `c` is a character XML 1.0 forbids (the writers replace it by a visible escape).
pub fn forbidden(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}')
}

/// Whether any string or key in `v` holds a forbidden character.
pub fn holds_forbidden(v: &Value) -> bool {
    match v {
        Value::String(s) => s.chars().any(forbidden),
        Value::Array(items) => items.iter().any(holds_forbidden),
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| k.chars().any(forbidden) || holds_forbidden(v)),
        _ => false,
    }
}

/// Whether a value, as an argument or a member, reads back blind as itself (docs/FORMAT.md
/// §5.5): no empty object, no array of fewer than two items, no array in an array.
pub fn blind_safe(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::String(_) => true,
        Value::Object(m) => !m.is_empty() && m.values().all(blind_safe),
        Value::Array(items) => {
            items.len() >= 2
                && items.iter().all(|i| {
                    !matches!(i, Value::Array(_))
                        && !matches!(i, Value::Object(m) if m.is_empty())
                        && blind_safe(i)
                })
        }
        // `Value` is non-exhaustive; an integer beyond i64 reads back blind as a string.
        _ => false,
    }
}

/// The schema that describes exactly this value.
pub fn schema_for(v: &Value) -> Json {
    match v {
        Value::Array(items) => json!({
            "type": "array",
            "prefixItems": items.iter().map(schema_for).collect::<Vec<_>>()
        }),
        Value::Object(m) => object_schema(m),
        other => json!({"type": other.type_name()}),
    }
}

/// The object schema that describes exactly these members.
pub fn object_schema(m: &Map) -> Json {
    let props: serde_json::Map<String, Json> =
        m.iter().map(|(k, v)| (k.clone(), schema_for(v))).collect();
    json!({
        "type": "object",
        "properties": props,
        "required": m.keys().collect::<Vec<_>>(),
        "additionalProperties": false
    })
}

/// The exception to round trips through a schema (docs/FORMAT.md §5.5 states it for arrays
/// of arrays; it is wider): an array written as a wrapper of `<item>` elements (one that holds
/// an array, or a single empty item, or any array inside such a wrapper) whose first item is
/// an object with a member named `item` reads back as that one object.
pub fn has_ambiguous_item(v: &Value) -> bool {
    ambiguous(v, false)
}

fn ambiguous(v: &Value, in_wrapper: bool) -> bool {
    match v {
        Value::Array(items) => {
            let wrapped = in_wrapper || needs_wrapper(items);
            (wrapped && matches!(items.first(), Some(Value::Object(m)) if m.contains_key("item")))
                || items.iter().any(|i| ambiguous(i, wrapped))
        }
        Value::Object(m) => m.values().any(|v| ambiguous(v, false)),
        _ => false,
    }
}

/// Whether the writer wraps this array's items in `<item>` elements (arg-types' `write`).
fn needs_wrapper(items: &[Value]) -> bool {
    let writes_empty = |v: &Value| match v {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    };
    items.iter().any(|i| matches!(i, Value::Array(_)))
        || matches!(items, [only] if writes_empty(only))
}

/// Levels of objects in a value: each one needs an element level in the XML form.
pub fn object_depth(v: &Value) -> usize {
    match v {
        Value::Object(m) => 1 + m.values().map(object_depth).max().unwrap_or(0),
        Value::Array(items) => items.iter().map(object_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Bytes of the strings in a value that `max_argument_bytes` bounds: all of them except strings
/// of markup (mixed content, kept verbatim from the source), whose tags are not decoded text and
/// are not counted (only the call's size bounds them).
pub fn text_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) if s.contains('<') && s.contains('>') => 0,
        Value::String(s) => s.len(),
        Value::Object(m) => m.values().map(text_bytes).sum(),
        Value::Array(items) => items.iter().map(text_bytes).sum(),
        _ => 0,
    }
}

/// Splits `data` into a few control bytes and the rest, read as UTF-8 (lossily, so that every
/// input is used).
pub fn split_control(data: &[u8], n: usize) -> (Vec<u8>, String) {
    let k = n.min(data.len());
    let mut control = data[..k].to_vec();
    control.resize(n, 0);
    (control, String::from_utf8_lossy(&data[k..]).into_owned())
}
