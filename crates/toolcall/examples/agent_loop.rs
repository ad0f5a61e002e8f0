//! An agent, end to end: a model answers a task over several turns, and its calls run real tools.
//!
//! ```text
//! cargo run -q -p toolcall --example agent_loop [SCRIPT] [WORKDIR]
//! ```
//!
//! Each turn, the loop
//!
//! 1. sends the model the system prompt (`toolcall::prompt`: the format, then each tool with an
//!    example call) and the thread so far (`toolcall::thread`: every step recorded as an
//!    [`AgentEvent`], serialized as one `<thread>` document);
//! 2. streams the reply through a [`StreamParser`] in 7-byte chunks, printing prose as it
//!    arrives and a line for each call as it completes;
//! 3. hands each call, as MCP `tools/call` params (`toolcall::bridge::mcp`), to the tool server
//!    its `server_name` names: here only `local`, real tools working in WORKDIR;
//! 4. records the calls and their results, and answers calls it could not read with
//!    `retry_message`: the parser's feedback, so the model can correct them;
//!
//! until the model calls `task_completion`.
//!
//! The model is scripted: its replies are read from SCRIPT (default `examples/agent/script.txt`),
//! so the example needs no network and no key; the script ignores the prompts it is sent. To run
//! a real model, implement [`Model`] with your provider's client: nothing else changes.
//!
//! The tools work inside WORKDIR (default: a fresh temporary directory, removed at the end):
//! paths must be relative and may not use `..`, and `execute_command` runs only `ls`, `cat`,
//! `echo` and `wc`, without a shell.

#![forbid(unsafe_code)]

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use toolcall::bridge::mcp::{self, CallParams};
use toolcall::parser::{ParseOptions, ParseResult, Segment, StreamEvent, StreamParser, ToolCall};
use toolcall::prompt::{
    DEFAULT_SERVER_NAME, ToolDef, no_tool_call_message, retry_message, system_prompt_section,
    tool_schemas,
};
use toolcall::thread::{AgentEvent, Role, SerializerOptions, serialize_thread_to_xml};

/// The shipped script of model replies.
pub const DEFAULT_SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/agent/script.txt"
);

/// The tools the model is told about, in the MCP `tools/list` shape; [`LocalTools`] runs them.
pub const TOOLS_JSON: &str = include_str!("../../../examples/agent/tools.json");

/// Bytes per chunk when streaming a reply: small, so calls are split everywhere.
pub const CHUNK_BYTES: usize = 7;

/// Written after `</thread>`: the beginning of the model's next reply.
pub const RESPONSE_PREFIX: &str = "Based on the thread above, my next step:";

/// The tool that ends the task.
pub const COMPLETION_TOOL: &str = "task_completion";

/// Turns after which the loop gives up.
pub const MAX_TURNS: usize = 20;

/// Programs `execute_command` may run.
pub const ALLOWED_PROGRAMS: [&str; 4] = ["ls", "cat", "echo", "wc"];

fn main() -> Result<()> {
    match agent_main() {
        // `agent_loop | head` closes the pipe early: not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

/// Runs the script given as the first argument (default [`DEFAULT_SCRIPT`]) in the directory
/// given as the second (default: a temporary one), then prints the thread and the files.
fn agent_main() -> Result<()> {
    let mut args = std::env::args_os().skip(1);
    let script = args
        .next()
        .map_or_else(|| PathBuf::from(DEFAULT_SCRIPT), PathBuf::from);
    // Removed when it goes out of scope, at the end of `main`.
    let mut temp = None;
    let workdir = match args.next() {
        Some(dir) => PathBuf::from(dir),
        None => {
            let dir = tempfile::Builder::new()
                .prefix("toolcall-agent-")
                .tempdir()?;
            temp.insert(dir).path().to_owned()
        }
    };

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let report = run(&script, &workdir, &mut out)?;

    writeln!(
        out,
        "\n── the thread after {} turns ──\n{}",
        report.prompts.len(),
        report.thread
    )?;
    writeln!(out, "\n── the files in {} ──", workdir.display())?;
    for path in walk(&workdir, true).map_err(anyhow::Error::msg)? {
        let full = workdir.join(&path);
        if full.is_file() {
            let text = std::fs::read_to_string(&full)?;
            writeln!(out, "{}:\n{}", path.display(), text.trim_end())?;
        }
    }
    Ok(())
}

/// Runs the scripted model of `script` on a task, with the local tools working in `workdir`,
/// writing what happens to `out`.
pub fn run(script: &Path, workdir: &Path, out: &mut dyn Write) -> Result<Report> {
    let script = Script::load(script)?;
    let tools = ToolDef::from_tools_json(&serde_json::from_str(TOOLS_JSON)?)?;
    let mut model = ScriptedModel::new(script.replies);
    let mut local = LocalTools::new(workdir)?;
    run_agent(&script.task, &tools, &mut model, &mut local, out)
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Report {
    /// Every step, in order: what the thread is made of.
    pub events: Vec<AgentEvent>,
    /// The final thread, as `serialize_thread_to_xml` writes it.
    pub thread: String,
    /// The system prompt sent with every turn.
    pub system_prompt: String,
    /// The user turn of each model call: the thread so far, then the response prefix.
    pub prompts: Vec<String>,
    /// Calls that could not be read (each answered with the parser's feedback).
    pub parse_errors: usize,
    /// What the model reported with `task_completion`.
    pub completion: String,
}

/// A language model: the next reply, given the system prompt and the user turn.
pub trait Model {
    /// The model's reply. A real client would stream it; the loop streams it either way.
    fn reply(&mut self, system: &str, prompt: &str) -> Result<String>;
}

/// Something that runs tools: [`LocalTools`] here, an MCP client session in a real agent
/// (`tools/call` with these params).
pub trait ToolServer {
    /// Runs one call: the result text, or what went wrong, for the model.
    fn call(&mut self, params: &CallParams) -> std::result::Result<String, String>;
}

/// The loop: prompt, stream, run, record, until the model completes the task.
pub fn run_agent(
    task: &str,
    tools: &[ToolDef],
    model: &mut dyn Model,
    local: &mut dyn ToolServer,
    out: &mut dyn Write,
) -> Result<Report> {
    let system_prompt = system_prompt_section(tools);
    // Calls are typed by the same schemas the prompt describes.
    let options = ParseOptions::default().with_schemas(Arc::new(tool_schemas(tools)));
    let thread_options = SerializerOptions::new().with_response_prefix(RESPONSE_PREFIX);
    let mut report = Report {
        system_prompt,
        ..Report::default()
    };
    let mut events = vec![AgentEvent::Message {
        role: Role::User,
        content: task.to_owned(),
        iteration: 0,
    }];
    let mut next_call = 1;
    writeln!(out, "── task ──\n{task}")?;

    for turn in 1..=MAX_TURNS {
        let iteration = turn as u64;
        let prompt = serialize_thread_to_xml(&events, &thread_options);
        let reply = model.reply(&report.system_prompt, &prompt)?;
        report.prompts.push(prompt);

        writeln!(out, "\n── turn {turn} ──")?;
        let parsed = stream_reply(&reply, &options, out)?;

        let prose = parsed.prose();
        if !prose.trim().is_empty() {
            events.push(AgentEvent::Message {
                role: Role::Assistant,
                content: prose.trim().to_owned(),
                iteration,
            });
        }
        let mut errors = Vec::new();
        let mut calls = 0;
        for segment in parsed.segments {
            match segment {
                // Prose and reasoning are shown, never run.
                Segment::Prose(_) | Segment::Reasoning(_) => {}
                Segment::Error(error) => {
                    let what = match &error.tool_name {
                        Some(tool) => format!("the call to `{tool}` could not be read: {error}"),
                        None => format!("a tool call could not be read: {error}"),
                    };
                    events.push(AgentEvent::Error {
                        error: what,
                        recoverable: true,
                        iteration,
                    });
                    errors.push(error);
                }
                Segment::Call(call) if call.tool_name == COMPLETION_TOOL => {
                    let result = call.arguments.get("result").and_then(|v| v.as_str());
                    report.completion = result.unwrap_or_default().to_owned();
                    writeln!(out, "  ✔ {}", report.completion)?;
                    events.push(AgentEvent::Completion {
                        result: report.completion.clone(),
                        iteration,
                    });
                    report.thread = serialize_thread_to_xml(&events, &SerializerOptions::default());
                    report.events = events;
                    return Ok(report);
                }
                Segment::Call(call) => {
                    calls += 1;
                    let id = format!("call_{next_call}");
                    next_call += 1;
                    let params = mcp::call_params(&call);
                    events.push(AgentEvent::ToolCall {
                        tool_name: call.tool_name.clone(),
                        tool_call_id: id.clone(),
                        args: Json::Object(params.arguments.clone()),
                        iteration,
                    });
                    let result = if call.server_name == DEFAULT_SERVER_NAME {
                        local.call(&params)
                    } else {
                        Err(format!(
                            "no server named `{}` is connected; use `{DEFAULT_SERVER_NAME}`",
                            call.server_name
                        ))
                    };
                    let text = result.unwrap_or_else(|e| format!("error: {e}"));
                    show_result(&call, &text, out)?;
                    events.push(AgentEvent::ToolResult {
                        tool_call_id: id,
                        result: Json::String(text),
                        iteration,
                    });
                }
                // A segment kind a later version adds is not run either.
                _ => {}
            }
        }
        if !errors.is_empty() {
            report.parse_errors += errors.len();
            let message = retry_message(&errors);
            writeln!(out, "  ↩ {}", message.lines().next().unwrap_or_default())?;
            events.push(AgentEvent::Message {
                role: Role::User,
                content: message,
                iteration,
            });
        } else if calls == 0 {
            let message = no_tool_call_message();
            writeln!(out, "  ↩ {}", message.trim_end())?;
            events.push(AgentEvent::Message {
                role: Role::User,
                content: message.to_owned(),
                iteration,
            });
        }
    }
    bail!("no `{COMPLETION_TOOL}` after {MAX_TURNS} turns")
}

/// Streams one reply through the parser, printing prose as it arrives and each call as it
/// completes; returns everything in order.
pub fn stream_reply(
    reply: &str,
    options: &ParseOptions,
    out: &mut dyn Write,
) -> Result<ParseResult> {
    let mut parser = StreamParser::with_options(options.clone()).argument_deltas(false);
    let mut result = ParseResult::default();
    let mut screen = Screen::default();
    for chunk in chunks(reply, CHUNK_BYTES) {
        for event in parser.feed(chunk) {
            screen.show(&event, out)?;
            result.push_event(event);
        }
    }
    for event in parser.finish() {
        screen.show(&event, out)?;
        result.push_event(event);
    }
    if !screen.at_line_start {
        writeln!(out)?;
    }
    Ok(result)
}

/// Where the printed output stands.
#[derive(Debug)]
struct Screen {
    at_line_start: bool,
    /// A call line was just printed: the newlines that end the call's line in the reply are
    /// not printed again.
    after_call: bool,
}

impl Default for Screen {
    fn default() -> Self {
        Screen {
            at_line_start: true,
            after_call: false,
        }
    }
}

impl Screen {
    fn show(&mut self, event: &StreamEvent, out: &mut dyn Write) -> Result<()> {
        match event {
            StreamEvent::Prose { text } => {
                let text = if self.after_call {
                    text.trim_start_matches(['\n', '\r'])
                } else {
                    text
                };
                if !text.is_empty() {
                    out.write_all(text.as_bytes())?;
                    out.flush()?;
                    self.at_line_start = text.ends_with('\n');
                    self.after_call = false;
                }
            }
            StreamEvent::CallFinished { result, .. } => {
                if !self.at_line_start {
                    writeln!(out)?;
                }
                match result {
                    Ok(call) => writeln!(out, "  ⚙ {}", one_line(&call_summary(call), 100))?,
                    Err(error) => writeln!(out, "  ✗ {error}")?,
                }
                self.at_line_start = true;
                self.after_call = true;
            }
            StreamEvent::Error { error } => writeln!(out, "  ✗ {error}")?,
            // Progress events; and any kind a later version adds.
            _ => {}
        }
        Ok(())
    }
}

/// `tool {"arg":…}`.
fn call_summary(call: &ToolCall) -> String {
    let args = Json::Object(toolcall::bridge::arguments_to_json(&call.arguments));
    format!("{} {args}", call.tool_name)
}

/// A tool's result, as one line.
fn show_result(call: &ToolCall, text: &str, out: &mut dyn Write) -> Result<()> {
    let lines = text.lines().count();
    let first = one_line(text.lines().next().unwrap_or_default(), 90);
    let more = match lines {
        0 | 1 => String::new(),
        n => format!(" (+{} lines)", n - 1),
    };
    writeln!(out, "    ↳ {}: {first}{more}", call.tool_name)?;
    Ok(())
}

/// The first `max` characters of `text`, on one line.
fn one_line(text: &str, max: usize) -> String {
    let mut line: String = text
        .chars()
        .map(|c| if c == '\n' { '⏎' } else { c })
        .take(max)
        .collect();
    if text.chars().nth(max).is_some() {
        line.push('…');
    }
    line
}

/// `text` in pieces of about `n` bytes, never inside a character (the parser's own helper).
pub use toolcall::parser::chunks;

// ── The scripted model ─────────────────────────────────────────────────────────────────────

/// A task and the model's replies to it, read from a script file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The user's task.
    pub task: String,
    /// The model's replies, in order.
    pub replies: Vec<String>,
}

/// The line that begins the task.
pub const TASK_MARKER: &str = "=== task ===";
/// The line that begins each reply.
pub const REPLY_MARKER: &str = "=== reply ===";

impl Script {
    /// Reads a script file.
    pub fn load(path: &Path) -> Result<Script> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the script {}", path.display()))?;
        Script::parse(&text).with_context(|| format!("in the script {}", path.display()))
    }

    /// Reads a script: comment lines, then a [`TASK_MARKER`] line and the task, then a
    /// [`REPLY_MARKER`] line before each reply. Each section is its lines, verbatim, without
    /// the last line's newline.
    pub fn parse(text: &str) -> Result<Script> {
        let mut task: Option<String> = None;
        let mut replies: Vec<String> = Vec::new();
        for line in text.split_inclusive('\n') {
            match line.trim_end() {
                TASK_MARKER => {
                    if task.is_some() || !replies.is_empty() {
                        bail!("the task must come once, before the replies");
                    }
                    task = Some(String::new());
                }
                REPLY_MARKER => {
                    if task.is_none() {
                        bail!("a reply comes before the task");
                    }
                    replies.push(String::new());
                }
                _ => {
                    // Lines before the first marker are comments.
                    if let Some(section) = replies.last_mut().or(task.as_mut()) {
                        section.push_str(line);
                    }
                }
            }
        }
        let strip = |s: String| s.strip_suffix('\n').map(str::to_owned).unwrap_or(s);
        let Some(task) = task.map(strip) else {
            bail!("no `{TASK_MARKER}` line");
        };
        if replies.is_empty() {
            bail!("no `{REPLY_MARKER}` line");
        }
        Ok(Script {
            task,
            replies: replies.into_iter().map(strip).collect(),
        })
    }
}

/// A model that answers with the replies of a script, in order, whatever it is asked.
#[derive(Debug)]
pub struct ScriptedModel {
    replies: std::vec::IntoIter<String>,
    given: usize,
}

impl ScriptedModel {
    /// A model that will give these replies.
    pub fn new(replies: Vec<String>) -> Self {
        ScriptedModel {
            replies: replies.into_iter(),
            given: 0,
        }
    }
}

impl Model for ScriptedModel {
    fn reply(&mut self, _system: &str, _prompt: &str) -> Result<String> {
        let Some(reply) = self.replies.next() else {
            bail!(
                "the script ended after {} replies without `{COMPLETION_TOOL}`",
                self.given
            );
        };
        self.given += 1;
        Ok(reply)
    }
}

// ── The local tools ────────────────────────────────────────────────────────────────────────

/// The tools of `examples/agent/tools.json`, working inside one directory.
#[derive(Debug)]
pub struct LocalTools {
    root: PathBuf,
}

#[derive(Deserialize)]
struct ListArgs {
    #[serde(default = "dot")]
    path: String,
    #[serde(default)]
    recursive: bool,
}

#[derive(Deserialize)]
struct ReadArgs {
    path: String,
    line_start: Option<usize>,
    line_end: Option<usize>,
}

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

#[derive(Deserialize)]
struct DiffArgs {
    path: String,
    edits: Vec<Edit>,
}

#[derive(Deserialize)]
struct Edit {
    search: String,
    replace: String,
}

#[derive(Deserialize)]
struct SearchArgs {
    #[serde(default = "dot")]
    path: String,
    pattern: String,
}

#[derive(Deserialize)]
struct CommandArgs {
    command: String,
}

fn dot() -> String {
    ".".to_owned()
}

/// The arguments as the tool's own type (strict, as serde_json is: the parser has already typed
/// them by the tool's schema).
fn args<T: DeserializeOwned>(params: &CallParams) -> std::result::Result<T, String> {
    serde_json::from_value(Json::Object(params.arguments.clone()))
        .map_err(|e| format!("invalid arguments: {e}"))
}

impl ToolServer for LocalTools {
    fn call(&mut self, params: &CallParams) -> std::result::Result<String, String> {
        match params.name.as_str() {
            "list_files" => self.list_files(args(params)?),
            "read_file" => self.read_file(args(params)?),
            "write_to_file" => self.write_to_file(args(params)?),
            "apply_diff" => self.apply_diff(args(params)?),
            "search_files" => self.search_files(args(params)?),
            "execute_command" => self.execute_command(args(params)?),
            other => Err(format!("there is no tool named `{other}`")),
        }
    }
}

type ToolResult = std::result::Result<String, String>;

impl LocalTools {
    /// Tools working in `root`, which is created if missing.
    pub fn new(root: &Path) -> Result<Self> {
        std::fs::create_dir_all(root)
            .with_context(|| format!("cannot create {}", root.display()))?;
        let root = root
            .canonicalize()
            .with_context(|| format!("cannot resolve {}", root.display()))?;
        Ok(LocalTools { root })
    }

    /// `path` inside the work directory: relative, without `..`.
    pub fn resolve(&self, path: &str) -> std::result::Result<PathBuf, String> {
        if path.trim().is_empty() {
            return Err("the path is empty".into());
        }
        for component in Path::new(path).components() {
            match component {
                Component::Normal(_) | Component::CurDir => {}
                Component::ParentDir => {
                    return Err(format!(
                        "`{path}` leaves the workspace: `..` is not allowed"
                    ));
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(format!(
                        "`{path}` is absolute: give a path in the workspace"
                    ));
                }
            }
        }
        Ok(self.root.join(path))
    }

    fn list_files(&self, a: ListArgs) -> ToolResult {
        let dir = self.resolve(&a.path)?;
        let entries = walk(&dir, a.recursive)?;
        if entries.is_empty() {
            return Ok(format!("`{}` is empty", a.path));
        }
        let lines: Vec<String> = entries
            .iter()
            .map(|p| {
                let slash = if dir.join(p).is_dir() { "/" } else { "" };
                format!("{}{slash}", p.display())
            })
            .collect();
        Ok(lines.join("\n"))
    }

    fn read_file(&self, a: ReadArgs) -> ToolResult {
        let text = read(&self.resolve(&a.path)?, &a.path)?;
        if a.line_start.is_none() && a.line_end.is_none() {
            return Ok(text);
        }
        let lines: Vec<&str> = text.lines().collect();
        let start = a.line_start.unwrap_or(1).max(1);
        let end = a.line_end.unwrap_or(lines.len()).min(lines.len());
        if start > end {
            return Err(format!(
                "`{}` has {} lines; lines {start} to {end} do not exist",
                a.path,
                lines.len()
            ));
        }
        Ok(lines[start - 1..end].join("\n"))
    }

    fn write_to_file(&self, a: WriteArgs) -> ToolResult {
        let path = self.resolve(&a.path)?;
        let mut content = a.content;
        // A text value loses its last blank line (docs/FORMAT.md §2): files end with a newline.
        if !content.is_empty() && !content.ends_with('\n') {
            content.push('\n');
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("cannot create folders: {e}"))?;
        }
        std::fs::write(&path, &content).map_err(|e| format!("cannot write `{}`: {e}", a.path))?;
        Ok(format!(
            "wrote {} lines ({} bytes) to {}",
            content.lines().count(),
            content.len(),
            a.path
        ))
    }

    fn apply_diff(&self, a: DiffArgs) -> ToolResult {
        let path = self.resolve(&a.path)?;
        let mut text = read(&path, &a.path)?;
        if a.edits.is_empty() {
            return Err("no edits given".into());
        }
        // All or none: the file is written only when every edit applies.
        for (i, edit) in a.edits.iter().enumerate() {
            let n = i + 1;
            if edit.search.is_empty() {
                return Err(format!("edit {n}: the search text is empty"));
            }
            match text.matches(edit.search.as_str()).count() {
                1 => text = text.replacen(edit.search.as_str(), &edit.replace, 1),
                0 => {
                    return Err(format!(
                        "edit {n}: the search text was not found in `{}`; nothing was changed",
                        a.path
                    ));
                }
                count => {
                    return Err(format!(
                        "edit {n}: the search text occurs {count} times in `{}`; add lines \
                         around it to make it unique; nothing was changed",
                        a.path
                    ));
                }
            }
        }
        std::fs::write(&path, &text).map_err(|e| format!("cannot write `{}`: {e}", a.path))?;
        Ok(format!("applied {} edits to {}", a.edits.len(), a.path))
    }

    fn search_files(&self, a: SearchArgs) -> ToolResult {
        if a.pattern.is_empty() {
            return Err("the pattern is empty".into());
        }
        let dir = self.resolve(&a.path)?;
        let mut found = Vec::new();
        for relative in walk(&dir, true)? {
            let full = dir.join(&relative);
            // Folders and files that are not UTF-8 text are skipped.
            let Ok(text) = std::fs::read_to_string(&full) else {
                continue;
            };
            let shown = Path::new(&a.path).join(&relative);
            let shown = shown.strip_prefix(".").unwrap_or(&shown);
            for (i, line) in text.lines().enumerate() {
                if line.contains(a.pattern.as_str()) {
                    found.push(format!("{}:{}: {}", shown.display(), i + 1, line.trim()));
                }
            }
        }
        if found.is_empty() {
            return Ok(format!(
                "no line under `{}` contains `{}`",
                a.path, a.pattern
            ));
        }
        Ok(found.join("\n"))
    }

    fn execute_command(&self, a: CommandArgs) -> ToolResult {
        let mut words = a.command.split_whitespace();
        let Some(program) = words.next() else {
            return Err("the command is empty".into());
        };
        if !ALLOWED_PROGRAMS.contains(&program) {
            return Err(format!(
                "`{program}` is not allowed here; allowed programs: {}",
                ALLOWED_PROGRAMS.join(", ")
            ));
        }
        let args: Vec<&str> = words.collect();
        for arg in &args {
            if arg.starts_with('/') || arg.starts_with('~') || arg.split('/').any(|s| s == "..") {
                return Err(format!(
                    "`{arg}` is outside the workspace: use relative paths"
                ));
            }
        }
        let output = Command::new(program)
            .args(&args)
            .current_dir(&self.root)
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run `{program}`: {e}"))?;
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        if output.status.success() {
            Ok(text)
        } else {
            Err(format!("`{program}` failed ({}): {text}", output.status))
        }
    }
}

/// A file's text, for the model's messages.
fn read(path: &Path, shown: &str) -> std::result::Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read `{shown}`: {e}"))
}

/// The entries of `dir`, relative to it, sorted; with `recursive`, those of its subfolders too.
fn walk(dir: &Path, recursive: bool) -> std::result::Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let entries = std::fs::read_dir(dir.join(&relative))
            .map_err(|e| format!("cannot list `{}`: {e}", dir.join(&relative).display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| e.to_string())?;
            let path = relative.join(entry.file_name());
            if recursive && entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(path.clone());
            }
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}
