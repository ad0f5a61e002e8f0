//! Arbitrary bytes through the one-shot parser: no panic, every limit respected, every position
//! inside the input, calls in order, and every call read back from its own `to_xml`.
//!
//! The first two bytes choose the options (limits small enough to be hit, fences); the rest is
//! the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_fuzz::{
    blind_safe, forbidden, holds_forbidden, object_depth, same_map, split_control, text_bytes,
};
use toolcall_parser::{Dialect, Limits, ParseOptions, ParseResult, Segment, parse_with};

fn options(control: &[u8]) -> ParseOptions {
    let small = control[0] & 1 == 1;
    let limits = if small {
        let c = control[1] as usize;
        Limits::default()
            .with_max_input_bytes(64 + (c & 0x3) * 512)
            .with_max_calls(1 + (c >> 2 & 0x3))
            .with_max_depth(2 + (c >> 4 & 0x3) * 2)
            .with_max_call_bytes(16 + (c >> 6 & 0x1) * 200)
            .with_max_argument_bytes(4 + (c >> 7) * 60)
            .with_max_elements(2 + usize::from(control[0] >> 4))
            .with_max_input_elements(4 + usize::from(control[0] >> 4))
    } else {
        Limits::default()
    };
    // The control bytes also choose the dialect: every dialect is hammered alike.
    let dialect = Dialect::ALL[usize::from(control[0] >> 2) % Dialect::ALL.len()];
    ParseOptions::new()
        .with_limits(limits)
        .with_ignore_fenced_calls(control[0] & 2 == 2)
        .with_dialect(dialect)
}

/// Whether (line, column) is a position in `text` (or just past its end).
fn is_position_in(text: &str, line: u32, column: u32) -> bool {
    if line == 0 || column == 0 {
        return false;
    }
    match text.split('\n').nth(line as usize - 1) {
        Some(l) => column as usize <= l.chars().count() + 1,
        None => false,
    }
}

fn check(text: &str, opts: &ParseOptions, r: &ParseResult) {
    let limits = opts.limits();
    let read = &text[..floor_char_boundary(text, limits.max_input_bytes())];
    let calls = r.calls();
    let errors = r.errors();
    assert!(calls.len() <= limits.max_calls(), "{} calls", calls.len());
    // At most one error per call begun, one for the call limit, one for the input limit.
    assert!(
        calls.len() + errors.len() <= limits.max_calls() + 2,
        "{} calls and {} errors",
        calls.len(),
        errors.len()
    );
    let mut last_end = 0;
    let mut covered = 0;
    for c in &calls {
        assert!(
            c.span.start >= last_end,
            "calls overlap or are out of order"
        );
        assert!(c.span.end <= read.len(), "a call beyond the input read");
        last_end = c.span.end;
        covered += c.span.len();
        let src = &read[c.span.clone()];
        if opts.dialect() == Dialect::Tool {
            assert!(
                src.starts_with("<tool"),
                "span does not start at <tool: {src:?}"
            );
            let closed = src
                .rfind("</tool")
                .is_some_and(|i| src[i + 6..].trim_start_matches([' ', '\t', '\n', '\r']) == ">");
            assert!(closed, "span does not end at </tool>: {src:?}");
        } else {
            // Every dialect's call begins at markup (MiniMax-M3's after its namespace marker);
            // a Hermes call (named, or found by `auto`) may end at its JSON object, or, at the end
            // of the input, at its closer cut short (`</tool_ca`, or `<` alone, read with
            // `missing_call_closer`, FORMAT §9.2).
            assert!(
                src.starts_with('<') || src.starts_with("]<]minimax[>["),
                "span does not start at markup: {src:?}"
            );
            // (Under `auto`, a call is Hermes's when a JSON object follows `<tool_call>`.)
            let hermes = opts.dialect() == Dialect::Hermes
                || (opts.dialect() == Dialect::Auto
                    && src.strip_prefix("<tool_call>").is_some_and(|rest| {
                        rest.trim_start_matches([' ', '\t', '\n', '\r'])
                            .starts_with('{')
                    }));
            let cut_closer = hermes
                && c.span.end == read.len()
                && src
                    .rfind('<')
                    .is_some_and(|i| "</tool_call>".starts_with(&src[i..]));
            assert!(
                src.ends_with(['>', '}']) || cut_closer,
                "span does not end at markup: {src:?}"
            );
        }
        assert!(
            c.span.len() <= limits.max_call_bytes(),
            "a call of {} bytes, limit {}",
            c.span.len(),
            limits.max_call_bytes()
        );
        assert!(!c.tool_name.is_empty());
        assert!(!c.server_name.is_empty());
        for (k, v) in &c.arguments {
            assert!(
                text_bytes(v) <= limits.max_argument_bytes(),
                "argument {k} holds {} bytes, limit {}",
                text_bytes(v),
                limits.max_argument_bytes()
            );
            if !c.legacy_json && opts.dialect() == Dialect::Tool {
                assert!(
                    3 + object_depth(v) <= limits.max_depth(),
                    "argument {k} nests {} objects, depth limit {}",
                    object_depth(v),
                    limits.max_depth()
                );
            }
        }
        for rep in &c.repairs {
            assert!(is_position_in(read, rep.line, rep.column), "{rep:?}");
        }
    }
    for e in &errors {
        assert!(is_position_in(read, e.line, e.column), "{e:?}");
        let _ = e.feedback();
    }
    let prose = r.prose();
    assert!(prose.len() + covered <= read.len());
    if calls.is_empty() && errors.is_empty() {
        if opts.dialect() == Dialect::KimiK3 {
            // Kimi-K3's channel markers are layout, not prose (docs/FORMAT.md §9.6 rule 8): the
            // prose is the input less those markers, as the rule reads them.
            assert_eq!(
                prose,
                without_kimi_layout(read),
                "with no call and no error, everything but channel markers is prose"
            );
        } else {
            assert_eq!(
                prose, read,
                "with no call and no error, everything is prose"
            );
        }
    }
    // Adjacent prose is merged.
    assert!(
        !r.segments
            .windows(2)
            .any(|w| matches!(w, [Segment::Prose(_), Segment::Prose(_)]))
    );
}

/// `s` less its Kimi-K3 channel markers, read left to right as docs/FORMAT.md §9.6 rules 1
/// and 8 say (a reference, written apart from the grammar): `<|end_of_msg|>`; `<|open|>`, one
/// space at most, `response` or `tools`, blanks, `<|sep|>`; `<|open|>`, one space at most,
/// `message`, then nothing or a blank and `key="value"` attributes, `<|sep|>`; `<|close|>`, one
/// space at most, `response`, `tools` or `message`, one space at most, `<|sep|>`; each at most
/// 1,024 bytes, ending at the first `<|sep|>`.
fn without_kimi_layout(s: &str) -> String {
    let is_blank = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    // `key="value"` (or single-quoted) pairs separated by blanks.
    let attributes = |mut a: &str| -> bool {
        loop {
            a = a.trim_start_matches(is_blank);
            if a.is_empty() {
                return true;
            }
            let n = a
                .bytes()
                .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
                .unwrap_or(a.len());
            if n == 0 {
                return false;
            }
            a = a[n..].trim_start_matches([' ', '\t']);
            let Some(rest) = a.strip_prefix('=') else {
                return false;
            };
            a = rest.trim_start_matches([' ', '\t']);
            let Some(q) = a.chars().next().filter(|&c| c == '"' || c == '\'') else {
                return false;
            };
            let Some(close) = a[1..].find(q) else {
                return false;
            };
            a = &a[close + 2..];
            if !a.is_empty() && !a.starts_with(is_blank) {
                return false;
            }
        }
    };
    let marker = |at: &str| -> Option<usize> {
        if at.starts_with("<|end_of_msg|>") {
            return Some("<|end_of_msg|>".len());
        }
        let (head, open) = if at.starts_with("<|open|>") {
            ("<|open|>", true)
        } else if at.starts_with("<|close|>") {
            ("<|close|>", false)
        } else {
            return None;
        };
        let sep = at[head.len()..].find("<|sep|>")? + head.len();
        let len = sep + "<|sep|>".len();
        if len > 1024 {
            return None;
        }
        let inner = &at[head.len()..sep];
        let inner = inner.strip_prefix(' ').unwrap_or(inner);
        let n = inner
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or(inner.len());
        let (name, rest) = inner.split_at(n);
        let framing = if open {
            let attrs_ok = rest.is_empty() || (rest.starts_with(is_blank) && attributes(rest));
            attrs_ok
                && match name {
                    "response" | "tools" => rest.trim_matches(is_blank).is_empty(),
                    "message" => true,
                    _ => false,
                }
        } else {
            (rest.is_empty() || rest == " ") && matches!(name, "response" | "tools" | "message")
        };
        framing.then_some(len)
    };
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        match marker(&rest[i..]) {
            Some(n) => rest = &rest[i + n..],
            None => {
                out.push('<');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A call read from the XML form, written by `to_xml` and read again, is the same call: blind
/// inference only makes values that read back blind.
fn check_round_trip(r: &ParseResult) {
    for c in r.calls() {
        if c.legacy_json
            || c.arguments.values().any(holds_forbidden)
            || c.tool_name
                .chars()
                .chain(c.server_name.chars())
                .any(forbidden)
        {
            continue;
        }
        for (k, v) in &c.arguments {
            assert!(
                blind_safe(v),
                "blind inference made {k} = {v:?}, which cannot read back"
            );
        }
        let Ok(xml) = c.to_xml() else { continue };
        let back = parse_with(&xml, &ParseOptions::default());
        let back_calls = back.calls();
        assert!(
            back.errors().is_empty() && back_calls.len() == 1,
            "to_xml of a parsed call does not read back: {:?}\n{xml}",
            back.errors()
        );
        let b = back_calls[0];
        assert_eq!(b.tool_name, c.tool_name, "{xml}");
        assert_eq!(b.server_name, c.server_name, "{xml}");
        assert!(
            same_map(&b.arguments, &c.arguments),
            "to_xml of a parsed call reads back different arguments\n{xml}\nwas  {:?}\nback {:?}",
            c.arguments,
            b.arguments
        );
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fuzz_target!(|data: &[u8]| {
    let (control, text) = split_control(data, 2);
    let opts = options(&control);
    let r = parse_with(&text, &opts);
    check(&text, &opts, &r);
    if opts.dialect() == Dialect::Tool {
        check_round_trip(&r);
    }
});
