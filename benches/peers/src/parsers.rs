//! Each parser behind one interface: parse a response given whole or as a list of chunks, and
//! give back what a caller would hold at the end (timed), then the calls' `path` and `content`
//! (untimed, for the byte-for-byte check).

use crate::inputs::{Expected, Form};
use serde_json::{Value, json};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// The JSON schema every parser is given for `write_file`: two string parameters.
pub fn write_file_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string"}
        },
        "required": ["path", "content"]
    })
}

/// What a parser returned, kept as it came (the timed part ends here).
pub enum Output {
    /// toolcall's calls.
    Ours(Vec<toolcall_parser::ToolCall>),
    /// Per call: its name and its arguments as JSON text, the deltas concatenated.
    Json(Vec<(String, String)>),
}

impl Output {
    /// Each call's `path` and `content` (untimed).
    pub fn calls(&self) -> Result<Vec<Expected>, String> {
        match self {
            Output::Ours(calls) => calls
                .iter()
                .map(|c| {
                    let text = |k: &str| match c.arguments.get(k) {
                        Some(toolcall_parser::Value::String(s)) => Ok(s.to_string()),
                        other => Err(format!("`{k}` is {other:?}")),
                    };
                    Ok(Expected {
                        path: text("path")?,
                        content: text("content")?,
                    })
                })
                .collect(),
            Output::Json(calls) => calls
                .iter()
                .map(|(name, args)| {
                    if name != "write_file" {
                        return Err(format!("tool name {name:?}"));
                    }
                    let v: Value = serde_json::from_str(args)
                        .map_err(|e| format!("arguments are not JSON ({e})"))?;
                    let text = |k: &str| match v.get(k) {
                        Some(Value::String(s)) => Ok(s.clone()),
                        other => Err(format!("`{k}` is {other:?}")),
                    };
                    Ok(Expected {
                        path: text("path")?,
                        content: text("content")?,
                    })
                })
                .collect(),
        }
    }
}

/// A parser under test.
pub trait Parser {
    /// Its name in the report.
    fn name(&self) -> &'static str;
    /// Why it cannot read `form`, when it cannot.
    fn unsupported(&self, _form: Form) -> Option<&'static str> {
        None
    }
    /// The whole response at once, through the parser's one-shot entry point.
    fn one_shot(&mut self, form: Form, text: &str) -> Result<Output, String>;
    /// The response chunk by chunk, through the parser's streaming entry point.
    fn stream(&mut self, form: Form, chunks: &[&str]) -> Result<Output, String>;
}

/// Polls a future that never waits on anything outside itself (the async peers' futures are
/// async only in signature) until it is ready.
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Adds a streamed delta (tool index, name on the first, argument text) to per-call totals.
fn add_delta(calls: &mut Vec<(String, String)>, index: usize, name: Option<&str>, args: &str) {
    while calls.len() <= index {
        calls.push((String::new(), String::new()));
    }
    if let Some(n) = name {
        calls[index].0.push_str(n);
    }
    calls[index].1.push_str(args);
}

// ---------------------------------------------------------------------------------------------
// toolcall

/// toolcall-parser, this workspace's parser.
pub struct Ours;

fn our_options(form: Form) -> toolcall_parser::ParseOptions {
    use toolcall_parser::{Dialect, ParseOptions, ToolSchemas};
    let dialect = match form {
        Form::Qwen3Coder => Dialect::Qwen3Coder,
        Form::Glm => Dialect::Glm,
        Form::MiniMaxM2 => Dialect::MinimaxM2,
    };
    let mut schemas = ToolSchemas::default();
    schemas.insert("write_file", write_file_schema());
    ParseOptions::new()
        .with_dialect(dialect)
        .with_schemas(schemas)
}

impl Parser for Ours {
    fn name(&self) -> &'static str {
        "toolcall"
    }

    fn one_shot(&mut self, form: Form, text: &str) -> Result<Output, String> {
        let r = toolcall_parser::parse_with(text, &our_options(form));
        if let Some(e) = r.errors().first() {
            return Err(format!("{e}"));
        }
        Ok(Output::Ours(r.into_calls()))
    }

    fn stream(&mut self, form: Form, chunks: &[&str]) -> Result<Output, String> {
        use toolcall_parser::StreamParser;
        let mut p = StreamParser::with_options(our_options(form));
        let mut events = Vec::new();
        let mut calls = Vec::new();
        let mut bytes = 0;
        for c in chunks {
            p.feed_reusing(c, &mut events);
            consume(&mut events, &mut calls, &mut bytes)?;
        }
        events = p.finish();
        consume(&mut events, &mut calls, &mut bytes)?;
        std::hint::black_box(bytes);
        Ok(Output::Ours(calls))
    }
}

/// What a server does with each chunk's events, the same code for toolcall and its floors, so
/// that the two differ by the parser's work alone: each delta's text read (as it would be sent
/// on), finished calls taken out, an error ending the run; the other events stay, to be handed
/// back with the next chunk (`feed_reusing`). Inlined, as a server's own loop is.
#[inline(always)]
fn consume(
    events: &mut Vec<toolcall_parser::StreamEvent>,
    calls: &mut Vec<toolcall_parser::ToolCall>,
    bytes: &mut usize,
) -> Result<(), String> {
    use toolcall_parser::StreamEvent;
    let mut i = 0;
    while i < events.len() {
        match &events[i] {
            StreamEvent::ArgumentDelta { text, .. } => {
                *bytes += std::hint::black_box(text).len();
                i += 1;
            }
            StreamEvent::CallFinished { .. } => {
                if let StreamEvent::CallFinished { result, .. } = events.swap_remove(i) {
                    calls.push(*result.map_err(failed)?);
                }
            }
            StreamEvent::Error { error } => return Err(failed(error)),
            _ => i += 1,
        }
    }
    Ok(())
}

/// An error's message, out of [`consume`]'s inlined loop.
#[cold]
#[inline(never)]
fn failed(error: impl std::fmt::Display) -> String {
    format!("{error}")
}

// ---------------------------------------------------------------------------------------------
// vLLM 0.32.0's Rust parser (rust/src/parser of its source distribution)

/// vLLM's `vllm-parser` crate.
pub struct Vllm;

fn vllm_parser(form: Form) -> Result<Box<dyn vllm_parser::tool::ToolParser>, String> {
    use vllm_parser::tool::{
        Glm45MoeToolParser, MinimaxM2ToolParser, Qwen3CoderToolParser, Tool, ToolParser,
    };
    let tools = [Tool {
        name: "write_file".into(),
        description: None,
        parameters: write_file_schema(),
        strict: None,
        defer_loading: None,
    }];
    match form {
        Form::Qwen3Coder => Qwen3CoderToolParser::create(&tools),
        Form::Glm => Glm45MoeToolParser::create(&tools),
        Form::MiniMaxM2 => MinimaxM2ToolParser::create(&tools),
    }
    .map_err(|e| format!("{e}"))
}

fn vllm_run(form: Form, chunks: &[&str]) -> Result<Output, String> {
    use vllm_parser::tool::{ToolParserEvent, ToolParserOutput};
    let mut p = vllm_parser(form)?;
    let mut out = ToolParserOutput::default();
    let mut calls = Vec::new();
    let mut take = |out: &mut ToolParserOutput| {
        for e in out.events.drain(..) {
            if let ToolParserEvent::ToolCall(d) = e {
                add_delta(&mut calls, d.tool_index, d.name.as_deref(), &d.arguments);
            }
        }
    };
    for c in chunks {
        p.parse_into(c, &mut out).map_err(|e| format!("{e}"))?;
        take(&mut out);
    }
    let mut last = p.finish().map_err(|e| format!("{e}"))?;
    take(&mut last);
    Ok(Output::Json(calls))
}

impl Parser for Vllm {
    fn name(&self) -> &'static str {
        "vLLM 0.32.0 (Rust)"
    }

    fn one_shot(&mut self, form: Form, text: &str) -> Result<Output, String> {
        vllm_run(form, &[text])
    }

    fn stream(&mut self, form: Form, chunks: &[&str]) -> Result<Output, String> {
        vllm_run(form, chunks)
    }
}

// ---------------------------------------------------------------------------------------------
// NVIDIA Dynamo, v2 streaming parsers (dynamo-parsers-v2)

/// `dynamo-parsers-v2`.
pub struct DynamoV2;

fn dynamo_v2_parser(form: Form) -> Result<Box<dyn dynamo_parsers_v2::ToolParser>, String> {
    use dynamo_parsers_v2::{
        Glm47ToolStreamParser, MiniMaxM2ToolStreamParser, Qwen3CoderToolStreamParser, Tool,
        ToolParser,
    };
    let tools = [Tool {
        name: "write_file".into(),
        description: None,
        parameters: write_file_schema(),
        strict: None,
    }];
    match form {
        Form::Qwen3Coder => Qwen3CoderToolStreamParser::create(&tools),
        Form::Glm => Glm47ToolStreamParser::create(&tools),
        Form::MiniMaxM2 => MiniMaxM2ToolStreamParser::create(&tools),
    }
    .map_err(|e| format!("{e:#}"))
}

fn dynamo_v2_take(calls: &mut Vec<(String, String)>, r: dynamo_parsers_v2::ToolParseResult) {
    for d in r.calls {
        add_delta(calls, d.tool_index, d.name.as_deref(), &d.arguments);
    }
}

impl Parser for DynamoV2 {
    fn name(&self) -> &'static str {
        "dynamo-parsers-v2 0.9.6"
    }

    fn one_shot(&mut self, form: Form, text: &str) -> Result<Output, String> {
        let mut p = dynamo_v2_parser(form)?;
        let r = p.parse_complete(text).map_err(|e| format!("{e:#}"))?;
        let mut calls = Vec::new();
        dynamo_v2_take(&mut calls, r);
        Ok(Output::Json(calls))
    }

    fn stream(&mut self, form: Form, chunks: &[&str]) -> Result<Output, String> {
        let mut p = dynamo_v2_parser(form)?;
        let mut calls = Vec::new();
        for c in chunks {
            let r = p.push(c).map_err(|e| format!("{e:#}"))?;
            dynamo_v2_take(&mut calls, r);
        }
        let r = p.finish().map_err(|e| format!("{e:#}"))?;
        dynamo_v2_take(&mut calls, r);
        Ok(Output::Json(calls))
    }
}

// ---------------------------------------------------------------------------------------------
// NVIDIA Dynamo, v1 (dynamo-parsers): batch parsers; streaming through the "jail"

/// `dynamo-parsers`.
pub struct DynamoV1;

fn dynamo_v1_key(form: Form) -> &'static str {
    match form {
        Form::Qwen3Coder => "qwen3_coder",
        Form::Glm => "glm47",
        Form::MiniMaxM2 => "minimax_m2",
    }
}

fn dynamo_v1_tools() -> Vec<dynamo_parsers::ToolDefinition> {
    vec![dynamo_parsers::ToolDefinition {
        name: "write_file".into(),
        parameters: Some(write_file_schema()),
        strict: None,
    }]
}

/// One streamed chat-completion chunk carrying `text` as its content, as the jail receives it.
fn dynamo_v1_chunk(
    text: &str,
    finish: bool,
) -> dynamo_parsers::jail::Annotated<dynamo_protocols::types::CreateChatCompletionStreamResponse> {
    use dynamo_protocols::types::{
        ChatChoiceStream, ChatCompletionMessageContent, ChatCompletionStreamResponseDelta,
        CreateChatCompletionStreamResponse, FinishReason, Role,
    };
    #[allow(deprecated)]
    let delta = ChatCompletionStreamResponseDelta {
        content: Some(ChatCompletionMessageContent::Text(text.to_string())),
        function_call: None,
        tool_calls: None,
        role: Some(Role::Assistant),
        refusal: None,
        reasoning_content: None,
    };
    dynamo_parsers::jail::Annotated {
        data: Some(CreateChatCompletionStreamResponse {
            id: "bench".into(),
            choices: vec![ChatChoiceStream {
                index: 0,
                delta,
                finish_reason: finish.then_some(FinishReason::Stop),
                logprobs: None,
            }],
            created: 0,
            model: "bench".into(),
            service_tier: None,
            system_fingerprint: None,
            object: "chat.completion.chunk".into(),
            usage: None,
        }),
        id: None,
        event: None,
        comment: None,
        error: None,
    }
}

impl Parser for DynamoV1 {
    fn name(&self) -> &'static str {
        "dynamo-parsers 11.0.1"
    }

    fn one_shot(&mut self, form: Form, text: &str) -> Result<Output, String> {
        let tools = dynamo_v1_tools();
        let (calls, _) = block_on(dynamo_parsers::detect_and_parse_tool_call(
            text,
            Some(dynamo_v1_key(form)),
            Some(&tools),
        ))
        .map_err(|e| format!("{e:#}"))?;
        Ok(Output::Json(
            calls
                .into_iter()
                .map(|c| (c.function.name, c.function.arguments))
                .collect(),
        ))
    }

    fn stream(&mut self, form: Form, chunks: &[&str]) -> Result<Output, String> {
        use futures::StreamExt;
        let jail = dynamo_parsers::jail::JailedStream::builder()
            .tool_call_parser(dynamo_v1_key(form))
            .tool_definitions(dynamo_v1_tools())
            .build();
        // The chunks are owned by the stream (the jail wants `'static`), made as it pulls them,
        // so building each response is inside the timing: a String and a small struct per chunk.
        let owned: Vec<String> = chunks.iter().map(|c| c.to_string()).collect();
        let n = owned.len();
        let input = futures::stream::iter(
            owned
                .into_iter()
                .enumerate()
                .map(move |(i, c)| dynamo_v1_chunk(&c, i + 1 == n)),
        );
        let mut out = pin!(jail.apply(input));
        let mut calls = Vec::new();
        while let Some(item) = block_on(out.next()) {
            if let Some(e) = item.error {
                return Err(e);
            }
            for choice in item.data.into_iter().flat_map(|d| d.choices) {
                for tc in choice.delta.tool_calls.into_iter().flatten() {
                    if let Some(f) = tc.function {
                        add_delta(
                            &mut calls,
                            tc.index as usize,
                            f.name.as_deref(),
                            f.arguments.as_deref().unwrap_or(""),
                        );
                    }
                }
            }
        }
        Ok(Output::Json(calls))
    }
}

// ---------------------------------------------------------------------------------------------
// smg (sgl-router) tool-parser

/// `tool-parser` (smg).
pub struct Smg;

fn smg_tools() -> Vec<openai_protocol::common::Tool> {
    serde_json::from_value(json!([{
        "type": "function",
        "function": {"name": "write_file", "parameters": write_file_schema()}
    }]))
    .expect("an OpenAI tool")
}

fn smg_parser(form: Form) -> Box<dyn tool_parser::ToolParser> {
    match form {
        Form::Qwen3Coder => Box::new(tool_parser::parsers::qwen_xml::QwenXmlParser::new()),
        Form::Glm => Box::new(tool_parser::Glm4MoeParser::glm45()),
        Form::MiniMaxM2 => Box::new(tool_parser::MinimaxM2Parser::new()),
    }
}

impl Parser for Smg {
    fn name(&self) -> &'static str {
        "tool-parser 1.10.0 (smg)"
    }

    fn one_shot(&mut self, form: Form, text: &str) -> Result<Output, String> {
        let tools = smg_tools();
        let p = smg_parser(form);
        let (_, calls) =
            block_on(p.parse_complete_with_tools(text, &tools)).map_err(|e| format!("{e}"))?;
        Ok(Output::Json(
            calls
                .into_iter()
                .map(|c| (c.function.name, c.function.arguments))
                .collect(),
        ))
    }

    fn stream(&mut self, form: Form, chunks: &[&str]) -> Result<Output, String> {
        let tools = smg_tools();
        let mut p = smg_parser(form);
        let mut calls = Vec::new();
        for c in chunks {
            let r = block_on(p.parse_incremental(c, &tools)).map_err(|e| format!("{e}"))?;
            for d in r.calls {
                add_delta(&mut calls, d.tool_index, d.name.as_deref(), &d.parameters);
            }
        }
        for d in p.get_unstreamed_tool_args().into_iter().flatten() {
            add_delta(&mut calls, d.tool_index, d.name.as_deref(), &d.parameters);
        }
        Ok(Output::Json(calls))
    }
}

// ---------------------------------------------------------------------------------------------
// The floor

/// Not a parser: the least any parser with toolcall's streaming API does per chunk with
/// argument deltas on, one `ArgumentDelta` event holding the chunk (its `String`, the
/// argument's shared name) in the caller's `Vec`. No parsing, so its output is empty; it bounds
/// what toolcall can reach in small chunks.
pub struct Floor {
    pub kind: FloorKind,
}

/// How far a [`Floor`] goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FloorKind {
    /// Through `feed_into`: the event is taken by value and dropped, a new `String` per chunk.
    Owned,
    /// Through `feed_reusing` as first written: the event is read in place, handed back with
    /// the next chunk, taken apart, and a new event made of its `String` and name.
    Reused,
    /// Through `feed_reusing` as it is now: the handed-back event is written over in place
    /// (its text replaced), nothing taken apart or made.
    InPlace,
    /// `InPlace`, plus what no parser can leave out: every `<` of the chunk found and looked
    /// at (the byte after it: a close tag may begin there), and the chunk appended to the
    /// value the finished call returns.
    ScanCopy,
}

impl Parser for Floor {
    fn name(&self) -> &'static str {
        match self.kind {
            FloorKind::Owned => "floor: one delta event per chunk",
            FloorKind::Reused => "floor: one delta event per chunk, reused",
            FloorKind::InPlace => "floor: one delta event per chunk, written in place",
            FloorKind::ScanCopy => "floor: scan, copy, one delta event written in place",
        }
    }

    fn one_shot(&mut self, _form: Form, _text: &str) -> Result<Output, String> {
        Err("not a parser: a floor of streaming only".into())
    }

    fn stream(&mut self, _form: Form, chunks: &[&str]) -> Result<Output, String> {
        use std::sync::Arc;
        use toolcall_parser::StreamEvent;
        let argument: Arc<str> = Arc::from("content");
        let mut events: Vec<StreamEvent> = Vec::new();
        let mut calls = Vec::new();
        let mut bytes = 0;
        let mut value = String::new();
        let mut close_candidates = 0usize;
        match self.kind {
            FloorKind::Reused => {
                let mut kept: Option<(Arc<str>, String)> = None;
                for c in chunks {
                    // Handed back: the last chunk's event gives its name and string.
                    if let Some(StreamEvent::ArgumentDelta { argument, text, .. }) = events.pop() {
                        kept = Some((argument, text));
                    }
                    let (name, mut text) = kept
                        .take()
                        .unwrap_or_else(|| (Arc::clone(&argument), String::new()));
                    text.clear();
                    text.push_str(c);
                    events.push(StreamEvent::ArgumentDelta {
                        index: 0,
                        argument: name,
                        text,
                    });
                    consume(&mut events, &mut calls, &mut bytes)?;
                }
            }
            FloorKind::InPlace | FloorKind::ScanCopy => {
                let mut feeder = InPlaceFeeder {
                    scan: self.kind == FloorKind::ScanCopy,
                    argument: Arc::clone(&argument),
                    value: String::new(),
                    close_candidates: 0,
                };
                for c in chunks {
                    feeder.feed(c, &mut events);
                    consume(&mut events, &mut calls, &mut bytes)?;
                }
                value = feeder.value;
                close_candidates = feeder.close_candidates;
            }
            FloorKind::Owned => {
                for c in chunks {
                    events.push(StreamEvent::ArgumentDelta {
                        index: 0,
                        argument: Arc::clone(&argument),
                        text: (*c).to_owned(),
                    });
                    consume(&mut events, &mut calls, &mut bytes)?;
                    events.clear();
                }
            }
        }
        std::hint::black_box((bytes, value, close_candidates, calls));
        Ok(Output::Json(Vec::new()))
    }
}

/// The per-chunk work of the in-place floors, behind a call as a parser's feed is (a parser's
/// `feed` is a function called per chunk, not a loop inlined into its caller).
struct InPlaceFeeder {
    scan: bool,
    argument: std::sync::Arc<str>,
    value: String,
    close_candidates: usize,
}

impl InPlaceFeeder {
    #[inline(never)]
    fn feed(&mut self, c: &str, events: &mut Vec<toolcall_parser::StreamEvent>) {
        use toolcall_parser::StreamEvent;
        if self.scan {
            let b = c.as_bytes();
            if b.len() <= 16 {
                // A token: eight bytes at a time (a word's `<` bytes found at once), the rest a
                // byte at a time; both cost less than a vector search's set-up.
                let (words, tail) = b.as_chunks::<8>();
                for (k, &word) in words.iter().enumerate() {
                    // The lanes equal to `<`, exactly (no lane marked above a match): the
                    // parser's own word search (`xml_fallback::swar`).
                    use xml_fallback::swar;
                    let mut lts = swar::find(swar::word(word), [b'<']);
                    while lts != 0 {
                        let at = 8 * k + swar::first(lts);
                        self.close_candidates += usize::from(b.get(at + 1) == Some(&b'/'));
                        lts &= lts - 1;
                    }
                }
                let from = b.len() - tail.len();
                for (at, &x) in tail.iter().enumerate() {
                    if x == b'<' {
                        self.close_candidates += usize::from(b.get(from + at + 1) == Some(&b'/'));
                    }
                }
            } else {
                for at in memchr::memchr_iter(b'<', b) {
                    self.close_candidates += usize::from(b.get(at + 1) == Some(&b'/'));
                }
            }
            self.value.push_str(c);
        }
        match events.first_mut() {
            Some(StreamEvent::ArgumentDelta { text, .. }) => {
                text.clear();
                text.push_str(c);
            }
            _ => events.push(StreamEvent::ArgumentDelta {
                index: 0,
                argument: std::sync::Arc::clone(&self.argument),
                text: c.to_owned(),
            }),
        }
    }
}
