//! The ampersand repair of ADR-0024 and the fallback parse:
//! - `escape_unescaped_ampersands` leaves no bare `&`, is idempotent, changes nothing but bare
//!   `&`s, and never changes well-formed XML (that has no CDATA, comment or processing
//!   instruction, where an `&` is literal and the context-free form escapes it by design);
//! - the document form never changes well-formed XML at all;
//! - `parse_document` never panics, equals the strict parse on well-formed XML with no repair,
//!   and when it repairs, the repairs are exactly the bare `&`s outside literal sections and the
//!   tree is the strict parse of the repaired text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::borrow::Cow;
use xml_fallback::ampersand::escape_bare_ampersands_in_document;
use xml_fallback::reference::starts_valid_reference;
use xml_fallback::{Limits, Position, escape_unescaped_ampersands, parse_document, parse_strict};

fn no_bare_ampersand(s: &str) -> bool {
    s.match_indices('&')
        .all(|(i, _)| starts_valid_reference(&s[i..]))
}

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };

    let out = escape_unescaped_ampersands(s);
    assert!(no_bare_ampersand(&out), "a bare & is left in {out:?}");
    assert!(
        matches!(escape_unescaped_ampersands(&out), Cow::Borrowed(_)),
        "not idempotent"
    );
    // Only bare `&`s change: each becomes `&amp;`, everything else is copied.
    let mut expected = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        expected.push(c);
        if c == '&' && !starts_valid_reference(&s[i..]) {
            expected.push_str("amp;");
        }
    }
    assert_eq!(out, expected.as_str());
    if matches!(out, Cow::Borrowed(_)) {
        assert!(no_bare_ampersand(s));
    }

    let doc_form = escape_bare_ampersands_in_document(s);
    for &at in &doc_form.offsets {
        assert_eq!(s.as_bytes()[at], b'&');
        assert!(!starts_valid_reference(&s[at..]));
    }
    assert!(
        escape_bare_ampersands_in_document(&doc_form.text)
            .offsets
            .is_empty(),
        "the document form is not idempotent"
    );

    let strict = parse_strict(s, &Limits::default());
    let fallback = parse_document(s);
    match (&strict, &fallback) {
        (Ok(tree), Ok(parsed)) => {
            assert_eq!(&parsed.value, tree, "the fallback changed a valid document");
            assert!(parsed.repairs.is_empty(), "repairs on a valid document");
            assert!(
                matches!(doc_form.text, Cow::Borrowed(_)),
                "the document form changed well-formed XML: {:?}",
                doc_form.text
            );
            if !s.contains("<![CDATA[") && !s.contains("<!--") && !s.contains("<?") {
                assert!(
                    matches!(out, Cow::Borrowed(_)),
                    "escape_unescaped_ampersands changed well-formed XML: {out:?}"
                );
            }
        }
        (Ok(_), Err(e)) => panic!("strict parse accepts, fallback fails: {e}"),
        (Err(_), Ok(parsed)) => {
            assert!(
                !parsed.repairs.is_empty(),
                "fallback succeeded without a repair"
            );
            let offsets: Vec<usize> = parsed.repairs.iter().map(|r| r.offset).collect();
            assert_eq!(offsets, doc_form.offsets);
            for r in &parsed.repairs {
                assert_eq!(r.position, Position::at(s, r.offset));
            }
            let repaired =
                parse_strict(&doc_form.text, &Limits::default()).expect("the repaired text parses");
            assert_eq!(parsed.value, repaired);
        }
        (Err(e1), Err(e2)) => {
            assert_eq!(
                e1, e2,
                "the fallback's error is not the strict parse's first error"
            );
        }
    }
    let _ = fallback.map(|p| p.value.text());
});
