//! Writing events as a `<thread>` document: one pass, straight into the caller's buffer.

use crate::event::AgentEvent;
use crate::json;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::{self, Write};
use std::io;
use xml_fallback::escape::Escaper;

/// Element content: the five predefined entities (as the TypeScript `escapeXml` does), and a
/// visible `\u{1b}`-style escape for the characters XML 1.0 forbids. Tab, LF and CR are written
/// as they are.
const BODY: Escaper = Escaper::ALL_FIVE.replacing_forbidden();

/// Attribute values: as [`BODY`], plus tab, LF and CR as character references, so that they
/// survive attribute-value normalization.
const ATTRIBUTE: Escaper = Escaper::ATTRIBUTE.replacing_forbidden();

/// Options of [`serialize_thread_to_xml`] and [`write_thread`].
///
/// Built from [`SerializerOptions::new()`] (or `default()`) with the `with_` methods, and read
/// with one getter per option; the fields are private, so that an option can be added without
/// breaking callers.
///
/// ```
/// use thread_serializer::{serialize_thread_to_xml, SerializerOptions};
/// let options = SerializerOptions::new().with_response_prefix("Based on the above thread, I will now");
/// assert_eq!(options.response_prefix(), Some("Based on the above thread, I will now"));
/// assert_eq!(
///     serialize_thread_to_xml(&[], &options),
///     "<thread>\n</thread>\nBased on the above thread, I will now"
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SerializerOptions {
    response_prefix: Option<String>,
}

impl SerializerOptions {
    /// Default options: no response prefix.
    ///
    /// ```
    /// let o = thread_serializer::SerializerOptions::new();
    /// assert_eq!(o.response_prefix(), None);
    /// ```
    pub fn new() -> Self {
        SerializerOptions::default()
    }

    /// The same options with a response prefix: text appended after `</thread>` and a newline,
    /// to prime the model's reply. Written as given, not escaped: it is the start of the reply,
    /// not part of the document. The empty string appends nothing (as in the TypeScript
    /// system).
    ///
    /// ```
    /// let o = thread_serializer::SerializerOptions::new().with_response_prefix("Next:");
    /// assert_eq!(o.response_prefix(), Some("Next:"));
    /// ```
    pub fn with_response_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.response_prefix = Some(prefix.into());
        self
    }

    /// The response prefix, if one was set ([`with_response_prefix`](Self::with_response_prefix)).
    ///
    /// ```
    /// use thread_serializer::SerializerOptions;
    /// assert_eq!(SerializerOptions::new().response_prefix(), None);
    /// assert_eq!(SerializerOptions::new().with_response_prefix("").response_prefix(), Some(""));
    /// ```
    pub fn response_prefix(&self) -> Option<&str> {
        self.response_prefix.as_deref()
    }
}

/// The body escaping of docs/FORMAT.md §8.2: escapes `&`, `<`, `>`, `"` and `'`, and replaces each character
/// XML 1.0 forbids (C0 controls other than tab, LF and CR; U+FFFE; U+FFFF) by a visible
/// escape in Rust notation, `\u{1b}`, so the result is always well-formed XML text. Borrows
/// `text` when nothing needs escaping.
///
/// ```
/// use thread_serializer::escape_xml;
/// assert_eq!(escape_xml(r#"<a href="x">Tom & 'Jerry'</a>"#),
///            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;");
/// assert_eq!(escape_xml("\u{1b}[31mred\u{1b}[0m"), "\\u{1b}[31mred\\u{1b}[0m");
/// assert!(matches!(escape_xml("plain"), std::borrow::Cow::Borrowed("plain")));
/// ```
pub fn escape_xml(text: &str) -> Cow<'_, str> {
    BODY.escape(text)
}

/// Serializes `events` as a `<thread>` document (docs/FORMAT.md §8) (no trailing newline), followed by
/// the response prefix when there is one.
///
/// ```
/// use serde_json::json;
/// use thread_serializer::{serialize_thread_to_xml, AgentEvent, Role, SerializerOptions};
///
/// let events = [
///     AgentEvent::Message { role: Role::User, content: "What is 2+2?".into(), iteration: 0 },
///     AgentEvent::ToolCall {
///         tool_name: "calculator".into(),
///         tool_call_id: "call_1".into(),
///         args: json!({"expression": "2+2"}),
///         iteration: 1,
///     },
///     AgentEvent::ToolResult { tool_call_id: "call_1".into(), result: json!("4"), iteration: 1 },
/// ];
/// assert_eq!(
///     serialize_thread_to_xml(&events, &SerializerOptions::default()),
///     "<thread>\n\
///      \x20 <event type=\"human\" id=\"0\" iteration=\"0\">What is 2+2?</event>\n\
///      \x20 <event type=\"tool_input\" id=\"1\" name=\"calculator\" iteration=\"1\">\
///      {&quot;expression&quot;:&quot;2+2&quot;}</event>\n\
///      \x20 <event type=\"tool_output\" id=\"2\" name=\"calculator\" status=\"success\" \
///      iteration=\"1\">4</event>\n\
///      </thread>"
/// );
/// assert_eq!(serialize_thread_to_xml(&[], &SerializerOptions::default()), "<thread>\n</thread>");
/// ```
pub fn serialize_thread_to_xml(events: &[AgentEvent], options: &SerializerOptions) -> String {
    let mut out = String::with_capacity(estimated_len(events, options));
    // Writing into a String cannot fail.
    let _ = write_thread(events, options, &mut out);
    out
}

/// Writes the document of [`serialize_thread_to_xml`] to any [`fmt::Write`], in one pass and
/// without building it in memory first. Fails only when `out` does.
///
/// ```
/// use thread_serializer::{write_thread, AgentEvent, SerializerOptions};
/// let mut out = String::new();
/// let events = [AgentEvent::Completion { result: "a < b".into(), iteration: 2 }];
/// write_thread(&events, &SerializerOptions::default(), &mut out).unwrap();
/// assert_eq!(
///     out,
///     "<thread>\n  <event type=\"completion\" id=\"0\" iteration=\"2\">a &lt; b</event>\n</thread>"
/// );
/// ```
pub fn write_thread<W: Write + ?Sized>(
    events: &[AgentEvent],
    options: &SerializerOptions,
    out: &mut W,
) -> fmt::Result {
    out.write_str("<thread>\n")?;
    // toolCallId → toolName of the nearest preceding tool_call, filled as the pass goes.
    let mut tool_names: HashMap<&str, &str> = HashMap::new();
    for (id, event) in events.iter().enumerate() {
        write_event(id, event, &mut tool_names, out)?;
    }
    out.write_str("</thread>")?;
    if let Some(prefix) = options.response_prefix.as_deref().filter(|p| !p.is_empty()) {
        out.write_char('\n')?;
        out.write_str(prefix)?;
    }
    Ok(())
}

/// [`write_thread`] to any [`io::Write`]. It writes many small pieces: give it a buffered
/// writer (a `Vec<u8>`, a [`std::io::BufWriter`]).
///
/// ```
/// use thread_serializer::{write_thread_io, SerializerOptions};
/// let mut out = Vec::new();
/// write_thread_io(&[], &SerializerOptions::default(), &mut out).unwrap();
/// assert_eq!(out, b"<thread>\n</thread>");
/// ```
pub fn write_thread_io<W: io::Write + ?Sized>(
    events: &[AgentEvent],
    options: &SerializerOptions,
    out: &mut W,
) -> io::Result<()> {
    let mut adapter = IoAdapter {
        inner: out,
        error: None,
    };
    match write_thread(events, options, &mut adapter) {
        Ok(()) => Ok(()),
        Err(fmt::Error) => Err(adapter
            .error
            .unwrap_or_else(|| io::Error::other("formatting the thread failed"))),
    }
}

fn write_event<'e, W: Write + ?Sized>(
    id: usize,
    event: &'e AgentEvent,
    tool_names: &mut HashMap<&'e str, &'e str>,
    out: &mut W,
) -> fmt::Result {
    write!(out, "  <event type=\"{}\" id=\"{id}\"", event.xml_type())?;
    match event {
        AgentEvent::ToolCall {
            tool_name,
            tool_call_id,
            ..
        } => {
            tool_names.insert(tool_call_id.as_str(), tool_name.as_str());
            write_attribute("name", tool_name, out)?;
        }
        AgentEvent::ToolResult { tool_call_id, .. } => {
            let name = tool_names
                .get(tool_call_id.as_str())
                .copied()
                .unwrap_or("unknown");
            write_attribute("name", name, out)?;
            out.write_str(" status=\"success\"")?;
        }
        _ => {}
    }
    write!(out, " iteration=\"{}\"", event.iteration())?;
    match event {
        AgentEvent::Error { recoverable, .. } => write!(out, " recoverable=\"{recoverable}\"")?,
        AgentEvent::Summary {
            summarized_iterations,
            ..
        } => {
            out.write_str(" summarizedIterations=\"")?;
            for (i, n) in summarized_iterations.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write!(out, "{n}")?;
            }
            out.write_char('"')?;
        }
        _ => {}
    }
    out.write_char('>')?;
    match event {
        AgentEvent::Message { content: text, .. }
        | AgentEvent::Error { error: text, .. }
        | AgentEvent::HumanInputRequested { question: text, .. }
        | AgentEvent::HumanInputReceived { response: text, .. }
        | AgentEvent::Completion { result: text, .. }
        | AgentEvent::Summary { summary: text, .. } => BODY.write(text, out)?,
        AgentEvent::ToolResult {
            result: serde_json::Value::String(text),
            ..
        } => BODY.write(text, out)?,
        AgentEvent::ToolCall { args: value, .. } | AgentEvent::ToolResult { result: value, .. } => {
            json::write_json(value, &mut Escaping { inner: out })?
        }
    }
    out.write_str("</event>\n")
}

fn write_attribute<W: Write + ?Sized>(name: &str, value: &str, out: &mut W) -> fmt::Result {
    out.write_char(' ')?;
    out.write_str(name)?;
    out.write_str("=\"")?;
    ATTRIBUTE.write(value, out)?;
    out.write_char('"')
}

/// Escapes everything written through it as element content.
struct Escaping<'a, W: ?Sized> {
    inner: &'a mut W,
}

impl<W: Write + ?Sized> Write for Escaping<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        BODY.write(s, self.inner)
    }
}

/// A [`fmt::Write`] over an [`io::Write`] that keeps the first I/O error.
struct IoAdapter<'a, W: ?Sized> {
    inner: &'a mut W,
    error: Option<io::Error>,
}

impl<W: io::Write + ?Sized> Write for IoAdapter<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.inner.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}

/// A close guess of the output's length, from string lengths only (no pass over the bytes),
/// so that the buffer is allocated once in the common case.
fn estimated_len(events: &[AgentEvent], options: &SerializerOptions) -> usize {
    const PER_EVENT: usize = 64;
    let bodies: usize = events
        .iter()
        .map(|e| {
            let body = match e {
                AgentEvent::Message { content: t, .. }
                | AgentEvent::Error { error: t, .. }
                | AgentEvent::HumanInputRequested { question: t, .. }
                | AgentEvent::HumanInputReceived { response: t, .. }
                | AgentEvent::Completion { result: t, .. }
                | AgentEvent::Summary { summary: t, .. } => t.len(),
                AgentEvent::ToolResult {
                    result: serde_json::Value::String(t),
                    ..
                } => t.len(),
                AgentEvent::ToolCall {
                    tool_name, args: v, ..
                } => tool_name.len() + json_len_guess(v, 0),
                AgentEvent::ToolResult { result: v, .. } => json_len_guess(v, 0),
            };
            // Room for a few escapes.
            PER_EVENT + body + body / 16
        })
        .fold(0usize, usize::saturating_add);
    let prefix = options
        .response_prefix
        .as_deref()
        .map_or(0, |p| p.len() + 1);
    bodies.saturating_add(prefix).saturating_add(20)
}

/// Roughly how long a JSON value's text is, with `&quot;` for its quotes; shallow levels only.
fn json_len_guess(value: &serde_json::Value, depth: usize) -> usize {
    use serde_json::Value;
    const QUOTES: usize = 2 * "&quot;".len();
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(s) => s.len() + QUOTES,
        _ if depth >= 4 => 64,
        Value::Array(items) => items
            .iter()
            .map(|v| json_len_guess(v, depth + 1) + 1)
            .fold(2, usize::saturating_add),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| k.len() + QUOTES + 2 + json_len_guess(v, depth + 1))
            .fold(2, usize::saturating_add),
    }
}
