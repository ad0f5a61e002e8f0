//! `toolcall._native`: the Rust half of the `toolcall` Python package.
//!
//! The Python half (`python/toolcall/`) holds the public API, its types and exceptions; this
//! module does the work: [`parse`], [`StreamParser`], [`serialize_thread`], [`system_prompt`].
//! Values cross as plain Python objects (dict, list, str, int, float, bool, None).
//!
//! No `unsafe` here: PyO3's macros keep the FFI glue they generate out of reach of this crate's
//! `forbid(unsafe_code)`.

#![forbid(unsafe_code)]

mod convert;
mod offsets;
mod options;

use convert::{delta_to_py, event_to_py, result_to_py};
use offsets::CharOffsets;
use options::{OptionArgs, Raise, text_arg, tool_defs};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use std::sync::{Mutex, MutexGuard};
use std::thread::ThreadId;
use toolcall::bridge::openai::{DeltaEvent, ToolCallDeltas};
use toolcall::parser::{self, ParseOptions, StreamEvent};

/// Inputs at least this long are parsed with the GIL released, so other Python threads run
/// meanwhile; below it, releasing and taking it back would cost more than it frees.
const DETACH_BYTES: usize = 16 * 1024;

/// Parses a whole response; returns `{"calls", "errors", "prose", "reasoning"}`.
#[pyfunction]
#[pyo3(signature = (text, dialect = None, tools = None, reasoning = false,
                    reasoning_open = false, calls_in_reasoning = None))]
fn parse<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    dialect: Option<&Bound<'py, PyAny>>,
    tools: Option<&Bound<'py, PyAny>>,
    reasoning: bool,
    reasoning_open: bool,
    calls_in_reasoning: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = OptionArgs {
        dialect,
        tools,
        reasoning,
        reasoning_open,
        calls_in_reasoning,
    }
    .build(py)?;
    let text = text_arg(py, text, "text")?;
    let result = detached_for(py, text.len(), || parser::parse_with(&text, &options));
    result_to_py(py, &result, &mut CharOffsets::of(&text))
}

/// The incremental parser: `feed(chunk)` as text arrives, then `finish()`.
///
/// It belongs to the thread that made it: `feed` and `finish` from any other thread raise
/// `toolcall.StateError` (a `RuntimeError`) and change nothing. (PyO3's `unsendable` classes
/// would refuse such a use too, but with a Rust panic, which Python sees as a `BaseException`
/// and a backtrace on stderr.) Dropping it on another thread is fine. The mutex only makes the
/// class `Sync`, as PyO3 requires; one thread uses it, so it is never contended.
#[pyclass(module = "toolcall._native")]
struct StreamParser {
    inner: Mutex<Stream>,
    owner: ThreadId,
}

#[derive(Debug)]
struct Stream {
    parser: parser::StreamParser,
    /// The last chunk's events, converted by reference and handed back with the next chunk
    /// (`feed_reusing`): their strings become the next events', no allocation per chunk.
    events: Vec<parser::StreamEvent>,
    offsets: CharOffsets<'static>,
    finished: bool,
}

impl StreamParser {
    /// The parser's state, on the thread that owns it.
    fn state(&self, py: Python<'_>, method: &str) -> PyResult<MutexGuard<'_, Stream>> {
        if std::thread::current().id() != self.owner {
            return Err(Raise::State.err(
                py,
                &format!(
                    "StreamParser.{method}() called from a thread other than the one that made \
                     the parser: a parser belongs to its thread; make one per thread"
                ),
            ));
        }
        // A panic while it was held (a bug) leaves the parser as it was then.
        Ok(self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

#[pymethods]
impl StreamParser {
    #[new]
    #[pyo3(signature = (dialect = None, tools = None, reasoning = false,
                        reasoning_open = false, calls_in_reasoning = None,
                        argument_deltas = true))]
    fn new<'py>(
        py: Python<'py>,
        dialect: Option<&Bound<'py, PyAny>>,
        tools: Option<&Bound<'py, PyAny>>,
        reasoning: bool,
        reasoning_open: bool,
        calls_in_reasoning: Option<&Bound<'py, PyAny>>,
        argument_deltas: bool,
    ) -> PyResult<Self> {
        let options: ParseOptions = OptionArgs {
            dialect,
            tools,
            reasoning,
            reasoning_open,
            calls_in_reasoning,
        }
        .build(py)?;
        Ok(StreamParser {
            inner: Mutex::new(Stream {
                parser: parser::StreamParser::with_options(options)
                    .argument_deltas(argument_deltas),
                events: Vec::new(),
                offsets: CharOffsets::default(),
                finished: false,
            }),
            owner: std::thread::current().id(),
        })
    }

    /// Reads the next chunk; returns the events it made certain.
    fn feed<'py>(
        &self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut guard = self.state(py, "feed")?;
        let state = &mut *guard;
        if state.finished {
            return Err(Raise::State.err(py, "feed() after finish(): make a new StreamParser"));
        }
        let chunk = text_arg(py, chunk, "chunk")?;
        state.offsets.push(&chunk);
        let Stream { parser, events, .. } = state;
        detached_for(py, chunk.len(), || parser.feed_reusing(&chunk, events));
        events_to_py(py, &state.events, &mut state.offsets)
    }

    /// Ends the input: the held-back prose, and an error for a call still open. Calling it again
    /// returns no events.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut guard = self.state(py, "finish")?;
        let state = &mut *guard;
        if state.finished {
            return Ok(PyList::empty(py));
        }
        state.finished = true;
        state.events = Vec::new();
        let events = state.parser.finish();
        events_to_py(py, &events, &mut state.offsets)
    }

    /// Whether `finish()` was called.
    #[getter]
    fn finished(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.state(py, "finished")?.finished)
    }
}

/// OpenAI-style streamed `tool_calls` deltas (`toolcall::bridge::openai::ToolCallDeltas`):
/// `feed(chunk)` and `finish()` return `{"event": "content" | "reasoning" | "tool_call_start" |
/// "arguments" | "call_done" | "call_failed", …}` dicts. The fragments of a call concatenate to
/// the compact JSON of its final arguments in every chunking; a `call_failed` call must not be
/// run. Belongs to its thread, as `StreamParser` does.
#[pyclass(module = "toolcall._native")]
struct OpenAIDeltas {
    inner: Mutex<Deltas>,
    owner: ThreadId,
}

#[derive(Debug)]
struct Deltas {
    deltas: ToolCallDeltas,
    /// The last chunk's deltas, handed back with the next (`feed_reusing`): their strings
    /// become the next deltas', no allocation per chunk.
    events: Vec<DeltaEvent>,
    offsets: CharOffsets<'static>,
    finished: bool,
}

#[pymethods]
impl OpenAIDeltas {
    #[new]
    #[pyo3(signature = (dialect = None, tools = None, reasoning = false,
                        reasoning_open = false, calls_in_reasoning = None))]
    fn new<'py>(
        py: Python<'py>,
        dialect: Option<&Bound<'py, PyAny>>,
        tools: Option<&Bound<'py, PyAny>>,
        reasoning: bool,
        reasoning_open: bool,
        calls_in_reasoning: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        let options = OptionArgs {
            dialect,
            tools,
            reasoning,
            reasoning_open,
            calls_in_reasoning,
        }
        .build(py)?;
        Ok(OpenAIDeltas {
            inner: Mutex::new(Deltas {
                deltas: ToolCallDeltas::new(options),
                events: Vec::new(),
                offsets: CharOffsets::default(),
                finished: false,
            }),
            owner: std::thread::current().id(),
        })
    }

    /// Reads the next chunk; returns the deltas it made certain.
    fn feed<'py>(
        &self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut guard = owned(py, &self.inner, self.owner, "OpenAIDeltas.feed")?;
        let state = &mut *guard;
        if state.finished {
            return Err(Raise::State.err(py, "feed() after finish(): make a new OpenAIDeltas"));
        }
        let chunk = text_arg(py, chunk, "chunk")?;
        state.offsets.push(&chunk);
        let Deltas { deltas, events, .. } = state;
        detached_for(py, chunk.len(), || deltas.feed_reusing(&chunk, events));
        deltas_to_py(py, &state.events, &mut state.offsets)
    }

    /// Ends the input; calling it again returns no events.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut guard = owned(py, &self.inner, self.owner, "OpenAIDeltas.finish")?;
        let state = &mut *guard;
        if state.finished {
            return Ok(PyList::empty(py));
        }
        state.finished = true;
        state.events = Vec::new();
        let events = state.deltas.finish();
        deltas_to_py(py, &events, &mut state.offsets)
    }

    /// Whether `finish()` was called.
    #[getter]
    fn finished(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(owned(py, &self.inner, self.owner, "OpenAIDeltas.finished")?.finished)
    }
}

/// Runs `work` on a text of `len` bytes, the interpreter released meanwhile (other Python
/// threads run) when the text is large enough to be worth the release ([`DETACH_BYTES`]).
fn detached_for<T, F>(py: Python<'_>, len: usize, work: F) -> T
where
    T: pyo3::marker::Ungil,
    F: pyo3::marker::Ungil + FnOnce() -> T,
{
    if len >= DETACH_BYTES {
        py.detach(work)
    } else {
        work()
    }
}

/// The state behind `mutex`, on the thread `owner` only.
fn owned<'a, T>(
    py: Python<'_>,
    mutex: &'a Mutex<T>,
    owner: ThreadId,
    method: &str,
) -> PyResult<MutexGuard<'a, T>> {
    if std::thread::current().id() != owner {
        return Err(Raise::State.err(
            py,
            &format!(
                "{method} called from a thread other than the one that made the object: it \
                 belongs to its thread; make one per thread"
            ),
        ));
    }
    // A panic while it was held (a bug) leaves the state as it was then.
    Ok(mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()))
}

fn deltas_to_py<'py>(
    py: Python<'py>,
    events: &[DeltaEvent],
    offsets: &mut CharOffsets<'_>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in events {
        list.append(delta_to_py(py, e, offsets)?)?;
    }
    Ok(list)
}

fn events_to_py<'py>(
    py: Python<'py>,
    events: &[StreamEvent],
    offsets: &mut CharOffsets<'_>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in events {
        list.append(event_to_py(py, e, offsets)?)?;
    }
    Ok(list)
}

/// The SPEC-01 `<thread>` document of a JSON array of agent events (given as its JSON text by
/// the Python half, which also checks the types).
#[pyfunction]
#[pyo3(signature = (events_json, response_prefix = None))]
fn serialize_thread(
    py: Python<'_>,
    events_json: &str,
    response_prefix: Option<String>,
) -> PyResult<String> {
    let events: Vec<toolcall::thread::AgentEvent> =
        serde_json::from_str(events_json).map_err(|e| {
            Raise::Thread.err(
                py,
                &format!(
                    "invalid agent events at line {}, column {}: {e}",
                    e.line(),
                    e.column()
                ),
            )
        })?;
    let options = match response_prefix {
        Some(prefix) => toolcall::thread::SerializerOptions::new().with_response_prefix(prefix),
        None => toolcall::thread::SerializerOptions::new(),
    };
    Ok(toolcall::thread::serialize_thread_to_xml(&events, &options))
}

/// The system-prompt section that teaches the `<tool>` format and describes the tools.
#[pyfunction]
#[pyo3(signature = (tools = None))]
fn system_prompt<'py>(
    py: Python<'py>,
    tools: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyString>> {
    let defs = match tools {
        None => Vec::new(),
        Some(t) if t.is_none() => Vec::new(),
        Some(t) => tool_defs(py, t)?,
    };
    Ok(PyString::new(
        py,
        &toolcall::prompt::system_prompt_section(&defs),
    ))
}

/// The names of the dialects this build reads, in `Dialect::ALL` order.
#[pyfunction]
fn dialects() -> Vec<&'static str> {
    parser::Dialect::ALL.iter().map(|d| d.name()).collect()
}

/// The opening and closing markers of a dialect's reasoning block.
#[pyfunction]
fn reasoning_markers(py: Python<'_>, dialect: &str) -> PyResult<(&'static str, &'static str)> {
    let dialect: parser::Dialect = dialect
        .parse()
        .map_err(|e: parser::UnknownDialect| Raise::Dialect.err(py, &e.to_string()))?;
    Ok(dialect.reasoning_markers())
}

/// The module `toolcall._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(serialize_thread, m)?)?;
    m.add_function(wrap_pyfunction!(system_prompt, m)?)?;
    m.add_function(wrap_pyfunction!(dialects, m)?)?;
    m.add_function(wrap_pyfunction!(reasoning_markers, m)?)?;
    m.add_class::<StreamParser>()?;
    m.add_class::<OpenAIDeltas>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
