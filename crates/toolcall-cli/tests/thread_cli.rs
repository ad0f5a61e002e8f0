//! `toolcall thread` end to end: the built binary on files and standard input.

mod common;

use common::{repo_root, text, toolcall};

const EXAMPLE_THREAD: &str = r#"<thread>
  <event type="human" id="0" iteration="0">What is 2+2?</event>
  <event type="tool_input" id="1" name="calculator" iteration="1">{&quot;expression&quot;:&quot;2+2&quot;}</event>
  <event type="tool_output" id="2" name="calculator" status="success" iteration="1">4</event>
  <event type="ai" id="3" iteration="1">The answer is 4.</event>
  <event type="completion" id="4" iteration="1">The answer is 4.</event>
</thread>
"#;

#[test]
fn serializes_the_example_file() {
    let out = toolcall(&["thread", "examples/thread_events.json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), EXAMPLE_THREAD);
    assert!(out.stderr.is_empty());
}

#[test]
fn reads_standard_input_with_dash_or_no_file() {
    let events = std::fs::read_to_string(repo_root().join("examples/thread_events.json")).unwrap();
    for args in [&["thread", "-"][..], &["thread"][..]] {
        let out = toolcall(args, Some(&events));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), EXAMPLE_THREAD);
    }
}

#[test]
fn response_prefix_follows_the_thread() {
    let out = toolcall(
        &[
            "thread",
            "examples/thread_events.json",
            "--response-prefix",
            "Based on the above thread, I will now",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let expected = format!("{EXAMPLE_THREAD}Based on the above thread, I will now\n");
    assert_eq!(text(&out.stdout), expected);
}

#[test]
fn empty_array_gives_an_empty_thread() {
    let out = toolcall(&["thread", "-"], Some("[]"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "<thread>\n</thread>\n");
}

#[test]
fn control_characters_in_tool_output_stay_well_formed() {
    let events = r#"[
      {"type":"tool_call","toolName":"shell","toolCallId":"c","args":{"cmd":"ls"},"iteration":1},
      {"type":"tool_result","toolCallId":"c","result":"\u001b[32mok\u001b[0m & <done>","iteration":1}
    ]"#;
    let out = toolcall(&["thread"], Some(events));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(
            r#"<event type="tool_output" id="1" name="shell" status="success" iteration="1">\u{1b}[32mok\u{1b}[0m &amp; &lt;done&gt;</event>"#
        ),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn malformed_json_is_exit_1_with_line_and_column() {
    let out = toolcall(
        &["thread", "-"],
        Some("[\n  {\"type\": \"message\", \"role\": \"user\",, }\n]"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(
        err.starts_with("toolcall: error: invalid events JSON at line 2, column 38: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // serde_json's own " at line 2 column 38" suffix is not repeated.
    assert!(!err.contains(" at line 2 column"), "{err}");
}

#[test]
fn unknown_event_type_is_exit_1_naming_it() {
    let out = toolcall(
        &["thread", "-"],
        Some(r#"[{"type":"approval","iteration":0}]"#),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("invalid events JSON at line 1, column "),
        "{err}"
    );
    assert!(err.contains("unknown variant `approval`"), "{err}");
}

#[test]
fn missing_file_is_exit_2() {
    let out = toolcall(&["thread", "examples/no_such_events.json"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.starts_with("toolcall: error: cannot read "), "{err}");
}

#[test]
fn lone_surrogates_and_integral_floats_are_accepted() {
    // JSON.stringify of a string cut inside an emoji, and an iteration a Python writer printed.
    let events = r#"[{"type":"message","role":"assistant","content":"a\ud83db","iteration":1.0}]"#;
    let out = toolcall(&["thread"], Some(events));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "<thread>\n  <event type=\"ai\" id=\"0\" iteration=\"1\">a\u{fffd}b</event>\n</thread>\n"
    );
    let out = toolcall(&["thread"], Some(&events.replace("1.0", "1.5")));
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("invalid value: floating point `1.5`, expected a non-negative integer"),
        "{err}"
    );
}
