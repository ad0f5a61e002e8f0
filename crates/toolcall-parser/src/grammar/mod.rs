//! Tool-call grammars: what the lexer's lexemes mean in one tool-call format.
//!
//! Today there is one, [`tool_xml`]: the `<tool>` format of ADR-0002, ADR-0019 and ADR-0024.
//! Other XML dialects (Qwen3-Coder's `<tool_call><function=…>`, Anthropic's
//! `<function_calls><invoke name=…>`) would be siblings of it over the same [`crate::lexer`].

pub(crate) mod legacy_json;
pub(crate) mod tool_xml;
