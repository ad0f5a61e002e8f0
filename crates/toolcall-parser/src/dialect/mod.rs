//! Dialects: the tool-call formats models write, each a small grammar over the one lexer.
//!
//! A dialect's grammar is a state machine that reads a window of the input and tells the driver
//! ([`crate::StreamParser`]) the first byte it still needs. It decides only what its markup
//! means; prose, limits, positions, errors, deltas, truncation and typing are the
//! [`Assembler`](crate::assemble::Assembler)'s, shared by all.
//!
//! Adding a dialect is one module beside these and one line in the [`dialects!`] list below.

use crate::assemble::Assembler;
use crate::event::StreamEvent;
use crate::options::ParseOptions;
use std::fmt;

mod auto;
mod glm;
mod hermes;
mod invoke;
mod kimi_k3;
mod minimax_m3;
mod qwen3_coder;
pub(crate) mod scan;
pub(crate) mod tool;

/// What every dialect's grammar does for the driver.
pub(crate) trait Grammar: fmt::Debug + Send {
    /// Reads `w` (absolute offset `base`) from where it stopped and returns the first absolute
    /// offset it still needs. With `is_final`, ends everything that is open.
    fn run(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> usize;

    /// The shared assembly state (options, positions).
    fn assembler(&mut self) -> &mut Assembler;

    /// Starts reading at absolute offset `at` instead of 0: the text before it is not this
    /// grammar's (reasoning split off before the answer).
    fn start_at(&mut self, at: usize);

    /// The Markdown fences of the prose before the offset given to `start_at`, for a grammar
    /// that tracks them (the `<tool>` form marks calls in fences): `auto` starts a dialect's
    /// grammar at a marker in the middle of prose it has read.
    fn set_fence(&mut self, fence: crate::fence::Fence) {
        let _ = fence;
    }
}

/// Declares the dialects: the [`Dialect`] enum, its names, and the grammar each one builds.
macro_rules! dialects {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal => |$opts:ident, $progress:ident| $make:expr; )*) => {
        /// A tool-call format: which markup marks a call, its name and its arguments.
        ///
        /// ```
        /// use toolcall_parser::Dialect;
        /// let d: Dialect = "qwen3-coder".parse().unwrap();
        /// assert_eq!(d, Dialect::Qwen3Coder);
        /// assert_eq!(d.name(), "qwen3-coder");
        /// assert!(Dialect::ALL.contains(&Dialect::Tool));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[non_exhaustive]
        pub enum Dialect {
            $( $(#[$doc])* $variant, )*
        }

        impl Dialect {
            /// Every dialect, in the order they are listed.
            pub const ALL: &'static [Dialect] = &[$(Dialect::$variant),*];

            /// The dialect's place in [`Dialect::ALL`]: the variants and the list are written
            /// from the same declarations, in the same order, with no explicit discriminants.
            pub(crate) fn index(self) -> usize {
                self as usize
            }

            /// The dialect's name, as `--dialect` takes it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Dialect::$variant => $name,)*
                }
            }

            /// The grammar that reads this dialect.
            pub(crate) fn grammar(self, opts: ParseOptions, progress: bool) -> Box<dyn Grammar> {
                match self {
                    $(Dialect::$variant => {
                        let ($opts, $progress) = (opts, progress);
                        Box::new($make)
                    })*
                }
            }
        }
    };
}

dialects! {
    /// Our `<tool><tool_name/><arguments>…</arguments></tool>` format and its legacy
    /// `<tool>{json}</tool>` form (docs/FORMAT.md §1–§7). The default.
    #[default]
    Tool = "tool" => |opts, progress| tool::ToolXml::new(opts, progress);
    /// Qwen3-Coder (also Qwen3.5+, Nemotron-3 Nano and Step-3.5):
    /// `<tool_call><function=f><parameter=p>v</parameter></function></tool_call>`.
    Qwen3Coder = "qwen3-coder" => |opts, progress|
        qwen3_coder::Qwen3Coder::new(opts, progress, Dialect::Qwen3Coder, &qwen3_coder::QWEN3_CODER);
    /// Seed-OSS: the Qwen3-Coder grammar inside `<seed:tool_call>…</seed:tool_call>`.
    SeedOss = "seed-oss" => |opts, progress|
        qwen3_coder::Qwen3Coder::new(opts, progress, Dialect::SeedOss, &qwen3_coder::SEED_OSS);
    /// Hermes, Qwen2.5 and Qwen3: `<tool_call>{"name": "f", "arguments": {…}}</tool_call>`.
    Hermes = "hermes" => |opts, progress| hermes::Hermes::new(opts, progress);
    /// GLM-4.5/4.6 `<tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>`
    /// and the compact GLM-4.7/5.x layout without the newlines (docs/FORMAT.md §9.4).
    Glm = "glm" => |opts, progress| glm::Glm::new(opts, progress);
    /// MiniMax-M2: `<minimax:tool_call><invoke name="f"><parameter name="p">v</parameter>
    /// </invoke></minimax:tool_call>` (docs/FORMAT.md §9.5).
    MinimaxM2 = "minimax-m2" => |opts, progress|
        invoke::Invoke::new(opts, progress, &invoke::MINIMAX_M2);
    /// Anthropic's text form: the invoke grammar inside `<function_calls>…</function_calls>`.
    Anthropic = "anthropic" => |opts, progress|
        invoke::Invoke::new(opts, progress, &invoke::ANTHROPIC);
    /// DeepSeek's DSML: the invoke grammar with `｜DSML｜` names, inside
    /// `<｜DSML｜function_calls>` or `<｜DSML｜tool_calls>`; `string="false"` values are JSON.
    DeepseekDsml = "deepseek-dsml" => |opts, progress|
        invoke::Invoke::new(opts, progress, &invoke::DEEPSEEK_DSML);
    /// Step-3: `<steptml:invoke>`s inside `<｜tool_calls_begin｜>…<｜tool_calls_end｜>` (Step-3.5
    /// writes Qwen3-Coder's form).
    Step3 = "step3" => |opts, progress| invoke::Invoke::new(opts, progress, &invoke::STEP3);
    /// Kimi-K3: `<|open|>call tool="f"<|sep|><|open|>argument key="p" type="string"<|sep|>v
    /// <|close|>argument<|sep|><|close|>call<|sep|>` (or a `json` block of arguments), in a
    /// message whose `response`/`tools` channel markers are layout and whose `think` channel is
    /// the reasoning block (docs/FORMAT.md §9.6).
    KimiK3 = "kimi-k3" => |opts, progress| kimi_k3::KimiK3::new(opts, progress);
    /// MiniMax-M3: `]<]minimax[>[<invoke name="f">` calls in `]<]minimax[>[<tool_call>` blocks,
    /// arguments as nested elements, every tag after the `]<]minimax[>[` marker.
    MinimaxM3 = "minimax-m3" => |opts, progress| minimax_m3::MinimaxM3::new(opts, progress);
    /// Any of the others: the first call marker met picks the dialect for the rest of the reply
    /// (docs/FORMAT.md §9.7).
    Auto = "auto" => |opts, progress| auto::Auto::new(opts, progress);
}

impl Dialect {
    /// The markers of the dialect's reasoning block (docs/FORMAT.md §10).
    pub fn reasoning_markers(self) -> (&'static str, &'static str) {
        match self {
            Dialect::SeedOss => ("<seed:think>", "</seed:think>"),
            Dialect::MinimaxM3 => ("<mm:think>", "</mm:think>"),
            Dialect::KimiK3 => ("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
            _ => ("<think>", "</think>"),
        }
    }

    /// Whether the dialect's argument deltas are exactly its values' text: a string argument's
    /// deltas concatenate to its final value, announced by
    /// [`StreamEvent::ArgumentStarted`](crate::StreamEvent::ArgumentStarted) in map order, and
    /// the type is known before the value ends: declared by the dialect on that event (DeepSeek
    /// DSML's `string=`, Kimi-K3's `type=`, with a declared non-string's value in
    /// [`StreamEvent::ArgumentValue`](crate::StreamEvent::ArgumentValue)), else given by the
    /// request's schema. True for the raw-text dialects (Qwen3-Coder, Seed-OSS, GLM, MiniMax-M2,
    /// Anthropic, DeepSeek DSML, Step-3, Kimi-K3). The `<tool>` dialect's deltas are text before
    /// the value-text rule trims it (it reports `ArgumentStarted` too, and
    /// [`StreamEvent::ArgumentDecoded`](crate::StreamEvent::ArgumentDecoded) where its deltas
    /// stop being the input as written); Hermes and MiniMax-M3 have none.
    ///
    /// ```
    /// use toolcall_parser::Dialect;
    /// assert!(Dialect::Glm.exact_argument_deltas());
    /// assert!(Dialect::KimiK3.exact_argument_deltas());
    /// assert!(Dialect::Hermes.exact_argument_deltas());
    /// assert!(!Dialect::Tool.exact_argument_deltas());
    /// ```
    pub fn exact_argument_deltas(self) -> bool {
        matches!(
            self,
            Dialect::Qwen3Coder
                | Dialect::SeedOss
                | Dialect::Glm
                | Dialect::MinimaxM2
                | Dialect::Anthropic
                | Dialect::DeepseekDsml
                | Dialect::Step3
                | Dialect::KimiK3
                | Dialect::Hermes
        )
    }

    /// The markers that begin a call in this dialect: every call it reads from prose begins
    /// with one of them, byte for byte (docs/FORMAT.md §9.7 rule 7), so a server can watch for
    /// them to hold text back; under the `end` reasoning policy, one of them ends reasoning.
    /// Kimi-K3's argument marker is among them: where its call marker was left out, a call
    /// that names no tool begins there, an error (§9.6 rule 2).
    /// `auto`'s are every other dialect's.
    ///
    /// ```
    /// use toolcall_parser::Dialect;
    /// assert!(Dialect::Hermes.call_markers().contains(&"<tool_call>"));
    /// let text = "Sure.\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
    /// let opts = toolcall_parser::ParseOptions::new().with_dialect(Dialect::Hermes);
    /// let result = toolcall_parser::parse_with(text, &opts);
    /// let at = &text[result.calls()[0].span.start..];
    /// assert!(Dialect::Hermes.call_markers().iter().any(|m| at.starts_with(m)));
    /// ```
    pub fn call_markers(self) -> &'static [&'static str] {
        match self {
            // `<tool` and then `>` or any XML blank, as the grammar reads a start tag.
            Dialect::Tool => &["<tool>", "<tool\n", "<tool ", "<tool\t", "<tool\r"],
            Dialect::Qwen3Coder => &["<tool_call>", "<function="],
            Dialect::SeedOss => &["<seed:tool_call>", "<function="],
            Dialect::Hermes | Dialect::Glm => &["<tool_call>"],
            Dialect::MinimaxM2 => &["<minimax:tool_call>"],
            Dialect::Anthropic => &["<function_calls>"],
            Dialect::DeepseekDsml => &["<｜DSML｜function_calls>", "<｜DSML｜tool_calls>"],
            Dialect::Step3 => &["<｜tool_calls_begin｜>"],
            // An argument marker begins a call too, one whose call marker was left out
            // (docs/FORMAT.md §9.6 rule 2: a `missing_tool_name` error).
            Dialect::KimiK3 => &[
                "<|open|>call",
                "<|open|> call",
                "<|open|>argument",
                "<|open|> argument",
            ],
            Dialect::MinimaxM3 => &[minimax_m3::BLOCK_OPEN],
            // Every marker of the others (a test keeps the list whole).
            Dialect::Auto => &[
                "<tool>",
                "<tool\n",
                "<tool ",
                "<tool\t",
                "<tool\r",
                "<tool_call>",
                "<function=",
                "<seed:tool_call>",
                "<minimax:tool_call>",
                "<function_calls>",
                "<｜DSML｜function_calls>",
                "<｜DSML｜tool_calls>",
                "<｜tool_calls_begin｜>",
                "<|open|>call",
                "<|open|> call",
                "<|open|>argument",
                "<|open|> argument",
                minimax_m3::BLOCK_OPEN,
            ],
        }
    }
}

/// Whether the lexeme `bytes[at..at + len]` is the block opener `<name>` written exactly. A
/// token dialect's block opens from prose only at its marker, byte for byte: the model writes
/// it as one token, the reference parsers match it exactly, and it is what `auto` probes for
/// ([`Dialect::call_markers`]), so `<tool_call >` or `<tool_call=x>` is prose in every reading
/// (docs/FORMAT.md §9.7).
pub(crate) fn is_exact_opener(bytes: &[u8], at: usize, len: usize, name: &str) -> bool {
    len == name.len() + 2
        && bytes.get(at) == Some(&b'<')
        && bytes.get(at + 1..at + 1 + name.len()) == Some(name.as_bytes())
        && bytes.get(at + len - 1) == Some(&b'>')
}

/// A dialect serializes as its name (`"qwen3-coder"`).
impl serde::Serialize for Dialect {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dialect name that is not one of [`Dialect::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown dialect `{}`; expected one of: ", self.0)?;
        for (i, d) in Dialect::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(d.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownDialect {}

impl std::str::FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .iter()
            .copied()
            .find(|d| d.name().eq_ignore_ascii_case(s) || d.name().replace('-', "_") == s)
            .ok_or_else(|| UnknownDialect(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_probes_every_marker_of_every_other_dialect() {
        let auto = Dialect::Auto.call_markers();
        for d in Dialect::ALL.iter().filter(|d| **d != Dialect::Auto) {
            for m in d.call_markers() {
                assert!(auto.contains(m), "{d}: {m}");
            }
        }
        assert!(auto.iter().all(|m| {
            Dialect::ALL
                .iter()
                .any(|d| *d != Dialect::Auto && d.call_markers().contains(m))
        }));
    }
}
