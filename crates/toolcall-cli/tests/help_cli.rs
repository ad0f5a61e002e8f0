//! The `--help` of the command and of every subcommand is self-contained: it cites no design
//! document outside the repository (docs/FORMAT.md is the reference, and its "Where the format
//! comes from" section is the one place that names them).

mod common;

use common::{text, toolcall};

/// The subcommands the top-level help lists, found from its `Commands:` section so that a new
/// subcommand is checked without changing this test.
fn subcommands() -> Vec<String> {
    let out = toolcall(&["--help"], None);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout).to_owned();
    let section = help
        .split_once("Commands:\n")
        .expect("a Commands: section")
        .1;
    section
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .filter(|name| name != "help")
        .collect()
}

/// Every help text: the command's short and long help, and each subcommand's, both ways.
fn every_help() -> Vec<(String, String)> {
    let mut helps = Vec::new();
    let mut run = |args: Vec<String>| {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = toolcall(&refs, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        helps.push((args.join(" "), text(&out.stdout).to_owned()));
    };
    run(vec!["--help".into()]);
    run(vec!["-h".into()]);
    for name in subcommands() {
        run(vec![name.clone(), "--help".into()]);
        run(vec![name.clone(), "-h".into()]);
        run(vec!["help".into(), name]);
    }
    helps
}

#[test]
fn every_subcommand_is_checked() {
    assert_eq!(subcommands(), ["parse", "stream", "thread", "prompt"]);
}

#[test]
fn no_help_cites_an_outside_design_document() {
    let helps = every_help();
    assert_eq!(helps.len(), 2 + 3 * 4);
    for (args, help) in &helps {
        assert!(!help.trim().is_empty(), "toolcall {args}");
        let upper = help.to_uppercase();
        for citation in ["ADR-", "SPEC-01"] {
            assert!(
                !upper.contains(citation),
                "`toolcall {args}` cites {citation}:\n{help}"
            );
        }
    }
    // The thread subcommand points to the reference instead.
    let thread = &helps.iter().find(|(a, _)| a == "thread --help").unwrap().1;
    assert!(thread.contains("docs/FORMAT.md §8"), "{thread}");
}

#[test]
fn the_dialect_flag_lists_every_dialect() {
    for command in ["parse", "stream"] {
        let out = toolcall(&[command, "--help"], None);
        let help = text(&out.stdout);
        for name in [
            "tool",
            "qwen3-coder",
            "seed-oss",
            "hermes",
            "glm",
            "minimax-m2",
            "anthropic",
            "deepseek-dsml",
            "step3",
            "kimi-k3",
            "auto",
        ] {
            assert!(
                help.contains(&format!("{name},")) || help.contains(&format!("{name} (")),
                "{command}: {name}"
            );
        }
    }
}
