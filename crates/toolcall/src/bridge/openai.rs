//! OpenAI-style native tool calls: a [`ToolCall`] as
//! `{"id", "type": "function", "function": {"name", "arguments": "<json string>"}}` and back,
//! and tool definitions both ways.
//!
//! With these, one program runs the same tools whether the model calls them natively (the
//! provider's function-calling API) or in text (`<tool>` calls read by the parser): both paths
//! end in a [`ToolCall`].
//!
//! ```
//! use toolcall::bridge::openai;
//! use toolcall::parser::ToolCall;
//!
//! // The program's one tool runner, whatever the transport.
//! fn run(call: &ToolCall) -> String {
//!     format!("{} {}", call.tool_name, call.arguments["path"].as_str().unwrap_or("?"))
//! }
//!
//! // Text calling: the parser reads the call out of the reply.
//! let text = toolcall::parser::parse(
//!     "<tool><tool_name>read_file</tool_name><arguments><path>a.txt</path></arguments></tool>",
//! );
//! // Native calling: the provider's message holds the same call as JSON.
//! let message = serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
//!     {"id": "call_1", "type": "function",
//!      "function": {"name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}}
//! ]});
//! let native = openai::calls_from_message(&message, &[]).unwrap();
//! assert_eq!(run(text.calls()[0]), run(&native[0].1));
//! assert_eq!(native[0].1.arguments, text.calls()[0].arguments);
//!
//! // The result goes back as a `tool` message answering the call's id.
//! let reply = openai::tool_result_message(&native[0].0, &run(&native[0].1));
//! assert_eq!(reply["tool_call_id"], "call_1");
//! ```

pub use super::deltas::{DeltaEvent, ToolCallDeltas};
use super::{BridgeError, arguments_to_json, call_from_parts, json_type};
use arg_types::{Map, Value};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value as Json;
use toolcall_parser::ToolCall;
use toolcall_prompt::{DEFAULT_SERVER_NAME, ToolDef};

/// One native tool call, as OpenAI's chat-completions API (and the many APIs that copy it) puts
/// it in an assistant message's `tool_calls`.
///
/// Reading JSON also accepts `arguments` given as an object rather than a string (as some
/// servers send it) and a missing `type` (taken as `function`).
///
/// ```
/// use toolcall::bridge::openai::OpenAiToolCall;
/// let call: OpenAiToolCall = serde_json::from_value(serde_json::json!(
///     {"id": "c1", "function": {"name": "ls", "arguments": {"path": "."}}}
/// )).unwrap();
/// assert_eq!(call, OpenAiToolCall::new("c1", "ls", r#"{"path":"."}"#));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenAiToolCall {
    /// The call's id, which the `tool` message carrying its result repeats.
    pub id: String,
    /// Always `function` for calls this module writes.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// The function called.
    pub function: FunctionCall,
}

/// The `function` member of an [`OpenAiToolCall`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// The arguments: a JSON object, as a string.
    #[serde(deserialize_with = "string_or_json")]
    pub arguments: String,
}

fn function_type() -> String {
    "function".to_owned()
}

/// A string as it is; any other JSON as its text.
fn string_or_json<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match arg_types::value::deserialize_json(d)? {
        Json::String(s) => s,
        other => other.to_string(),
    })
}

impl OpenAiToolCall {
    /// A `function` call with these parts.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        OpenAiToolCall {
            id: id.into(),
            kind: function_type(),
            function: FunctionCall {
                name: name.into(),
                arguments: arguments.into(),
            },
        }
    }
}

/// A call as a native tool call with the given id. The arguments become compact JSON text, in
/// argument order. The server name is not part of the native form; [`from_openai`] finds it
/// again from the tool definitions.
///
/// ```
/// let call = &toolcall::parser::parse(
///     "<tool><tool_name>write_to_file</tool_name><arguments>\
///      <path>a.txt</path><content>x &lt; y</content></arguments></tool>",
/// ).calls()[0].clone();
/// let native = toolcall::bridge::openai::to_openai(call, "call_9");
/// assert_eq!(
///     serde_json::to_value(&native).unwrap(),
///     serde_json::json!({"id": "call_9", "type": "function", "function": {
///         "name": "write_to_file", "arguments": "{\"path\":\"a.txt\",\"content\":\"x < y\"}"}})
/// );
/// ```
pub fn to_openai(call: &ToolCall, id: impl Into<String>) -> OpenAiToolCall {
    let arguments = Json::Object(arguments_to_json(&call.arguments)).to_string();
    OpenAiToolCall::new(id, call.tool_name.clone(), arguments)
}

/// The [`ToolCall`] a native call describes. Its server is the one of the tool of that name in
/// `tools`, or `local` when no tool has the name. Empty `arguments` (`""`, as some APIs send
/// for a function without parameters) and `null` mean no arguments.
///
/// # Errors
///
/// [`BridgeError::Shape`] for a call whose `type` is not `function`,
/// [`BridgeError::InvalidArguments`] when `arguments` is not JSON,
/// [`BridgeError::ArgumentsNotAnObject`] when it is JSON but not an object.
///
/// ```
/// use toolcall::bridge::openai::{from_openai, to_openai, OpenAiToolCall};
/// use toolcall::prompt::ToolDef;
/// let tools = [ToolDef::new("create_issue", "", serde_json::json!({})).with_server_name("github")];
/// let native = OpenAiToolCall::new("c1", "create_issue", r#"{"title": "Crash", "labels": ["bug"]}"#);
/// let call = from_openai(&native, &tools).unwrap();
/// assert_eq!(call.server_name, "github");
/// assert_eq!(call.arguments["labels"].get_index(0).and_then(|v| v.as_str()), Some("bug"));
/// // And back: the same JSON, compacted.
/// assert_eq!(to_openai(&call, "c1").function.arguments, r#"{"title":"Crash","labels":["bug"]}"#);
/// ```
pub fn from_openai(call: &OpenAiToolCall, tools: &[ToolDef]) -> Result<ToolCall, BridgeError> {
    if call.kind != "function" {
        return Err(BridgeError::shape(format!(
            "tool call {:?} is of type {:?}; only \"function\" calls can be read",
            call.id, call.kind
        )));
    }
    let name = &call.function.name;
    let text = call.function.arguments.trim();
    // Read straight into argument values (by their own visitor: every member name is a
    // member, docs/FORMAT.md §1.3).
    let arguments = if text.is_empty() {
        Map::new()
    } else {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object,
            Ok(Value::Null) => Map::new(),
            Ok(other) => {
                return Err(BridgeError::ArgumentsNotAnObject {
                    tool_name: name.clone(),
                    found: json_type(&Json::from(other)),
                });
            }
            Err(e) => {
                return Err(BridgeError::InvalidArguments {
                    tool_name: name.clone(),
                    message: e.to_string(),
                });
            }
        }
    };
    let server = tools
        .iter()
        .find(|t| t.name == *name)
        .map_or(DEFAULT_SERVER_NAME, ToolDef::server_name);
    Ok(call_from_parts(server, name.clone(), arguments))
}

/// The calls of an assistant message (its `tool_calls`, none when absent or null), each with
/// its id, read by [`from_openai`].
///
/// # Errors
///
/// [`BridgeError::Shape`] when `tool_calls` is not an array of tool calls (naming the first one
/// that is not), and the errors of [`from_openai`].
///
/// ```
/// let message = serde_json::json!({"role": "assistant", "content": "Hello."});
/// assert!(toolcall::bridge::openai::calls_from_message(&message, &[]).unwrap().is_empty());
/// let bad = serde_json::json!({"role": "assistant", "tool_calls": [{"id": "c1"}]});
/// let err = toolcall::bridge::openai::calls_from_message(&bad, &[]).unwrap_err();
/// assert!(err.to_string().starts_with("tool_calls[0] is not a tool call: missing field `function`"));
/// ```
pub fn calls_from_message(
    message: &Json,
    tools: &[ToolDef],
) -> Result<Vec<(String, ToolCall)>, BridgeError> {
    let items = match message.get("tool_calls") {
        None | Some(Json::Null) => return Ok(Vec::new()),
        Some(Json::Array(items)) => items,
        Some(other) => {
            return Err(BridgeError::shape(format!(
                "tool_calls must be an array, found {}",
                json_type(other)
            )));
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let native = OpenAiToolCall::deserialize(item).map_err(|e| {
                BridgeError::shape(format!("tool_calls[{i}] is not a tool call: {e}"))
            })?;
            let call = from_openai(&native, tools)?;
            Ok((native.id, call))
        })
        .collect()
}

/// The message that gives a native call its result: `{"role": "tool", "tool_call_id": id,
/// "content": content}`.
pub fn tool_result_message(tool_call_id: &str, content: &str) -> Json {
    serde_json::json!({"role": "tool", "tool_call_id": tool_call_id, "content": content})
}

/// Tool definitions for a native function-calling request's `tools`:
/// `{"type": "function", "function": {"name", "description", "parameters"}}` each.
///
/// ```
/// use toolcall::prompt::ToolDef;
/// let tools = [ToolDef::new("ping", "Check the connection.", serde_json::json!({"type": "object"}))];
/// assert_eq!(
///     toolcall::bridge::openai::tools_to_openai(&tools),
///     serde_json::json!([{"type": "function", "function": {
///         "name": "ping", "description": "Check the connection.", "parameters": {"type": "object"}}}])
/// );
/// ```
pub fn tools_to_openai(tools: &[ToolDef]) -> Json {
    Json::Array(
        tools
            .iter()
            .map(|t| {
                serde_json::json!({"type": "function", "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                }})
            })
            .collect(),
    )
}

/// Tool definitions from a native request's `tools` (an array of `{"type": "function",
/// "function": {…}}`, or of the bare function objects), on the `local` server.
///
/// # Errors
///
/// [`BridgeError::Shape`] when the list is not an array, [`BridgeError::ToolList`] when a
/// definition cannot be read (no name, two of one name, `parameters` not an object).
///
/// ```
/// use toolcall::bridge::openai::{tools_from_openai, tools_to_openai};
/// use toolcall::prompt::ToolDef;
/// let tools = vec![ToolDef::new("ping", "Check.", serde_json::json!({"type": "object"}))];
/// assert_eq!(tools_from_openai(&tools_to_openai(&tools)).unwrap(), tools);
/// ```
pub fn tools_from_openai(tools: &Json) -> Result<Vec<ToolDef>, BridgeError> {
    let Json::Array(items) = tools else {
        return Err(BridgeError::shape(format!(
            "the tools must be an array, found {}",
            json_type(tools)
        )));
    };
    let functions = items
        .iter()
        .map(|item| match item.get("function") {
            Some(function) => function.clone(),
            None => item.clone(),
        })
        .collect();
    Ok(ToolDef::from_tools_json(&Json::Array(functions))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(text: &str) -> ToolCall {
        toolcall_parser::parse(text).into_calls().remove(0)
    }

    #[test]
    fn text_call_to_native_and_back_keeps_everything_but_the_text() {
        let tools = [ToolDef::new("apply_diff", "", json!({})).with_server_name("files")];
        let original = call(
            "<tool><server_name>files</server_name><tool_name>apply_diff</tool_name><arguments>\
             <path>a.rs</path><edits><search>a &amp;&amp; b</search><replace>c</replace></edits>\
             <edits><search>x</search><replace>y</replace></edits><dry_run>false</dry_run>\
             <n>-2</n><f>0.5</f></arguments></tool>",
        );
        let native = to_openai(&original, "id1");
        let text = serde_json::to_string(&native).unwrap();
        let read: OpenAiToolCall = serde_json::from_str(&text).unwrap();
        let back = from_openai(&read, &tools).unwrap();
        assert_eq!(back.server_name, original.server_name);
        assert_eq!(back.tool_name, original.tool_name);
        assert_eq!(back.arguments, original.arguments);
        assert!(back.repairs.is_empty());
        assert_eq!(
            back.encodings
                .iter()
                .map(|e| e.argument.as_str())
                .collect::<Vec<_>>(),
            ["path", "edits", "dry_run", "n", "f"]
        );
        // The XML of the call read back natively parses to the same call.
        let reparsed = call(&back.to_xml().unwrap());
        assert_eq!(reparsed.arguments, original.arguments);
    }

    /// Arguments text, a call read as JSON (with arguments as an object rather than text) and a
    /// tool definition may all use the member name that serde_json's `raw_value` feature gives a
    /// meaning to in `serde_json::Value`: it is read as a member.
    #[test]
    fn any_member_name_is_read_as_a_member() {
        const NAME: &str = "$serde_json::private::RawValue";
        let args = format!(r#"{{"{NAME}": "x", "o": {{"{NAME}": 1}}}}"#);
        let expected = json!({NAME: "x", "o": {NAME: 1}});
        let back = from_openai(&OpenAiToolCall::new("c", "t", args.clone()), &[]).unwrap();
        assert_eq!(
            Json::from(arg_types::Value::Object(back.arguments)),
            expected
        );
        let native = format!(
            r#"{{"id":"c","type":"function","function":{{"name":"t","arguments":{args}}}}}"#
        );
        let read: OpenAiToolCall = serde_json::from_str(&native).unwrap();
        assert_eq!(
            arg_types::value::json_from_str(&read.function.arguments).unwrap(),
            expected
        );
        let tools = format!(
            r#"[{{"type":"function","function":{{"name":"t","parameters":
                {{"type":"object","properties":{{"{NAME}":{{"type":"integer"}}}}}}}}}}]"#
        );
        let tools = tools_from_openai(&arg_types::value::json_from_str(&tools).unwrap()).unwrap();
        assert_eq!(tools[0].input_schema["properties"][NAME]["type"], "integer");
        let def: ToolDef = serde_json::from_str(&format!(
            r#"{{"name":"t","inputSchema":{{"{NAME}":{{"type":"integer"}}}}}}"#
        ))
        .unwrap();
        assert_eq!(def.input_schema[NAME]["type"], "integer");
    }

    #[test]
    fn unknown_tools_are_local_and_empty_arguments_are_none() {
        for args in ["", "  ", "null", "{}"] {
            let back = from_openai(&OpenAiToolCall::new("c", "ping", args), &[]).unwrap();
            assert_eq!(back.server_name, "local", "{args:?}");
            assert!(back.arguments.is_empty(), "{args:?}");
        }
    }

    #[test]
    fn bad_arguments_and_types_are_errors() {
        let err = from_openai(&OpenAiToolCall::new("c", "t", "[1, 2]"), &[]).unwrap_err();
        assert_eq!(
            err,
            BridgeError::ArgumentsNotAnObject {
                tool_name: "t".into(),
                found: "an array"
            }
        );
        assert_eq!(
            err.to_string(),
            "the arguments of `t` must be a JSON object, found an array"
        );
        let err = from_openai(&OpenAiToolCall::new("c", "t", "{\"a\": }"), &[]).unwrap_err();
        assert!(err.to_string().contains("line 1 column 7"), "{err}");
        let mut custom = OpenAiToolCall::new("c", "t", "{}");
        custom.kind = "custom".into();
        let err = from_openai(&custom, &[]).unwrap_err();
        assert!(err.to_string().contains("only \"function\""), "{err}");
    }

    #[test]
    fn messages_with_bad_tool_calls_are_errors() {
        let err = calls_from_message(&json!({"tool_calls": {}}), &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool_calls must be an array, found an object"
        );
        let message = json!({"tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "y", "arguments": "3"}}
        ]});
        let err = calls_from_message(&message, &[]).unwrap_err();
        assert!(
            matches!(&err, BridgeError::ArgumentsNotAnObject { tool_name, .. } if tool_name == "y")
        );
    }

    #[test]
    fn tool_definitions_both_ways() {
        let bare = json!([{"name": "a", "description": "A", "parameters": {"type": "object"}}]);
        let defs = tools_from_openai(&bare).unwrap();
        assert_eq!(defs[0].name, "a");
        assert_eq!(defs[0].server_name(), "local");
        assert_eq!(
            tools_to_openai(&defs)[0]["function"]["parameters"],
            json!({"type": "object"})
        );
        let err = tools_from_openai(&json!({"tools": []})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the tools must be an array, found an object"
        );
        let err =
            tools_from_openai(&json!([{"type": "function", "function": {"description": "?"}}]))
                .unwrap_err();
        assert!(matches!(err, BridgeError::ToolList(_)), "{err:?}");
    }
}
