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

mod hermes;
mod minimax_m3;
mod qwen3_coder;
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
    /// Qwen3-Coder (also Qwen3.5+ and Nemotron-3 Nano):
    /// `<tool_call><function=f><parameter=p>v</parameter></function></tool_call>`.
    Qwen3Coder = "qwen3-coder" => |opts, progress|
        qwen3_coder::Qwen3Coder::new(opts, progress, Dialect::Qwen3Coder, &qwen3_coder::QWEN3_CODER);
    /// Seed-OSS: the Qwen3-Coder grammar inside `<seed:tool_call>…</seed:tool_call>`.
    SeedOss = "seed-oss" => |opts, progress|
        qwen3_coder::Qwen3Coder::new(opts, progress, Dialect::SeedOss, &qwen3_coder::SEED_OSS);
    /// Hermes, Qwen2.5 and Qwen3: `<tool_call>{"name": "f", "arguments": {…}}</tool_call>`.
    Hermes = "hermes" => |opts, progress| hermes::Hermes::new(opts, progress);
    /// MiniMax-M3: `]<]minimax[>[<invoke name="f">` calls in `]<]minimax[>[<tool_call>` blocks,
    /// arguments as nested elements, every tag after the `]<]minimax[>[` marker.
    MinimaxM3 = "minimax-m3" => |opts, progress| minimax_m3::MinimaxM3::new(opts, progress);
}

impl Dialect {
    /// The markers of the dialect's reasoning block (docs/FORMAT.md §10).
    pub fn reasoning_markers(self) -> (&'static str, &'static str) {
        match self {
            Dialect::SeedOss => ("<seed:think>", "</seed:think>"),
            Dialect::MinimaxM3 => ("<mm:think>", "</mm:think>"),
            _ => ("<think>", "</think>"),
        }
    }

    /// The markers that begin a call in this dialect: under the `end` policy, one of them ends
    /// reasoning.
    pub(crate) fn call_markers(self) -> &'static [&'static str] {
        match self {
            Dialect::Tool => &["<tool>", "<tool\n", "<tool "],
            Dialect::Qwen3Coder => &["<tool_call>", "<function="],
            Dialect::SeedOss => &["<seed:tool_call>", "<function="],
            Dialect::Hermes => &["<tool_call>"],
            Dialect::MinimaxM3 => &[minimax_m3::BLOCK_OPEN],
        }
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
