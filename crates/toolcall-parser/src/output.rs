//! [`ParseResult`]: prose, calls and errors in input order.

use crate::call::ToolCall;
use crate::error::ParseError;
use crate::event::StreamEvent;

/// One piece of a parsed response.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Segment {
    /// Prose, verbatim.
    Prose(String),
    /// Reasoning, verbatim (only with [`ParseOptions::with_reasoning`]).
    ///
    /// [`ParseOptions::with_reasoning`]: crate::ParseOptions::with_reasoning
    Reasoning(String),
    /// A call.
    Call(ToolCall),
    /// A call (or input) that could not be read.
    Error(ParseError),
    /// A call written inside reasoning ([`CallsInReasoning::Flag`]), apart from the answer's.
    ///
    /// [`CallsInReasoning::Flag`]: crate::CallsInReasoning::Flag
    ReasoningCall(ToolCall),
    /// A call written inside reasoning that could not be read ([`CallsInReasoning::Flag`]).
    ///
    /// [`CallsInReasoning::Flag`]: crate::CallsInReasoning::Flag
    ReasoningError(ParseError),
}

/// Everything in a response, in order: what to show, what to run, what to report.
///
/// ```
/// let r = toolcall_parser::parse("Hi.\n<tool><tool_name>ls</tool_name></tool>\nBye.");
/// assert_eq!(r.prose(), "Hi.\n\nBye.");
/// assert_eq!(r.calls()[0].tool_name, "ls");
/// assert!(r.errors().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParseResult {
    /// The segments in input order.
    pub segments: Vec<Segment>,
}

impl ParseResult {
    /// Folds stream events into segments, merging adjacent prose.
    pub fn from_events(events: impl IntoIterator<Item = StreamEvent>) -> Self {
        let mut r = ParseResult::default();
        for e in events {
            r.push_event(e);
        }
        r
    }

    /// Adds one event.
    pub fn push_event(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::Prose { text } => match self.segments.last_mut() {
                Some(Segment::Prose(p)) => p.push_str(&text),
                _ => self.segments.push(Segment::Prose(text)),
            },
            StreamEvent::CallFinished { result, .. } => self.segments.push(match result {
                Ok(call) => Segment::Call(*call),
                Err(e) => Segment::Error(*e),
            }),
            StreamEvent::Error { error } => self.segments.push(Segment::Error(*error)),
            StreamEvent::ReasoningCall { result } => self.segments.push(match result {
                Ok(call) => Segment::ReasoningCall(*call),
                Err(e) => Segment::ReasoningError(*e),
            }),
            StreamEvent::Reasoning { text } => match self.segments.last_mut() {
                Some(Segment::Reasoning(p)) => p.push_str(&text),
                _ => self.segments.push(Segment::Reasoning(text)),
            },
            StreamEvent::CallStarted { .. }
            | StreamEvent::ToolName { .. }
            | StreamEvent::ArgumentStarted { .. }
            | StreamEvent::ArgumentValue { .. }
            | StreamEvent::ArgumentDecoded { .. }
            | StreamEvent::ArgumentDelta { .. } => {}
        }
    }

    /// The calls, in order.
    pub fn calls(&self) -> Vec<&ToolCall> {
        self.segments
            .iter()
            .filter_map(|s| match s {
                Segment::Call(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    /// The errors, in order.
    pub fn errors(&self) -> Vec<&ParseError> {
        self.segments
            .iter()
            .filter_map(|s| match s {
                Segment::Error(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    /// The calls written inside reasoning, in order (only with [`CallsInReasoning::Flag`]; never
    /// among [`calls`](ParseResult::calls)).
    ///
    /// [`CallsInReasoning::Flag`]: crate::CallsInReasoning::Flag
    pub fn reasoning_calls(&self) -> Vec<&ToolCall> {
        self.segments
            .iter()
            .filter_map(|s| match s {
                Segment::ReasoningCall(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    /// The calls written inside reasoning that could not be read, in order (only with
    /// [`CallsInReasoning::Flag`]; never among [`errors`](ParseResult::errors)).
    ///
    /// [`CallsInReasoning::Flag`]: crate::CallsInReasoning::Flag
    pub fn reasoning_errors(&self) -> Vec<&ParseError> {
        self.segments
            .iter()
            .filter_map(|s| match s {
                Segment::ReasoningError(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    /// The prose, concatenated.
    pub fn prose(&self) -> String {
        self.segments
            .iter()
            .filter_map(|s| match s {
                Segment::Prose(p) => Some(p.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The reasoning, concatenated (empty without [`ParseOptions::with_reasoning`]).
    ///
    /// [`ParseOptions::with_reasoning`]: crate::ParseOptions::with_reasoning
    pub fn reasoning(&self) -> String {
        self.segments
            .iter()
            .filter_map(|s| match s {
                Segment::Reasoning(p) => Some(p.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The calls, owned, in order.
    pub fn into_calls(self) -> Vec<ToolCall> {
        self.segments
            .into_iter()
            .filter_map(|s| match s {
                Segment::Call(c) => Some(c),
                _ => None,
            })
            .collect()
    }
}
