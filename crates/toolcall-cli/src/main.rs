//! The `toolcall` command line: tool calls out of model text, threads, prompts.
//!
//! Exit status: 0 success, 1 the input had errors (reported as each subcommand says), 2 usage or
//! I/O error. Errors are one line on stderr, never a backtrace.

#![forbid(unsafe_code)]

mod commands;
mod input;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// What the process reports to its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// Everything parsed.
    Success = 0,
    /// The input had errors; they were reported.
    InputErrors = 1,
    /// Bad usage or an I/O failure.
    Usage = 2,
}

#[derive(Parser)]
#[command(
    name = "toolcall",
    version,
    about = "Provider-agnostic tool calling through plain-text XML",
    long_about = "Finds the <tool> calls in what a model wrote, streams them, serializes agent \
                  threads and prints the prompt that teaches the format.\n\n\
                  Exit status: 0 success, 1 the input had errors, 2 usage or I/O error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a model response and print its tool calls and errors as one JSON object.
    #[command(
        after_help = "Prints {\"calls\": [{server_name, tool_name, arguments, repairs, …, \
                            typed_by}], \"errors\": [{kind, message, line, column, …, \
                            feedback}], \"prose\": …}. A call's \"typed_by\" is \"schema\" (its \
                            tool is in --schema), \"inference\" (no schema: 007 reads as 7, one \
                            <x> as a string but two as an array; a note on stderr says so), \
                            \"text\" (no schema, a raw-text dialect: every value a string) or \
                            \"json\" (the legacy JSON form, hermes). An error's \"feedback\" is the text \
                            to send back to the model.\n\
                            Exit status: 0 no errors, 1 the input had errors, 2 usage or I/O error.\n\n\
                            Examples:\n  \
                            toolcall parse examples/write_file.txt --schema examples/tools.json\n  \
                            cat reply.txt | toolcall parse - --schema tools.json\n  \
                            cat tools.json | toolcall parse reply.txt --schema -"
    )]
    Parse(ParseArgs),
    /// Stream a model response through the incremental parser and print events as JSON Lines.
    #[command(
        after_help = "Prints one JSON object per line, with an \"event\" field: prose, \
                            reasoning, call_started, tool_name, argument_started, \
                            argument_decoded, argument_delta, argument_value (a value the \
                            dialect typed itself), call_finished (with \"call\" \
                            or \"error\"), reasoning_call (with \"call\" or \"error\": a call \
                            written inside reasoning, with --calls-in-reasoning flag), error. \
                            Calls carry \"typed_by\" and errors \
                            \"feedback\", as in `toolcall parse`.\n\
                            Exit status: 0 no errors, 1 the input had errors, 2 usage or I/O error.\n\n\
                            Example:\n  \
                            toolcall stream examples/write_file.txt --chunk-size 16 \
                            --schema examples/tools.json"
    )]
    Stream(StreamArgs),
    /// Serialize a JSON array of agent events as a <thread> document (docs/FORMAT.md §8).
    #[command(after_help = "Prints the document followed by one newline.\n\
                      Exit status: 0 success, 1 the events JSON is malformed (line and column \
                      on stderr), 2 usage or I/O error.\n\n\
                      Example:\n  toolcall thread examples/thread_events.json \
                      --response-prefix 'Based on the above thread, I will now'")]
    Thread(ThreadArgs),
    /// Print the system-prompt section that teaches the tool-call format and describes tools.
    #[command(
        after_help = "Without --tools, prints the format instructions alone.\n\
                            Exit status: 0 success, 2 usage or I/O error (or a bad tool list).\n\n\
                            Example:\n  toolcall prompt --tools examples/tools.json"
    )]
    Prompt(PromptArgs),
}

/// Arguments of `toolcall parse`.
#[derive(Args)]
pub(crate) struct ParseArgs {
    /// The model response to parse; `-` or nothing reads standard input.
    pub(crate) file: Option<PathBuf>,
    /// A JSON array of tool definitions (MCP `tools/list` shape) used to type arguments; `-`
    /// reads it from standard input, and then the response must be a FILE.
    #[arg(long, value_name = "TOOLS.json")]
    pub(crate) schema: Option<PathBuf>,
    /// Feed the input to the streaming parser in chunks of N bytes (the output is identical).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) chunk_size: Option<u64>,
    /// Also print counts: calls, errors by kind, repairs by kind, encodings used.
    #[arg(long)]
    pub(crate) stats: bool,
    /// Ignore calls inside Markdown code fences: they stay prose.
    #[arg(long)]
    pub(crate) ignore_fenced: bool,
    /// The tool-call format (the names are listed from `Dialect::ALL`).
    #[arg(long, value_name = "NAME", default_value = "tool", help = dialect_help())]
    pub(crate) dialect: toolcall::parser::Dialect,
    #[command(flatten)]
    pub(crate) reasoning: ReasoningArgs,
}

/// Arguments of `toolcall stream`.
#[derive(Args)]
pub(crate) struct StreamArgs {
    /// The model response to stream; `-` or nothing reads standard input.
    pub(crate) file: Option<PathBuf>,
    /// Chunk size in bytes.
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) chunk_size: u64,
    /// A JSON array of tool definitions (MCP `tools/list` shape) used to type arguments; `-`
    /// reads it from standard input, and then the response must be a FILE.
    #[arg(long, value_name = "TOOLS.json")]
    pub(crate) schema: Option<PathBuf>,
    /// Ignore calls inside Markdown code fences: they stay prose.
    #[arg(long)]
    pub(crate) ignore_fenced: bool,
    /// The tool-call format (the names are listed from `Dialect::ALL`).
    #[arg(long, value_name = "NAME", default_value = "tool", help = dialect_help())]
    pub(crate) dialect: toolcall::parser::Dialect,
    #[command(flatten)]
    pub(crate) reasoning: ReasoningArgs,
    /// Print OpenAI-style chat-completion deltas instead of parser events, one JSON object per
    /// line: {"content": TEXT}, {"reasoning": TEXT}, {"tool_calls": [{"index": I, "id":
    /// "call_I", "type": "function", "function": {"name": NAME, "arguments": ""}}]} once per
    /// call, {"tool_calls": [{"index": I, "function": {"arguments": FRAGMENT}}]} (a call's
    /// fragments concatenate to its arguments JSON), {"tool_call_done": {"index": I}}, and
    /// {"tool_call_failed": {"index": I or null, "message": M, "error": {...}}}: a failed call
    /// must not be run, whatever fragments it had.
    #[arg(long)]
    pub(crate) openai: bool,
}

/// The help of `--dialect`: every dialect's name, from the parser's one list.
fn dialect_help() -> String {
    let names: Vec<&str> = toolcall::parser::Dialect::ALL
        .iter()
        .map(|d| d.name())
        .collect();
    format!(
        "The tool-call format: {} (docs/FORMAT.md §9; `auto` takes the dialect of the first \
         call marker in the reply)",
        names.join(", ")
    )
}

/// The reasoning channel's flags, shared by `parse` and `stream`.
#[derive(Args)]
pub(crate) struct ReasoningArgs {
    /// Split the dialect's reasoning block (`<think>…</think>`) off the answer: the JSON gains
    /// "reasoning" (a string, "" when there is none) and "prose" holds only the answer.
    #[arg(long)]
    pub(crate) reasoning: bool,
    /// The output starts inside reasoning: the chat template put the opening marker in the
    /// prompt (implies --reasoning).
    #[arg(long)]
    pub(crate) reasoning_open: bool,
    /// What call markup inside reasoning does: `end` (a call ends reasoning and is parsed, the
    /// default), `text` (it stays reasoning, never a call) or `flag` (it is parsed and reported
    /// apart: "reasoning_calls" and "reasoning_errors" in parse's JSON, "reasoning_call" events
    /// in stream's; never among "calls", never run). Implies --reasoning.
    #[arg(long, value_name = "POLICY")]
    pub(crate) calls_in_reasoning: Option<toolcall::parser::CallsInReasoning>,
}

impl ReasoningArgs {
    /// Whether any flag turns the reasoning channel on.
    pub(crate) fn enabled(&self) -> bool {
        self.reasoning || self.reasoning_open || self.calls_in_reasoning.is_some()
    }

    /// The options with the reasoning channel as the flags say.
    pub(crate) fn apply(
        &self,
        options: toolcall::parser::ParseOptions,
    ) -> toolcall::parser::ParseOptions {
        if !self.enabled() {
            return options;
        }
        let reasoning = toolcall::parser::Reasoning::for_dialect(options.dialect())
            .starting_open(self.reasoning_open)
            .with_calls_in_reasoning(self.calls_in_reasoning.unwrap_or_default());
        options.with_reasoning(reasoning)
    }
}

/// Arguments of `toolcall thread`.
#[derive(Args)]
pub(crate) struct ThreadArgs {
    /// A JSON array of agent events; `-` or nothing reads standard input.
    pub(crate) file: Option<PathBuf>,
    /// Text appended after `</thread>` and a newline, to prime the model's reply.
    #[arg(long, value_name = "TEXT")]
    pub(crate) response_prefix: Option<String>,
}

/// Arguments of `toolcall prompt`.
#[derive(Args)]
pub(crate) struct PromptArgs {
    /// A JSON array of tool definitions (MCP `tools/list` shape).
    #[arg(long, value_name = "TOOLS.json")]
    pub(crate) tools: Option<PathBuf>,
}

fn main() -> ExitCode {
    // A panic is a bug, but the contract is still one line and exit status 2, never a backtrace.
    std::panic::set_hook(Box::new(|_| {}));
    let cli = Cli::parse();
    let outcome = std::panic::catch_unwind(|| match &cli.command {
        Command::Parse(a) => commands::parse::run(a),
        Command::Stream(a) => commands::stream::run(a),
        Command::Thread(a) => commands::thread::run(a),
        Command::Prompt(a) => commands::prompt::run(a),
    });
    let exit = match outcome {
        Ok(Ok(exit)) => exit,
        // The reader of our output went away (`toolcall parse … | head`): nothing more to say.
        Ok(Err(e))
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            Exit::Success
        }
        Ok(Err(e)) => {
            eprintln!("toolcall: error: {e:#}");
            Exit::Usage
        }
        Err(_) => {
            eprintln!("toolcall: internal error (a bug: please report it with the input)");
            Exit::Usage
        }
    };
    ExitCode::from(exit as u8)
}
