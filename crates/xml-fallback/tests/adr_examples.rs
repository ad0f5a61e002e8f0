//! Every example of the original ampersand fallback ("Fallback XML Parsing with Ampersand
//! Escaping"; docs/FORMAT.md, "Where the format comes from"), read as docs/FORMAT.md §4 says.

use serde::Deserialize;
use std::borrow::Cow;
use xml_fallback::{
    Limits, RepairKind, escape_unescaped_ampersands, from_str_with_fallback, parse_document,
    parse_strict,
};

#[derive(Debug, Deserialize, PartialEq)]
struct Args {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    pattern: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    existing: Option<String>,
}

fn args(xml: &str) -> Args {
    from_str_with_fallback(xml).unwrap_or_else(|e| panic!("{xml}: {e}"))
}

// --- Context: the tool call that motivated the ADR ---------------------------------------

#[derive(Debug, Deserialize, PartialEq)]
struct Tool {
    server_name: String,
    tool_name: String,
    arguments: SearchArgs,
}

#[derive(Debug, Deserialize, PartialEq)]
struct SearchArgs {
    pattern: String,
    path: String,
}

#[test]
fn context_tool_call_with_unescaped_ampersands_in_a_pattern() {
    let xml = "<tool>\n<server_name>local</server_name>\n<tool_name>search_files</tool_name>\n\
               <arguments>\n  <pattern>func.*&&.*return</pattern>  <!-- Unescaped & -->\n  \
               <path>src</path>\n</arguments>\n</tool>";
    let err = parse_strict(xml, &Limits::default()).unwrap_err();
    assert_eq!(
        err.position.line, 5,
        "the strict parse fails on line 5: {err}"
    );

    let tool: Tool = from_str_with_fallback(xml).unwrap();
    assert_eq!(
        tool,
        Tool {
            server_name: "local".into(),
            tool_name: "search_files".into(),
            arguments: SearchArgs {
                pattern: "func.*&&.*return".into(),
                path: "src".into(),
            },
        }
    );
    // Two repairs, both on line 5; the `&` in the comment is literal and is left alone.
    let parsed = parse_document(xml).unwrap();
    let lines: Vec<(u32, u32)> = parsed
        .repairs
        .iter()
        .map(|r| (r.position.line, r.position.column))
        .collect();
    assert_eq!(lines, vec![(5, 18), (5, 19)]);
}

// --- Example Transformations --------------------------------------------------------------

#[test]
fn example_transformation_exactly() {
    let input = "<arguments>\n  <pattern>func.*&&.*return</pattern>\n  <path>src & tests</path>\n  \
                 <existing>&amp; already escaped</existing>\n</arguments>";
    let expected = "<arguments>\n  <pattern>func.*&amp;&amp;.*return</pattern>\n  \
                    <path>src &amp; tests</path>\n  <existing>&amp; already escaped</existing>\n\
                    </arguments>";
    assert_eq!(escape_unescaped_ampersands(input), expected);
    assert_eq!(
        args(input),
        Args {
            pattern: Some("func.*&&.*return".into()),
            path: Some("src & tests".into()),
            existing: Some("& already escaped".into()),
            text: None,
            url: None,
        }
    );
}

// --- The ADR's unit-test table -------------------------------------------------------------

#[test]
fn valid_xml_passes_through() {
    let xml = "<args><path>src</path></args>";
    let parsed = parse_document(xml).unwrap();
    assert!(parsed.repairs.is_empty());
    assert_eq!(parsed.value, parse_strict(xml, &Limits::default()).unwrap());
    assert!(matches!(escape_unescaped_ampersands(xml), Cow::Borrowed(_)));
    assert_eq!(args(xml).path.as_deref(), Some("src"));
}

#[test]
fn unescaped_ampersand_is_fixed() {
    let xml = "<args><pattern>a && b</pattern></args>";
    assert_eq!(args(xml).pattern.as_deref(), Some("a && b"));
    assert_eq!(parse_document(xml).unwrap().repairs.len(), 2);
}

#[test]
fn already_escaped_ampersand_preserved() {
    let xml = "<args><text>a &amp; b</text></args>";
    assert_eq!(args(xml).text.as_deref(), Some("a & b"));
    assert!(parse_document(xml).unwrap().repairs.is_empty());
    assert_eq!(escape_unescaped_ampersands(xml), xml);
}

#[test]
fn numeric_entities_preserved() {
    let xml = "<args><text>&#60; &#x3C;</text></args>";
    assert_eq!(escape_unescaped_ampersands(xml), xml);
    assert_eq!(args(xml).text.as_deref(), Some("< <"));
}

#[test]
fn multiple_unescaped_ampersands() {
    let xml = "<args><url>?a=1&b=2&c=3</url></args>";
    assert_eq!(
        escape_unescaped_ampersands(xml),
        "<args><url>?a=1&amp;b=2&amp;c=3</url></args>"
    );
    assert_eq!(args(xml).url.as_deref(), Some("?a=1&b=2&c=3"));
}

// --- Test coverage listed in the Implementation Summary ------------------------------------

#[test]
fn single_and_double_ampersands() {
    assert_eq!(escape_unescaped_ampersands("a & b"), "a &amp; b");
    assert_eq!(escape_unescaped_ampersands("a && b"), "a &amp;&amp; b");
    assert_eq!(
        args("<a><text>a & b</text></a>").text.as_deref(),
        Some("a & b")
    );
    assert_eq!(
        args("<a><text>a && b</text></a>").text.as_deref(),
        Some("a && b")
    );
}

#[test]
fn all_standard_entities_kept() {
    let s = "&amp; &lt; &gt; &quot; &apos;";
    assert!(matches!(escape_unescaped_ampersands(s), Cow::Borrowed(_)));
    let xml = format!("<a><text>{s}</text></a>");
    assert_eq!(args(&xml).text.as_deref(), Some("& < > \" '"));
    assert!(parse_document(&xml).unwrap().repairs.is_empty());
}

#[test]
fn mixed_escaped_and_bare() {
    let xml = "<a><text>Tom &amp; Jerry & friends &lt;3 && more</text></a>";
    assert_eq!(
        escape_unescaped_ampersands(xml),
        "<a><text>Tom &amp; Jerry &amp; friends &lt;3 &amp;&amp; more</text></a>"
    );
    assert_eq!(
        args(xml).text.as_deref(),
        Some("Tom & Jerry & friends <3 && more")
    );
    let parsed = parse_document(xml).unwrap();
    assert_eq!(parsed.repairs.len(), 3);
    assert!(
        parsed
            .repairs
            .iter()
            .all(|r| r.kind == RepairKind::BareAmpersand)
    );
}

#[test]
fn ampersand_at_start_and_end_of_a_value() {
    let xml = "<a><text>& start</text><path>end &</path><url>&</url></a>";
    let a = args(xml);
    assert_eq!(a.text.as_deref(), Some("& start"));
    assert_eq!(a.path.as_deref(), Some("end &"));
    assert_eq!(a.url.as_deref(), Some("&"));
}

#[derive(Debug, Deserialize, PartialEq)]
struct Outer {
    inner: Inner,
    note: String,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Inner {
    deep: Deep,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Deep {
    value: String,
}

#[test]
fn nested_structures() {
    let xml = "<outer><inner><deep><value>x & y &amp; z</value></deep></inner>\
               <note>R&D</note></outer>";
    let o: Outer = from_str_with_fallback(xml).unwrap();
    assert_eq!(o.inner.deep.value, "x & y & z");
    assert_eq!(o.note, "R&D");
}

#[test]
fn url_query_strings() {
    let xml = "<a><url>https://example.com/search?q=rust&lang=en&page=2#top</url></a>";
    assert_eq!(
        args(xml).url.as_deref(),
        Some("https://example.com/search?q=rust&lang=en&page=2#top")
    );
}

#[test]
fn regex_patterns_with_double_ampersands() {
    for pattern in [
        "func.*&&.*return",
        r"if \(a && b\) \{",
        "(?=.*&&)(?!&amp;)",
        "&&|\\|\\|",
    ] {
        let xml = format!("<a><pattern>{pattern}</pattern></a>");
        let expected = pattern.replace("&amp;", "&");
        assert_eq!(
            args(&xml).pattern.as_deref(),
            Some(expected.as_str()),
            "{xml}"
        );
    }
}

#[test]
fn code_with_logical_and() {
    let xml = "<a><text>if (x > 0 && y > 0) { z &= mask; }</text></a>";
    assert_eq!(
        args(xml).text.as_deref(),
        Some("if (x > 0 && y > 0) { z &= mask; }")
    );
}

#[test]
fn mixed_content_with_entities_in_attributes_too() {
    let parsed =
        parse_document("<a href=\"?a=1&b=2\" title=\"&quot;x&quot;\">&lt;ok&gt;</a>").unwrap();
    assert_eq!(parsed.value.attribute("href"), Some("?a=1&b=2"));
    assert_eq!(parsed.value.attribute("title"), Some("\"x\""));
    assert_eq!(parsed.value.text(), "<ok>");
    assert_eq!(parsed.repairs.len(), 1);
}

#[test]
fn no_ampersand_is_unchanged_and_borrowed() {
    let s = "<a>plain text, no references at all</a>";
    assert!(matches!(escape_unescaped_ampersands(s), Cow::Borrowed(b) if b == s));
}

#[test]
fn when_the_retry_fails_the_first_error_is_reported() {
    // Broken beyond ampersands: the reported error is the strict parse's, in the original text.
    let xml = "<a>\n  x && y\n  <b>\n</a>";
    let strict = parse_strict(xml, &Limits::default()).unwrap_err();
    let err = parse_document(xml).unwrap_err();
    assert_eq!(err, strict);
    assert_eq!(err.position.line, 2);
}
