//! Helpers shared by the parser's integration tests.
#![allow(dead_code)]

pub(crate) mod damaged;

use toolcall_parser::{ParseOptions, ParseResult, StreamEvent, StreamParser};

/// Streams `text` in chunks of `n` bytes (at character boundaries) and folds the events.
pub(crate) fn parse_chunked(text: &str, options: &ParseOptions, n: usize) -> ParseResult {
    ParseResult::from_events(stream_events(text, options, n))
}

/// Every event of streaming `text` in chunks of `n` bytes.
pub(crate) fn stream_events(text: &str, options: &ParseOptions, n: usize) -> Vec<StreamEvent> {
    let mut p = StreamParser::with_options(options.clone());
    let mut events = Vec::new();
    for chunk in toolcall_parser::chunks(text, n) {
        events.extend(p.feed(chunk));
    }
    events.extend(p.finish());
    events
}

/// Streams raw `bytes` in chunks of `n` bytes through `feed_bytes` (so that a chunk may split a
/// character anywhere) and folds the events.
pub(crate) fn parse_bytes_chunked(bytes: &[u8], options: &ParseOptions, n: usize) -> ParseResult {
    let mut p = StreamParser::with_options(options.clone());
    let mut events = Vec::new();
    for chunk in bytes.chunks(n) {
        events.extend(p.feed_bytes(chunk));
    }
    events.extend(p.finish());
    ParseResult::from_events(events)
}

/// Streams `text` in chunks whose sizes alternate between `sizes[0]` and `sizes[1]` (at
/// character boundaries), as the fuzzers like to, and folds the events.
pub(crate) fn parse_alternating(
    text: &str,
    options: &ParseOptions,
    sizes: [usize; 2],
) -> ParseResult {
    let mut p = StreamParser::with_options(options.clone());
    let (mut events, mut at, mut i) = (Vec::new(), 0, 0);
    while at < text.len() {
        let mut end = (at + sizes[i % 2]).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        events.extend(p.feed(&text[at..end]));
        (at, i) = (end, i + 1);
    }
    events.extend(p.finish());
    ParseResult::from_events(events)
}

/// The `stream_chunking` fuzz target's small limits (control byte with the limits bit, input
/// 450 bytes), for the inputs it found.
pub(crate) fn fuzz_small_limits() -> toolcall_parser::Limits {
    toolcall_parser::Limits::default()
        .with_max_input_bytes(450)
        .with_max_calls(2)
        .with_max_depth(4)
        .with_max_call_bytes(120)
        .with_max_argument_bytes(24)
        .with_max_elements(6)
        .with_max_input_elements(10)
}

/// Asserts that streaming `text` in every chunk size up to 17, and in a few larger ones, gives
/// exactly the one-shot result.
pub(crate) fn assert_chunking_invariant(text: &str, options: &ParseOptions) -> ParseResult {
    let whole = toolcall_parser::parse_with(text, options);
    for n in (1..=17).chain([31, 64, 100, 4096]) {
        assert_eq!(
            parse_chunked(text, options, n),
            whole,
            "chunk size {n} differs for {text:?}"
        );
    }
    whole
}

/// A call in the XML form with the given arguments (already written as XML).
pub(crate) fn call(tool: &str, arguments: &str) -> String {
    format!(
        "<tool>\n<server_name>local</server_name>\n<tool_name>{tool}</tool_name>\n<arguments>\n{arguments}\n</arguments>\n</tool>"
    )
}

/// Fragments of the format, and of inputs the fuzzers found, that reach the grammar's deep states
/// when concatenated.
pub(crate) const VOCABULARY: &[&str] = &[
    "<tool>",
    "</tool>",
    "<tool_name>",
    "</tool_name>",
    "t",
    "<server_name>",
    "</server_name>",
    "<arguments>",
    "</arguments>",
    "<a>",
    "</a>",
    "<b>",
    "</b>",
    "<a/>",
    "<![CDATA[",
    "]]>",
    "]",
    "&amp;",
    "&",
    "&lt;",
    "&#x3C;",
    "&#60;",
    "&#0;",
    "&am",
    "<",
    ">",
    "{",
    "}",
    "\"",
    "\\",
    "\r\n",
    "\r",
    "\n",
    " ",
    "x",
    "é",
    "🦀",
    "<!--",
    "-->",
    "<?x?>",
    "<!DOCTYPE x>",
    "```\n",
    "~~~\n",
    "{\"tool_name\":\"j\",\"arguments\":{\"k\":[1,\"</tool>\"]}}",
    "<toolbox>",
    "<tool >",
    "</content> more",
    "Vec<T>",
    "a < b",
    "='",
    "<a x=\"1\">",
    "</tool >",
    "&#13;",
    "<?p?>",
    "{\"tool_name\":\"j\",\"arguments\":{\"k\":[1,\"</tool>\"],\"s\":\"long string\"}}",
    "</a> more",
    // The other dialects' markup.
    "<tool_call>",
    "</tool_call>",
    "<seed:tool_call>",
    "</seed:tool_call>",
    "<function=f>",
    "<function={{ x }}>",
    "</function>",
    "<parameter=p>",
    "<parameter=q>",
    "<think>",
    "</think>",
    "`",
    "</parameter>",
    "{\"name\": \"f\", \"arguments\": {\"a\": [1, \"</tool_call>\"]}}",
    // GLM.
    "<tool_call>f",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    // The invoke family.
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<function_calls>",
    "</function_calls>",
    "<invoke name=\"f\">",
    "<invoke name='{{ x }}'>",
    "</invoke>",
    "<parameter name=\"p\">",
    "<parameter name=\"q\">",
    "<｜DSML｜function_calls>",
    "</｜DSML｜tool_calls>",
    "<｜DSML｜invoke name=\"f\">",
    "</｜DSML｜invoke>",
    "<｜DSML｜parameter name=\"p\" string=\"false\">",
    "</｜DSML｜parameter>",
    "<｜tool_calls_begin｜>",
    "<｜tool_call_begin｜>function<｜tool_sep｜>",
    "<steptml:invoke name=\"f\">",
    "</steptml:invoke>",
    "<steptml:parameter name=\"p\">",
    "</steptml:parameter>",
    "<｜tool_call_end｜>",
    "<｜tool_calls_end｜>",
    // Kimi-K3.
    "<|open|>call tool=\"f\"<|sep|>",
    "<|open|>argument key=\"p\" type=\"integer\"<|sep|>",
    "<|close|>argument<|sep|>",
    "<|close|>call<|sep|>",
    "<|open|>",
    "<|sep|>",
    "<|",
    // MiniMax-M3: the marker, its tags, pieces of them.
    "]<]minimax[>[",
    "]<]minimax[>[<tool_call>",
    "]<]minimax[>[</tool_call>",
    "]<]minimax[>[<invoke name=\"f\">",
    "]<]minimax[>[<invoke name='g h'>",
    "]<]minimax[>[</invoke>",
    "]<]minimax[>[<a>",
    "]<]minimax[>[</a>",
    "]<]minimax[>[<item>",
    "]<]minimax[>[</item>",
    "]<]mini",
    "<mm:think>",
    "</mm:think>",
    // Whole calls, so that soups hold complete calls of every dialect (and repeated names).
    "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>",
    "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
    "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
    "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>",
    "<|open|>call tool=\"f\"<|sep|><|open|>argument key=\"a\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>",
    "<tool><tool_name>f</tool_name><arguments><a>1</a></arguments></tool>",
    "<tool\t><tool_name>f</tool_name></tool>",
    "<tool_call >",
    "<tool_call=f>",
];

/// Inputs made of up to 40 [`VOCABULARY`] fragments.
pub(crate) fn soup() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop::collection::vec(prop::sample::select(VOCABULARY), 0..40).prop_map(|v| v.concat())
}
