//! [`describe_tools`]: one compact block per tool: name, description, parameters, and an example
//! call generated from the schema.

use crate::ToolDef;
use crate::example::example_arguments;
use arg_types::json_schema::{SchemaDoc, alternatives, item_schema, required, types_with_values};
use arg_types::write::{WriteError, write_arguments};
use serde_json::Value as Json;
use std::collections::HashSet;
use std::fmt::Write as _;
use xml_fallback::escape::Escaper;

/// How deep nested parameters (object members, items of arrays of objects) are listed.
const MAX_LISTED_DEPTH: usize = 3;

/// Describes every tool, blocks separated by a blank line (see [`describe_tool`]).
///
/// ```
/// use toolcall_prompt::{describe_tools, ToolDef};
/// let tools = [
///     ToolDef::new("ping", "Check the connection.", serde_json::json!({"type": "object"})),
///     ToolDef::new("echo", "Repeat a text.", serde_json::json!({
///         "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})),
/// ];
/// let text = describe_tools(&tools);
/// assert!(text.starts_with("### ping\n"));
/// assert!(text.contains("\n\n### echo\n"));
/// ```
pub fn describe_tools(tools: &[ToolDef]) -> String {
    let blocks: Vec<String> = tools.iter().map(describe_tool).collect();
    blocks.join("\n")
}

/// Describes one tool, ending with a newline:
///
/// ```text
/// ### read_file
/// Read a file, optionally a range of lines.
/// Parameters:
/// - path (string, required): File path
/// - line_start (integer)
/// Example:
/// <tool>
/// …
/// </tool>
/// ```
///
/// Parameters list their type, `required`, the allowed values of an `enum`, a `default`, and
/// the description on one line; members of objects (and of arrays of objects) follow indented.
/// When no example can be written (a parameter name that is not an XML element name), the
/// example line says why instead.
///
/// ```
/// use toolcall_prompt::{describe_tool, ToolDef};
/// let tool = ToolDef::new("search", "Search the web.", serde_json::json!({
///     "type": "object",
///     "properties": {
///         "query": {"type": "string", "description": "What to look for"},
///         "engine": {"type": "string", "enum": ["web", "news"], "default": "web"}
///     },
///     "required": ["query"]
/// })).with_server_name("web");
/// let text = describe_tool(&tool);
/// assert!(text.contains("- query (string, required): What to look for\n"));
/// assert!(text.contains("- engine (string, one of: web, news, default: web)\n"));
/// assert!(text.contains("<server_name>web</server_name>"));
/// ```
pub fn describe_tool(tool: &ToolDef) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### {}", tool.name);
    let description = tool.description.trim();
    if !description.is_empty() {
        out.push_str(description);
        out.push('\n');
    }
    let doc = SchemaDoc::new(&tool.input_schema);
    let mut params = String::new();
    list_members(&doc, &tool.input_schema, 0, &mut params);
    if params.is_empty() {
        out.push_str("Parameters: none\n");
    } else {
        out.push_str("Parameters:\n");
        out.push_str(&params);
    }
    match example_call(tool) {
        Ok(xml) => {
            out.push_str("Example:\n");
            out.push_str(&xml);
            out.push('\n');
        }
        Err(e) => {
            let _ = writeln!(out, "Example: not available: {e}");
        }
    }
    out
}

/// The example call of a tool in the canonical form (as [`toolcall_parser::ToolCall::to_xml`]
/// writes calls): its server, its name, and [`example_arguments`] written by the shared writer
/// (entity escaping; CDATA for strings over 1000 characters and for strings that would
/// otherwise read back as another type).
///
/// Fails when an argument name is not an XML element name.
///
/// ```
/// use toolcall_prompt::{example_call, ToolDef};
/// let tool = ToolDef::new("execute_command", "", serde_json::json!({
///     "type": "object", "properties": {"command": {"type": "string"}}}));
/// assert_eq!(example_call(&tool).unwrap(), "<tool>\n<server_name>local</server_name>\n\
///     <tool_name>execute_command</tool_name>\n<arguments>\n\
///     \x20 <command>cargo build &amp;&amp; cargo test</command>\n</arguments>\n</tool>");
/// ```
pub fn example_call(tool: &ToolDef) -> Result<String, WriteError> {
    let args = example_arguments(&tool.input_schema);
    let mut out = String::with_capacity(128);
    out.push_str("<tool>\n<server_name>");
    Escaper::TEXT.escape_into(tool.server_name(), &mut out);
    out.push_str("</server_name>\n<tool_name>");
    Escaper::TEXT.escape_into(&tool.name, &mut out);
    out.push_str("</tool_name>\n<arguments>\n");
    write_arguments(&args, &mut out)?;
    out.push_str("</arguments>\n</tool>");
    Ok(out)
}

/// Lists the members of an object schema (or of the object items of an array schema), one line
/// each, indented two spaces per level.
fn list_members(doc: &SchemaDoc<'_>, schema: &Json, depth: usize, out: &mut String) {
    if depth >= MAX_LISTED_DEPTH {
        return;
    }
    let resolved = doc.resolve(schema);
    let s = resolved.as_ref();
    let Some(properties) = s.get("properties").and_then(Json::as_object) else {
        return;
    };
    // A set: `required` may list tens of thousands of names, each looked up per property.
    let required: HashSet<&str> = required(s).into_iter().collect();
    let is_required = |name: &str| required.contains(name);
    let ordered = properties
        .iter()
        .filter(|(name, _)| is_required(name))
        .chain(properties.iter().filter(|(name, _)| !is_required(name)));
    for (name, prop) in ordered {
        let p = doc.resolve(prop);
        for _ in 0..depth {
            out.push_str("  ");
        }
        let _ = write!(out, "- {name} ({}", type_label(doc, prop, 0));
        if is_required(name) {
            out.push_str(", required");
        }
        if let Some(values) = p.get("enum").and_then(Json::as_array) {
            let shown: Vec<String> = values.iter().map(show_value).collect();
            let _ = write!(out, ", one of: {}", shown.join(", "));
        }
        if let Some(d) = p.get("default") {
            let _ = write!(out, ", default: {}", show_value(d));
        }
        out.push(')');
        let description = prop
            .get("description")
            .or_else(|| p.get("description"))
            .and_then(Json::as_str)
            .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        if !description.is_empty() {
            let _ = write!(out, ": {description}");
        }
        out.push('\n');
        let nested = if types_with_values(&p).contains(&"array") {
            item_schema(&p, 0).cloned()
        } else {
            Some(p.into_owned())
        };
        if let Some(nested) = nested {
            list_members(doc, &nested, depth + 1, out);
        }
    }
}

/// A short type name: `string`, `array of string`, `integer or null`, `any`.
fn type_label(doc: &SchemaDoc<'_>, schema: &Json, depth: usize) -> String {
    if depth > MAX_LISTED_DEPTH {
        return "any".into();
    }
    let resolved = doc.resolve(schema);
    let s = resolved.as_ref();
    let ts = types_with_values(s);
    let mut labels: Vec<String> = Vec::new();
    if ts.is_empty() {
        if let Some(alts) = alternatives(s) {
            for a in alts {
                let l = type_label(doc, a, depth + 1);
                if !labels.contains(&l) {
                    labels.push(l);
                }
            }
        }
    } else {
        for t in ts {
            let l = match t {
                "array" => match item_schema(s, 0) {
                    Some(item) => format!("array of {}", type_label(doc, item, depth + 1)),
                    None => "array".into(),
                },
                other => other.to_owned(),
            };
            if !labels.contains(&l) {
                labels.push(l);
            }
        }
    }
    if labels.is_empty() {
        "any".into()
    } else {
        labels.join(" or ")
    }
}

/// An `enum` or `default` value as shown in a parameter line: plain strings bare, anything else
/// (strings with spaces, commas or parentheses; numbers; objects) as JSON.
fn show_value(v: &Json) -> String {
    match v {
        Json::String(s)
            if !s.is_empty()
                && !s
                    .chars()
                    .any(|c| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '"')) =>
        {
            s.clone()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Json) -> ToolDef {
        ToolDef::new("t", "Does things.", schema)
    }

    #[test]
    fn parameters_list_types_required_and_nesting() {
        let text = describe_tool(&tool(json!({
            "type": "object",
            "properties": {
                "mode": {"enum": ["a b", "c"]},
                "edits": {"type": "array", "description": "Edits\n  in order", "items": {
                    "type": "object",
                    "properties": {"search": {"type": "string"}, "line": {"type": ["integer", "null"]}},
                    "required": ["search"]
                }},
                "opts": {"$ref": "#/$defs/opts"},
                "any": {},
                "either": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
            },
            "required": ["edits"],
            "$defs": {"opts": {"type": "object", "description": "Options", "properties": {"deep": {"type": "boolean", "default": false}}}}
        })));
        let expected = "### t\nDoes things.\nParameters:\n\
            - edits (array of object, required): Edits in order\n\
            \x20 - search (string, required)\n\
            \x20 - line (integer or null)\n\
            - mode (string, one of: \"a b\", c)\n\
            - opts (object): Options\n\
            \x20 - deep (boolean, default: false)\n\
            - any (any)\n\
            - either (string or array of string)\n";
        assert!(text.starts_with(expected), "{text}");
    }

    #[test]
    fn tools_without_parameters_or_description() {
        let t = ToolDef::new("ping", "  ", json!({"type": "object"}));
        assert_eq!(
            describe_tool(&t),
            "### ping\nParameters: none\nExample:\n<tool>\n<server_name>local</server_name>\n\
             <tool_name>ping</tool_name>\n<arguments>\n</arguments>\n</tool>\n"
        );
    }

    #[test]
    fn unwritable_required_names_say_why_there_is_no_example() {
        let t = tool(
            json!({"type": "object", "properties": {"a b": {"type": "string"}}, "required": ["a b"]}),
        );
        let text = describe_tool(&t);
        assert!(text.contains("- a b (string, required)\n"), "{text}");
        assert!(
            text.ends_with("Example: not available: cannot write argument \"a b\": \"a b\" is not an XML element name\n"),
            "{text}"
        );
        assert!(!text.contains("<tool>"));
    }

    #[test]
    fn server_and_tool_names_are_escaped() {
        let t = ToolDef::new("a&b", "", json!({})).with_server_name("x<y");
        let xml = example_call(&t).unwrap();
        assert!(xml.contains("<server_name>x&lt;y</server_name>\n<tool_name>a&amp;b</tool_name>"));
    }

    #[test]
    fn recursive_schemas_are_listed_to_a_bounded_depth() {
        let t = tool(json!({
            "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}}},
            "$ref": "#/$defs/node"
        }));
        let text = describe_tool(&t);
        assert_eq!(
            text.matches("- child (object)").count(),
            MAX_LISTED_DEPTH,
            "{text}"
        );
    }
}
