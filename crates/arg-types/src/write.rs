//! The writer: [`Value`]s as XML argument elements, the inverse of [`crate::tree`] and
//! [`crate::schema`].
//!
//! Each value is one element per line, children indented by two spaces per level:
//!
//! - `null`, booleans and integers (of any size) as their text; floats with the shortest text that reads back
//!   as the same `f64`, always with a `.` or an exponent (`1.0`, `1e16`), and `NaN`, `+Inf`,
//!   `-Inf`.
//! - Strings entity-escaped ([`Escaper::TEXT`]) when that reads back blind as the same string;
//!   otherwise — over 1000 characters, text the text rule would cut (leading or trailing
//!   whitespace on one line, a blank first or last line), or text that inference would turn into
//!   another type (`42`, `true`, `null`, `NaN`) — in CDATA, which is kept exactly and always read
//!   as a string, with `]]>` split as `]]]]><![CDATA[>`. A carriage return, which XML reading
//!   would turn into a line feed, is written as `&#13;` between CDATA sections; characters XML 1.0
//!   forbids are written as visible `\u{…}` escapes (they cannot round-trip).
//! - Objects as nested elements; an empty object as an empty element.
//! - Arrays as repeated elements of the array's name. An array holding an array, or holding
//!   exactly one item that would be written as an empty element, is written instead as one
//!   wrapper element whose children are `<item>` elements; an empty array as an empty element.
//!
//! Names must be XML names without a colon; anything else is a [`WriteError`] and nothing is
//! written.

use crate::infer::infer_non_string;
use crate::value::write_float;
use crate::{Map, Value};
use std::fmt;
use xml_fallback::escape::Escaper;
use xml_fallback::text::{text_value, trim_xml};

/// Strings longer than this many characters are written in CDATA (docs/FORMAT.md §3).
pub const CDATA_THRESHOLD: usize = 1000;

/// The element name used for the items of a wrapped array.
pub const ITEM_NAME: &str = "item";

/// A key that cannot be an XML element name, so the value cannot be written.
///
/// ```
/// use arg_types::{write::write_value, Map, Value};
/// let mut m = Map::new();
/// m.insert("1st".into(), Value::Int(1));
/// let mut out = String::new();
/// let err = write_value("opts", &Value::Object(m), 0, &mut out).unwrap_err();
/// assert_eq!(err.path, "opts.1st");
/// assert!(out.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteError {
    /// Where the bad name is (`opts.1st`, `edits[0].a b`).
    pub path: String,
    /// The name itself.
    pub name: String,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot write argument \"{}\": {:?} is not an XML element name",
            self.path, self.name
        )
    }
}

impl std::error::Error for WriteError {}

/// Writes one value as the element `<name>`, indented by `indent` levels of two spaces, ending
/// with a newline.
///
/// ```
/// use arg_types::{write::write_value, Value};
/// let mut out = String::new();
/// write_value("x", &Value::String("a && b".into()), 1, &mut out).unwrap();
/// write_value("n", &Value::String("42".into()), 1, &mut out).unwrap();
/// write_value("f", &Value::Float(2.0), 1, &mut out).unwrap();
/// assert_eq!(out, "  <x>a &amp;&amp; b</x>\n  <n><![CDATA[42]]></n>\n  <f>2.0</f>\n");
/// ```
pub fn write_value(
    name: &str,
    v: &Value,
    indent: usize,
    out: &mut String,
) -> Result<(), WriteError> {
    check(name, v, name)?;
    write_unchecked(name, v, indent, out);
    Ok(())
}

/// Writes each argument as one element at indent level 1, for placing between `<arguments>\n`
/// and `</arguments>`.
///
/// ```
/// use arg_types::{write::write_arguments, Map, Value};
/// let mut args = Map::new();
/// args.insert("path".into(), "src".into());
/// args.insert("exclude".into(), Value::Array(vec!["dist".into(), ".git".into()]));
/// let mut out = String::from("<arguments>\n");
/// write_arguments(&args, &mut out).unwrap();
/// out.push_str("</arguments>");
/// assert_eq!(out, "<arguments>\n  <path>src</path>\n  <exclude>dist</exclude>\n  \
///     <exclude>.git</exclude>\n</arguments>");
/// ```
pub fn write_arguments(args: &Map, out: &mut String) -> Result<(), WriteError> {
    for (k, v) in args {
        check(k, v, k)?;
    }
    for (k, v) in args {
        write_unchecked(k, v, 1, out);
    }
    Ok(())
}

fn check(name: &str, v: &Value, path: &str) -> Result<(), WriteError> {
    if !is_element_name(name) {
        return Err(WriteError {
            path: path.to_owned(),
            name: name.to_owned(),
        });
    }
    match v {
        Value::Object(m) => {
            for (k, member) in m {
                check(k, member, &format!("{path}.{k}"))?;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_members(item, &format!("{path}[{i}]"))?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn check_members(v: &Value, path: &str) -> Result<(), WriteError> {
    match v {
        Value::Object(m) => m
            .iter()
            .try_for_each(|(k, member)| check(k, member, &format!("{path}.{k}"))),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| check_members(item, &format!("{path}[{i}]"))),
        _ => Ok(()),
    }
}

/// Whether `name` is an XML 1.0 name without a colon (an NCName), usable as an element name
/// without a namespace declaration.
///
/// ```
/// use arg_types::write::is_element_name;
/// assert!(is_element_name("line_start"));
/// assert!(is_element_name("données-1.x"));
/// assert!(!is_element_name("1st"));
/// assert!(!is_element_name("a b"));
/// assert!(!is_element_name("ns:a"));
/// assert!(!is_element_name(""));
/// ```
pub fn is_element_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(is_name_start) && chars.all(is_name_char)
}

fn is_name_start(c: char) -> bool {
    matches!(c,
        'A'..='Z' | '_' | 'a'..='z'
        | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
        | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
        | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

fn is_name_char(c: char) -> bool {
    is_name_start(c)
        || matches!(c,
            '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

fn pad(indent: usize, out: &mut String) {
    for _ in 0..indent {
        out.push_str("  ");
    }
}

fn write_unchecked(name: &str, v: &Value, indent: usize, out: &mut String) {
    match v {
        Value::Array(items) if needs_wrapper(items) => {
            open_block(name, indent, out);
            for item in items {
                write_item(item, indent + 1, out);
            }
            close_block(name, indent, out);
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                write_unchecked(name, item, indent, out);
            }
        }
        Value::Object(m) if !m.is_empty() => {
            open_block(name, indent, out);
            for (k, member) in m {
                write_unchecked(k, member, indent + 1, out);
            }
            close_block(name, indent, out);
        }
        _ => {
            pad(indent, out);
            out.push('<');
            out.push_str(name);
            out.push('>');
            write_scalar(v, out);
            out.push_str("</");
            out.push_str(name);
            out.push_str(">\n");
        }
    }
}

/// One item of a wrapped array: exactly one `<item>` element, so an array item is itself a
/// wrapper.
fn write_item(v: &Value, indent: usize, out: &mut String) {
    match v {
        Value::Array(items) if !items.is_empty() => {
            open_block(ITEM_NAME, indent, out);
            for item in items {
                write_item(item, indent + 1, out);
            }
            close_block(ITEM_NAME, indent, out);
        }
        other => write_unchecked(ITEM_NAME, other, indent, out),
    }
}

fn open_block(name: &str, indent: usize, out: &mut String) {
    pad(indent, out);
    out.push('<');
    out.push_str(name);
    out.push_str(">\n");
}

fn close_block(name: &str, indent: usize, out: &mut String) {
    pad(indent, out);
    out.push_str("</");
    out.push_str(name);
    out.push_str(">\n");
}

/// Whether an array must be written as a wrapper of `<item>` elements.
fn needs_wrapper(items: &[Value]) -> bool {
    items.iter().any(|i| matches!(i, Value::Array(_)))
        || matches!(items, [only] if writes_empty(only))
}

/// Whether a value is written as an empty element.
fn writes_empty(v: &Value) -> bool {
    match v {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// The content of a scalar (or empty) element.
fn write_scalar(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::BigInt(n) => out.push_str(n.as_str()),
        Value::Float(f) => {
            // Writing into a String cannot fail.
            let _ = write_float(*f, out);
        }
        Value::String(s) => write_string(s, out),
        Value::Array(_) | Value::Object(_) => {}
    }
}

/// Whether `s`, entity-escaped, reads back blind as itself.
fn text_round_trips(s: &str) -> bool {
    s.chars().count() <= CDATA_THRESHOLD
        && text_value(s) == s
        && infer_non_string(trim_xml(s)).is_none()
}

/// Characters that neither escaped text nor CDATA can carry as themselves: CR (XML reading turns
/// it into LF) and the characters XML 1.0 forbids.
fn is_special(c: char) -> bool {
    matches!(c, '\r' | '\u{FFFE}' | '\u{FFFF}') || (c < ' ' && c != '\t' && c != '\n')
}

/// `s` cut into alternating runs of ordinary and special characters.
fn runs(s: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let special = is_special(first);
        let end = rest
            .char_indices()
            .find(|(_, c)| is_special(*c) != special)
            .map_or(rest.len(), |(i, _)| i);
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some((special, run))
    })
}

/// Special runs: CR as `&#13;`, forbidden characters as `\u{…}`.
const SPECIAL: Escaper = Escaper::ATTRIBUTE.replacing_forbidden();

fn write_string(s: &str, out: &mut String) {
    if text_round_trips(s) {
        for (special, run) in runs(s) {
            let escaper = if special { SPECIAL } else { Escaper::TEXT };
            escaper.escape_into(run, out);
        }
        return;
    }
    let mut last_special = false;
    for (i, (special, run)) in runs(s).enumerate() {
        if special {
            if i == 0 {
                // Text before the first CDATA section is layout to the text rule: anchor it.
                out.push_str("<![CDATA[]]>");
            }
            SPECIAL.escape_into(run, out);
        } else {
            out.push_str("<![CDATA[");
            out.push_str(&run.replace("]]>", "]]]]><![CDATA[>"));
            out.push_str("]]>");
        }
        last_special = special;
    }
    if last_special {
        out.push_str("<![CDATA[]]>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(v: &Value) -> String {
        let mut out = String::new();
        write_value("v", v, 0, &mut out).unwrap();
        out
    }

    #[test]
    fn strings_that_round_trip_as_text_are_escaped() {
        assert_eq!(
            written(&"a < b & c > d".into()),
            "<v>a &lt; b &amp; c &gt; d</v>\n"
        );
        assert_eq!(written(&"say \"hi\"".into()), "<v>say \"hi\"</v>\n");
        assert_eq!(written(&"".into()), "<v></v>\n");
        assert_eq!(written(&"a\n  b".into()), "<v>a\n  b</v>\n");
        assert_eq!(written(&"a]]>b".into()), "<v>a]]&gt;b</v>\n");
    }

    #[test]
    fn strings_that_would_not_round_trip_go_in_cdata() {
        assert_eq!(written(&" x".into()), "<v><![CDATA[ x]]></v>\n");
        assert_eq!(written(&"\n  code".into()), "<v><![CDATA[\n  code]]></v>\n");
        assert_eq!(written(&"a\n".into()), "<v><![CDATA[a\n]]></v>\n");
        for t in ["42", "true", "NULL", "1.5", "NaN", "-Inf", "007"] {
            assert_eq!(written(&t.into()), format!("<v><![CDATA[{t}]]></v>\n"));
        }
        let long = "x".repeat(CDATA_THRESHOLD + 1);
        assert_eq!(
            written(&long.clone().into()),
            format!("<v><![CDATA[{long}]]></v>\n")
        );
        let at_limit = "é".repeat(CDATA_THRESHOLD);
        assert_eq!(
            written(&at_limit.clone().into()),
            format!("<v>{at_limit}</v>\n")
        );
    }

    #[test]
    fn cdata_terminator_is_split() {
        assert_eq!(
            written(&" ]]> ".into()),
            "<v><![CDATA[ ]]]]><![CDATA[> ]]></v>\n"
        );
    }

    #[test]
    fn carriage_returns_are_references() {
        assert_eq!(written(&"a\r\nb".into()), "<v>a&#13;\nb</v>\n");
        assert_eq!(
            written(&"\r\nb\r".into()),
            "<v><![CDATA[]]>&#13;<![CDATA[\nb]]>&#13;<![CDATA[]]></v>\n"
        );
    }

    #[test]
    fn forbidden_characters_are_visible_escapes() {
        assert_eq!(written(&"a\u{1b}b".into()), "<v>a\\u{1b}b</v>\n");
        assert_eq!(
            written(&" \u{0}".into()),
            "<v><![CDATA[ ]]>\\u{0}<![CDATA[]]></v>\n"
        );
    }

    #[test]
    fn scalars_and_floats() {
        assert_eq!(written(&Value::Null), "<v>null</v>\n");
        assert_eq!(written(&Value::Bool(false)), "<v>false</v>\n");
        assert_eq!(written(&Value::Int(-3)), "<v>-3</v>\n");
        assert_eq!(written(&Value::Float(0.1)), "<v>0.1</v>\n");
        assert_eq!(written(&Value::Float(1e300)), "<v>1e300</v>\n");
        assert_eq!(written(&Value::Float(f64::NAN)), "<v>NaN</v>\n");
        assert_eq!(written(&Value::Float(f64::INFINITY)), "<v>+Inf</v>\n");
    }

    #[test]
    fn arrays_repeat_or_wrap() {
        let a = Value::Array(vec![1.into(), 2.into()]);
        assert_eq!(written(&a), "<v>1</v>\n<v>2</v>\n");
        assert_eq!(written(&Value::Array(vec![])), "<v></v>\n");
        assert_eq!(
            written(&Value::Array(vec!["".into()])),
            "<v>\n  <item></item>\n</v>\n"
        );
        let nested = Value::Array(vec![a.clone(), Value::Array(vec![3.into()])]);
        assert_eq!(
            written(&nested),
            "<v>\n  <item>\n    <item>1</item>\n    <item>2</item>\n  </item>\n  <item>\n    <item>3</item>\n  </item>\n</v>\n"
        );
    }

    #[test]
    fn objects_nest() {
        let mut m = Map::new();
        m.insert("a".into(), Value::Int(1));
        m.insert("b".into(), Value::Array(vec!["x".into(), "y".into()]));
        m.insert("c".into(), Value::Object(Map::new()));
        assert_eq!(
            written(&Value::Object(m)),
            "<v>\n  <a>1</a>\n  <b>x</b>\n  <b>y</b>\n  <c></c>\n</v>\n"
        );
    }

    #[test]
    fn bad_names_are_errors_and_nothing_is_written() {
        let mut inner = Map::new();
        inner.insert("ok".into(), Value::Int(1));
        inner.insert("not ok".into(), Value::Int(2));
        let mut args = Map::new();
        args.insert("good".into(), Value::Int(0));
        args.insert(
            "edits".into(),
            Value::Array(vec![Value::Null, Value::Object(inner)]),
        );
        let mut out = String::new();
        let err = write_arguments(&args, &mut out).unwrap_err();
        assert_eq!(err.path, "edits[1].not ok");
        assert_eq!(err.name, "not ok");
        assert!(out.is_empty());
        assert!(write_value("xml:lang", &Value::Null, 0, &mut out).is_err());
    }
}
