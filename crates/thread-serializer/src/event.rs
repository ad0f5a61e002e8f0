//! The agent events of SPEC-01, in the JSON shape the TypeScript system writes.
//!
//! Events are tagged by `"type"` and use camelCase field names (`toolName`, `toolCallId`,
//! `summarizedIterations`). Fields the serializer does not write (`timestamp`, `verified`,
//! `durationMs`, `parallelGroup`, an error's `toolCallId`, a question's `choices`, …) are ignored
//! when reading. An unknown `"type"` (a later version's `approval` or `plan`) or `role` is an
//! error naming the accepted values: a thread that silently drops events would mislead the model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a [`AgentEvent::Message`].
///
/// ```
/// use thread_serializer::Role;
/// let role: Role = serde_json::from_str(r#""assistant""#).unwrap();
/// assert_eq!(role, Role::Assistant);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person driving the agent; written as `type="human"`.
    User,
    /// The model; written as `type="ai"`.
    Assistant,
    /// System instructions; written as `type="system"`.
    System,
}

/// One event of an agent's thread, as SPEC-01's table lists them.
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
pub enum AgentEvent {
    /// A message from the user, the model or the system.
    Message {
        /// Who wrote it.
        role: Role,
        /// What was written.
        content: String,
        /// The agent's outer-loop iteration.
        iteration: u64,
    },
    /// The model called a tool.
    ToolCall {
        /// The tool's name.
        tool_name: String,
        /// The call's id, which its [`AgentEvent::ToolResult`] repeats.
        tool_call_id: String,
        /// The arguments, any JSON (normally an object); key order is kept.
        args: Value,
        /// The agent's outer-loop iteration.
        iteration: u64,
    },
    /// A tool's result.
    ToolResult {
        /// The id of the [`AgentEvent::ToolCall`] this answers.
        tool_call_id: String,
        /// The result, any JSON; a missing `result` (a tool that returned nothing) reads as null.
        #[serde(default)]
        result: Value,
        /// The agent's outer-loop iteration.
        iteration: u64,
    },
    /// Something failed.
    Error {
        /// The error message.
        error: String,
        /// Whether the agent can go on.
        recoverable: bool,
        /// The agent's outer-loop iteration.
        iteration: u64,
    },
    /// The agent asked the human a question.
    HumanInputRequested {
        /// The question.
        question: String,
        /// The agent's outer-loop iteration.
        iteration: u64,
    },
    /// The human answered.
    HumanInputReceived {
        /// The answer.
        response: String,
        /// The agent's outer-loop iteration.
        iteration: u64,
    },
    /// The agent finished.
    Completion {
        /// The final result.
        result: String,
        /// The agent's outer-loop iteration.
        iteration: u64,
    },
    /// Earlier iterations were summarized.
    Summary {
        /// The iterations the summary replaces.
        summarized_iterations: Vec<u64>,
        /// The summary.
        summary: String,
        /// The agent's outer-loop iteration.
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
}
