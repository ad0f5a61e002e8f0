//! The one definition of escaping, shared by every writer in the workspace.
//!
//! Writers differ only in *which* characters they escape: argument text needs `&`, `<`, `>`;
//! `<thread>` bodies (docs/FORMAT.md §8.2) escape all five predefined entities; attribute values also need tab,
//! LF and CR as character references, or attribute-value normalization turns them into spaces.
//! [`Escaper`] names those sets; the loop that applies them is written once.

use std::borrow::Cow;
use std::fmt;

/// A set of characters to escape, and how to treat characters XML 1.0 forbids.
///
/// ```
/// use xml_fallback::escape::Escaper;
/// assert_eq!(Escaper::TEXT.escape("a && b < c"), "a &amp;&amp; b &lt; c");
/// assert_eq!(Escaper::ALL_FIVE.escape(r#"{"k":'v'}"#), "{&quot;k&quot;:&apos;v&apos;}");
/// assert_eq!(Escaper::ATTRIBUTE.escape("a\tb"), "a&#9;b");
/// assert!(matches!(Escaper::TEXT.escape("plain"), std::borrow::Cow::Borrowed(_)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Escaper {
    quotes: bool,
    whitespace_refs: bool,
    replace_forbidden: bool,
}

impl Escaper {
    /// `&`, `<` and `>`: enough for element content (and `>` keeps `]]>` out of text).
    pub const TEXT: Escaper = Escaper {
        quotes: false,
        whitespace_refs: false,
        replace_forbidden: false,
    };
    /// All five predefined entities: `&`, `<`, `>`, `"`, `'`.
    pub const ALL_FIVE: Escaper = Escaper {
        quotes: true,
        whitespace_refs: false,
        replace_forbidden: false,
    };
    /// All five, plus tab, LF and CR as `&#9;`, `&#10;`, `&#13;`, so that they survive
    /// attribute-value normalization.
    pub const ATTRIBUTE: Escaper = Escaper {
        quotes: true,
        whitespace_refs: true,
        replace_forbidden: false,
    };

    /// The same set, but characters that XML 1.0 forbids (C0 controls other than tab, LF and
    /// CR; U+FFFE; U+FFFF) are replaced by a visible escape `\u{1b}` (Rust notation, lowercase
    /// hex), so the output is always well-formed. Without this they are written unchanged.
    ///
    /// ```
    /// use xml_fallback::escape::Escaper;
    /// let e = Escaper::ALL_FIVE.replacing_forbidden();
    /// assert_eq!(e.escape("\u{1b}[31mred\u{0}"), "\\u{1b}[31mred\\u{0}");
    /// ```
    pub const fn replacing_forbidden(self) -> Escaper {
        Escaper {
            replace_forbidden: true,
            ..self
        }
    }

    /// Escapes `s`, borrowing it when nothing needs escaping.
    pub fn escape<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let table = self.table();
        match s.bytes().position(|b| table[usize::from(b)]) {
            None => Cow::Borrowed(s),
            Some(first) => {
                let mut out = String::with_capacity(s.len() + s.len() / 8 + 8);
                out.push_str(&s[..first]);
                // Writing into a String cannot fail.
                let _ = self.write_from(&s[first..], &mut out);
                Cow::Owned(out)
            }
        }
    }

    /// Escapes `s` onto the end of `out`.
    pub fn escape_into(&self, s: &str, out: &mut String) {
        let _ = self.write_from(s, out);
    }

    /// Writes `s` escaped to any [`fmt::Write`], in runs of unescaped text.
    pub fn write<W: fmt::Write + ?Sized>(&self, s: &str, out: &mut W) -> fmt::Result {
        self.write_from(s, out)
    }

    fn write_from<W: fmt::Write + ?Sized>(&self, s: &str, out: &mut W) -> fmt::Result {
        let table = self.table();
        let bytes = s.as_bytes();
        let mut run_start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if !table[usize::from(b)] {
                i += 1;
                continue;
            }
            // 0xEF starts U+FFFE / U+FFFF (EF BF BE / EF BF BF) but also many allowed characters.
            let (replacement, len): (Replacement, usize) = match b {
                b'&' => (Replacement::Str("&amp;"), 1),
                b'<' => (Replacement::Str("&lt;"), 1),
                b'>' => (Replacement::Str("&gt;"), 1),
                b'"' => (Replacement::Str("&quot;"), 1),
                b'\'' => (Replacement::Str("&apos;"), 1),
                b'\t' => (Replacement::Str("&#9;"), 1),
                b'\n' => (Replacement::Str("&#10;"), 1),
                b'\r' => (Replacement::Str("&#13;"), 1),
                0xEF => match bytes.get(i + 1..i + 3) {
                    Some([0xBF, 0xBE]) => (Replacement::Forbidden(0xFFFE), 3),
                    Some([0xBF, 0xBF]) => (Replacement::Forbidden(0xFFFF), 3),
                    _ => {
                        i += 1;
                        continue;
                    }
                },
                _ => (Replacement::Forbidden(u32::from(b)), 1),
            };
            out.write_str(&s[run_start..i])?;
            match replacement {
                Replacement::Str(r) => out.write_str(r)?,
                Replacement::Forbidden(c) => write!(out, "\\u{{{c:x}}}")?,
            }
            i += len;
            run_start = i;
        }
        out.write_str(&s[run_start..])
    }

    fn table(&self) -> &'static [bool; 256] {
        let index = usize::from(self.quotes)
            | usize::from(self.whitespace_refs) << 1
            | usize::from(self.replace_forbidden) << 2;
        &TABLES[index]
    }
}

enum Replacement {
    Str(&'static str),
    Forbidden(u32),
}

/// Which bytes need attention, for each of the eight combinations of the three flags.
static TABLES: [[bool; 256]; 8] = {
    let mut tables = [[false; 256]; 8];
    let mut index = 0;
    while index < 8 {
        let t = &mut tables[index];
        t[b'&' as usize] = true;
        t[b'<' as usize] = true;
        t[b'>' as usize] = true;
        if index & 1 != 0 {
            t[b'"' as usize] = true;
            t[b'\'' as usize] = true;
        }
        if index & 2 != 0 {
            t[b'\t' as usize] = true;
            t[b'\n' as usize] = true;
            t[b'\r' as usize] = true;
        }
        if index & 4 != 0 {
            let mut b = 0;
            while b < 0x20 {
                if b != b'\t' as usize && b != b'\n' as usize && b != b'\r' as usize {
                    t[b] = true;
                }
                b += 1;
            }
            t[0xEF] = true;
        }
        index += 1;
    }
    tables
};

/// Escapes `&`, `<` and `>` ([`Escaper::TEXT`]).
///
/// ```
/// assert_eq!(xml_fallback::escape::escape_text("Vec<T> && x"), "Vec&lt;T&gt; &amp;&amp; x");
/// ```
pub fn escape_text(s: &str) -> Cow<'_, str> {
    Escaper::TEXT.escape(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_when_clean() {
        assert!(matches!(
            Escaper::ATTRIBUTE.escape("héllo wörld"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            Escaper::TEXT.escape("say \"hi\"\n"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn each_set_escapes_exactly_its_characters() {
        let s = "&<>\"'\t\n\r";
        assert_eq!(Escaper::TEXT.escape(s), "&amp;&lt;&gt;\"'\t\n\r");
        assert_eq!(
            Escaper::ALL_FIVE.escape(s),
            "&amp;&lt;&gt;&quot;&apos;\t\n\r"
        );
        assert_eq!(
            Escaper::ATTRIBUTE.escape(s),
            "&amp;&lt;&gt;&quot;&apos;&#9;&#10;&#13;"
        );
    }

    #[test]
    fn forbidden_characters_are_replaced_only_on_request() {
        let s = "a\u{0}b\u{1b}c\u{fffe}d\u{ffff}e\u{fffd}\u{e000}";
        assert_eq!(Escaper::TEXT.escape(s), s);
        assert_eq!(
            Escaper::TEXT.replacing_forbidden().escape(s),
            "a\\u{0}b\\u{1b}c\\u{fffe}d\\u{ffff}e\u{fffd}\u{e000}"
        );
    }

    #[test]
    fn cdata_terminator_cannot_survive_text_escaping() {
        assert_eq!(escape_text("a]]>b"), "a]]&gt;b");
    }
}
