//! Structured arguments (`arbitrary`) written by `ToolCall::to_xml` and parsed back:
//! - with a schema describing the value, every value reads back equal (docs/FORMAT.md §5.5,
//!   except the documented `item` ambiguity);
//! - without one, every blind-safe value reads back equal;
//! - the writer needs no repair, and fails exactly when a name is not an XML name or is
//!   `tool` (which would begin a new call).

#![no_main]

use arbitrary::Unstructured;
use arg_types::write::is_element_name;
use arg_types::{Map, Value};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;
use toolcall_fuzz::{
    MAX_DEPTH, blind_safe, has_ambiguous_item, holds_forbidden, map, object_schema, same_map,
};
use toolcall_parser::{ParseOptions, ToolCall, ToolSchemas, parse_with};

fn names_ok(m: &Map) -> bool {
    m.iter()
        .all(|(k, v)| is_element_name(k) && k != "tool" && value_names_ok(v))
}

fn value_names_ok(v: &Value) -> bool {
    match v {
        Value::Object(m) => names_ok(m),
        Value::Array(items) => items.iter().all(value_names_ok),
        _ => true,
    }
}

fn read_back(xml: &str, opts: &ParseOptions) -> ToolCall {
    let r = parse_with(xml, opts);
    assert!(r.errors().is_empty(), "{:?}\n{xml}", r.errors());
    let calls = r.into_calls();
    assert_eq!(calls.len(), 1, "{xml}");
    calls.into_iter().next().expect("one call")
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(arguments) = map(&mut u, MAX_DEPTH) else {
        return;
    };
    // Valid names only (docs/FORMAT.md §3.4): any other is a parse error by rule, tested in
    // toolcall-parser's tests/parse.rs and hunted by differential_xml_rs.
    let Ok(&tool_name) = u.choose(&["t", "write_to_file", "a.b-c", "_9", "X"]) else {
        return;
    };
    let call = ToolCall::new("local", tool_name, arguments);
    let xml = match call.to_xml() {
        Ok(xml) => {
            assert!(names_ok(&call.arguments), "to_xml wrote a bad name:\n{xml}");
            xml
        }
        Err(e) => {
            assert!(!names_ok(&call.arguments), "to_xml refused good names: {e}");
            return;
        }
    };
    if call.arguments.values().any(holds_forbidden) {
        return;
    }

    // Through a schema: every value but the documented `item` ambiguity (which may not even
    // read, as the wrapper is taken for the object).
    if !call.arguments.values().any(has_ambiguous_item) {
        let mut schemas = ToolSchemas::default();
        schemas.insert(tool_name, object_schema(&call.arguments));
        let with_schema = ParseOptions::default().with_schemas(Arc::new(schemas));
        let typed = read_back(&xml, &with_schema);
        assert_eq!(typed.tool_name, call.tool_name);
        assert_eq!(typed.server_name, call.server_name);
        assert!(typed.repairs.is_empty(), "{:?}\n{xml}", typed.repairs);
        assert!(
            same_map(&typed.arguments, &call.arguments),
            "through the schema\n{xml}\nwrote {:?}\nread  {:?}",
            call.arguments,
            typed.arguments
        );
    }

    if call.arguments.values().all(blind_safe) {
        let blind = read_back(&xml, &ParseOptions::default());
        assert!(blind.repairs.is_empty(), "{:?}\n{xml}", blind.repairs);
        assert!(
            same_map(&blind.arguments, &call.arguments),
            "blind\n{xml}\nwrote {:?}\nread  {:?}",
            call.arguments,
            blind.arguments
        );
    }
});
