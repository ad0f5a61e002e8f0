//! Differential: for a document that xml-rs accepts as well-formed, whose root is `<tool>`, and
//! that is a valid call in the format, our parser reads the same call as xml-rs's tree gives,
//! with no repair.
//!
//! "Valid in the format" (docs/FORMAT.md, `crates/toolcall-parser/tests/parse.rs`) filters out
//! what the format defines differently from XML, so the check itself is never weakened:
//! non-blank text or CDATA directly inside `<tool>` or `<arguments>` (an error), elements other
//! than one each of `<server_name>`, `<tool_name>` (required, non-empty, text only) and
//! `<arguments>` directly inside `<tool>` (an error), a `<tool>` element inside the call (it
//! starts a new call), processing instructions (an error), nesting beyond the depth limit, and
//! anything before the root (prose, where a `<tool>` in a comment would be a call), and comments
//! the format reads as text (holding `<tool>` or `</tool>`, or longer than 16 KiB).
//!
//! Byte 0 chooses the input: odd, the rest is the document as it is; even, the rest drives a
//! generator of documents with every construct a model writes (references, CDATA, comments,
//! attributes, self-closing and mixed content, CR LF, namespaces).

#![no_main]

use arbitrary::{Result, Unstructured};
use arg_types::Value;
use libfuzzer_sys::fuzz_target;
use toolcall_parser::{ErrorKind, Segment, is_valid_name, parse};
use xml::reader::{EventReader, XmlEvent};
use xml_fallback::text::{element_value, is_blank, trim_xml};
use xml_fallback::tree::{Element, Node};

const NAMES: &[&str] = &[
    "a",
    "b",
    "item",
    "path",
    "content",
    "a.b",
    "x-1",
    "données",
    "_",
    "tool_name",
    "arguments",
    "server_name",
    "toolbox",
];

const TEXT: &[&str] = &[
    "a",
    "Z",
    "7",
    "42",
    "-1.5",
    "true",
    "null",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "&amp;",
    "&lt;",
    "&gt;",
    "&quot;",
    "&apos;",
    "&#60;",
    "&#x3C;",
    "&#x1F980;",
    "&#13;",
    "&#9;",
    ">",
    "]]",
    "]",
    "é",
    "🦀",
    "{",
    "\"",
    "'",
    "=",
    "/",
];

fn ws(u: &mut Unstructured<'_>, out: &mut String) -> Result<()> {
    out.push_str(u.choose(&["", "", " ", "\n", "\r\n", "\n  ", "\t"])?);
    Ok(())
}

fn comment(u: &mut Unstructured<'_>, out: &mut String) -> Result<()> {
    out.push_str(u.choose(&["<!---->", "<!-- c -->", "<!-- <a> & ]]> -->", "<!--\n-->"])?);
    Ok(())
}

fn text(u: &mut Unstructured<'_>, out: &mut String) -> Result<()> {
    for _ in 0..u.int_in_range(0..=5)? {
        out.push_str(u.choose(TEXT)?);
    }
    Ok(())
}

fn cdata(u: &mut Unstructured<'_>, out: &mut String) -> Result<()> {
    out.push_str("<![CDATA[");
    for _ in 0..u.int_in_range(0..=5)? {
        out.push_str(u.choose(&[
            "a", " ", "\n", "\r\n", "&", "&amp;", "<", "<b>", "</a>", "]]", "]", ">", "<tool>",
            "</tool>", "<!--", "🦀",
        ])?);
    }
    out.push_str("]]>");
    Ok(())
}

fn start_tag(u: &mut Unstructured<'_>, name: &str, out: &mut String) -> Result<()> {
    out.push('<');
    out.push_str(name);
    if u.ratio(1, 6)? {
        out.push_str(u.choose(&[
            " x=\"1\"",
            " x='a &amp; b'",
            " x=\">\"",
            "\n  y=\"&#60;\"",
            " xmlns:p=\"urn:p\"",
        ])?);
    }
    if u.ratio(1, 8)? {
        out.push(' ');
    }
    out.push('>');
    Ok(())
}

fn end_tag(u: &mut Unstructured<'_>, name: &str, out: &mut String) -> Result<()> {
    out.push_str("</");
    out.push_str(name);
    if u.ratio(1, 10)? {
        out.push(' ');
    }
    out.push('>');
    Ok(())
}

/// One element with a value: text, CDATA, children, or mixed content.
fn value_element(u: &mut Unstructured<'_>, depth: u32, out: &mut String) -> Result<()> {
    let name = if u.ratio(1, 20)? {
        "p:a"
    } else {
        u.choose(NAMES)?
    };
    if u.ratio(1, 8)? {
        out.push('<');
        out.push_str(name);
        out.push_str(u.choose(&["/>", " />", " x=\"1\"/>"])?);
        return Ok(());
    }
    let prefixed = name.starts_with("p:");
    if prefixed {
        out.push('<');
        out.push_str(name);
        out.push_str(" xmlns:p=\"urn:p\">");
    } else {
        start_tag(u, name, out)?;
    }
    for _ in 0..u.int_in_range(0..=4)? {
        match u.int_in_range(0..=7)? {
            0..=2 => text(u, out)?,
            3 => cdata(u, out)?,
            4 => comment(u, out)?,
            _ if depth > 0 => {
                ws(u, out)?;
                value_element(u, depth - 1, out)?;
                ws(u, out)?;
            }
            _ => text(u, out)?,
        }
    }
    end_tag(u, name, out)
}

fn generate(u: &mut Unstructured<'_>) -> Result<String> {
    let mut out = String::new();
    ws(u, &mut out)?;
    start_tag(u, "tool", &mut out)?;
    let mut parts: Vec<u8> = vec![0, 1, 2];
    // Order, and whether the optional parts appear.
    for i in (1..parts.len()).rev() {
        let j = u.int_in_range(0..=i)?;
        parts.swap(i, j);
    }
    for p in parts {
        ws(u, &mut out)?;
        if u.ratio(1, 8)? {
            comment(u, &mut out)?;
            ws(u, &mut out)?;
        }
        match p {
            0 if u.arbitrary()? => {
                start_tag(u, "server_name", &mut out)?;
                text(u, &mut out)?;
                out.push('s');
                end_tag(u, "server_name", &mut out)?;
            }
            1 => {
                start_tag(u, "tool_name", &mut out)?;
                if u.ratio(1, 6)? {
                    cdata(u, &mut out)?;
                }
                out.push_str(u.choose(&["t", "write_to_file", "a b", "&amp;x", "é"])?);
                text(u, &mut out)?;
                end_tag(u, "tool_name", &mut out)?;
            }
            2 if u.ratio(3, 4)? => {
                start_tag(u, "arguments", &mut out)?;
                for _ in 0..u.int_in_range(0..=4)? {
                    ws(u, &mut out)?;
                    if u.ratio(1, 10)? {
                        comment(u, &mut out)?;
                    }
                    value_element(u, 3, &mut out)?;
                }
                ws(u, &mut out)?;
                end_tag(u, "arguments", &mut out)?;
            }
            _ => {}
        }
    }
    ws(u, &mut out)?;
    end_tag(u, "tool", &mut out)?;
    if u.ratio(1, 4)? {
        out.push_str(u.choose(&["\n", "\nDone.", "<!-- <tool> -->", " after <b>"])?);
    }
    Ok(out)
}

fn depth(e: &Element) -> usize {
    1 + e.child_elements().map(depth).max().unwrap_or(0)
}

fn has_descendant_named(e: &Element, name: &str) -> bool {
    e.child_elements()
        .any(|c| c.name == name || has_descendant_named(c, name))
}

/// Only blank text, no CDATA: what `<tool>` and `<arguments>` may hold besides elements.
fn only_layout(e: &Element) -> bool {
    e.children.iter().all(|n| match n {
        Node::Text(t) => is_blank(t),
        Node::CData(_) => false,
        Node::Element(_) => true,
    })
}

/// Whether xml-rs reports a processing instruction (the strict parse skips them).
fn has_processing_instruction(doc: &str) -> bool {
    EventReader::new(doc.as_bytes())
        .into_iter()
        .any(|e| matches!(e, Ok(XmlEvent::ProcessingInstruction { .. })))
}

/// Whether xml-rs reports a comment that the format reads as text (docs/FORMAT.md §7): one
/// holding the element `tool` (`<tool` or `</tool` where the name ends), or one longer than the
/// 16 KiB a comment may span.
fn has_comment_read_as_text(doc: &str) -> bool {
    let barred = |c: &str| {
        ["<tool", "</tool"].iter().any(|b| {
            c.match_indices(b).any(|(i, _)| {
                c.as_bytes().get(i + b.len()).is_none_or(|&n| {
                    !(n.is_ascii_alphanumeric()
                        || matches!(n, b'_' | b':' | b'-' | b'.')
                        || n >= 0x80)
                })
            })
        })
    };
    xml::ParserConfig::new()
        .ignore_comments(false)
        .create_reader(doc.as_bytes())
        .into_iter()
        .any(|e| matches!(e, Ok(XmlEvent::Comment(c)) if barred(&c) || c.len() + 7 > 16 * 1024))
}

/// The call xml-rs's tree describes, when the document is a valid call in the format.
fn expected(doc: &str) -> Option<(String, String, arg_types::Map)> {
    if !doc
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with("<tool")
    {
        return None;
    }
    let tree = xml_fallback::parse_strict(doc, &xml_fallback::Limits::default()).ok()?;
    if tree.name != "tool" || !only_layout(&tree) || depth(&tree) > 64 {
        return None;
    }
    let mut seen = Vec::new();
    for c in tree.child_elements() {
        if !matches!(c.name.as_str(), "server_name" | "tool_name" | "arguments")
            || seen.contains(&c.name)
        {
            return None;
        }
        seen.push(c.name.clone());
    }
    let tool_name = tree.child("tool_name")?;
    let server_name = tree.child("server_name");
    if tool_name.has_child_elements() || server_name.is_some_and(Element::has_child_elements) {
        return None;
    }
    // Names are trimmed of XML blanks, then checked (docs/FORMAT.md §3.4).
    let tool_name = element_value(tool_name)
        .trim_matches([' ', '\t', '\n', '\r'])
        .to_owned();
    if tool_name.is_empty() || has_descendant_named(&tree, "tool") {
        return None;
    }
    let arguments = tree.child("arguments").cloned().unwrap_or_default();
    if !only_layout(&arguments) || has_processing_instruction(doc) || has_comment_read_as_text(doc)
    {
        return None;
    }
    let server_name = server_name
        .map(|s| {
            element_value(s)
                .trim_matches([' ', '\t', '\n', '\r'])
                .to_owned()
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "local".to_owned());
    Some((
        tool_name,
        server_name,
        arg_types::tree::arguments_from_element(&arguments),
    ))
}

/// Mixed content is a string of inner markup: ours is verbatim from the source, xml-rs's tree has
/// no source offsets so its string is rebuilt from the tree (comments dropped, references
/// re-escaped; documented in `arg_types::tree::inner_markup` and docs/FORMAT.md §6). Both,
/// parsed and rebuilt the same way, must be equal up to leading and trailing whitespace (which
/// the text rule trims or keeps depending on lines that a dropped comment may have held).
fn rebuilt(markup: &str) -> Option<String> {
    let doc = format!("<x xmlns:p=\"urn:p\">{markup}</x>");
    let e = xml_fallback::parse_strict(&doc, &xml_fallback::Limits::default()).ok()?;
    Some(arg_types::tree::inner_markup(&e, None))
}

/// Equality of values (NaN equal to NaN), a verbatim markup string equal to its rebuilt form.
fn same(ours: &Value, theirs: &Value) -> bool {
    match (ours, theirs) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::String(a), Value::String(b)) => {
            a == b
                || rebuilt(a)
                    .is_some_and(|a| rebuilt(b).is_some_and(|b| trim_xml(&a) == trim_xml(&b)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => same_map(x, y),
        _ => ours == theirs,
    }
}

fn same_map(x: &arg_types::Map, y: &arg_types::Map) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y)
            .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let doc = if mode & 1 == 1 {
        match std::str::from_utf8(rest) {
            Ok(s) => s.to_owned(),
            Err(_) => return,
        }
    } else {
        match generate(&mut Unstructured::new(rest)) {
            Ok(d) => d,
            Err(_) => return,
        }
    };
    let Some((tool_name, server_name, arguments)) = expected(&doc) else {
        return;
    };
    // XML forbids `<` in an attribute value, but xml-rs 1.4 accepts some (`class="</x"`): such
    // a document is not valid XML, so it is no oracle for us (found by the soak of 2026-11-25).
    if lt_in_attribute_value(&doc) {
        return;
    }
    let ours = parse(&doc);
    let first = ours
        .segments
        .iter()
        .find(|s| !matches!(s, Segment::Prose(p) if is_blank(p)));
    // A name outside the name rule (docs/FORMAT.md §3.4) is an error with feedback however
    // well-formed the document is.
    if !is_valid_name(&tool_name) || !is_valid_name(&server_name) {
        match first {
            Some(Segment::Error(e)) if e.kind == ErrorKind::InvalidToolName => return,
            other => panic!("an invalid name must be an error, we read {other:?}\n{doc:?}"),
        }
    }
    let call = match first {
        Some(Segment::Call(c)) => c,
        other => panic!("xml-rs reads a valid call, we read {other:?}\n{doc:?}"),
    };
    assert!(
        call.repairs.is_empty(),
        "repairs on valid XML: {:?}\n{doc:?}",
        call.repairs
    );
    assert!(!call.legacy_json);
    assert_eq!(call.tool_name, tool_name, "{doc:?}");
    assert_eq!(call.server_name, server_name, "{doc:?}");
    assert!(
        same_map(&call.arguments, &arguments),
        "arguments differ\n{doc:?}\nours   {:?}\nxml-rs {:?}",
        call.arguments,
        arguments
    );
    let lead = doc.len() - doc.trim_start_matches([' ', '\t', '\n', '\r']).len();
    assert_eq!(call.span.start, lead, "{doc:?}");
});

/// Whether a quoted attribute value inside a start tag holds `<` (which XML forbids).
fn lt_in_attribute_value(doc: &str) -> bool {
    let b = doc.as_bytes();
    let mut in_tag = false;
    let mut quote = 0u8;
    for &c in b {
        match (in_tag, quote, c) {
            (false, _, b'<') => in_tag = true,
            (true, 0, b'"' | b'\'') => quote = c,
            (true, 0, b'>') => in_tag = false,
            (true, q, _) if q != 0 && c == q => quote = 0,
            (true, q, b'<') if q != 0 => return true,
            _ => {}
        }
    }
    false
}
