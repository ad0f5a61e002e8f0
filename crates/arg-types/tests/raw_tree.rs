//! Nested arguments with raw-text leaves (MiniMax-M3, docs/FORMAT.md §9.9):
//! `arg_types::raw::type_raw_tree`, each rule pinned.

use arg_types::raw::{TypedArguments, type_raw_tree};
use arg_types::{Map, Value};
use serde_json::{Value as Json, json};
use xml_fallback::tree::{Element, Node};

/// An element from nodes.
fn el(name: &str, children: Vec<Node>) -> Node {
    let mut e = Element::new(name);
    e.children = children;
    Node::Element(e)
}

/// A leaf holding raw text.
fn leaf(name: &str, text: &str) -> Node {
    Node::Element(Element::with_text(name, text))
}

fn t(text: &str) -> Node {
    Node::Text(text.into())
}

fn args(children: Vec<Node>) -> Element {
    let mut e = Element::new("invoke");
    e.children = children;
    e
}

fn object(properties: Json) -> Json {
    json!({"type": "object", "properties": properties})
}

fn json_of(m: &Map) -> Json {
    Json::from(Value::Object(m.clone()))
}

/// Types `a` by `schema`, asserting that nothing mismatched.
fn fits(a: &Element, schema: &Json) -> Json {
    let out = type_raw_tree(a, Some(schema), None);
    assert!(out.mismatches.is_empty(), "{:?}", out.mismatches);
    json_of(&out.arguments)
}

fn typed(a: &Element, schema: &Json) -> TypedArguments {
    type_raw_tree(a, Some(schema), None)
}

#[test]
fn without_a_schema_leaves_are_their_text_and_elements_objects() {
    let a = args(vec![
        leaf("city", " Paris\n"),
        leaf("n", "007"),
        leaf("empty", ""),
        el(
            "edit",
            vec![t("\n"), leaf("line", "3"), t("\n"), leaf("text", "x ")],
        ),
        leaf("tag", "a"),
        leaf("tag", "b"),
        el("items", vec![leaf("item", "1"), leaf("item", "2")]),
    ]);
    let out = type_raw_tree(&a, None, None);
    assert!(out.mismatches.is_empty());
    assert_eq!(
        json_of(&out.arguments),
        json!({
            "city": " Paris\n",
            "n": "007",
            "empty": "",
            "edit": {"line": "3", "text": "x "},
            "tag": ["a", "b"],
            "items": {"item": ["1", "2"]}
        })
    );
    // A schema that says nothing about a name reads it the same way.
    let typed = fits(&a, &object(json!({"n": {"type": "integer"}})));
    assert_eq!(typed["city"], " Paris\n");
    assert_eq!(typed["n"], 7);
    assert_eq!(typed["edit"], json!({"line": "3", "text": "x "}));
}

#[test]
fn text_beside_children_is_kept_under_dollar_text() {
    let a = args(vec![
        el("msg", vec![t("Hello "), leaf("b", "you"), t(" & me\n")]),
        el("m2", vec![t("x"), leaf("$text", "child")]),
        el("layout", vec![t("\n  "), leaf("k", "v"), t("\n")]),
    ]);
    let out = type_raw_tree(&a, None, None);
    assert_eq!(
        json_of(&out.arguments),
        json!({
            "msg": {"b": "you", "$text": "Hello  & me\n"},
            "m2": {"$text": "child", "$$text": "x"},
            "layout": {"k": "v"}
        })
    );
    // Under an object schema too: the children typed, the text a string.
    let schema = object(json!({"msg": object(json!({"b": {"type": "string"}}))}));
    assert_eq!(
        fits(&a, &schema)["msg"],
        json!({"b": "you", "$text": "Hello  & me\n"})
    );
}

#[test]
fn leaves_are_typed_as_raw_text_is() {
    let schema = object(json!({
        "s": {"type": "string"},
        "i": {"type": "integer"},
        "f": {"type": "number"},
        "b": {"type": "boolean"},
        "o": {"type": "object"},
        "a": {"type": "array"},
        "n": {"type": ["integer", "null"]},
        "sn": {"type": "string"},
        "e": {"enum": ["x", 2]}
    }));
    let a = args(vec![
        leaf("s", "\n  a <b> & c\n"),
        leaf("i", " 7 "),
        leaf("f", "5.0"),
        leaf("b", "True"),
        leaf("o", "{\"nested\": true}"),
        leaf("a", "[1, 2]"),
        leaf("n", "null"),
        leaf("sn", "null"),
        leaf("e", "2"),
    ]);
    let out = fits(&a, &schema);
    assert_eq!(
        out,
        json!({
            "s": "\n  a <b> & c\n", "i": 7, "f": 5.0, "b": true, "o": {"nested": true},
            "a": [1, 2], "n": null, "sn": "null", "e": 2
        })
    );
}

#[test]
fn arrays_and_objects_follow_the_schema() {
    let schema = object(json!({
        "tags": {"type": "array", "items": {"type": "integer"}},
        "one": {"type": "array", "items": {"type": "string"}},
        "rep": {"type": "array", "items": {"type": "string"}},
        "edits": {"type": "array", "items": object(json!({"line": {"type": "integer"}}))},
        "point": object(json!({"x": {"type": "number"}, "y": {"type": "number"}}))
    }));
    let a = args(vec![
        el(
            "tags",
            vec![t("\n"), leaf("item", "1"), t("\n"), leaf("item", "2")],
        ),
        el("one", vec![leaf("item", " a ")]),
        leaf("rep", "x"),
        leaf("rep", "y"),
        el(
            "edits",
            vec![
                el("item", vec![leaf("line", "3")]),
                el("item", vec![leaf("line", "4")]),
            ],
        ),
        el("point", vec![leaf("x", "1.5"), leaf("y", "-2")]),
    ]);
    assert_eq!(
        fits(&a, &schema),
        json!({
            "tags": [1, 2], "one": [" a "], "rep": ["x", "y"],
            "edits": [{"line": 3}, {"line": 4}], "point": {"x": 1.5, "y": -2}
        })
    );
}

#[test]
fn empty_elements_are_empty_arrays_and_objects_where_no_string_is_allowed() {
    let schema = object(json!({
        "a": {"type": "array"},
        "o": {"type": "object"},
        "s": {"type": "string"},
        "as": {"type": ["array", "string"]},
        "n": {"type": "null"},
        "blank": {"type": "array"}
    }));
    let a = args(vec![
        leaf("a", ""),
        leaf("o", ""),
        leaf("s", ""),
        leaf("as", ""),
        leaf("n", ""),
        leaf("blank", "\n  "),
    ]);
    assert_eq!(
        fits(&a, &schema),
        json!({"a": [], "o": {}, "s": "", "as": "", "n": null, "blank": []})
    );
    // An integer cannot be empty: the text is kept, reported.
    let out = typed(
        &args(vec![leaf("i", "")]),
        &object(json!({"i": {"type": "integer"}})),
    );
    assert_eq!(json_of(&out.arguments), json!({"i": ""}));
    assert_eq!(out.mismatches.len(), 1);
}

#[test]
fn what_fits_nothing_is_kept_and_reported_by_path() {
    let schema = json!({
        "type": "object",
        "properties": {
            "days": {"type": "integer"},
            "edits": {"type": "array", "items": object(json!({"line": {"type": "integer"}}))},
            "count": {"type": "integer"}
        },
        "additionalProperties": false
    });
    let a = args(vec![
        leaf("days", "a few"),
        el(
            "edits",
            vec![
                el("item", vec![leaf("line", "x")]),
                el("item", vec![leaf("line", "4")]),
            ],
        ),
        el("count", vec![leaf("a", "1")]),
        leaf("extra", "e"),
    ]);
    let out = typed(&a, &schema);
    assert_eq!(
        json_of(&out.arguments),
        json!({
            "days": "a few",
            "edits": [{"line": "x"}, {"line": 4}],
            "count": {"a": "1"},
            "extra": "e"
        })
    );
    let named: Vec<&str> = out.mismatches.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(named, ["days", "edits", "count", "extra"]);
    assert!(
        out.mismatches[1].reason.contains("edits[0].line"),
        "{}",
        out.mismatches[1].reason
    );
}

#[test]
fn alternatives_take_the_branch_whose_leaves_fit() {
    let schema = object(json!({"p": {"anyOf": [
        object(json!({"v": {"type": "integer"}})),
        object(json!({"v": {"type": "boolean"}}))
    ]}}));
    let a = args(vec![el("p", vec![leaf("v", "True")])]);
    assert_eq!(fits(&a, &schema), json!({"p": {"v": true}}));
}

#[test]
fn a_string_schema_over_children_is_the_inner_markup() {
    let source = "<invoke><s><b>x</b></s></invoke>";
    let mut b = Element::with_text("b", "x");
    b.content_span = Some(14..15);
    let mut s = Element::new("s");
    s.children.push(Node::Element(b));
    s.content_span = Some(11..19);
    let a = args(vec![Node::Element(s)]);
    let out = type_raw_tree(
        &a,
        Some(&object(json!({"s": {"type": "string"}}))),
        Some(source),
    );
    assert!(out.mismatches.is_empty());
    assert_eq!(out.arguments["s"], Value::String("<b>x</b>".into()));
}
