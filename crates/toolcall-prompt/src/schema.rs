//! Reading JSON Schemas for examples and descriptions: local `$ref`s, `allOf`, the type names a
//! schema allows. Bounded everywhere, so that recursive or hostile schemas end.

use serde_json::{Map as JsonMap, Value as Json};
use std::borrow::Cow;

/// How many `$ref`s and `allOf` levels one resolution follows before giving up.
const MAX_RESOLVE_STEPS: usize = 32;

/// A schema document, for resolving references inside it.
#[derive(Clone, Copy)]
pub(crate) struct Doc<'a> {
    root: &'a Json,
}

impl<'a> Doc<'a> {
    pub(crate) fn new(root: &'a Json) -> Self {
        Doc { root }
    }

    /// `s` with its local `$ref`s followed and its `allOf` members merged in. Unresolvable
    /// references and steps beyond the bound give the schema as it is.
    pub(crate) fn resolve<'s>(&self, s: &'s Json) -> Cow<'s, Json>
    where
        'a: 's,
    {
        self.resolve_bounded(s, MAX_RESOLVE_STEPS)
    }

    fn resolve_bounded<'s>(&self, s: &'s Json, mut budget: usize) -> Cow<'s, Json>
    where
        'a: 's,
    {
        let mut cur = s;
        while let Some(target) = cur
            .get("$ref")
            .and_then(Json::as_str)
            .and_then(|r| self.pointer(r))
        {
            if budget == 0 {
                break;
            }
            budget -= 1;
            cur = target;
        }
        match cur.get("allOf").and_then(Json::as_array) {
            Some(members) if budget > 0 => {
                let mut merged = match cur {
                    Json::Object(o) => o.clone(),
                    _ => JsonMap::new(),
                };
                merged.remove("allOf");
                for m in members {
                    if let Json::Object(part) = self.resolve_bounded(m, budget - 1).as_ref() {
                        merge_into(&mut merged, part);
                    }
                }
                Cow::Owned(Json::Object(merged))
            }
            _ => Cow::Borrowed(cur),
        }
    }

    /// The target of a local reference (`#`, `#/$defs/x`, `#/definitions/x`).
    fn pointer(&self, reference: &str) -> Option<&'a Json> {
        let fragment = reference.strip_prefix('#')?;
        if fragment.is_empty() {
            Some(self.root)
        } else {
            self.root.pointer(fragment)
        }
    }
}

/// Merges one `allOf` member: `properties` and `required` united, other keywords first one wins.
fn merge_into(into: &mut JsonMap<String, Json>, part: &JsonMap<String, Json>) {
    for (k, v) in part {
        match (k.as_str(), into.get_mut(k), v) {
            ("properties", Some(Json::Object(have)), Json::Object(more)) => {
                for (name, schema) in more {
                    have.entry(name.clone()).or_insert_with(|| schema.clone());
                }
            }
            ("required", Some(Json::Array(have)), Json::Array(more)) => {
                for name in more {
                    if !have.contains(name) {
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
}

/// The type names a (resolved) schema allows, in the order given. Without `type`, inferred from
/// `properties` (object), `items` (array), or the values of `const`/`enum`; empty means any.
pub(crate) fn types(s: &Json) -> Vec<&str> {
    match s.get("type") {
        Some(Json::String(t)) => return vec![t.as_str()],
        Some(Json::Array(ts)) => return ts.iter().filter_map(Json::as_str).collect(),
        _ => {}
    }
    if s.get("properties").is_some() || s.get("additionalProperties").is_some() {
        return vec!["object"];
    }
    if s.get("items").is_some() || s.get("prefixItems").is_some() {
        return vec!["array"];
    }
    let mut out: Vec<&str> = Vec::new();
    let values = s
        .get("const")
        .map(std::slice::from_ref)
        .or_else(|| s.get("enum").and_then(Json::as_array).map(Vec::as_slice))
        .unwrap_or_default();
    for v in values {
        let t = json_schema_type(v);
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The JSON Schema type name of a JSON value.
pub(crate) fn json_schema_type(v: &Json) -> &'static str {
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

/// The `required` names of a (resolved) object schema.
pub(crate) fn required(s: &Json) -> Vec<&str> {
    s.get("required")
        .and_then(Json::as_array)
        .map(|r| r.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default()
}

/// The `anyOf` or `oneOf` alternatives of a schema, if it has any.
pub(crate) fn alternatives(s: &Json) -> Option<&Vec<Json>> {
    s.get("anyOf")
        .or_else(|| s.get("oneOf"))
        .and_then(Json::as_array)
        .filter(|a| !a.is_empty())
}

/// The item schema of array item `index`: `prefixItems` (or array-form `items`) by position,
/// else `items`.
pub(crate) fn item_schema(s: &Json, index: usize) -> Option<&Json> {
    if let Some(prefix) = s.get("prefixItems").and_then(Json::as_array) {
        if let Some(item) = prefix.get(index) {
            return Some(item);
        }
        return s.get("items").filter(|i| !i.is_array());
    }
    match s.get("items") {
        Some(Json::Array(by_position)) => by_position.get(index),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let doc = Doc::new(&root);
        let a = json!({"$ref": "#/$defs/a"});
        assert_eq!(doc.resolve(&a).as_ref(), &json!({"type": "string"}));
        let l = json!({"$ref": "#/$defs/loop"});
        assert_eq!(doc.resolve(&l).get("$ref"), Some(&json!("#/$defs/loop")));
        let merged = doc.resolve(&root);
        assert_eq!(merged["properties"]["x"], json!({"type": "integer"}));
        assert_eq!(merged["properties"]["y"], json!({"type": "string"}));
        assert_eq!(required(&merged), ["x", "y"]);
        let missing = json!({"$ref": "#/nowhere"});
        assert_eq!(doc.resolve(&missing).as_ref(), &missing);
    }

    #[test]
    fn types_are_given_or_inferred() {
        assert_eq!(
            types(&json!({"type": ["string", "null"]})),
            ["string", "null"]
        );
        assert_eq!(types(&json!({"properties": {}})), ["object"]);
        assert_eq!(types(&json!({"items": {}})), ["array"]);
        assert_eq!(
            types(&json!({"enum": ["a", 1, "b", 2.5]})),
            ["string", "integer", "number"]
        );
        assert!(types(&json!({})).is_empty());
    }

    #[test]
    fn item_schemas_by_position() {
        let s = json!({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}});
        assert_eq!(item_schema(&s, 0), Some(&json!({"type": "string"})));
        assert_eq!(item_schema(&s, 1), Some(&json!({"type": "integer"})));
        let old = json!({"items": [{"type": "boolean"}]});
        assert_eq!(item_schema(&old, 0), Some(&json!({"type": "boolean"})));
        assert_eq!(item_schema(&old, 1), None);
    }
}
