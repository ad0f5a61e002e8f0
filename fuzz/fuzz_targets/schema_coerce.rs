//! An arbitrary schema and an arbitrary argument tree through schema coercion: no panic; a failure
//! always has at least one error; every error carries a path that names where it is (an
//! argument the tree holds, or a required one it lacks; empty only for the `<arguments>`
//! element itself); a success holds only the tree's arguments; the first-error and all-errors
//! forms agree; the schema read once (`PreparedSchema`) types the arguments' raw text, and looks
//! up their names, as the schema itself does.

#![no_main]

use arbitrary::Unstructured;
use arg_types::json_schema::{PreparedSchema, SchemaDoc, types};
use arg_types::raw::type_raw_arguments;
use arg_types::schema::{CoerceError, coerce_arguments, coerce_arguments_all, coerce_element};
use libfuzzer_sys::fuzz_target;
use serde_json::Value as Json;
use toolcall_fuzz::{element, same_map, schema};
use xml_fallback::tree::Element;

/// Whether `path` begins with `name` as its whole first segment.
fn path_starts_with(path: &str, name: &str) -> bool {
    // An element with an empty name (only a hand-built tree has one) roots no path.
    name.is_empty()
        || path
            .strip_prefix(name)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// Names that a `required` anywhere in the schema lists.
fn required_names(s: &Json, out: &mut Vec<String>) {
    match s {
        Json::Object(m) => {
            if let Some(Json::Array(r)) = m.get("required") {
                out.extend(r.iter().filter_map(Json::as_str).map(str::to_owned));
            }
            m.values().for_each(|v| required_names(v, out));
        }
        Json::Array(a) => a.iter().for_each(|v| required_names(v, out)),
        _ => {}
    }
}

fn check_error(e: &CoerceError, args: &Element, required: &[String]) {
    let _ = e.to_string();
    assert!(!e.expected.is_empty(), "an error without `expected`: {e:?}");
    assert!(!e.found.is_empty(), "an error without `found`: {e:?}");
    assert_ne!(
        e.found, "an unknown problem",
        "coercion failed without saying why"
    );
    if e.path.is_empty() {
        return;
    }
    let in_tree = args
        .child_elements()
        .any(|c| path_starts_with(&e.path, &c.name));
    let missing = e.found == "nothing" && required.iter().any(|r| path_starts_with(&e.path, r));
    assert!(
        in_tree || missing,
        "the error path {:?} names no argument: {e:?}",
        e.path
    );
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(s) = schema(&mut u, 4) else { return };
    let Ok(args) = element(&mut u, "arguments".into(), 4) else {
        return;
    };

    let first = coerce_arguments(&args, &s, None);
    let all = coerce_arguments_all(&args, &s, None);
    match (&first, &all) {
        (Ok(a), Ok(b)) => {
            assert!(same_map(a, b), "{a:?} vs {b:?}");
            for k in a.keys() {
                assert!(
                    args.child_elements().any(|c| &c.name == k),
                    "coercion invented the argument {k:?}"
                );
            }
        }
        (Err(e), Err(errors)) => {
            assert!(!errors.is_empty(), "failed with no error");
            assert_eq!(
                e, &errors[0],
                "the first error is not the first of all errors"
            );
            let mut required = Vec::new();
            required_names(&s, &mut required);
            for e in errors {
                check_error(e, &args, &required);
            }
        }
        _ => panic!("coerce_arguments and coerce_arguments_all disagree: {first:?} vs {all:?}"),
    }

    // One element through the schema: its name roots every path.
    if let Some(child) = args.child_elements().next()
        && let Err(e) = coerce_element(child, &s, None)
    {
        assert!(
            path_starts_with(&e.path, &child.name),
            "path {:?} is not rooted at <{}>",
            e.path,
            child.name
        );
    }

    // The schema read once answers as the schema: raw typing of each argument's text, coercion,
    // and each name's schema and types.
    let raw: Vec<(String, String)> = args
        .child_elements()
        .map(|c| (c.name.clone(), c.text()))
        .collect();
    let prepared = PreparedSchema::new(s.clone());
    assert_eq!(
        prepared.type_raw_arguments(raw.iter().map(|(n, t)| (n.as_str(), t.as_str()))),
        type_raw_arguments(raw.iter().map(|(n, t)| (n.as_str(), t.as_str())), Some(&s)),
        "prepared raw typing differs"
    );
    // Coercion through it is coercion through the schema.
    match (prepared.coerce_arguments_all(&args, None), &all) {
        (Ok(a), Ok(b)) => assert!(same_map(&a, b), "prepared coercion: {a:?} vs {b:?}"),
        (Err(a), Err(b)) => assert_eq!(&a, b, "prepared coercion's errors differ"),
        (a, b) => panic!("prepared coercion disagrees: {a:?} vs {b:?}"),
    }
    let doc = SchemaDoc::new(&s);
    for (name, _) in &raw {
        let expected = doc.property(&s, name);
        assert_eq!(prepared.has_property(name), expected.is_some());
        let got = prepared.types(name).map(|t| t.into_owned());
        let first = expected.as_deref().map(types);
        if doc.own_property(&s, name).is_some() || !prepared.has_alternatives() {
            assert_eq!(got, first);
        } else {
            // Declared by the root's branches: the types of all their declarations together,
            // none when one allows anything (docs/FORMAT.md §5.3).
            let (got, first) = (got.unwrap_or_default(), first.unwrap_or_default());
            assert!(got.is_empty() || first.iter().all(|t| got.contains(t)));
        }
        assert_eq!(prepared.property(name), expected);
    }
});
