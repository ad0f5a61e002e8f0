"""`cargo xtask bench --vllm`: toolcall's vLLM plugin beside vLLM's own parsers, in vLLM.

For each dialect (Qwen3-Coder, GLM, MiniMax-M2) these tool parsers read the same `write_file`
call, whose `content` is N KiB of dense code:

- ours: the plugin's `toolcall-<dialect>`, loaded as `vllm serve --tool-parser-plugin` loads it
  (`ToolParserManager.import_tool_parser`);
- vLLM's: its built-in parser for the dialect (`qwen3_coder`, `glm47`, `minimax_m2`);
- floor: a ToolParser whose `extract_tool_calls_streaming` returns None: what the driver itself
  costs.

Each is driven as vLLM's serving layer drives a tool parser (`Parser.parse_delta`, the legacy
path of `StreamState.advance`/`commit`): one `extract_tool_calls_streaming(previous_text,
current_text, delta_text, previous_token_ids, current_token_ids, delta_token_ids, request)` per
delta, `current_text = previous_text + delta_text` and `previous_token_ids + delta_token_ids`
built anew each time, then `finish_streaming()` and `get_remaining_unstreamed_args()` at the
end. The tokenizer is character-level (one token per byte of this ASCII input; the dialect's
markers one special token each), and a delta is 1 or 4 tokens. The deltas are decoded before the
clock starts: detokenizing is not the parser's work.

The seconds are CPU seconds of the driving thread (`time.thread_time`): the machine this runs on
is shared, and wall time there measures the neighbours too (wall seconds are printed beside
them as the run goes). Besides, the wall time inside the parser's calls is summed (a clock read
around each call, in every run, the floor's included). "Own" is a parser's time less the
floor's, as the issue defines it; "in-call own" is the same difference over the in-call sums,
which leaves out the driver's quadratic copying and so is steadier at large sizes. A fourth
parser, the message floor, returns one DeltaMessage holding the delta as an argument fragment
per delta: what any parser that streams an argument pays at the least. Ours and the floors run
`--repeat` times (one fewer above 32 KiB), the best kept; vLLM's once.

A run of vLLM's parser that passes --limit CPU seconds (default 60) is stopped there and reported
as such; larger sizes of it are then not run. Our plugin's output is checked: its argument
deltas concatenate to the arguments JSON of the one-shot `extract_tool_calls`, and that JSON's
`content` is the input's code.

At the end, ours and the floors are timed again per delta without the driver's copies (the
accumulated arguments passed empty: no parser here reads them), at the smallest and the largest
size: whether the plugin's own work per delta stays flat, which the subtraction cannot show at
128 KiB, where the driver's copying dwarfs it (`--without-driver-only`: that part alone).

    python bench_vllm.py [--sizes 4,16,32,128] [--vllm-sizes 4,16,32] [--deltas 1,4]
                         [--dialects qwen3-coder,glm,minimax-m2] [--repeat 3] [--limit 60]
                         [--quick] [--without-driver-only]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time
from typing import Any, List, Optional, Sequence

from bench_qwen3_coder import code_of

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
from vllm.entrypoints.generate.base.protocol import DeltaMessage
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

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

PROSE = "I'll write the file.\n"

# Per dialect: vLLM's parser, the markers that are special tokens in the model's tokenizer, and
# the call around the code (values as the model's chat template lays them out).
DIALECTS = {
    "qwen3-coder": (
        "qwen3_coder",
        ["<tool_call>", "</tool_call>"],
        lambda code: PROSE + "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/big.rs\n"
        "</parameter>\n<parameter=content>\n" + code + "\n</parameter>\n</function>\n</tool_call>",
    ),
    "glm": (
        "glm47",
        ["<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"],
        lambda code: PROSE + "<tool_call>write_file<arg_key>path</arg_key><arg_value>src/big.rs"
        "</arg_value><arg_key>content</arg_key><arg_value>" + code + "</arg_value></tool_call>",
    ),
    "minimax-m2": (
        "minimax_m2",
        ["<minimax:tool_call>", "</minimax:tool_call>"],
        lambda code: PROSE + '<minimax:tool_call>\n<invoke name="write_file">\n'
        '<parameter name="path">src/big.rs</parameter>\n<parameter name="content">' + code
        + "</parameter>\n</invoke>\n</minimax:tool_call>",
    ),
}


class FloorToolParser(ToolParser):
    """The driver's floor: reads nothing, returns nothing."""

    def extract_tool_calls_streaming(self, *args: Any, **kwargs: Any) -> None:
        return None


class MessageFloorToolParser(ToolParser):
    """What any parser that streams an argument costs at the least: one DeltaMessage per delta
    holding one fragment (the delta itself), nothing read; built the cheapest way found (one
    `model_validate` of plain dicts, as the plugin does)."""

    def extract_tool_calls_streaming(
        self, previous_text: str, current_text: str, delta_text: str, *args: Any, **kwargs: Any
    ) -> DeltaMessage:
        return DeltaMessage.model_validate(
            {"tool_calls": [{"index": 0, "function": {"arguments": delta_text}}]}
        )


def tokenizer_for(markers: List[str]) -> Any:
    """One token per character (printable ASCII and newline); `markers` one special token each."""
    vocab = {"[UNK]": 0}
    for c in [chr(c) for c in range(32, 127)] + ["\n"]:
        vocab.setdefault(c, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tok.decoder = decoders.Fuse()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]")
    fast.add_special_tokens({"additional_special_tokens": markers})
    return fast


def request() -> ChatCompletionRequest:
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "go"}], tools=TOOLS, tool_choice="auto"
    )


def code_without_final_newline(size: int) -> str:
    # The layout newline before the closing tag is the template's, not the code's.
    return code_of(size).rstrip("\n")


class Stream:
    """The tool calls' names and argument texts, by index, as a client concatenates them."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.args: dict[int, List[str]] = {}
        self.last: Optional[int] = None

    def add(self, m: Any) -> None:
        if isinstance(m, str):  # get_remaining_unstreamed_args: appended to the last call
            if m and self.last is not None:
                self.args.setdefault(self.last, []).append(m)
            return
        if m is None:
            return
        for tc in m.tool_calls or []:
            self.last = tc.index
            if tc.function is not None:
                if tc.function.name:
                    self.names[tc.index] = tc.function.name
                if tc.function.arguments:
                    self.args.setdefault(tc.index, []).append(tc.function.arguments)

    def calls(self) -> tuple[List[str], List[str]]:
        order = sorted(self.names)
        return [self.names[i] for i in order], ["".join(self.args.get(i, [])) for i in order]


class Run:
    def __init__(self, seconds: float, wall: float, in_call: float, stream: Optional[Stream],
                 done: float) -> None:
        self.seconds = seconds  # CPU seconds of the driving thread
        self.wall = wall
        self.in_call = in_call
        self.stream = stream
        self.done = done  # the fraction of the deltas fed (below 1: stopped at the limit)


def drive(tok: Any, cls: Any, deltas: Sequence[tuple[str, List[int]]], limit: float,
          collect: bool = False) -> Run:
    """The serving layer's legacy streaming path for one request, clocked. Messages are
    dropped as the serving layer drops them once sent, or with `collect` read into a Stream
    (outside the in-call clock)."""
    req = request()
    parser = cls(tok, req.tools)
    if hasattr(parser, "skip_reasoning_parsing"):
        # As Parser.__init__ does when no reasoning parser is configured.
        parser.skip_reasoning_parsing = True
    req = parser.adjust_request(req)
    stream = Stream() if collect else None
    clock = time.perf_counter
    previous_text = ""
    previous_token_ids: List[int] = []
    in_call = 0.0
    gc.collect()
    cpu = time.thread_time
    start, cpu_start = clock(), cpu()
    n = 0
    for n, (delta_text, delta_token_ids) in enumerate(deltas, 1):
        current_text = previous_text + delta_text
        current_token_ids = previous_token_ids + delta_token_ids
        t = clock()
        msg = parser.extract_tool_calls_streaming(
            previous_text, current_text, delta_text, previous_token_ids, current_token_ids,
            delta_token_ids, req,
        )
        in_call += clock() - t
        if stream is not None:
            stream.add(msg)
        previous_text = current_text
        previous_token_ids = current_token_ids
        if n & 255 == 0 and cpu() - cpu_start > limit:
            return Run(cpu() - cpu_start, clock() - start, in_call, stream, n / len(deltas))
    t = clock()
    finish = getattr(parser, "finish_streaming", None)
    last = finish() if finish is not None else None
    rest = parser.get_remaining_unstreamed_args()
    in_call += clock() - t
    seconds, wall = cpu() - cpu_start, clock() - start
    if stream is not None:
        stream.add(last)
        stream.add(rest)
    return Run(seconds, wall, in_call, stream, 1.0)


def deltas_of(tok: Any, text: str, step: int) -> List[tuple[str, List[int]]]:
    ids = tok.encode(text, add_special_tokens=False)
    deltas = [
        (tok.decode(ids[i : i + step], skip_special_tokens=False), ids[i : i + step])
        for i in range(0, len(ids), step)
    ]
    assert "".join(d for d, _ in deltas) == text, "the tokenizer does not round-trip"
    return deltas


def alone(tok: Any, cls: Any, deltas: Sequence[tuple[str, List[int]]], repeat: int) -> float:
    """CPU seconds per delta of the parser's calls alone: the same deltas and request, no text
    or id lists built (`previous_text` and the rest passed empty; no parser here reads them)."""
    best = float("inf")
    for _ in range(repeat):
        req = request()
        parser = cls(tok, req.tools)
        if hasattr(parser, "skip_reasoning_parsing"):
            parser.skip_reasoning_parsing = True
        req = parser.adjust_request(req)
        call = parser.extract_tool_calls_streaming
        gc.collect()
        start = time.thread_time()
        for delta_text, delta_token_ids in deltas:
            call("", delta_text, delta_text, [], delta_token_ids, delta_token_ids, req)
        finish = getattr(parser, "finish_streaming", None)
        if finish is not None:
            finish()
        parser.get_remaining_unstreamed_args()
        best = min(best, time.thread_time() - start)
    return best / len(deltas)


def without_driver(dialects: List[str], steps: List[int], sizes: List[int], repeat: int) -> None:
    """Ours and the floors per delta without the driver's copies, at the smallest and largest
    size: whether the parser's own work per delta stays flat."""
    print()
    print("Without the driver's copies (CPU per delta, best of "
          f"{repeat}; vLLM's parsers not run here):")
    print()
    print("| dialect | delta (tokens) | KiB | floor | message floor | ours |")
    print("|---|---|---|---|---|---|")
    ends = sorted({min(sizes), max(sizes)})
    for dialect in dialects:
        _, markers, call_of = DIALECTS[dialect]
        tok = tokenizer_for(markers)
        ours_cls = ToolParserManager.get_tool_parser(f"toolcall-{dialect}")
        for step in steps:
            per: List[float] = []
            for kib in ends:
                deltas = deltas_of(tok, call_of(code_without_final_newline(kib << 10)), step)
                floor, msg, ours = (alone(tok, c, deltas, repeat) for c in
                                    (FloorToolParser, MessageFloorToolParser, ours_cls))
                per.append(ours - floor)
                print(f"| {dialect} | {step} | {kib} | {floor * 1e6:.2f} µs | {msg * 1e6:.2f} µs "
                      f"| {ours * 1e6:.2f} µs |", flush=True)
            if len(per) == 2 and per[0] > 0:
                verdict = "met" if per[1] <= 1.5 * per[0] else "MISSED"
                print(f"|  | {step} | per delta, {ends[1]} ÷ {ends[0]} KiB (ours less the floor) "
                      f"| | | {per[1] / per[0]:.2f}× ({verdict}) |")


def content_of(arguments: str) -> Optional[str]:
    try:
        return json.loads(arguments).get("content")
    except (ValueError, AttributeError):
        return None


def fmt(seconds: Optional[float]) -> str:
    if seconds is None:
        return "–"
    if abs(seconds) < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if abs(seconds) < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def machine() -> str:
    try:
        load = os.getloadavg()
        load_s = f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    except OSError:
        load_s = "load ?"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores visible, {load_s}, Python {platform.python_version()}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="4,16,32,128", help="content sizes in KiB")
    ap.add_argument("--vllm-sizes", default="4,16,32", help="sizes vLLM's parsers read")
    ap.add_argument("--deltas", default="1,4", help="tokens per delta")
    ap.add_argument("--dialects", default=",".join(DIALECTS))
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of ours and of the floor per case (the best is kept)")
    ap.add_argument("--limit", type=float, default=60.0,
                    help="CPU seconds after which a run of vLLM's parser is stopped")
    ap.add_argument("--quick", action="store_true", help="4 KiB, 4-token deltas, one run")
    ap.add_argument("--without-driver-only", action="store_true",
                    help="only the per-delta figures without the driver's copies")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    vllm_sizes = {int(s) for s in args.vllm_sizes.split(",")}
    steps = [int(s) for s in args.deltas.split(",")]
    dialects = args.dialects.split(",")
    repeat = args.repeat
    if args.quick:
        sizes, vllm_sizes, steps, repeat = [4], {4}, [4], 1

    import vllm

    path = subprocess.run(
        [sys.executable, "-m", "toolcall.vllm", "--path"], check=True, capture_output=True,
        text=True,
    ).stdout.strip()
    ToolParserManager.import_tool_parser(path)
    print(f"vLLM {vllm.__version__}; {machine()}")
    if args.without_driver_only:
        without_driver(dialects, steps, sizes, repeat)
        return 0

    rows: List[dict[str, Any]] = []
    for dialect in dialects:
        theirs_name, markers, call_of = DIALECTS[dialect]
        tok = tokenizer_for(markers)
        ours_cls = ToolParserManager.get_tool_parser(f"toolcall-{dialect}")
        theirs_cls = ToolParserManager.get_tool_parser(theirs_name)
        for step in steps:
            stopped = False
            for kib in sizes:
                code = code_without_final_newline(kib << 10)
                text = call_of(code)
                deltas = deltas_of(tok, text, step)
                row: dict[str, Any] = {"dialect": dialect, "step": step, "kib": kib,
                                       "deltas": len(deltas)}

                def best(cls: Any, n: int) -> Run:
                    runs = [drive(tok, cls, deltas, float("inf")) for _ in range(n)]
                    return min(runs, key=lambda r: r.seconds)

                runs = repeat if kib <= 32 else max(1, repeat - 1)
                floor = best(FloorToolParser, runs)
                ours = best(ours_cls, runs)
                messages = best(MessageFloorToolParser, runs)
                row["floor"], row["floor_in"] = floor.seconds, floor.in_call
                row["ours"], row["ours_in"] = ours.seconds, ours.in_call
                row["msg"], row["msg_in"] = messages.seconds, messages.in_call
                row["ours_wall"], row["floor_wall"] = ours.wall, floor.wall
                checked = drive(tok, ours_cls, deltas, float("inf"), collect=True)
                assert checked.stream is not None
                names, arguments = checked.stream.calls()
                row["fragments"] = len(checked.stream.args.get(0, []))
                one_shot = ours_cls(tok, request().tools).extract_tool_calls(text, request())
                row["ok"] = (
                    names == ["write_file"]
                    and [c.function.arguments for c in one_shot.tool_calls] == arguments
                    and content_of(arguments[0]) == code
                )
                row["theirs"] = row["theirs_in"] = row["theirs_ok"] = None
                row["theirs_note"] = ""
                row["theirs_stopped"] = None
                if kib in vllm_sizes and not stopped:
                    theirs = drive(tok, theirs_cls, deltas, args.limit, collect=True)
                    if theirs.done < 1:
                        stopped = True
                        row["theirs_stopped"] = theirs.seconds
                        row["theirs_note"] = (
                            f"stopped at {theirs.seconds:.0f} s CPU, {theirs.done:.0%} of the "
                            "deltas"
                        )
                    else:
                        row["theirs"], row["theirs_in"] = theirs.seconds, theirs.in_call
                        row["theirs_wall"] = theirs.wall
                        assert theirs.stream is not None
                        t_names, t_args = theirs.stream.calls()
                        row["theirs_ok"] = t_names == ["write_file"] and content_of(
                            t_args[0] if t_args else ""
                        ) == code
                elif kib in vllm_sizes:
                    row["theirs_note"] = "not run (stopped at a smaller size)"
                rows.append(row)
                print(
                    f"{dialect:>11} {step}-token {kib:>4} KiB (CPU; wall in brackets): floor "
                    f"{fmt(row['floor'])} ({fmt(row['floor_wall'])}), ours {fmt(row['ours'])} "
                    f"({fmt(row['ours_wall'])}), message floor {fmt(row['msg'])}, vLLM's "
                    f"{fmt(row['theirs'])} ({fmt(row.get('theirs_wall'))}) {row['theirs_note']}",
                    flush=True,
                )

    report(rows)
    without_driver(dialects, steps, sizes, repeat)
    return 0 if all(r["ok"] for r in rows) else 1


def report(rows: List[dict[str, Any]]) -> None:
    print()
    print("CPU seconds of the driving thread; in-call: wall time inside the parser's calls.")
    print()
    print("| dialect | delta (tokens) | KiB | deltas | floor | message floor | ours | vLLM's "
          "| ours / floor | ours own | ours own in-call | vLLM's own | vLLM's own / ours own "
          "| ours: fragments | ours correct |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        own = r["ours"] - r["floor"]
        own_in = r["ours_in"] - r["floor_in"]
        theirs_own = None if r["theirs"] is None else r["theirs"] - r["floor"]
        ratio = "–" if theirs_own is None else f"{theirs_own / own:.0f}×"
        if r["theirs_stopped"] is not None:
            # Its whole run would have taken longer than the part that ran.
            ratio = f"> {(r['theirs_stopped'] - r['floor']) / own:.0f}×"
        theirs = fmt(r["theirs"]) if r["theirs"] is not None else (r["theirs_note"] or "–")
        print(f"| {r['dialect']} | {r['step']} | {r['kib']} | {r['deltas']} | {fmt(r['floor'])} "
              f"| {fmt(r['msg'])} | {fmt(r['ours'])} | {theirs} | {r['ours'] / r['floor']:.2f} "
              f"| {fmt(own)} | {fmt(own_in)} | {fmt(theirs_own)} | {ratio} | {r['fragments']} "
              f"| {'yes' if r['ok'] else 'NO'} |")
    print()
    print("Per delta, in the parser's calls (µs; the floor's call subtracted):")
    for r in rows:
        n = r["deltas"]
        print(f"- {r['dialect']} {r['step']}-token {r['kib']} KiB: ours "
              f"{(r['ours_in'] - r['floor_in']) / n * 1e6:.1f}, message floor "
              f"{(r['msg_in'] - r['floor_in']) / n * 1e6:.1f}, driver (floor total / deltas) "
              f"{r['floor'] / n * 1e6:.1f}")
    print()
    print("Targets (own = time less the floor's):")
    by = {(r["dialect"], r["step"], r["kib"]): r for r in rows}
    worst = max(rows, key=lambda r: r["ours"] / r["floor"])
    verdict = "met" if worst["ours"] / worst["floor"] <= 2 else "MISSED"
    print(f"- ours at most 2x the floor at every size: {verdict} (worst "
          f"{worst['ours'] / worst['floor']:.2f}x, {worst['dialect']} {worst['step']}-token "
          f"{worst['kib']} KiB; the message floor there: "
          f"{worst['msg'] / worst['floor']:.2f}x)")
    for (dialect, step, kib), r in sorted(by.items()):
        if kib != 32:
            continue
        if r["theirs"] is not None:
            own, theirs_own = r["ours"] - r["floor"], r["theirs"] - r["floor"]
            verdict = "met" if theirs_own >= 100 * own else "MISSED"
            print(f"- own work 100x below vLLM's at 32 KiB, {dialect} {step}-token: "
                  f"{theirs_own / own:.0f}x ({verdict})")
        else:
            # The last size vLLM's parser ran, or was stopped at: a lower bound.
            lower = [x for (d, st, _), x in sorted(by.items())
                     if d == dialect and st == step and x["kib"] < 32
                     and (x["theirs"] is not None or x["theirs_stopped"] is not None)]
            note = ""
            if lower:
                x = lower[-1]
                t = x["theirs"] if x["theirs"] is not None else x["theirs_stopped"]
                own = x["ours"] - x["floor"]
                note = (f"; at {x['kib']} KiB vLLM's own was "
                        f"{'more than ' if x['theirs'] is None else ''}{(t - x['floor']) / own:.0f}x"
                        f" ours")
            print(f"- own work 100x below vLLM's at 32 KiB, {dialect} {step}-token: vLLM's "
                  f"{r['theirs_note'] or 'not run'}{note}")
    for (dialect, step, kib), r in sorted(by.items()):
        small = by.get((dialect, step, 4))
        if kib != 128 or small is None:
            continue
        per = [(x["ours"] - x["floor"]) / x["kib"] for x in (small, r)]
        per_in = [(x["ours_in"] - x["floor_in"]) / x["kib"] for x in (small, r)]
        if min(per) <= 0:
            # Below the floor: the difference is within the floor's run-to-run spread.
            verdict, ratio = "undecided: own work within the floor's noise", "–"
        else:
            verdict = "met" if per[1] <= 1.5 * per[0] else "MISSED"
            ratio = f"{per[1] / per[0]:.2f}x"
        print(f"- own work per byte, 128 KiB vs 4 KiB, {dialect} {step}-token: "
              f"{ratio} ({verdict}); in-call: {per_in[1] / per_in[0]:.2f}x")
    print(f"- ours correct (argument deltas concatenate to the final arguments JSON, content "
          f"equals the input) in every run: {'yes' if all(r['ok'] for r in rows) else 'NO'}")
    checked = [r for r in rows if r["theirs_ok"] is not None]
    if checked:
        print(f"- vLLM's parser's streamed content equals the input: "
              f"{'yes' if all(r['theirs_ok'] for r in checked) else 'NO'} "
              f"({sum(bool(r['theirs_ok']) for r in checked)} of {len(checked)} runs)")


if __name__ == "__main__":
    sys.exit(main())
