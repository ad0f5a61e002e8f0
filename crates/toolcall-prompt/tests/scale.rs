//! Describing a tool is linear in the size of its schema. A `required` list of 50,000 names
//! took 31 s and an `allOf` of 8,000 members 2.9 s when each name was looked up by a linear
//! search; these sizes would take minutes in a test build if quadratic. No time is asserted: a
//! quadratic regression shows as a test that does not end.

use serde_json::{Map, Value as Json, json};
use toolcall_prompt::{ToolDef, describe_tool, example_arguments};

fn names(n: usize) -> impl DoubleEndedIterator<Item = String> {
    (0..n).map(|i| format!("p{i}"))
}

#[test]
fn fifty_thousand_required_properties() {
    let n = 50_000;
    let properties: Map<String, Json> = names(n).map(|p| (p, json!({"type": "string"}))).collect();
    // Listed in reverse: each lookup of the old linear search went far.
    let required: Vec<Json> = names(n).rev().map(Json::String).collect();
    let schema = json!({"type": "object", "properties": properties, "required": required});
    let text = describe_tool(&ToolDef::new("t", "Many parameters.", schema.clone()));
    assert_eq!(text.matches(" (string, required)\n").count(), n);
    assert!(text.contains("\n- p0 (string, required)\n- p1 (string, required)\n"));
    assert!(
        text.contains("\n  <p49999>example</p49999>\n"),
        "the example has every argument"
    );
    let args = example_arguments(&schema);
    assert_eq!(args.len(), n);
    assert_eq!(args.keys().next().map(String::as_str), Some("p0"));
}

#[test]
fn twenty_thousand_all_of_members() {
    let n = 20_000;
    let members: Vec<Json> = names(n)
        .map(|p| json!({"properties": {&p: {"type": "integer"}}, "required": [p]}))
        .collect();
    let schema = json!({"type": "object", "allOf": members});
    let text = describe_tool(&ToolDef::new("t", "Merged parameters.", schema.clone()));
    assert_eq!(text.matches(" (integer, required)\n").count(), n);
    assert!(
        text.contains("\n  <p19999>1</p19999>\n"),
        "the example has every argument"
    );
    assert_eq!(example_arguments(&schema).len(), n);
}
