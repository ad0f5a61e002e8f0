//! [`format_instructions`]: the part of a system prompt that teaches the tool-call format.

/// The text: the `<tool>` structure, arguments as elements (lists, objects), several calls in
/// one reply, then escaping as docs/FORMAT.md §3 decides: entity escaping first (the five entities), CDATA
/// as the fallback for large code, the `]]>` limitation and its split, one method per value.
const INSTRUCTIONS: &str = r#"## Tool calls

To use a tool, write a call as plain text in your reply, not inside a code fence:

<tool>
<server_name>local</server_name>
<tool_name>read_file</tool_name>
<arguments>
  <path>src/main.rs</path>
  <line_start>10</line_start>
</arguments>
</tool>

- <tool_name> is the tool's name; <server_name> is the server shown in the tool's example.
- Each argument is one element inside <arguments>, named after the parameter. Write numbers and true/false as plain text.
- A list repeats its element once per item: <exclude>dist</exclude><exclude>.git</exclude>
- An object holds its fields as child elements.
- Write line breaks and indentation as they are; no JSON escapes such as \n.
- You may make several calls in one reply. End each call with </tool> before starting the next.

### Special characters in values

Values are XML text, so &, < and > must be escaped. Entity escaping comes first:

&amp; for &   &lt; for <   &gt; for >   &quot; for "   &apos; for '

<content>if a &lt; b &amp;&amp; ready() { go(); }</content>

(Quotes may also stay as they are.) For large blocks of code, or when escaping gets error-prone, wrap the whole value in CDATA instead and write it unescaped:

<content><![CDATA[if a < b && ready() { go(); }]]></content>

CDATA ends at the first ]]>, so it cannot hold that sequence. If the value contains ]]>, escape the value instead (]]&gt;), or split the CDATA between ]] and >: ]]]]><![CDATA[>

Use one method per value: either escape every special character, or put the whole value in CDATA. Never mix the two; inside CDATA an entity such as &amp; is kept as literal text.
"#;

/// The system-prompt section that explains the tool-call format, in Markdown, ending with a
/// newline. It teaches entity escaping as the primary method and CDATA as the fallback
/// (FORMAT.md §3); tool descriptions come separately ([`crate::describe_tools`]).
///
/// ```
/// let text = toolcall_prompt::format_instructions();
/// for needle in ["<tool_name>", "&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "<![CDATA[", "]]]]><![CDATA[>"] {
///     assert!(text.contains(needle), "{needle}");
/// }
/// ```
pub fn format_instructions() -> &'static str {
    INSTRUCTIONS
}

#[cfg(test)]
mod tests {
    use super::*;
    use arg_types::Value;
    use toolcall_parser::Encoding;

    /// The lines of the instructions that are a whole element `<content>…</content>`.
    fn content_lines() -> Vec<&'static str> {
        INSTRUCTIONS
            .lines()
            .filter(|l| l.starts_with("<content>") && l.ends_with("</content>"))
            .collect()
    }

    #[test]
    fn the_call_shown_parses_as_described() {
        let r = toolcall_parser::parse(INSTRUCTIONS);
        assert!(r.errors().is_empty(), "{:?}", r.errors());
        let calls = r.calls();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].server_name, "local");
        assert_eq!(calls[0].tool_name, "read_file");
        assert_eq!(
            calls[0].arguments["path"],
            Value::String("src/main.rs".into())
        );
        assert_eq!(calls[0].arguments["line_start"], Value::Int(10));
        assert!(calls[0].repairs.is_empty());
    }

    #[test]
    fn both_escaping_examples_give_the_same_value() {
        let lines = content_lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        for line in lines {
            let doc = xml_fallback::parse_document(line).expect("well-formed");
            assert_eq!(
                arg_types::value_from_element(&doc.value),
                Value::String("if a < b && ready() { go(); }".into()),
                "{line}"
            );
        }
    }

    #[test]
    fn the_split_shown_reads_as_the_terminator() {
        let split = "<v><![CDATA[a]]]]><![CDATA[>b]]></v>";
        assert!(INSTRUCTIONS.contains("]]]]><![CDATA[>"));
        let doc = xml_fallback::parse_document(split).expect("well-formed");
        assert_eq!(
            arg_types::value_from_element(&doc.value),
            Value::String("a]]>b".into())
        );
    }

    #[test]
    fn what_the_instructions_claim_holds_in_the_parser() {
        let call = |value: &str| {
            let text = format!(
                "<tool><tool_name>w</tool_name><arguments><c>{value}</c></arguments></tool>"
            );
            let r = toolcall_parser::parse(&text);
            assert!(r.errors().is_empty(), "{value}: {:?}", r.errors());
            r.calls()[0].clone()
        };
        // All five entities are read, and quotes may stay as they are.
        let c = call("&amp;&lt;&gt;&quot;&apos; \"'");
        assert_eq!(c.arguments["c"], Value::String("&<>\"' \"'".into()));
        assert_eq!(c.encodings[0].encoding, Encoding::EntityEscaped);
        // Inside CDATA an entity is literal text.
        let c = call("<![CDATA[a &amp; b]]>");
        assert_eq!(c.arguments["c"], Value::String("a &amp; b".into()));
        assert_eq!(c.encodings[0].encoding, Encoding::Cdata);
        // Line breaks and indentation are kept as written.
        let c = call("fn f() {\n    go();\n}");
        assert_eq!(
            c.arguments["c"],
            Value::String("fn f() {\n    go();\n}".into())
        );
        // Mixing is read, but recorded, so that hosts can see how often models do it.
        let c = call("a &amp; <![CDATA[b & c]]>");
        assert_eq!(c.arguments["c"], Value::String("a & b & c".into()));
        assert_eq!(c.encodings[0].encoding, Encoding::Mixed);
    }

    #[test]
    fn entities_come_before_cdata() {
        let entities = INSTRUCTIONS.find("&amp; for &").unwrap();
        let cdata = INSTRUCTIONS.find("<![CDATA[").unwrap();
        assert!(entities < cdata);
        assert!(INSTRUCTIONS.contains("Never mix"));
        assert!(INSTRUCTIONS.contains("several calls in one reply"));
    }
}
