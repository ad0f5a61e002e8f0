"""`cargo xtask bench --python`: toolcall beside SGLang's Qwen3-Coder detector, in one process.

Both read the same Qwen3-Coder `write_file` call, whose `content` is N KiB of dense code, with the
same OpenAI tool list: one-shot (`toolcall.parse` / `detect_and_parse`) and streamed in 16- and
4-character chunks (`StreamParser.feed` / `parse_streaming_increment`, a fresh parser per run).
SGLang's detector is the one `llm-router-utils` 0.8.1 publishes. Each result is checked (the
content read back whole) before it is timed; the figures are the best of a few runs.

    python bench_qwen3_coder.py [--sizes 64,256,1024] [--quick]

Streaming runs of the detector are skipped where the smaller sizes project them past --budget
seconds (default 300).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, Callable, List, Optional

import toolcall

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
]

LINES = [
    "fn step(a: &mut Vec<u64>, b: usize) -> Option<u64> {",
    "    if a.len() < b && b > 0 { return a.get(b - 1).copied(); }",
    "    let s: u64 = a.iter().filter(|&&x| x % 3 == 0 || x > 7).sum();",
    '    println!("{} <{}> & {}", s, b, a.len()); // a < b, c > d',
    "    a.push(s.wrapping_mul(31) ^ (b as u64) << 2);",
    "    None",
    "}",
]


def code_of(size: int) -> str:
    out: List[str] = []
    n = 0
    i = 0
    while n < size:
        line = LINES[i % len(LINES)] + "\n"
        out.append(line)
        n += len(line)
        i += 1
    return "".join(out)[:size].rstrip("\n") + "\n"


def call_of(code: str) -> str:
    return (
        "I'll write the file.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/big.rs\n"
        "</parameter>\n<parameter=content>\n" + code + "</parameter>\n</function>\n</tool_call>"
    )


def pieces(text: str, n: int) -> List[str]:
    return [text[i : i + n] for i in range(0, len(text), n)]


def best(run: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return min(times)


# --- toolcall ---------------------------------------------------------------------------------


def ours_one_shot(text: str, code: str) -> Callable[[], Any]:
    r = toolcall.parse(text, dialect="qwen3-coder", tools=TOOLS)
    assert r.calls[0]["arguments"]["content"] == code.rstrip("\n"), "toolcall: wrong content"
    return lambda: toolcall.parse(text, dialect="qwen3-coder", tools=TOOLS)


def ours_streamed(text: str, code: str, n: int) -> Callable[[], Any]:
    chunks = pieces(text, n)

    def run() -> List[Any]:
        # A consumer looks at each event as it comes (here: keeps the finished calls).
        p = toolcall.StreamParser(dialect="qwen3-coder", tools=TOOLS)
        done = []
        for c in chunks:
            for e in p.feed(c):
                if e["event"] == "call_finished":
                    done.append(e)
        done += [e for e in p.finish() if e["event"] == "call_finished"]
        return done

    done = run()
    assert done[0]["call"]["arguments"]["content"] == code.rstrip("\n"), "toolcall: streamed"
    return run


# --- SGLang's detector ------------------------------------------------------------------------


def sglang() -> Optional[Any]:
    try:
        from llm_router_utils.sglang.srt.entrypoints.openai.protocol import Tool
        from llm_router_utils.sglang.srt.function_call.qwen3_coder_detector import (
            Qwen3CoderDetector,
        )
    except ImportError as e:
        print(f"llm-router-utils is not installed ({e}): toolcall alone")
        return None
    return Qwen3CoderDetector, [Tool(**t) for t in TOOLS]


def theirs_one_shot(sg: Any, text: str, code: str) -> Callable[[], Any]:
    detector, tools = sg
    r = detector().detect_and_parse(text, tools)
    content = json.loads(r.calls[0].parameters)["content"]
    assert content.strip("\n") == code.strip("\n"), "sglang: wrong content"
    return lambda: detector().detect_and_parse(text, tools)


def theirs_streamed(sg: Any, text: str, code: str, n: int) -> Callable[[], Any]:
    detector, tools = sg
    chunks = pieces(text, n)

    def run() -> str:
        d = detector()
        args = []
        for c in chunks:
            r = d.parse_streaming_increment(c, tools)
            args += [call.parameters for call in r.calls if call.parameters]
        return "".join(args)

    return run


def check_theirs_streamed(run: Callable[[], str], code: str) -> None:
    content = json.loads(run())["content"]
    assert content.strip("\n") == code.strip("\n"), "sglang: streamed content"


def fmt(seconds: Optional[float]) -> str:
    if seconds is None:
        return "–"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="64,256,1024", help="content sizes in KiB")
    ap.add_argument("--quick", action="store_true", help="one run of each, small sizes")
    ap.add_argument("--budget", type=float, default=300.0,
                    help="seconds a single detector run may be projected to take")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.quick:
        sizes = [16, 64]
    repeat = 1 if args.quick else 5
    sg = sglang()

    rows = []
    last: dict[str, tuple[int, float]] = {}
    for kib in sizes:
        code = code_of(kib << 10)
        text = call_of(code)
        row: dict[str, Any] = {"KiB": kib}
        row["ours one-shot"] = best(ours_one_shot(text, code), repeat)
        for n in (16, 4):
            row[f"ours {n}-char"] = best(ours_streamed(text, code, n), max(1, repeat // 2))
        if sg is not None:
            row["sglang one-shot"] = best(theirs_one_shot(sg, text, code), max(1, repeat // 2))
            for n in (16, 4):
                key = f"sglang {n}-char"
                prev = last.get(key)
                # Project from the last size assuming the worst seen so far, quadratic growth.
                if prev is not None and prev[1] * (kib / prev[0]) ** 2 > args.budget:
                    row[key] = None
                    continue
                run = theirs_streamed(sg, text, code, n)
                t0 = time.perf_counter()
                check_theirs_streamed(run, code)
                row[key] = time.perf_counter() - t0
                last[key] = (kib, row[key])
        rows.append(row)

    cols = list(rows[0].keys())
    print("\n" + " | ".join(f"{c:>15}" for c in cols))
    print(" | ".join("-" * 15 for _ in cols))
    for row in rows:
        print(" | ".join(f"{row[c] if c == 'KiB' else fmt(row[c]):>15}" for c in cols))
    print()
    for row in rows:
        kib = row["KiB"]
        mb = kib / 1024 * 1.048576
        line = [f"{kib} KiB: toolcall one-shot {mb / row['ours one-shot']:.0f} MB/s"]
        for n in (16, 4):
            line.append(f"{n}-char {mb / row[f'ours {n}-char']:.1f} MB/s")
        if sg is not None:
            line.append(f"one-shot speed-up over SGLang {row['sglang one-shot'] / row['ours one-shot']:.0f}x")
            for n in (16, 4):
                t = row.get(f"sglang {n}-char")
                if t is not None:
                    line.append(f"{n}-char {t / row[f'ours {n}-char']:.0f}x")
        print("; ".join(line))
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        k = b["KiB"] / a["KiB"]
        for key in [c for c in cols if c != "KiB"]:
            if a[key] and b[key]:
                print(f"{key}: {k:.0f}x the input took {b[key] / a[key]:.1f}x the time")


if __name__ == "__main__":
    main()
