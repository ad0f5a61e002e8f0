//! Reading JSON Schemas: the one reading that the coercer ([`crate::schema`]) and the prompt
//! generator (`toolcall-prompt`) share, so that what a model is shown and what its call is read
//! through agree.
//!
//! - [`SchemaDoc::resolve`]: local `$ref`s followed and `allOf` members merged, bounded so that
//!   recursive or hostile schemas end.
//! - [`types`] and [`types_with_values`]: the type names a schema allows.
//! - [`enum_values`], [`required`], [`alternatives`], [`item_schema`]: single keywords read.
//!
//! The keyword readers take a schema as it is; pass them the result of [`SchemaDoc::resolve`]
//! when the schema may hold `$ref` or `allOf`. Anything that is not an object (`true`, `false`,
//! or not a schema at all) reads as having none of the keywords.
//!
//! ```
//! use arg_types::json_schema::{SchemaDoc, required, types};
//! let root = serde_json::json!({
//!     "$defs": {"Base": {"type": "object", "properties": {"id": {}}, "required": ["id"]}},
//!     "allOf": [{"$ref": "#/$defs/Base"}, {"required": ["name"]}]
//! });
//! let doc = SchemaDoc::new(&root);
//! let s = doc.resolve(&root);
//! assert_eq!(types(&s), ["object"]);
//! assert_eq!(required(&s), ["id", "name"]);
//! ```

use serde_json::{Map as JsonMap, Value as Json};
use std::borrow::Cow;
use std::collections::HashSet;

/// How deeply `$ref` targets and `allOf` members may nest in one resolution; deeper ones that
/// would need resolving themselves contribute nothing.
const MAX_RESOLVE_DEPTH: usize = 32;

/// How many `anyOf`/`oneOf` branches deep, and how many schemas in all, one search for a
/// property visits ([`SchemaDoc::property`]).
const MAX_PROPERTY_HOPS: usize = 16;
const MAX_PROPERTY_VISITS: usize = 256;

/// How many schemas one resolution resolves at most (a bound on breadth, where
/// [`MAX_RESOLVE_DEPTH`] bounds depth: `allOf` lists of references to `allOf` lists would
/// otherwise grow exponentially).
const MAX_RESOLVE_PARTS: usize = 64;

/// The type names JSON Schema defines.
const TYPE_NAMES: [&str; 7] = [
    "string", "integer", "number", "boolean", "null", "array", "object",
];

/// Type names that hand-written tool definitions use for JSON Schema's (Python's and C's
/// names, as the engines' parsers and MiniMax's reference parser read them), and the name each
/// stands for.
const TYPE_ALIASES: [(&str, &str); 21] = [
    ("float", "number"),
    ("double", "number"),
    ("float32", "number"),
    ("float64", "number"),
    ("int", "integer"),
    ("long", "integer"),
    ("short", "integer"),
    ("int8", "integer"),
    ("int16", "integer"),
    ("int32", "integer"),
    ("int64", "integer"),
    ("uint", "integer"),
    ("uint8", "integer"),
    ("uint16", "integer"),
    ("uint32", "integer"),
    ("uint64", "integer"),
    ("bool", "boolean"),
    ("str", "string"),
    ("text", "string"),
    ("dict", "object"),
    ("list", "array"),
];

/// JSON Schema's name for the type name `t`, or for its alias; `None` for any other name.
fn type_name(t: &str) -> Option<&'static str> {
    (TYPE_NAMES.iter().copied().find(|k| *k == t))
        .or_else(|| TYPE_ALIASES.iter().find(|(a, _)| *a == t).map(|(_, k)| *k))
}

/// Keyword `key` of schema `s`, as `s.get(key)`: a schema holds a handful of keywords, which
/// comparing one by one finds faster than hashing the key (serde_json's maps hash with SipHash,
/// some hundred instructions a keyword); an object of more than [`SCAN_MAX`] members is looked
/// up by its hash. Every keyword lookup of a schema on the typing paths goes through here.
#[inline]
pub(crate) fn keyword<'s>(s: &'s Json, key: &str) -> Option<&'s Json> {
    match s {
        Json::Object(m) => member_of(m, key),
        _ => None,
    }
}

/// [`keyword`] of an object's map.
#[inline]
pub(crate) fn member_of<'s>(m: &'s JsonMap<String, Json>, key: &str) -> Option<&'s Json> {
    if m.len() <= SCAN_MAX {
        m.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        m.get(key)
    }
}

/// The most members an object is scanned for a keyword ([`keyword`]).
const SCAN_MAX: usize = 8;

/// Whether the object `obj` has a `$ref` or an `allOf`: whether resolving it does anything.
#[inline]
fn refers(obj: &JsonMap<String, Json>) -> bool {
    if obj.len() <= SCAN_MAX {
        obj.keys().any(|k| k == "$ref" || k == "allOf")
    } else {
        obj.contains_key("$ref") || obj.contains_key("allOf")
    }
}

static TRUE: Json = Json::Bool(true);

/// A schema document, the root that local references (`#/$defs/x`) point into.
///
/// ```
/// use arg_types::json_schema::SchemaDoc;
/// use serde_json::json;
/// let root = json!({"definitions": {"Mode": {"enum": ["a", "b"]}}});
/// let doc = SchemaDoc::new(&root);
/// let mode = json!({"$ref": "#/definitions/Mode"});
/// assert_eq!(doc.resolve(&mode).as_ref(), &json!({"enum": ["a", "b"]}));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SchemaDoc<'a> {
    root: &'a Json,
}

impl<'a> SchemaDoc<'a> {
    /// A document whose root is `root` (a tool's whole input schema).
    ///
    /// ```
    /// let root = serde_json::json!({"type": "object"});
    /// assert_eq!(arg_types::json_schema::SchemaDoc::new(&root).root(), &root);
    /// ```
    pub fn new(root: &'a Json) -> Self {
        SchemaDoc { root }
    }

    /// The document's root.
    ///
    /// ```
    /// let root = serde_json::json!(true);
    /// assert_eq!(arg_types::json_schema::SchemaDoc::new(&root).root(), &root);
    /// ```
    pub fn root(&self) -> &'a Json {
        self.root
    }

    /// The target of a local reference: `#` (the root) or `#` followed by a JSON Pointer
    /// (`#/$defs/x`, `#/definitions/x`, `#/properties/a`), percent-decoded first as a URI
    /// fragment is (RFC 6901 §6: `#/$defs/a%20b` names `a b`); `None` for other references,
    /// for a fragment that does not decode to UTF-8, and for pointers to nothing.
    ///
    /// ```
    /// use arg_types::json_schema::SchemaDoc;
    /// let root = serde_json::json!({"$defs": {"x": {"type": "string"}}});
    /// let doc = SchemaDoc::new(&root);
    /// assert_eq!(doc.pointer("#/$defs/x"), Some(&serde_json::json!({"type": "string"})));
    /// assert_eq!(doc.pointer("#"), Some(&root));
    /// assert_eq!(doc.pointer("#/$defs/y"), None);
    /// assert_eq!(doc.pointer("other.json#/x"), None);
    /// let spaced = serde_json::json!({"$defs": {"a b": {"type": "integer"}, "é": {}}});
    /// let doc = SchemaDoc::new(&spaced);
    /// assert_eq!(doc.pointer("#/$defs/a%20b"), Some(&serde_json::json!({"type": "integer"})));
    /// assert_eq!(doc.pointer("#/$defs/%C3%A9"), Some(&serde_json::json!({})));
    /// assert_eq!(doc.pointer("#/$defs/%C3"), None);
    /// ```
    pub fn pointer(&self, reference: &str) -> Option<&'a Json> {
        let fragment = reference.strip_prefix('#')?;
        if fragment.is_empty() {
            return Some(self.root);
        }
        if !fragment.contains('%') {
            return self.root.pointer(fragment);
        }
        self.root.pointer(&percent_decode(fragment)?)
    }

    /// `s` with its `$ref` followed and its `allOf` members merged in, recursively, as one
    /// schema without `$ref` or `allOf`; `s` itself when it has neither.
    ///
    /// The parts are merged in order with [`merge_into`]: `s`'s own keywords first (so that they
    /// win over the target of its `$ref`), then the resolved target, then each resolved `allOf`
    /// member. How the parts end:
    ///
    /// - a part that is `false` (nothing is valid) makes the whole result `false`;
    /// - a part that is `true` or not a schema, a reference that is not local or points to
    ///   nothing, and a part past the bound (nested more than 32 deep, or beyond the 64th
    ///   schema resolved in one call) contribute nothing. A reference that closes a cycle (to a
    ///   target being resolved already) contributes nothing either, its keywords being merged
    ///   where it was first met, so each reference of a cycle is followed once: a cycle ends as
    ///   if the reference that closes it were `true`; `{"$ref": "#"}` alone resolves to `{}`,
    ///   any schema.
    ///
    /// ```
    /// use arg_types::json_schema::SchemaDoc;
    /// use serde_json::json;
    /// let root = json!({"$defs": {
    ///     "id": {"type": "integer", "description": "An id"},
    ///     "loop": {"$ref": "#/$defs/loop"},
    ///     "never": false
    /// }});
    /// let doc = SchemaDoc::new(&root);
    /// let s = json!({"$ref": "#/$defs/id", "description": "The user's id"});
    /// assert_eq!(doc.resolve(&s).as_ref(), &json!({"type": "integer", "description": "The user's id"}));
    /// assert_eq!(doc.resolve(&json!({"$ref": "#/$defs/loop"})).as_ref(), &json!({}));
    /// assert_eq!(doc.resolve(&json!({"$ref": "#/nowhere", "type": "string"})).as_ref(), &json!({"type": "string"}));
    /// let never = json!({"allOf": [{"type": "string"}, {"$ref": "#/$defs/never"}]});
    /// assert_eq!(doc.resolve(&never).as_ref(), &json!(false));
    /// ```
    pub fn resolve<'s>(&self, s: &'s Json) -> Cow<'s, Json>
    where
        'a: 's,
    {
        let mut budget = MAX_RESOLVE_PARTS;
        self.resolve_in(s, 0, &mut budget, &mut Vec::new())
    }

    /// The schema of property `name` of the object schema `s`: `s`'s own `properties` entry,
    /// else the first `anyOf` or `oneOf` branch, in order, that declares it (through `$ref` and
    /// `allOf`, and branches of branches: [`BranchProperties`]); `None` when no part of `s`
    /// names it. A tool whose root schema is `{"anyOf": [{"properties": …}]}` (or whose object
    /// argument offers its members in branches) has its members typed as the engines type them:
    /// each name looked up across the branches (docs/FORMAT.md §5.3). One lookup walks the
    /// branches once (at most 256 schemas); a caller with many names uses
    /// [`SchemaDoc::member`], which keeps the walk.
    ///
    /// ```
    /// use arg_types::json_schema::SchemaDoc;
    /// use serde_json::json;
    /// let root = json!({"type": "object", "properties": {"a": {"type": "string"}},
    ///     "anyOf": [{"properties": {"n": {"$ref": "#/$defs/n"}}}, {"properties": {"n": false}}],
    ///     "$defs": {"n": {"type": "integer"}}});
    /// let doc = SchemaDoc::new(&root);
    /// assert_eq!(doc.property(&root, "a").as_deref(), Some(&json!({"type": "string"})));
    /// assert_eq!(doc.property(&root, "n").as_deref(), Some(&json!({"type": "integer"})));
    /// assert_eq!(doc.property(&root, "z"), None);
    /// ```
    pub fn property<'s>(&self, s: &'s Json, name: &str) -> Option<Cow<'s, Json>>
    where
        'a: 's,
    {
        let mut visits = MAX_PROPERTY_VISITS;
        self.member(s, name, &mut None, &mut visits)
    }

    /// [`SchemaDoc::property`] for a caller that asks for many names of one schema: the walk of
    /// the branches is made at the first name `s`'s own `properties` miss, visiting at most
    /// `*visits` schemas (taken off it: a caller with a budget of its own charges the walk to
    /// it), and kept in `branches` for the next names.
    pub fn member<'s>(
        &self,
        s: &'s Json,
        name: &str,
        branches: &mut Option<BranchProperties>,
        visits: &mut usize,
    ) -> Option<Cow<'s, Json>>
    where
        'a: 's,
    {
        if let Some(own) = self.own_property(s, name) {
            return Some(own);
        }
        self.branch_member(s, name, branches, visits)
    }

    /// The second half of [`SchemaDoc::member`]: the schema a branch of `s` declares for
    /// `name`, for a caller that looked in `s`'s own `properties` already (and holds the visits
    /// only when it must walk).
    pub(crate) fn branch_member<'s>(
        &self,
        s: &Json,
        name: &str,
        branches: &mut Option<BranchProperties>,
        visits: &mut usize,
    ) -> Option<Cow<'s, Json>> {
        let branches = branches.get_or_insert_with(|| BranchProperties::within(self, s, visits));
        branches.get(name).cloned().map(Cow::Owned)
    }

    /// The schema of property `name` in `s`'s own `properties` (after `$ref` and `allOf`),
    /// resolved.
    pub fn own_property<'s>(&self, s: &'s Json, name: &str) -> Option<Cow<'s, Json>>
    where
        'a: 's,
    {
        match self.resolve(s) {
            Cow::Borrowed(r) => Some(self.resolve(keyword(keyword(r, "properties")?, name)?)),
            Cow::Owned(o) => {
                let p = keyword(keyword(&o, "properties")?, name)?;
                Some(Cow::Owned(self.resolve(p).into_owned()))
            }
        }
    }

    /// `chain`: the `$ref` targets being resolved around this call (nodes of the document, by
    /// address). A target met again closes a cycle and contributes nothing: its keywords are
    /// merged already, where it was first met, so following it again would only repeat them,
    /// at the price of cloning the schema once per turn (a self-referring root with siblings,
    /// `{"$ref": "#", "anyOf": …}`, cost 64 clones of itself per resolution: found by the
    /// `schema_coerce` soak, `a_reference_cycle_is_resolved_once`).
    fn resolve_in<'s>(
        &self,
        s: &'s Json,
        depth: usize,
        budget: &mut usize,
        chain: &mut Vec<*const Json>,
    ) -> Cow<'s, Json>
    where
        'a: 's,
    {
        #[cfg(test)]
        tests::RESOLVES.with(|r| r.set(r.get() + 1));
        let Json::Object(obj) = s else {
            return Cow::Borrowed(s);
        };
        if !refers(obj) {
            return Cow::Borrowed(s);
        }
        if depth > MAX_RESOLVE_DEPTH || *budget == 0 {
            return Cow::Borrowed(&TRUE);
        }
        *budget -= 1;
        let target = member_of(obj, "$ref")
            .and_then(Json::as_str)
            .and_then(|r| self.pointer(r))
            .filter(|t| !chain.contains(&std::ptr::from_ref(*t)));
        let members = member_of(obj, "allOf")
            .and_then(Json::as_array)
            .map_or(&[][..], Vec::as_slice);
        if obj.len() == 1
            && members.is_empty()
            && let Some(target) = target
        {
            // A bare reference: its target's resolution, borrowed when the target needs none.
            chain.push(std::ptr::from_ref(target));
            let resolved = self.resolve_in(target, depth + 1, budget, chain);
            chain.pop();
            return match resolved.as_ref() {
                Json::Object(_) | Json::Bool(false) => resolved,
                _ => Cow::Owned(Json::Object(JsonMap::new())),
            };
        }
        let mut merged = obj.clone();
        merged.remove("$ref");
        merged.remove("allOf");
        // One set of the merged `required` names for all the parts: linear in their total.
        let mut names = RequiredNames::default();
        if let Some(t) = target {
            chain.push(std::ptr::from_ref(t));
        }
        let mut result = None;
        for part in target.into_iter().chain(members) {
            match self.resolve_in(part, depth + 1, budget, chain).as_ref() {
                Json::Object(p) if merge_with(&mut merged, p, &mut names) => {}
                // Types that no value has in common, or a part that allows nothing.
                Json::Object(_) | Json::Bool(false) => {
                    result = Some(Json::Bool(false));
                    break;
                }
                _ => {}
            }
        }
        if target.is_some() {
            chain.pop();
        }
        Cow::Owned(result.unwrap_or(Json::Object(merged)))
    }
}

/// Merges the keywords of `from` into `into` as `allOf` members merge: `properties` and
/// `required` are united (a property `into` already has keeps its schema), `type`s are
/// intersected (a value must have both: `["string", "null"]` and `"string"` are `"string"`, an
/// `integer` is a `number`), any other keyword `into` already has is kept. Returns `false` when
/// the two `type`s have no type in common: no value fits both, and the caller reads the merge as
/// the schema `false`.
///
/// ```
/// use serde_json::json;
/// let mut into = json!({"properties": {"a": {"type": "string"}}, "required": ["a"], "title": "A"});
/// let from = json!({"properties": {"a": {}, "b": {}}, "required": ["b", "a"], "title": "B", "type": "object"});
/// assert!(arg_types::json_schema::merge_into(into.as_object_mut().unwrap(), from.as_object().unwrap()));
/// assert_eq!(into, json!({
///     "properties": {"a": {"type": "string"}, "b": {}},
///     "required": ["a", "b"],
///     "title": "A",
///     "type": "object"
/// }));
/// let mut n = json!({"type": ["number", "null"]});
/// assert!(arg_types::json_schema::merge_into(n.as_object_mut().unwrap(), json!({"type": "integer"}).as_object().unwrap()));
/// assert_eq!(n, json!({"type": "integer"}));
/// assert!(!arg_types::json_schema::merge_into(n.as_object_mut().unwrap(), json!({"type": "string"}).as_object().unwrap()));
/// ```
pub fn merge_into(into: &mut JsonMap<String, Json>, from: &JsonMap<String, Json>) -> bool {
    merge_with(into, from, &mut RequiredNames::default())
}

/// [`merge_into`], with the set of the names in `into`'s `required` kept by the caller across
/// merges into the same `into`, so that merging n parts is linear, not quadratic, in the names.
fn merge_with(
    into: &mut JsonMap<String, Json>,
    from: &JsonMap<String, Json>,
    names: &mut RequiredNames,
) -> bool {
    for (k, v) in from {
        match (k.as_str(), into.get_mut(k), v) {
            ("type", Some(have), _) => {
                let both = common_types(have, v);
                if both.is_empty() {
                    return false;
                }
                *have = match both.as_slice() {
                    [one] => Json::String((*one).to_owned()),
                    many => {
                        Json::Array(many.iter().map(|t| Json::String((*t).to_owned())).collect())
                    }
                };
            }
            ("properties", Some(Json::Object(have)), Json::Object(more)) => {
                for (name, schema) in more {
                    have.entry(name.clone()).or_insert_with(|| schema.clone());
                }
            }
            ("required", Some(Json::Array(have)), Json::Array(more)) => {
                let seen = names.of(have);
                for name in more {
                    if seen.insert(required_key(name)) {
                        have.push(name.clone());
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, _) => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
    true
}

/// The JSON Schema types that two `type` keywords both allow, in `a`'s order: an `integer` is a
/// `number` too. Names that are not types (nor aliases) are kept when both hold them, so two
/// unknown names merge as before.
fn common_types<'j>(a: &'j Json, b: &'j Json) -> Vec<&'j str> {
    let list = |t: &'j Json| -> Vec<&'j str> {
        match t {
            Json::String(s) => vec![s.as_str()],
            Json::Array(ts) => ts.iter().filter_map(Json::as_str).collect(),
            _ => Vec::new(),
        }
    };
    let (a, b) = (list(a), list(b));
    let named = |t: &str| type_name(t).unwrap_or("");
    let mut out: Vec<&str> = Vec::new();
    for t in a {
        let n = named(t);
        let keep = b.iter().any(|u| {
            let m = named(u);
            t == *u || (!n.is_empty() && n == m) || (n == "integer" && m == "number")
        });
        let narrowed = (n == "number")
            .then(|| b.iter().copied().find(|u| named(u) == "integer"))
            .flatten();
        match (keep, narrowed) {
            (true, _) if !out.contains(&t) => out.push(t),
            (false, Some(u)) if !out.contains(&u) => out.push(u),
            _ => {}
        }
    }
    out
}

/// The names of one `required` list as a set, built when first needed.
#[derive(Default)]
struct RequiredNames(Option<HashSet<String>>);

impl RequiredNames {
    fn of(&mut self, list: &[Json]) -> &mut HashSet<String> {
        self.0
            .get_or_insert_with(|| list.iter().map(required_key).collect())
    }
}

/// A set key, the same for equal names: `"` and the name for a string, the JSON text (which
/// never starts with `"`) otherwise. Entries that are not strings are not names ([`required`]
/// skips them); they compare by their text.
fn required_key(name: &Json) -> String {
    match name {
        Json::String(s) => format!("\"{s}"),
        other => other.to_string(),
    }
}

/// The type names a (resolved) schema allows, in the order given; empty means any.
///
/// From `type` (a name or a list of names) when it is there, each of JSON Schema's names or a
/// common alias of one (`float`, `double`: `number`; `int`: `integer`; `bool`: `boolean`; `str`,
/// `text`: `string`; `dict`: `object`; `list`: `array`), leaving out any other name (`"file"`);
/// otherwise inferred from the keywords: `object` from `properties`, `required` or
/// `additionalProperties`, `array` from `items` or `prefixItems`. OpenAPI's `nullable: true`
/// beside a `type` adds `null`. Values are not looked at (the coercer reads `enum` and `const`
/// on their own); see [`types_with_values`].
///
/// ```
/// use arg_types::json_schema::types;
/// use serde_json::json;
/// assert_eq!(types(&json!({"type": ["string", "null"]})), ["string", "null"]);
/// assert_eq!(types(&json!({"type": "float"})), ["number"]);
/// assert_eq!(types(&json!({"type": "string", "nullable": true})), ["string", "null"]);
/// assert_eq!(types(&json!({"type": ["int", "null"]})), ["integer", "null"]);
/// assert_eq!(types(&json!({"type": "file"})), Vec::<&str>::new());
/// assert_eq!(types(&json!({"required": ["a"]})), ["object"]);
/// assert_eq!(types(&json!({"prefixItems": []})), ["array"]);
/// assert!(types(&json!({"enum": ["a"]})).is_empty());
/// ```
pub fn types(s: &Json) -> Vec<&'static str> {
    let mut named: Vec<&'static str> = match keyword(s, "type") {
        Some(Json::String(t)) => type_name(t).into_iter().collect(),
        Some(Json::Array(ts)) => ts
            .iter()
            .filter_map(Json::as_str)
            .filter_map(type_name)
            .collect(),
        _ => return implied_types(s),
    };
    // OpenAPI's `nullable: true` (Gemini's and OpenAPI 3.0's tool schemas): null as well.
    if !named.is_empty()
        && keyword(s, "nullable") == Some(&Json::Bool(true))
        && !named.contains(&"null")
    {
        named.push("null");
    }
    named
}

/// The type the keywords of a schema without `type` imply: `object` from `properties`,
/// `required` or `additionalProperties`, `array` from `items` or `prefixItems`, else none.
fn implied_types(s: &Json) -> Vec<&'static str> {
    if ["properties", "required", "additionalProperties"]
        .iter()
        .any(|k| keyword(s, k).is_some())
    {
        vec!["object"]
    } else if keyword(s, "items").is_some() || keyword(s, "prefixItems").is_some() {
        vec!["array"]
    } else {
        Vec::new()
    }
}

/// [`types`], and when that gives none, the types of the [`enum_values`] in their order (each
/// once): what a reader of the schema (the prompt's parameter list, its example generator) takes
/// the type to be.
///
/// ```
/// use arg_types::json_schema::types_with_values;
/// use serde_json::json;
/// assert_eq!(types_with_values(&json!({"enum": ["a", 1, "b", 2.5]})), ["string", "integer", "number"]);
/// assert_eq!(types_with_values(&json!({"type": "string", "enum": [1]})), ["string"]);
/// assert!(types_with_values(&json!({})).is_empty());
/// ```
pub fn types_with_values(s: &Json) -> Vec<&str> {
    let mut out = types(s);
    if out.is_empty() {
        for v in enum_values(s).unwrap_or_default() {
            let t = value_type(v);
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// The JSON Schema type name of a JSON value: `integer` for numbers without a fractional part
/// in their JSON form, `number` for the others.
///
/// ```
/// use arg_types::json_schema::value_type;
/// use serde_json::json;
/// assert_eq!(value_type(&json!(3)), "integer");
/// assert_eq!(value_type(&json!(3.0)), "number");
/// assert_eq!(value_type(&json!(null)), "null");
/// ```
pub fn value_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// The values a schema allows when it lists them: `[const]`, else the `enum` list (which may be
/// empty: no value); `None` when it has neither.
///
/// ```
/// use arg_types::json_schema::enum_values;
/// use serde_json::json;
/// assert_eq!(enum_values(&json!({"enum": ["a", "b"]})), Some(&[json!("a"), json!("b")][..]));
/// assert_eq!(enum_values(&json!({"const": null})), Some(&[json!(null)][..]));
/// assert_eq!(enum_values(&json!({"const": 1, "enum": [1, 2]})), Some(&[json!(1)][..]));
/// assert_eq!(enum_values(&json!({"type": "string"})), None);
/// ```
pub fn enum_values(s: &Json) -> Option<&[Json]> {
    keyword(s, "const").map(std::slice::from_ref).or_else(|| {
        keyword(s, "enum")
            .and_then(Json::as_array)
            .map(Vec::as_slice)
    })
}

/// The `required` names of a (resolved) object schema, in the order given.
///
/// ```
/// let s = serde_json::json!({"required": ["path", 3, "mode"]});
/// assert_eq!(arg_types::json_schema::required(&s), ["path", "mode"]);
/// ```
pub fn required(s: &Json) -> Vec<&str> {
    keyword(s, "required")
        .and_then(Json::as_array)
        .map(|r| r.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default()
}

/// Whether a value of the JSON Schema type `ty` (a [`value_type`] name) may stand where `s` is
/// the schema, by type alone: one of `s`'s types ([`types_with_values`]; an `integer` is a
/// `number` too) or, for a schema of alternatives, one of any branch's. A schema that names no
/// type (nor values, nor alternatives) takes any; so does one nested past 32 levels of
/// alternatives (never an error).
///
/// ```
/// use arg_types::json_schema::accepts;
/// use serde_json::json;
/// assert!(accepts(&json!({"type": "number"}), "integer"));
/// assert!(!accepts(&json!({"type": "integer"}), "string"));
/// assert!(accepts(&json!({"anyOf": [{"type": "object"}, {"type": "null"}]}), "null"));
/// assert!(!accepts(&json!({"anyOf": [{"type": "object"}, {"type": "null"}]}), "string"));
/// assert!(accepts(&json!({"description": "anything"}), "array"));
/// ```
pub fn accepts(s: &Json, ty: &str) -> bool {
    fn at(s: &Json, ty: &str, depth: usize) -> bool {
        if let Some(branches) = alternatives(s) {
            return depth >= 32 || branches.iter().any(|b| at(b, ty, depth + 1));
        }
        let types = types_with_values(s);
        types.is_empty() || types.contains(&ty) || (ty == "integer" && types.contains(&"number"))
    }
    at(s, ty, 0)
}

/// The properties that a schema's `anyOf`/`oneOf` branches declare (through `$ref`, `allOf`
/// and branches of branches), each name's first in the branches' order, resolved: where an
/// argument's schema is looked for when the schema's own `properties` do not name it
/// ([`SchemaDoc::property`], docs/FORMAT.md §5.3). Found in one walk of at most 256 schemas and
/// 16 branches deep, so that looking up many names costs one walk, not one per name.
///
/// ```
/// use arg_types::json_schema::{BranchProperties, SchemaDoc};
/// use serde_json::json;
/// let root = json!({"oneOf": [{"properties": {"a": {"type": "integer"}}},
///     {"anyOf": [{"properties": {"a": {"type": "string"}, "b": {}}}]}]});
/// let branches = BranchProperties::of(&SchemaDoc::new(&root), &root);
/// assert_eq!(branches.get("a"), Some(&json!({"type": "integer"})));
/// assert_eq!(branches.get("b"), Some(&json!({})));
/// assert_eq!(branches.get("c"), None);
/// // The types every branch allows for a name, together: `a` is an integer or a string.
/// assert_eq!(branches.types("a"), Some(&["integer", "string"][..]));
/// assert_eq!(branches.types("b"), Some(&[][..]));
/// ```
#[derive(Debug, Clone, Default)]
pub struct BranchProperties {
    first: std::collections::HashMap<String, Json>,
    /// Per name, the types of all its declarations together; empty when one of them names no
    /// type (it allows anything).
    types: std::collections::HashMap<String, Vec<&'static str>>,
}

impl BranchProperties {
    /// The properties `s`'s branches declare.
    pub fn of(doc: &SchemaDoc<'_>, s: &Json) -> Self {
        let mut visits = MAX_PROPERTY_VISITS;
        Self::within(doc, s, &mut visits)
    }

    /// [`BranchProperties::of`], visiting at most `*visits` schemas (and taking them off it):
    /// a caller with a budget of its own charges the walk to it.
    pub fn within<'a: 's, 's>(doc: &SchemaDoc<'a>, s: &'s Json, visits: &mut usize) -> Self {
        /// Puts the branches of `of` on the stack, the first on top, at most `left` of them.
        fn push<'s>(
            stack: &mut Vec<(Cow<'s, Json>, usize)>,
            of: Cow<'s, Json>,
            hops: usize,
            left: usize,
        ) {
            let items: Vec<Cow<'s, Json>> = match of {
                Cow::Borrowed(b) => match alternatives(b) {
                    Some(branches) => branches.iter().take(left).map(Cow::Borrowed).collect(),
                    None => return,
                },
                Cow::Owned(o) => match alternatives(&o) {
                    Some(branches) => branches
                        .iter()
                        .take(left)
                        .map(|b| Cow::Owned(b.clone()))
                        .collect(),
                    None => return,
                },
            };
            stack.extend(items.into_iter().rev().map(|b| (b, hops)));
        }
        let mut out = std::collections::HashMap::new();
        let mut all_types: std::collections::HashMap<String, Vec<&'static str>> =
            std::collections::HashMap::new();
        // Branches in order, each before its own branches: an explicit stack, no recursion, and
        // never more branches on it than may still be visited.
        let mut stack: Vec<(Cow<'s, Json>, usize)> = Vec::new();
        push(&mut stack, doc.resolve(s), 1, *visits);
        // Never more on the stack than may still be visited.
        while let Some((branch, hops)) = stack.pop() {
            if hops > MAX_PROPERTY_HOPS || *visits == 0 {
                continue;
            }
            *visits -= 1;
            let branch: Cow<'s, Json> = match branch {
                Cow::Borrowed(b) => doc.resolve(b),
                Cow::Owned(o) => Cow::Owned(doc.resolve(&o).into_owned()),
            };
            if let Some(props) = keyword(&branch, "properties").and_then(Json::as_object) {
                for (name, p) in props {
                    let p = doc.resolve(p);
                    let these = types(&p);
                    match all_types.get_mut(name) {
                        // A later declaration: its types join the name's, unless one allows
                        // anything already (or this one does).
                        Some(known) if !known.is_empty() => {
                            if these.is_empty() {
                                known.clear();
                            } else {
                                for t in these {
                                    if !known.contains(&t) {
                                        known.push(t);
                                    }
                                }
                            }
                        }
                        Some(_) => {}
                        None => {
                            all_types.insert(name.clone(), these);
                        }
                    }
                    if !out.contains_key(name) {
                        out.insert(name.clone(), p.into_owned());
                    }
                }
            }
            let left = visits.saturating_sub(stack.len());
            push(&mut stack, branch, hops + 1, left);
        }
        BranchProperties {
            first: out,
            types: all_types,
        }
    }

    /// The schema a branch declares for `name`, if one does: the first declaration.
    pub fn get(&self, name: &str) -> Option<&Json> {
        self.first.get(name)
    }

    /// The types ([`types`]) that the branches declaring `name` allow, all together, in the
    /// order met; empty when one of them names none (it allows anything). `None` for a name no
    /// branch declares. Which branch a call's arguments take is known only once all of them are
    /// read, so a value is known to be text only when every branch says so.
    pub fn types(&self, name: &str) -> Option<&[&'static str]> {
        self.types.get(name).map(Vec::as_slice)
    }
}

/// A tool's input schema read once for the many calls made to it: the names of its own
/// `properties` (with each one's types, and whether it reads as plain text, where its
/// resolution is a node of the schema: a property that merges parts is resolved when asked
/// for), its `additionalProperties`, and the properties its branches declare
/// ([`BranchProperties`]), walked at the first name its own `properties` miss and kept.
///
/// What it answers is what [`SchemaDoc::property`] answers on the schema itself, without
/// resolving the root again at every argument of every call (a streaming parser asks at every
/// parameter tag). [`PreparedSchema::type_raw_arguments`] types a call's raw-text arguments
/// through it.
///
/// Work: one resolution (the root's) and one pass over its own properties. Memory: the schema,
/// plus each own property's name and types.
///
/// ```
/// use arg_types::json_schema::PreparedSchema;
/// use serde_json::json;
/// let root = json!({"properties": {"a": {"type": "string"}, "b": {"$ref": "#/$defs/b"}},
///     "anyOf": [{"properties": {"n": {"type": "integer"}}}], "$defs": {"b": {"type": "boolean"}}});
/// let p = PreparedSchema::new(root.clone());
/// assert_eq!(p.root(), &root);
/// assert_eq!(p.property("a").as_deref(), Some(&json!({"type": "string"})));
/// assert_eq!(p.property("b").as_deref(), Some(&json!({"type": "boolean"})));
/// assert_eq!(p.property("n").as_deref(), Some(&json!({"type": "integer"})));
/// assert!(p.property("z").is_none());
/// assert!(p.is_string("a") && !p.is_string("b") && !p.is_string("z"));
/// ```
#[derive(Debug, Clone)]
pub struct PreparedSchema {
    root: Json,
    /// `additionalProperties` of the resolved root, when it has one.
    additional: Option<Json>,
    /// The root's own properties, sorted by name, each with how its schema reads.
    own: Box<[(Box<str>, Reading)]>,
    /// The properties the root's branches declare, walked at the first miss.
    branches: std::sync::OnceLock<BranchProperties>,
}

/// How one own property's (resolved) schema reads a raw text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reading {
    /// Its [`types`]; `None` when they are found only by resolving it, at each ask
    /// ([`reading`]).
    types: Option<Box<[&'static str]>>,
    /// It reads a text by its types alone (an object schema without `enum`, `const`, `anyOf`,
    /// `oneOf`): whether it gives `type` (else its types are implied by other keywords).
    explicit: Option<bool>,
}

impl Reading {
    /// The types, and whether they are given, of a schema that reads a text by them alone.
    pub(crate) fn by_types(&self) -> Option<(&[&'static str], bool)> {
        Some((self.types.as_deref()?, self.explicit?))
    }
}

impl PreparedSchema {
    /// Reads `input_schema` (a tool's whole input schema, the root its `$ref`s point into):
    /// one resolution of the root, bounded as [`SchemaDoc::resolve`] is, and one pass over its
    /// own properties that clones and merges nothing.
    pub fn new(input_schema: Json) -> Self {
        let doc = SchemaDoc::new(&input_schema);
        let resolved = doc.resolve(&input_schema);
        let additional = resolved.get("additionalProperties").cloned();
        let mut own: Vec<(Box<str>, Reading)> = match resolved.get("properties") {
            Some(Json::Object(props)) => props
                .iter()
                .map(|(name, p)| (name.as_str().into(), reading(&doc, p)))
                .collect(),
            _ => Vec::new(),
        };
        own.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        drop(resolved);
        PreparedSchema {
            root: input_schema,
            additional,
            own: own.into_boxed_slice(),
            branches: std::sync::OnceLock::new(),
        }
    }

    /// The input schema, as given.
    pub fn root(&self) -> &Json {
        &self.root
    }

    /// Whether the root has alternatives (`anyOf`/`oneOf`): then which branch types a call's
    /// arguments is known only once all of them are read (docs/FORMAT.md §5.3), so an argument's
    /// value cannot be settled alone.
    ///
    /// ```
    /// use arg_types::json_schema::PreparedSchema;
    /// let p = PreparedSchema::new(serde_json::json!({"oneOf": [{"properties": {"a": {}}}]}));
    /// assert!(p.has_alternatives());
    /// assert!(!PreparedSchema::new(serde_json::json!({"properties": {}})).has_alternatives());
    /// ```
    pub fn has_alternatives(&self) -> bool {
        alternatives(&self.root).is_some()
    }

    /// `additionalProperties` of the (resolved) root, when it has one.
    pub fn additional_properties(&self) -> Option<&Json> {
        self.additional.as_ref()
    }

    /// How the root's own property `name` reads, if the root has one of the name.
    pub(crate) fn own(&self, name: &str) -> Option<&Reading> {
        let at = self.own.binary_search_by(|(n, _)| (**n).cmp(name)).ok()?;
        Some(&self.own[at].1)
    }

    /// The schema of property `name`, resolved: [`SchemaDoc::property`] of the root.
    pub fn property(&self, name: &str) -> Option<Cow<'_, Json>> {
        match self.own(name) {
            Some(_) => SchemaDoc::new(&self.root).own_property(&self.root, name),
            None => self.branch(name).map(Cow::Borrowed),
        }
    }

    /// Whether the root names a property `name`, in its own `properties` or in a branch
    /// (`property(name).is_some()`, without resolving it).
    pub fn has_property(&self, name: &str) -> bool {
        self.own(name).is_some() || self.branch(name).is_some()
    }

    /// Whether property `name`'s types ([`types`]) are `string`, with `null` at most: its
    /// value is text whatever it holds (markup included). `false` for a name the schema does
    /// not give.
    pub fn is_string(&self, name: &str) -> bool {
        self.types(name).is_some_and(|t| string_types(&t))
    }

    /// The [`types`] of property `name`'s schema; `None` for a name the schema does not give.
    ///
    /// ```
    /// use arg_types::json_schema::PreparedSchema;
    /// let p = PreparedSchema::new(serde_json::json!({"properties": {"n": {"type": ["int", "null"]}}}));
    /// assert_eq!(p.types("n").as_deref(), Some(&["integer", "null"][..]));
    /// assert_eq!(p.types("m"), None);
    /// ```
    pub fn types(&self, name: &str) -> Option<Cow<'_, [&'static str]>> {
        match self.own(name).map(|r| &r.types) {
            Some(Some(t)) => Some(Cow::Borrowed(t)),
            Some(None) => self.property(name).map(|p| Cow::Owned(types(&p))),
            None => self.branches().types(name).map(Cow::Borrowed),
        }
    }

    /// The properties the root's branches declare, walked at the first ask.
    fn branches(&self) -> &BranchProperties {
        self.branches
            .get_or_init(|| BranchProperties::of(&SchemaDoc::new(&self.root), &self.root))
    }

    /// The schema a branch of the root declares for `name`.
    fn branch(&self, name: &str) -> Option<&Json> {
        self.branches().get(name)
    }
}

/// How the own property schema `p` reads a raw text. [`crate::raw::type_raw`] is given the
/// property's resolution and resolves it once more before reading, so the test is made on that
/// second resolution. Only resolutions that are nodes of the document are made here (no
/// clone, no merge: [`resolved_in_place`]); a property whose resolution merges parts (an
/// `allOf`, a reference with siblings) is read through the schema at each ask, as without
/// preparation, so that preparing a schema costs one pass over its properties however large
/// the definitions they merge.
fn reading(doc: &SchemaDoc<'_>, p: &Json) -> Reading {
    let deferred = Reading {
        types: None,
        explicit: None,
    };
    let Some(once) = resolved_in_place(doc, p) else {
        return deferred;
    };
    let Some(s) = resolved_in_place(doc, once) else {
        return deferred;
    };
    let by_types = s.is_object() && enum_values(s).is_none() && alternatives(s).is_none();
    let explicit = s.get("type").is_some();
    Reading {
        types: Some(types(once).into_boxed_slice()),
        explicit: by_types.then_some(explicit),
    }
}

/// [`SchemaDoc::resolve`] of `s` when it is `s` itself or, through bare references (`{"$ref":
/// …}` alone), a node of the document that needs no resolving: found without cloning. `None`
/// when resolving would merge or replace anything (an `allOf`, a reference with siblings, one
/// that points nowhere or to neither an object nor `false`, a chain of more than 8).
fn resolved_in_place<'s>(doc: &SchemaDoc<'s>, s: &'s Json) -> Option<&'s Json> {
    let mut at = s;
    for _ in 0..8 {
        let Json::Object(o) = at else {
            return Some(at);
        };
        if !o.contains_key("$ref") && !o.contains_key("allOf") {
            return Some(at);
        }
        if o.len() != 1 {
            return None;
        }
        let target = o
            .get("$ref")
            .and_then(Json::as_str)
            .and_then(|r| doc.pointer(r))?;
        match target {
            Json::Object(_) | Json::Bool(false) => at = target,
            _ => return None,
        }
    }
    None
}

/// Whether the types `t` are `string`, with `null` at most.
fn string_types(t: &[&str]) -> bool {
    t.contains(&"string") && t.iter().all(|t| *t == "string" || *t == "null")
}

/// `s` with each `%XX` (two hexadecimal digits) replaced by that byte; `None` when the result is
/// not UTF-8. A `%` not followed by two hexadecimal digits stays as it is.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).and_then(|&b| hex(b)),
            bytes.get(i + 2).and_then(|&b| hex(b)),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The `anyOf` alternatives of a schema, else its `oneOf` ones; `None` when it has neither
/// list. An empty list is returned as it is (no value fits it).
///
/// ```
/// use arg_types::json_schema::alternatives;
/// use serde_json::json;
/// let s = json!({"oneOf": [{"type": "string"}, {"type": "null"}]});
/// assert_eq!(alternatives(&s).map(<[_]>::len), Some(2));
/// assert_eq!(alternatives(&json!({"anyOf": []})), Some(&[][..]));
/// assert_eq!(alternatives(&json!({"type": "string"})), None);
/// ```
pub fn alternatives(s: &Json) -> Option<&[Json]> {
    keyed_alternatives(s).map(|(_, branches)| branches)
}

/// [`alternatives`] with the keyword that holds them (`"anyOf"` or `"oneOf"`), for a caller
/// that rewrites the list.
pub(crate) fn keyed_alternatives(s: &Json) -> Option<(&'static str, &[Json])> {
    let key = if keyword(s, "anyOf").is_some() {
        "anyOf"
    } else {
        "oneOf"
    };
    Some((key, keyword(s, key)?.as_array()?.as_slice()))
}

/// The schema of item `index` of a (resolved) array schema: `prefixItems` by position, then
/// array-form `items` by position (with `additionalItems` past its end), else `items`. `None`
/// when nothing describes the item, which allows anything.
///
/// ```
/// use arg_types::json_schema::item_schema;
/// use serde_json::json;
/// let s = json!({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}});
/// assert_eq!(item_schema(&s, 0), Some(&json!({"type": "string"})));
/// assert_eq!(item_schema(&s, 5), Some(&json!({"type": "integer"})));
/// let tuple = json!({"items": [{"type": "boolean"}], "additionalItems": false});
/// assert_eq!(item_schema(&tuple, 1), Some(&json!(false)));
/// assert_eq!(item_schema(&json!({"type": "array"}), 0), None);
/// ```
pub fn item_schema(s: &Json, index: usize) -> Option<&Json> {
    if let Some(Json::Array(prefix)) = keyword(s, "prefixItems")
        && let Some(item) = prefix.get(index)
    {
        return Some(item);
    }
    match keyword(s, "items") {
        Some(Json::Array(by_position)) => by_position
            .get(index)
            .or_else(|| keyword(s, "additionalItems")),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    thread_local! {
        /// Resolutions begun (`resolve_in` calls), the unit of a coercion's schema work.
        pub(super) static RESOLVES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Resolutions made by coercing `e` through `schema` (as the element and as arguments).
    fn resolves_to_coerce(e: &xml_fallback::tree::Element, schema: &Json) -> usize {
        RESOLVES.with(|r| r.set(0));
        let _ = crate::schema::coerce_element(e, schema, None);
        let _ = crate::schema::coerce_arguments_all(e, schema, None);
        RESOLVES.with(std::cell::Cell::get)
    }

    /// The `schema_coerce` fuzz smoke (2026-11-26, night): ordering an object's `anyOf`
    /// branches by the members they declare walked every branch's branches (256 schemas) per
    /// member per comparison, at every level of a self-referring schema: 0.93 s for one element
    /// of a 116-byte input (the fuzzer's 15 s limit under its instrumentation). The ordering
    /// reads each branch's own `properties` now, and an object's branch properties are walked
    /// once and charged to the coercion's steps. The class: resolutions grow linearly with the
    /// members of an object under self-referring branches, at most 2.2 times per doubling, and
    /// the found input takes a hundredth of what the per-member walk took.
    #[test]
    fn branch_lookups_are_linear_in_the_members() {
        use xml_fallback::tree::{Element, Node};
        let schema = json!({"$defs": {"b": {
            "patternProperties": {".*": {}},
            "items": [{"properties": {}}, {"items": {"const": null, "$ref": "#/$defs/b"}}],
            "$ref": "#/$defs/b",
            "anyOf": [{"$ref": "#/$defs/b"}, {"$ref": "#/$defs/b"}]
        }}, "$ref": "#/$defs/b", "patternProperties": {".*": {}}});
        let object = |n: usize| {
            let mut e = Element::new("a.b");
            for i in 0..n {
                let mut m = Element::new(format!("m{i}"));
                m.children.push(Node::CData("&&-1.5aaa".into()));
                e.children.push(Node::Element(m));
            }
            e
        };
        let counts: Vec<usize> = [8, 16, 32, 64]
            .iter()
            .map(|&n| resolves_to_coerce(&object(n), &schema))
            .collect();
        for pair in counts.windows(2) {
            assert!(
                pair[1] * 10 <= pair[0] * 22,
                "resolutions per doubling: {counts:?}"
            );
        }
        // The input as found: one member, `path`.
        let mut found = Element::new("a.b");
        let mut path = Element::new("path");
        path.children.push(Node::CData("&&-1.5aaa".into()));
        found.children.push(Node::Element(path));
        // 5,700 resolutions now; 713,000 with the ordering that walked the branches per member.
        let work = resolves_to_coerce(&found, &schema);
        assert!(work < 20_000, "{work}");
    }

    /// The parts one resolution of `s` takes from its budget.
    fn parts_used(doc: &SchemaDoc<'_>, s: &Json) -> usize {
        let mut budget = MAX_RESOLVE_PARTS;
        doc.resolve_in(s, 0, &mut budget, &mut Vec::new());
        MAX_RESOLVE_PARTS - budget
    }

    /// A keyword found by scanning a small object's keys is the one its hash finds, on both
    /// sides of the scan's bound; a non-object has none.
    #[test]
    fn keyword_is_get() {
        for n in 0..=2 * SCAN_MAX {
            let m: serde_json::Map<String, Json> =
                (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
            let s = Json::Object(m.clone());
            for i in 0..=n {
                let k = format!("k{i}");
                assert_eq!(keyword(&s, &k), s.get(&k), "{n} members, {k}");
                assert_eq!(member_of(&m, &k), m.get(&k));
            }
            let refs = m.contains_key("$ref") || m.contains_key("allOf");
            assert_eq!(refers(&m), refs);
        }
        let mut m = serde_json::Map::new();
        m.insert("allOf".into(), json!([]));
        assert!(refers(&m));
        assert_eq!(keyword(&json!([1]), "k0"), None);
        assert_eq!(keyword(&json!("type"), "type"), None);
    }

    /// Reading a schema once costs one resolution (the root's), however many properties it has
    /// and however large the definitions they merge: a property whose resolution would clone
    /// or merge is resolved when asked for, as without preparation, and answers the same.
    #[test]
    fn preparing_a_schema_resolves_only_its_root() {
        let big: serde_json::Map<String, Json> = (0..200)
            .map(|i| (format!("k{i}"), json!({"type": "string"})))
            .collect();
        let mut props = serde_json::Map::new();
        for i in 0..500 {
            let p = match i % 3 {
                0 => json!({"$ref": "#/$defs/big", "description": "merged with its target"}),
                1 => json!({"allOf": [{"$ref": "#/$defs/big"}, {"type": "object"}]}),
                _ => json!({"$ref": "#/$defs/s"}),
            };
            props.insert(format!("p{i}"), p);
        }
        let root = json!({"$defs": {"big": {"type": "object", "properties": big}, "s": {"type": "string"}},
            "properties": props});
        RESOLVES.with(|r| r.set(0));
        let prepared = PreparedSchema::new(root.clone());
        assert_eq!(RESOLVES.with(|r| r.get()), 1);
        let doc = SchemaDoc::new(&root);
        for name in ["p0", "p1", "p2"] {
            assert_eq!(prepared.property(name), doc.property(&root, name));
            let t = doc.property(&root, name).map(|p| types(&p));
            assert_eq!(prepared.types(name).map(|t| t.into_owned()), t);
        }
        assert!(prepared.is_string("p2") && !prepared.is_string("p0"));
    }

    /// The `schema_coerce` soak (2026-11-26): a root that refers to itself beside other
    /// keywords (`{"$ref": "#", "anyOf": …}`, the schema as found) was merged into itself once
    /// per part of the budget, 64 clones of the whole schema per resolution, and coercion
    /// resolves at every step: 0.3 s for a tree of 15 elements (10 s under the fuzzer). A
    /// reference that closes a cycle now contributes nothing (its keywords are merged already),
    /// so each reference in a cycle is followed once, whatever its length; the results are the
    /// same.
    #[test]
    fn a_reference_cycle_is_resolved_once() {
        let found: Json = serde_json::from_str(
            r##"{"anyOf":[{"$ref":"#"},{"patternProperties":{".*":{}},"properties":{"tool_name":{"type":"boolean","required":[]},"x-1":{"items":{"items":{},"properties":{},"additionalProperties":false}},"item":{"enum":[null,{"aSu-k":null,"":"n","L":2.4e-139},true],"items":{"type":["null","object"],"anyOf":[{"type":"boolean"},3038287259199220403],"$ref":"#"},"$ref":"#"}},"$ref":"#"},{"$ref":"#"}],"$ref":"#"}"##,
        )
        .unwrap();
        let doc = SchemaDoc::new(&found);
        assert_eq!(parts_used(&doc, &found), 2, "the root, then itself once");
        let resolved = doc.resolve(&found);
        assert!(resolved.get("$ref").is_none() && resolved.get("anyOf").is_some());
        // Cycles of every length through `$defs`, beside other keywords.
        for n in 1..20usize {
            let mut defs = serde_json::Map::new();
            for i in 0..n {
                defs.insert(
                    format!("d{i}"),
                    json!({"$ref": format!("#/$defs/d{}", (i + 1) % n), "title": format!("t{i}"),
                           "properties": {format!("p{i}"): {"type": "string"}}}),
                );
            }
            let root = json!({"$defs": defs});
            let doc = SchemaDoc::new(&root);
            let start = json!({"$ref": "#/$defs/d0", "description": "start"});
            assert_eq!(parts_used(&doc, &start), n + 1, "a cycle of {n}");
            let r = doc.resolve(&start);
            for i in 0..n {
                assert_eq!(r["properties"][format!("p{i}")]["type"], "string", "{n}");
            }
            assert_eq!(r["description"], "start");
            assert_eq!(r["title"], "t0");
        }
    }

    #[test]
    fn refs_and_all_of_resolve_and_cycles_end() {
        let root = json!({
            "$defs": {
                "a": {"$ref": "#/$defs/b"},
                "b": {"type": "string"},
                "loop": {"$ref": "#/$defs/loop"},
                "base": {"properties": {"x": {"type": "integer"}}, "required": ["x"]}
            },
            "allOf": [
                {"$ref": "#/$defs/base"},
                {"properties": {"y": {"type": "string"}, "x": {"type": "string"}}, "required": ["y", "x"]}
            ]
        });
        let doc = SchemaDoc::new(&root);
        let a = json!({"$ref": "#/$defs/a"});
        assert_eq!(doc.resolve(&a).as_ref(), &json!({"type": "string"}));
        let merged = doc.resolve(&root);
        assert_eq!(merged["properties"]["x"], json!({"type": "integer"}));
        assert_eq!(merged["properties"]["y"], json!({"type": "string"}));
        assert_eq!(required(&merged), ["x", "y"]);
        assert!(merged.get("allOf").is_none());
        // Reconciled: the prompt kept a cyclic or unresolvable `$ref` in place, the coercer
        // dropped it; both read either as any schema. Now it is dropped (no `$ref` remains for
        // a caller to follow again).
        let l = json!({"$ref": "#/$defs/loop"});
        assert_eq!(doc.resolve(&l).as_ref(), &json!({}));
        let missing = json!({"$ref": "#/nowhere"});
        assert_eq!(doc.resolve(&missing).as_ref(), &json!({}));
        let remote = json!({"$ref": "https://example.com/s.json", "type": "string"});
        assert_eq!(doc.resolve(&remote).as_ref(), &json!({"type": "string"}));
    }

    #[test]
    fn required_names_merge_once_each_in_order() {
        // One set of names across all the parts (merging 8,000 parts was quadratic).
        let root = json!({"required": ["a"], "allOf": [
            {"required": ["b", "a"]}, {"required": ["c", "b", "c", 1, 1]}
        ]});
        let doc = SchemaDoc::new(&root);
        assert_eq!(doc.resolve(&root)["required"], json!(["a", "b", "c", 1]));
        let no_own = json!({"allOf": [{"required": ["a", "a"]}, {"required": ["b", "a"]}]});
        assert_eq!(doc.resolve(&no_own)["required"], json!(["a", "a", "b"]));
    }

    #[test]
    fn ref_siblings_are_merged_and_win() {
        // Reconciled: the prompt followed a `$ref` and dropped the keywords beside it (and an
        // `allOf` beside it); the coercer merged them, its own keywords first. Now merged.
        let root = json!({"$defs": {"e": {"type": "object", "description": "An edit",
            "properties": {"a": {"type": "string"}}}}});
        let doc = SchemaDoc::new(&root);
        let s = json!({"$ref": "#/$defs/e", "description": "The edit",
            "allOf": [{"properties": {"b": {"type": "integer"}}, "required": ["b"]}]});
        assert_eq!(
            doc.resolve(&s).as_ref(),
            &json!({"type": "object", "description": "The edit",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["b"]})
        );
        // A bare reference to a schema that needs no resolution is borrowed, not copied.
        let bare = json!({"$ref": "#/$defs/e"});
        assert!(matches!(doc.resolve(&bare), Cow::Borrowed(_)));
    }

    #[test]
    fn a_false_part_makes_the_whole_false() {
        // Reconciled: the prompt skipped `false` members of `allOf`; the coercer made the whole
        // schema `false` (no value allowed). Now `false`.
        let root = json!({"$defs": {"never": false}});
        let doc = SchemaDoc::new(&root);
        let s = json!({"type": "string", "allOf": [{"minLength": 1}, false]});
        assert_eq!(doc.resolve(&s).as_ref(), &json!(false));
        let r = json!({"$ref": "#/$defs/never", "type": "string"});
        assert_eq!(doc.resolve(&r).as_ref(), &json!(false));
        let t = json!({"allOf": [true, 3], "type": "string"});
        assert_eq!(doc.resolve(&t).as_ref(), &json!({"type": "string"}));
    }

    #[test]
    fn resolution_is_bounded_in_depth_and_breadth() {
        // Each level doubles: without the breadth bound 2^32 schemas would be resolved.
        let root = json!({"$defs": {"a": {"allOf": [
            {"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}, {"type": "string"}
        ]}}});
        let doc = SchemaDoc::new(&root);
        let s = json!({"$ref": "#/$defs/a"});
        assert_eq!(doc.resolve(&s).as_ref(), &json!({"type": "string"}));
        // A chain longer than the depth bound ends as any schema.
        let mut defs = JsonMap::new();
        for i in 0..40 {
            defs.insert(
                format!("d{i}"),
                json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            );
        }
        defs.insert("d40".into(), json!({"type": "string"}));
        let chain = json!({"$defs": defs});
        let doc = SchemaDoc::new(&chain);
        assert_eq!(
            doc.resolve(&json!({"$ref": "#/$defs/d0"})).as_ref(),
            &json!({})
        );
        assert_eq!(
            doc.resolve(&json!({"$ref": "#/$defs/d20"})).as_ref(),
            &json!({"type": "string"})
        );
    }

    #[test]
    fn types_are_given_or_inferred() {
        assert_eq!(
            types(&json!({"type": ["string", "null"]})),
            ["string", "null"]
        );
        assert_eq!(types(&json!({"properties": {}})), ["object"]);
        assert_eq!(types(&json!({"additionalProperties": false})), ["object"]);
        assert_eq!(types(&json!({"items": {}})), ["array"]);
        assert!(types(&json!({})).is_empty());
        assert!(types(&json!(true)).is_empty());
        assert_eq!(
            types_with_values(&json!({"enum": ["a", 1, "b", 2.5]})),
            ["string", "integer", "number"]
        );
        assert_eq!(types_with_values(&json!({"const": null})), ["null"]);
        assert!(types_with_values(&json!({})).is_empty());
    }

    #[test]
    fn types_reconciled() {
        // Values: only the prompt inferred types from `enum`/`const` (the coercer reads values
        // on their own, and must not take `{"const": null}` for a `null` branch first): two
        // functions.
        assert!(types(&json!({"const": null})).is_empty());
        // Unknown names: the prompt kept them, the coercer dropped them (reading the value
        // blind). Now dropped.
        assert!(types(&json!({"type": "file"})).is_empty());
        assert_eq!(types(&json!({"type": ["file", "string"]})), ["string"]);
        // `required` alone: the coercer inferred an object, the prompt did not. Now an object.
        assert_eq!(types(&json!({"required": ["a"]})), ["object"]);
    }

    #[test]
    fn enum_values_prefer_const() {
        // Reconciled: the coercer read `enum` first, the prompt `const`. `const` is the
        // stricter keyword: now `const`.
        let s = json!({"enum": ["a", "b"], "const": "b"});
        assert_eq!(enum_values(&s), Some(&[json!("b")][..]));
        assert_eq!(enum_values(&json!({"enum": "a"})), None);
    }

    #[test]
    fn empty_alternatives_are_kept() {
        // Reconciled: the prompt read an empty `anyOf` as none; the coercer as "no value fits".
        // Returned as it is: the prompt's callers find no branch in it either way.
        assert_eq!(
            alternatives(&json!({"anyOf": [], "oneOf": [{}]})),
            Some(&[][..])
        );
        assert_eq!(alternatives(&json!({"anyOf": 3, "oneOf": [{}]})), None);
        // The keyword named is the one the list was taken from.
        let one = json!({"oneOf": [{}], "properties": {}});
        assert_eq!(keyed_alternatives(&one), Some(("oneOf", &[json!({})][..])));
        let both = json!({"oneOf": [{}], "anyOf": [true]});
        assert_eq!(
            keyed_alternatives(&both),
            Some(("anyOf", &[json!(true)][..]))
        );
    }

    #[test]
    fn item_schemas_by_position() {
        let s = json!({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}});
        assert_eq!(item_schema(&s, 0), Some(&json!({"type": "string"})));
        assert_eq!(item_schema(&s, 1), Some(&json!({"type": "integer"})));
        let old = json!({"items": [{"type": "boolean"}]});
        assert_eq!(item_schema(&old, 0), Some(&json!({"type": "boolean"})));
        assert_eq!(item_schema(&old, 1), None);
        // Reconciled: the coercer read `additionalItems` past array-form `items`, the prompt
        // did not. Now read.
        let tuple = json!({"items": [{"type": "boolean"}], "additionalItems": {"type": "null"}});
        assert_eq!(item_schema(&tuple, 1), Some(&json!({"type": "null"})));
        assert_eq!(item_schema(&json!({}), 0), None);
    }
}
