//! Arguments from Python: text, dialect, tools, reasoning; the exceptions raised for bad ones.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use serde_json::Value as Json;
use std::sync::Arc;
use toolcall::parser::{CallsInReasoning, Dialect, ParseOptions, Reasoning};
use toolcall::prompt::{ToolDef, tool_schemas};

/// The exceptions of `toolcall._errors`, all subclasses of `toolcall.Error`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Raise {
    /// `DialectError`: a dialect name this build does not read.
    Dialect,
    /// `ToolsError`: a tool list that is not OpenAI's or MCP's shape.
    Tools,
    /// `InputError`: text that is not valid Unicode (lone surrogates).
    Input,
    /// `OptionsError`: an option with a value it cannot take.
    Options,
    /// `ThreadError`: agent events that are not SPEC-01 events.
    Thread,
    /// `StateError`: a call the object's state does not allow.
    State,
}

impl Raise {
    fn class_name(self) -> &'static str {
        match self {
            Raise::Dialect => "DialectError",
            Raise::Tools => "ToolsError",
            Raise::Input => "InputError",
            Raise::Options => "OptionsError",
            Raise::Thread => "ThreadError",
            Raise::State => "StateError",
        }
    }

    /// The exception, with `message`.
    pub(crate) fn err(self, py: Python<'_>, message: &str) -> PyErr {
        let class = py
            .import("toolcall._errors")
            .and_then(|m| m.getattr(self.class_name()))
            .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
        match class {
            Ok(class) => PyErr::from_type(class, message.to_owned()),
            // The package's Python half is missing or broken: say that, not lose the message.
            Err(e) => e,
        }
    }
}

/// A `str` argument as UTF-8: `TypeError` for anything else (bytes included), `InputError` for
/// a string holding lone surrogates (UTF-8 cannot encode them).
pub(crate) fn text_arg(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<PyBackedStr> {
    let s = obj.cast::<PyString>().map_err(|_| {
        let hint = if obj.is_instance_of::<pyo3::types::PyBytes>() {
            " (decode bytes first, e.g. data.decode(\"utf-8\"))"
        } else {
            ""
        };
        PyTypeError::new_err(format!("{what} must be str, not {}{hint}", type_name(obj)))
    })?;
    s.extract::<PyBackedStr>().map_err(|cause| {
        let e = Raise::Input.err(
            py,
            &format!("{what} is not valid Unicode (a lone surrogate cannot be encoded as UTF-8)"),
        );
        e.set_cause(py, Some(cause));
        e
    })
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// The options shared by `parse` and `StreamParser`, as Python passed them.
pub(crate) struct OptionArgs<'a, 'py> {
    pub(crate) dialect: Option<&'a Bound<'py, PyAny>>,
    pub(crate) tools: Option<&'a Bound<'py, PyAny>>,
    pub(crate) reasoning: bool,
    pub(crate) reasoning_open: bool,
    pub(crate) calls_in_reasoning: Option<&'a Bound<'py, PyAny>>,
}

impl OptionArgs<'_, '_> {
    pub(crate) fn build(&self, py: Python<'_>) -> PyResult<ParseOptions> {
        let dialect: Dialect = match str_option(self.dialect, "dialect")? {
            None => Dialect::default(),
            Some(name) => name
                .parse()
                .map_err(|e: toolcall::parser::UnknownDialect| {
                    Raise::Dialect.err(py, &e.to_string())
                })?,
        };
        let mut options = ParseOptions::new().with_dialect(dialect);
        if let Some(tools) = self.tools
            && !tools.is_none()
        {
            options = options.with_schemas(Arc::new(tool_schemas(&tool_defs(py, tools)?)));
        }
        let policy: CallsInReasoning =
            match str_option(self.calls_in_reasoning, "calls_in_reasoning")? {
                None => CallsInReasoning::default(),
                Some(name) => name
                    .parse()
                    .map_err(|e: String| Raise::Options.err(py, &e))?,
            };
        if self.reasoning || self.reasoning_open {
            options = options.with_reasoning(
                Reasoning::for_dialect(dialect)
                    .starting_open(self.reasoning_open)
                    .with_calls_in_reasoning(policy),
            );
        }
        Ok(options)
    }
}

/// A str option; None when absent or None.
fn str_option(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<String>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => match o.cast::<PyString>() {
            Ok(s) => Ok(Some(s.to_cow()?.into_owned())),
            Err(_) => Err(PyTypeError::new_err(format!(
                "{what} must be str, not {}",
                type_name(o)
            ))),
        },
    }
}

/// Tool definitions from a Python list in OpenAI's shape (`{"type": "function", "function":
/// {"name", "description", "parameters"}}`) or MCP's (`{"name", "description", "inputSchema"}`),
/// the two mixed freely, or an object holding the list under `"tools"`.
pub(crate) fn tool_defs(py: Python<'_>, tools: &Bound<'_, PyAny>) -> PyResult<Vec<ToolDef>> {
    let json = py_to_json(tools, 0).map_err(|e| Raise::Tools.err(py, &format!("tools: {e}")))?;
    ToolDef::from_tools_json(&json).map_err(|e| Raise::Tools.err(py, &format!("tools: {e}")))
}

/// Deepest nesting of Python lists and dicts read as JSON.
const MAX_JSON_DEPTH: usize = 128;

/// A Python value made of dict (str keys), list, tuple, str, int, float, bool and None, as JSON.
pub(crate) fn py_to_json(obj: &Bound<'_, PyAny>, depth: usize) -> Result<Json, String> {
    if depth > MAX_JSON_DEPTH {
        return Err(format!("nested deeper than {MAX_JSON_DEPTH} levels"));
    }
    if obj.is_none() {
        return Ok(Json::Null);
    }
    // bool before int: True is an int in Python.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Json::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Json::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Json::from(u));
        }
        return Err("an integer beyond 64 bits".into());
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return serde_json::Number::from_f64(f.value())
            .map(Json::Number)
            .ok_or_else(|| "a float that is not finite (JSON has no NaN or Infinity)".into());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s
            .to_cow()
            .map(|s| Json::String(s.into_owned()))
            .map_err(|_| "a string that is not valid Unicode (a lone surrogate)".into());
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = serde_json::Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = k
                .cast::<PyString>()
                .map_err(|_| format!("a dict key of type {} (keys must be str)", type_name(&k)))?
                .to_cow()
                .map_err(|_| "a dict key that is not valid Unicode".to_string())?
                .into_owned();
            map.insert(key, py_to_json(&v, depth + 1)?);
        }
        return Ok(Json::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for item in obj.try_iter().map_err(|e| e.to_string())? {
            let item = item.map_err(|e| e.to_string())?;
            items.push(py_to_json(&item, depth + 1)?);
        }
        return Ok(Json::Array(items));
    }
    Err(format!("a value of type {} (not JSON)", type_name(obj)))
}
