//! What a tool or server name may hold: the one rule every dialect and crate uses.

/// Longest tool or server name, in bytes.
pub const MAX_NAME_BYTES: usize = 128;

/// Whether `name` is a valid tool or server name (docs/FORMAT.md §3.4): 1 to 128 ASCII letters,
/// digits, `_`, `-` and `.`, as MCP recommends for tool names, and not `.` or `..` alone. Names
/// are trimmed of surrounding blanks before they are checked; anything else (spaces, newlines,
/// NUL, shell characters, `/`) is an error with feedback, never a call.
///
/// ```
/// use toolcall_parser::is_valid_name;
/// assert!(is_valid_name("read_file"));
/// assert!(is_valid_name("github.create-issue"));
/// assert!(!is_valid_name("rm -rf"));
/// assert!(!is_valid_name("../etc"));
/// assert!(!is_valid_name("{{ tc.name }}"));
/// assert!(!is_valid_name(""));
/// ```
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Whether a name is a chat template's placeholder (`{{ tc.name }}`, `{% … %}`): never a call.
pub(crate) fn is_placeholder(name: &str) -> bool {
    // One pass over the pairs of bytes (three `contains` each set up a searcher: 312
    // instructions a call, for a name of a dozen bytes).
    (name.as_bytes().windows(2)).any(|w| matches!(w, [b'{', b'{' | b'%'] | [b'}', b'}']))
}

/// The message of an `invalid_tool_name` error for `name` (a tool's, or a server's).
pub(crate) fn invalid_name_message(name: &str, tool: bool) -> String {
    format!(
        "`{}` is not a valid {} name: a name is 1 to {MAX_NAME_BYTES} ASCII letters, digits, _, - \
         and .",
        crate::error::snippet(name),
        if tool { "tool" } else { "server" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A placeholder holds `{{`, `{%` or `}}`, read pair by pair as by `contains`.
        #[test]
        fn is_placeholder_finds_the_template_delimiters(
            name in proptest::collection::vec(proptest::sample::select(b"{}%a ".to_vec()), 0..12),
        ) {
            let name = String::from_utf8(name).unwrap();
            let expected = name.contains("{{") || name.contains("{%") || name.contains("}}");
            proptest::prop_assert_eq!(is_placeholder(&name), expected);
        }
    }
}
