//! Blind conversion of an element tree into [`Value`]s, without a schema (docs/FORMAT.md §5.2).
//!
//! - A leaf element's value text is [`element_value`] (the shared text rule). With a CDATA
//!   section it is always a [`Value::String`]; otherwise it is inferred by
//!   [`infer_scalar`](crate::infer::infer_scalar) from the trimmed text, and when that gives a
//!   string the string is the text-rule text (the indentation of the first line is kept). An
//!   empty element is `""`.
//! - An element with child elements is a [`Value::Object`] keyed by child name, in order of first
//!   appearance; a name that occurs several times becomes a [`Value::Array`] of the values in
//!   document order. Whitespace-only text between children is layout and ignored.
//! - *Mixed content* — child elements beside non-blank text or CDATA, as in
//!   `<msg>Hello <b>you</b></msg>` — is markup meant as text: it is a [`Value::String`] holding the
//!   inner markup ([`inner_markup`]), verbatim from the source when it is known.
//! - Attributes are not arguments and are ignored.

use crate::infer::infer_non_string;
use crate::{Map, Value};
use xml_fallback::escape::Escaper;
use xml_fallback::name_index::NameIndex;
use xml_fallback::text::{element_value, is_blank, text_value, trim_xml};
use xml_fallback::tree::{Element, Node};

/// The blind value of one element.
///
/// ```
/// use arg_types::{tree::value_from_element, Value};
/// use xml_fallback::tree::{Element, Node};
/// assert_eq!(value_from_element(&Element::with_text("count", " 42 ")), Value::Int(42));
/// let mut cdata = Element::new("n");
/// cdata.children.push(Node::CData("42".into()));
/// assert_eq!(value_from_element(&cdata), Value::String("42".into()));
/// let mut edit = Element::new("edit");
/// edit.children.push(Node::Element(Element::with_text("line", "3")));
/// assert_eq!(value_from_element(&edit).get("line"), Some(&Value::Int(3)));
/// ```
pub fn value_from_element(e: &Element) -> Value {
    value_from_element_in(e, None)
}

/// [`value_from_element`], with the source text the element was parsed from, so that mixed
/// content comes out verbatim (see [`inner_markup`]).
pub fn value_from_element_in(e: &Element, source: Option<&str>) -> Value {
    if !e.has_child_elements() {
        return leaf_value(e);
    }
    if is_mixed(e) {
        return Value::String(inner_markup(e, source));
    }
    Value::Object(members(e, source))
}

/// The arguments held by an `<arguments>` element: each child element is one argument, by the
/// rules of [`value_from_element`]; text directly inside `<arguments>` is ignored.
///
/// ```
/// use arg_types::{tree::arguments_from_element, Value};
/// use xml_fallback::tree::{Element, Node};
/// let mut args = Element::new("arguments");
/// for x in ["src", "node_modules", "dist"] {
///     let name = if x == "src" { "path" } else { "exclude" };
///     args.children.push(Node::Element(Element::with_text(name, x)));
/// }
/// let m = arguments_from_element(&args);
/// assert_eq!(m["path"], Value::String("src".into()));
/// assert_eq!(m["exclude"], Value::Array(vec!["node_modules".into(), "dist".into()]));
/// ```
pub fn arguments_from_element(args: &Element) -> Map {
    members(args, None)
}

/// [`arguments_from_element`], with the source text for verbatim mixed content.
pub fn arguments_from_element_in(args: &Element, source: Option<&str>) -> Map {
    members(args, source)
}

/// [`arguments_from_element_in`], consuming the tree: strings move into the values instead of
/// being copied, which matters for a file's content of several megabytes.
///
/// ```
/// use arg_types::tree::{arguments_from_element, arguments_from_element_owned};
/// use xml_fallback::tree::{Element, Node};
/// let mut args = Element::new("arguments");
/// args.children.push(Node::Element(Element::with_text("content", "\n  code\n")));
/// args.children.push(Node::Element(Element::with_text("n", "7")));
/// let blind = arguments_from_element(&args);
/// assert_eq!(arguments_from_element_owned(args, None), blind);
/// ```
pub fn arguments_from_element_owned(args: Element, source: Option<&str>) -> Map {
    members_owned(args, source)
}

fn value_from_element_owned(e: Element, source: Option<&str>) -> Value {
    if !e.has_child_elements() {
        return leaf_value_owned(e);
    }
    if is_mixed(&e) {
        return Value::String(inner_markup(&e, source));
    }
    Value::Object(members_owned(e, source))
}

fn members_owned(e: Element, source: Option<&str>) -> Map {
    let mut members = Members::new();
    for n in e.children {
        if let Node::Element(c) = n {
            members.push_element(c, source);
        }
    }
    members.into_map()
}

/// The members of an object built one child element at a time, as a streaming reader closes
/// each: after the children of an element are pushed in document order, the map is the one
/// [`arguments_from_element_owned`] gives for that element (the same rules, written once here).
/// A reader need not keep the children in a tree until the parent closes, and a leaf of one
/// text node need not be built as an element at all ([`push_text`](Self::push_text)).
///
/// ```
/// use arg_types::tree::{Members, arguments_from_element_owned};
/// use arg_types::Value;
/// use xml_fallback::tree::{Element, Node};
/// let mut members = Members::new();
/// members.push_text("path".into(), "src/main.rs".into());
/// members.push_element(Element::with_text("n", " 7 "), None);
/// members.push_text("path".into(), "\n  lib.rs\n".into());
/// assert_eq!(members.as_map()["n"], Value::Int(7));
///
/// let mut args = Element::new("arguments");
/// for (name, text) in [("path", "src/main.rs"), ("n", " 7 "), ("path", "\n  lib.rs\n")] {
///     args.children.push(Node::Element(Element::with_text(name, text)));
/// }
/// assert_eq!(members.into_map(), arguments_from_element_owned(args, None));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Members {
    map: Map,
}

impl Members {
    /// No members yet (allocates nothing).
    pub fn new() -> Self {
        Members::default()
    }

    /// Adds the value of the child element `e` under its name (see [`value_from_element`]);
    /// `source`, as for [`arguments_from_element_in`], makes mixed content verbatim.
    pub fn push_element(&mut self, mut e: Element, source: Option<&str>) {
        let name = std::mem::take(&mut e.name);
        let v = value_from_element_owned(e, source);
        self.push(name, v);
    }

    /// Adds a leaf child element named `name` whose content is the one text node `text` (empty:
    /// an empty element), as [`push_element`](Self::push_element) would, without building it:
    /// the text rule, then inference; the string moves into the value when it stays one.
    pub fn push_text(&mut self, name: String, text: String) {
        let text = owned_text_value(text);
        let v = infer_non_string(trim_xml(&text)).unwrap_or(Value::String(text));
        self.push(name, v);
    }

    /// The members pushed so far.
    pub fn as_map(&self) -> &Map {
        &self.map
    }

    /// The members as a map.
    pub fn into_map(self) -> Map {
        self.map
    }

    /// Whether nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// A value under `name`, in order of first appearance: a name seen again turns its entry
    /// into an array. A single element never converts to an array, so an array already in the
    /// map can only come from such a repetition. (Not sized ahead: with one name repeated, that
    /// would reserve a member per element, tests/memory.rs `empty-elements`.)
    fn push(&mut self, name: String, v: Value) {
        match self.map.entry(name) {
            indexmap::map::Entry::Vacant(slot) => {
                slot.insert(v);
            }
            indexmap::map::Entry::Occupied(mut slot) => match slot.get_mut() {
                Value::Array(items) => items.push(v),
                first => {
                    let first = std::mem::take(first);
                    *slot.get_mut() = Value::Array(vec![first, v]);
                }
            },
        }
    }
}

fn leaf_value_owned(mut e: Element) -> Value {
    let has_cdata = e.has_cdata();
    let text = take_value_text(&mut e);
    if has_cdata {
        return Value::String(text);
    }
    infer_non_string(trim_xml(&text)).unwrap_or(Value::String(text))
}

/// The text rule ([`text_value`]) on an owned text, in place: the kept part moved, not copied.
fn owned_text_value(mut s: String) -> String {
    let kept = text_value(&s);
    let start = kept.as_ptr() as usize - s.as_ptr() as usize;
    let end = start + kept.len();
    s.truncate(end);
    if start > 0 {
        s.drain(..start);
    }
    s
}

/// The value text of a leaf, moved out of its one text node when it has only one.
fn take_value_text(e: &mut Element) -> String {
    match e.children.as_mut_slice() {
        [Node::CData(s)] => std::mem::take(s),
        [Node::Text(s)] => owned_text_value(std::mem::take(s)),
        _ => element_value(e).into_owned(),
    }
}

fn leaf_value(e: &Element) -> Value {
    let text = element_value(e);
    if e.has_cdata() {
        return Value::String(text.into_owned());
    }
    infer_non_string(trim_xml(&text)).unwrap_or_else(|| Value::String(text.into_owned()))
}

/// Whether `e` has child elements beside non-blank text or CDATA.
pub(crate) fn is_mixed(e: &Element) -> bool {
    e.has_child_elements()
        && e.children.iter().any(|n| match n {
            Node::Text(t) => !is_blank(t),
            Node::CData(_) => true,
            Node::Element(_) => false,
        })
}

/// An element name compared while grouping; under test, every comparison is counted
/// ([`tests::NAME_COMPARISONS`]), so that a test can tell linear grouping from quadratic.
#[inline]
fn compared(name: &str) -> &str {
    #[cfg(test)]
    tests::NAME_COMPARISONS.with(|c| c.set(c.get() + 1));
    name
}

/// The elements of one name among an element's children, in document order. Most names appear
/// once: the first element is held without an allocation.
#[derive(Debug)]
pub(crate) enum Group<'a> {
    One([&'a Element; 1]),
    Many(Vec<&'a Element>),
}

impl<'a> Group<'a> {
    fn push(&mut self, c: &'a Element) {
        match self {
            Group::One([first]) => *self = Group::Many(vec![*first, c]),
            Group::Many(all) => all.push(c),
        }
    }
}

impl<'a> std::ops::Deref for Group<'a> {
    type Target = [&'a Element];
    fn deref(&self) -> &[&'a Element] {
        match self {
            Group::One(one) => one,
            Group::Many(all) => all,
        }
    }
}

/// The child elements of `e` grouped by name, in order of first appearance: one pass, each name
/// found by a [`NameIndex`] (compared with at most [`NameIndex::FEW`] others, by a keyed hash
/// past them), so linear in the number of children.
pub(crate) fn groups(e: &Element) -> Vec<(&str, Group<'_>)> {
    let mut out: Vec<(&str, Group<'_>)> = Vec::new();
    let mut index = NameIndex::default();
    for c in e.child_elements() {
        match index.get_or_insert(&c.name, |i| compared(out[i].0)) {
            Ok(i) => out[i].1.push(c),
            Err(_) => out.push((c.name.as_str(), Group::One([c]))),
        }
    }
    out
}

fn members(e: &Element, source: Option<&str>) -> Map {
    members_with(e, &|c| value_from_element_in(c, source))
}

/// The child elements of `e` as an object, each read by `value`: one per name, in order of first
/// appearance, a repeated name an array of its values in document order.
pub(crate) fn members_with(e: &Element, value: &dyn Fn(&Element) -> Value) -> Map {
    let mut m = Map::new();
    for (name, siblings) in groups(e) {
        let v = match &*siblings {
            [one] => value(one),
            many => Value::Array(many.iter().map(|c| value(c)).collect()),
        };
        m.insert(name.to_owned(), v);
    }
    m
}

/// The value of an element whose text is *raw* (MiniMax-M3, docs/FORMAT.md §9.9), without a
/// schema: a leaf is its text, a string, byte for byte (not trimmed, not inferred); an element
/// with child elements is an object by the rules of [`value_from_element`] (a repeated name is
/// an array), and text beside the children is kept under [`mixed_text_key`].
///
/// ```
/// use arg_types::{tree::raw_value_from_element, Value};
/// use xml_fallback::tree::{Element, Node};
/// assert_eq!(
///     raw_value_from_element(&Element::with_text("n", " 007 ")),
///     Value::String(" 007 ".into())
/// );
/// let mut msg = Element::new("msg");
/// msg.children.push(Node::Text("Hello ".into()));
/// msg.children.push(Node::Element(Element::with_text("b", "you")));
/// let v = raw_value_from_element(&msg);
/// assert_eq!(v.get("b"), Some(&Value::String("you".into())));
/// assert_eq!(v.get("$text"), Some(&Value::String("Hello ".into())));
/// ```
pub fn raw_value_from_element(e: &Element) -> Value {
    if !e.has_child_elements() {
        return Value::String(e.text());
    }
    let mut m = members_with(e, &raw_value_from_element);
    insert_mixed_text(e, &mut m);
    Value::Object(m)
}

/// The arguments held by `args` (one per child element) read by [`raw_value_from_element`]; a
/// repeated name is an array. Text directly inside `args` is not an argument.
///
/// ```
/// use arg_types::{tree::raw_arguments_from_element, Value};
/// use xml_fallback::tree::{Element, Node};
/// let mut args = Element::new("invoke");
/// for (k, v) in [("tag", "a"), ("n", "1"), ("tag", "b")] {
///     args.children.push(Node::Element(Element::with_text(k, v)));
/// }
/// let m = raw_arguments_from_element(&args);
/// assert_eq!(m["tag"], Value::Array(vec!["a".into(), "b".into()]));
/// assert_eq!(m["n"], Value::String("1".into()));
/// ```
pub fn raw_arguments_from_element(args: &Element) -> Map {
    members_with(args, &raw_value_from_element)
}

/// The key under which the text of a mixed element is kept beside its children: `$text`, or
/// `$$text`, `$$$text`, … when a member of `m` already has that name.
///
/// ```
/// use arg_types::{tree::mixed_text_key, Map, Value};
/// let mut m = Map::new();
/// assert_eq!(mixed_text_key(&m), "$text");
/// m.insert("$text".into(), Value::Null);
/// assert_eq!(mixed_text_key(&m), "$$text");
/// ```
pub fn mixed_text_key(m: &Map) -> String {
    let mut key = String::from("$text");
    while m.contains_key(&key) {
        key.insert(0, '$');
    }
    key
}

/// Adds the text of `e` to `m` under [`mixed_text_key`] when `e` is mixed (child elements
/// beside non-blank text): every text piece, verbatim, joined without separator.
pub(crate) fn insert_mixed_text(e: &Element, m: &mut Map) {
    if is_mixed(e) {
        let key = mixed_text_key(m);
        m.insert(key, Value::String(e.text()));
    }
}

/// The inner markup of `e` as a string, with the text rule applied (blank first and last lines
/// dropped, single-line text trimmed).
///
/// When `source` is given and the element knows its `content_span` in it, the markup is the
/// source text, verbatim (entity references and CDATA markers as written). Otherwise the
/// children are written out canonically: text escaped with [`Escaper::TEXT`], CDATA as a CDATA
/// section, elements as `<name attr="v">…</name>` (attribute values escaped with
/// [`Escaper::ATTRIBUTE`]), empty elements as `<name/>`.
///
/// ```
/// use arg_types::tree::inner_markup;
/// use xml_fallback::tree::{Element, Node};
/// let source = "<msg>Hello <b>you</b> &#38; me</msg>";
/// let mut msg = Element::new("msg");
/// msg.children = vec![
///     Node::Text("Hello ".into()),
///     Node::Element(Element::with_text("b", "you")),
///     Node::Text(" & me".into()),
/// ];
/// assert_eq!(inner_markup(&msg, None), "Hello <b>you</b> &amp; me");
/// msg.content_span = Some(5..30);
/// assert_eq!(inner_markup(&msg, Some(source)), "Hello <b>you</b> &#38; me");
/// ```
pub fn inner_markup(e: &Element, source: Option<&str>) -> String {
    if let Some(verbatim) = source
        .zip(e.content_span.clone())
        .and_then(|(s, r)| s.get(r))
    {
        return raw_text_value(verbatim).to_owned();
    }
    let mut out = String::new();
    for n in &e.children {
        write_node(n, &mut out);
    }
    text_value(&out).to_owned()
}

/// The text rule ([`text_value`]) on raw source text, whose lines may also end with CR LF or
/// CR (an XML reader turns both into LF before the rule sees them).
fn raw_text_value(s: &str) -> &str {
    let is_end = |c: char| c == '\n' || c == '\r';
    let Some(first) = s.find(is_end) else {
        return trim_xml(s);
    };
    let mut start = 0;
    if is_blank(&s[..first]) {
        start = first + if s[first..].starts_with("\r\n") { 2 } else { 1 };
    }
    let mut end = s.len();
    if let Some(last) = s.rfind(is_end)
        && last + 1 >= start
        && is_blank(&s[last + 1..])
    {
        let line_end = if s[..last].ends_with('\r') && s[last..].starts_with('\n') {
            last - 1
        } else {
            last
        };
        end = line_end.max(start);
    }
    &s[start..end]
}

fn write_node(n: &Node, out: &mut String) {
    match n {
        // A carriage return is written `&#13;` (between CDATA sections in CDATA), as the
        // writer does: raw, an XML reader would give it back as a line feed.
        Node::Text(t) => {
            for (i, piece) in t.split('\r').enumerate() {
                if i > 0 {
                    out.push_str("&#13;");
                }
                Escaper::TEXT.escape_into(piece, out);
            }
        }
        Node::CData(c) => {
            out.push_str("<![CDATA[");
            out.push_str(
                &c.replace("]]>", "]]]]><![CDATA[>")
                    .replace('\r', "]]>&#13;<![CDATA["),
            );
            out.push_str("]]>");
        }
        Node::Element(e) => {
            out.push('<');
            out.push_str(&e.name);
            for a in &e.attributes {
                out.push(' ');
                out.push_str(&a.name);
                out.push_str("=\"");
                Escaper::ATTRIBUTE.escape_into(&a.value, out);
                out.push('"');
            }
            if e.children.is_empty() {
                out.push_str("/>");
                return;
            }
            out.push('>');
            for c in &e.children {
                write_node(c, out);
            }
            out.push_str("</");
            out.push_str(&e.name);
            out.push('>');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use xml_fallback::tree::Attribute;

    thread_local! {
        /// How many times two names were compared while grouping.
        pub(super) static NAME_COMPARISONS: Cell<usize> = const { Cell::new(0) };
    }

    /// Name comparisons made grouping the children of `e`.
    fn comparisons(e: &Element) -> usize {
        NAME_COMPARISONS.with(|c| c.set(0));
        let g = groups(e);
        assert!(!g.is_empty());
        NAME_COMPARISONS.with(Cell::get)
    }

    fn with_children(names: impl Iterator<Item = String>) -> Element {
        let mut e = Element::new("arguments");
        e.children = names
            .map(|n| Node::Element(Element::with_text(n, "1")))
            .collect();
        e
    }

    /// Grouping compares each name with at most a few others (a hash index past the first
    /// [`NameIndex::FEW`]), not with every earlier name: at n and 4n children the count stays
    /// within (FEW + 2)·n, where a linear search would make n²/2.
    #[test]
    fn grouping_is_linear_in_the_number_of_names() {
        for n in [2_000, 8_000] {
            let distinct = with_children((0..n).map(|i| format!("p{i}")));
            let repeated = with_children((0..n).map(|i| format!("p{}", i % 3)));
            let interleaved = with_children((0..n).map(|i| format!("p{}", i % (n / 2))));
            for e in [&distinct, &repeated, &interleaved] {
                let c = comparisons(e);
                assert!(
                    c <= (NameIndex::FEW + 2) * n,
                    "{n} children: {c} comparisons"
                );
            }
            // Repeats must be found: at least one comparison per repeated child.
            assert!(comparisons(&repeated) >= n - 3);
        }
        let small = with_children((0..10).map(|i| format!("p{}", i % 4)));
        let g = groups(&small);
        let shape: Vec<(&str, usize)> = g.iter().map(|(n, v)| (*n, v.len())).collect();
        assert_eq!(shape, [("p0", 3), ("p1", 3), ("p2", 2), ("p3", 2)]);
    }

    fn el(name: &str, children: Vec<Node>) -> Element {
        let mut e = Element::new(name);
        e.children = children;
        e
    }

    fn text(t: &str) -> Node {
        Node::Text(t.into())
    }

    fn child(e: Element) -> Node {
        Node::Element(e)
    }

    #[test]
    fn empty_element_is_the_empty_string() {
        assert_eq!(
            value_from_element(&Element::new("x")),
            Value::String("".into())
        );
        assert_eq!(
            value_from_element(&Element::with_text("x", " \n ")),
            Value::String("".into())
        );
    }

    #[test]
    fn cdata_is_always_a_string() {
        for t in ["true", "null", "42", "1.5", "NaN", ""] {
            let e = el("x", vec![Node::CData(t.into())]);
            assert_eq!(value_from_element(&e), Value::String(t.into()), "{t}");
        }
        let e = el(
            "x",
            vec![text("\n  "), Node::CData(" 42 ".into()), text("\n")],
        );
        assert_eq!(value_from_element(&e), Value::String(" 42 ".into()));
    }

    #[test]
    fn text_is_trimmed_for_inference_but_strings_keep_the_text_rule() {
        assert_eq!(
            value_from_element(&Element::with_text("x", "\n  true\n")),
            Value::Bool(true)
        );
        assert_eq!(
            value_from_element(&Element::with_text("x", "\n    fn main() {}\n  ")),
            Value::String("    fn main() {}".into())
        );
    }

    #[test]
    fn children_become_an_object_and_repeats_an_array_in_order() {
        let e = el(
            "arguments",
            vec![
                text("\n  "),
                child(Element::with_text("a", "1")),
                text("\n  "),
                child(Element::with_text("b", "x")),
                child(Element::with_text("a", "2")),
                child(Element::with_text("a", "3")),
            ],
        );
        let m = arguments_from_element(&e);
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(m["a"], Value::Array(vec![1.into(), 2.into(), 3.into()]));
        assert_eq!(m["b"], Value::String("x".into()));
    }

    #[test]
    fn nested_edits_are_an_object_with_an_array() {
        let edit = |s: &str, r: &str| {
            child(el(
                "edit",
                vec![
                    child(Element::with_text("search", s)),
                    child(Element::with_text("replace", r)),
                ],
            ))
        };
        let edits = el("edits", vec![edit("a", "b"), edit("c", "d")]);
        let v = value_from_element(&edits);
        let items = v.get("edit").and_then(Value::as_array).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].get("search"), Some(&Value::String("c".into())));
    }

    #[test]
    fn mixed_content_is_a_string_of_markup() {
        let mut b = Element::with_text("b", "you");
        b.attributes.push(Attribute {
            name: "class".into(),
            value: "x\"y".into(),
        });
        let e = el(
            "msg",
            vec![text("Hi <"), child(b), child(Element::new("br"))],
        );
        assert_eq!(
            value_from_element(&e),
            Value::String("Hi &lt;<b class=\"x&quot;y\">you</b><br/>".into())
        );
        let src = "<msg>Hi &#60;<b class='x&quot;y'>you</b><br/></msg>";
        let mut e = e;
        e.content_span = Some(5..src.len() - 6);
        assert_eq!(
            value_from_element_in(&e, Some(src)),
            Value::String("Hi &#60;<b class='x&quot;y'>you</b><br/>".into())
        );
    }

    #[test]
    fn a_bad_span_falls_back_to_canonical_markup() {
        let mut e = el("m", vec![text("a"), child(Element::new("b"))]);
        e.content_span = Some(3..1000);
        assert_eq!(inner_markup(&e, Some("short")), "a<b/>");
        e.content_span = Some(1..2);
        assert_eq!(inner_markup(&e, Some("é")), "a<b/>");
    }

    #[test]
    fn cdata_terminator_is_split_in_canonical_markup() {
        let e = el(
            "m",
            vec![Node::CData("a]]>b".into()), child(Element::new("c"))],
        );
        assert_eq!(inner_markup(&e, None), "<![CDATA[a]]]]><![CDATA[>b]]><c/>");
    }

    #[test]
    fn attributes_are_ignored() {
        let mut e = Element::with_text("path", "a.rs");
        e.attributes.push(Attribute {
            name: "kind".into(),
            value: "file".into(),
        });
        assert_eq!(value_from_element(&e), Value::String("a.rs".into()));
    }
}
