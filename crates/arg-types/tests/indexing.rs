//! Indexing a [`Map`] or a [`Value`] by what is not there gives `Value::Null`, never a panic, as
//! `serde_json::Value` indexing does; what is there indexes as itself.

use arg_types::{Map, Value, tree::arguments_from_element};

fn arguments(xml: &str) -> Map {
    let doc = xml_fallback::parse_document(xml).expect("well-formed");
    arguments_from_element(&doc.value)
}

#[test]
fn a_missing_argument_is_null_and_a_present_one_is_itself() {
    let args = arguments("<arguments><path>a.txt</path><line>3</line><empty/></arguments>");
    assert_eq!(args["path"], Value::from("a.txt"));
    assert_eq!(args["line"], Value::Int(3));
    assert_eq!(args["missing"], Value::Null);
    assert_eq!(args[&"missing".to_string()], Value::Null);
    assert_eq!(args["missing"].as_str(), None);
    // A member that is there indexes as the very value `get` gives.
    assert!(std::ptr::eq(
        &args["line"],
        args.get("line").expect("present")
    ));
    // By position, in document order; past the end, Null too.
    assert_eq!(args[1], Value::Int(3));
    assert_eq!(args[3], Value::Null);
    // Indexing did not add the missing member.
    assert_eq!(args.len(), 3);
    assert!(!args.contains_key("missing"));
}

#[test]
fn values_index_like_serde_json_values() {
    let json = serde_json::json!({"user": {"tags": ["a", "b"]}, "n": 1});
    let v = Value::from(json.clone());
    // Every path, present or not, gives what serde_json's indexing gives.
    let paths: [(&str, Option<&str>, Option<usize>); 7] = [
        ("user", Some("tags"), Some(1)),
        ("user", Some("tags"), Some(2)),
        ("user", Some("name"), None),
        ("n", Some("x"), None),
        ("n", None, Some(0)),
        ("nobody", Some("tags"), Some(0)),
        ("user", None, Some(0)),
    ];
    for (first, second, index) in paths {
        let (mut ours, mut theirs) = (&v[first], &json[first]);
        if let Some(key) = second {
            (ours, theirs) = (&ours[key], &theirs[key]);
        }
        if let Some(i) = index {
            (ours, theirs) = (&ours[i], &theirs[i]);
        }
        assert_eq!(ours, &Value::from(theirs), "{first} {second:?} {index:?}");
    }
    assert_eq!(v["user"]["tags"][1], Value::from("b"));
    assert_eq!(v["user"]["tags"][9], Value::Null);
}

#[test]
fn the_newtype_keeps_the_maps_order_equality_and_json() {
    let args = arguments("<arguments><b>1</b><a>x</a></arguments>");
    let reordered: Map = args.clone().into_iter().rev().collect();
    assert_eq!(reordered, args, "order does not matter to equality");
    assert_eq!(reordered.keys().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(
        serde_json::to_string(&args).expect("json"),
        r#"{"b":1,"a":"x"}"#
    );
    let back: Map = serde_json::from_str(r#"{"b":1,"a":"x"}"#).expect("reads");
    assert_eq!(back, args);
    let mut extended = Map::new();
    extended.extend(args.clone());
    assert_eq!(extended, args);
    assert_eq!((&args).into_iter().count(), 2);
}
