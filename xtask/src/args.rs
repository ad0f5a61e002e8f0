//! The command line: which task, with which options. Parsing runs nothing, so `--help` anywhere
//! only prints [`USAGE`].

use anyhow::{Context, Result, bail};

/// What `cargo xtask …` asked for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Task {
    /// Print [`USAGE`].
    Help,
    /// Every check; `quick` skips the fuzz and bench smoke steps.
    Ci { quick: bool },
    /// Fuzzing.
    Fuzz(Fuzz),
    /// The benchmark harness, with its own arguments (`--smoke`, section names).
    Bench { args: Vec<String> },
    /// `vllm`: the vLLM plugin's tests against the real vLLM.
    Vllm { args: Vec<String> },
}

/// The fuzz task's modes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Fuzz {
    /// Print the target names.
    List,
    /// The named targets (none: all), one after another, `seconds` each, output on the terminal.
    Run { targets: Vec<String>, seconds: u64 },
    /// The named targets (none: all) from their checked-in seeds alone, as CI's smoke meets
    /// them, `seconds` each, once per libFuzzer seed `1..=seeds`.
    Fresh {
        targets: Vec<String>,
        seconds: u64,
        seeds: u64,
    },
    /// The named targets (none: all), `seconds` each, `jobs` at once (none: one per core), with
    /// a summary appended to `fuzz/SOAK.md`.
    Soak {
        targets: Vec<String>,
        seconds: u64,
        jobs: Option<usize>,
    },
}

/// Seconds per target of `cargo xtask fuzz` without `--seconds`.
pub(crate) const DEFAULT_FUZZ_SECONDS: u64 = 30;

pub(crate) const USAGE: &str = "\
cargo xtask: the project's checks and chores

USAGE:
  cargo xtask ci [--quick]
      Every check, one line per step: its name, ok or FAILED, its seconds. A step's full output
      goes to target/xtask-logs/<step>.log; a failing step prints the log's last 60 lines.
      Steps, in order (times of a run from an empty target directory on 2 shared cores):
        fmt          cargo fmt --check                                    <1 s
        clippy       clippy on every target, -D warnings                  35 s
        tests        unit, integration and property tests (nextest when   80 s
                     installed, else cargo test)
        doc-tests    cargo test --doc, rustdoc warnings as errors          20 s
        docs         rustdoc with -D warnings                             10 s
        fuzz-smoke   build every fuzz target (nightly, AddressSanitizer),  5 min
                     then run each for 20 s; needs the nightly toolchain
                     (cargo-fuzz is installed when missing)
        bench-smoke  every benchmark once on small input, results checked  3.5 min
                     (figures and target verdicts mean nothing here)
        python       the Python package (crates/toolcall-py): fmt, clippy,  ~3 min
                     built by maturin into target/python-venv (made once,
                     maturin and pytest from the package index), pytest
      --quick      skip fuzz-smoke, bench-smoke and python: stable toolchain only, no
                   package index, about 2.5 min
      Exit status 0 when every step passed, 1 otherwise.

  cargo xtask fuzz [TARGET...] [--seconds N]
      Build the fuzz targets once (nightly, cargo-fuzz installed when missing), then run each
      named target (default: all) for N seconds (default 30), one after another, output on the
      terminal. Corpora grow in fuzz/corpus/<target>; findings go to fuzz/artifacts/<target>.
  cargo xtask fuzz --fresh SEEDS [--seconds N] [TARGET...]
      Each target (default: all) from its checked-in seeds alone, in a scratch corpus, as CI's
      fuzz-smoke meets it on a fresh machine, for N seconds (default 20, the smoke's), once for
      each libFuzzer random seed 1..=SEEDS: what CI's smoke may find, found first. Findings go
      to fuzz/artifacts/<target>.
  cargo xtask fuzz --soak SECONDS [--jobs N] [TARGET...]
      A long run: each target (default: all) for SECONDS, N at a time (default: one per core),
      each one's output in target/xtask-logs/soak/<target>.log. Corpora are kept between runs.
      Prints a summary per target (executions, exec/s, coverage, corpus before and after,
      findings with their files) and appends it to fuzz/SOAK.md. A finding stops libFuzzer;
      the target is started again for the time left (at most 5 findings per target).
  cargo xtask fuzz --list
      The fuzz targets' names.

  cargo xtask bench [--smoke] [SECTION...]
      The benchmark report (about 2 minutes; sections: one_call, repair, streaming,
      small_calls, schema, thread, prompt, memory). --smoke: each benchmark once on small
      input, as the ci step does.
  cargo xtask bench --counts
      The targets of docs/PERFORMANCE.md that compare two workloads (escaped content and small
      calls against serde_json, the `&` repair against the clean path, 1-byte feeding against
      its floors), as instructions executed, counted by callgrind in the function doing each
      side's work: a Markdown table with ratios and verdicts (about 3 minutes; needs valgrind).
  cargo xtask bench --python
      The Python package beside SGLang's Qwen3-Coder detector (llm-router-utils 0.8.1), in one
      process, on the same write_file calls; installs both into target/python-bench-venv.
  cargo xtask bench --vllm [--sizes 4,16,32,128] [--vllm-sizes 4,16,32] [--deltas 1,4]
                           [--dialects qwen3-coder,glm,minimax-m2] [--repeat 3] [--limit 60]
                           [--without-driver-only]
      The vLLM plugin beside vLLM's own parser of the same dialect and a parser that returns
      None (the driver's floor), each driven as vLLM's serving layer drives a tool parser, on
      one write_file call of N KiB; in target/vllm-venv (as `cargo xtask vllm`). CPU seconds; a
      run of vLLM's parser past --limit CPU seconds is stopped. About 30 minutes on 2 busy
      shared cores. --without-driver-only: only the plugin's per-delta cost without the
      driver's copies (about 1.5 minutes).
  cargo xtask bench --peers [--smoke]
      toolcall beside vLLM 0.32.0's Rust parser, dynamo-parsers-v2 0.9.6, dynamo-parsers
      11.0.1 and tool-parser 1.10.0 (smg) on the same inputs (Qwen3-Coder, GLM, MiniMax-M2;
      whole and in 16-, 4-, 1-byte chunks), MB/s and byte-for-byte checks, as Markdown tables
      (about 10 minutes once built; the first build takes ~45 minutes on 2 shared cores).
      benches/peers is built outside the workspace, into its own target/;
      vLLM's source distribution is fetched once into benches/peers/vendor (git-ignored).
      --smoke: small inputs, one run each. Not part of ci.

  cargo xtask vllm
      The vLLM plugin (toolcall.vllm) tested inside the real vllm==0.32.0, installed once into
      target/vllm-venv (~2.5 min and 6.5 GB the first time; no GPU needed). Not part of ci.

  cargo xtask help | --help | -h
      This text. `--help` or `-h` after any task prints it too, and runs nothing.

Exit status: 0 success; 1 a check failed or a fuzzer found something; 2 a usage error, or xtask
could not run a tool (a missing nightly toolchain, say).
";

/// Reads the arguments after `cargo xtask`.
pub(crate) fn parse(args: &[String]) -> Result<Task> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(Task::Help);
    }
    let Some((task, rest)) = args.split_first() else {
        return Ok(Task::Help);
    };
    match task.as_str() {
        "help" => Ok(Task::Help),
        "ci" => ci(rest),
        "fuzz" => fuzz(rest).map(Task::Fuzz),
        "bench" => Ok(Task::Bench {
            args: rest.to_vec(),
        }),
        "vllm" => Ok(Task::Vllm {
            args: rest.to_vec(),
        }),
        other => bail!("unknown task `{other}` (cargo xtask --help lists them)"),
    }
}

fn ci(args: &[String]) -> Result<Task> {
    let mut quick = false;
    for a in args {
        match a.as_str() {
            "--quick" => quick = true,
            other => bail!("unknown argument `{other}` for ci (cargo xtask --help)"),
        }
    }
    Ok(Task::Ci { quick })
}

fn fuzz(args: &[String]) -> Result<Fuzz> {
    let mut targets = Vec::new();
    let (mut seconds, mut soak, mut jobs, mut list) = (None, None, None, false);
    let mut fresh = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        // `--flag value` or `--flag=value`.
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || -> Result<String> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .with_context(|| format!("{flag} needs a value"))
        };
        match flag {
            "--seconds" => seconds = Some(positive(flag, &value()?)?),
            "--soak" => soak = Some(positive(flag, &value()?)?),
            "--jobs" => jobs = Some(usize::try_from(positive(flag, &value()?)?)?),
            "--fresh" => fresh = Some(positive(flag, &value()?)?),
            "--list" => list = true,
            t if t.starts_with('-') => bail!("unknown option `{t}` for fuzz (cargo xtask --help)"),
            t => targets.push(t.to_string()),
        }
    }
    if list {
        if !targets.is_empty()
            || seconds.is_some()
            || soak.is_some()
            || jobs.is_some()
            || fresh.is_some()
        {
            bail!("--list takes nothing else");
        }
        return Ok(Fuzz::List);
    }
    if let Some(seeds) = fresh {
        if soak.is_some() || jobs.is_some() {
            bail!("--fresh runs one target at a time; drop --soak and --jobs");
        }
        return Ok(Fuzz::Fresh {
            targets,
            seconds: seconds.unwrap_or(crate::fuzz::SMOKE_SECONDS),
            seeds,
        });
    }
    match (soak, seconds) {
        (Some(_), Some(_)) => bail!("--soak SECONDS sets the time; drop --seconds"),
        (Some(seconds), None) => Ok(Fuzz::Soak {
            targets,
            seconds,
            jobs,
        }),
        (None, _) if jobs.is_some() => bail!("--jobs only applies to --soak"),
        (None, seconds) => Ok(Fuzz::Run {
            targets,
            seconds: seconds.unwrap_or(DEFAULT_FUZZ_SECONDS),
        }),
    }
}

fn positive(flag: &str, v: &str) -> Result<u64> {
    match v.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => bail!("{flag} needs a whole number above 0, not `{v}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(line: &str) -> Result<Task> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse(&args)
    }

    #[test]
    fn help_in_every_spelling_and_after_every_task_is_help() {
        for line in [
            "",
            "help",
            "--help",
            "-h",
            "ci --help",
            "ci -h",
            "ci --quick --help",
            "fuzz --help",
            "fuzz parse_mixed --soak 600 -h",
            "fuzz --soak -h",
            "bench --help",
            "bench --smoke -h",
            "nosuchtask --help",
        ] {
            assert_eq!(parse_str(line).unwrap(), Task::Help, "{line:?}");
        }
    }

    #[test]
    fn usage_names_every_task_and_flag() {
        for word in [
            "ci",
            "--quick",
            "fuzz",
            "--seconds",
            "--soak",
            "--jobs",
            "--list",
            "--fresh",
            "bench",
            "--smoke",
            "--python",
            "--vllm",
            "help",
            "--help",
            "-h",
            "nightly",
            "target/xtask-logs",
            "fuzz/SOAK.md",
        ] {
            assert!(USAGE.contains(word), "usage does not mention {word}");
        }
    }

    #[test]
    fn ci_takes_quick_and_nothing_else() {
        assert_eq!(parse_str("ci").unwrap(), Task::Ci { quick: false });
        assert_eq!(parse_str("ci --quick").unwrap(), Task::Ci { quick: true });
        // A typo must not start the full run.
        assert!(parse_str("ci --quik").is_err());
        assert!(parse_str("ci fmt").is_err());
        assert!(parse_str("cii").is_err());
    }

    #[test]
    fn fuzz_run_targets_and_seconds() {
        assert_eq!(
            parse_str("fuzz").unwrap(),
            Task::Fuzz(Fuzz::Run {
                targets: vec![],
                seconds: DEFAULT_FUZZ_SECONDS
            })
        );
        assert_eq!(
            parse_str("fuzz parse_mixed stream_chunking --seconds 600").unwrap(),
            Task::Fuzz(Fuzz::Run {
                targets: vec!["parse_mixed".into(), "stream_chunking".into()],
                seconds: 600
            })
        );
        assert_eq!(
            parse_str("fuzz --seconds=5 a").unwrap(),
            Task::Fuzz(Fuzz::Run {
                targets: vec!["a".into()],
                seconds: 5
            })
        );
        assert!(parse_str("fuzz --seconds").is_err());
        assert!(parse_str("fuzz --seconds 0").is_err());
        assert!(parse_str("fuzz --seconds ten").is_err());
        assert!(parse_str("fuzz --jobs 2").is_err());
        assert!(parse_str("fuzz --bogus").is_err());
    }

    #[test]
    fn fuzz_soak_seconds_jobs_targets() {
        assert_eq!(
            parse_str("fuzz --soak 600").unwrap(),
            Task::Fuzz(Fuzz::Soak {
                targets: vec![],
                seconds: 600,
                jobs: None
            })
        );
        assert_eq!(
            parse_str("fuzz --soak 60 --jobs 1 cost_growth parse_mixed").unwrap(),
            Task::Fuzz(Fuzz::Soak {
                targets: vec!["cost_growth".into(), "parse_mixed".into()],
                seconds: 60,
                jobs: Some(1)
            })
        );
        assert!(parse_str("fuzz --soak").is_err());
        assert!(parse_str("fuzz --soak 60 --seconds 5").is_err());
        assert!(parse_str("fuzz --soak 60 --jobs 0").is_err());
    }

    #[test]
    fn fuzz_fresh_seeds_seconds_targets() {
        assert_eq!(
            parse_str("fuzz --fresh 3").unwrap(),
            Task::Fuzz(Fuzz::Fresh {
                targets: vec![],
                seconds: crate::fuzz::SMOKE_SECONDS,
                seeds: 3
            })
        );
        assert_eq!(
            parse_str("fuzz parse_mixed --fresh=2 --seconds 45").unwrap(),
            Task::Fuzz(Fuzz::Fresh {
                targets: vec!["parse_mixed".into()],
                seconds: 45,
                seeds: 2
            })
        );
        assert!(parse_str("fuzz --fresh").is_err());
        assert!(parse_str("fuzz --fresh 0").is_err());
        assert!(parse_str("fuzz --fresh 2 --soak 60").is_err());
        assert!(parse_str("fuzz --fresh 2 --jobs 2").is_err());
        assert!(parse_str("fuzz --fresh 2 --list").is_err());
    }

    #[test]
    fn fuzz_list_alone() {
        assert_eq!(parse_str("fuzz --list").unwrap(), Task::Fuzz(Fuzz::List));
        assert!(parse_str("fuzz --list parse_mixed").is_err());
    }

    #[test]
    fn bench_vllm_passes_its_arguments_on() {
        assert_eq!(
            parse_str("bench --vllm --sizes 4,16").unwrap(),
            Task::Bench {
                args: vec!["--vllm".into(), "--sizes".into(), "4,16".into()]
            }
        );
    }

    #[test]
    fn bench_passes_its_arguments_on() {
        assert_eq!(
            parse_str("bench --smoke streaming").unwrap(),
            Task::Bench {
                args: vec!["--smoke".into(), "streaming".into()]
            }
        );
    }

    #[test]
    fn bench_peers_passes_its_arguments_on() {
        assert_eq!(
            parse_str("bench --peers --smoke").unwrap(),
            Task::Bench {
                args: vec!["--peers".into(), "--smoke".into()]
            }
        );
    }
}
