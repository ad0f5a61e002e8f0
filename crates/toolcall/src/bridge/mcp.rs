//! MCP (Model Context Protocol): calls as `tools/call` params, servers' tool lists as
//! [`ToolDef`]s, `tools/call` results as text.
//!
//! A call's `server_name` says which MCP server runs it (docs/FORMAT.md §1); [`group_by_server`] sorts a
//! reply's calls into one batch per server, and [`call_params`] makes each call the params of
//! that server's `tools/call` request. The other way, [`tool_defs`] reads what a server's
//! `tools/list` returned, routed to that server, for `toolcall::prompt::system_prompt_section`.
//!
//! ```
//! use toolcall::bridge::mcp;
//! let reply = "<tool><server_name>github</server_name><tool_name>create_issue</tool_name>\
//!              <arguments><title>Crash on start</title></arguments></tool>\
//!              <tool><tool_name>read_file</tool_name><arguments><path>log.txt</path></arguments></tool>";
//! let result = toolcall::parser::parse(reply);
//! let batches = mcp::group_by_server(result.calls());
//! assert_eq!(batches[0].server_name, "github");
//! assert_eq!(batches[1].server_name, "local");
//! let (index, params) = &batches[0].calls[0];
//! assert_eq!(*index, 0);
//! assert_eq!(
//!     mcp::call_request(7, params),
//!     serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
//!         "params": {"name": "create_issue", "arguments": {"title": "Crash on start"}}})
//! );
//! ```

use super::{BridgeError, arguments_from_json, arguments_to_json, call_from_parts, json_type};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use toolcall_parser::ToolCall;
use toolcall_prompt::{ToolDef, assign_server};

/// The params of an MCP `tools/call` request: `{"name": …, "arguments": {…}}`.
///
/// ```
/// let params: toolcall::bridge::mcp::CallParams =
///     serde_json::from_value(serde_json::json!({"name": "ping"})).unwrap();
/// assert!(params.arguments.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallParams {
    /// The tool's name.
    pub name: String,
    /// The arguments, in the order the model wrote them; missing means none.
    #[serde(
        default,
        deserialize_with = "arg_types::value::deserialize_json_object"
    )]
    pub arguments: serde_json::Map<String, Json>,
}

/// A call as the params of an MCP `tools/call` request. The server is not part of the params:
/// it is the connection the request is sent on (see [`group_by_server`]).
///
/// ```
/// let call = &toolcall::parser::parse(
///     "<tool><tool_name>search</tool_name><arguments><q>rust</q><limit>5</limit></arguments></tool>",
/// ).calls()[0].clone();
/// let params = toolcall::bridge::mcp::call_params(call);
/// assert_eq!(
///     serde_json::to_string(&params).unwrap(),
///     r#"{"name":"search","arguments":{"q":"rust","limit":5}}"#
/// );
/// ```
pub fn call_params(call: &ToolCall) -> CallParams {
    CallParams {
        name: call.tool_name.clone(),
        arguments: arguments_to_json(&call.arguments),
    }
}

/// The call that `tools/call` params describe, routed to `server_name` (the server the request
/// came for); the inverse of [`call_params`].
///
/// ```
/// use toolcall::bridge::mcp;
/// let call = &toolcall::parser::parse(
///     "<tool><server_name>db</server_name><tool_name>query</tool_name>\
///      <arguments><sql>select 1</sql></arguments></tool>",
/// ).calls()[0].clone();
/// let back = mcp::call_from_params("db", mcp::call_params(call));
/// assert_eq!((back.server_name.as_str(), back.tool_name.as_str()), ("db", "query"));
/// assert_eq!(back.arguments, call.arguments);
/// ```
pub fn call_from_params(server_name: &str, params: CallParams) -> ToolCall {
    call_from_parts(
        server_name,
        params.name,
        arguments_from_json(params.arguments),
    )
}

/// The calls for one MCP server, in the order the model wrote them.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerCalls {
    /// The server's name, as the calls give it (`local` when they name none).
    pub server_name: String,
    /// Each call's position among the calls given to [`group_by_server`] (to put the results
    /// back in the model's order), with its `tools/call` params.
    pub calls: Vec<(usize, CallParams)>,
}

/// Sorts calls into one batch per `server_name`, servers in order of their first call, calls
/// in order within each server.
///
/// Takes any iterator of calls: `ParseResult::calls()` or a `&[ToolCall]`.
///
/// ```
/// use toolcall::bridge::mcp::group_by_server;
/// let r = toolcall::parser::parse(
///     "<tool><server_name>a</server_name><tool_name>x</tool_name></tool>\
///      <tool><server_name>b</server_name><tool_name>y</tool_name></tool>\
///      <tool><server_name>a</server_name><tool_name>z</tool_name></tool>",
/// );
/// let batches = group_by_server(r.calls());
/// let shape: Vec<(&str, Vec<usize>)> = batches
///     .iter()
///     .map(|b| (b.server_name.as_str(), b.calls.iter().map(|(i, _)| *i).collect()))
///     .collect();
/// assert_eq!(shape, [("a", vec![0, 2]), ("b", vec![1])]);
/// ```
pub fn group_by_server<'a>(calls: impl IntoIterator<Item = &'a ToolCall>) -> Vec<ServerCalls> {
    let mut batches: Vec<ServerCalls> = Vec::new();
    for (index, call) in calls.into_iter().enumerate() {
        let params = call_params(call);
        match batches
            .iter_mut()
            .find(|b| b.server_name == call.server_name)
        {
            Some(batch) => batch.calls.push((index, params)),
            None => batches.push(ServerCalls {
                server_name: call.server_name.clone(),
                calls: vec![(index, params)],
            }),
        }
    }
    batches
}

/// A whole JSON-RPC 2.0 `tools/call` request with these params, for a client that writes
/// requests itself (over stdio, say).
pub fn call_request(id: u64, params: &CallParams) -> Json {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": params,
    })
}

/// The tools one server listed, routed to it: reads a `tools/list` result (`{"tools": [...],
/// "nextCursor": …}`), a whole JSON-RPC response holding one, or a bare array of tools.
///
/// Each tool keeps `name`, `description` and `inputSchema`; other fields (`title`,
/// `annotations`, `outputSchema`) are dropped. A paginated list is read page by page and the
/// pages concatenated. Tools of different servers should have different names: the parser
/// finds a tool's schema by name alone.
///
/// # Errors
///
/// [`BridgeError::Rpc`] for an error response, [`BridgeError::ToolList`] for a list that is not
/// of the MCP shape (a tool without a name, two tools of one name).
///
/// ```
/// let response = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
///     {"name": "get_weather", "title": "Weather", "description": "Weather for a city.",
///      "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
///                      "required": ["city"]}}
/// ]}});
/// let tools = toolcall::bridge::mcp::tool_defs("weather", &response).unwrap();
/// assert_eq!((tools[0].name.as_str(), tools[0].server_name()), ("get_weather", "weather"));
/// let prompt = toolcall::prompt::system_prompt_section(&tools);
/// assert!(prompt.contains("<server_name>weather</server_name>"));
/// ```
pub fn tool_defs(server_name: &str, list: &Json) -> Result<Vec<ToolDef>, BridgeError> {
    let list = unwrap_response(list)?;
    let mut tools = ToolDef::from_tools_json(list)?;
    assign_server(&mut tools, server_name);
    Ok(tools)
}

/// What a `tools/call` result says, as text for the thread and the model.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    /// The content as text: text items as they are, other items as a bracketed note
    /// (`[image: image/png]`, `[resource: file:///a.txt]`), items separated by a newline. When
    /// the result has no content, its `structuredContent` as JSON text.
    pub text: String,
    /// The tool reported a failure (`isError`): the text says what went wrong.
    pub is_error: bool,
    /// The result's `structuredContent`, if any.
    pub structured: Option<Json>,
}

/// Reads a `tools/call` result (`{"content": [...], "isError": …, "structuredContent": …}`),
/// or a whole JSON-RPC response holding one.
///
/// # Errors
///
/// [`BridgeError::Rpc`] for an error response (a protocol error, such as an unknown tool: a
/// tool's own failure is `is_error`), [`BridgeError::Shape`] for a result that is not an object
/// or whose `content` is not an array of objects.
///
/// ```
/// let result = serde_json::json!({"content": [
///     {"type": "text", "text": "22 °C"},
///     {"type": "image", "data": "iVBOR…", "mimeType": "image/png"}
/// ], "isError": false});
/// let outcome = toolcall::bridge::mcp::call_outcome(&result).unwrap();
/// assert_eq!(outcome.text, "22 °C\n[image: image/png]");
/// assert!(!outcome.is_error);
/// ```
pub fn call_outcome(result: &Json) -> Result<CallOutcome, BridgeError> {
    let result = unwrap_response(result)?;
    let Json::Object(object) = result else {
        return Err(BridgeError::shape(format!(
            "a tools/call result must be an object, found {}",
            json_type(result)
        )));
    };
    let is_error = object
        .get("isError")
        .and_then(Json::as_bool)
        .unwrap_or(false);
    let structured = object.get("structuredContent").cloned();
    let mut parts: Vec<String> = Vec::new();
    match object.get("content") {
        None | Some(Json::Null) => {}
        Some(Json::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                parts.push(content_text(item).ok_or_else(|| {
                    BridgeError::shape(format!(
                        "content item {i} must be an object with a \"type\", found {}",
                        json_type(item)
                    ))
                })?);
            }
        }
        Some(other) => {
            return Err(BridgeError::shape(format!(
                "\"content\" must be an array, found {}",
                json_type(other)
            )));
        }
    }
    let text = match (&structured, parts.is_empty()) {
        (Some(s), true) => s.to_string(),
        _ => parts.join("\n"),
    };
    Ok(CallOutcome {
        text,
        is_error,
        structured,
    })
}

/// One content item as text; `None` when it is not an object with a string `type`.
fn content_text(item: &Json) -> Option<String> {
    let kind = item.get("type")?.as_str()?;
    let field = |name: &str| item.get(name).and_then(Json::as_str);
    Some(match kind {
        "text" => field("text").unwrap_or_default().to_owned(),
        "image" | "audio" => format!("[{kind}: {}]", field("mimeType").unwrap_or("unknown")),
        "resource_link" => format!("[resource: {}]", field("uri").unwrap_or("unknown")),
        "resource" => {
            let resource = item.get("resource");
            let get = |name: &str| resource.and_then(|r| r.get(name)).and_then(Json::as_str);
            match get("text") {
                Some(text) => text.to_owned(),
                None => format!("[resource: {}]", get("uri").unwrap_or("unknown")),
            }
        }
        other => format!("[{other}]"),
    })
}

/// The `result` of a JSON-RPC response, an error response as [`BridgeError::Rpc`], and any other
/// JSON as it is.
fn unwrap_response(json: &Json) -> Result<&Json, BridgeError> {
    let Json::Object(object) = json else {
        return Ok(json);
    };
    if !(object.contains_key("jsonrpc") || object.contains_key("id")) {
        return Ok(json);
    }
    if let Some(error) = object.get("error") {
        return Err(BridgeError::Rpc {
            code: error.get("code").and_then(Json::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Json::as_str)
                .unwrap_or("(no message)")
                .to_owned(),
        });
    }
    object
        .get("result")
        .ok_or_else(|| BridgeError::shape("a JSON-RPC response holds neither result nor error"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_keep_types_and_order() {
        let r = toolcall_parser::parse(
            "<tool><tool_name>t</tool_name><arguments><z>007</z><a>true</a><m>1.5</m>\
             <list>x</list><list>y</list><obj><k>v</k></obj></arguments></tool>",
        );
        let params = call_params(r.calls()[0]);
        assert_eq!(
            serde_json::to_string(&params).unwrap(),
            r#"{"name":"t","arguments":{"z":7,"a":true,"m":1.5,"list":["x","y"],"obj":{"k":"v"}}}"#
        );
    }

    #[test]
    fn params_round_trip_through_json_and_back_to_the_call() {
        let r = toolcall_parser::parse(
            "<tool><server_name>s</server_name><tool_name>t</tool_name>\
             <arguments><n>-3</n><s>a &amp; b</s></arguments></tool>",
        );
        let call = r.calls()[0];
        let text = serde_json::to_string(&call_params(call)).unwrap();
        let params: CallParams = serde_json::from_str(&text).unwrap();
        let back = call_from_params("s", params);
        assert_eq!(back.arguments, call.arguments);
        assert_eq!(back.server_name, "s");
        assert_eq!(back.encodings.len(), 2);
    }

    /// Arguments may use the member name that serde_json's `raw_value` feature gives a meaning
    /// to in `serde_json::Value`; a non-object is still refused.
    #[test]
    fn params_may_use_any_member_name() {
        const NAME: &str = "$serde_json::private::RawValue";
        let text = format!(r#"{{"name":"t","arguments":{{"{NAME}":"x","b":{{"{NAME}":[1]}}}}}}"#);
        let params: CallParams = serde_json::from_str(&text).unwrap();
        assert_eq!(
            Json::Object(params.arguments),
            json!({NAME: "x", "b": {NAME: [1]}})
        );
        assert!(serde_json::from_str::<CallParams>(r#"{"name":"t","arguments":[1]}"#).is_err());
    }

    #[test]
    fn grouping_of_no_calls_is_empty() {
        assert!(group_by_server(&[]).is_empty());
    }

    #[test]
    fn tool_lists_in_every_shape() {
        let tools = json!([{"name": "a", "inputSchema": {"type": "object"}}]);
        for list in [
            tools.clone(),
            json!({"tools": tools, "nextCursor": "2"}),
            json!({"jsonrpc": "2.0", "id": "x", "result": {"tools": tools}}),
        ] {
            let defs = tool_defs("srv", &list).unwrap();
            assert_eq!(defs.len(), 1, "{list}");
            assert_eq!(defs[0].server_name(), "srv");
        }
        let err = tool_defs(
            "srv",
            &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}),
        )
        .unwrap_err();
        assert_eq!(
            err,
            BridgeError::Rpc {
                code: -32601,
                message: "Method not found".into()
            }
        );
        let err = tool_defs("srv", &json!({"tools": [{"name": "a"}, {"name": "a"}]})).unwrap_err();
        assert!(matches!(err, BridgeError::ToolList(_)), "{err:?}");
        assert!(err.to_string().contains("both named \"a\""), "{err}");
        let err = tool_defs("srv", &json!({"jsonrpc": "2.0", "id": 1})).unwrap_err();
        assert!(
            err.to_string().contains("neither result nor error"),
            "{err}"
        );
    }

    #[test]
    fn outcomes_of_every_content_kind() {
        let result = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [
            {"type": "text", "text": "line one"},
            {"type": "audio", "data": "…", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
            {"type": "resource", "resource": {"uri": "file:///b.txt", "text": "bee"}},
            {"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "AAAA"}},
            {"type": "widget"}
        ], "isError": true}});
        let outcome = call_outcome(&result).unwrap();
        assert_eq!(
            outcome.text,
            "line one\n[audio: audio/wav]\n[resource: file:///a.txt]\nbee\n[resource: file:///c.bin]\n[widget]"
        );
        assert!(outcome.is_error);
        assert_eq!(outcome.structured, None);
    }

    #[test]
    fn structured_content_stands_in_for_missing_content() {
        let outcome =
            call_outcome(&json!({"content": [], "structuredContent": {"temp": 22}})).unwrap();
        assert_eq!(outcome.text, r#"{"temp":22}"#);
        assert_eq!(outcome.structured, Some(json!({"temp": 22})));
        let with_text = call_outcome(&json!({"content": [{"type": "text", "text": "22"}],
                                             "structuredContent": {"temp": 22}}))
        .unwrap();
        assert_eq!(with_text.text, "22");
    }

    #[test]
    fn malformed_results_are_errors() {
        for (result, expected) in [
            (json!("ok"), "must be an object, found a string"),
            (json!({"content": "ok"}), "\"content\" must be an array"),
            (json!({"content": [3]}), "content item 0 must be an object"),
            (json!({"content": [{"text": "no type"}]}), "content item 0"),
        ] {
            let err = call_outcome(&result).unwrap_err().to_string();
            assert!(err.contains(expected), "{err} lacks {expected}");
        }
    }
}
