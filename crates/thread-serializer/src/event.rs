//! The agent events of docs/FORMAT.md §8, in the JSON shape the TypeScript system writes.
//!
//! Events are tagged by `"type"` and use camelCase field names (`toolName`, `toolCallId`,
//! `summarizedIterations`). Fields the serializer does not write (`timestamp`, `verified`,
//! `durationMs`, `parallelGroup`, an error's `toolCallId`, a question's `choices`, …) are ignored
//! when reading. An unknown `"type"` (a later version's `approval` or `plan`) or `role` is an
//! error naming the accepted values: a thread that silently drops events would mislead the model.
//!
//! `iteration` and `summarizedIterations` are non-negative integers; an integral float (`1.0`, as
//! a Python writer prints it) reads as that integer, a fraction (`1.5`) is an error. Text read
//! with [`events_from_json`] may also hold lone surrogate escapes (`"\ud83d"`, which
//! `JSON.stringify` writes for a string cut inside an emoji): each reads as U+FFFD.

use crate::json::replace_lone_surrogates;
use serde::de::{self, Deserializer, SeqAccess, Unexpected, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Reads a JSON array of events as the TypeScript system writes it: [`replace_lone_surrogates`]
/// first (one pass, lengths and so error positions unchanged), then serde_json.
///
/// ```
/// use thread_serializer::{events_from_json, AgentEvent, Role};
/// let events = events_from_json(
///     r#"[{"type":"message","role":"assistant","content":"a\ud83db","iteration":1.0}]"#,
/// ).unwrap();
/// assert_eq!(
///     events,
///     [AgentEvent::Message { role: Role::Assistant, content: "a\u{fffd}b".into(), iteration: 1 }]
/// );
/// let err = events_from_json(r#"[{"type":"completion","result":"","iteration":1.5}]"#).unwrap_err();
/// assert_eq!((err.line(), err.column()), (1, 51));
/// assert!(err.to_string().starts_with("invalid value: floating point `1.5`, expected a non-negative integer"));
/// ```
///
/// # Errors
///
/// serde_json's error, with the line and column in `json`: malformed JSON, an unknown event
/// `type` or `role`, a missing field, an iteration that is not a non-negative integer.
pub fn events_from_json(json: &str) -> Result<Vec<AgentEvent>, serde_json::Error> {
    serde_json::from_str(&replace_lone_surrogates(json))
}

/// Who wrote a [`AgentEvent::Message`].
///
/// ```
/// use thread_serializer::Role;
/// let role: Role = serde_json::from_str(r#""assistant""#).unwrap();
/// assert_eq!(role, Role::Assistant);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The person driving the agent; written as `type="human"`.
    User,
    /// The model; written as `type="ai"`.
    Assistant,
    /// System instructions; written as `type="system"`.
    System,
}

/// One event of an agent's thread, as docs/FORMAT.md §8 lists them.
///
/// ```
/// use thread_serializer::{AgentEvent, Role};
/// let json = r#"{"type":"message","role":"user","content":"Hi","timestamp":1,"iteration":0}"#;
/// let event: AgentEvent = serde_json::from_str(json).unwrap();
/// assert_eq!(
///     event,
///     AgentEvent::Message { role: Role::User, content: "Hi".into(), iteration: 0 }
/// );
/// assert_eq!(event.xml_type(), "human");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum AgentEvent {
    /// A message from the user, the model or the system.
    Message {
        /// Who wrote it.
        role: Role,
        /// What was written.
        content: String,
        /// The agent's outer-loop iteration.
        #[serde(deserialize_with = "integer")]
        iteration: u64,
    },
    /// The model called a tool.
    ToolCall {
        /// The tool's name.
        tool_name: String,
        /// The call's id, which its [`AgentEvent::ToolResult`] repeats.
        tool_call_id: String,
        /// The arguments, any JSON (normally an object); key order is kept.
        #[serde(deserialize_with = "arg_types::value::deserialize_json")]
        args: Value,
        /// The agent's outer-loop iteration.
        #[serde(deserialize_with = "integer")]
        iteration: u64,
    },
    /// A tool's result.
    ToolResult {
        /// The id of the [`AgentEvent::ToolCall`] this answers.
        tool_call_id: String,
        /// The result, any JSON; a missing `result` (a tool that returned nothing) reads as null.
        #[serde(default, deserialize_with = "arg_types::value::deserialize_json")]
        result: Value,
        /// The agent's outer-loop iteration.
        #[serde(deserialize_with = "integer")]
        iteration: u64,
    },
    /// Something failed.
    Error {
        /// The error message.
        error: String,
        /// Whether the agent can go on.
        recoverable: bool,
        /// The agent's outer-loop iteration.
        #[serde(deserialize_with = "integer")]
        iteration: u64,
    },
    /// The agent asked the human a question.
    HumanInputRequested {
        /// The question.
        question: String,
        /// The agent's outer-loop iteration.
        #[serde(deserialize_with = "integer")]
        iteration: u64,
    },
    /// The human answered.
    HumanInputReceived {
        /// The answer.
        response: String,
        /// The agent's outer-loop iteration.
        #[serde(deserialize_with = "integer")]
        iteration: u64,
    },
    /// The agent finished.
    Completion {
        /// The final result.
        result: String,
        /// The agent's outer-loop iteration.
        #[serde(deserialize_with = "integer")]
        iteration: u64,
    },
    /// Earlier iterations were summarized.
    Summary {
        /// The iterations the summary replaces.
        #[serde(deserialize_with = "integers")]
        summarized_iterations: Vec<u64>,
        /// The summary.
        summary: String,
        /// The agent's outer-loop iteration.
        #[serde(deserialize_with = "integer")]
        iteration: u64,
    },
}

impl AgentEvent {
    /// The value of the XML `type` attribute this event is written with.
    ///
    /// ```
    /// use thread_serializer::AgentEvent;
    /// let e = AgentEvent::ToolCall {
    ///     tool_name: "calculator".into(),
    ///     tool_call_id: "call_1".into(),
    ///     args: serde_json::json!({}),
    ///     iteration: 1,
    /// };
    /// assert_eq!(e.xml_type(), "tool_input");
    /// ```
    pub fn xml_type(&self) -> &'static str {
        match self {
            AgentEvent::Message { role, .. } => match role {
                Role::User => "human",
                Role::Assistant => "ai",
                Role::System => "system",
            },
            AgentEvent::ToolCall { .. } => "tool_input",
            AgentEvent::ToolResult { .. } => "tool_output",
            AgentEvent::Error { .. } => "error",
            AgentEvent::HumanInputRequested { .. } => "human_input_requested",
            AgentEvent::HumanInputReceived { .. } => "human_input_received",
            AgentEvent::Completion { .. } => "completion",
            AgentEvent::Summary { .. } => "summary",
        }
    }

    /// The agent's outer-loop iteration the event belongs to.
    ///
    /// ```
    /// use thread_serializer::AgentEvent;
    /// let e = AgentEvent::Completion { result: "done".into(), iteration: 3 };
    /// assert_eq!(e.iteration(), 3);
    /// ```
    pub fn iteration(&self) -> u64 {
        match self {
            AgentEvent::Message { iteration, .. }
            | AgentEvent::ToolCall { iteration, .. }
            | AgentEvent::ToolResult { iteration, .. }
            | AgentEvent::Error { iteration, .. }
            | AgentEvent::HumanInputRequested { iteration, .. }
            | AgentEvent::HumanInputReceived { iteration, .. }
            | AgentEvent::Completion { iteration, .. }
            | AgentEvent::Summary { iteration, .. } => *iteration,
        }
    }
}

/// A non-negative integer that may be written as an integral float (`3.0`).
struct NonNegativeInteger;

impl Visitor<'_> for NonNegativeInteger {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative integer (such as 3 or 3.0)")
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<u64, E> {
        Ok(n)
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<u64, E> {
        u64::try_from(n).map_err(|_| E::invalid_value(Unexpected::Signed(n), &self))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<u64, E> {
        // 2^64 is the first integral float beyond u64; `-0.0` is 0.
        const LIMIT: f64 = 18_446_744_073_709_551_616.0;
        // Integral (not NaN, not infinite) and in 0..2^64 (`-0.0` included): exact.
        if x.fract() == 0.0 && x > -1.0 && x < LIMIT {
            Ok(x as u64)
        } else {
            Err(E::invalid_value(Unexpected::Float(x), &self))
        }
    }
}

/// `deserialize_with` for an iteration.
fn integer<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    d.deserialize_any(NonNegativeInteger)
}

/// `deserialize_with` for a list of iterations.
fn integers<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    struct Each(u64);
    impl<'de> Deserialize<'de> for Each {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            integer(d).map(Each)
        }
    }
    struct List;
    impl<'de> Visitor<'de> for List {
        type Value = Vec<u64>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of non-negative integers")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u64>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(Each(n)) = seq.next_element()? {
                out.push(n);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(List)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<AgentEvent, serde_json::Error> {
        serde_json::from_value(v)
    }

    #[test]
    fn reads_every_event_type_from_the_typescript_shape() {
        let cases = [
            (
                json!({"type":"message","role":"system","content":"Be brief.","timestamp":5,"iteration":0}),
                AgentEvent::Message {
                    role: Role::System,
                    content: "Be brief.".into(),
                    iteration: 0,
                },
            ),
            (
                json!({"type":"tool_call","toolName":"calc","toolCallId":"c1","args":{"b":1,"a":2},
                       "durationMs":12,"parallelGroup":"g","iteration":1}),
                AgentEvent::ToolCall {
                    tool_name: "calc".into(),
                    tool_call_id: "c1".into(),
                    args: json!({"b":1,"a":2}),
                    iteration: 1,
                },
            ),
            (
                json!({"type":"tool_result","toolCallId":"c1","result":{"x":[1]},"iteration":1}),
                AgentEvent::ToolResult {
                    tool_call_id: "c1".into(),
                    result: json!({"x":[1]}),
                    iteration: 1,
                },
            ),
            (
                json!({"type":"error","error":"boom","toolCallId":"c1","recoverable":false,"iteration":2}),
                AgentEvent::Error {
                    error: "boom".into(),
                    recoverable: false,
                    iteration: 2,
                },
            ),
            (
                json!({"type":"human_input_requested","question":"Sure?","choices":["y","n"],
                       "urgency":"high","iteration":2}),
                AgentEvent::HumanInputRequested {
                    question: "Sure?".into(),
                    iteration: 2,
                },
            ),
            (
                json!({"type":"human_input_received","response":"y","iteration":2}),
                AgentEvent::HumanInputReceived {
                    response: "y".into(),
                    iteration: 2,
                },
            ),
            (
                json!({"type":"completion","result":"done","verified":true,"iteration":3}),
                AgentEvent::Completion {
                    result: "done".into(),
                    iteration: 3,
                },
            ),
            (
                json!({"type":"summary","summarizedIterations":[1,2],"summary":"s","iteration":4}),
                AgentEvent::Summary {
                    summarized_iterations: vec![1, 2],
                    summary: "s".into(),
                    iteration: 4,
                },
            ),
        ];
        for (json, expected) in cases {
            assert_eq!(parse(json.clone()).unwrap(), expected, "{json}");
        }
    }

    #[test]
    fn key_order_of_args_is_kept() {
        let e: AgentEvent = serde_json::from_str(
            r#"{"type":"tool_call","toolName":"t","toolCallId":"c","args":{"z":1,"a":2,"m":3},"iteration":0}"#,
        )
        .unwrap();
        let AgentEvent::ToolCall { args, .. } = e else {
            panic!("not a tool call: {e:?}");
        };
        let keys: Vec<&str> = args
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["z", "a", "m"]);
    }

    #[test]
    fn missing_result_reads_as_null() {
        let e = parse(json!({"type":"tool_result","toolCallId":"c","iteration":0})).unwrap();
        assert_eq!(
            e,
            AgentEvent::ToolResult {
                tool_call_id: "c".into(),
                result: Value::Null,
                iteration: 0
            }
        );
    }

    #[test]
    fn unknown_types_and_roles_are_clear_errors() {
        let err = parse(json!({"type":"approval","iteration":0})).unwrap_err();
        assert!(
            err.to_string().contains("unknown variant `approval`"),
            "{err}"
        );
        let err =
            parse(json!({"type":"message","role":"tool","content":"","iteration":0})).unwrap_err();
        assert!(err.to_string().contains("unknown variant `tool`"), "{err}");
        let err = parse(json!({"type":"message","role":"user","content":"x"})).unwrap_err();
        assert!(
            err.to_string().contains("missing field `iteration`"),
            "{err}"
        );
        let err = parse(json!({"role":"user","content":"x","iteration":0})).unwrap_err();
        assert!(err.to_string().contains("missing field `type`"), "{err}");
    }

    #[test]
    fn serializes_back_to_the_same_shape() {
        let e = AgentEvent::Summary {
            summarized_iterations: vec![1, 2],
            summary: "s".into(),
            iteration: 4,
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            json!({"type":"summary","summarizedIterations":[1,2],"summary":"s","iteration":4})
        );
        assert_eq!(parse(v).unwrap(), e);
    }

    /// A call's arguments and a tool's result may hold any member name, even the one that
    /// serde_json's `raw_value` feature (on in this workspace) gives a meaning to in
    /// `serde_json::Value`: read from text and from a value, at any depth, it is a member.
    #[test]
    fn arguments_and_results_may_use_any_member_name() {
        const NAME: &str = "$serde_json::private::RawValue";
        for body in [
            format!(r#"{{"{NAME}": "x"}}"#),
            format!(r#"{{"{NAME}": {{"{NAME}": [1, 2.5, null, true]}}, "b": "c"}}"#),
            format!(r#"[{{"{NAME}": "{{}}"}}]"#),
        ] {
            let expected: Value = serde_json::from_str(&body.replace(NAME, "k")).unwrap();
            let text = format!(
                r#"[{{"type":"tool_call","toolName":"t","toolCallId":"c","args":{body},"iteration":1}},
                    {{"type":"tool_result","toolCallId":"c","result":{body},"iteration":1}}]"#
            );
            let events = crate::events_from_json(&text).unwrap();
            let renamed = |v: &Value| -> Value {
                serde_json::from_str(&v.to_string().replace(NAME, "k")).unwrap()
            };
            match &events[..] {
                [
                    AgentEvent::ToolCall { args, .. },
                    AgentEvent::ToolResult { result, .. },
                ] => {
                    assert_eq!(renamed(args), expected, "{body}");
                    assert_eq!(renamed(result), expected, "{body}");
                }
                other => panic!("{other:?}"),
            }
            let value = arg_types::value::json_from_str(&text).unwrap();
            for (v, e) in value.as_array().unwrap().iter().zip(&events) {
                assert_eq!(&parse(v.clone()).unwrap(), e);
            }
        }
    }
}
