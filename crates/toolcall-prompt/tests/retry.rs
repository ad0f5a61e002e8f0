//! The retry message's wording, for every kind of parse error: each error is produced by parsing
//! a malformed reply, as an agent loop would meet it.

use serde_json::json;
use std::sync::Arc;
use toolcall_parser::{ErrorKind, Limits, ParseError, ParseOptions, ToolSchemas};
use toolcall_prompt::{no_tool_call_message, retry_message};

const ALL_KINDS: [ErrorKind; 12] = [
    ErrorKind::UnterminatedCall,
    ErrorKind::MismatchedTag,
    ErrorKind::MissingToolName,
    ErrorKind::UnexpectedElement,
    ErrorKind::UnexpectedText,
    ErrorKind::DuplicateElement,
    ErrorKind::ForbiddenMarkup,
    ErrorKind::InvalidCharacterReference,
    ErrorKind::InvalidJson,
    ErrorKind::InvalidArgument,
    ErrorKind::LimitExceeded,
    ErrorKind::InvalidToolName,
];

/// A reply that triggers `kind`, the options to parse it with, and the fix the retry message
/// must name for it. `ErrorKind` is non-exhaustive, so a new kind reaches the wildcard and fails
/// the test until it gets a sample here and a place in `ALL_KINDS`.
fn sample(kind: ErrorKind) -> (&'static str, ParseOptions, &'static [&'static str]) {
    const ESCAPING: &[&str] = &["&amp;", "&lt;", "CDATA", "]]>", "]]]]><![CDATA[>"];
    let default = ParseOptions::default();
    match kind {
        ErrorKind::UnterminatedCall => (
            "Sure.\n<tool><tool_name>write_to_file</tool_name><arguments><path>a</path><content>par",
            default,
            &["end the call with </tool>"],
        ),
        ErrorKind::MismatchedTag => (
            "<tool>\n<tool_name>write_to_file</tool_name>\n<arguments>\n  <content>a < b</contents>\n</arguments>\n</tool>",
            default,
            ESCAPING,
        ),
        ErrorKind::MissingToolName => (
            "<tool><arguments><a>1</a></arguments></tool>",
            default,
            &["name the tool", "<tool_name>NAME</tool_name>"],
        ),
        ErrorKind::UnexpectedElement => (
            "<tool><tool_name>a</tool_name><foo/></tool>",
            default,
            &["exactly one <tool_name>", "inside <arguments>"],
        ),
        ErrorKind::UnexpectedText => (
            "<tool><tool_name>a</tool_name>junk</tool>",
            default,
            ESCAPING,
        ),
        ErrorKind::DuplicateElement => (
            "<tool><tool_name>a</tool_name><tool_name>b</tool_name></tool>",
            default,
            &["exactly one <tool_name>"],
        ),
        ErrorKind::ForbiddenMarkup => (
            "<tool><tool_name>a</tool_name><arguments><!DOCTYPE x></arguments></tool>",
            default,
            &["DOCTYPE", "&lt;!DOCTYPE", "<![CDATA["],
        ),
        ErrorKind::InvalidCharacterReference => (
            "<tool><tool_name>a</tool_name><arguments><x>&#0;</x></arguments></tool>",
            default,
            ESCAPING,
        ),
        ErrorKind::InvalidJson => (
            "x\n<tool>{\"tool_name\": \"w\", \"arguments\": {\"c\": 1,}}</tool>",
            default,
            &["XML form instead of JSON"],
        ),
        ErrorKind::InvalidArgument => {
            let mut schemas = ToolSchemas::default();
            schemas.insert(
                "read_file",
                json!({"type": "object", "properties": {"path": {"type": "string"}, "line_start": {"type": "integer"}}}),
            );
            (
                "<tool><tool_name>read_file</tool_name><arguments><path>a</path>\
                 <line_start>ten</line_start></arguments></tool>",
                ParseOptions::default().with_schemas(Arc::new(schemas)),
                &[
                    "line_start",
                    "expected integer",
                    "the type the tool's schema asks for",
                ],
            )
        }
        ErrorKind::LimitExceeded => (
            "<tool><tool_name>w</tool_name><arguments><a>xxxxxxxxxxxxxxxxxxxxxxxx</a></arguments></tool>",
            ParseOptions::default().with_limits(Limits::default().with_max_argument_bytes(8)),
            &["make the call smaller", "split the work"],
        ),
        ErrorKind::InvalidToolName => (
            "<tool_call>\n<function=rm -rf>\n</function>\n</tool_call>",
            ParseOptions::new().with_dialect(toolcall_parser::Dialect::Qwen3Coder),
            &["<function=NAME>", "letters, digits"],
        ),
        other => panic!("no sample reply for {other:?}: add one"),
    }
}

fn errors_of(text: &str, options: &ParseOptions) -> Vec<ParseError> {
    toolcall_parser::parse_with(text, options)
        .errors()
        .into_iter()
        .cloned()
        .collect()
}

#[test]
fn each_kind_names_what_where_and_its_fix() {
    for kind in ALL_KINDS {
        let (text, options, fix) = sample(kind);
        let errors = errors_of(text, &options);
        assert_eq!(errors.len(), 1, "{kind:?}: {errors:?}");
        let e = &errors[0];
        assert_eq!(e.kind, kind, "{text}");
        let msg = retry_message(&errors);
        assert!(
            msg.starts_with(
                "1 tool call in your last reply could not be read, so it was not run.\n"
            ),
            "{kind:?}: {msg}"
        );
        assert!(msg.contains(&e.message), "{kind:?}: {msg}");
        let at = format!("line {}, column {}", e.line, e.column);
        assert!(msg.contains(&at), "{kind:?} lacks {at}: {msg}");
        for needle in fix {
            assert!(msg.contains(needle), "{kind:?} lacks {needle:?}: {msg}");
        }
        assert!(
            msg.ends_with(
                "\nSend the failed call again, corrected. Do not repeat calls that were read.\n"
            ),
            "{kind:?}: {msg}"
        );
        // The message is the error's own feedback, framed: nothing of it is lost.
        for line in e.feedback().lines() {
            assert!(msg.contains(line), "{kind:?} lost {line:?}");
        }
    }
}

#[test]
fn escaping_errors_teach_entities_before_cdata() {
    let (text, options, _) = sample(ErrorKind::MismatchedTag);
    let msg = retry_message(&errors_of(text, &options));
    let entities = msg.find("&amp;").unwrap();
    let cdata = msg.find("CDATA").unwrap();
    assert!(entities < cdata, "{msg}");
    assert!(msg.contains("`write_to_file`"), "{msg}");
    // At the first offending byte: the misspelt </contents> (docs/FORMAT.md §7).
    assert!(msg.contains("line 4, column 17"), "{msg}");
}

#[test]
fn several_errors_are_numbered_and_a_repeated_fix_is_given_once() {
    let text = "<tool><tool_name>a</tool_name>junk</tool>\n\
                <tool><tool_name>b</tool_name><arguments><x>&#0;</x></arguments></tool>\n\
                <tool><arguments></arguments></tool>";
    let errors = errors_of(text, &ParseOptions::default());
    assert_eq!(errors.len(), 3);
    let msg = retry_message(&errors);
    assert!(
        msg.starts_with(
            "3 tool calls in your last reply could not be read, so they were not run.\n\n1. "
        ),
        "{msg}"
    );
    assert!(msg.contains("\n2. Your call to `b`"), "{msg}");
    assert!(
        msg.contains("\n3. Your tool call could not be read"),
        "{msg}"
    );
    assert_eq!(msg.matches("&amp;").count(), 1, "{msg}");
    assert!(msg.contains("Fix: as for 1.\n"), "{msg}");
    assert!(msg.contains("name the tool"), "{msg}");
    assert!(msg.ends_with(
        "\nSend the failed calls again, corrected. Do not repeat calls that were read.\n"
    ));
}

#[test]
fn many_errors_are_listed_up_to_eight_then_counted() {
    let one = "<tool><tool_name>a</tool_name>junk</tool>\n";
    let errors = errors_of(&one.repeat(11), &ParseOptions::default());
    assert_eq!(errors.len(), 11);
    let msg = retry_message(&errors);
    assert!(msg.contains("\n8. "), "{msg}");
    assert!(!msg.contains("\n9. "), "{msg}");
    assert!(
        msg.contains("\n3 more could not be read (unexpected_text).\n"),
        "{msg}"
    );
    assert!(msg.starts_with("11 tool calls"));
}

#[test]
fn no_errors_no_message() {
    let errors = errors_of(
        "<tool><tool_name>a</tool_name></tool>",
        &ParseOptions::default(),
    );
    assert!(errors.is_empty());
    assert_eq!(retry_message(&errors), "");
}

#[test]
fn a_reply_without_calls_is_told_how_to_call() {
    let msg = no_tool_call_message();
    assert!(msg.contains("no tool call"));
    assert!(msg.contains("<tool>"));
    assert!(msg.contains("code fence"));
}
