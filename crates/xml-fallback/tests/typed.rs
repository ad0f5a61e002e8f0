//! Typed decoding (`from_str_with_fallback`, `from_element`), and where serde-xml-rs, the crate
//! the design card named, is right and where it is not.

use proptest::prelude::*;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use xml::reader::ParserConfig;
use xml_fallback::{Error, from_element, from_str_with_fallback, parse_document};

/// serde-xml-rs with the configuration that keeps whitespace and CDATA as written.
fn serde_xml_rs_configured<T: for<'de> Deserialize<'de>>(s: &str) -> Result<T, String> {
    let reader = ParserConfig::new()
        .trim_whitespace(false)
        .whitespace_to_characters(true)
        .cdata_to_characters(true)
        .create_reader(s.as_bytes());
    let mut de = serde_xml_rs::Deserializer::new(reader);
    T::deserialize(&mut de).map_err(|e| e.to_string())
}

fn decode<T: serde::de::DeserializeOwned>(s: &str) -> T {
    from_str_with_fallback(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

// --- The three cases where serde-xml-rs is wrong ------------------------------------------

#[derive(Debug, Deserialize, PartialEq)]
struct WriteFile {
    path: String,
    content: String,
}

#[test]
fn indented_code_in_cdata_is_kept_byte_for_byte() {
    let xml = "<arguments>\n  <path>a.py</path>\n  <content><![CDATA[    def f():\n        \
               return 1\n]]></content>\n</arguments>";
    let code = "    def f():\n        return 1\n";
    // serde-xml-rs with its defaults trims CDATA too: the first line loses its indentation.
    let theirs: WriteFile = serde_xml_rs::from_str(xml).unwrap();
    assert_eq!(theirs.content, "def f():\n        return 1");
    // Ours keeps it.
    let ours: WriteFile = decode(xml);
    assert_eq!(ours.content, code);
    assert_eq!(ours.path, "a.py");
    // Configured as FACTS.md says, serde-xml-rs agrees on CDATA.
    let configured: WriteFile = serde_xml_rs_configured(xml).unwrap();
    assert_eq!(configured.content, code);
}

#[test]
fn indented_code_in_text_keeps_its_first_line_indentation() {
    let xml = "<arguments>\n  <path>a.py</path>\n  <content>\n    if a &amp;&amp; b:\n        \
               pass\n  </content>\n</arguments>";
    let ours: WriteFile = decode(xml);
    assert_eq!(ours.content, "    if a && b:\n        pass");
    let theirs: WriteFile = serde_xml_rs::from_str(xml).unwrap();
    assert_eq!(
        theirs.content, "if a && b:\n        pass",
        "default serde-xml-rs trims"
    );
}

#[derive(Debug, Deserialize, PartialEq)]
struct Edit {
    search: String,
    replace: String,
}

#[derive(Debug, Deserialize, PartialEq)]
struct ApplyDiff {
    path: String,
    edits: Vec<Edit>,
}

const EDITS: &str = "<arguments><path>a.rs</path><edits>\
    <edit><search>x</search><replace>y</replace></edit>\
    <edit><search>007</search><replace> z </replace></edit></edits></arguments>";

#[test]
fn a_wrapper_element_decodes_into_a_vec() {
    let err = serde_xml_rs_configured::<ApplyDiff>(EDITS).unwrap_err();
    assert!(err.contains("missing field"), "{err}");
    let ours: ApplyDiff = decode(EDITS);
    assert_eq!(ours.path, "a.rs");
    assert_eq!(
        ours.edits,
        vec![
            Edit {
                search: "x".into(),
                replace: "y".into()
            },
            Edit {
                search: "007".into(),
                replace: "z".into()
            },
        ]
    );
}

#[derive(Debug, Deserialize, PartialEq)]
struct ListFiles {
    exclude: Vec<String>,
    path: String,
}

#[test]
fn repeated_tags_interleaved_with_another_tag_are_one_list() {
    let xml = "<args><exclude>target</exclude><path>.</path><exclude>node_modules</exclude></args>";
    let err = serde_xml_rs_configured::<ListFiles>(xml).unwrap_err();
    assert!(err.contains("duplicate field"), "{err}");
    let ours: ListFiles = decode(xml);
    assert_eq!(ours.exclude, ["target", "node_modules"]);
    assert_eq!(ours.path, ".");
}

// --- Where serde-xml-rs is right: simple flat structs agree ------------------------------

#[derive(Debug, Deserialize, PartialEq)]
struct Flat {
    name: String,
    count: u32,
    delta: i64,
    ratio: f64,
    enabled: bool,
}

fn flat_text() -> impl Strategy<Value = String> {
    // No leading or trailing whitespace and no line breaks: whitespace-sensitive content is
    // where the two differ by design (FORMAT.md §6).
    "[a-zA-Z0-9&<>\"'é;#]([a-zA-Z0-9 &<>\"'é;#]{0,10}[a-zA-Z0-9&<>\"'é;#])?"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn flat_structs_agree_with_serde_xml_rs(
        name in flat_text(),
        count in any::<u32>(),
        delta in any::<i64>(),
        ratio in -1e9f64..1e9,
        enabled in any::<bool>(),
        shuffle in any::<bool>(),
    ) {
        let esc = xml_fallback::escape::Escaper::ALL_FIVE;
        let mut fields = [
            format!("<name>{}</name>", esc.escape(&name)),
            format!("<count>{count}</count>"),
            format!("<delta>{delta}</delta>"),
            format!("<ratio>{ratio}</ratio>"),
            format!("<enabled>{enabled}</enabled>"),
        ];
        if shuffle {
            fields.reverse();
        }
        let xml = format!("<flat>{}</flat>", fields.concat());
        let theirs: Flat = serde_xml_rs_configured(&xml).unwrap();
        let ours: Flat = from_str_with_fallback(&xml).unwrap();
        prop_assert_eq!(&ours, &theirs);
        prop_assert_eq!(ours, Flat { name, count, delta, ratio, enabled });
    }

    #[test]
    fn with_bare_ampersands_ours_agrees_with_serde_xml_rs_on_the_escaped_text(
        name in "[a-z&;#]{1,12}",
    ) {
        let xml = format!(
            "<flat><name>{name}</name><count>1</count><delta>2</delta><ratio>3</ratio>\
             <enabled>true</enabled></flat>"
        );
        // They agree on errors too: a reference to a character XML forbids (`&#xb;`, which
        // the letters here can spell) is an error in both.
        let ours: Result<Flat, _> = from_str_with_fallback(&xml);
        let theirs: Result<Flat, _> =
            serde_xml_rs_configured(&xml_fallback::escape_unescaped_ampersands(&xml));
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => prop_assert_eq!(ours, theirs),
            (Err(_), Err(_)) => {}
            (ours, theirs) => prop_assert!(false, "ours {:?}, theirs {:?}", ours, theirs),
        }
    }
}

/// The case the property above once met: a reference, spelt in letters, to a character XML
/// forbids is an error in both readers, not a panic of the test.
#[test]
fn a_forbidden_character_reference_is_an_error_in_both() {
    let xml = "<flat><name>a&#xb;</name><count>1</count><delta>2</delta><ratio>3</ratio>\
               <enabled>true</enabled></flat>";
    assert!(from_str_with_fallback::<Flat>(xml).is_err());
    assert!(serde_xml_rs_configured::<Flat>(xml).is_err());
}

// --- The rules of typed decoding -----------------------------------------------------------

#[test]
fn strings_are_the_value_text_exactly() {
    #[derive(Deserialize)]
    struct S {
        id: String,
        padded: String,
        cdata: String,
    }
    let s: S = decode(
        "<s><id>007</id><padded>  a b  </padded><cdata>\n  <![CDATA[  x\n ]]>\n</cdata></s>",
    );
    assert_eq!(s.id, "007");
    assert_eq!(s.padded, "a b");
    assert_eq!(s.cdata, "  x\n ");
}

#[test]
fn numbers_and_booleans_are_parsed_from_trimmed_text() {
    #[derive(Deserialize, PartialEq, Debug)]
    struct N {
        a: u8,
        b: i128,
        c: f32,
        d: bool,
        e: bool,
        f: char,
    }
    let n: N = decode("<n><a> 255 </a><b>\n -17\n</b><c>2.5</c><d>1</d><e>false</e><f>é</f></n>");
    assert_eq!(
        n,
        N {
            a: 255,
            b: -17,
            c: 2.5,
            d: true,
            e: false,
            f: 'é'
        }
    );
}

#[test]
fn a_mismatch_names_the_path() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct E {
        search: u32,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct A {
        edits: Vec<E>,
    }
    let err = from_str_with_fallback::<A>(
        "<a><edits><edit><search>1</search></edit><edit><search>x1</search></edit></edits></a>",
    )
    .unwrap_err();
    let Error::Decode(de) = &err else {
        panic!("{err}")
    };
    assert_eq!(de.path(), "edits[1].search");
    assert_eq!(err.to_string(), "edits[1].search: expected u32, found `x1`");

    let err = from_str_with_fallback::<A>("<a><edits><edit></edit><edit/></edits></a>")
        .unwrap_err()
        .to_string();
    assert_eq!(err, "edits[0]: missing field `search`");

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct B {
        flag: bool,
    }
    let err = from_str_with_fallback::<B>("<b><flag>yes</flag></b>").unwrap_err();
    assert_eq!(
        err.to_string(),
        "flag: expected a boolean (true, false, 1, 0), found `yes`"
    );
}

#[test]
fn several_elements_for_a_single_value_are_an_error() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct P {
        path: String,
    }
    let err = from_str_with_fallback::<P>("<a><path>x</path><path>y</path></a>").unwrap_err();
    assert_eq!(
        err.to_string(),
        "path: expected one `path` element, found 2"
    );
}

#[test]
fn options_are_none_when_missing_and_some_when_present() {
    #[derive(Deserialize, PartialEq, Debug)]
    struct O {
        a: Option<u32>,
        b: Option<String>,
        c: Option<Vec<String>>,
    }
    assert_eq!(
        decode::<O>("<o/>"),
        O {
            a: None,
            b: None,
            c: None
        }
    );
    assert_eq!(
        decode::<O>("<o><b></b><a>3</a><c>x</c></o>"),
        O {
            a: Some(3),
            b: Some(String::new()),
            c: Some(vec!["x".into()])
        }
    );
}

#[test]
fn vec_rules_single_item_wrapper_and_empty() {
    #[derive(Deserialize, PartialEq, Debug)]
    struct V {
        tags: Vec<String>,
        #[serde(default)]
        more: Vec<u32>,
    }
    assert_eq!(decode::<V>("<v><tags>a</tags></v>").tags, ["a"]);
    assert_eq!(
        decode::<V>("<v><tags><tag>a</tag><tag>b</tag></tags></v>").tags,
        ["a", "b"]
    );
    assert_eq!(decode::<V>("<v><tags/></v>").tags, Vec::<String>::new());
    assert_eq!(decode::<V>("<v><tags></tags></v>").more, Vec::<u32>::new());
    assert_eq!(
        decode::<V>("<v><more>1</more><tags>t</tags><more>2</more></v>").more,
        [1, 2]
    );
    // A tuple takes exactly its items.
    let t: (u8, String) = decode("<t><i>1</i><i>x</i></t>");
    assert_eq!(t, (1, "x".into()));
    let err = from_str_with_fallback::<(u8,)>("<t><i>1</i><i>2</i></t>").unwrap_err();
    assert!(
        err.to_string().contains("expected 1 items, found 2"),
        "{err}"
    );
}

#[test]
fn attributes_supply_fields_when_no_child_does() {
    #[derive(Deserialize, PartialEq, Debug)]
    struct A {
        id: u32,
        name: String,
        #[serde(rename = "@name")]
        name_attribute: String,
        #[serde(rename = "$text")]
        text: String,
    }
    let a: A = decode("<a id=\"7\" name=\"attr\"> body <name>child</name></a>");
    assert_eq!(
        a,
        A {
            id: 7,
            name: "child".into(),
            name_attribute: "attr".into(),
            text: "body".into()
        }
    );
}

#[test]
fn maps_are_child_elements_by_name() {
    let m: BTreeMap<String, String> = decode("<m><b>2</b><a>1</a></m>");
    assert_eq!(
        m.into_iter().collect::<Vec<_>>(),
        [("a".into(), "1".into()), ("b".into(), "2".into())]
    );
    let m: HashMap<String, Vec<u32>> = decode("<m><x>1</x><y>5</y><x>2</x></m>");
    assert_eq!(m["x"], [1, 2]);
    assert_eq!(m["y"], [5]);
}

#[test]
fn enums_from_text_or_from_one_child_element() {
    #[derive(Deserialize, PartialEq, Debug)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
        Careful,
        Limit(u32),
        Move { x: i32, y: i32 },
    }
    #[derive(Deserialize, PartialEq, Debug)]
    struct C {
        mode: Vec<Mode>,
    }
    let c: C = decode(
        "<c><mode> fast </mode><mode>careful</mode><mode><limit>3</limit></mode>\
         <mode><move><x>1</x><y>-1</y></move></mode></c>",
    );
    assert_eq!(
        c.mode,
        [
            Mode::Fast,
            Mode::Careful,
            Mode::Limit(3),
            Mode::Move { x: 1, y: -1 }
        ]
    );
    let err = from_str_with_fallback::<C>("<c><mode>slow</mode></c>").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("mode[0]: unknown variant `slow`"),
        "{err}"
    );
}

#[test]
fn deserialize_any_gives_maps_strings_and_sequences() {
    let v: serde_json::Value =
        decode("<a k=\"v\"><b>1</b><c><d>x</d></c><b>2</b><e>  text  </e></a>");
    assert_eq!(
        v,
        serde_json::json!({ "b": ["1", "2"], "c": { "d": "x" }, "e": "text", "k": "v" })
    );
    #[derive(Deserialize, PartialEq, Debug)]
    #[serde(untagged)]
    enum Content {
        Text(String),
        Lines { line: Vec<String> },
    }
    assert_eq!(
        decode::<Content>("<c>hello</c>"),
        Content::Text("hello".into())
    );
    assert_eq!(
        decode::<Content>("<c><line>a</line><line>b</line></c>"),
        Content::Lines {
            line: vec!["a".into(), "b".into()]
        }
    );
}

#[test]
fn unknown_fields_are_ignored_or_refused_as_the_type_says() {
    #[derive(Deserialize, PartialEq, Debug)]
    struct Loose {
        a: u8,
    }
    #[derive(Deserialize, PartialEq, Debug)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        a: u8,
    }
    assert_eq!(decode::<Loose>("<s><a>1</a><z/></s>"), Loose { a: 1 });
    let err = from_str_with_fallback::<Strict>("<s><a>1</a><z/></s>").unwrap_err();
    assert!(err.to_string().starts_with("unknown field `z`"), "{err}");
}

#[test]
fn from_element_decodes_a_subtree() {
    let doc = parse_document(EDITS).unwrap().value;
    let edits: Vec<Edit> = from_element(doc.child("edits").unwrap()).unwrap();
    assert_eq!(edits.len(), 2);
    assert_eq!(edits[1].search, "007");
}

#[test]
fn xml_errors_come_through_as_xml_errors() {
    let err = from_str_with_fallback::<Flat>("<flat><name>x</flat>").unwrap_err();
    assert!(matches!(err, Error::Xml(_)), "{err}");
    assert!(err.to_string().starts_with("line 1, column "), "{err}");
}

/// The one rule of an empty element (`xml_fallback::text::is_empty_element`, docs/FORMAT.md §2)
/// where typed decoding reads "nothing": an empty list, `()`, a unit variant. Attributes and
/// CDATA are content.
#[test]
fn empty_elements_follow_the_one_rule() {
    #[derive(Deserialize, PartialEq, Debug)]
    struct File {
        #[serde(rename = "@path")]
        path: String,
    }
    #[derive(Deserialize, PartialEq, Debug)]
    struct Files {
        file: Vec<File>,
    }
    #[derive(Deserialize, PartialEq, Debug)]
    struct Tags {
        tags: Vec<String>,
    }
    // Blank: the empty list. An attribute: one item, read from it.
    assert_eq!(
        decode::<Tags>("<v><tags>\n  </tags></v>").tags,
        Vec::<String>::new()
    );
    assert_eq!(
        decode::<Files>("<v><file path=\"a.rs\"/></v>").file,
        [File {
            path: "a.rs".into()
        }]
    );
    // CDATA, even empty, is a string written on purpose: one item.
    assert_eq!(
        decode::<Tags>("<v><tags><![CDATA[]]></tags></v>").tags,
        [""]
    );

    #[derive(Deserialize, PartialEq, Debug)]
    struct Unit {
        done: (),
    }
    assert_eq!(decode::<Unit>("<v><done/></v>").done, ());
    for content in [
        "<done k=\"1\"/>",
        "<done><![CDATA[]]></done>",
        "<done>x</done>",
    ] {
        let err = from_str_with_fallback::<Unit>(&format!("<v>{content}</v>")).unwrap_err();
        assert!(
            err.to_string().contains("expected an empty element"),
            "{content}: {err}"
        );
    }

    #[derive(Deserialize, PartialEq, Debug)]
    enum Mode {
        Fast,
    }
    #[derive(Deserialize, PartialEq, Debug)]
    struct M {
        mode: Mode,
    }
    assert_eq!(decode::<M>("<v><mode><Fast/></mode></v>").mode, Mode::Fast);
    let err = from_str_with_fallback::<M>("<v><mode><Fast level=\"2\"/></mode></v>").unwrap_err();
    assert!(err.to_string().contains("has content"), "{err}");
}
