//! `--help` and bad arguments run nothing: the built binary is started with a `cargo` that does
//! not exist and an empty target directory, so any step it started would fail or leave a log.

use std::process::{Command, Output};

fn xtask(args: &[&str], target_dir: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env("CARGO", "/nonexistent/cargo")
        .env("CARGO_TARGET_DIR", target_dir)
        .output()
        .expect("xtask runs")
}

#[test]
fn help_prints_usage_and_runs_no_step() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["help"],
        &[],
        &["ci", "--help"],
        &["ci", "-h"],
        &["ci", "--quick", "--help"],
        &["fuzz", "--soak", "600", "--help"],
        &["bench", "-h"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = xtask(args, dir.path());
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert!(
            stdout.contains("cargo xtask ci [--quick]"),
            "{args:?}: {stdout}"
        );
        assert!(stdout.contains("--seconds N"), "{args:?}: {stdout}");
        assert!(stdout.contains("--soak SECONDS"), "{args:?}: {stdout}");
        assert!(stdout.starts_with("cargo xtask: "), "{args:?}: {stdout}");
        // No step header (`ci: N steps…`), no summary (`N passed, N failed (S s)`).
        let ran = stdout.lines().any(|l| {
            l.starts_with("ci: ")
                || (l.contains(" passed, ")
                    && l.split(' ')
                        .next()
                        .is_some_and(|w| w.parse::<u32>().is_ok()))
        });
        assert!(!ran, "{args:?} ran steps: {stdout}");
        assert!(
            !dir.path().join("xtask-logs").exists(),
            "{args:?} wrote step logs"
        );
    }
}

#[test]
fn a_misspelt_flag_is_an_error_not_a_full_run() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["ci", "--quik"][..], &["fuzz", "--sok", "5"], &["cii"]] {
        let out = xtask(args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("xtask: error:"),
            "{args:?}: {out:?}"
        );
    }
    assert!(!dir.path().join("xtask-logs").exists());
}
