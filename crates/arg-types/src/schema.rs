//! Schema-guided coercion: the raw element tree read through a tool's JSON Schema.
//!
//! Blind inference corrupts data whose text looks like another type (`007` meant as a string,
//! `1.10` as a version, `true` as a word). When the tool's schema (its MCP `inputSchema`) is
//! known, the *raw tree* is read through it instead, so no inferred value has to be undone:
//!
//! | schema | accepts | value |
//! | --- | --- | --- |
//! | `string` | any element | the text-rule text; with child elements the inner markup, verbatim from the source when known |
//! | `integer` | `[+-]digits`, or a number with no fractional part (`7.0`, `1e3`, up to 2^53) | [`Value::Int`]; beyond `i64` an error |
//! | `number` | integer or float syntax, `NaN`, `+Inf`, `-Inf` | [`Value::Int`] for integer text that fits `i64`, else [`Value::Float`] |
//! | `boolean` | `true` / `false` in any case, `1` / `0` (as typed decoding does; not `yes`) | [`Value::Bool`] |
//! | `null` | `null` in any case, or an empty element | [`Value::Null`] |
//! | `array` | several siblings (the items), one wrapper element (its children are the items), an empty element (`[]`), any other single element (one item) | [`Value::Array`] |
//! | `object` | child elements (or an empty element, `{}`) | [`Value::Object`], document order |
//!
//! Scalar text is trimmed; CDATA is accepted by every type (it only quotes text). Also handled:
//! `properties`, `required`, `additionalProperties` (`false` rejects unknown members, a schema
//! coerces them, absent or `true` infers them blind), `items` / `prefixItems`, `enum` and
//! `const` (after coercion; numbers compare exactly by decimal value), `anyOf` / `oneOf` (the first branch that
//! coerces, in the order given), `type` lists (in the order given, except that the text `null`
//! takes `null` first when it is allowed), local `$ref`s (`#/$defs/…`), and `allOf` (merged),
//! all read as [`crate::json_schema`] reads them.
//! An argument that the schema does not describe falls back to blind inference. Validation
//! keywords (`minimum`, `maxLength`, `pattern`, `format`, …) are not checked, and `default`s are
//! not filled in.

use crate::infer::{NumberSyntax, number_syntax, parse_float};
use crate::json_schema::{
    PreparedSchema, SchemaDoc, alternatives, enum_values, item_schema, keyword, member_of,
    merge_into, required, types,
};
use crate::number::{Decimal, integer_text_value};
use crate::tree::{
    groups, inner_markup, insert_mixed_text, is_mixed, raw_value_from_element,
    value_from_element_in,
};
use crate::{Map, Value};
use serde_json::Value as Json;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use xml_fallback::text::{
    array_items, element_value, is_blank, is_empty_element, is_wrapper, trim_xml,
};
use xml_fallback::tree::Element;

/// An argument that does not fit the schema, worded so that it can be sent back to the model.
///
/// ```
/// use arg_types::schema::CoerceError;
/// let e = CoerceError {
///     path: "edits[1].line".into(),
///     expected: "integer".into(),
///     found: "\"ten\"".into(),
///     message: String::new(),
/// };
/// assert_eq!(e.to_string(), r#"argument "edits[1].line": expected integer, found "ten""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoerceError {
    /// Where: argument names joined by `.`, array indices in brackets (`edits[1].search`);
    /// empty for the `<arguments>` element itself.
    pub path: String,
    /// What the schema asks for (`integer`, `string or null`, `one of "a", "b"`).
    pub expected: String,
    /// What the element holds (`"abc"`, `an empty element`, `an element with child elements <a>`).
    pub found: String,
    /// A further explanation, or empty.
    pub message: String,
}

impl fmt::Display for CoerceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str("arguments")?;
        } else {
            write!(f, "argument \"{}\"", self.path)?;
        }
        write!(f, ": expected {}, found {}", self.expected, self.found)?;
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for CoerceError {}

/// Reads the children of an `<arguments>` element through the tool's input schema, returning the
/// first error (in document order, then missing required arguments).
///
/// `source` is the text the element was parsed from: with it, a `string` argument that holds
/// markup comes out verbatim (`&source[content_span]`).
///
/// ```
/// use arg_types::{schema::coerce_arguments, Value};
/// use xml_fallback::tree::{Element, Node};
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"code": {"type": "string"}, "count": {"type": "integer"}},
///     "required": ["code"]
/// });
/// let mut args = Element::new("arguments");
/// args.children.push(Node::Element(Element::with_text("code", "007")));
/// args.children.push(Node::Element(Element::with_text("count", "007")));
/// let m = coerce_arguments(&args, &schema, None).unwrap();
/// assert_eq!(m["code"], Value::String("007".into()));
/// assert_eq!(m["count"], Value::Int(7));
///
/// args.children.pop();
/// args.children.push(Node::Element(Element::with_text("count", "many")));
/// let err = coerce_arguments(&args, &schema, None).unwrap_err();
/// assert_eq!(err.to_string(), r#"argument "count": expected integer, found "many""#);
/// ```
pub fn coerce_arguments(
    args: &Element,
    input_schema: &Json,
    source: Option<&str>,
) -> Result<Map, CoerceError> {
    coerce_arguments_all(args, input_schema, source).map_err(first)
}

/// [`coerce_arguments`], reporting every error rather than the first.
pub fn coerce_arguments_all(
    args: &Element,
    input_schema: &Json,
    source: Option<&str>,
) -> Result<Map, Vec<CoerceError>> {
    coerce_top(args, input_schema, source, None)
}

impl PreparedSchema {
    /// [`coerce_arguments`] with this tool's input schema, read once beforehand: the same map,
    /// or the same first error. An argument written as one leaf, of a property whose schema
    /// gives one scalar type (`string`, `integer`, `number`, `boolean`) and nothing else that
    /// decides its reading (no `enum`, `const`, `anyOf`, `oneOf`), is read by that type without
    /// resolving its schema again; every other argument as [`coerce_arguments`] reads it.
    ///
    /// ```
    /// use arg_types::json_schema::PreparedSchema;
    /// use arg_types::schema::coerce_arguments;
    /// use xml_fallback::tree::{Element, Node};
    /// let schema = serde_json::json!({
    ///     "properties": {"code": {"type": "string"}, "count": {"type": "integer"}}
    /// });
    /// let mut args = Element::new("arguments");
    /// args.children.push(Node::Element(Element::with_text("code", "007")));
    /// args.children.push(Node::Element(Element::with_text("count", " 7 ")));
    /// let prepared = PreparedSchema::new(schema.clone());
    /// assert_eq!(prepared.coerce_arguments(&args, None), coerce_arguments(&args, &schema, None));
    /// ```
    pub fn coerce_arguments(
        &self,
        args: &Element,
        source: Option<&str>,
    ) -> Result<Map, CoerceError> {
        self.coerce_arguments_all(args, source).map_err(first)
    }

    /// [`PreparedSchema::coerce_arguments`], reporting every error rather than the first.
    pub fn coerce_arguments_all(
        &self,
        args: &Element,
        source: Option<&str>,
    ) -> Result<Map, Vec<CoerceError>> {
        coerce_top(args, self.root(), source, Some(self))
    }
}

/// The arguments `args` read through the tool's `input_schema` (prepared, when it is).
fn coerce_top(
    args: &Element,
    input_schema: &Json,
    source: Option<&str>,
    prepared: Option<&PreparedSchema>,
) -> Result<Map, Vec<CoerceError>> {
    let mut c = Coercer::new(input_schema, source, args);
    c.prepared = prepared;
    let schema = c.doc.resolve(input_schema);
    let map = match schema.as_ref() {
        Json::Object(_) => c.object(args, &schema, ""),
        Json::Bool(false) if args.has_child_elements() => {
            c.fail("", "no arguments", "arguments", "the tool takes none");
            None
        }
        _ => Some(crate::tree::arguments_from_element_in(args, source)),
    };
    match map {
        Some(m) if c.errors.is_empty() => Ok(m),
        _ => Err(c.errors),
    }
}

/// Reads one element through a schema; the element's name is the root of error paths.
///
/// ```
/// use arg_types::{schema::coerce_element, Value};
/// use xml_fallback::tree::{Element, Node};
/// let schema = serde_json::json!({
///     "type": "array",
///     "items": {"type": "object", "properties": {"search": {"type": "string"}}}
/// });
/// let mut edits = Element::new("edits");
/// for s in ["true", "1.10"] {
///     let mut edit = Element::new("edit");
///     edit.children.push(Node::Element(Element::with_text("search", s)));
///     edits.children.push(Node::Element(edit));
/// }
/// let v = coerce_element(&edits, &schema, None).unwrap();
/// assert_eq!(v.get_index(1).and_then(|e| e.get("search")), Some(&Value::String("1.10".into())));
/// ```
pub fn coerce_element(
    e: &Element,
    schema: &Json,
    source: Option<&str>,
) -> Result<Value, CoerceError> {
    coerce_element_all(e, schema, source).map_err(first)
}

/// [`coerce_element`], reporting every error rather than the first.
pub fn coerce_element_all(
    e: &Element,
    schema: &Json,
    source: Option<&str>,
) -> Result<Value, Vec<CoerceError>> {
    let mut c = Coercer::new(schema, source, e);
    match c.group(&[e], schema, &e.name) {
        Some(v) if c.errors.is_empty() => Ok(v),
        _ => Err(c.errors),
    }
}

/// Reads the children of `args` through the tool's input schema, their leaves being *raw* text
/// (MiniMax-M3, docs/FORMAT.md §9.9): each leaf is typed by [`crate::raw::type_raw`] with its
/// schema, structure (objects, arrays, repeated names, empty elements) is read as
/// [`coerce_arguments`] reads it, and text beside child elements is kept under `$text`.
/// Nothing is dropped: a leaf that fits no type stays its text, and an argument that does not
/// fit its schema is read as no schema would read it ([`crate::tree::raw_value_from_element`]);
/// both are returned as errors, in document order. `required` is not checked (as for raw text,
/// [`crate::raw::type_raw_arguments`]).
pub(crate) fn coerce_raw_arguments(
    args: &Element,
    input_schema: &Json,
    source: Option<&str>,
) -> (Map, Vec<CoerceError>) {
    let mut c = Coercer::new(input_schema, source, args);
    c.raw = true;
    let schema = c.doc.resolve(input_schema);
    let map = match schema.as_ref() {
        Json::Object(_) => c.object(args, &schema, "").unwrap_or_default(),
        _ => crate::tree::raw_arguments_from_element(args),
    };
    (map, c.mismatches)
}

fn first(mut errors: Vec<CoerceError>) -> CoerceError {
    if errors.is_empty() {
        CoerceError {
            path: String::new(),
            expected: "arguments".into(),
            found: "an unknown problem".into(),
            message: String::new(),
        }
    } else {
        errors.swap_remove(0)
    }
}

/// How far `anyOf` (and the schemas it resolves to) may nest without reading into the tree.
const MAX_DEPTH: usize = 256;

/// How many schema-and-element pairs one coercion may visit: this many per element of the tree,
/// plus [`BASE_STEPS`]. `anyOf` branches that refer back to themselves would otherwise double the
/// work at every level (`{"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}`); a real schema visits each
/// element a few times.
const STEPS_PER_ELEMENT: usize = 64;
const BASE_STEPS: usize = 1_000;

/// The elements in the tree under `e`, `e` included; iterative, whatever the depth.
fn count_elements(e: &Element) -> usize {
    let mut n = 0;
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        n += 1;
        stack.extend(e.child_elements());
    }
    n
}

static ANY: Json = Json::Bool(true);

struct Coercer<'a> {
    doc: SchemaDoc<'a>,
    source: Option<&'a str>,
    errors: Vec<CoerceError>,
    depth: usize,
    /// Pairs that may still be visited (see [`STEPS_PER_ELEMENT`]): [`BASE_STEPS`] at first.
    steps_left: usize,
    /// The tree whose elements' share of the steps is not yet added to `steps_left`: added
    /// when [`BASE_STEPS`] run out, or before a walk that counts its own visits
    /// ([`Coercer::steps`]), so that a coercion that needs no more (most do not) never counts
    /// the tree's elements. The budget is the same, counted or not.
    unbudgeted: Option<&'a Element>,
    /// Leaves are raw text ([`coerce_raw_arguments`]).
    raw: bool,
    /// Raw leaves kept as text because they fit no type, and (at the top level) arguments read
    /// without their schema: reported, never failing the call.
    mismatches: Vec<CoerceError>,
    /// The input schema read once ([`PreparedSchema::coerce_arguments`]), for the root's own
    /// properties.
    prepared: Option<&'a PreparedSchema>,
    /// The next object read is the root's (the arguments): the one the prepared schema
    /// describes.
    at_root: bool,
}

impl<'a> Coercer<'a> {
    fn new(root: &'a Json, source: Option<&'a str>, tree: &'a Element) -> Self {
        Coercer {
            doc: SchemaDoc::new(root),
            source,
            errors: Vec::new(),
            depth: 0,
            steps_left: BASE_STEPS,
            unbudgeted: Some(tree),
            raw: false,
            mismatches: Vec::new(),
            prepared: None,
            at_root: true,
        }
    }

    /// The steps left, the tree's share added first if it was not yet.
    fn steps(&mut self) -> &mut usize {
        if let Some(tree) = self.unbudgeted.take() {
            let share = count_elements(tree).saturating_mul(STEPS_PER_ELEMENT);
            self.steps_left = self.steps_left.saturating_add(share);
        }
        &mut self.steps_left
    }

    /// Whether no step is left, the tree's share counted: it is only when the rest ran out.
    fn out_of_steps(&mut self) -> bool {
        self.steps_left == 0 && *self.steps() == 0
    }

    fn fail(&mut self, path: &str, expected: &str, found: &str, message: &str) {
        self.errors.push(CoerceError {
            path: path.to_owned(),
            expected: expected.to_owned(),
            found: found.to_owned(),
            message: message.to_owned(),
        });
    }

    /// Runs `f` with a fresh error list: its value, or the errors it reported.
    fn attempt(
        &mut self,
        f: impl FnOnce(&mut Self) -> Option<Value>,
    ) -> Result<Value, Vec<CoerceError>> {
        let saved = std::mem::take(&mut self.errors);
        let saved_mismatches = std::mem::take(&mut self.mismatches);
        let out = f(self);
        let mut errors = std::mem::replace(&mut self.errors, saved);
        // A raw leaf that fits no type fails the attempt like any other mismatch.
        let mismatches = std::mem::replace(&mut self.mismatches, saved_mismatches);
        match out {
            Some(v) if errors.is_empty() && mismatches.is_empty() => Ok(v),
            _ => {
                errors.extend(mismatches);
                Err(errors)
            }
        }
    }

    /// Coerces the sibling elements that carry one name (one argument) through `schema`.
    fn group(&mut self, els: &[&Element], schema: &Json, path: &str) -> Option<Value> {
        if self.out_of_steps() {
            self.fail(
                path,
                "a value",
                &found(els),
                "the schema is too complex to check this argument against",
            );
            return None;
        }
        self.steps_left -= 1;
        if self.depth >= MAX_DEPTH {
            self.fail(
                path,
                "a value",
                &found(els),
                "the schema nests too deeply here",
            );
            return None;
        }
        self.depth += 1;
        let out = match els {
            [leaf] if self.raw && !leaf.has_child_elements() => self.raw_leaf(leaf, schema, path),
            _ => self.group_inner(els, schema, path),
        };
        self.depth -= 1;
        out
    }

    fn group_inner(&mut self, els: &[&Element], schema: &Json, path: &str) -> Option<Value> {
        let schema = self.doc.resolve(schema);
        let s = match schema.as_ref() {
            Json::Object(s) => s,
            Json::Bool(false) => {
                self.fail(path, "nothing", &found(els), "no value is allowed here");
                return None;
            }
            _ => return Some(self.blind(els)),
        };
        if let Some(values) = enum_values(&schema) {
            return self.enumerated(els, s, values, path);
        }
        if let Some(branches) = alternatives(&schema) {
            return self.any_of(els, s, branches, path);
        }
        let types = types(&schema);
        if types.is_empty() {
            return Some(self.blind(els));
        }
        if member_of(s, "type").is_none()
            && types == ["object"]
            && !matches!(els, [e] if e.has_child_elements() || is_empty_element(e))
        {
            // `properties`, `required`, `additionalProperties` without `type` read an object
            // when the element holds one; JSON Schema applies them to objects only, so any other
            // value is valid, and is read as no schema would read it.
            return Some(self.blind(els));
        }
        if let [single] = els {
            if types.contains(&"null") && is_null_text(single) {
                return Some(Value::Null);
            }
            if let [t] = types.as_slice() {
                return self.one(single, t, &schema, path);
            }
        } else if types.contains(&"array") {
            return self.array(els, &schema, path);
        } else {
            self.fail(path, &describe_types(&types), &found(els), "");
            return None;
        }
        let [single] = els else {
            return None;
        };
        let mut failures = Vec::new();
        for t in &types {
            match self.attempt(|c| c.one(single, t, &schema, path)) {
                Ok(v) => return Some(v),
                Err(errors) => failures.push(errors),
            }
        }
        self.report_alternatives(failures, path, &describe_types(&types), els);
        None
    }

    /// A raw leaf: its text typed by [`crate::raw::type_raw`]; an empty element that no type
    /// takes as text is read as [`Coercer::group_inner`] reads it (`[]`, `{}`); anything else
    /// that fits nothing stays its text, reported.
    fn raw_leaf(&mut self, e: &Element, schema: &Json, path: &str) -> Option<Value> {
        let text = e.text();
        let typed = crate::raw::type_raw(&text, Some(schema), self.doc.root());
        if typed.fits() {
            return Some(typed.value);
        }
        if is_empty_element(e)
            && let Ok(v) = self.attempt(|c| c.group_inner(&[e], schema, path))
        {
            return Some(v);
        }
        let reason = typed.mismatch.unwrap_or_default();
        self.mismatches.push(CoerceError {
            path: path.to_owned(),
            expected: reason
                .strip_prefix("expected ")
                .unwrap_or(&reason)
                .to_owned(),
            found: found(&[e]),
            message: String::new(),
        });
        Some(typed.value)
    }

    fn blind(&self, els: &[&Element]) -> Value {
        if self.raw {
            return match els {
                [one] => raw_value_from_element(one),
                many => Value::Array(many.iter().map(|e| raw_value_from_element(e)).collect()),
            };
        }
        match els {
            [one] => value_from_element_in(one, self.source),
            many => Value::Array(
                many.iter()
                    .map(|e| value_from_element_in(e, self.source))
                    .collect(),
            ),
        }
    }

    fn any_of(
        &mut self,
        els: &[&Element],
        s: &serde_json::Map<String, Json>,
        branches: &[Json],
        path: &str,
    ) -> Option<Value> {
        let mut base = s.clone();
        base.remove("anyOf");
        base.remove("oneOf");
        let mut merged: Vec<Json> = Vec::with_capacity(branches.len());
        for b in branches {
            match self.doc.resolve(b).as_ref() {
                Json::Object(o) => {
                    // A branch whose type the base's rules out fits nothing.
                    let mut m = o.clone();
                    merged.push(if merge_into(&mut m, &base) {
                        Json::Object(m)
                    } else {
                        Json::Bool(false)
                    });
                }
                other => merged.push(other.clone()),
            }
        }
        // The text `null` takes a `null` branch first, wherever it stands.
        if let [single] = els
            && is_null_text(single)
            && merged.iter().any(|b| types(b) == ["null"])
        {
            return Some(Value::Null);
        }
        // An object's members choose among the branches: those that declare every member are
        // tried first, in order, then the others, so that a member only a later branch names is
        // typed by that branch rather than read blind by an earlier one (docs/FORMAT.md §5.3).
        let mut order: Vec<&Json> = merged.iter().collect();
        if let [single] = els
            && single.has_child_elements()
        {
            // Each branch is resolved already: its own `properties` are looked at, no further.
            order.sort_by_cached_key(|b| {
                let props = keyword(b, "properties").and_then(Json::as_object);
                !single
                    .child_elements()
                    .all(|m| props.is_some_and(|p| p.contains_key(&m.name)))
            });
        }
        let mut failures = Vec::new();
        for b in order {
            match self.attempt(|c| c.group(els, b, path)) {
                Ok(v) => return Some(v),
                Err(errors) => failures.push(errors),
            }
        }
        let expected = describe_any_of(&merged);
        self.report_alternatives(failures, path, &expected, els);
        None
    }

    /// Reports that no alternative fit: the errors of the alternative that got deepest into the
    /// value when one got past `path` itself, else a single mismatch naming all alternatives.
    fn report_alternatives(
        &mut self,
        failures: Vec<Vec<CoerceError>>,
        path: &str,
        expected: &str,
        els: &[&Element],
    ) {
        let deepest = failures
            .into_iter()
            .filter(|errs| !errs.is_empty())
            .max_by_key(|errs| errs.iter().map(|e| e.path.len()).min().unwrap_or(0));
        match deepest {
            Some(errs) if errs.iter().all(|e| e.path.len() > path.len()) => {
                self.errors.extend(errs);
            }
            _ => self.fail(path, expected, &found(els), ""),
        }
    }

    fn enumerated(
        &mut self,
        els: &[&Element],
        s: &serde_json::Map<String, Json>,
        values: &[Json],
        path: &str,
    ) -> Option<Value> {
        let mut rest = s.clone();
        rest.remove("enum");
        rest.remove("const");
        let rest_json = Json::Object(rest);
        let expected = describe_enum(values);
        // Typed by an explicit `type` only: a type implied by `properties` or `items` does not
        // restrict the listed values (`{"const": "x", "properties": {}}` accepts "x").
        if (keyword(&rest_json, "type").is_some() && !types(&rest_json).is_empty())
            || keyword(&rest_json, "anyOf").is_some()
            || keyword(&rest_json, "oneOf").is_some()
        {
            // Typed: coerce, then check membership.
            let v = match self.attempt(|c| c.group(els, &rest_json, path)) {
                Ok(v) => v,
                Err(errs) => {
                    if errs.iter().all(|e| e.path == path) {
                        self.fail(path, &expected, &found(els), "");
                    } else {
                        self.errors.extend(errs);
                    }
                    return None;
                }
            };
            let text = number_text(els);
            if values.iter().any(|c| same(&v, c, text.as_deref())) {
                return Some(v);
            }
            self.fail(path, &expected, &found(els), "");
            return None;
        }
        // Untyped: each allowed value is tried with its own type.
        let text = number_text(els);
        for candidate in values {
            let want = Value::from(candidate);
            let mut typed = rest_json.clone();
            typed["type"] = Json::String(want.type_name().into());
            if let Ok(v) = self.attempt(|c| c.group(els, &typed, path))
                && same(&v, candidate, text.as_deref())
            {
                return Some(want);
            }
        }
        self.fail(path, &expected, &found(els), "");
        None
    }

    /// Coerces one element to one type, `s` holding the type's keywords.
    fn one(&mut self, e: &Element, t: &str, s: &Json, path: &str) -> Option<Value> {
        match t {
            "string" => Some(Value::String(if e.has_child_elements() {
                inner_markup(e, self.source)
            } else {
                element_value(e).into_owned()
            })),
            "array" => self.array(&[e], s, path),
            "object" => self.object(e, s, path).map(Value::Object),
            _ => {
                if e.has_child_elements() {
                    self.fail(path, t, &found(&[e]), "");
                    return None;
                }
                let text = element_value(e);
                let text = trim_xml(&text);
                let v = match t {
                    "integer" => integer(text),
                    "number" => number(text),
                    "boolean" => boolean(text),
                    "null" if is_empty_element(e) || text.eq_ignore_ascii_case("null") => {
                        Ok(Value::Null)
                    }
                    "null" => Err(""),
                    _ => Ok(value_from_element_in(e, self.source)),
                };
                match v {
                    Ok(v) => Some(v),
                    Err(message) => {
                        self.fail(path, t, &found(&[e]), message);
                        None
                    }
                }
            }
        }
    }

    fn array(&mut self, els: &[&Element], s: &Json, path: &str) -> Option<Value> {
        let items: Vec<&Element> = match els {
            [single] if is_empty_element(single) => Vec::new(),
            [single] if is_wrapper(single) => {
                let child_name = single
                    .child_elements()
                    .next()
                    .map_or("", |c| c.name.as_str());
                let item = item_schema(s, 0).unwrap_or(&ANY);
                let doc = self.doc;
                let declared = doc.own_property(item, child_name).is_some()
                    || (doc.branch_member(item, child_name, &mut None, self.steps())).is_some();
                if declared {
                    vec![*single]
                } else {
                    array_items(els)
                }
            }
            _ => array_items(els),
        };
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.into_iter().enumerate() {
            let p = format!("{path}[{i}]");
            match self.group(&[item], item_schema(s, i).unwrap_or(&ANY), &p) {
                Some(v) => out.push(v),
                None => ok = false,
            }
        }
        ok.then_some(Value::Array(out))
    }

    fn object(&mut self, e: &Element, s: &Json, path: &str) -> Option<Map> {
        let at_root = std::mem::take(&mut self.at_root);
        if is_mixed(e) && !self.raw {
            self.fail(
                path,
                "object",
                &found(&[e]),
                "text is mixed with the elements",
            );
            return None;
        }
        if !e.has_child_elements() && !is_empty_element(e) {
            self.fail(path, "object", &found(&[e]), "");
            return None;
        }
        let empty = serde_json::Map::new();
        let props = keyword(s, "properties")
            .and_then(Json::as_object)
            .unwrap_or(&empty);
        let additional = if keyword(s, "patternProperties").is_some() {
            &ANY
        } else {
            keyword(s, "additionalProperties").unwrap_or(&ANY)
        };
        let members = groups(e);
        // One member per distinct name: sized once, never grown.
        let mut out = Map::with_capacity(members.len());
        let mut ok = true;
        let mut branches = None;
        for (name, siblings) in members {
            if self.raw && path.is_empty() {
                // Reported in document order (see below).
                self.mismatches.append(&mut self.errors);
            }
            let p: Cow<'_, str> = if path.is_empty() {
                Cow::Borrowed(name)
            } else {
                Cow::Owned(format!("{path}.{name}"))
            };
            if at_root && let Some(read) = self.prepared_leaf(name, &siblings) {
                match read {
                    Some(v) => {
                        out.insert(name.to_owned(), v);
                    }
                    None => ok = false,
                }
                continue;
            }
            // The member's own property, else one a branch of `s` declares (the branches walked
            // once per object, charged to the coercion's steps). A name its own properties miss
            // walks the branches, which count their visits: the whole budget is made available
            // to them first.
            let doc = self.doc;
            let declared = match doc.own_property(s, name) {
                Some(own) => Some(own),
                None => doc.branch_member(s, name, &mut branches, self.steps()),
            };
            let member_schema = match declared.as_deref() {
                Some(schema) => schema,
                None if additional == &Json::Bool(false) => {
                    // At most 12 names: the message of each unknown member stays short, however
                    // many properties the schema lists.
                    let allowed: Vec<&str> = props.keys().take(12).map(String::as_str).collect();
                    let more = if props.len() > 12 { ", …" } else { "" };
                    let message = if allowed.is_empty() {
                        "no members are allowed here".to_owned()
                    } else {
                        format!("allowed: {}{more}", allowed.join(", "))
                    };
                    self.fail(
                        &p,
                        "no argument of this name",
                        &format!("<{name}>"),
                        &message,
                    );
                    ok = false;
                    continue;
                }
                None => additional,
            };
            match self.group(&siblings, member_schema, &p) {
                Some(v) => {
                    out.insert(name.to_owned(), v);
                }
                None => ok = false,
            }
        }
        if self.raw {
            insert_mixed_text(e, &mut out);
            if path.is_empty() {
                // The arguments themselves: one that does not fit its schema is read without it
                // and reported, so that no argument is lost (raw text, docs/FORMAT.md §9.9).
                self.mismatches.append(&mut self.errors);
                let mut all = Map::with_capacity(out.len());
                for (name, siblings) in groups(e) {
                    let v = out
                        .swap_remove(name)
                        .unwrap_or_else(|| self.blind(&siblings));
                    all.insert(name.to_owned(), v);
                }
                return Some(all);
            }
            return ok.then_some(out);
        }
        // The names present, made at the first required one the object lacks (most calls lack
        // none): a required member that failed to coerce is present, reported where it failed.
        let mut present: Option<HashSet<&str>> = None;
        for name in required(s) {
            if out.contains_key(name) {
                continue;
            }
            let present = present
                .get_or_insert_with(|| e.child_elements().map(|c| c.name.as_str()).collect());
            if !present.contains(name) {
                let p = if path.is_empty() {
                    name.to_owned()
                } else {
                    format!("{path}.{name}")
                };
                let expected = self.describe(props.get(name).unwrap_or(&ANY));
                self.fail(&p, &expected, "nothing", "the argument is required");
                ok = false;
            }
        }
        ok.then_some(out)
    }

    /// A top-level argument written as one leaf, of an own property of the root that the
    /// prepared schema reads by one scalar type it gives: read by that type, as
    /// [`Coercer::group`] reads it through the property's schema (one step, `one` with that
    /// type), without resolving the schema. `None` when the argument is not such a one; else
    /// its value, or `None` inside when it does not fit (the error recorded).
    fn prepared_leaf(&mut self, name: &str, els: &[&Element]) -> Option<Option<Value>> {
        let reading = self.prepared?.own(name)?;
        let ([leaf], Some((&[t], true))) = (els, reading.by_types()) else {
            return None;
        };
        if !matches!(t, "string" | "integer" | "number" | "boolean")
            || leaf.has_child_elements()
            || self.out_of_steps()
        {
            return None;
        }
        self.steps_left -= 1;
        Some(self.one(leaf, t, &ANY, name))
    }

    /// A short description of what `schema` accepts.
    fn describe(&self, schema: &Json) -> String {
        let schema = self.doc.resolve(schema);
        if !schema.is_object() {
            return "a value".into();
        }
        if let Some(values) = enum_values(&schema) {
            return describe_enum(values);
        }
        if let Some(b) = alternatives(&schema) {
            return describe_any_of(b);
        }
        let types = types(&schema);
        if types.is_empty() {
            "a value".into()
        } else {
            describe_types(&types)
        }
    }
}

/// The trimmed text of a single leaf element when it is written as a number: the exact text to
/// compare with `enum`/`const` numbers.
fn number_text(els: &[&Element]) -> Option<String> {
    let [e] = els else { return None };
    if e.has_child_elements() {
        return None;
    }
    let text = element_value(e);
    let text = trim_xml(&text);
    Decimal::parse(text).map(|_| text.to_owned())
}

/// Whether the coerced value `v` is the listed value `c` (docs/FORMAT.md §5.3, `enum`/`const`).
/// Numbers compare exactly by their decimal value, never through `f64`: `2.50` is `2.5` and
/// `2.0` is `2`, but `9007199254740993` is not `9007199254740992`. For a number written as
/// `text`, the text is compared, not the value it was read as; numbers inside arrays and
/// objects compare as held. Objects compare by members in any order.
pub(crate) fn same(v: &Value, c: &Json, text: Option<&str>) -> bool {
    match (v, c) {
        (Value::Int(_) | Value::BigInt(_) | Value::Float(_), Json::Number(n)) => {
            let held = match text {
                Some(t) => Decimal::parse(t),
                None => Decimal::of_value(v),
            };
            held.is_some_and(|d| Decimal::of_json(n).is_some_and(|e| d == e))
        }
        (Value::Null, Json::Null) => true,
        (Value::Bool(a), Json::Bool(b)) => a == b,
        (Value::String(a), Json::String(b)) => a == b,
        (Value::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y, None))
        }
        (Value::Object(a), Json::Object(b)) => {
            a.len() == b.len()
                && b.iter()
                    .all(|(k, y)| a.get(k).is_some_and(|x| same(x, y, None)))
        }
        _ => false,
    }
}

pub(crate) fn describe_types(types: &[&str]) -> String {
    types.join(" or ")
}

pub(crate) fn describe_enum(values: &[Json]) -> String {
    let shown: Vec<String> = values.iter().take(12).map(Json::to_string).collect();
    let more = if values.len() > 12 { ", …" } else { "" };
    if values.len() == 1 {
        shown.concat()
    } else {
        format!("one of {}{more}", shown.join(", "))
    }
}

pub(crate) fn describe_any_of(branches: &[Json]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for b in branches {
        let d = if !b.is_object() {
            "a value".into()
        } else if let Some(values) = enum_values(b) {
            describe_enum(values)
        } else {
            let t = types(b);
            if t.is_empty() {
                "a value".into()
            } else {
                describe_types(&t)
            }
        };
        if !parts.contains(&d) {
            parts.push(d);
        }
    }
    if parts.is_empty() {
        "a value".into()
    } else {
        parts.join(" or ")
    }
}

/// Whether `e` is a leaf whose text (not CDATA) is `null` in any case.
fn is_null_text(e: &Element) -> bool {
    !e.has_child_elements()
        && !e.has_cdata()
        && trim_xml(&element_value(e)).eq_ignore_ascii_case("null")
}

/// What the elements hold, for an error message.
fn found(els: &[&Element]) -> String {
    match els {
        [] => "nothing".into(),
        [e] => {
            if e.has_child_elements() {
                // The first five distinct names at most: enough to show four and say "…".
                let mut names: Vec<String> = Vec::new();
                for c in e.child_elements() {
                    let n = format!("<{}>", c.name);
                    if !names.contains(&n) {
                        names.push(n);
                        if names.len() > 4 {
                            break;
                        }
                    }
                }
                let shown = names.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
                let more = if names.len() > 4 { ", …" } else { "" };
                format!("an element with child elements {shown}{more}")
            } else {
                let text = element_value(e);
                if is_empty_element(e) {
                    "an empty element".into()
                } else if is_blank(&text) && !e.has_cdata() {
                    let names: Vec<&str> = e
                        .attributes
                        .iter()
                        .take(4)
                        .map(|a| a.name.as_str())
                        .collect();
                    let more = if e.attributes.len() > 4 { ", …" } else { "" };
                    format!(
                        "an element with attributes only ({}{more})",
                        names.join(", ")
                    )
                } else {
                    let shown: String = text.chars().take(60).collect();
                    let more = if text.chars().nth(60).is_some() {
                        "…"
                    } else {
                        ""
                    };
                    format!("{}{more}", Value::String(shown))
                }
            }
        }
        [first, ..] => format!("{} <{}> elements", els.len(), first.name),
    }
}

/// How many digits an integer written with a fraction or an exponent (`1e30`, `2.50e2`) may
/// expand to: `1e999` is an integer of 1,000 digits, `1e1000` is out of range. (Integers written
/// as plain digits have no such bound: their digits are all in the text.)
pub(crate) const MAX_EXPANDED_DIGITS: usize = 1_000;

/// An integer from trimmed text, exactly: `[+-]digits` of any length, or a number whose exact
/// decimal value is whole (`7.0`, `1e3`, `9.007199254740993e15`); never through `f64`.
pub(crate) fn integer(text: &str) -> Result<Value, &'static str> {
    match number_syntax(text) {
        Some(NumberSyntax::Integer) => Ok(integer_text_value(text)),
        Some(NumberSyntax::Float) => {
            match Decimal::parse(text).map(|d| d.to_integer(MAX_EXPANDED_DIGITS)) {
                Some(Ok(v)) => Ok(v),
                Some(Err(true)) => Err("out of range for an exact integer"),
                _ => Err("not a whole number"),
            }
        }
        Some(NumberSyntax::NonFinite) => Err("not a whole number"),
        None => Err(""),
    }
}

/// A number from trimmed text: integer text as an exact integer (of any size), other numbers as
/// the nearest `f64`.
pub(crate) fn number(text: &str) -> Result<Value, &'static str> {
    match number_syntax(text) {
        Some(NumberSyntax::Integer) => Ok(integer_text_value(text)),
        Some(_) => parse_float(text)
            .map(Value::Float)
            .ok_or("out of range for a 64-bit float"),
        None => Err(""),
    }
}

fn boolean(text: &str) -> Result<Value, &'static str> {
    if text.eq_ignore_ascii_case("true") || text == "1" {
        Ok(Value::Bool(true))
    } else if text.eq_ignore_ascii_case("false") || text == "0" {
        Ok(Value::Bool(false))
    } else {
        Err("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xml_fallback::tree::Node;

    fn arguments(n: usize, text: &str) -> Element {
        let mut args = Element::new("arguments");
        args.children = (0..n)
            .map(|i| Node::Element(Element::with_text(format!("a{i}"), text)))
            .collect();
        args
    }

    /// The step budget is [`BASE_STEPS`] plus [`STEPS_PER_ELEMENT`] per element of the tree,
    /// whether or not the tree's share was counted before it was needed: a tree that needs more
    /// steps than the base alone (one per argument, here, plainly and prepared) is read whole,
    /// one that needs no more is never counted, and a schema that would never finish is stopped
    /// within the budget.
    #[test]
    fn the_step_budget_grows_with_the_tree() {
        let n = 2 * BASE_STEPS;
        let args = arguments(n, "7");
        let schema = serde_json::json!({
            "properties": {"a0": {"type": "integer"}},
            "additionalProperties": {"type": "integer"}
        });
        let plain = coerce_arguments(&args, &schema, None).expect("within the budget");
        assert_eq!(plain.len(), n);
        assert_eq!(plain["a1999"], Value::Int(7));
        let prepared = PreparedSchema::new(schema.clone());
        assert_eq!(prepared.coerce_arguments(&args, None), Ok(plain));

        // A tree that needs no more than the base is never counted.
        let few = arguments(3, "7");
        let own = serde_json::json!({"properties": {
            "a0": {"type": "integer"}, "a1": {"type": "integer"}, "a2": {"type": "integer"}
        }});
        let mut c = Coercer::new(&own, None, &few);
        assert_eq!(c.object(&few, &own, "").map(|m| m.len()), Some(3));
        assert!(c.unbudgeted.is_some(), "the tree was counted");

        let endless = serde_json::json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]});
        let mut c = Coercer::new(&endless, None, &args);
        assert_eq!(c.group(&[&args], &endless, "arguments"), None);
        assert_eq!(c.steps_left, 0, "the whole budget was spent");
        assert!(c.unbudgeted.is_none(), "the tree's share was added");
        assert!(!c.errors.is_empty());
    }
}
