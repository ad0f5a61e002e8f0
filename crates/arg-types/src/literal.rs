//! JSON text and Python literals read into [`Value`]s, exactly and within bounds.
//!
//! Models that write each argument as raw text ([`crate::raw`]) give objects and arrays as JSON
//! or, as often, as Python literals (`{'k': 'v'}`, `[True, None]`). Both readers here:
//!
//! - keep numbers exact: integers of any size as [`Value::Int`] or [`Value::BigInt`] (every
//!   digit), other numbers as the nearest `f64`; a number too large for `f64` (`1e999`) is an
//!   error;
//! - nest at most [`MAX_DEPTH`] arrays and objects (deeper is an error, never a stack overflow:
//!   the readers are iterative), take time linear in the text and memory linear in the value;
//! - keep object members in order; a key given twice keeps its first position and its last
//!   value.
//!
//! [`parse_json`] is strict RFC 8259 JSON. [`parse_python`] reads what Python's
//! `ast.literal_eval` reads of these shapes, plus two leniencies for model output:
//!
//! | Python literal | value |
//! | --- | --- |
//! | `{'k': v, "k2": v}` (keys are strings; a trailing comma allowed) | object |
//! | `[a, b]`, and tuples `(a, b)`, `(a,)`, `()` (a trailing comma allowed) | array |
//! | `(a)` | `a` (parentheses only group, as in Python) |
//! | `'text'`, `"text"`: escapes `\\ \' \" \n \r \t \a \b \f \v \0`–`\777` (octal) `\xhh` `\uhhhh` `\Uhhhhhhhh`, backslash-newline (dropped); an unknown escape keeps its backslash | string |
//! | `42`, `-7`, `+7`, `1_000`, `0`, `00` (decimal only; `007` is an error, as in Python) | integer |
//! | `1.5`, `.5`, `5.`, `1e3`, `1_0.5` | float |
//! | `True`, `False`, `None` — and, leniently, JSON's `true`, `false`, `null` | boolean, null |
//! | a line break or tab inside a quoted string (Python forbids it; models write it) | kept |
//!
//! Not read (an error): sets, bytes and prefixed strings (`b''`, `r''`, `f''`), triple quotes,
//! implicit concatenation (`'a' 'b'`), non-string keys (`{1: 'a'}`), `0x10`, complex numbers,
//! names and expressions.
//!
//! ```
//! use arg_types::literal::{parse_json, parse_python};
//! use arg_types::Value;
//! let v = parse_python("{'done': True, 'ids': (1, 2), 'note': None}").unwrap();
//! assert_eq!(v.to_string(), r#"{"done":true,"ids":[1,2],"note":null}"#);
//! let big = parse_json("[123456789012345678901234567890, 0.1]").unwrap();
//! assert_eq!(big.to_string(), "[123456789012345678901234567890,0.1]");
//! assert!(parse_json("{'k': 1}").is_err());
//! assert!(parse_json(&"[".repeat(129)).is_err());
//! ```

use crate::{Map, Value};
use std::fmt;

/// How deeply arrays and objects may nest in one literal.
pub const MAX_DEPTH: usize = 128;

/// Why a text is not a literal of the kind asked for, and where.
///
/// ```
/// let e = arg_types::literal::parse_json("[1, 2").unwrap_err();
/// assert_eq!(e.offset, 5);
/// assert_eq!(e.to_string(), "at byte 5: expected `,` or `]`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LiteralError {
    /// The byte offset in the text where reading failed.
    pub offset: usize,
    /// What was expected or found there.
    pub message: &'static str,
}

impl fmt::Display for LiteralError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for LiteralError {}

/// Reads strict JSON text (RFC 8259; whitespace around the value allowed) into a [`Value`],
/// keeping every digit of integers.
///
/// ```
/// use arg_types::{literal::parse_json, Value};
/// assert_eq!(parse_json(" [1, 2.5, \"\\u00e9\", null] ").unwrap().to_string(), r#"[1,2.5,"é",null]"#);
/// assert_eq!(parse_json("18446744073709551616").unwrap().to_string(), "18446744073709551616");
/// assert!(parse_json("[1,]").is_err());
/// assert!(parse_json("True").is_err());
/// ```
pub fn parse_json(text: &str) -> Result<Value, LiteralError> {
    Reader::new(text, Dialect::Json).read()
}

/// Reads a Python literal (see the [module](self) for what is read) into a [`Value`].
///
/// ```
/// use arg_types::{literal::parse_python, Value};
/// assert_eq!(parse_python("['a', \"b\", 1_000, -2.5]").unwrap().to_string(), r#"["a","b",1000,-2.5]"#);
/// assert_eq!(parse_python("('x',)").unwrap(), Value::Array(vec!["x".into()]));
/// assert_eq!(parse_python("'caf\\xe9\\n'").unwrap(), Value::String("café\n".into()));
/// assert!(parse_python("{1: 'a'}").is_err());
/// ```
pub fn parse_python(text: &str) -> Result<Value, LiteralError> {
    Reader::new(text, Dialect::Python).read()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Json,
    Python,
}

/// An array or object being read.
enum Frame {
    Array {
        items: Vec<Value>,
        /// `]`, or `)` for a Python tuple.
        close: u8,
        /// Whether a comma was read (a tuple of one item needs one; else `(a)` is `a`).
        comma: bool,
    },
    Object {
        members: Map,
        key: String,
    },
}

struct Reader<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    dialect: Dialect,
}

type Result<T, E = LiteralError> = std::result::Result<T, E>;

impl<'a> Reader<'a> {
    fn new(text: &'a str, dialect: Dialect) -> Self {
        Reader {
            text,
            b: text.as_bytes(),
            pos: 0,
            dialect,
        }
    }

    fn error<T>(&self, message: &'static str) -> Result<T> {
        Err(LiteralError {
            offset: self.pos,
            message,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            let ws = match self.dialect {
                Dialect::Json => matches!(c, b' ' | b'\t' | b'\n' | b'\r'),
                Dialect::Python => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c'),
            };
            if !ws {
                break;
            }
            self.pos += 1;
        }
    }

    fn python(&self) -> bool {
        self.dialect == Dialect::Python
    }

    /// The whole text as one value.
    fn read(mut self) -> Result<Value> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            // A value is expected here.
            self.skip_ws();
            let mut v = match self.peek() {
                Some(open @ (b'[' | b'(' | b'{')) => {
                    if open == b'(' && !self.python() {
                        return self.error("expected a value");
                    }
                    if stack.len() >= MAX_DEPTH {
                        return self.error("nested too deeply");
                    }
                    self.pos += 1;
                    self.skip_ws();
                    if open == b'{' {
                        if self.peek() == Some(b'}') {
                            self.pos += 1;
                            Value::Object(Map::new())
                        } else {
                            let key = self.key()?;
                            stack.push(Frame::Object {
                                members: Map::new(),
                                key,
                            });
                            continue 'value;
                        }
                    } else {
                        let close = if open == b'[' { b']' } else { b')' };
                        if self.peek() == Some(close) {
                            self.pos += 1;
                            Value::Array(Vec::new())
                        } else {
                            stack.push(Frame::Array {
                                items: Vec::new(),
                                close,
                                comma: false,
                            });
                            continue 'value;
                        }
                    }
                }
                Some(b'"') => Value::String(self.string(b'"')?),
                Some(b'\'') if self.python() => Value::String(self.string(b'\'')?),
                Some(b'0'..=b'9' | b'-') => self.number()?,
                Some(b'+' | b'.') if self.python() => self.number()?,
                Some(_) => self.keyword()?,
                None => return self.error("expected a value"),
            };
            // A value is complete: hand it to the array or object it is in, closing those that
            // end here.
            loop {
                self.skip_ws();
                let Some(frame) = stack.last_mut() else {
                    if self.pos != self.b.len() {
                        return self.error("expected the end of the text");
                    }
                    return Ok(v);
                };
                match frame {
                    Frame::Array {
                        items,
                        close,
                        comma,
                    } => {
                        items.push(v);
                        let close = *close;
                        match self.peek() {
                            Some(b',') => {
                                *comma = true;
                                self.pos += 1;
                                self.skip_ws();
                                if !(self.python() && self.peek() == Some(close)) {
                                    continue 'value;
                                }
                                self.pos += 1;
                            }
                            Some(c) if c == close => self.pos += 1,
                            _ => {
                                return self.error(if close == b']' {
                                    "expected `,` or `]`"
                                } else {
                                    "expected `,` or `)`"
                                });
                            }
                        }
                    }
                    Frame::Object { members, key } => {
                        members.insert(std::mem::take(key), v);
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                if !(self.python() && self.peek() == Some(b'}')) {
                                    *key = self.key()?;
                                    continue 'value;
                                }
                                self.pos += 1;
                            }
                            Some(b'}') => self.pos += 1,
                            _ => return self.error("expected `,` or `}`"),
                        }
                    }
                }
                // The innermost array or object is closed: it is the value now.
                v = match stack.pop() {
                    Some(Frame::Array {
                        mut items,
                        close: b')',
                        comma: false,
                    }) if items.len() == 1 => items.pop().unwrap_or_default(),
                    Some(Frame::Array { items, .. }) => Value::Array(items),
                    Some(Frame::Object { members, .. }) => Value::Object(members),
                    None => return self.error("expected a value"),
                };
            }
        }
    }

    /// A member's key and the `:` after it.
    fn key(&mut self) -> Result<String> {
        let key = match self.peek() {
            Some(b'"') => self.string(b'"')?,
            Some(b'\'') if self.python() => self.string(b'\'')?,
            _ => return self.error("expected a string key"),
        };
        self.skip_ws();
        if self.peek() != Some(b':') {
            return self.error("expected `:`");
        }
        self.pos += 1;
        Ok(key)
    }

    /// `true`, `false`, `null`, and for Python `True`, `False`, `None`.
    fn keyword(&mut self) -> Result<Value> {
        let rest = &self.b[self.pos..];
        let words: &[(&[u8], Value)] = &[
            (b"true", Value::Bool(true)),
            (b"false", Value::Bool(false)),
            (b"null", Value::Null),
        ];
        let python: &[(&[u8], Value)] = &[
            (b"True", Value::Bool(true)),
            (b"False", Value::Bool(false)),
            (b"None", Value::Null),
        ];
        let extra = if self.python() { python } else { &[] };
        for (word, value) in words.iter().chain(extra) {
            if rest.starts_with(word)
                && !rest
                    .get(word.len())
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            {
                self.pos += word.len();
                return Ok(value.clone());
            }
        }
        self.error("expected a value")
    }

    /// A number, in the dialect's syntax.
    fn number(&mut self) -> Result<Value> {
        let start = self.pos;
        let python = self.python();
        let digits = |r: &mut Self| -> usize {
            // Digits, with single `_` between digits in Python.
            let from = r.pos;
            while let Some(c) = r.peek() {
                let separator = python
                    && c == b'_'
                    && r.pos > from
                    && r.b.get(r.pos + 1).is_some_and(u8::is_ascii_digit);
                if !(c.is_ascii_digit() || separator) {
                    break;
                }
                r.pos += 1;
            }
            r.pos - from
        };
        if matches!(self.peek(), Some(b'-')) || (python && self.peek() == Some(b'+')) {
            self.pos += 1;
        }
        let int_start = self.pos;
        let int_len = digits(self);
        let int = &self.text[int_start..self.pos];
        let mut float = false;
        let mut frac_len = 0;
        if self.peek() == Some(b'.') {
            float = true;
            self.pos += 1;
            frac_len = digits(self);
            if !python && frac_len == 0 {
                return self.error("expected digits after `.`");
            }
        }
        if int_len + frac_len == 0 {
            return self.error("expected a number");
        }
        if !python && int_len == 0 {
            return self.error("expected a digit");
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            float = true;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            let exp_start = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
            if self.pos == exp_start {
                return self.error("expected digits in the exponent");
            }
        }
        let leading_zero = int.len() > 1 && int.starts_with('0');
        if leading_zero && (!python || (!float && int.bytes().any(|c| c != b'0' && c != b'_'))) {
            self.pos = int_start;
            return self.error("a number cannot start with 0");
        }
        let written = &self.text[start..self.pos];
        let plain: std::borrow::Cow<'_, str> = if written.contains('_') {
            written.replace('_', "").into()
        } else {
            written.into()
        };
        if float {
            match plain.parse::<f64>() {
                Ok(f) if f.is_finite() => Ok(Value::Float(f)),
                _ => {
                    self.pos = start;
                    self.error("number out of range")
                }
            }
        } else {
            match Value::parse_integer(&plain) {
                Some(v) => Ok(v),
                None => self.error("expected a number"),
            }
        }
    }

    /// A quoted string; the reader stands on its opening quote.
    fn string(&mut self, quote: u8) -> Result<String> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            // Copy the run up to the next quote, backslash or control character at once.
            let run_start = self.pos;
            while let Some(c) = self.peek() {
                if c == quote || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                None => return self.error("unterminated string"),
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(c) => {
                    // A control character: JSON forbids them raw; Python mode keeps line breaks
                    // and tabs (see the module's table).
                    if self.python() && matches!(c, b'\n' | b'\r' | b'\t') {
                        out.push(char::from(c));
                        self.pos += 1;
                    } else {
                        return self.error("control character in a string");
                    }
                }
            }
        }
    }

    /// One escape, after its backslash.
    fn escape(&mut self, out: &mut String) -> Result<()> {
        let Some(c) = self.peek() else {
            return self.error("unterminated string");
        };
        self.pos += 1;
        let simple = match c {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'/' if !self.python() => Some('/'),
            b'\'' if self.python() => Some('\''),
            b'a' if self.python() => Some('\u{7}'),
            b'v' if self.python() => Some('\u{b}'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            return Ok(());
        }
        match (c, self.dialect) {
            (b'u', Dialect::Json) => {
                let first = self.hex(4)?;
                let ch = if (0xD800..0xDC00).contains(&first) {
                    if !self.b[self.pos..].starts_with(b"\\u") {
                        return self.error("lone surrogate in a string");
                    }
                    self.pos += 2;
                    let second = self.hex(4)?;
                    if !(0xDC00..0xE000).contains(&second) {
                        return self.error("lone surrogate in a string");
                    }
                    char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
                } else {
                    char::from_u32(first)
                };
                match ch {
                    Some(ch) => out.push(ch),
                    None => return self.error("lone surrogate in a string"),
                }
            }
            (b'u' | b'U' | b'x', Dialect::Python) => {
                let n = match c {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let code = self.hex(n)?;
                match char::from_u32(code) {
                    Some(ch) => out.push(ch),
                    None => return self.error("escape is not a character"),
                }
            }
            (b'0'..=b'7', Dialect::Python) => {
                let mut code = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            code = code * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                // At most 0o777, always a character.
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            (b'\n', Dialect::Python) => {}
            (b'\r', Dialect::Python) => {
                if self.peek() == Some(b'\n') {
                    self.pos += 1;
                }
            }
            (_, Dialect::Python) => {
                // An unknown escape keeps its backslash, as Python does; the character after it
                // is read again as ordinary text.
                out.push('\\');
                self.pos -= 1;
            }
            (_, Dialect::Json) => {
                self.pos -= 1;
                return self.error("unknown escape");
            }
        }
        Ok(())
    }

    /// `n` hexadecimal digits.
    fn hex(&mut self, n: usize) -> Result<u32> {
        let Some(digits) = self.b.get(self.pos..self.pos + n) else {
            return self.error("expected hexadecimal digits");
        };
        let mut code = 0u32;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return self.error("expected hexadecimal digits"),
            };
            code = code * 16 + u32::from(v);
        }
        self.pos += n;
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(t: &str) -> String {
        parse_json(t)
            .unwrap_or_else(|e| panic!("{t}: {e}"))
            .to_string()
    }

    fn py(t: &str) -> String {
        parse_python(t)
            .unwrap_or_else(|e| panic!("{t}: {e}"))
            .to_string()
    }

    #[test]
    fn json_values() {
        assert_eq!(json("{}"), "{}");
        assert_eq!(json(" [ ] "), "[]");
        assert_eq!(
            json(r#"{"b":1,"a":[true,false,null]}"#),
            r#"{"b":1,"a":[true,false,null]}"#
        );
        assert_eq!(json(r#"{"a":1,"a":2}"#), r#"{"a":2}"#);
        assert_eq!(json("-0"), "0");
        assert_eq!(json("-0.0"), "-0.0");
        assert_eq!(json("1E+2"), "100.0");
        assert_eq!(json("201.53987407684326"), "201.53987407684326");
        assert_eq!(json("-9223372036854775809"), "-9223372036854775809");
        assert_eq!(json(r#""\ud83d\ude00 \/ \b\f""#), "\"😀 / \\b\\f\"");
    }

    #[test]
    fn json_is_strict() {
        for t in [
            "",
            " ",
            "[1,]",
            "{\"a\":1,}",
            "{'a':1}",
            "'a'",
            "True",
            "None",
            "01",
            "1.",
            ".5",
            "+1",
            "1e",
            "[1 2]",
            "{\"a\" 1}",
            "{1:2}",
            "\"a\nb\"",
            "\"\\x41\"",
            "\"\\ud800\"",
            "\"\\ud800\\u0041\"",
            "NaN",
            "Infinity",
            "1e999",
            "[1]x",
            "(1)",
            "tru",
            "nulll",
        ] {
            assert!(parse_json(t).is_err(), "{t:?}");
        }
    }

    #[test]
    fn python_values() {
        assert_eq!(py("{'a': 'x', \"b\": [1, 2,], }"), r#"{"a":"x","b":[1,2]}"#);
        assert_eq!(py("(1, 'a')"), r#"[1,"a"]"#);
        assert_eq!(py("(1,)"), "[1]");
        assert_eq!(py("()"), "[]");
        assert_eq!(py("(1)"), "1");
        assert_eq!(py("((1))"), "1");
        assert_eq!(
            py("[True, False, None, true, null]"),
            "[true,false,null,true,null]"
        );
        assert_eq!(py("1_000_000"), "1000000");
        assert_eq!(py("00"), "0");
        assert_eq!(py("007.5"), "7.5");
        assert_eq!(py("+5"), "5");
        assert_eq!(py(".5"), "0.5");
        assert_eq!(py("5."), "5.0");
        assert_eq!(py("-1_0.2_5e1"), "-102.5");
        assert_eq!(
            py("123456789012345678901234567890"),
            "123456789012345678901234567890"
        );
        assert_eq!(py(r"'it\'s'"), r#""it's""#);
        assert_eq!(py(r"'\x41\u00e9\U0001F600\101\0'"), "\"Aé😀A\\u0000\"");
        assert_eq!(py(r"'a\d'"), r#""a\\d""#);
        assert_eq!(py("'a\\\nb'"), r#""ab""#);
        assert_eq!(py("'line one\nline two'"), r#""line one\nline two""#);
        assert_eq!(py(r#"{"status": 'pending'}"#), r#"{"status":"pending"}"#);
    }

    #[test]
    fn python_rejects_what_it_does_not_read() {
        for t in [
            "{1: 'a'}",
            "{'a'}",
            "{'a', 'b'}",
            "b'x'",
            "r'x'",
            "'a' 'b'",
            "'''a'''",
            "007",
            "0x10",
            "1j",
            "1__0",
            "1_",
            "_1",
            "inf",
            "nan",
            "Truex",
            "set()",
            "[1, 2",
            "'unterminated",
            "(1 2)",
            "--1",
            "'\\x4'",
            "'\\ud800'",
            "'\\U00110000'",
        ] {
            assert!(parse_python(t).is_err(), "{t:?}");
        }
    }

    #[test]
    fn depth_is_bounded_without_recursion() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse_json(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(parse_json(&deep).unwrap_err().message, "nested too deeply");
        // Far deeper than any stack would allow recursion to go: an error, quickly.
        let hostile = "[{'a': (".repeat(200_000);
        assert_eq!(
            parse_python(&hostile).unwrap_err().message,
            "nested too deeply"
        );
        assert_eq!(
            parse_json(&"[".repeat(1_000_000)).unwrap_err().offset,
            MAX_DEPTH
        );
    }

    #[test]
    fn errors_say_where() {
        let e = parse_json("{\"a\": tru}").unwrap_err();
        assert_eq!((e.offset, e.message), (6, "expected a value"));
        let e = parse_python("[1, 007]").unwrap_err();
        assert_eq!((e.offset, e.message), (4, "a number cannot start with 0"));
    }
}
