//! [`StreamEvent`]: what the streaming parser reports, as soon as it is certain.

use crate::call::ToolCall;
use crate::error::ParseError;
use arg_types::Value;
use serde::Serialize;
use std::sync::Arc;

/// One event of the streaming parser. Concatenating the [`StreamEvent::Prose`] texts gives the
/// prose of the input; each call ends with exactly one [`StreamEvent::CallFinished`].
///
/// Events are small (the finished call and errors are boxed, an argument's name is shared), since
/// a parser fed a few bytes at a time makes one or two per chunk.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StreamEvent {
    /// Prose text, held back only while its last bytes could still begin `<tool>`.
    Prose {
        /// The text, verbatim.
        text: String,
    },
    /// A call began (`<tool>` followed by an element or a JSON object).
    CallStarted {
        /// The call's index among the calls of this input, from 0.
        index: usize,
        /// The dialect the call is written in: the one parsed, or under
        /// [`Dialect::Auto`](crate::Dialect::Auto) the one its marker chose, whose rules its
        /// argument events follow (serialized as its name).
        dialect: crate::Dialect,
    },
    /// The call's `<tool_name>` is complete.
    ToolName {
        /// The call's index.
        index: usize,
        /// The tool's name.
        tool_name: String,
    },
    /// A top-level argument begins (the `<tool>` dialect, MiniMax-M3, and the dialects whose
    /// deltas are the value itself, see [`Dialect::exact_argument_deltas`]): arguments begin in
    /// the order the call's `arguments` map will hold them, even an empty one, which has no
    /// delta. In the `<tool>` dialect and MiniMax-M3 a name may begin again: repeated elements of
    /// one name are one argument (an array, or in `<tool>` an error where the schema allows no
    /// array).
    ///
    /// [`Dialect::exact_argument_deltas`]: crate::Dialect::exact_argument_deltas
    ArgumentStarted {
        /// The call's index.
        index: usize,
        /// The argument's name, shared with its deltas.
        argument: Arc<str>,
        /// The type the dialect itself declares for this value, where the tool's schema lets it
        /// stand (docs/FORMAT.md §9.5 rule 6, §9.6 rule 5): `Some(true)`, a string whose value
        /// is its deltas exactly (DeepSeek DSML `string="true"`, Kimi-K3 `type="string"`);
        /// `Some(false)`, another type (`string="false"`, `type="integer"`, …), whose value
        /// comes in [`StreamEvent::ArgumentValue`] when the argument closes, if its text fits
        /// the type and the schema allows it; `None`, no declaration, or a declared string the
        /// schema does not allow: the schema or inference types the value (not serialized).
        #[serde(skip_serializing_if = "Option::is_none")]
        string: Option<bool>,
    },
    /// More text of a top-level argument, as decoded so far (before the value-text rule trims
    /// its blank first and last lines), so a UI can show a file being written.
    ArgumentDelta {
        /// The call's index.
        index: usize,
        /// The argument's name, shared by all the deltas of one argument.
        argument: Arc<str>,
        /// The new text.
        text: String,
    },
    /// The `<tool>` dialect and MiniMax-M3 (at an argument's first child element, docs/FORMAT.md
    /// §9.9 rule 12): the deltas of a top-level argument stop being its content as
    /// written. Until this event, the argument's deltas concatenate to the start of its content
    /// exactly as written (which is also the start of its string when markup inside it makes the
    /// string its markup verbatim, docs/FORMAT.md §4 rule 5); the delta that follows it had a
    /// reference decoded, a CDATA section unwrapped, a comment or markup not delivered (§2) or a
    /// line end normalized, and from there on the deltas are only the decoded preview of §2; or
    /// the argument closed before its deltas, all as written, reached its end (a comment or
    /// markup there was not delivered). At most once per argument, right before that delta or at
    /// the argument's close. So an argument that closes without it was delivered whole, exactly
    /// as written.
    ///
    /// ```
    /// use toolcall_parser::{StreamEvent, StreamParser};
    /// let mut p = StreamParser::new();
    /// let events = p.feed("<tool><tool_name>w</tool_name><arguments><c>a ");
    /// assert!(!events.iter().any(|e| matches!(e, StreamEvent::ArgumentDecoded { .. })));
    /// let events = p.feed("&amp; b");
    /// assert!(matches!(&events[..], [StreamEvent::ArgumentDecoded { .. }, StreamEvent::ArgumentDelta { text, .. }]
    ///     if text == "& b"));
    /// ```
    ArgumentDecoded {
        /// The call's index.
        index: usize,
        /// The argument's name, shared with its deltas.
        argument: Arc<str>,
    },
    /// A top-level argument whose type the dialect declares (`string: Some(false)` on its
    /// [`StreamEvent::ArgumentStarted`]) is complete, and its text fits that type: its value,
    /// as the finished call will hold it. Not sent when the text does not fit (the schema types
    /// it then, as it types undeclared values), nor for a name given again (dropped).
    ///
    /// ```
    /// use toolcall_parser::{Dialect, ParseOptions, StreamEvent, StreamParser, Value};
    /// let opts = ParseOptions::new().with_dialect(Dialect::KimiK3);
    /// let mut p = StreamParser::with_options(opts);
    /// let mut events = p.feed("<|open|>call tool=\"f\"<|sep|><|open|>argument key=\"n\" type=\"integer\"<|sep|>42<|close|>argument<|sep|>");
    /// events.extend(p.finish());
    /// assert!(events.iter().any(|e| matches!(e, StreamEvent::ArgumentStarted { string: Some(false), .. })));
    /// assert!(events.iter().any(|e| matches!(e, StreamEvent::ArgumentValue { value, .. } if **value == Value::Int(42))));
    /// ```
    ArgumentValue {
        /// The call's index.
        index: usize,
        /// The argument's name, shared with its deltas.
        argument: Arc<str>,
        /// The value.
        value: Box<Value>,
    },
    /// The call ended, well-formed or not.
    CallFinished {
        /// The call's index.
        index: usize,
        /// The call, or why it could not be read.
        result: Result<Box<ToolCall>, Box<ParseError>>,
    },
    /// Reasoning text, as it is written (only with [`ParseOptions::with_reasoning`]).
    ///
    /// [`ParseOptions::with_reasoning`]: crate::ParseOptions::with_reasoning
    Reasoning {
        /// The text, verbatim.
        text: String,
    },
    /// A call written inside reasoning, with policy [`CallsInReasoning::Flag`]: reported apart,
    /// never among the answer's calls (`index` is absent: such calls are not streamed). An `Err`
    /// is such a call that could not be read.
    ///
    /// [`CallsInReasoning::Flag`]: crate::CallsInReasoning::Flag
    ReasoningCall {
        /// The call, or why it could not be read.
        result: Result<Box<ToolCall>, Box<ParseError>>,
    },
    /// An error outside any call (a limit on the whole input).
    Error {
        /// The error.
        error: Box<ParseError>,
    },
}

// A parser fed a few bytes at a time moves an event or two per chunk: keep them six words, with
// the finished call and errors boxed (inline, a `ToolCall` made every event 200 bytes).
const _: () = assert!(std::mem::size_of::<StreamEvent>() <= 48);
