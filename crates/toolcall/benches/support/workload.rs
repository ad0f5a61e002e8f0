//! The inputs: dense code in a `write_to_file` call (CDATA, entity-escaped and JSON forms), a
//! text with 10% bare `&`, a response of many small calls, a 20-field tool, agent threads and
//! tool definitions. Everything is generated deterministically; nothing is read at run time.

use serde::{Deserialize, Serialize};
use toolcall::fallback::escape::escape_text;
use toolcall::thread::{AgentEvent, Role};

pub(crate) use super::code::{IDENTS, Rng, cut, dense_code};

/// The JSON shape of the call: what serde_json parses into a struct.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct JsonCall {
    pub(crate) server_name: String,
    pub(crate) tool_name: String,
    pub(crate) arguments: WriteArgs,
}

/// The arguments of `write_to_file`.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct WriteArgs {
    pub(crate) path: String,
    pub(crate) content: String,
}

/// The path every `write_to_file` call writes.
pub(crate) const PATH: &str = "src/generated/module.rs";

/// How the `content` argument is written in XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// `<![CDATA[…]]>` around the raw code.
    Cdata,
    /// `&amp;`, `&lt;`, `&gt;` (the writer's text escaping).
    Escaped,
}

impl Form {
    pub(crate) const ALL: [Form; 2] = [Form::Cdata, Form::Escaped];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Form::Cdata => "cdata",
            Form::Escaped => "escaped",
        }
    }
}

/// A model response holding one `write_to_file` call with `content`.
pub(crate) fn xml_call(content: &str, form: Form) -> String {
    let mut s = String::with_capacity(content.len() + content.len() / 2 + 256);
    s.push_str("I'll write the module.\n<tool>\n<server_name>local</server_name>\n");
    s.push_str("<tool_name>write_to_file</tool_name>\n<arguments>\n<path>");
    s.push_str(PATH);
    s.push_str("</path>\n<content>");
    match form {
        Form::Cdata => {
            s.push_str("<![CDATA[");
            s.push_str(content);
            s.push_str("]]>");
        }
        Form::Escaped => s.push_str(&escape_text(content)),
    }
    s.push_str("</content>\n</arguments>\n</tool>");
    s
}

/// The same call as one JSON object.
pub(crate) fn json_call(content: &str) -> String {
    serde_json::to_string(&JsonCall {
        server_name: "local".into(),
        tool_name: "write_to_file".into(),
        arguments: WriteArgs {
            path: PATH.into(),
            content: content.into(),
        },
    })
    .expect("a struct of strings serializes")
}

/// References per byte of the escaped form of `content`.
pub(crate) fn entity_density(content: &str) -> f64 {
    let refs = content
        .bytes()
        .filter(|b| matches!(b, b'&' | b'<' | b'>'))
        .count();
    refs as f64 / content.len().max(1) as f64
}

/// Text of about `size` bytes in which about 10% of the bytes are `&` (shell, C and URLs), and
/// no `<` or `>`, so its only markup is the ampersands. Returned with its `&` share.
pub(crate) fn ampersand_text(size: usize) -> (String, f64) {
    let mut rng = Rng::new(7);
    let mut s = String::with_capacity(size + 100);
    s.push_str("# setup");
    while s.len() < size {
        s.push('\n');
        let a = rng.pick(IDENTS);
        let b = rng.pick(IDENTS);
        let line = match rng.below(4) {
            0 => format!("make {a} && make {b} && make check && cargo test -p {a} && echo ok"),
            1 => format!("curl \"https://example.com/api?{a}=1&{b}=2&x=&y=&mode=fast&page=3\""),
            2 => format!("    flags = {a} & MASK & {b} & 0xff; ok = ok && flags && !{b};"),
            _ => format!("    if ({a} && {b} && {a}.ok()) {{ x &= {b}; }} // {a} & {b}"),
        };
        s.push_str(&line);
    }
    cut(&mut s, size);
    let share = s.bytes().filter(|&b| b == b'&').count() as f64 / s.len() as f64;
    (s, share)
}

/// A call whose `content` is `text` written with each `&` bare (`repaired`) or as `&amp;`.
pub(crate) fn ampersand_call(text: &str, bare: bool) -> String {
    let body = if bare {
        text.to_owned()
    } else {
        escape_text(text).into_owned()
    };
    let mut s = String::from("<tool>\n<tool_name>run_script</tool_name>\n<arguments>\n<script>");
    s.push_str(&body);
    s.push_str("</script>\n</arguments>\n</tool>");
    s
}

/// The same text as an `<arguments>` document for `xml_fallback::parse_document`.
pub(crate) fn ampersand_document(text: &str, bare: bool) -> String {
    let body = if bare {
        text.to_owned()
    } else {
        escape_text(text).into_owned()
    };
    format!("<arguments><script>{body}</script></arguments>")
}

/// The arguments of one small call.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct SmallArgs {
    pub(crate) path: String,
    pub(crate) start_line: i64,
    pub(crate) end_line: i64,
}

/// One small call in the JSON shape.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct SmallCall {
    pub(crate) server_name: String,
    pub(crate) tool_name: String,
    pub(crate) arguments: SmallArgs,
}

/// `n` small `read_file` calls: as one model response (a sentence before each call) and as the
/// equivalent JSON array.
pub(crate) fn small_calls(n: usize) -> (String, String, Vec<SmallCall>) {
    let mut rng = Rng::new(11);
    let mut xml = String::new();
    let mut calls = Vec::with_capacity(n);
    for i in 0..n {
        let path = format!("src/{}/{}_{i}.rs", rng.pick(IDENTS), rng.pick(IDENTS));
        let start = rng.below(500) as i64 + 1;
        let end = start + rng.below(80) as i64;
        xml.push_str(&format!(
            "Reading part {i}.\n<tool>\n<server_name>local</server_name>\n\
             <tool_name>read_file</tool_name>\n<arguments>\n<path>{path}</path>\n\
             <start_line>{start}</start_line>\n<end_line>{end}</end_line>\n</arguments>\n</tool>\n"
        ));
        calls.push(SmallCall {
            server_name: "local".into(),
            tool_name: "read_file".into(),
            arguments: SmallArgs {
                path,
                start_line: start,
                end_line: end,
            },
        });
    }
    let json = serde_json::to_string(&calls).expect("serializable");
    (xml, json, calls)
}

/// A tool with 20 arguments of every kind the schema coercer handles.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct TwentyArgs {
    pub(crate) path: String,
    pub(crate) version: String,
    pub(crate) code: String,
    pub(crate) line: i64,
    pub(crate) column: u32,
    pub(crate) ratio: f64,
    pub(crate) threshold: f64,
    pub(crate) recursive: bool,
    pub(crate) dry_run: bool,
    pub(crate) mode: String,
    pub(crate) encoding: String,
    pub(crate) tags: Vec<String>,
    pub(crate) lines: Vec<i64>,
    pub(crate) owner: Owner,
    pub(crate) retries: u8,
    pub(crate) timeout_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) comment: Option<String>,
    pub(crate) pattern: String,
    pub(crate) replacement: String,
    pub(crate) edits: Vec<Edit>,
}

/// A nested object argument.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Owner {
    pub(crate) name: String,
    pub(crate) id: i64,
}

/// An array-of-objects argument's item.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Edit {
    pub(crate) search: String,
    pub(crate) replace: String,
}

/// The 20-field tool: its `inputSchema`, one call to it in XML (`<arguments>` only) and in JSON,
/// and the decoded value both must give.
pub(crate) fn twenty_field_tool() -> (serde_json::Value, String, String, TwentyArgs) {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "version": {"type": "string"},
            "code": {"type": "string"},
            "line": {"type": "integer"},
            "column": {"type": "integer"},
            "ratio": {"type": "number"},
            "threshold": {"type": "number"},
            "recursive": {"type": "boolean"},
            "dry_run": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["fast", "safe", "exhaustive"]},
            "encoding": {"anyOf": [{"const": "utf-8"}, {"type": "string"}]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "lines": {"type": "array", "items": {"type": "integer"}},
            "owner": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "id": {"type": "integer"}},
                "required": ["name", "id"]
            },
            "retries": {"type": "integer"},
            "timeout_ms": {"type": "integer"},
            "comment": {"type": ["string", "null"]},
            "pattern": {"type": "string"},
            "replacement": {"type": "string"},
            "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}}
        },
        "required": ["path", "line", "mode"],
        "additionalProperties": false,
        "$defs": {
            "edit": {
                "type": "object",
                "properties": {"search": {"type": "string"}, "replace": {"type": "string"}}
            }
        }
    });
    let expected = TwentyArgs {
        path: "src/lib.rs".into(),
        version: "1.10".into(),
        code: "007".into(),
        line: 42,
        column: 7,
        ratio: 0.75,
        threshold: 1e-3,
        recursive: true,
        dry_run: false,
        mode: "safe".into(),
        encoding: "utf-8".into(),
        tags: vec!["parser".into(), "hot path".into(), "true".into()],
        lines: vec![3, 5, 8, 13],
        owner: Owner {
            name: "Ada & co".into(),
            id: 12,
        },
        retries: 3,
        timeout_ms: 30_000,
        comment: None,
        pattern: "a && b < c".into(),
        replacement: "both(a, b) < c".into(),
        edits: vec![
            Edit {
                search: "old_name".into(),
                replace: "new_name".into(),
            },
            Edit {
                search: "x < y".into(),
                replace: "y > x".into(),
            },
        ],
    };
    let xml = "<arguments>\n\
        <path>src/lib.rs</path>\n<version>1.10</version>\n<code>007</code>\n\
        <line>42</line>\n<column>7</column>\n<ratio>0.75</ratio>\n<threshold>1e-3</threshold>\n\
        <recursive>true</recursive>\n<dry_run>false</dry_run>\n<mode>safe</mode>\n\
        <encoding>utf-8</encoding>\n\
        <tags><tag>parser</tag><tag>hot path</tag><tag>true</tag></tags>\n\
        <lines><line>3</line><line>5</line><line>8</line><line>13</line></lines>\n\
        <owner><name>Ada &amp; co</name><id>12</id></owner>\n\
        <retries>3</retries>\n<timeout_ms>30000</timeout_ms>\n\
        <pattern>a &amp;&amp; b &lt; c</pattern>\n<replacement>both(a, b) &lt; c</replacement>\n\
        <edits>\n<edit><search>old_name</search><replace>new_name</replace></edit>\n\
        <edit><search>x &lt; y</search><replace>y &gt; x</replace></edit>\n</edits>\n\
        </arguments>"
        .to_owned();
    let json = serde_json::to_string(&expected).expect("serializable");
    (schema, xml, json, expected)
}

/// An agent thread of `n` events (a realistic mix: user and assistant messages, tool calls and
/// results, errors with terminal escapes, completions); tool results and assistant messages hold
/// about `body` bytes of code.
pub(crate) fn thread_events(n: usize, body: usize) -> Vec<AgentEvent> {
    let mut rng = Rng::new(23);
    let mut events = Vec::with_capacity(n);
    let text = |_: &mut Rng, seed: u64| dense_code(body, seed);
    let mut i = 0;
    while events.len() < n {
        let iteration = (i / 6) as u64;
        let id = format!("call_{i}");
        match i % 6 {
            0 => events.push(AgentEvent::Message {
                role: Role::User,
                content: format!("Please fix the failing test #{i} when a < b && c > d."),
                iteration,
            }),
            1 => events.push(AgentEvent::ToolCall {
                tool_name: "read_file".into(),
                tool_call_id: id.clone(),
                args: serde_json::json!({"path": format!("src/{}.rs", rng.pick(IDENTS)), "start": i}),
                iteration,
            }),
            2 => events.push(AgentEvent::ToolResult {
                tool_call_id: format!("call_{}", i - 1),
                result: serde_json::Value::String(text(&mut rng, i as u64)),
                iteration,
            }),
            3 => events.push(AgentEvent::Message {
                role: Role::Assistant,
                content: text(&mut rng, i as u64 + 1),
                iteration,
            }),
            4 => events.push(AgentEvent::Error {
                error: format!("exit status 101: \u{1b}[31merror\u{1b}[0m in {}", rng.pick(IDENTS)),
                recoverable: true,
                iteration,
            }),
            _ => events.push(AgentEvent::Completion {
                result: format!("Done: {} <= {}", rng.pick(IDENTS), rng.pick(IDENTS)),
                iteration,
            }),
        }
        i += 1;
    }
    events
}

/// `n` MCP tool definitions (`tools/list` shape) with 3 to 8 arguments each.
pub(crate) fn tool_definitions(n: usize) -> serde_json::Value {
    let mut rng = Rng::new(31);
    let tools: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let mut props = serde_json::Map::new();
            let mut required = Vec::new();
            for j in 0..3 + rng.below(6) {
                let name = format!("{}_{j}", rng.pick(IDENTS));
                let schema = match rng.below(5) {
                    0 => serde_json::json!({"type": "string", "description": format!("The {name} to use.")}),
                    1 => serde_json::json!({"type": "integer", "description": "A count, from 1."}),
                    2 => serde_json::json!({"type": "boolean", "description": "Whether to recurse."}),
                    3 => serde_json::json!({"type": "array", "items": {"type": "string"}}),
                    _ => serde_json::json!({"type": "object", "properties": {
                        "search": {"type": "string"}, "replace": {"type": "string"}}}),
                };
                if j % 2 == 0 {
                    required.push(serde_json::Value::String(name.clone()));
                }
                props.insert(name, schema);
            }
            serde_json::json!({
                "name": format!("tool_{i}_{}", rng.pick(IDENTS)),
                "description": format!("Tool number {i}: reads & writes <things> in the workspace."),
                "inputSchema": {"type": "object", "properties": props, "required": required}
            })
        })
        .collect();
    serde_json::Value::Array(tools)
}
