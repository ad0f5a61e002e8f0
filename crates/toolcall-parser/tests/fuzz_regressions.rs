//! Inputs that the fuzz targets in `fuzz/` found failing, each pinned with what it broke.
//! Every input is also checked for chunking invariance.

mod common;

use common::assert_chunking_invariant;
use toolcall_parser::ParseOptions;

/// `parse_mixed`: `</tool >` (a blank before `>`, legal XML) ended the call's span before the
/// `>`, which then came out as prose.
#[test]
fn close_tag_of_tool_with_a_blank_before_the_bracket() {
    let text = "<tool><tool_name>t</tool_name></tool >after";
    let r = assert_chunking_invariant(text, &ParseOptions::default());
    assert_eq!(r.calls().len(), 1);
    assert_eq!(r.calls()[0].span, 0..text.len() - "after".len());
    assert_eq!(r.prose(), "after");
    let text = "<tool><tool_name>t</tool_name></tool\n\t>";
    let r = assert_chunking_invariant(text, &ParseOptions::default());
    assert_eq!(r.calls()[0].span, 0..text.len());
    assert_eq!(r.prose(), "");
}
