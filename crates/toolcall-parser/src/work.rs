//! A deterministic measure of the parser's work, for the cost oracle of the fuzz targets and the
//! linearity tests: bytes examined by the searches that may look ahead of what they return (the
//! lexer's terminators and barriers, the raw-text dialects' needles, the reasoning markers),
//! entries examined by lookups by name, and lexemes made. Counted per thread, only with the
//! `work-counter` feature (and in this crate's tests); otherwise [`add`] is nothing.
//!
//! Wall time cannot be asserted in a test or a fuzz target; this can. A quadratic rescan that
//! allocates nothing (a terminator searched for to the end of the input again and again) shows
//! here as work growing 16× from n to 4n, where linear work grows 4×.

#[cfg(any(test, feature = "work-counter"))]
thread_local! {
    static UNITS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Adds `n` units of work (bytes examined, entries probed, a lexeme made).
#[inline]
pub(crate) fn add(n: usize) {
    #[cfg(any(test, feature = "work-counter"))]
    UNITS.with(|u| u.set(u.get() + n as u64));
    let _ = n;
}

/// The units of work this thread's parsers have done so far (feature `work-counter`): compare
/// two readings around a parse.
///
/// ```
/// let before = toolcall_parser::work_units();
/// toolcall_parser::parse("<tool><tool_name>t</tool_name><arguments><a><![CDATA[x]]></a></arguments></tool>");
/// assert!(toolcall_parser::work_units() > before);
/// ```
#[cfg(feature = "work-counter")]
pub fn work_units() -> u64 {
    UNITS.with(std::cell::Cell::get)
}

#[cfg(test)]
mod tests {
    use super::UNITS;
    use crate::{Dialect, ParseOptions, Reasoning, StreamParser, chunks, parse_with};

    /// Work units of one parse of `text`, one-shot and streamed in chunks of 7 bytes.
    fn work(text: &str, opts: &ParseOptions) -> (u64, u64) {
        let before = UNITS.with(std::cell::Cell::get);
        parse_with(text, opts);
        let one_shot = UNITS.with(std::cell::Cell::get) - before;
        let before = UNITS.with(std::cell::Cell::get);
        let mut p = StreamParser::with_options(opts.clone());
        for piece in chunks(text, 7) {
            p.feed(piece);
        }
        p.finish();
        (one_shot, UNITS.with(std::cell::Cell::get) - before)
    }

    /// Work is linear in the input for the shapes that were quadratic once (issue 14) and for
    /// each dialect's own repetitions: 4× the copies cost at most 5× the work, one-shot and
    /// streamed.
    #[test]
    fn work_grows_linearly_per_shape() {
        let qwen = ParseOptions::new().with_dialect(Dialect::Qwen3Coder);
        let tool = ParseOptions::new();
        let shapes: Vec<(ParseOptions, &str, &str, &str)> = vec![
            (
                tool.clone(),
                "<tool><tool_name>t</tool_name><arguments><a><![CDATA[",
                "x\r\n",
                "]]></a></arguments></tool>",
            ),
            (
                tool.clone(),
                "<tool><tool_name>t</tool_name><arguments><a>",
                "<!-- x ",
                "</a></arguments></tool>",
            ),
            (
                tool.clone(),
                "",
                "<tool><tool_name>t</tool_name><arguments><a>1</a></arguments></tool> ",
                "",
            ),
            (
                tool.clone(),
                "<tool><tool_name>t</tool_name><arguments><a>",
                "</b>x",
                "</a></arguments></tool>",
            ),
            (
                qwen.clone(),
                "<tool_call>\n<function=f>\n<parameter=a>\n",
                "x </parameter> y\n",
                "</parameter>\n</function>\n</tool_call>",
            ),
            (
                qwen.clone(),
                "",
                "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>\n",
                "",
            ),
            (
                qwen.clone(),
                "<tool_call>\n<function=f>\n",
                "<parameter=a>\n1\n</parameter>\n",
                "</function>\n</tool_call>",
            ),
            (
                ParseOptions::new().with_dialect(Dialect::Glm),
                "<tool_call>f\n<arg_key>a</arg_key><arg_value>",
                "</arg_value> x",
                "</arg_value></tool_call>",
            ),
            (
                ParseOptions::new().with_dialect(Dialect::MinimaxM2),
                "<minimax:tool_call><invoke name=\"f\"><parameter name=\"a\">",
                "</parameter> x",
                "</parameter></invoke></minimax:tool_call>",
            ),
            (
                ParseOptions::new().with_dialect(Dialect::KimiK3),
                "<|open|>call tool=\"f\"<|sep|><|open|>argument key=\"a\"<|sep|>",
                "<|close|>argument x",
                "<|close|>argument<|sep|><|close|>call<|sep|>",
            ),
            (
                ParseOptions::new().with_dialect(Dialect::Auto),
                "",
                "<tool_call x <tool x <function= ",
                "",
            ),
            (
                qwen.clone()
                    .with_reasoning(Reasoning::for_dialect(Dialect::Qwen3Coder)),
                "<think>",
                "`<tool_call>` ",
                "</think>ok",
            ),
        ];
        for (opts, prefix, repeat, suffix) in shapes {
            let text = |n: usize| format!("{prefix}{}{suffix}", repeat.repeat(n));
            let (small, large) = (work(&text(1_000), &opts), work(&text(4_000), &opts));
            for (how, a, b) in [
                ("one-shot", small.0, large.0),
                ("streamed", small.1, large.1),
            ] {
                assert!(
                    b <= 5 * a + 1_000,
                    "{}: {how} work {a} at 1,000 copies of {repeat:?}, {b} at 4,000",
                    opts.dialect()
                );
            }
        }
    }
}
