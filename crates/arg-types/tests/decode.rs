//! Typed decoding from the raw tree: driven by the target type, never by inference.

use arg_types::{DecodeError, decode, from_value, tree::arguments_from_element};
use serde::Deserialize;

#[derive(Deserialize, Debug, PartialEq)]
struct Edit {
    search: String,
    replace: String,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Args {
    code: String,
    count: u32,
    version: String,
    flag: String,
    edits: Vec<Edit>,
    limit: Option<i64>,
}

const XML: &str = "<arguments>
  <code>007</code>
  <count>007</count>
  <version>1.10</version>
  <flag>true</flag>
  <edits>
    <edit><search>null</search><replace>  42  </replace></edit>
    <edit><search><![CDATA[a && b]]></search><replace>x</replace></edit>
  </edits>
</arguments>";

fn parsed() -> xml_fallback::Element {
    xml_fallback::parse_document(XML).unwrap().value
}

#[test]
fn string_fields_receive_the_exact_text() {
    let args: Args = decode(&parsed()).unwrap();
    assert_eq!(args.code, "007");
    assert_eq!(args.count, 7);
    assert_eq!(args.version, "1.10");
    assert_eq!(args.flag, "true");
    assert_eq!(args.limit, None);
}

#[test]
fn a_wrapper_unwraps_into_a_vec() {
    let args: Args = decode(&parsed()).unwrap();
    assert_eq!(
        args.edits,
        [
            Edit {
                search: "null".into(),
                replace: "42".into()
            },
            Edit {
                search: "a && b".into(),
                replace: "x".into()
            },
        ]
    );
}

#[test]
fn blind_values_lose_what_typed_decoding_keeps() {
    // The same document read blind: `007` became 7, so a String field cannot get it back.
    let blind = arguments_from_element(&parsed());
    assert_eq!(blind["code"], arg_types::Value::Int(7));
    assert!(from_value::<Args>(arg_types::Value::Object(blind)).is_err());
}

#[test]
fn errors_carry_the_path() {
    #[derive(Deserialize, Debug)]
    struct Line {
        #[allow(dead_code)]
        line: u32,
    }
    #[derive(Deserialize, Debug)]
    struct Lines {
        #[allow(dead_code)]
        edits: Vec<Line>,
    }
    let doc = xml_fallback::parse_document(
        "<a><edits><edit><line>1</line></edit><edit><line>x</line></edit></edits></a>",
    )
    .unwrap();
    let err: DecodeError = decode::<Lines>(&doc.value).unwrap_err();
    assert_eq!(err.path, "edits[1].line");
    assert_eq!(err.to_string(), format!("edits[1].line: {}", err.message));
}
