//! The ampersand repair (docs/FORMAT.md §4): bare `&` becomes `&amp;`.
//!
//! An `&` is kept when it begins `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#DIGITS;` or
//! `&#xHEX;` (the rule of [`crate::reference`], the one definition shared with the tool-call
//! parser); every other `&` is bare. An `&` whose reference is cut off by the end of the input
//! (`&am`) is bare too: nothing can complete it.
//!
//! The scan is one pass: `memchr` finds each `&`, [`match_reference`] decides it, and the text
//! between is copied in runs. Input without a bare `&` is returned borrowed.
//!
//! Two forms exist:
//!
//! - [`escape_unescaped_ampersands`] is the original fallback's `escapeUnescapedAmpersands`:
//!   context-free, every bare `&` anywhere. Its tests check it against that fallback's regular
//!   expression, quoted in docs/FORMAT.md §4.
//! - [`escape_bare_ampersands_in_document`] is what [`crate::parse_document`] applies before its
//!   retry: the same rule, but CDATA sections, comments and processing instructions are left
//!   alone, because an `&` there is already literal and escaping it would change the content
//!   (`<![CDATA[a && b]]>` must stay `a && b`). It also reports where each repair was made.

use crate::reference::{RefMatch, match_reference};
use std::borrow::Cow;

/// Whether the `&` at the start of `rest` is bare (not the start of a valid reference).
fn is_bare(rest: &[u8]) -> bool {
    !matches!(match_reference(rest), RefMatch::Valid { .. })
}

/// Replaces every bare `&` in `s` with `&amp;`, returning `s` borrowed when there is none.
///
/// ```
/// use std::borrow::Cow;
/// use xml_fallback::escape_unescaped_ampersands;
///
/// assert_eq!(escape_unescaped_ampersands("func.*&&.*return"), "func.*&amp;&amp;.*return");
/// assert_eq!(escape_unescaped_ampersands("?a=1&b=2"), "?a=1&amp;b=2");
/// assert_eq!(escape_unescaped_ampersands("&amp; &lt; &#60; &#x3C;"), "&amp; &lt; &#60; &#x3C;");
/// assert!(matches!(escape_unescaped_ampersands("&amp; already"), Cow::Borrowed(_)));
/// ```
pub fn escape_unescaped_ampersands(s: &str) -> Cow<'_, str> {
    let bytes = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    for i in memchr::memchr_iter(b'&', bytes) {
        if is_bare(&bytes[i..]) {
            let out = out.get_or_insert_with(|| String::with_capacity(s.len() + s.len() / 16 + 8));
            // `i` is the index of an ASCII byte, so both slices end on character boundaries.
            out.push_str(&s[copied..=i]);
            out.push_str("amp;");
            copied = i + 1;
        }
    }
    match out {
        None => Cow::Borrowed(s),
        Some(mut out) => {
            out.push_str(&s[copied..]);
            Cow::Owned(out)
        }
    }
}

/// The result of [`escape_bare_ampersands_in_document`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escaped<'a> {
    /// The text with each bare `&` replaced by `&amp;`; borrowed when nothing changed.
    pub text: Cow<'a, str>,
    /// The byte offset in the *input* of each `&` that was escaped, in increasing order.
    pub offsets: Vec<usize>,
}

/// Replaces every bare `&` with `&amp;`, except inside CDATA sections, comments and processing
/// instructions, and says where it did so.
///
/// A section that is never closed runs to the end of the input (the document is broken anyway;
/// its `&` are left alone).
///
/// ```
/// use xml_fallback::ampersand::escape_bare_ampersands_in_document;
///
/// let doc = "<a><p>x && y</p><c><![CDATA[a && b]]></c></a>";
/// let escaped = escape_bare_ampersands_in_document(doc);
/// assert_eq!(escaped.text, "<a><p>x &amp;&amp; y</p><c><![CDATA[a && b]]></c></a>");
/// assert_eq!(escaped.offsets, vec![8, 9]);
/// ```
pub fn escape_bare_ampersands_in_document(s: &str) -> Escaped<'_> {
    let bytes = s.as_bytes();
    let mut offsets = Vec::new();
    let mut i = 0;
    while let Some(found) = memchr::memchr2(b'&', b'<', &bytes[i..]) {
        let at = i + found;
        if bytes[at] == b'&' {
            if is_bare(&bytes[at..]) {
                offsets.push(at);
            }
            i = at + 1;
        } else {
            i = skip_literal_section(bytes, at);
        }
    }
    let text = if offsets.is_empty() {
        Cow::Borrowed(s)
    } else {
        let mut out = String::with_capacity(s.len() + 4 * offsets.len());
        let mut copied = 0;
        for &at in &offsets {
            out.push_str(&s[copied..=at]);
            out.push_str("amp;");
            copied = at + 1;
        }
        out.push_str(&s[copied..]);
        Cow::Owned(out)
    };
    Escaped { text, offsets }
}

/// Given a `<` at `at`, the offset just past the CDATA section, comment or processing
/// instruction it opens, or `at + 1` when it opens none of these.
fn skip_literal_section(bytes: &[u8], at: usize) -> usize {
    let rest = &bytes[at..];
    let (open, close): (&[u8], &[u8]) = if rest.starts_with(b"<![CDATA[") {
        (b"<![CDATA[", b"]]>")
    } else if rest.starts_with(b"<!--") {
        (b"<!--", b"-->")
    } else if rest.starts_with(b"<?") {
        (b"<?", b"?>")
    } else {
        return at + 1;
    };
    let body = at + open.len();
    match memchr::memmem::find(&bytes[body..], close) {
        Some(end) => body + end + close.len(),
        None => bytes.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_when_nothing_is_bare() {
        for s in [
            "",
            "plain",
            "&amp;&lt;&gt;&quot;&apos;&#1;&#x1F600;",
            "é → ü",
        ] {
            assert!(
                matches!(escape_unescaped_ampersands(s), Cow::Borrowed(b) if b == s),
                "{s:?}"
            );
            let e = escape_bare_ampersands_in_document(s);
            assert!(matches!(e.text, Cow::Borrowed(_)) && e.offsets.is_empty());
        }
    }

    #[test]
    fn ampersand_cut_off_by_the_end_is_bare() {
        assert_eq!(escape_unescaped_ampersands("a &am"), "a &amp;am");
        assert_eq!(escape_unescaped_ampersands("&"), "&amp;");
        assert_eq!(escape_unescaped_ampersands("&#12"), "&amp;#12");
    }

    #[test]
    fn ampersand_at_start_and_end() {
        assert_eq!(
            escape_unescaped_ampersands("&start end&"),
            "&amp;start end&amp;"
        );
    }

    #[test]
    fn document_form_skips_cdata_comments_and_pis() {
        let doc = "<a x='&'><!-- && --><?pi & ?><![CDATA[&&]]>&</a>";
        let e = escape_bare_ampersands_in_document(doc);
        assert_eq!(
            e.text,
            "<a x='&amp;'><!-- && --><?pi & ?><![CDATA[&&]]>&amp;</a>"
        );
        assert_eq!(e.offsets, vec![6, doc.rfind('&').unwrap()]);
    }

    #[test]
    fn document_form_with_unclosed_sections_leaves_the_rest() {
        let e = escape_bare_ampersands_in_document("& <![CDATA[ & ");
        assert_eq!(e.text, "&amp; <![CDATA[ & ");
        let e = escape_bare_ampersands_in_document("<!-- & --");
        assert!(e.offsets.is_empty());
        let e = escape_bare_ampersands_in_document("<");
        assert!(e.offsets.is_empty());
    }

    #[test]
    fn document_form_equals_plain_form_without_markup() {
        let s = "x && y &amp; ?a=1&b=2 &#60; &#x3C; &nbsp; &";
        let e = escape_bare_ampersands_in_document(s);
        assert_eq!(e.text, escape_unescaped_ampersands(s));
        assert_eq!(e.offsets.len(), 5);
    }
}
