"""The dialect fixtures (toolcall-parser/tests/fixtures/dialects): every case of every dialect
this build reads, one-shot and streamed in random chunkings, through the Python package.

A case's dialect is its file's (``qwen3-coder-xml`` is ``qwen3-coder``); dialects the parser does
not read yet are skipped, so each one is tested here the day it lands in ``Dialect::ALL``. The
expectations are checked as the Rust test (``dialect_fixtures.rs``) checks them, and the cases
that deviate from the source's expectation are those that test lists, and those whose line says
so (``deviation``).
"""

from __future__ import annotations

import json
import math
import random
import re
from decimal import Decimal
from typing import Any, Dict, List

import pytest

import toolcall
from conftest import FIXTURES, as_dict, random_pieces, stream

RUST_TEST = FIXTURES.parents[1] / "dialect_fixtures.rs"


def deviations() -> set[str]:
    text = RUST_TEST.read_text(encoding="utf-8")
    block = text[text.index("const DEVIATIONS") :]
    block = block[: block.index("];")]
    return set(re.findall(r'\(\s*"([^"]+)"\s*,', block))


# Each case as read with its numbers exact (``Decimal``), for the expectations: a number compares
# by its exact decimal value, as in dialect_fixtures.rs.
EXACT: Dict[str, Any] = {}


def load_cases() -> List[Any]:
    params = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            EXACT[case["id"]] = json.loads(line, parse_float=Decimal)
            params.append(pytest.param(path.name, case, id=case["id"]))
    return params


CASES = load_cases()
DEVIATIONS = deviations()


def deviates(case: dict[str, Any]) -> bool:
    return case["id"] in DEVIATIONS or isinstance(case.get("deviation"), str)

def dialect_of(case: dict[str, Any]) -> str:
    name = case["dialect"]
    return name[: -len("-xml")] if name.endswith("-xml") else name


def options(file: str, case: dict[str, Any]) -> dict[str, Any]:
    opts: dict[str, Any] = {"dialect": dialect_of(case), "tools": case.get("tools")}
    # As dialect_fixtures.rs does: the reasoning cases, and any case that expects reasoning split
    # off, are read as a server reads them, with the reasoning channel on (``reasoning_open`` when
    # the prompt opened the block).
    if file == "reasoning.jsonl" or case.get("expected_reasoning") is not None:
        opts["reasoning"] = True
        opts["reasoning_open"] = bool(case.get("reasoning_start_in_prompt"))
    return opts


def exact(x: Any) -> Decimal:
    """A number's exact decimal value; a float's is that of its shortest text."""
    return Decimal(repr(x)) if isinstance(x, float) else Decimal(x)


def json_form(x: Any) -> Any:
    """`x` as the JSON output writes it: a non-finite float is the string `NaN`, `+Inf` or
    `-Inf` (docs/FORMAT.md §5.1), as the Rust test compares it; other values as they are, lists
    and dicts throughout (so that `NaN` equals `NaN`, as the package's values compare)."""
    if isinstance(x, float) and not math.isfinite(x):
        return "NaN" if math.isnan(x) else ("+Inf" if x > 0 else "-Inf")
    if isinstance(x, list):
        return [json_form(v) for v in x]
    if isinstance(x, dict):
        return {k: json_form(v) for k, v in x.items()}
    return x


def same(a: Any, b: Any) -> bool:
    """JSON equality: numbers by exact decimal value (1 equals 1.0, 9007199254740992.5 is not
    9007199254740992.0), but 3 is not "3" and True is not 1; a non-finite float is its JSON
    spelling ([`json_form`])."""
    a, b = json_form(a), json_form(b)
    number = (int, float, Decimal)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, number) and isinstance(b, number):
        return exact(a) == exact(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())
    return type(a) is type(b) and a == b


def expectation_failure(file: str, case: dict[str, Any], r: toolcall.ParseResult) -> str | None:
    """Why the result misses the case's expectation, or None."""
    if file == "reasoning.jsonl" or case.get("expected_reasoning") is not None:
        want = case.get("expected_reasoning")
        if want is not None and r.reasoning != want:
            return f"reasoning: expected {want!r}, got {r.reasoning!r}"
        if case.get("stage") == "reasoning_parser":
            return None  # the source checks the split only
    case = EXACT[case["id"]]
    mode = case.get("match") or "exact"
    expected = case.get("expected_calls")
    got = [(c["tool_name"], c["arguments"]) for c in r.calls]

    def subset(want: Any, args: Any) -> bool:
        return isinstance(args, dict) and all(
            k in args and same(v, args[k]) for k, v in want.items()
        )

    if isinstance(expected, list) and mode != "no_crash":
        if mode == "contains":
            # Each expected call is among the calls, in order; its arguments, when given, as a
            # subset.
            rest = iter(got)
            for e in expected:
                want = e.get("arguments")
                if not any(
                    name == e["name"] and (want is None or subset(want, args))
                    for name, args in rest
                ):
                    return f"expected a call {e} in order among {got}"
        else:
            if len(got) != len(expected):
                return f"expected {len(expected)} calls, got {got} (errors {r.errors})"
            for e, (name, args) in zip(expected, got):
                if e["name"] != name:
                    return f"expected tool {e['name']}, got {name}"
                want = e.get("arguments")
                if mode == "name_only" or want is None:
                    continue
                ok = subset(want, args) if mode == "subset" else same(want, args)
                if not ok:
                    return f"arguments: expected {want}, got {args}"

    def text(args: Any) -> str:
        return json.dumps(args, ensure_ascii=False, separators=(",", ":"))

    for i, (want, (_, args)) in enumerate(zip(case.get("expected_arguments_text") or [], got)):
        if text(args) != want:
            return f"call {i}: arguments text {text(args)}, expected {want}"
    keys = case.get("expected_keys")
    if isinstance(keys, list) and got and list(got[0][1]) != keys:
        return f"argument names {list(got[0][1])}, expected {keys}"
    for i, (absent, (_, args)) in enumerate(zip(case.get("expected_absent_keys") or [], got)):
        for k in [absent] if isinstance(absent, str) else absent:
            if k in args:
                return f"call {i}: argument {k!r} present, expected absent"
    contains = case.get("argument_contains")
    if not isinstance(contains, list):
        first = case.get("arg_contains")
        contains = [first] if isinstance(first, dict) else []
    for i, (want, (_, args)) in enumerate(zip(contains, got)):
        for k, subs in want.items():
            value = args.get(k)
            for sub in [subs] if isinstance(subs, str) else subs:
                if not isinstance(value, str) or sub not in value:
                    return f"call {i}: argument {k!r} = {value!r} does not contain {sub!r}"
    banned = case.get("args_not_contain")
    for sub in [banned] if isinstance(banned, str) else banned or []:
        for name, args in got:
            if sub in text(args):
                return f"the arguments of {name} contain {sub!r}"

    prose = r.prose
    cm = case.get("content_match") or "exact"
    listed = case.get("content_contains")
    if cm == "contains_all" or (cm == "contains" and listed is not None):
        missing = [s for s in listed or [] if s not in prose]
        if missing:
            return f"prose lacks {missing[0]!r}: {prose!r}"
    else:
        want_prose = case.get("expected_content")
        if isinstance(want_prose, str):
            ok = {
                "unchecked": True,
                "rstrip": prose.rstrip() == want_prose.rstrip(),
                "strip": prose.strip() == want_prose.strip(),
                "contains": want_prose in prose,
                "startswith": prose.startswith(want_prose),
            }.get(cm, prose == want_prose)
            if not ok:
                return f"prose ({cm}): expected {want_prose!r}, got {prose!r}"
    for field in ("content_excludes", "content_not_contains"):
        for sub in case.get(field) or []:
            if sub in prose:
                return f"prose contains {sub!r}: {prose!r}"
    return None


def runnable(file: str, case: dict[str, Any]) -> dict[str, Any]:
    opts = options(file, case)
    if opts["dialect"] not in toolcall.dialects():
        pytest.skip(f"dialect {opts['dialect']} is not in this build's Dialect::ALL")
    try:
        toolcall.parse("", **opts)
    except toolcall.ToolsError as e:
        # The package reads Python values at most 128 levels deep (as serde_json reads the CLI's
        # --schema); the Rust test reads such tools whole.
        if "nested deeper" not in str(e):
            raise
        pytest.skip(f"the case's tools are deeper than the package reads: {e}")
    return opts


@pytest.mark.parametrize("file,case", CASES)
def test_fixture_streamed_equals_one_shot(file: str, case: dict[str, Any]) -> None:
    opts = runnable(file, case)
    text = case["input"]
    whole = toolcall.parse(text, **opts)

    # Streamed in any chunking, the same calls, errors, prose and reasoning.
    rng = random.Random(case["id"])
    chunkings = [random_pieces(text, rng, n) for n in (1, 2, 4, 7, 16, 64)]
    chunkings.append([text])
    if isinstance(case.get("chunks"), list):
        chunkings.append(case["chunks"])
    for pieces in chunkings:
        assert "".join(pieces) == text
        streamed, one_shot = json_form(stream(pieces, **opts)), json_form(as_dict(whole))
        assert streamed == one_shot, f"pieces {pieces[:8]}..."


@pytest.mark.parametrize("file,case", CASES)
def test_fixture_expectation(file: str, case: dict[str, Any]) -> None:
    opts = runnable(file, case)
    whole = toolcall.parse(case["input"], **opts)
    failure = expectation_failure(file, case, whole)
    if deviates(case):
        assert failure is not None, "marked as a deviation, but passes"
    else:
        assert failure is None, failure


def test_every_fixture_file_is_read() -> None:
    files = {p.name for p in FIXTURES.glob("*.jsonl")}
    assert {"qwen3-coder-xml.jsonl", "seed-oss-xml.jsonl"} <= files
    runnable = [
        c for c in CASES if dialect_of(c.values[1]) in toolcall.dialects()
    ]
    # qwen3-coder (68) and seed-oss (7) at least.
    assert len(runnable) >= 75
    assert len(DEVIATIONS) >= 4
