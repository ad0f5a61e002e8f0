//! Typed decoding: a serde `Deserializer` over a [`tree::Element`](crate::tree), driven by the
//! target type, as `serde_json::from_value` is over a JSON value.
//!
//! The rules, one per shape of the target:
//!
//! - **Struct fields and map entries** are the child elements, by name, in the order of their
//!   first appearance. An attribute supplies a field when no child element has its name; a field
//!   renamed `@name` reads only the attribute `name`, and a field renamed `$text` reads the
//!   element's own text. Elements the type does not name are ignored (unless it denies unknown
//!   fields).
//! - **`String`** is [`element_value`] exactly: single-line text trimmed, multi-line text losing
//!   only its blank first and last lines, CDATA byte for byte. So `007` stays `007` and indented
//!   code keeps its indentation.
//! - **Numbers and `bool`** are parsed from the trimmed value; `bool` accepts `true`, `false`,
//!   `1`, `0`. A mismatch is an error naming the path (``edits[1].line: expected u32, found `x` ``).
//! - **`Option<T>`**: a missing element is `None`, a present one is `Some`, even when empty.
//! - **`Vec<T>`, tuples** are [`array_items`] over *all* siblings of the field's name, wherever
//!   they are (so repeated tags interleaved with other tags are one list), and a single wrapper
//!   `<edits><edit/>…</edits>` is unwrapped. A single *empty element*
//!   ([`is_empty_element`]: no attributes, no child elements, no CDATA, blank text; `<exclude/>`)
//!   is the empty list; `()` and unit variants need one too.
//! - **Enums**: a unit variant is named by the text (`<mode>fast</mode>`); a variant with data is
//!   an element holding one child element named after the variant.
//! - **`deserialize_any`** (untagged enums, `serde_json::Value`): an element with child elements
//!   or attributes is a map (its non-blank text, if any, under `$text`), any other element a
//!   string; several siblings of one name are a sequence.
//!
//! Errors carry the path of the value that failed: field names joined by `.`, sequence indices in
//! brackets, the root being the empty path.

use crate::text::{array_items, element_value, is_blank, is_empty_element, trim_xml};
use crate::tree::Element;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// Decodes `element` (its content, not its name) into a `T`.
///
/// ```
/// use xml_fallback::{parse_document, de::from_element};
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Edit { search: String, replace: String }
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Args { path: String, edits: Vec<Edit> }
///
/// let doc = parse_document("<arguments><path>a.rs</path><edits>\
///     <edit><search>x</search><replace>y</replace></edit>\
///     <edit><search>1</search><replace>2</replace></edit></edits></arguments>").unwrap();
/// let args: Args = from_element(&doc.value).unwrap();
/// assert_eq!(args.edits[1], Edit { search: "1".into(), replace: "2".into() });
/// ```
pub fn from_element<T: DeserializeOwned>(element: &Element) -> Result<T, DeError> {
    T::deserialize(ValueDe {
        src: Src::Element(element),
        path: &Path::Root,
    })
}

/// A typed-decoding failure, with the path of the value that failed.
///
/// ```
/// #[derive(serde::Deserialize, Debug)]
/// struct Edit { #[allow(dead_code)] line: u32 }
/// #[derive(serde::Deserialize, Debug)]
/// struct Args { #[allow(dead_code)] edits: Vec<Edit> }
///
/// let err = xml_fallback::from_str_with_fallback::<Args>(
///     "<a><edits><edit><line>1</line></edit><edit><line>x</line></edit></edits></a>",
/// ).unwrap_err();
/// assert_eq!(err.to_string(), "edits[1].line: expected u32, found `x`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeError {
    path: Option<String>,
    message: String,
}

impl DeError {
    /// The path of the value that failed (`edits[1].search`); empty for the root.
    pub fn path(&self) -> &str {
        self.path.as_deref().unwrap_or("")
    }

    /// What went wrong, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Records `path` unless a deeper one is already recorded.
    fn at(mut self, path: &Path<'_>) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_string());
        }
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path.as_deref() {
            Some(path) if !path.is_empty() => write!(f, "{path}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        DeError {
            path: None,
            message: msg.to_string(),
        }
    }
}

/// Where a value sits, as a linked list up to the root (no allocation until an error).
#[derive(Debug, Clone, Copy)]
enum Path<'p> {
    Root,
    Field(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Field(Path::Root, name) => f.write_str(name),
            Path::Field(parent, name) => write!(f, "{parent}.{name}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// What a deserializer reads from.
#[derive(Debug, Clone)]
enum Src<'de, 'a> {
    /// One element.
    Element(&'de Element),
    /// All the sibling elements that carry one field name (at least one).
    Group(&'a [&'de Element]),
    /// A string: an attribute value or an element's text.
    Str(Cow<'de, str>),
}

/// The deserializer for one value.
struct ValueDe<'de, 'a> {
    src: Src<'de, 'a>,
    path: &'a Path<'a>,
}

/// What a single value looks like, once a group of one is unwrapped.
enum One<'de> {
    Element(&'de Element),
    Str(Cow<'de, str>),
}

impl<'de> ValueDe<'de, '_> {
    fn error(&self, message: impl fmt::Display) -> DeError {
        <DeError as de::Error>::custom(message).at(self.path)
    }

    /// The single element or string this value stands for; several siblings are an error.
    fn one(&self) -> Result<One<'de>, DeError> {
        match &self.src {
            Src::Element(e) => Ok(One::Element(e)),
            Src::Group([e]) => Ok(One::Element(e)),
            Src::Group(many) => Err(self.error(format_args!(
                "expected one `{}` element, found {}",
                many.first().map_or("", |e| e.name.as_str()),
                many.len()
            ))),
            Src::Str(s) => Ok(One::Str(s.clone())),
        }
    }

    /// The value text ([`element_value`] for an element).
    fn text(&self) -> Result<Cow<'de, str>, DeError> {
        Ok(match self.one()? {
            One::Element(e) => element_value(e),
            One::Str(s) => s,
        })
    }

    /// Parses the trimmed text as a `T`, naming `what` on failure.
    fn parse<T: std::str::FromStr>(&self, what: &str) -> Result<T, DeError> {
        let text = self.text()?;
        let trimmed = trim_xml(&text);
        trimmed
            .parse()
            .map_err(|_| self.error(format_args!("expected {what}, found `{trimmed}`")))
    }

    fn visit_text<V: Visitor<'de>>(&self, visitor: V) -> Result<V::Value, DeError> {
        match self.text()? {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_string(s),
        }
    }

    /// The items of a sequence.
    fn items(&self) -> Result<Vec<Src<'de, 'de>>, DeError> {
        let siblings: &[&'de Element] = match &self.src {
            Src::Element(e) => std::slice::from_ref(e),
            Src::Group(g) => g,
            Src::Str(s) => return Ok(vec![Src::Str(s.clone())]),
        };
        if let [single] = siblings
            && is_empty_element(single)
        {
            return Ok(Vec::new());
        }
        Ok(array_items(siblings)
            .into_iter()
            .map(Src::Element)
            .collect())
    }

    fn map_access(
        &self,
        fields: Option<&'static [&'static str]>,
        with_text: bool,
    ) -> Result<ElementMap<'de>, DeError> {
        match self.one()? {
            One::Element(e) => Ok(ElementMap::new(e, fields, with_text)),
            One::Str(s) if is_blank(&s) => Ok(ElementMap::default()),
            One::Str(s) => Err(self.error(format_args!("expected elements, found the text `{s}`"))),
        }
    }

    fn visit_map_with<V: Visitor<'de>>(
        self,
        fields: Option<&'static [&'static str]>,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let map = self.map_access(fields, false)?;
        visitor.visit_map(MapDe {
            map,
            next: 0,
            path: self.path,
        })
    }
}

macro_rules! parse_number {
    ($($method:ident => $visit:ident: $ty:ty),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            let n: $ty = self.parse(stringify!($ty))?;
            visitor.$visit(n).map_err(|e: DeError| e.at(self.path))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for ValueDe<'de, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let path = self.path;
        let result = match &self.src {
            Src::Group(many) if many.len() > 1 => self.deserialize_seq(visitor),
            _ => match self.one()? {
                One::Element(e) if e.has_child_elements() || !e.attributes.is_empty() => {
                    let map = self.map_access(None, true)?;
                    visitor.visit_map(MapDe { map, next: 0, path })
                }
                _ => self.visit_text(visitor),
            },
        };
        result.map_err(|e: DeError| e.at(path))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let text = self.text()?;
        let b = match trim_xml(&text) {
            "true" | "1" => true,
            "false" | "0" => false,
            other => {
                return Err(self.error(format_args!(
                    "expected a boolean (true, false, 1, 0), found `{other}`"
                )));
            }
        };
        visitor.visit_bool(b).map_err(|e: DeError| e.at(self.path))
    }

    parse_number! {
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
        deserialize_f32 => visit_f32: f32,
        deserialize_f64 => visit_f64: f64,
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let text = self.text()?;
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => visitor.visit_char(c).map_err(|e: DeError| e.at(self.path)),
            _ => Err(self.error(format_args!("expected one character, found `{text}`"))),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.visit_text(visitor)
            .map_err(|e: DeError| e.at(self.path))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let result = match self.text()? {
            Cow::Borrowed(s) => visitor.visit_borrowed_bytes(s.as_bytes()),
            Cow::Owned(s) => visitor.visit_byte_buf(s.into_bytes()),
        };
        result.map_err(|e: DeError| e.at(self.path))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let path = self.path;
        visitor.visit_some(self).map_err(|e: DeError| e.at(path))
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let empty = match self.one()? {
            One::Element(e) => is_empty_element(e),
            One::Str(s) => is_blank(&s),
        };
        if !empty {
            return Err(self.error("expected an empty element"));
        }
        visitor.visit_unit().map_err(|e: DeError| e.at(self.path))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let path = self.path;
        visitor
            .visit_newtype_struct(self)
            .map_err(|e: DeError| e.at(path))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let items = self.items()?;
        let len = items.len();
        let mut seq = SeqDe {
            items: items.into_iter(),
            index: 0,
            path: self.path,
        };
        let value = visitor
            .visit_seq(&mut seq)
            .map_err(|e: DeError| e.at(self.path))?;
        if seq.items.len() > 0 {
            return Err(self.error(format_args!("expected {} items, found {len}", seq.index)));
        }
        Ok(value)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let path = self.path;
        self.visit_map_with(None, visitor)
            .map_err(|e: DeError| e.at(path))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let path = self.path;
        self.visit_map_with(Some(fields), visitor)
            .map_err(|e: DeError| e.at(path))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let access = match self.one()? {
            One::Element(e) if e.has_child_elements() => {
                let mut children = e.child_elements();
                match (children.next(), children.next()) {
                    (Some(child), None) => EnumDe {
                        variant: Cow::Borrowed(child.name.as_str()),
                        content: Some(child),
                        path: self.path,
                    },
                    _ => {
                        return Err(self.error(
                            "expected the variant's name as text, or one child element named after it",
                        ));
                    }
                }
            }
            One::Element(e) => EnumDe {
                variant: trimmed_cow(element_value(e)),
                content: None,
                path: self.path,
            },
            One::Str(s) => EnumDe {
                variant: trimmed_cow(s),
                content: None,
                path: self.path,
            },
        };
        visitor
            .visit_enum(access)
            .map_err(|e: DeError| e.at(self.path))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
}

/// `s` without surrounding XML whitespace, borrowing where `s` did.
fn trimmed_cow(s: Cow<'_, str>) -> Cow<'_, str> {
    match s {
        Cow::Borrowed(b) => Cow::Borrowed(trim_xml(b)),
        Cow::Owned(o) => Cow::Owned(trim_xml(&o).to_owned()),
    }
}

/// The entries of an element read as a map: groups of same-name children, then attributes.
#[derive(Default)]
struct ElementMap<'de> {
    entries: Vec<(Cow<'de, str>, Entry<'de>)>,
}

enum Entry<'de> {
    Elements(Vec<&'de Element>),
    Str(Cow<'de, str>),
}

impl<'de> ElementMap<'de> {
    fn new(e: &'de Element, fields: Option<&[&str]>, with_text: bool) -> Self {
        let mut entries: Vec<(Cow<'de, str>, Entry<'de>)> = Vec::new();
        let mut index: HashMap<&'de str, usize> = HashMap::new();
        for child in e.child_elements() {
            match index.get(child.name.as_str()) {
                Some(&i) => {
                    if let Entry::Elements(group) = &mut entries[i].1 {
                        group.push(child);
                    }
                }
                None => {
                    index.insert(child.name.as_str(), entries.len());
                    entries.push((
                        Cow::Borrowed(child.name.as_str()),
                        Entry::Elements(vec![child]),
                    ));
                }
            }
        }
        let wants = |name: &str| fields.is_some_and(|f| f.contains(&name));
        for attribute in &e.attributes {
            if !index.contains_key(attribute.name.as_str()) {
                entries.push((
                    Cow::Borrowed(attribute.name.as_str()),
                    Entry::Str(Cow::Borrowed(attribute.value.as_str())),
                ));
            }
            let at_name = format!("@{}", attribute.name);
            if wants(&at_name) {
                entries.push((
                    Cow::Owned(at_name),
                    Entry::Str(Cow::Borrowed(attribute.value.as_str())),
                ));
            }
        }
        if wants("$text") {
            entries.push((Cow::Borrowed("$text"), Entry::Str(element_value(e))));
        } else if with_text && !index.contains_key("$text") {
            let text = element_value(e);
            if !is_blank(&text) {
                entries.push((Cow::Borrowed("$text"), Entry::Str(text)));
            }
        }
        ElementMap { entries }
    }
}

struct MapDe<'de, 'a> {
    map: ElementMap<'de>,
    next: usize,
    path: &'a Path<'a>,
}

impl<'de> MapAccess<'de> for MapDe<'de, '_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((key, _)) = self.map.entries.get(self.next) else {
            return Ok(None);
        };
        let key: de::value::CowStrDeserializer<'_, DeError> = key.clone().into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let i = self.next;
        self.next += 1;
        let Some((key, entry)) = self.map.entries.get(i) else {
            return Err(de::Error::custom("value requested after the last key"));
        };
        let path = Path::Field(self.path, key);
        let src = match entry {
            Entry::Elements(group) => Src::Group(group),
            Entry::Str(s) => Src::Str(s.clone()),
        };
        seed.deserialize(ValueDe { src, path: &path })
            .map_err(|e: DeError| e.at(&path))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.map.entries.len().saturating_sub(self.next))
    }
}

struct SeqDe<'de, 'a> {
    items: std::vec::IntoIter<Src<'de, 'de>>,
    index: usize,
    path: &'a Path<'a>,
}

impl<'de> SeqAccess<'de> for SeqDe<'de, '_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(src) = self.items.next() else {
            return Ok(None);
        };
        let path = Path::Index(self.path, self.index);
        self.index += 1;
        seed.deserialize(ValueDe { src, path: &path })
            .map(Some)
            .map_err(|e: DeError| e.at(&path))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct EnumDe<'de, 'a> {
    variant: Cow<'de, str>,
    content: Option<&'de Element>,
    path: &'a Path<'a>,
}

impl<'de, 'a> EnumAccess<'de> for EnumDe<'de, 'a> {
    type Error = DeError;
    type Variant = VariantDe<'de, 'a>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), DeError> {
        let key: de::value::CowStrDeserializer<'_, DeError> = self.variant.into_deserializer();
        let value = seed
            .deserialize(key)
            .map_err(|e: DeError| e.at(self.path))?;
        Ok((
            value,
            VariantDe {
                content: self.content,
                path: self.path,
            },
        ))
    }
}

struct VariantDe<'de, 'a> {
    content: Option<&'de Element>,
    path: &'a Path<'a>,
}

impl<'de> VariantDe<'de, '_> {
    fn content(&self, expected: &str) -> Result<&'de Element, DeError> {
        self.content.ok_or_else(|| {
            de::Error::custom(format_args!(
                "expected {expected}, found a unit variant (text only)"
            ))
        })
    }
}

impl<'de> VariantAccess<'de> for VariantDe<'de, '_> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        match self.content {
            Some(e) if !is_empty_element(e) => Err(de::Error::custom(format_args!(
                "the unit variant `{}` has content",
                e.name
            ))),
            _ => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        let e = self.content("a variant holding a value")?;
        seed.deserialize(ValueDe {
            src: Src::Element(e),
            path: self.path,
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DeError> {
        let e = self.content("a tuple variant")?;
        de::Deserializer::deserialize_seq(
            ValueDe {
                src: Src::Element(e),
                path: self.path,
            },
            visitor,
        )
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let e = self.content("a struct variant")?;
        de::Deserializer::deserialize_struct(
            ValueDe {
                src: Src::Element(e),
                path: self.path,
            },
            "",
            fields,
            visitor,
        )
    }
}
