//! [`system_prompt_section`]: the format instructions and the tool descriptions together.

use crate::ToolDef;
use crate::describe::describe_tools;
use crate::instructions::format_instructions;

/// The whole tool section of a system prompt: [`format_instructions`], then, when there are
/// tools, a `## Available tools` heading and [`describe_tools`]. Ends with a newline.
///
/// ```
/// use toolcall_prompt::{format_instructions, system_prompt_section, ToolDef};
/// assert_eq!(system_prompt_section(&[]), format_instructions());
/// let tools = [ToolDef::new("ping", "Check the connection.", serde_json::json!({}))];
/// let text = system_prompt_section(&tools);
/// assert!(text.starts_with(format_instructions()));
/// assert!(text.contains("\n## Available tools\n\n### ping\n"));
/// ```
pub fn system_prompt_section(tools: &[ToolDef]) -> String {
    let instructions = format_instructions();
    if tools.is_empty() {
        return instructions.to_owned();
    }
    let tools = describe_tools(tools);
    let mut out = String::with_capacity(instructions.len() + tools.len() + 32);
    out.push_str(instructions);
    out.push_str("\n## Available tools\n\n");
    out.push_str(&tools);
    out
}
