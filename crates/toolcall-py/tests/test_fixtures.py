"""The dialect fixtures (toolcall-parser/tests/fixtures/dialects): every case of every dialect
this build reads, one-shot and streamed in random chunkings, through the Python package.

A case's dialect is its file's (``qwen3-coder-xml`` is ``qwen3-coder``); dialects the parser does
not read yet are skipped, so each one is tested here the day it lands in ``Dialect::ALL``. The
expectations are checked as the Rust test (``dialect_fixtures.rs``) checks them, and the cases
that test lists as deviations from the source's expectation are read from it.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, List

import pytest

import toolcall
from conftest import FIXTURES, as_dict, random_pieces, stream

RUST_TEST = FIXTURES.parents[1] / "dialect_fixtures.rs"


def deviations() -> set[str]:
    text = RUST_TEST.read_text(encoding="utf-8")
    block = text[text.index("const DEVIATIONS") :]
    block = block[: block.index("];")]
    return set(re.findall(r'\(\s*"([^"]+)"\s*,', block))


def load_cases() -> List[Any]:
    params = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            params.append(pytest.param(path.name, case, id=case["id"]))
    return params


CASES = load_cases()
DEVIATIONS = deviations()

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


def same(a: Any, b: Any) -> bool:
    """JSON equality: 1 equals 1.0, but 3 is not "3" and True is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
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
    mode = case.get("match") or "exact"
    expected = case.get("expected_calls")
    got = [(c["tool_name"], c["arguments"]) for c in r.calls]
    if isinstance(expected, list) and mode not in ("no_crash", "stream_equals_nonstream"):
        if mode == "contains" and len(got) < len(expected):
            return f"expected at least {len(expected)} calls, got {got}"
        if mode != "contains" and len(got) != len(expected):
            return f"expected {len(expected)} calls, got {got} (errors {r.errors})"
        for e, (name, args) in zip(expected, got):
            if e["name"] != name:
                return f"expected tool {e['name']}, got {name}"
            want = e.get("arguments")
            if mode == "name_only" or want is None:
                continue
            if mode == "subset":
                ok = all(k in args and same(v, args[k]) for k, v in want.items())
            else:
                ok = same(want, args)
            if not ok:
                return f"arguments: expected {want}, got {args}"
    want_prose = case.get("expected_content")
    if isinstance(want_prose, str):
        cm = case.get("content_match") or "exact"
        prose = r.prose
        ok = {
            "unchecked": True,
            "rstrip": prose.rstrip() == want_prose.rstrip(),
            "strip": prose.strip() == want_prose.strip(),
            "contains": want_prose in prose,
            "startswith": prose.startswith(want_prose),
            "contains_all": all(s in prose for s in case.get("content_contains") or []),
        }.get(cm, prose == want_prose)
        if not ok:
            return f"prose ({cm}): expected {want_prose!r}, got {prose!r}"
    return None


def runnable(file: str, case: dict[str, Any]) -> dict[str, Any]:
    opts = options(file, case)
    if opts["dialect"] not in toolcall.dialects():
        pytest.skip(f"dialect {opts['dialect']} is not in this build's Dialect::ALL")
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
        assert stream(pieces, **opts) == as_dict(whole), f"pieces {pieces[:8]}..."


@pytest.mark.parametrize("file,case", CASES)
def test_fixture_expectation(file: str, case: dict[str, Any]) -> None:
    opts = runnable(file, case)
    whole = toolcall.parse(case["input"], **opts)
    failure = expectation_failure(file, case, whole)
    if case["id"] in DEVIATIONS:
        assert failure is not None, "listed as a deviation in dialect_fixtures.rs, but passes"
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
