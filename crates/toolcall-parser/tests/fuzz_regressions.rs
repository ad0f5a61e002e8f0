//! Inputs that the fuzz targets in `fuzz/` found failing, each pinned with what it broke.
//! Every input is also checked for chunking invariance.

mod common;

use common::{assert_chunking_invariant, call};
use toolcall_parser::ParseOptions;

/// `parse_mixed`: `</tool >` (a blank before `>`, legal XML) ended the call's span before the
/// `>`, which then came out as prose.
#[test]
fn close_tag_of_tool_with_a_blank_before_the_bracket() {
    let text = "<tool><tool_name>t</tool_name></tool >after";
    let r = assert_chunking_invariant(text, &ParseOptions::default());
    assert_eq!(r.calls().len(), 1);
    assert_eq!(r.calls()[0].span, 0..text.len() - "after".len());
    assert_eq!(r.prose(), "after");
    let text = "<tool><tool_name>t</tool_name></tool\n\t>";
    let r = assert_chunking_invariant(text, &ParseOptions::default());
    assert_eq!(r.calls()[0].span, 0..text.len());
    assert_eq!(r.prose(), "");
}

/// `stream_chunking`: when a multi-byte character crossed `max_input_bytes`, the one-shot parse
/// stopped before it, but the streaming parser went on reading later chunks of one-byte
/// characters that still fitted: text after the cut was read, and the error moved.
#[test]
fn the_input_limit_cuts_at_one_place_whatever_the_chunking() {
    let opts = ParseOptions::default()
        .with_limits(toolcall_parser::Limits::default().with_max_input_bytes(9));
    let text = "12345678é!!!!";
    let whole = toolcall_parser::parse_with(text, &opts);
    assert_eq!(whole.prose(), "12345678");
    let mut p = toolcall_parser::StreamParser::with_options(opts.clone());
    let mut events = p.feed("12345678é");
    events.extend(p.feed("!!"));
    events.extend(p.finish());
    assert_eq!(toolcall_parser::ParseResult::from_events(events), whole);
    assert_chunking_invariant(text, &opts);
}

/// `stream_chunking`: CDATA in `<tool_name>` (or `<server_name>`) counted towards
/// `max_argument_bytes`, as text there does not; the error it caused was located at the CDATA
/// piece that crossed the limit, which depends on how the input was split.
#[test]
fn cdata_outside_arguments_is_not_argument_bytes() {
    let opts = ParseOptions::default()
        .with_limits(toolcall_parser::Limits::default().with_max_argument_bytes(24));
    let name = "x".repeat(30);
    let text = format!(
        "<tool><server_name><![CDATA[{name}]]></server_name>\
         <tool_name><![CDATA[{name}]]></tool_name></tool>"
    );
    let r = assert_chunking_invariant(&text, &opts);
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    assert_eq!(r.calls()[0].tool_name, name);
    // Arguments still count.
    let text = format!(
        "<tool><tool_name>t</tool_name><arguments><a><![CDATA[{name}]]></a></arguments></tool>"
    );
    let r = assert_chunking_invariant(&text, &opts);
    assert_eq!(
        r.errors()[0].kind,
        toolcall_parser::ErrorKind::LimitExceeded
    );
}

/// `stream_chunking`: `max_call_bytes` was checked between lexemes, so a lexeme read whole in
/// one chunk (here the tool name's text, then `</tool_name>`) went past the limit before the
/// check, and the error named the tool or not depending on the chunking. Nothing past the limit
/// is read now.
#[test]
fn the_call_size_limit_is_hit_at_one_place_whatever_the_chunking() {
    let opts = ParseOptions::default()
        .with_limits(toolcall_parser::Limits::default().with_max_call_bytes(120));
    for text in [
        format!("<tool><tool_name>{}</tool_name></tool>", "x".repeat(200)),
        format!(
            "<tool><tool_name>t</tool_name><arguments><a>{}</a></arguments></tool>",
            "é".repeat(100)
        ),
        format!(
            "<tool><tool_name>t</tool_name><!-- {} </tool> --></tool>after",
            "c".repeat(120)
        ),
        format!(
            "<tool><tool_name>t</tool_name><arguments><a b=\"{}\"/></arguments></tool>",
            "v".repeat(120)
        ),
    ] {
        let r = assert_chunking_invariant(&text, &opts);
        let e = &r.errors()[0];
        assert_eq!(e.kind, toolcall_parser::ErrorKind::LimitExceeded, "{text}");
        assert!(e.message.contains("the call is longer"), "{text}: {e:?}");
    }
    // Exactly at the limit is fine.
    let text = format!(
        "<tool><tool_name>{}</tool_name></tool>",
        "x".repeat(120 - 36)
    );
    assert_eq!(text.len(), 120);
    let r = assert_chunking_invariant(&text, &opts);
    assert!(r.errors().is_empty(), "{:?}", r.errors());
}

/// `arg_roundtrip`: an argument (or member) named `tool` was written as `<tool>`, which the
/// parser reads as the start of a new call; `to_xml` refuses it now, naming its path.
#[test]
fn to_xml_refuses_a_member_named_tool() {
    use arg_types::{Map, Value};
    let r = toolcall_parser::parse(
        "<tool>{\"tool_name\":\"t\",\"arguments\":{\"a\":[1,{\"tool\":2}]}}</tool>",
    );
    let call = r.calls()[0].clone();
    let e = call.to_xml().unwrap_err();
    assert_eq!((e.path.as_str(), e.name.as_str()), ("a[1].tool", "tool"));
    let mut args = Map::new();
    args.insert("tool".into(), Value::Int(1));
    let call = {
        let mut c = call.clone();
        c.arguments = args;
        c
    };
    assert_eq!(call.to_xml().unwrap_err().path, "tool");
    // Names that merely begin with `tool` are fine.
    let mut args = Map::new();
    args.insert("toolbox".into(), Value::Int(1));
    let call = {
        let mut c = call.clone();
        c.arguments = args.clone();
        c
    };
    let back = toolcall_parser::parse(&call.to_xml().unwrap());
    assert_eq!(back.calls()[0].arguments, args);
}

/// `differential_xml_rs`: a mixed-content value (kept verbatim from the source) written with
/// CR LF line ends kept a trailing CR; it reads as the LF form does, as xml-rs reads it.
#[test]
fn mixed_content_with_crlf_line_ends() {
    let lf =
        "<tool><tool_name>t</tool_name><arguments><c>\n  a <b>x</b> c\n</c></arguments></tool>";
    let r = assert_chunking_invariant(lf, &ParseOptions::default());
    assert_eq!(r.calls()[0].arguments["c"].as_str(), Some("  a <b>x</b> c"));
    let crlf = lf.replace('\n', "\r\n");
    let r = assert_chunking_invariant(&crlf, &ParseOptions::default());
    assert_eq!(r.calls()[0].arguments["c"].as_str(), Some("  a <b>x</b> c"));
}

/// `parse_mixed`: the legacy JSON form ignored `max_call_bytes` (a 153-byte call passed a
/// 16-byte limit). It is scanned only up to the limit now, like the XML form.
#[test]
fn legacy_json_calls_respect_the_call_size_limit() {
    let opts = ParseOptions::default()
        .with_limits(toolcall_parser::Limits::default().with_max_call_bytes(60));
    let long = format!(
        "<tool>{{\"tool_name\":\"j\",\"arguments\":{{\"k\":\"{}\"}}}}</tool>after",
        "v".repeat(100)
    );
    let padded = format!(
        "<tool>{{\"tool_name\":\"j\"}}{}</tool>after",
        " ".repeat(60)
    );
    // The object fits, `</tool>` does not.
    let straddling = format!("<tool>{{\"tool_name\":\"{}\"}}</tool>after", "j".repeat(32));
    for text in [long, padded, straddling] {
        let r = assert_chunking_invariant(&text, &opts);
        assert!(r.calls().is_empty(), "{text}");
        let e = &r.errors()[0];
        assert_eq!(e.kind, toolcall_parser::ErrorKind::LimitExceeded, "{text}");
        assert_eq!(r.prose(), "after", "{text}");
    }
    let fits = format!("<tool>{{\"tool_name\":\"{}\"}}</tool>", "j".repeat(31));
    assert_eq!(fits.len(), 60);
    let r = assert_chunking_invariant(&fits, &opts);
    assert_eq!(r.calls().len(), 1, "{:?}", r.errors());
}

/// `parse_mixed`: the legacy JSON form ignored `max_argument_bytes`.
#[test]
fn legacy_json_arguments_respect_the_argument_size_limit() {
    let opts = ParseOptions::default()
        .with_limits(toolcall_parser::Limits::default().with_max_argument_bytes(10));
    let text = "<tool>{\"tool_name\":\"j\",\"arguments\":{\"a\":[\"12345\",{\"b\":\"678901\"}]}}</tool>after";
    let r = assert_chunking_invariant(text, &opts);
    assert!(r.calls().is_empty());
    assert_eq!(
        r.errors()[0].kind,
        toolcall_parser::ErrorKind::LimitExceeded
    );
    assert_eq!(r.prose(), "after");
    let text = "<tool>{\"tool_name\":\"j\",\"arguments\":{\"a\":\"1234567890\",\"b\":\"1234567890\"}}</tool>";
    let r = assert_chunking_invariant(text, &opts);
    assert_eq!(r.calls().len(), 1, "{:?}", r.errors());
}

/// `parse_mixed`: the call-size limit of the legacy JSON form (the fix above) cut the scan
/// inside a multi-byte character and resumed there: a panic on a char boundary.
#[test]
fn legacy_json_call_size_limit_inside_a_character() {
    for max in 20..30 {
        let opts = ParseOptions::default()
            .with_limits(toolcall_parser::Limits::default().with_max_call_bytes(max));
        let text = "<tool>{\"tool_name\":\"ééééééééé\"}</tool>after";
        let r = assert_chunking_invariant(text, &opts);
        assert_eq!(
            r.errors()[0].kind,
            toolcall_parser::ErrorKind::LimitExceeded
        );
        assert_eq!(r.prose(), "after");
    }
}

/// `parse_mixed`: a tool name holding a carriage return (`&#13;`) was written raw by `to_xml`
/// and read back as a line feed. Since names must be valid (docs/FORMAT.md §3.4), such a name is
/// an `invalid_tool_name` error and never reaches `to_xml`.
#[test]
fn names_holding_carriage_returns_are_errors() {
    for text in [
        "<tool><server_name>s&#13;t</server_name><tool_name>ab</tool_name></tool>",
        "<tool><server_name>st</server_name><tool_name>a&#13;b</tool_name></tool>",
    ] {
        let r = assert_chunking_invariant(text, &ParseOptions::default());
        assert!(r.calls().is_empty(), "{text}");
        assert_eq!(
            r.errors()[0].kind,
            toolcall_parser::ErrorKind::InvalidToolName
        );
    }
}

/// `parse_mixed`: a tool name with blank space at an end (possible in CDATA) was written as
/// text by `to_xml`, and the text rule trimmed it on reading. Names are trimmed now (§3.4), in
/// CDATA too, so what `to_xml` writes reads back; blanks inside a name make it invalid.
#[test]
fn names_are_trimmed_even_in_cdata() {
    for (name, read) in [
        ("exam\n", Some("exam")),
        (" x ", Some("x")),
        ("a\r\n", Some("a")),
        ("\n  a\n  b", None),
        (" ]]> ", None),
    ] {
        let text = format!(
            "<tool><tool_name><![CDATA[{}]]></tool_name></tool>",
            name.replace("]]>", "]]]]><![CDATA[>")
        );
        let r = assert_chunking_invariant(&text, &ParseOptions::default());
        match read {
            Some(read) => {
                let call = r.calls()[0].clone();
                assert_eq!(call.tool_name, read, "{text}");
                let back = toolcall_parser::parse(&call.to_xml().unwrap());
                assert_eq!(back.calls()[0].tool_name, read, "{text}");
            }
            None => assert_eq!(
                r.errors()[0].kind,
                toolcall_parser::ErrorKind::InvalidToolName,
                "{text}"
            ),
        }
    }
}

// ----- the fuzz targets' invariants as properties, so `cargo test` checks them on stable ------

mod properties {
    use super::common::soup;
    use arg_types::Value;
    use proptest::prelude::*;
    use toolcall_parser::{Limits, ParseOptions, ParseResult, Segment, StreamParser, parse_with};

    fn small_limits() -> impl Strategy<Value = ParseOptions> {
        (
            1usize..4,
            2usize..6,
            16usize..200,
            2usize..40,
            any::<bool>(),
            40usize..400,
            2usize..12,
        )
            .prop_map(
                |(calls, depth, call_bytes, argument_bytes, fenced, input_bytes, elements)| {
                    ParseOptions::default()
                        .with_limits(
                            Limits::default()
                                .with_max_input_bytes(input_bytes)
                                .with_max_calls(calls)
                                .with_max_depth(depth)
                                .with_max_call_bytes(call_bytes)
                                .with_max_argument_bytes(argument_bytes)
                                .with_max_elements(elements)
                                .with_max_input_elements(elements * 2),
                        )
                        .with_ignore_fenced_calls(fenced)
                        .with_dialect(toolcall_parser::Dialect::Tool)
                },
            )
    }

    /// String bytes, except strings of markup (mixed content kept verbatim), whose tags are
    /// not decoded text and not counted by `max_argument_bytes`.
    fn string_bytes(v: &Value) -> usize {
        match v {
            Value::String(s) if s.contains('<') && s.contains('>') => 0,
            Value::String(s) => s.len(),
            Value::Array(items) => items.iter().map(string_bytes).sum(),
            Value::Object(m) => m.values().map(string_bytes).sum(),
            _ => 0,
        }
    }

    fn object_depth(v: &Value) -> usize {
        match v {
            Value::Object(m) => 1 + m.values().map(object_depth).max().unwrap_or(0),
            Value::Array(items) => items.iter().map(object_depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    fn streamed_bytes(text: &str, cuts: &[usize], opts: &ParseOptions) -> ParseResult {
        let bytes = text.as_bytes();
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut p = StreamParser::with_options(opts.clone());
        let mut events = Vec::new();
        let mut last = 0;
        for at in points.into_iter().chain([bytes.len()]) {
            events.extend(p.feed_bytes(&bytes[last..at]));
            last = at;
        }
        events.extend(p.finish());
        ParseResult::from_events(events)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// `parse_mixed`: every limit holds, every call is a whole `<tool>` element in order.
        #[test]
        fn limits_are_respected(text in soup(), opts in small_limits()) {
            let l = opts.limits();
            let r = parse_with(&text, &opts);
            let calls = r.calls();
            prop_assert!(calls.len() <= l.max_calls());
            prop_assert!(calls.len() + r.errors().len() <= l.max_calls() + 2);
            let mut last_end = 0;
            for c in &calls {
                prop_assert!(c.span.start >= last_end && c.span.end <= l.max_input_bytes());
                last_end = c.span.end;
                prop_assert!(c.span.len() <= l.max_call_bytes(), "{} > {}", c.span.len(), l.max_call_bytes());
                let src = &text[c.span.clone()];
                prop_assert!(src.starts_with("<tool") && src.ends_with('>'), "{:?}", src);
                for v in c.arguments.values() {
                    prop_assert!(string_bytes(v) <= l.max_argument_bytes());
                    if !c.legacy_json {
                        prop_assert!(3 + object_depth(v) <= l.max_depth());
                    }
                }
            }
            prop_assert!(!r.segments.windows(2).any(|w| matches!(w, [Segment::Prose(_), Segment::Prose(_)])));
        }

        /// `stream_chunking`: raw bytes cut anywhere, with small limits, give the one-shot result.
        #[test]
        fn byte_chunking_with_limits_equals_one_shot(
            text in soup(),
            cuts in prop::collection::vec(any::<usize>(), 0..12),
            opts in small_limits(),
        ) {
            prop_assert_eq!(streamed_bytes(&text, &cuts, &opts), parse_with(&text, &opts));
        }

        /// `parse_mixed`: a call read from the XML form, written by `to_xml` and read again, is
        /// the same call.
        #[test]
        fn parsed_calls_read_back_from_to_xml(text in soup()) {
            let r = parse_with(&text, &ParseOptions::default());
            for c in r.calls() {
                if c.legacy_json {
                    continue;
                }
                let Ok(xml) = c.to_xml() else { continue };
                let back = parse_with(&xml, &ParseOptions::default());
                prop_assert!(back.errors().is_empty(), "{:?}\n{}", back.errors(), xml);
                prop_assert_eq!(&back.calls()[0].arguments, &c.arguments, "{}", xml);
                prop_assert_eq!(&back.calls()[0].tool_name, &c.tool_name);
            }
        }
    }
}

/// `stream_chunking` (soak of 2026-11-25): an unclosed call exactly one byte over
/// `max_call_bytes` was `unterminated_call` one-shot and `limit_exceeded` streamed in 1-byte
/// chunks. Every length around the limit, every dialect, gives one answer in every chunking.
#[test]
fn a_call_at_the_byte_limit_reads_alike_one_shot_and_streamed() {
    for &dialect in toolcall_parser::Dialect::ALL {
        let opts = ParseOptions::new()
            .with_dialect(dialect)
            .with_limits(toolcall_parser::Limits::default().with_max_call_bytes(120));
        let open = match dialect {
            toolcall_parser::Dialect::Tool => "<tool><tool_name>",
            toolcall_parser::Dialect::Hermes => "<tool_call>{\"name\": \"",
            _ => "<tool_call>\n<function=f>\n<parameter=p>\n",
        };
        for extra in 95..125 {
            let text = format!("{open}{}", "x".repeat(extra));
            assert_chunking_invariant(&text, &opts);
        }
    }
}

/// `differential_xml_rs` (fuzz-smoke of 2026-11-25): a well-formed call whose server name is
/// `]]Zs` (and whose tool name holds a space and an emoji) is valid XML, but the names are
/// outside the name rule (docs/FORMAT.md §3.4): an `invalid_tool_name` error naming the server,
/// never a call; the prose around it is kept.
#[test]
fn well_formed_calls_with_invalid_names_are_errors() {
    let text = "\r\n<tool>\t <server_name>]]Zs</server_name>\r\n\
                <tool_name>a b42] &#x1F980;</tool_name >\t</tool>\n";
    let r = assert_chunking_invariant(text, &ParseOptions::default());
    assert!(r.calls().is_empty());
    assert_eq!(r.errors().len(), 1);
    let e = &r.errors()[0];
    assert_eq!(e.kind, toolcall_parser::ErrorKind::InvalidToolName);
    assert!(
        e.message.contains("`]]Zs` is not a valid server name"),
        "{}",
        e.message
    );
    assert_eq!(r.prose(), "\r\n\n");
}

/// `cost_growth` (fuzz-smoke of 2026-11-25): an unclosed `<!--` inside a value, followed by
/// 16 KB and by 64 KB of `x -`. Below the 16 KiB comment window the end of the input cuts the
/// comment; above it the `<` is literal and the rest is the value's text. Both are the same
/// `unterminated_call` (nothing completed before the cut), in every chunking: the step in
/// memory the target saw between the two sizes is the value being held, linear in the input.
#[test]
fn an_unclosed_comment_on_both_sides_of_the_comment_window() {
    for copies in [5_457, 21_828] {
        let text = format!(
            "<tool><tool_name>t</tool_name><arguments><a><!--{}",
            "x -".repeat(copies)
        );
        let r = toolcall_parser::parse(&text);
        assert!(r.calls().is_empty());
        assert_eq!(r.errors().len(), 1, "{copies}");
        let e = &r.errors()[0];
        assert_eq!(e.kind, toolcall_parser::ErrorKind::UnterminatedCall);
        assert_eq!(e.tool_name.as_deref(), Some("t"));
        assert_eq!(e.span, 0..text.len());
        assert_eq!(e.partial, Some(serde_json::json!({})));
    }
    let small = format!(
        "<tool><tool_name>t</tool_name><arguments><a><!--{}",
        "x -".repeat(300)
    );
    assert_chunking_invariant(&small, &ParseOptions::default());
}

/// `differential_xml_rs` (fuzz-smoke of 2026-11-25): a tool name followed by blank lines
/// (`<tool_name>t\n\n\n\n</tool_name >`, after the arguments) is the name `t`: names are trimmed
/// of XML blanks before they are checked (docs/FORMAT.md §3.4); the target now trims as well.
#[test]
fn names_followed_by_blank_lines_are_trimmed() {
    let text = "<tool >\r\n<arguments>\r\n<b><![CDATA[]]><!----></b>\n</arguments >\n\n\
                <tool_name>t\n\n\n\n</tool_name >\n</tool >";
    let r = assert_chunking_invariant(text, &ParseOptions::default());
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    assert_eq!(r.calls()[0].tool_name, "t");
    assert_eq!(r.calls()[0].arguments["b"].as_str(), Some(""));
}

/// `stream_chunking` (a one-hour soak, five inputs of one class): after the legacy JSON object
/// of a call, blanks that run past `max_call_bytes` and then text were one text lexeme read
/// one-shot (`unexpected_text` past the limit) but blanks and then the limit when streamed
/// (`limit_exceeded`). The window after the object is now cut at the limit as the XML form's
/// is: at every limit around the blanks, in every chunking, one result, and text that starts
/// past the limit is never read.
#[test]
fn blanks_after_a_legacy_object_run_into_the_call_limit_alike_in_every_chunking() {
    let object = "<tool>{\"tool_name\":\"t\",\"arguments\":{}}";
    let text = format!("{object}{}x</tool>\nThen.\n", "\t".repeat(12));
    let x = text.find('x').expect("the text");
    for max in object.len() - 2..x + 4 {
        let opts = ParseOptions::default()
            .with_limits(toolcall_parser::Limits::default().with_max_call_bytes(max));
        let r = assert_chunking_invariant(&text, &opts);
        let kind = r.errors().first().map(|e| e.kind);
        if max < x {
            // `x` lies past the limit: the call is too long, whatever follows.
            assert_eq!(
                kind,
                Some(toolcall_parser::ErrorKind::LimitExceeded),
                "{max}"
            );
        } else {
            assert_eq!(
                kind,
                Some(toolcall_parser::ErrorKind::UnexpectedText),
                "{max}"
            );
        }
    }
}

/// `stream_chunking` (Anthropic, small limits, with the new dialect seeds): a long
/// `<invoke name="…">` tag read whole across `max_call_bytes`, then an element error past the
/// limit: one-shot reported that error, streamed in pieces of 3 and 5 bytes the call running too
/// long. An error found past a call's limit is now the limit's, in every dialect
/// (`Assembler::error`). The input as found.
#[test]
fn an_error_past_the_call_limit_is_the_limit() {
    let text = "Ok.\n<function_calls>\n<invoke name=\"write_filOOOOOOOOOOOONOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOe\">\n<paramEter name=\"path\">src/\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}a.rs<\u{fffd}parameter<function=er\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}on=er\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}> x</para";
    let opts = ParseOptions::new()
        .with_dialect(toolcall_parser::Dialect::Anthropic)
        .with_limits(
            toolcall_parser::Limits::default()
                .with_max_input_bytes(350)
                .with_max_calls(2)
                .with_max_depth(4)
                .with_max_call_bytes(120)
                .with_max_argument_bytes(24)
                .with_max_elements(6)
                .with_max_input_elements(10),
        );
    let whole = assert_chunking_invariant(text, &opts);
    assert_eq!(common::parse_alternating(text, &opts, [3, 5]), whole);
    assert_eq!(
        whole.errors()[0].limit,
        Some(toolcall_parser::Limit::MaxCallBytes)
    );
}

/// `stream_chunking` (MiniMax-M3, small limits, the last soak): the depth limit met past the
/// call's limit was reported one-shot, the call's limit in pieces of 3 and 5 bytes. Any other
/// limit met past the call's limit is now the call's (`Assembler::limit_error`), as an error is.
/// The input as found.
#[test]
fn another_limit_past_the_call_limit_is_the_call_limit() {
    let text = "Ok.]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<c]minimax[>[<invoke name=\"f\">]<]minimax[>[<city>Paris]<]minimax[>[<\u{0}\u{0}\u{11}\u{0}y>]<]\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}&\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}mmn\u{fffd}\u{fffd}a.x[>[<when>]<]minimax[>[<day>Mon]<]minimax[>[";
    let opts = ParseOptions::new()
        .with_dialect(toolcall_parser::Dialect::MinimaxM3)
        .with_limits(common::fuzz_small_limits());
    let whole = assert_chunking_invariant(text, &opts);
    assert_eq!(common::parse_alternating(text, &opts, [3, 5]), whole);
    assert_eq!(
        whole.errors()[0].limit,
        Some(toolcall_parser::Limit::MaxCallBytes)
    );
}

/// `stream_chunking` (the soak of 2026-11-26 09:03, `fuzz/SOAK.md`), the input as found: the
/// `max_calls` error stood at another `<tool` (byte 318 against 425) one-shot and fed byte by
/// byte. The lexer remembers where the next `-->` is; a search made in a long window (skipping
/// a failed call) found it far ahead, and the next call, whose window is cut at its
/// `max_call_bytes`, took that far `-->` as its comment's end: its lexeme ran past the window
/// (with deltas on, a panic slicing it). A remembered terminator past the window is now not in
/// it. The class: `a_terminator_found_in_a_longer_window_is_not_in_a_capped_one`.
#[test]
fn auto_small_limits_the_call_limit_error_is_placed_alike_in_every_chunking() {
    let bytes: &[u8] = b";'>1\x01\x07@<too=l``@<x='&amp;'>1\x01\x07@@<tool a=\"2\">\n  <!--\x9c\x9c\x9c\x9c,\x9c\x9c\x9c\x9c\x9col_name >t<` a=\"\x00\x00\x00a  \xb4!-- cs><a x='&nf\xfc\xff\xff\xff@<tomp;>1\x01\x07@<too=l``@<x='&amp;``@<x='&amp;'>1\x01\x07@@<tool a=\"2\">\n  <!--\x9c\x9c\x9c\x9c,\x9c\x9c\x9c\x9c\x9col_name >t<` a=\"\x00\x00\x00a  \xb4!-- cs><a x='&nf\xfc\xff\xff\xff@<tomp;>1\x01\x07@<too=l``@<x='&amp;'>1\x01\x07@@<tool a=\"2\">\n@<too=l``@too'>1\x01\x07@@<tool a=\"2\">\n@<too=l``@too\x9c\x9c\x9c\x9c\x9c\x9c\x9c\x9c\x9c\x9c\x9c c --><too=l``@<tool a=\"2\"><ol";
    let opts = ParseOptions::new()
        .with_dialect(toolcall_parser::Dialect::Auto)
        .with_ignore_fenced_calls(false)
        .with_limits(common::fuzz_small_limits());
    let text = String::from_utf8_lossy(bytes);
    let whole = toolcall_parser::parse_with(&text, &opts);
    assert_eq!(common::parse_bytes_chunked(bytes, &opts, 1), whole);
}

/// `stream_chunking` (the soaks of 2026-11-26 08:00 and 09:03), the input as found: the second
/// call met `max_input_elements` one-shot and none streamed. A literal `<` crossed
/// `max_argument_bytes`; its handler set the mode to `Skip` but said "go on" (`?` on the step
/// that stopped, in a handler whose `None` means "continue"), so one-shot the lexemes after it
/// (a CDATA section) were still read, and counted, as the call's. Every such step now returns
/// the stop (`stop_if!`), and a debug assertion catches a handler that changes the mode and goes
/// on. The class: `every_step_that_crosses_the_argument_limit_stops_the_call_there`.
#[test]
fn auto_small_limits_the_second_call_meets_the_same_limit_in_every_chunking() {
    let bytes: &[u8] = b"\x03\x01\x07@<tool><tool_name>w</tool_name><arguments><content><![CDATA[43]]></n><s>TTTTTTTTTTTTTTimax<<![CDATA[a]]]]><![CDAA\x00x[T\x00\x00></ame\x01\x07@<tool><tool_name>w</tool_name><arguments><content><![CDATA[43]]></n><s>TTTTTTTTTTTTTTimax<<![CDATA[a]]]]><![CDAA\x00x[T\x00\x00></ame><arguments><content><![CDATA[43]]></n><s>TTTTTTTTTTTTTTimax<\x00></s></&& b < c) umentsl\x97lb\x01\x00\x00\x00\x00\x00\x00\x04\x9cme!>t</toa<function=me >\xf6ame >\xf6\xe2 </toa<function=me >><content><![CDATA[43]]></n><s><![CDATA[a]]]]><![Cs></&& b < c) uments><content><![CDATA[43]]></n><s><![CD><arguments><content><![CDATA[43]]></n><s>TTTTTTTTTTTTTTimax<\x00></s></&& b < c) uments><content><![CDATA[43]]></n><s><![CDATA[a]]]]><![Cs></&& b < c\xf6\xe2) umen ";
    let opts = ParseOptions::new()
        .with_dialect(toolcall_parser::Dialect::Auto)
        .with_ignore_fenced_calls(true)
        .with_limits(common::fuzz_small_limits());
    let text = String::from_utf8_lossy(bytes);
    let whole = toolcall_parser::parse_with(&text, &opts);
    assert_eq!(common::parse_bytes_chunked(bytes, &opts, 1), whole);
}

/// The class of `auto_small_limits_the_call_limit_error_is_placed_alike_in_every_chunking`: a
/// failed call whose skip searches far ahead for `-->`, then a call holding a comment whose
/// `-->` lies past that call's `max_call_bytes`, for every limit around it: every chunking,
/// with deltas on (each chunk size), gives the one-shot result, and the call is the limit's.
#[test]
fn a_terminator_found_in_a_longer_window_is_not_in_a_capped_one() {
    let filler = "z".repeat(40);
    // A call that fails at once (`<tool>` takes no attributes), or one cut by the next.
    for first in ["<tool a=\"\"> <!-- ", "<tool> <!-- "] {
        let text = format!(
            "{first}{filler} <tool><tool_name>f</tool_name><arguments><a>v<!-- {filler} \
         --></a></arguments></tool>after"
        );
        let second = text.rfind("<tool>").unwrap();
        let comment_end = text.rfind("-->").unwrap() + 3;
        for max in 20..=(comment_end - second + 2) {
            let opts = ParseOptions::default()
                .with_limits(toolcall_parser::Limits::default().with_max_call_bytes(max));
            let r = assert_chunking_invariant(&text, &opts);
            assert!(r.prose().ends_with("after"), "{max}: {r:?}");
            if max < comment_end - second {
                assert!(r.calls().is_empty(), "{max}: {r:?}");
                assert_eq!(
                    r.errors().last().unwrap().limit,
                    Some(toolcall_parser::Limit::MaxCallBytes),
                    "{max}"
                );
            }
        }
    }
}

/// The class of `auto_small_limits_the_second_call_meets_the_same_limit_in_every_chunking`:
/// each kind of step that adds to a value (text, a newline, a character or entity reference,
/// a bare `&`, a literal `<`, a close tag of no open element, CDATA) as the step that crosses
/// `max_argument_bytes`, followed by markup that counts as elements, then a second call: for
/// every element budget, every chunking gives the one-shot result, and the first call's error
/// is the argument limit once the budget holds what comes before the crossing.
#[test]
fn every_step_that_crosses_the_argument_limit_stops_the_call_there() {
    let steps = [
        "yy",
        "\n",
        "&#65;",
        "&amp;",
        "& ",
        "<<",
        "</q>",
        "<![CDATA[yy]]>",
    ];
    for step in steps {
        let first = format!(
            "<tool><tool_name>f</tool_name><arguments><a>{}{step}<![CDATA[]]><b/><b/></a></arguments></tool>",
            "x".repeat(10)
        );
        let second = call("g", "<c><![CDATA[1]]></c><d/>");
        let text = format!("{first}{second}after");
        for budget in 3..12 {
            let opts = ParseOptions::default().with_limits(
                toolcall_parser::Limits::default()
                    .with_max_argument_bytes(10)
                    .with_max_input_elements(budget),
            );
            let r = assert_chunking_invariant(&text, &opts);
            // `<tool_name>`, `<arguments>`, `<a>` and a CDATA section count before the crossing.
            if budget >= 5 {
                assert_eq!(
                    r.errors()[0].limit,
                    Some(toolcall_parser::Limit::MaxArgumentBytes),
                    "{step:?} {budget}: {r:?}"
                );
            }
        }
    }
}

/// `parse_mixed` (the soak of 2026-11-26 10:17, five inputs alike, `fuzz/SOAK.md`): Hermes read
/// a call whose argument `b` held `"x & y"` (5 bytes) under `max_argument_bytes` 4: JSON
/// arguments were never measured against it. They are now, as in the legacy JSON form. The
/// text of the first input, with its limits. The class:
/// `every_dialect_keeps_its_arguments_within_the_argument_limit` in `tests/dialects.rs`.
#[test]
fn hermes_arguments_respect_the_argument_limit() {
    let text = "_call>\"], \"b\": \"x & y\"}}\n</tool_call>\n<tool_call>\nhink>x</th\u{fffd}\u{fffd}k>Ok.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, \"</tool_call>\"], \"b\": \"x & y\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arg@uments\": \"{\\\"k\\\": 1}\"}\n</too";
    let opts = ParseOptions::default()
        .with_dialect(toolcall_parser::Dialect::Hermes)
        .with_ignore_fenced_calls(true)
        .with_limits(
            toolcall_parser::Limits::default()
                .with_max_input_bytes(1600)
                .with_max_calls(1)
                .with_max_depth(6)
                .with_max_call_bytes(216)
                .with_max_argument_bytes(4)
                .with_max_elements(7)
                .with_max_input_elements(9),
        );
    let r = assert_chunking_invariant(text, &opts);
    assert!(r.calls().is_empty(), "{r:?}");
    assert_eq!(
        r.errors()[0].limit,
        Some(toolcall_parser::Limit::MaxArgumentBytes)
    );
}

/// `parse_mixed` (the soak of 2026-11-26 12:02): a Hermes call whose `</tool_call>` the input
/// cuts short is read with `missing_call_closer` (FORMAT §9.2), its span running to the end of
/// the input, the cut closer included: no markup is left as prose (with only blanks after the
/// object, the call ends with it). Pinned at every cut of the closer (the fuzz target's check
/// had wanted every span to end at `>` or `}`; it allows this case now).
#[test]
fn a_hermes_call_with_its_closer_cut_spans_to_the_end() {
    let call = "<tool_call>\n{\"name\": \"g\", \"arguments\": {\"a\": 1}}\n</tool_call>";
    let object_end = call.find("}}").unwrap() + 2;
    let opts = ParseOptions::default().with_dialect(toolcall_parser::Dialect::Hermes);
    for cut in object_end..call.len() {
        let text = &call[..cut];
        let r = assert_chunking_invariant(text, &opts);
        assert_eq!(r.calls().len(), 1, "{text:?}");
        // Blanks alone after the object: the call ends with it.
        let end = if text[object_end..].trim().is_empty() {
            object_end
        } else {
            text.len()
        };
        assert_eq!(r.calls()[0].span.end, end, "{text:?}");
        assert!(!r.prose().contains('<'), "{text:?}: {:?}", r.prose());
        assert!(
            r.calls()[0]
                .repairs
                .iter()
                .any(|rep| rep.kind == toolcall_parser::RepairKind::MissingCallCloser),
            "{text:?}"
        );
    }
}

/// `parse_mixed` (the soak of 2026-11-26 12:02; two inputs alike): a **panic** in GLM under
/// `auto`. The grammar remembered how far it had scanned for a tool name after `<tool_call>`;
/// `auto` reads a candidate in windows cut at the next marker of any dialect, and a later window
/// ended before that point: the slice began past its end. The scan now starts at the nearer of
/// the two, the class of `a_terminator_found_in_a_longer_window_is_not_in_a_capped_one`. The
/// input as found (lossily decoded, as the target reads it), `auto`, fences ignored.
#[test]
fn glm_under_auto_a_shorter_window_than_the_last_scan() {
    let text: String = [
        "\u{0}<t=============={=====\u{fffd}".to_owned(),
        "\n".repeat(15),
        "\u{2}".to_owned(),
        "\n".repeat(20),
        "<tool_call>".to_owned(),
        "\n".repeat(15),
        "<tool_call>".to_owned(),
        "\n".repeat(60),
        "<tool_call>".to_owned(),
        "\n".repeat(194),
        "<tool_call>".to_owned(),
        "\n".repeat(20),
        "G".to_owned(),
        "\n".repeat(62),
        "d\u{0}\u{0}\u{0}".to_owned(),
        "\n".repeat(16),
        "{\"server_name\":".to_owned(),
        "\n".repeat(13),
        "\u{11}".to_owned(),
        "\n".repeat(6),
        "=======".to_owned(),
        "\n".repeat(2),
        "======>{".to_owned(),
    ]
    .concat();
    let opts = ParseOptions::default()
        .with_dialect(toolcall_parser::Dialect::Auto)
        .with_ignore_fenced_calls(true);
    let r = assert_chunking_invariant(&text, &opts);
    assert!(r.calls().is_empty(), "{r:?}");
    for d in [
        toolcall_parser::Dialect::Glm,
        toolcall_parser::Dialect::Auto,
    ] {
        let opts = ParseOptions::default().with_dialect(d);
        assert_chunking_invariant(&text, &opts);
    }
}

/// `differential_xml_rs` (CI fuzz-smoke of 2026-11-26): a comment inside `<tool>` holding
/// `<tool_name>` (here a mutated `<!-- c<tool_name>an<rg…`) was no comment, as if it held the
/// call's own `<tool`, so well-formed XML read as `unexpected_text`. A comment is barred only by
/// the element `tool` itself, where the name ends after `<tool` / `</tool` (docs/FORMAT.md §7).
#[test]
fn a_comment_holding_a_longer_name_than_the_call_element_is_a_comment() {
    let text = "<tool a=\"1\">\n  <!-- c<tool_name>an<rgnnnnnnnn</tool_name>uments><c>a <b>x</b> \
                c</c> --><tool_name>t</tool_name><arguments><c>a <b>x</b> c</c></arguments></tool>";
    let r = assert_chunking_invariant(text, &ParseOptions::default());
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    let c = &r.calls()[0];
    assert_eq!(c.tool_name, "t");
    assert!(c.repairs.is_empty(), "{:?}", c.repairs);
    assert_eq!(c.arguments["c"].as_str(), Some("a <b>x</b> c"));
}

/// `parse_mixed` (a seeds-only sweep of 2026-11-26, as CI's fuzz-smoke runs): under `auto`, a
/// Hermes call whose closer the input cuts (`</to`) spans to the end of the input, read with
/// `missing_call_closer`, as under `hermes`; the target allowed that only when the dialect was
/// named, and now also for a call `auto` found (a JSON object after `<tool_call>`).
#[test]
fn auto_reads_a_hermes_call_with_a_cut_closer_as_hermes_does() {
    let text = "Ok.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [0, \"</tool_call>\"], \
                \"b\": \"x & y\"}}\n</to";
    let hermes = ParseOptions::new().with_dialect(toolcall_parser::Dialect::Hermes);
    let auto = ParseOptions::new().with_dialect(toolcall_parser::Dialect::Auto);
    let named = assert_chunking_invariant(text, &hermes);
    let found = assert_chunking_invariant(text, &auto);
    for r in [&named, &found] {
        let c = &r.calls()[0];
        assert_eq!(c.span, 4..text.len());
        assert_eq!(c.arguments["a"][1].as_str(), Some("</tool_call>"));
        assert!(
            c.repairs
                .iter()
                .any(|r| r.kind == toolcall_parser::RepairKind::MissingCallCloser),
            "{:?}",
            c.repairs
        );
    }
    assert_eq!(named.calls()[0].arguments, found.calls()[0].arguments);
}

/// `parse_mixed` (2026-11-26, night): with Kimi-K3's channel markers made layout (FORMAT §9.6
/// rule 8), a reply with no call lost them from its prose, where the target's invariant had all
/// of it prose. The invariant now takes them out of both; here, the inputs as found: a marker
/// standing in text that begins no call is taken out, every other byte is prose, and a marker
/// cut by a `<|open|` prefix is text.
#[test]
fn kimi_channel_markers_in_a_reply_without_calls_are_layout() {
    let opts = ParseOptions::default().with_dialect(toolcall_parser::Dialect::KimiK3);
    for (text, prose) in [
        (
            "Ok. <|open|>call tool=\"f\" index=\"1ool_call> <|open|Bargum<|open|>tools<|sep|>teger done",
            "Ok. <|open|>call tool=\"f\" index=\"1ool_call> <|open|Bargumteger done",
        ),
        (
            "<~open|>argument key=\"n\" 4ype=\"integ<|end_of_msg|>er?<2sep|>3 done",
            "<~open|>argument key=\"n\" 4ype=\"integer?<2sep|>3 done",
        ),
        // A candidate that is no marker (its first `<|sep|>` ends another name) is text, and the
        // marker inside it is still one.
        (
            "<!<|open|>response<!<|open|>response<|sep|>all<|sep|> done",
            "<!<|open|>response<!all<|sep|> done",
        ),
    ] {
        let r = assert_chunking_invariant(text, &opts);
        assert!(r.calls().is_empty() && r.errors().is_empty(), "{text}");
        assert_eq!(r.prose(), prose);
    }
}

/// `parse_mixed` (the soak of 2026-11-27 06:29, `fuzz/SOAK.md`): a Kimi-K3 call that a channel's
/// marker ended where `<|close|>call<|sep|>` was due (`<|end_of_msg|>` here) kept the blanks
/// before the marker in its span, so the span ended in blanks, where every other call ends with
/// its markup (a Qwen3-Coder call's with `</function>`, the blanks after it prose). The span now
/// ends with the call's last marker; the blanks are prose, the marker layout (FORMAT §9.6 rule 8).
#[test]
fn kimi_call_ended_by_a_channel_marker_leaves_its_blanks_to_prose() {
    let opts = ParseOptions::default().with_dialect(toolcall_parser::Dialect::KimiK3);
    let open = "<|open|>call tool=\"f\" index=\"1\"<|sep|>";
    let argument = "<|open|>argument key=\"a\"<|sep|>x<|close|>argument<|sep|>";
    for (body, end) in [("", "<|end_of_msg|>"), (argument, "<|close|>tools<|sep|>")] {
        for blanks in ["", "\n", " \n\n\t"] {
            let text = format!("Ok. {open}{body}{blanks}{end}\nafter");
            let r = assert_chunking_invariant(&text, &opts);
            assert!(r.errors().is_empty(), "{text:?}");
            let call = &r.calls()[0];
            let span = &text[call.span.clone()];
            assert_eq!(span, format!("{open}{body}"), "{text:?}");
            assert_eq!(
                call.repairs[0].kind,
                toolcall_parser::RepairKind::MissingCallCloser
            );
            assert_eq!(r.prose(), format!("Ok. {blanks}\nafter"), "{text:?}");
        }
    }
}

/// `parse_mixed` (the soak of 2026-11-27 06:33): a Hermes call whose input ends at the first
/// byte of its closer (`…}\n<`) is read with `missing_call_closer`, its span ending with the
/// input, as with any beginning of `</tool_call>` (FORMAT §9.2; with only blanks after the
/// object, the span ends with the object); the target's invariant knew only closers cut after
/// `</`, and now takes any beginning of it from `<`.
#[test]
fn hermes_closer_cut_to_its_first_byte_ends_the_call() {
    let opts = ParseOptions::default().with_dialect(toolcall_parser::Dialect::Hermes);
    let object = "{\"name\": \"g\", \"argumen\u{fffd}s\": \"{[\\\"\"}";
    for cut in ["", "\n", "\n<", "\n</", "\n</tool_ca", "\n</tool_call"] {
        let text = format!("<tool_call>\n{object}{cut}");
        let r = assert_chunking_invariant(&text, &opts);
        assert!(r.errors().is_empty(), "{text:?}");
        let call = &r.calls()[0];
        assert_eq!(call.tool_name, "g");
        // The span ends with the object when only blanks follow it, else with the input.
        let end = if cut.trim().is_empty() {
            text.len() - cut.len()
        } else {
            text.len()
        };
        assert_eq!(call.span.end, end, "{text:?}");
        assert_eq!(
            call.repairs[0].kind,
            toolcall_parser::RepairKind::MissingCallCloser,
            "{text:?}"
        );
    }
    // The closer written wrong is no closer: the call is an error, not cut short.
    let text = format!("<tool_call>\n{object}\n</tyol_call>");
    let r = toolcall_parser::parse_with(&text, &opts);
    assert_eq!(
        r.errors()[0].kind,
        toolcall_parser::ErrorKind::UnexpectedText
    );
}

/// `stream_chunking` (the soak of 2026-11-27 06:52): a Qwen3-Coder call cut by the end of the
/// input after blanks that took it past `max_call_bytes` was `limit_exceeded` when a streamed
/// window had read the blanks (the next state met the limit), and `unterminated_call` when the
/// whole input was read at once (the blanks ran to the end, and no state came after them). The
/// class: a call the input cuts, after reading past the call limit, is too long in every dialect
/// and chunking (`Assembler::unterminated` checks the limit first).
#[test]
fn a_cut_call_past_the_call_limit_is_too_long_in_every_chunking() {
    use toolcall_parser::{Dialect, ErrorKind, Limits};
    let limit = 60;
    for (dialect, open) in [
        (Dialect::Qwen3Coder, "<tool_call>\n<function=f>"),
        (Dialect::Glm, "<tool_call>f\n<arg_key>a</arg_key>"),
        (
            Dialect::MinimaxM2,
            "<minimax:tool_call>\n<invoke name=\"f\">",
        ),
        (
            Dialect::KimiK3,
            "<|open|>call tool=\"f\" index=\"1\"<|sep|>",
        ),
        (Dialect::Tool, "<tool><tool_name>f</tool_name><arguments>"),
    ] {
        let opts = ParseOptions::default()
            .with_dialect(dialect)
            .with_limits(Limits::default().with_max_call_bytes(limit));
        for pad in 0..=limit {
            let text = format!("Ok. {open}{}", "\r\n ".repeat(pad).get(..pad).unwrap_or(""));
            let r = assert_chunking_invariant(&text, &opts);
            let errors = r.errors();
            let Some(e) = errors.first() else {
                panic!("{dialect:?} {text:?}: no error, {r:?}");
            };
            let read = text.len() - "Ok. ".len();
            let expected = if read > limit {
                ErrorKind::LimitExceeded
            } else {
                ErrorKind::UnterminatedCall
            };
            assert_eq!(e.kind, expected, "{dialect:?} {text:?}");
        }
    }
}

/// `differential_xml_rs` (soak of 2026-11-27): `&#13;` directly inside `<arguments>` is a
/// carriage return, blank, which xml-rs (as any XML reader) takes as layout between elements; it
/// was read as text, and the valid call became `unexpected_text`. A reference to a blank is the
/// blank it stands for there and inside `<tool>` (docs/FORMAT.md §1.2); a reference to anything
/// else is still text.
#[test]
fn references_to_blanks_between_elements_are_layout() {
    let found = "<tool><tool_name>w</tool_name><arguments>&#13;<c>a <b>x</b> c</c><html><div \
                 class=\"x\"><p>Hi &amp; bye</p></div></html></arguments></tool>";
    let r = assert_chunking_invariant(found, &ParseOptions::default());
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    let c = r.calls()[0];
    assert_eq!(c.arguments["c"].as_str(), Some("a <b>x</b> c"));
    assert!(c.repairs.is_empty());
    for blank in [
        "&#13;",
        "&#xD;",
        "&#32;",
        "&#x20;",
        "&#9;",
        "&#10;",
        " &#10;\t&#13;\n",
    ] {
        let text = format!(
            "<tool><tool_name>w</tool_name>{blank}<arguments>{blank}<a>1</a>{blank}\
             <b>x</b>{blank}</arguments>{blank}</tool>"
        );
        let r = assert_chunking_invariant(&text, &ParseOptions::default());
        assert!(r.errors().is_empty(), "{blank}: {:?}", r.errors());
        let c = r.calls()[0];
        assert_eq!(c.arguments["a"], toolcall_parser::Value::Int(1), "{blank}");
        assert_eq!(c.arguments.len(), 2, "{blank}");
    }
    // After an argument's close tag, a reference to a blank is layout up to 12 bytes; a longer
    // one is text, and so is the close tag before it (§4 rule 4), in every chunking.
    let long = "<tool><tool_name>w</tool_name><arguments><a>1</a>&#x000000000D;<b>x</b>\
                </arguments></tool>";
    let r = assert_chunking_invariant(long, &ParseOptions::default());
    assert!(r.calls().is_empty());
    assert_eq!(
        r.errors()[0].kind,
        toolcall_parser::ErrorKind::MismatchedTag
    );
    // Right after `<tool>`, the first non-blank byte decides whether it opens a call (§1.1).
    let r = assert_chunking_invariant(
        "<tool>&#13;<tool_name>w</tool_name></tool>",
        &ParseOptions::default(),
    );
    assert!(r.calls().is_empty() && r.errors().is_empty());
    for text_ref in ["&#65;", "&#xA0;", "&amp;"] {
        let text = format!(
            "<tool><tool_name>w</tool_name><arguments>{text_ref}<a>1</a></arguments></tool>"
        );
        let r = assert_chunking_invariant(&text, &ParseOptions::default());
        assert!(r.calls().is_empty(), "{text_ref}");
        assert_eq!(
            r.errors()[0].kind,
            toolcall_parser::ErrorKind::UnexpectedText,
            "{text_ref}"
        );
    }
}
