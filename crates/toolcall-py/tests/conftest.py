"""Shared helpers: replaying text through a StreamParser and folding its events."""

from __future__ import annotations

import pathlib
import random
from typing import Any, Iterable, List

import toolcall

CRATE = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = CRATE.parent / "toolcall-parser" / "tests" / "fixtures" / "dialects"


def fold(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Stream events folded as one-shot parsing folds them: calls, errors, prose, reasoning."""
    calls: List[Any] = []
    errors: List[Any] = []
    prose: List[str] = []
    reasoning: List[str] = []
    for e in events:
        kind = e["event"]
        if kind == "prose":
            prose.append(e["text"])
        elif kind == "reasoning":
            reasoning.append(e["text"])
        elif kind == "call_finished":
            if "call" in e:
                calls.append(e["call"])
            else:
                errors.append(e["error"])
        elif kind == "error":
            errors.append(e["error"])
    return {
        "calls": calls,
        "errors": errors,
        "prose": "".join(prose),
        "reasoning": "".join(reasoning),
    }


def as_dict(r: toolcall.ParseResult) -> dict[str, Any]:
    return {"calls": r.calls, "errors": r.errors, "prose": r.prose, "reasoning": r.reasoning}


def stream(pieces: Iterable[str], **options: Any) -> dict[str, Any]:
    p = toolcall.StreamParser(**options)
    events: List[dict[str, Any]] = []
    for piece in pieces:
        events.extend(p.feed(piece))
    events.extend(p.finish())
    return fold(events)


def random_pieces(text: str, rng: random.Random, longest: int) -> List[str]:
    """``text`` cut at random places into pieces of 1 to ``longest`` characters."""
    pieces = []
    i = 0
    while i < len(text):
        n = rng.randint(1, longest)
        pieces.append(text[i : i + n])
        i += n
    return pieces
