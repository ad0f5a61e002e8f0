//! The token budget of the prompt text: every agent pays for it on every turn. The sizes are
//! recorded in docs/PROMPT.md; this test fails when the text grows past the stated budget or
//! when the recorded sizes no longer match (rerun `cargo run -p toolcall-prompt --example
//! prompt_size` and update the table).

use toolcall_prompt::{ToolDef, describe_tools, format_instructions, system_prompt_section};

/// The stated budgets, in approximate tokens (bytes / 4).
const INSTRUCTIONS_BUDGET: usize = 450;
const TEN_TOOLS_BUDGET: usize = 1200;
const WHOLE_BUDGET: usize = 1650;

fn tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

fn typical_tools() -> Vec<ToolDef> {
    let text = include_str!("data/typical_tools.json");
    let json: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
    ToolDef::from_tools_json(&json).expect("valid tools")
}

#[test]
fn the_text_stays_within_its_budget() {
    let tools = typical_tools();
    assert_eq!(tools.len(), 10);
    let instructions = tokens(format_instructions());
    let described = tokens(&describe_tools(&tools));
    let whole = tokens(&system_prompt_section(&tools));
    assert!(instructions <= INSTRUCTIONS_BUDGET, "{instructions}");
    assert!(described <= TEN_TOOLS_BUDGET, "{described}");
    assert!(whole <= WHOLE_BUDGET, "{whole}");
    // The parts add up: nothing hidden is added between them.
    assert!(whole <= instructions + described + 8, "{whole}");
}

#[test]
fn docs_record_the_measured_sizes_and_budgets() {
    let doc = include_str!("../../../docs/PROMPT.md");
    let tools = typical_tools();
    let rows = [
        ("format instructions", format_instructions().len()),
        ("10 tool descriptions", describe_tools(&tools).len()),
        ("whole section", system_prompt_section(&tools).len()),
    ];
    for (label, bytes) in rows {
        let row = format!("| {label} | {bytes} | {} |", bytes.div_ceil(4));
        assert!(doc.contains(&row), "docs/PROMPT.md lacks the row {row:?}");
    }
    for budget in [INSTRUCTIONS_BUDGET, TEN_TOOLS_BUDGET, WHOLE_BUDGET] {
        assert!(
            doc.contains(&format!("{budget} tokens")),
            "docs/PROMPT.md does not state the budget {budget}"
        );
    }
}
