//! Parser results as plain Python objects: dicts with str keys, lists, str, int, float, bool,
//! None. Spans are character offsets ([`CharOffsets`]).

use crate::offsets::CharOffsets;
use pyo3::IntoPyObjectExt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString, PyTuple};
use serde_json::Value as Json;
use toolcall::args::Value;
use toolcall::bridge::openai::DeltaEvent;
use toolcall::parser::{ParseError, ParseResult, StreamEvent, ToolCall};

/// `{"calls", "errors", "prose", "reasoning", "reasoning_calls", "reasoning_errors"}`.
pub(crate) fn result_to_py<'py>(
    py: Python<'py>,
    result: &ParseResult,
    offsets: &mut CharOffsets<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let calls = PyList::empty(py);
    let errors = PyList::empty(py);
    let reasoning_calls = PyList::empty(py);
    let reasoning_errors = PyList::empty(py);
    // Segments are in input order, so spans are asked for in increasing order.
    for segment in &result.segments {
        match segment {
            toolcall::parser::Segment::Call(c) => calls.append(call_to_py(py, c, offsets)?)?,
            toolcall::parser::Segment::Error(e) => errors.append(error_to_py(py, e, offsets)?)?,
            toolcall::parser::Segment::ReasoningCall(c) => {
                reasoning_calls.append(call_to_py(py, c, offsets)?)?
            }
            toolcall::parser::Segment::ReasoningError(e) => {
                reasoning_errors.append(error_to_py(py, e, offsets)?)?
            }
            _ => {}
        }
    }
    let d = PyDict::new(py);
    d.set_item(intern!(py, "calls"), calls)?;
    d.set_item(intern!(py, "errors"), errors)?;
    d.set_item(intern!(py, "prose"), result.prose())?;
    d.set_item(intern!(py, "reasoning"), result.reasoning())?;
    d.set_item(intern!(py, "reasoning_calls"), reasoning_calls)?;
    d.set_item(intern!(py, "reasoning_errors"), reasoning_errors)?;
    Ok(d.into_any())
}

/// One event as `{"event": kind, …}`, the fields named as in `toolcall stream`'s JSON Lines.
pub(crate) fn event_to_py<'py>(
    py: Python<'py>,
    event: &StreamEvent,
    offsets: &mut CharOffsets<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    let kind = intern!(py, "event");
    match event {
        StreamEvent::Prose { text } => {
            d.set_item(kind, intern!(py, "prose"))?;
            d.set_item(intern!(py, "text"), text)?;
        }
        StreamEvent::Reasoning { text } => {
            d.set_item(kind, intern!(py, "reasoning"))?;
            d.set_item(intern!(py, "text"), text)?;
        }
        StreamEvent::CallStarted { index, dialect } => {
            d.set_item(kind, intern!(py, "call_started"))?;
            d.set_item(intern!(py, "index"), index)?;
            d.set_item(intern!(py, "dialect"), dialect.name())?;
        }
        StreamEvent::ToolName { index, tool_name } => {
            d.set_item(kind, intern!(py, "tool_name"))?;
            d.set_item(intern!(py, "index"), index)?;
            d.set_item(intern!(py, "tool_name"), tool_name)?;
        }
        StreamEvent::ArgumentDelta {
            index,
            argument,
            text,
        } => {
            d.set_item(kind, intern!(py, "argument_delta"))?;
            d.set_item(intern!(py, "index"), index)?;
            d.set_item(intern!(py, "argument"), &**argument)?;
            d.set_item(intern!(py, "text"), text)?;
        }
        StreamEvent::ArgumentValue {
            index,
            argument,
            value,
        } => {
            // Written from the value itself: an integer beyond 2^64 keeps every digit (its
            // JSON form, below, could not hold it).
            d.set_item(kind, intern!(py, "argument_value"))?;
            d.set_item(intern!(py, "index"), index)?;
            d.set_item(intern!(py, "argument"), &**argument)?;
            d.set_item(intern!(py, "value"), value_to_py(py, value)?)?;
        }
        StreamEvent::CallFinished { index, result } => {
            d.set_item(kind, intern!(py, "call_finished"))?;
            d.set_item(intern!(py, "index"), index)?;
            match result {
                Ok(call) => d.set_item(intern!(py, "call"), call_to_py(py, call, offsets)?)?,
                Err(e) => d.set_item(intern!(py, "error"), error_to_py(py, e, offsets)?)?,
            }
        }
        StreamEvent::Error { error } => {
            d.set_item(kind, intern!(py, "error"))?;
            d.set_item(intern!(py, "error"), error_to_py(py, error, offsets)?)?;
        }
        StreamEvent::ReasoningCall { result } => {
            d.set_item(kind, intern!(py, "reasoning_call"))?;
            match result {
                Ok(call) => d.set_item(intern!(py, "call"), call_to_py(py, call, offsets)?)?,
                Err(e) => d.set_item(intern!(py, "error"), error_to_py(py, e, offsets)?)?,
            }
        }
        // An event kind newer than this module: its JSON form, as `toolcall stream` prints it.
        #[allow(unreachable_patterns)]
        other => {
            let json = serde_json::to_value(other).unwrap_or(Json::Null);
            return json_to_py(py, &json);
        }
    }
    Ok(d.into_any())
}

/// One OpenAI-style delta as `{"event": kind, …}`, the fields named as in `toolcall stream
/// --openai`'s JSON Lines.
pub(crate) fn delta_to_py<'py>(
    py: Python<'py>,
    event: &DeltaEvent,
    offsets: &mut CharOffsets<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    let kind = intern!(py, "event");
    match event {
        DeltaEvent::Content { text } => {
            d.set_item(kind, intern!(py, "content"))?;
            d.set_item(intern!(py, "text"), text)?;
        }
        DeltaEvent::Reasoning { text } => {
            d.set_item(kind, intern!(py, "reasoning"))?;
            d.set_item(intern!(py, "text"), text)?;
        }
        DeltaEvent::ToolCallStart { index, id, name } => {
            d.set_item(kind, intern!(py, "tool_call_start"))?;
            d.set_item(intern!(py, "index"), index)?;
            d.set_item(intern!(py, "id"), id)?;
            d.set_item(intern!(py, "name"), name)?;
        }
        DeltaEvent::Arguments { index, fragment } => {
            d.set_item(kind, intern!(py, "arguments"))?;
            d.set_item(intern!(py, "index"), index)?;
            d.set_item(intern!(py, "fragment"), fragment)?;
        }
        DeltaEvent::CallDone { index } => {
            d.set_item(kind, intern!(py, "call_done"))?;
            d.set_item(intern!(py, "index"), index)?;
        }
        DeltaEvent::CallFailed {
            index,
            message,
            error,
        } => {
            d.set_item(kind, intern!(py, "call_failed"))?;
            d.set_item(intern!(py, "index"), index)?;
            d.set_item(intern!(py, "message"), message)?;
            let error = match error {
                Some(e) => error_to_py(py, e, offsets)?,
                None => py.None().into_bound(py),
            };
            d.set_item(intern!(py, "error"), error)?;
        }
        #[allow(unreachable_patterns)]
        other => {
            let json = serde_json::to_value(other).unwrap_or(Json::Null);
            return json_to_py(py, &json);
        }
    }
    Ok(d.into_any())
}

/// A call: `tool_name`, `server_name`, `arguments`, `repairs`, `encodings`, `legacy_json`,
/// `span`.
fn call_to_py<'py>(
    py: Python<'py>,
    call: &ToolCall,
    offsets: &mut CharOffsets<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "tool_name"), &call.tool_name)?;
    d.set_item(intern!(py, "server_name"), &call.server_name)?;
    d.set_item(intern!(py, "arguments"), map_to_py(py, &call.arguments)?)?;
    let repairs = PyList::empty(py);
    for r in &call.repairs {
        let rd = PyDict::new(py);
        rd.set_item(intern!(py, "kind"), r.kind.as_str())?;
        rd.set_item(intern!(py, "line"), r.line)?;
        rd.set_item(intern!(py, "column"), r.column)?;
        repairs.append(rd)?;
    }
    d.set_item(intern!(py, "repairs"), repairs)?;
    let encodings = PyList::empty(py);
    for e in &call.encodings {
        let ed = PyDict::new(py);
        ed.set_item(intern!(py, "argument"), &e.argument)?;
        ed.set_item(intern!(py, "encoding"), e.encoding.as_str())?;
        encodings.append(ed)?;
    }
    d.set_item(intern!(py, "encodings"), encodings)?;
    d.set_item(intern!(py, "legacy_json"), call.legacy_json)?;
    d.set_item(intern!(py, "span"), span(py, offsets, &call.span)?)?;
    Ok(d.into_any())
}

/// An error: `kind`, `message`, `line`, `column`, `snippet`, `tool_name`, `partial`, `limit`,
/// `feedback`, `span` (absent values are None).
fn error_to_py<'py>(
    py: Python<'py>,
    e: &ParseError,
    offsets: &mut CharOffsets<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "kind"), e.kind.as_str())?;
    d.set_item(intern!(py, "message"), &e.message)?;
    d.set_item(intern!(py, "line"), e.line)?;
    d.set_item(intern!(py, "column"), e.column)?;
    d.set_item(intern!(py, "snippet"), &e.snippet)?;
    d.set_item(intern!(py, "tool_name"), e.tool_name.as_deref())?;
    let partial = match &e.partial {
        Some(p) => json_to_py(py, p)?,
        None => py.None().into_bound(py),
    };
    d.set_item(intern!(py, "partial"), partial)?;
    d.set_item(intern!(py, "limit"), e.limit.map(|l| l.as_str()))?;
    d.set_item(intern!(py, "feedback"), e.feedback())?;
    d.set_item(intern!(py, "span"), span(py, offsets, &e.span)?)?;
    Ok(d.into_any())
}

fn span<'py>(
    py: Python<'py>,
    offsets: &mut CharOffsets<'_>,
    r: &std::ops::Range<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (start, end) = offsets.span(r);
    PyTuple::new(py, [start, end])
}

fn map_to_py<'py>(py: Python<'py>, map: &toolcall::args::Map) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    for (k, v) in map {
        d.set_item(PyString::new(py, k), value_to_py(py, v)?)?;
    }
    Ok(d.into_any())
}

/// An argument value. Integers are exact at any size: a value kind this module does not know
/// (arg-types' exact big integers, for one) goes through its JSON text and Python's `json`,
/// which reads integer digits as an exact `int`.
fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_bound_py_any(py)?,
        Value::Int(i) => i.into_bound_py_any(py)?,
        // NaN and the infinities stay floats (their JSON form would be a string).
        Value::Float(f) => PyFloat::new(py, *f).into_any(),
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => map_to_py(py, m)?,
        #[allow(unreachable_patterns)]
        other => {
            let text = serde_json::to_string(other).map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(format!("an argument value: {e}"))
            })?;
            json_loads(py, &text)?
        }
    })
}

/// A `serde_json` value (an error's partial arguments).
pub(crate) fn json_to_py<'py>(py: Python<'py>, v: &Json) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Json::Null => py.None().into_bound(py),
        Json::Bool(b) => b.into_bound_py_any(py)?,
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)?
            } else if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)?
            } else {
                // Python's own reader: exact for any integer digits, a float otherwise.
                json_loads(py, &n.to_string())?
            }
        }
        Json::String(s) => PyString::new(py, s).into_any(),
        Json::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Json::Object(m) => {
            let d = PyDict::new(py);
            for (k, v) in m {
                d.set_item(PyString::new(py, k), json_to_py(py, v)?)?;
            }
            d.into_any()
        }
    })
}

fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import(intern!(py, "json"))?
        .call_method1(intern!(py, "loads"), (text,))
}
