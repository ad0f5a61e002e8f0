//! Calls of two arguments in eight dialects, damaged: pieces of their markup dropped or the
//! input cut anywhere, for the tests that hold every damaged form to the rules (no call lost or
//! invented, repairs named by kind, truncation reported with what arrived).

use toolcall_parser::Dialect;

/// The pieces of a call of two arguments (`a`, then `b`) in each dialect with markup around its
/// values: the opening wrapper, the call's opening, `a`'s opening tag, value and close tag, the
/// same for `b`, the call's close and the wrapper's.
pub(crate) fn two_argument_calls() -> Vec<(Dialect, Vec<String>)> {
    let pieces = |v: &[&str]| v.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    let m3 = |v: &[&str]| {
        v.iter()
            .map(|p| p.replace('§', "]<]minimax[>["))
            .collect::<Vec<_>>()
    };
    let qwen = |wrap: &str| {
        let (open, close) = (format!("<{wrap}>\n"), format!("</{wrap}>"));
        let mut v = vec![open];
        v.extend(pieces(&[
            "<function=f>\n",
            "<parameter=a>\n",
            "1\n",
            "</parameter>\n",
            "<parameter=b>\n",
            "2\n",
            "</parameter>\n",
            "</function>\n",
        ]));
        v.push(close);
        v
    };
    vec![
        (Dialect::Qwen3Coder, qwen("tool_call")),
        (Dialect::SeedOss, qwen("seed:tool_call")),
        (
            Dialect::MinimaxM2,
            pieces(&[
                "<minimax:tool_call>\n",
                "<invoke name=\"f\">\n",
                "<parameter name=\"a\">",
                "1",
                "</parameter>\n",
                "<parameter name=\"b\">",
                "2",
                "</parameter>\n",
                "</invoke>\n",
                "</minimax:tool_call>",
            ]),
        ),
        (
            Dialect::DeepseekDsml,
            pieces(&[
                "<｜DSML｜function_calls>\n",
                "<｜DSML｜invoke name=\"f\">\n",
                "<｜DSML｜parameter name=\"a\" string=\"true\">",
                "1",
                "</｜DSML｜parameter>\n",
                "<｜DSML｜parameter name=\"b\" string=\"false\">",
                "2",
                "</｜DSML｜parameter>\n",
                "</｜DSML｜invoke>\n",
                "</｜DSML｜function_calls>",
            ]),
        ),
        (
            Dialect::Glm,
            pieces(&[
                "<tool_call>",
                "f\n",
                "<arg_key>a</arg_key>\n<arg_value>",
                "1",
                "</arg_value>\n",
                "<arg_key>b</arg_key>\n<arg_value>",
                "2",
                "</arg_value>\n",
                "",
                "</tool_call>",
            ]),
        ),
        (
            Dialect::KimiK3,
            pieces(&[
                "<|open|>tools<|sep|>",
                "<|open|>call tool=\"f\" index=\"1\"<|sep|>",
                "<|open|>argument key=\"a\"<|sep|>",
                "1",
                "<|close|>argument<|sep|>",
                "<|open|>argument key=\"b\"<|sep|>",
                "2",
                "<|close|>argument<|sep|>",
                "<|close|>call<|sep|>",
                "<|close|>tools<|sep|>",
            ]),
        ),
        (
            Dialect::MinimaxM3,
            m3(&[
                "§<tool_call>",
                "§<invoke name=\"f\">",
                "§<a>",
                "1",
                "§</a>",
                "§<b>",
                "2",
                "§</b>",
                "§</invoke>",
                "§</tool_call>",
            ]),
        ),
        (
            Dialect::Tool,
            pieces(&[
                "<tool>",
                "<tool_name>f</tool_name><arguments>",
                "<a>",
                "1",
                "</a>",
                "<b>",
                "2",
                "</b>",
                "</arguments>",
                "</tool>",
            ]),
        ),
    ]
}

/// Every call of [`two_argument_calls`] with any of its pieces dropped, and `a` given again
/// after `b` (its pieces 2 to 4) or not, followed by prose; with whether the call was opened
/// ([`call_opened`]). 8 dialects × 1,024 × 2 replies.
pub(crate) fn damaged_calls() -> impl Iterator<Item = (Dialect, String, bool)> {
    two_argument_calls()
        .into_iter()
        .flat_map(|(dialect, pieces)| {
            (0u32..1 << 10).flat_map(move |mask| {
                let pieces = pieces.clone();
                [false, true].into_iter().map(move |again| {
                    let mut order: Vec<usize> = (0..8).collect();
                    if again {
                        order.extend([2, 3, 4]);
                    }
                    order.extend([8, 9]);
                    let kept: Vec<usize> =
                        order.into_iter().filter(|&k| mask & 1 << k != 0).collect();
                    let mut text: String = kept.iter().map(|&k| pieces[k].as_str()).collect();
                    text.push_str("after");
                    (dialect, text, call_opened(dialect, &pieces, &kept))
                })
            })
        })
}

/// The layout newline ending a piece of markup, which what it closes does not wait for.
pub(crate) fn layout_of(piece: &str) -> usize {
    piece.len() - piece.trim_end_matches('\n').len()
}

/// Whether the pieces `kept` (indexes into `pieces`, in order) open a call by `dialect`'s rules:
/// the wrapper, then the call's opening or, with it left out, an argument's (a call missing its
/// name: docs/FORMAT.md §9.1 rule 5, §9.4 rule 1, §9.5 rule 1); Kimi-K3's call marker or an
/// argument's alone (its wrapper is layout, §9.6 rule 2); MiniMax-M3's wrapper and invoke (a
/// block holding no invoke is prose).
pub(crate) fn call_opened(dialect: Dialect, pieces: &[String], kept: &[usize]) -> bool {
    let has = |k: usize| kept.contains(&k);
    let next_after = |k0: usize| {
        kept.iter()
            .copied()
            .find(|&k| k > k0 && !pieces[k].is_empty())
    };
    match dialect {
        Dialect::KimiK3 => has(1) || has(2) || has(5),
        Dialect::MinimaxM3 => has(0) && has(1),
        Dialect::Glm => {
            has(0)
                && match next_after(0) {
                    Some(2 | 5) => true,
                    Some(1) => matches!(next_after(1), Some(2 | 5)),
                    _ => false,
                }
        }
        _ => has(0) && matches!(next_after(0), Some(1 | 2 | 5)),
    }
}
