//! [`retry_message`]: what an agent loop sends back to the model after calls it could not read.
//!
//! The per-error text (what, where, how to fix) is [`ParseError::feedback`], kept with the
//! error in `toolcall-parser`; this module puts the errors of one reply together into one
//! message.

use std::collections::HashMap;
use std::fmt::Write as _;
use toolcall_parser::ParseError;

/// Errors quoted in full; the rest are counted.
const MAX_LISTED: usize = 8;

/// The message for the model after a reply whose calls had `errors`: how many calls failed,
/// each error's feedback (what failed, where, how to fix it), and a closing request to send
/// again only the failed calls, corrected. Empty when there are no errors.
///
/// A fix already given for an earlier error is not repeated; after eight errors the rest are
/// only counted. The closing line assumes the agent ran (or will run) the calls that were read.
///
/// ```
/// let reply = "<tool><tool_name>write_to_file</tool_name><arguments>\
///              <content>a && b</cont></arguments></tool>";
/// let result = toolcall_parser::parse(reply);
/// // The result's errors go in as they are: no copy, no collecting.
/// let msg = toolcall_prompt::retry_message(result.errors());
/// assert!(msg.starts_with("1 tool call in your last reply could not be read"));
/// assert!(msg.contains("`write_to_file`"));
/// assert!(msg.contains("&amp;") && msg.contains("CDATA"));
/// assert!(msg.ends_with("Send the failed call again, corrected. Do not repeat calls that were read.\n"));
/// assert_eq!(toolcall_prompt::retry_message(&[] as &[toolcall_parser::ParseError]), "");
/// ```
pub fn retry_message<'e>(errors: impl IntoIterator<Item = &'e ParseError>) -> String {
    let errors: Vec<&ParseError> = errors.into_iter().collect();
    let n = errors.len();
    if n == 0 {
        return String::new();
    }
    let mut out = if n == 1 {
        String::from("1 tool call in your last reply could not be read, so it was not run.\n")
    } else {
        format!("{n} tool calls in your last reply could not be read, so they were not run.\n")
    };
    // Each fix line, with the number of the error that first gave it.
    let mut fixes: HashMap<&str, usize> = HashMap::new();
    let mut feedback: Vec<String> = Vec::with_capacity(n.min(MAX_LISTED));
    for e in errors.iter().take(MAX_LISTED) {
        feedback.push(e.feedback());
    }
    for (i, text) in feedback.iter().enumerate() {
        out.push('\n');
        if n > 1 {
            let _ = write!(out, "{}. ", i + 1);
        }
        let mut same_as = None;
        for line in text.lines() {
            if line.starts_with("Fix") {
                if let Some(&first) = fixes.get(line) {
                    same_as = Some(first);
                    continue;
                }
                fixes.insert(line, i + 1);
            }
            out.push_str(line);
            out.push('\n');
        }
        if let Some(first) = same_as {
            let _ = writeln!(out, "Fix: as for {first}.");
        }
    }
    if n > MAX_LISTED {
        let rest = &errors[MAX_LISTED..];
        let mut kinds: Vec<&str> = rest.iter().map(|e| e.kind.as_str()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        let _ = writeln!(
            out,
            "\n{} more could not be read ({}).",
            rest.len(),
            kinds.join(", ")
        );
    }
    out.push('\n');
    out.push_str(if n == 1 {
        "Send the failed call again, corrected. Do not repeat calls that were read.\n"
    } else {
        "Send the failed calls again, corrected. Do not repeat calls that were read.\n"
    });
    out
}

/// The message for a reply that held neither a tool call nor an end to the task, so the agent
/// loop would otherwise stall.
///
/// ```
/// let msg = toolcall_prompt::no_tool_call_message();
/// assert!(msg.contains("<tool>"));
/// assert!(msg.ends_with('\n'));
/// ```
pub fn no_tool_call_message() -> &'static str {
    "Your last reply contained no tool call. To act, write a call in the <tool> format, as plain \
     text rather than inside a code fence. If the task is finished, use the tool that reports \
     completion.\n"
}
