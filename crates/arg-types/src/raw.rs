//! Raw-text typing: arguments written as raw text, typed by the tool's JSON Schema.
//!
//! The dialects of the Qwen3-Coder family (and Seed-OSS, GLM, MiniMax-M2) give each argument as
//! raw text, `<parameter=name>\nTEXT\n</parameter>`: no markup inside, no escaping, and no type.
//! [`type_raw`] reads one such text through the property's schema; [`type_raw_arguments`] reads
//! a whole call's `(name, text)` pairs through the tool's input schema. The rules, each pinned
//! by a test in `tests/raw.rs` (docs/FORMAT.md §5.6):
//!
//! | schema | text | value |
//! | --- | --- | --- |
//! | none (tool unknown, property not in the schema, `{}`, `true`) | anything | the text, a string, byte for byte |
//! | `string` | anything | the text, byte for byte (`007`, ` x `, `null` included) |
//! | `integer` | `[+-]digits` of any length, or a number whose exact value is whole (`7.0`, `1e3`) | integer, every digit kept |
//! | `number` | integer text (exact, any length), or a float (`-12.5`, `1.25e3`), `NaN`, `+Inf`, `-Inf` | integer or float |
//! | `boolean` | `true`, `false`, `True`, `False` | boolean |
//! | `null` | `null`, `None`, or nothing | null |
//! | `object` / `array` | JSON, else a Python literal ([`crate::literal`]): `{'k': 'v'}`, `[True, None]`, `(1, 2)`, else JSON escaped once more (`[{\"id\": 1}]`, as GLM-4.7 sometimes writes) | object / array |
//! | `enum` / `const` | a listed value: strings equal to the text or to the trimmed text, numbers equal by exact decimal value, others by value | the listed value |
//! | `anyOf` / `oneOf`, `type` lists | the first alternative, in order, that accepts the text (the text `null`/`None` takes an alternative that allows null first) | its value |
//!
//! - For every type but `string`, ASCII whitespace around the text is trimmed first, and a
//!   JSON-quoted scalar (`"42"` for an `integer`) is unquoted when the text itself does not fit.
//! - The text `null` or `None` is null whenever the schema does not accept a string, even when
//!   it does not allow null (it is then also reported as a mismatch).
//! - A text that fits nothing the schema allows is kept as a string, and [`Typed::mismatch`]
//!   says why: the caller records a repair; one bad value never drops a call.
//! - Objects and arrays are taken as read: their members and items are not checked against
//!   `properties` or `items`.
//! - A schema without `type` whose keywords imply one (`properties` ⇒ object, `items` ⇒ array)
//!   reads an object or array when the text is one, and otherwise keeps the text as a string
//!   without a mismatch: JSON Schema applies those keywords to objects and arrays only.
//! - `$ref` (local, into `root`) and `allOf` are resolved as [`crate::json_schema`] does.
//! - Work is linear in the text (it is parsed at most once per reading, however many
//!   alternatives the schema has) and bounded in the schema: at most 256 schemas are visited
//!   and `anyOf` nests at most 32 deep; literals nest at most [`crate::literal::MAX_DEPTH`].
//!
//! ```
//! use arg_types::raw::type_raw;
//! use arg_types::Value;
//! use serde_json::json;
//! let root = json!({});
//! let t = type_raw("3", Some(&json!({"type": "integer"})), &root);
//! assert_eq!((t.value, t.mismatch), (Value::Int(3), None));
//! let t = type_raw("three", Some(&json!({"type": "integer"})), &root);
//! assert_eq!(t.value, Value::String("three".into()));
//! assert_eq!(t.mismatch.as_deref(), Some("expected integer"));
//! assert_eq!(type_raw("007", None, &root).value, Value::String("007".into()));
//! ```

use crate::json_schema::{
    PreparedSchema, SchemaDoc, alternatives, enum_values, keyed_alternatives, keyword, member_of,
    merge_into, types,
};
use crate::literal::{LiteralError, parse_json, parse_python};
use crate::number::Decimal;
use crate::schema::{describe_any_of, describe_enum, describe_types, integer, number, same};
use crate::{Map, Value};
use serde_json::Value as Json;
use std::borrow::Cow;
use std::cell::{Cell, OnceCell};

/// How many schemas one reading may visit (through `anyOf`, `oneOf`, type lists).
const MAX_VISITS: usize = 256;

/// How deeply `anyOf`/`oneOf` may nest in one reading.
const MAX_NESTING: usize = 32;

/// One argument's value read from its raw text.
///
/// ```
/// use arg_types::raw::type_raw;
/// let root = serde_json::json!({});
/// let schema = serde_json::json!({"type": "boolean"});
/// let t = type_raw("True", Some(&schema), &root);
/// assert_eq!(t.value, arg_types::Value::Bool(true));
/// assert!(t.fits());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Typed {
    /// The value: typed by the schema when the text fits it; otherwise the text as a string
    /// (or null, for the text `null`/`None` where no string is allowed).
    pub value: Value,
    /// Why the text does not fit the schema (`expected integer: not a whole number`); `None`
    /// when it fits, or when there is no schema to fit.
    pub mismatch: Option<String>,
}

impl Typed {
    /// Whether the text fitted the schema (there is no [`Typed::mismatch`]).
    pub fn fits(&self) -> bool {
        self.mismatch.is_none()
    }
}

/// Types one argument's raw text by `schema`, the schema of its property; `root` is the
/// document that `schema`'s local `$ref`s point into (the tool's whole input schema). With no
/// schema the value is the text, a string. See the [module](self) for the rules.
///
/// The text is taken as the dialect layer hands it over (one layout newline already removed
/// at each end); a string keeps it byte for byte. Given an owned `String`, a value that is the
/// text itself takes it without a copy (a 1 MiB value is not copied again to be typed).
///
/// ```
/// use arg_types::raw::type_raw;
/// use serde_json::json;
/// let root = json!({"$defs": {"Todo": {"type": "object"}}});
/// let todos = json!({"type": "array", "items": {"$ref": "#/$defs/Todo"}});
/// let t = type_raw("[{'content': 'Buy milk', 'done': False}]\n", Some(&todos), &root);
/// assert_eq!(t.value.to_string(), r#"[{"content":"Buy milk","done":false}]"#);
/// let big = type_raw("18446744073709551616", Some(&json!({"type": "number"})), &root);
/// assert_eq!(serde_json::to_string(&big.value).unwrap(), "18446744073709551616");
/// let either = json!({"anyOf": [{"type": "integer"}, {"type": "null"}]});
/// assert_eq!(type_raw("None", Some(&either), &root).value, arg_types::Value::Null);
/// ```
pub fn type_raw<T: AsRef<str> + Into<String>>(
    text: T,
    schema: Option<&Json>,
    root: &Json,
) -> Typed {
    let Some(schema) = schema else {
        return Typed {
            value: Value::String(text.into()),
            mismatch: None,
        };
    };
    let string = || crate::json_schema::accepts(&SchemaDoc::new(root).resolve(schema), "string");
    finish(text, root, string, |typer| typer.read(schema, 0))
}

/// [`type_raw`] by a schema known to read the text by its types alone (`by_types`).
fn type_raw_by_types<T: AsRef<str> + Into<String>>(
    text: T,
    types: &[&str],
    explicit: bool,
    root: &Json,
) -> Typed {
    let string = || types.contains(&"string");
    finish(text, root, string, |typer| typer.by_types(types, explicit))
}

/// The one ending of a reading: the value read, or the text kept (null for the words `null` and
/// `None` where the schema's types allow no string, `string` saying whether they do: a string
/// schema whose `enum` does not list the word keeps it as text, as any other text it does not
/// list; asked only then) with why it did not fit.
fn finish<T: AsRef<str> + Into<String>>(
    text: T,
    root: &Json,
    string: impl FnOnce() -> bool,
    read: impl FnOnce(&Typer<'_>) -> Result<Read, String>,
) -> Typed {
    let typer = Typer::new(text.as_ref(), root);
    let read = read(&typer);
    let null_word = typer.is_null_word();
    drop(typer);
    match read {
        Ok(Read::Text) => Typed {
            value: Value::String(text.into()),
            mismatch: None,
        },
        Ok(Read::Value(value)) => Typed {
            value,
            mismatch: None,
        },
        Err(reason) if null_word && !string() => Typed {
            value: Value::Null,
            mismatch: Some(format!(
                "null, where the schema asks for {}",
                strip(&reason)
            )),
        },
        Err(reason) => Typed {
            value: Value::String(text.into()),
            mismatch: Some(reason),
        },
    }
}

/// The arguments of one call read from raw text, with what did not fit.
///
/// ```
/// use arg_types::raw::type_raw_arguments;
/// let out = type_raw_arguments([("city", "Paris")], None);
/// assert_eq!(out.arguments["city"], arg_types::Value::String("Paris".into()));
/// assert!(out.mismatches.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct TypedArguments {
    /// The arguments, in the order first given.
    pub arguments: Map,
    /// One entry per argument that did not fit its schema (kept as text), in order.
    pub mismatches: Vec<Mismatch>,
}

/// An argument kept as text because it did not fit its schema, or given twice.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mismatch {
    /// The argument's name.
    pub name: String,
    /// Why (see [`Typed::mismatch`]).
    pub reason: String,
}

/// Types a call's arguments, `(name, raw text)` in the order written, by the tool's input
/// schema (an object schema with `properties`; `$ref` and `allOf` at its root are resolved).
/// Names and texts may be borrowed or owned; owned ones are moved into the map where the value
/// is the text ([`type_raw`]).
///
/// - A property's schema types its argument ([`type_raw`]); a name the schema does not list
///   takes `additionalProperties` when that is a schema, and otherwise stays a string — also
///   when `additionalProperties` is `false`, reported then as a mismatch.
/// - With no input schema (the tool is unknown) every argument is a string.
/// - A name given twice keeps its first position and its last value, reported as a mismatch.
///
/// Work is linear in the number of arguments and in the total text.
///
/// ```
/// use arg_types::raw::type_raw_arguments;
/// use arg_types::Value;
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"location": {"type": "string"}, "days": {"type": "integer"}}
/// });
/// let out = type_raw_arguments([("location", "Boston"), ("days", "3"), ("unit", "C")], Some(&schema));
/// assert_eq!(out.arguments["days"], Value::Int(3));
/// assert_eq!(out.arguments["unit"], Value::String("C".into()));
/// assert!(out.mismatches.is_empty());
/// let out = type_raw_arguments([("days", "a few")], Some(&schema));
/// assert_eq!(out.mismatches[0].name, "days");
/// assert_eq!(out.arguments["days"], Value::String("a few".into()));
/// ```
pub fn type_raw_arguments<N, T>(
    args: impl IntoIterator<Item = (N, T)>,
    input_schema: Option<&Json>,
) -> TypedArguments
where
    N: AsRef<str> + Into<String>,
    T: AsRef<str> + Into<String>,
{
    let Some(root) = input_schema else {
        return type_each(args, &Json::Null, None, |_| Property::Absent);
    };
    match keyed_alternatives(root) {
        Some(alternatives) => by_alternative(args, root, alternatives),
        None => typed_by_names(args, root),
    }
}

/// [`type_raw_arguments`] with a schema, each argument by the schema its name finds (its own
/// `properties`, else the first of the root's branches to declare it).
fn typed_by_names<N, T>(args: impl IntoIterator<Item = (N, T)>, root: &Json) -> TypedArguments
where
    N: AsRef<str> + Into<String>,
    T: AsRef<str> + Into<String>,
{
    let doc = SchemaDoc::new(root);
    let resolved = doc.resolve(root);
    let additional = keyword(&resolved, "additionalProperties");
    // The properties the root's branches declare: walked once per call, at the first name the
    // root's own `properties` do not hold.
    let (mut branches, mut visits) = (None, MAX_VISITS);
    type_each(args, root, additional, |name| {
        match doc.member(root, name, &mut branches, &mut visits) {
            Some(s) => Property::Schema(s),
            None => Property::Absent,
        }
    })
}

impl PreparedSchema {
    /// [`type_raw_arguments`] with this tool's input schema, read once beforehand: the same
    /// values and mismatches, without resolving the root again, and without reading the text
    /// of a property that is a plain string (its value is the text).
    ///
    /// ```
    /// use arg_types::json_schema::PreparedSchema;
    /// use arg_types::raw::type_raw_arguments;
    /// let schema = serde_json::json!({"properties": {"path": {"type": "string"}, "n": {"type": "integer"}}});
    /// let args = [("path", "007"), ("n", "7"), ("x", "1")];
    /// let prepared = PreparedSchema::new(schema.clone());
    /// assert_eq!(prepared.type_raw_arguments(args), type_raw_arguments(args, Some(&schema)));
    /// ```
    pub fn type_raw_arguments<N, T>(&self, args: impl IntoIterator<Item = (N, T)>) -> TypedArguments
    where
        N: AsRef<str> + Into<String>,
        T: AsRef<str> + Into<String>,
    {
        if let Some(alternatives) = keyed_alternatives(self.root()) {
            return by_alternative(args, self.root(), alternatives);
        }
        type_each(args, self.root(), self.additional_properties(), |name| {
            self.raw_property(name)
        })
    }

    /// The value one argument's raw text types to: what [`PreparedSchema::type_raw_arguments`]
    /// gives for it alone (its mismatch, if any, is not reported), without a map to hold it.
    ///
    /// ```
    /// use arg_types::json_schema::PreparedSchema;
    /// use arg_types::Value;
    /// let p = PreparedSchema::new(serde_json::json!({"properties": {"n": {"type": "integer"}}}));
    /// assert_eq!(p.type_raw_argument("n", " 7 "), Value::Int(7));
    /// assert_eq!(p.type_raw_argument("n", "seven"), Value::String("seven".into()));
    /// assert_eq!(p.type_raw_argument("x", "7"), p.type_raw_arguments([("x", "7")]).arguments["x"]);
    /// ```
    pub fn type_raw_argument<T: AsRef<str> + Into<String>>(&self, name: &str, text: T) -> Value {
        if let Some(alternatives) = keyed_alternatives(self.root()) {
            let mut alone = by_alternative([(name, text)], self.root(), alternatives).arguments;
            return alone.swap_remove(name).unwrap_or(Value::Null);
        }
        let found = self.raw_property(name);
        type_one(text, &found, self.root(), self.additional_properties()).value
    }

    /// What the prepared schema gives for argument `name`.
    fn raw_property(&self, name: &str) -> Property<'_> {
        match self.own(name).and_then(|r| r.by_types()) {
            // `"type": "string"` alone: the value is the text, whatever it holds.
            Some((["string"], true)) => Property::Text,
            Some((types, explicit)) => Property::Types { types, explicit },
            _ => match self.property(name) {
                Some(s) => Property::Schema(s),
                None => Property::Absent,
            },
        }
    }
}

/// The most of a root's alternatives tried one by one ([`by_alternative`]): the work of typing
/// a call stays bounded by its arguments times this.
const MAX_ALTERNATIVES_TRIED: usize = 16;

/// A call's arguments typed where the root has alternatives (`anyOf`/`oneOf`, docs/FORMAT.md
/// §5.3): first as each name finds its schema (the first branch to declare it); when some
/// argument does not fit that way, the first alternative, alone, under which every argument
/// fits types them all, so that a discriminated union (`kind: "count"` with `value: integer`
/// beside `kind: "text"` with `value: string`) is read by the branch its values pick,
/// whichever comes first; when none fits them all, the first reading stands. (The same values
/// as [`PreparedSchema::type_raw_arguments`] reads, through the document: only schemas with
/// root alternatives come here.)
fn by_alternative<N, T>(
    args: impl IntoIterator<Item = (N, T)>,
    root: &Json,
    (key, branches): (&str, &[Json]),
) -> TypedArguments
where
    N: AsRef<str> + Into<String>,
    T: AsRef<str> + Into<String>,
{
    let args: Vec<(N, T)> = args.into_iter().collect();
    let borrowed = || args.iter().map(|(n, t)| (n.as_ref(), t.as_ref()));
    let fits = |typed: &TypedArguments| typed.mismatches.is_empty();
    let first = typed_by_names(borrowed(), root);
    if fits(&first) || branches.len() < 2 {
        return first;
    }
    for branch in branches.iter().take(MAX_ALTERNATIVES_TRIED) {
        // The root with this alternative alone: its own properties and definitions kept.
        let mut alone = root.clone();
        if let Some(obj) = alone.as_object_mut() {
            obj.insert(key.to_owned(), Json::Array(vec![branch.clone()]));
        }
        let typed = typed_by_names(borrowed(), &alone);
        if fits(&typed) {
            return typed;
        }
    }
    first
}

/// What the schema gives for one argument's name.
enum Property<'s> {
    /// A schema whose value is the text itself (a plain string).
    Text,
    /// A schema that reads the text by its types alone (`Typer::by_types`).
    Types {
        types: &'s [&'static str],
        explicit: bool,
    },
    /// A schema to read the text through (resolved).
    Schema(Cow<'s, Json>),
    /// None: `additionalProperties` decides.
    Absent,
}

/// The one body of [`type_raw_arguments`] and [`PreparedSchema::type_raw_arguments`]: each
/// argument typed by what `property` finds for its name, `additional` deciding for the names it
/// does not find, `root` the document `$ref`s point into.
fn type_each<'s, N, T>(
    args: impl IntoIterator<Item = (N, T)>,
    root: &Json,
    additional: Option<&Json>,
    mut property: impl FnMut(&str) -> Property<'s>,
) -> TypedArguments
where
    N: AsRef<str> + Into<String>,
    T: AsRef<str> + Into<String>,
{
    let args = args.into_iter();
    // Sized by the arguments at once (they are held already, so this is no more memory than
    // they take): one allocation each for the entries and the table, no growth.
    let mut out = TypedArguments {
        arguments: Map::with_capacity(args.size_hint().0),
        mismatches: Vec::new(),
    };
    for (name, text) in args {
        let found = property(name.as_ref());
        if matches!(found, Property::Absent) && additional == Some(&Json::Bool(false)) {
            out.mismatches.push(Mismatch {
                name: name.as_ref().to_owned(),
                reason: "the tool has no parameter of this name; kept as text".into(),
            });
        }
        let typed = type_one(text, &found, root, additional);
        if let Some(reason) = typed.mismatch {
            out.mismatches.push(Mismatch {
                name: name.as_ref().to_owned(),
                reason,
            });
        }
        let (at, earlier) = out.arguments.insert_full(name.into(), typed.value);
        if earlier.is_some() {
            out.mismatches.push(Mismatch {
                name: out
                    .arguments
                    .get_index(at)
                    .map_or_else(String::new, |(k, _)| k.clone()),
                reason: "given more than once; the last value is kept".into(),
            });
        }
    }
    out
}

/// One argument's text typed by what the schema gives for its name (`found`), `additional`
/// deciding when it gives nothing: the one typing step of [`type_each`] and
/// [`PreparedSchema::type_raw_argument`].
fn type_one<T: AsRef<str> + Into<String>>(
    text: T,
    found: &Property<'_>,
    root: &Json,
    additional: Option<&Json>,
) -> Typed {
    let schema = match found {
        Property::Text | Property::Types { .. } => None,
        Property::Schema(s) => Some(s.as_ref()),
        Property::Absent => match additional {
            Some(extra @ Json::Object(_)) => Some(extra),
            _ => None,
        },
    };
    match found {
        Property::Types { types, explicit } => type_raw_by_types(text, types, *explicit, root),
        _ => type_raw(text, schema, root),
    }
}

/// Types a call's arguments written as nested elements whose leaves are raw text (MiniMax-M3,
/// docs/FORMAT.md §9.9): `args` holds one child element per argument, and each leaf element's
/// text nodes hold the text exactly as written (not decoded, not trimmed).
///
/// - Without an input schema, leaves are strings, elements with child elements objects, a
///   repeated name an array, and text beside child elements is kept under `$text`
///   ([`crate::tree::raw_value_from_element`]).
/// - With one, structure is read as [`crate::schema::coerce_arguments`] reads it (`properties`,
///   `additionalProperties`, `items`, wrappers of `<item>`s, repeated names, an empty element
///   `[]` or `{}`), each leaf's text is typed by [`type_raw`] with its own schema, and text beside
///   child elements is kept under `$text`. `required` is not checked.
/// - Nothing is dropped: a leaf that fits no type stays its text, and an argument that does not
///   fit its schema at all is read as without one; each is a [`Mismatch`] (named by the
///   top-level argument, the reason naming the path).
///
/// `source` is the text the element's `content_span`s point into: a `string` schema over an
/// element with children takes its inner markup from it, verbatim.
///
/// ```
/// use arg_types::raw::type_raw_tree;
/// use arg_types::Value;
/// use xml_fallback::tree::{Element, Node};
/// let mut args = Element::new("invoke");
/// args.children.push(Node::Element(Element::with_text("days", " 3 ")));
/// let mut tags = Element::new("tags");
/// for t in ["a", "b"] {
///     tags.children.push(Node::Element(Element::with_text("item", t)));
/// }
/// args.children.push(Node::Element(tags));
/// args.children.push(Node::Element(Element::new("opts")));
///
/// let blind = type_raw_tree(&args, None, None);
/// assert_eq!(blind.arguments["days"], Value::String(" 3 ".into()));
/// assert_eq!(blind.arguments["tags"].get("item").unwrap().as_array().unwrap().len(), 2);
///
/// let schema = serde_json::json!({"type": "object", "properties": {
///     "days": {"type": "integer"},
///     "tags": {"type": "array", "items": {"type": "string"}},
///     "opts": {"type": "object"}
/// }});
/// let typed = type_raw_tree(&args, Some(&schema), None);
/// assert_eq!(typed.arguments["days"], Value::Int(3));
/// assert_eq!(typed.arguments["tags"].to_string(), r#"["a","b"]"#);
/// assert_eq!(typed.arguments["opts"].to_string(), "{}");
/// assert!(typed.mismatches.is_empty());
/// ```
pub fn type_raw_tree(
    args: &xml_fallback::tree::Element,
    input_schema: Option<&Json>,
    source: Option<&str>,
) -> TypedArguments {
    let Some(schema) = input_schema else {
        return TypedArguments {
            arguments: crate::tree::raw_arguments_from_element(args),
            mismatches: Vec::new(),
        };
    };
    let (arguments, errors) = crate::schema::coerce_raw_arguments(args, schema, source);
    let mismatches = errors
        .into_iter()
        .map(|e| Mismatch {
            name: e
                .path
                .split(['.', '['])
                .next()
                .unwrap_or_default()
                .to_owned(),
            reason: e.to_string(),
        })
        .collect();
    TypedArguments {
        arguments,
        mismatches,
    }
}

/// `expected X: detail` → `X`.
fn strip(reason: &str) -> &str {
    let r = reason.strip_prefix("expected ").unwrap_or(reason);
    r.split(": ").next().unwrap_or(r)
}

/// What one reading of a text gives: the text itself, a string (left to the caller, who moves it
/// when it owns it, so a reading never copies the text), or another value.
enum Read {
    Text,
    Value(Value),
}

/// One reading of one text; what is parsed from the text is parsed once, whatever the number of
/// alternatives tried.
struct Typer<'a> {
    doc: SchemaDoc<'a>,
    text: &'a str,
    trimmed: &'a str,
    visits_left: Cell<usize>,
    literal: OnceCell<Result<Value, LiteralError>>,
    unquoted: OnceCell<Option<String>>,
    integer: OnceCell<Result<Value, &'static str>>,
    number: OnceCell<Result<Value, &'static str>>,
    decimal: OnceCell<Option<Decimal>>,
}

impl<'a> Typer<'a> {
    fn new(text: &'a str, root: &'a Json) -> Self {
        Typer {
            doc: SchemaDoc::new(root),
            text,
            trimmed: text.trim_ascii(),
            visits_left: Cell::new(MAX_VISITS),
            literal: OnceCell::new(),
            unquoted: OnceCell::new(),
            integer: OnceCell::new(),
            number: OnceCell::new(),
            decimal: OnceCell::new(),
        }
    }

    fn is_null_word(&self) -> bool {
        matches!(self.trimmed, "null" | "None")
    }

    /// The text read as JSON, else as a Python literal, else as JSON escaped once more.
    fn literal(&self) -> &Result<Value, LiteralError> {
        self.literal.get_or_init(|| {
            #[cfg(test)]
            tests::PARSES.with(|p| p.set(p.get() + 1));
            parse_json(self.trimmed).or_else(|json_error| {
                parse_python(self.trimmed)
                    .or_else(|_| escaped_json(self.trimmed).ok_or(()))
                    .map_err(|_| json_error)
            })
        })
    }

    /// The content of a JSON-quoted text (`"42"`), if the text is one.
    fn unquoted(&self) -> Option<&str> {
        self.unquoted
            .get_or_init(|| {
                let t = self.trimmed;
                if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
                    match parse_json(t) {
                        Ok(Value::String(s)) => Some(s),
                        _ => None,
                    }
                } else {
                    None
                }
            })
            .as_deref()
    }

    /// `parse` on the trimmed text, else on its unquoted content.
    fn scalar(
        &self,
        cached: &OnceCell<Result<Value, &'static str>>,
        parse: fn(&str) -> Result<Value, &'static str>,
    ) -> Result<Value, &'static str> {
        let direct = cached.get_or_init(|| parse(self.trimmed));
        match (direct, self.unquoted()) {
            (Ok(v), _) => Ok(v.clone()),
            (Err(e), Some(inner)) => parse(inner).map_err(|_| *e),
            (Err(e), None) => Err(*e),
        }
    }

    /// The value of the text by `schema`, or why it does not fit (`expected …`).
    fn read(&self, schema: &Json, nesting: usize) -> Result<Read, String> {
        let left = self.visits_left.get();
        if left == 0 {
            return Err(expected(
                "a value (the schema is too complex to check)".into(),
            ));
        }
        self.visits_left.set(left - 1);
        if nesting > MAX_NESTING {
            return Err(expected("a value (the schema nests too deeply)".into()));
        }
        let resolved = self.doc.resolve(schema);
        let s = match resolved.as_ref() {
            Json::Object(s) => s,
            Json::Bool(false) => return Err(expected("nothing: no value is allowed".into())),
            _ => return Ok(Read::Text),
        };
        if let Some(values) = enum_values(&resolved) {
            return self.enumerated(values);
        }
        if let Some(branches) = alternatives(&resolved) {
            return self.any_of(s, branches, nesting);
        }
        self.by_types(&types(&resolved), member_of(s, "type").is_some())
    }

    /// The text read by a schema's `types` alone (it has no `enum`, `const`, `anyOf` or
    /// `oneOf`), `explicit` saying whether it gives `type` (else the types are implied).
    fn by_types(&self, types: &[&str], explicit: bool) -> Result<Read, String> {
        if types.is_empty() {
            return Ok(Read::Text);
        }
        if !explicit {
            // Implied by `properties`/`items`: an object or array when the text is one; any other
            // text is valid too (JSON Schema applies those keywords to objects and arrays only).
            return Ok(self.one(types[0]).unwrap_or(Read::Text));
        }
        if self.is_null_word() && types.contains(&"null") {
            return Ok(Read::Value(Value::Null));
        }
        let mut detail = "";
        for t in types {
            match self.one(t) {
                Ok(v) => return Ok(v),
                Err(d) if detail.is_empty() => detail = d,
                Err(_) => {}
            }
        }
        let what = describe_types(types);
        Err(expected(if detail.is_empty() {
            what
        } else {
            format!("{what}: {detail}")
        }))
    }

    /// The text as one type, or a detail of why not (empty when there is nothing to add).
    fn one(&self, t: &str) -> Result<Read, &'static str> {
        match t {
            "string" => Ok(Read::Text),
            "integer" => self.scalar(&self.integer, integer).map(Read::Value),
            "number" => self.scalar(&self.number, number).map(Read::Value),
            "boolean" => self.scalar(&OnceCell::new(), boolean).map(Read::Value),
            "null" => self.scalar(&OnceCell::new(), null).map(Read::Value),
            "object" | "array" => match self.literal() {
                Ok(v @ Value::Object(_)) if t == "object" => Ok(Read::Value(v.clone())),
                Ok(v @ Value::Array(_)) if t == "array" => Ok(Read::Value(v.clone())),
                Ok(_) => Err(""),
                Err(_) => Err("neither JSON nor a Python literal"),
            },
            _ => Ok(Read::Text),
        }
    }

    /// `enum`/`const`: the first listed value the text is.
    fn enumerated(&self, values: &[Json]) -> Result<Read, String> {
        for c in values {
            let hit = match c {
                Json::String(s) => self.text == s || self.trimmed == s,
                // A listed number or boolean is also the content of a JSON-quoted text (`"1"`),
                // as a numeric or boolean type reads it (docs/FORMAT.md §5.6, whitespace).
                Json::Number(n) => {
                    let is = |d: &Decimal| Decimal::of_json(n).is_some_and(|e| *d == e);
                    let d = self.decimal.get_or_init(|| Decimal::parse(self.trimmed));
                    d.as_ref().is_some_and(is)
                        || self
                            .unquoted()
                            .and_then(|u| Decimal::parse(u.trim()))
                            .is_some_and(|d| is(&d))
                }
                Json::Bool(b) => {
                    let is = |t: &str| boolean(t) == Ok(Value::Bool(*b));
                    is(self.trimmed) || self.unquoted().is_some_and(|u| is(u.trim()))
                }
                Json::Null => self.is_null_word(),
                Json::Array(_) | Json::Object(_) => {
                    matches!(self.literal(), Ok(v) if same(v, c, None))
                }
            };
            if hit {
                return Ok(Read::Value(Value::from(c)));
            }
        }
        Err(expected(describe_enum(values)))
    }

    /// `anyOf`/`oneOf`: the first branch that accepts the text, the keywords beside the list
    /// merged into each branch.
    fn any_of(
        &self,
        base: &serde_json::Map<String, Json>,
        branches: &[Json],
        nesting: usize,
    ) -> Result<Read, String> {
        let mut base = base.clone();
        base.remove("anyOf");
        base.remove("oneOf");
        let merged: Vec<Json> = branches
            .iter()
            .map(|b| match self.doc.resolve(b).as_ref() {
                Json::Object(o) => {
                    // A branch whose type the base's rules out fits nothing.
                    let mut m = o.clone();
                    if merge_into(&mut m, &base) {
                        Json::Object(m)
                    } else {
                        Json::Bool(false)
                    }
                }
                other => other.clone(),
            })
            .collect();
        if self.is_null_word() && merged.iter().any(allows_null) {
            return Ok(Read::Value(Value::Null));
        }
        for b in &merged {
            if let Ok(v) = self.read(b, nesting + 1) {
                return Ok(v);
            }
        }
        Err(expected(describe_any_of(&merged)))
    }
}

/// JSON written escaped once more, as the body of a JSON string (`[{\"id\": \"1\"}]`, as
/// GLM-4.7 sometimes writes an array argument): the text unescaped, then read as JSON. Only a
/// text that holds `\"` and is neither JSON nor a Python literal is tried, and only an object
/// or array is taken.
fn escaped_json(text: &str) -> Option<Value> {
    if !text.contains("\\\"") || !(text.starts_with('[') || text.starts_with('{')) {
        return None;
    }
    let body: String = serde_json::from_str(&format!("\"{text}\"")).ok()?;
    parse_json(&body)
        .ok()
        .filter(|v| matches!(v, Value::Array(_) | Value::Object(_)))
}

fn expected(what: String) -> String {
    format!("expected {what}")
}

/// Whether a (merged) branch takes `null` directly: its type is or lists `null`, or it lists
/// `null` among its values.
fn allows_null(b: &Json) -> bool {
    types(b).contains(&"null") || enum_values(b).is_some_and(|v| v.contains(&Json::Null))
}

fn boolean(text: &str) -> Result<Value, &'static str> {
    match text {
        "true" | "True" => Ok(Value::Bool(true)),
        "false" | "False" => Ok(Value::Bool(false)),
        _ => Err(""),
    }
}

fn null(text: &str) -> Result<Value, &'static str> {
    match text {
        "null" | "None" | "" => Ok(Value::Null),
        _ => Err(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A discriminated union at the root: the branch every argument fits types them all, in
    /// either branch order and argument order; one argument alone is typed the same way; with
    /// no branch fitting, the names' reading (the first branch declaring each) stands.
    #[test]
    fn the_branch_all_arguments_fit_types_them() {
        let count = serde_json::json!({"properties": {"kind": {"const": "count"}, "value": {"type": "integer"}}});
        let text = serde_json::json!({"properties": {"kind": {"const": "text"}, "value": {"type": "string"}}});
        for key in ["oneOf", "anyOf"] {
            for branches in [[&count, &text], [&text, &count]] {
                let root = serde_json::json!({key: [branches[0], branches[1]]});
                let prepared = PreparedSchema::new(root.clone());
                for (kind, value) in [
                    ("count", Value::Int(7)),
                    ("text", Value::String("7".into())),
                ] {
                    for args in [
                        [("kind", kind), ("value", "7")],
                        [("value", "7"), ("kind", kind)],
                    ] {
                        let typed = type_raw_arguments(args, Some(&root));
                        assert!(typed.mismatches.is_empty(), "{root} {args:?}");
                        assert_eq!(typed.arguments["value"], value, "{root} {args:?}");
                        assert_eq!(prepared.type_raw_arguments(args), typed);
                    }
                }
                // Nothing fits both: the first branch declaring each name reads it.
                let typed = type_raw_arguments([("kind", "other"), ("value", "x")], Some(&root));
                assert!(!typed.mismatches.is_empty());
                // Alone, `value` fits either branch: the first that it fits.
                let first_is_count = branches[0] == &count;
                let alone = prepared.type_raw_argument("value", "7");
                assert_eq!(
                    alone,
                    if first_is_count {
                        Value::Int(7)
                    } else {
                        Value::String("7".into())
                    }
                );
                // While streaming, `value` is not known to be text: only one branch says so.
                assert!(!prepared.is_string("value"));
                assert!(prepared.has_alternatives());
            }
        }
    }

    thread_local! {
        /// How many times a text was read as a literal.
        pub(super) static PARSES: Cell<usize> = const { Cell::new(0) };
    }

    fn parses_for(text: &str, schema: &Json) -> usize {
        PARSES.with(|p| p.set(0));
        let _ = type_raw(text, Some(schema), &json!({}));
        PARSES.with(Cell::get)
    }

    /// However many alternatives, the text is read as a literal at most once.
    /// JSON escaped once more (GLM-4.7, SGLang's `array_argument_backslash_escaped_json`) is read
    /// for an array or object; JSON and Python literals come first, and a string schema keeps the
    /// text as written.
    #[test]
    fn json_escaped_once_more() {
        let root = json!({});
        let array = json!({"type": "array"});
        let t = type_raw(r#"[{\"id\": \"1\", \"n\": 2}]"#, Some(&array), &root);
        assert_eq!(t.mismatch, None);
        assert_eq!(Json::from(t.value), json!([{"id": "1", "n": 2}]));
        let t = type_raw(r#"{\"a\": [1]}"#, Some(&json!({"type": "object"})), &root);
        assert_eq!(Json::from(t.value), json!({"a": [1]}));
        // Not for a string, nor for a text that is not JSON once unescaped.
        let text = r#"[{\"id\": 1}]"#;
        let t = type_raw(text, Some(&json!({"type": "string"})), &root);
        assert_eq!(t.value, Value::String(text.into()));
        let t = type_raw(r#"[\"a\", b]"#, Some(&array), &root);
        assert!(t.mismatch.is_some());
        // A valid JSON array is read once, its escapes decoded once.
        let t = type_raw(r#"["C:\\Users"]"#, Some(&array), &root);
        assert_eq!(Json::from(t.value), json!(["C:\\Users"]));
    }

    #[test]
    fn the_text_is_parsed_once_per_reading() {
        for n in [1, 10, 200] {
            let objects: Vec<Json> = (0..n).map(|_| json!({"type": "object"})).collect();
            let arrays: Vec<Json> = (0..n)
                .map(|_| json!({"type": ["array", "object"]}))
                .collect();
            for schema in [json!({"anyOf": objects}), json!({"oneOf": arrays})] {
                assert_eq!(parses_for("[1, 2", &schema), 1, "{n}");
                assert_eq!(parses_for("[1, 2]", &schema), 1, "{n}");
            }
        }
        assert_eq!(parses_for("7", &json!({"type": "integer"})), 0);
    }

    /// Schemas that branch back into themselves end within the visit budget.
    #[test]
    fn self_referring_alternatives_end() {
        let root = json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}, {"type": "integer"}]});
        let t = type_raw("x", Some(&root), &root);
        assert_eq!(t.value, Value::String("x".into()));
        assert!(t.mismatch.is_some());
        assert_eq!(type_raw("5", Some(&root), &root).value, Value::Int(5));
    }
}
