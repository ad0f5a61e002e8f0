//! [`ToolCall::to_xml`]: the canonical form of a call.

use crate::call::ToolCall;
use xml_fallback::escape::Escaper;

impl ToolCall {
    /// Writes the call in the canonical XML form: entity escaping, CDATA for strings over 1000
    /// characters (with `]]>` split), two-space indentation. Parsing the result gives back the
    /// same call (without a schema for values that round-trip blind; see docs/FORMAT.md §5).
    ///
    /// Fails only for an argument name that is not an XML name (possible for calls read from
    /// the legacy JSON form, whose keys are any strings), or that is `tool` at any depth: a
    /// `<tool>` inside a call begins a new call, so such an argument cannot be read back.
    ///
    /// ```
    /// let call = &toolcall_parser::parse(
    ///     "<tool><tool_name>echo</tool_name><arguments><text>a &amp; b</text></arguments></tool>",
    /// ).calls()[0].clone();
    /// let xml = call.to_xml().unwrap();
    /// assert!(xml.contains("<text>a &amp; b</text>"));
    /// assert_eq!(toolcall_parser::parse(&xml).calls()[0].arguments, call.arguments);
    /// ```
    pub fn to_xml(&self) -> Result<String, arg_types::write::WriteError> {
        if let Some(path) = tool_member(&self.arguments, "") {
            return Err(arg_types::write::WriteError {
                path,
                name: crate::TOOL_TAG.to_owned(),
            });
        }
        let mut out = String::with_capacity(128);
        out.push_str("<tool>\n<server_name>");
        write_name(&self.server_name, &mut out);
        out.push_str("</server_name>\n<tool_name>");
        write_name(&self.tool_name, &mut out);
        out.push_str("</tool_name>\n<arguments>\n");
        arg_types::write::write_arguments(&self.arguments, &mut out)?;
        out.push_str("</arguments>\n</tool>");
        Ok(out)
    }
}

/// A tool or server name as element text; a carriage return as `&#13;`, which XML reading
/// would otherwise turn into a line feed. A name that the text rule would trim (blank space or
/// lines at either end) is written in CDATA, which is kept exactly.
fn write_name(name: &str, out: &mut String) {
    if xml_fallback::text::text_value(name) != name {
        out.push_str("<![CDATA[");
        out.push_str(
            &name
                .replace("]]>", "]]]]><![CDATA[>")
                .replace('\r', "]]>&#13;<![CDATA["),
        );
        out.push_str("]]>");
        return;
    }
    for (i, piece) in name.split('\r').enumerate() {
        if i > 0 {
            out.push_str("&#13;");
        }
        Escaper::TEXT.escape_into(piece, out);
    }
}

/// The path of the first member named `tool`, at any depth.
fn tool_member(m: &arg_types::Map, path: &str) -> Option<String> {
    m.iter().find_map(|(k, v)| {
        let p = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        if k == crate::TOOL_TAG {
            Some(p)
        } else {
            tool_member_in(v, &p)
        }
    })
}

fn tool_member_in(v: &arg_types::Value, path: &str) -> Option<String> {
    match v {
        arg_types::Value::Object(m) => tool_member(m, path),
        arg_types::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| tool_member_in(item, &format!("{path}[{i}]"))),
        _ => None,
    }
}
