"""Tool calls out of what an LLM wrote: found in prose, read correctly, typed, streamed.

The parser is Rust (``toolcall._native``); this module is its Python face::

    import toolcall

    r = toolcall.parse(reply, dialect="qwen3-coder", tools=openai_tools)
    for call in r.calls:
        run(call["tool_name"], call["arguments"])
    for error in r.errors:
        send_back(error["feedback"])     # tells the model what to fix and how

    p = toolcall.StreamParser(dialect="qwen3-coder")
    for chunk in stream:
        for event in p.feed(chunk):
            ...                          # {"event": "argument_delta", ...}
    events = p.finish()

Dialects: ``toolcall.dialects()`` (``tool``, the default, ``qwen3-coder``, ``seed-oss``,
``hermes``, and every dialect the Rust parser gains). Tools are OpenAI's list
(``[{"type": "function", "function": {"name", "parameters"}}]``) or MCP's
(``[{"name", "inputSchema"}]``); with them, arguments are typed by each tool's schema.
"""

from __future__ import annotations

import json as _json
from dataclasses import dataclass, field
from typing import Any, List, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union

from . import _native
from ._errors import (
    DialectError,
    Error,
    InputError,
    OptionsError,
    StateError,
    ThreadError,
    ToolsError,
)

__all__ = [
    "parse",
    "ParseResult",
    "StreamParser",
    "OpenAIDeltas",
    "serialize_thread",
    "system_prompt",
    "dialects",
    "ToolCall",
    "CallError",
    "Repair",
    "ArgumentEncoding",
    "Event",
    "Delta",
    "Tools",
    "Error",
    "DialectError",
    "ToolsError",
    "InputError",
    "OptionsError",
    "ThreadError",
    "StateError",
    "__version__",
]

__version__: str = _native.__version__

#: A tool list: OpenAI's ``[{"type": "function", "function": {...}}]`` or MCP's
#: ``[{"name", "inputSchema"}]`` (the two may be mixed), or ``{"tools": [...]}``.
Tools = Union[Sequence[Mapping[str, Any]], Mapping[str, Any]]

#: Offsets into the text, in characters (``text[start:end]``), end exclusive.
Span = Tuple[int, int]


class Repair(TypedDict):
    """Something malformed that was read in the one sensible way, and where."""

    kind: str
    line: int
    column: int


class ArgumentEncoding(TypedDict):
    """How one top-level argument was written (plain, entity_escaped, cdata, raw, json, ...)."""

    argument: str
    encoding: str


class ToolCall(TypedDict):
    """One call, ready to run."""

    tool_name: str
    server_name: str
    #: Plain Python values: dict, list, str, int (exact at any size), float, bool, None.
    arguments: dict[str, Any]
    repairs: List[Repair]
    encodings: List[ArgumentEncoding]
    legacy_json: bool
    span: Span


class CallError(TypedDict):
    """A call (or the input) that could not be read; ``feedback`` is the text for the model."""

    kind: str
    message: str
    line: int
    column: int
    snippet: str
    tool_name: Optional[str]
    #: An unterminated call's arguments so far.
    partial: Optional[dict[str, Any]]
    #: For ``limit_exceeded``: which limit.
    limit: Optional[str]
    feedback: str
    span: Span


#: A streaming event: ``{"event": "prose" | "reasoning" | "call_started" | "tool_name" |
#: "argument_delta" | "call_finished" | "reasoning_call" | "error", ...}`` (``call_finished`` and
#: ``reasoning_call`` hold ``call`` or ``error``), as ``toolcall stream`` prints them.
Event = dict[str, Any]

CallsInReasoning = Literal["end", "text", "flag"]


@dataclass(frozen=True)
class ParseResult:
    """Everything in one response: the calls to run, the errors to report, the prose to show."""

    calls: List[ToolCall]
    errors: List[CallError]
    #: The text outside calls (and outside reasoning, when it is split off).
    prose: str
    #: The reasoning block's text ("" unless ``reasoning`` or ``reasoning_open`` was set).
    reasoning: str
    #: Calls written inside reasoning (``calls_in_reasoning="flag"``): never among ``calls``.
    reasoning_calls: List[ToolCall] = field(default_factory=list)
    #: Calls written inside reasoning that could not be read (``calls_in_reasoning="flag"``).
    reasoning_errors: List[CallError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether nothing failed."""
        return not self.errors


def parse(
    text: str,
    dialect: str = "tool",
    tools: Optional[Tools] = None,
    reasoning: bool = False,
    reasoning_open: bool = False,
    calls_in_reasoning: CallsInReasoning = "end",
) -> ParseResult:
    """Parses a whole response.

    ``dialect``: the tool-call format (:func:`dialects`). ``tools``: tool definitions whose
    schemas type the arguments. ``reasoning``: split the dialect's think block off (its text goes
    to ``reasoning``); ``reasoning_open``: the output starts inside it (the chat template opened
    it); ``calls_in_reasoning``: ``"end"`` (a call ends reasoning and is parsed), ``"text"`` (it
    stays reasoning text) or ``"flag"`` (it is parsed and reported apart, in ``reasoning_calls``
    and ``reasoning_errors``).

    Inputs of 16 KiB and more are parsed with the GIL released. Raises :class:`TypeError` for a
    ``text`` that is not ``str``, :class:`InputError` for one with lone surrogates,
    :class:`DialectError`, :class:`ToolsError`, :class:`OptionsError` for bad options.
    """
    r = _native.parse(text, dialect, tools, reasoning, reasoning_open, calls_in_reasoning)
    return ParseResult(
        r["calls"],
        r["errors"],
        r["prose"],
        r["reasoning"],
        r["reasoning_calls"],
        r["reasoning_errors"],
    )


#: The incremental parser: ``feed(chunk) -> list[Event]`` as text arrives, then
#: ``finish() -> list[Event]``. One-shot :func:`parse` is this parser fed one chunk: any chunking
#: gives the same calls, errors and prose. A parser belongs to the thread that made it; using it
#: from another raises :class:`RuntimeError`.
StreamParser = _native.StreamParser


#: OpenAI-style streamed ``tool_calls`` deltas, for servers: ``feed(chunk) -> list[Delta]`` and
#: ``finish() -> list[Delta]``, each ``{"event": "content" | "reasoning" | "tool_call_start"
#: (index, id, name) | "arguments" (index, fragment) | "call_done" (index) | "call_failed"
#: (index or None, message, error), ...}``. A call's fragments concatenate to the compact JSON of
#: its final arguments in every chunking (Qwen3-Coder-family strings stream as they arrive, other
#: values once complete); a ``call_failed`` call must not be run. Same options as
#: :class:`StreamParser`; belongs to the thread that made it.
OpenAIDeltas = _native.OpenAIDeltas

#: One :class:`OpenAIDeltas` event.
Delta = dict[str, Any]


def serialize_thread(
    events: Sequence[Mapping[str, Any]], response_prefix: Optional[str] = None
) -> str:
    """An agent's events (SPEC-01: ``message``, ``tool_call``, ``tool_result``, ...) as one
    ``<thread>`` XML document, well-formed whatever they hold; ``response_prefix`` follows it
    after a newline.

    Raises :class:`ThreadError` for events that are not SPEC-01 events, :class:`TypeError` for
    values JSON cannot hold.
    """
    if isinstance(events, (str, bytes)) or not isinstance(events, Sequence):
        raise TypeError(f"events must be a list of dicts, not {type(events).__name__}")
    if response_prefix is not None and not isinstance(response_prefix, str):
        raise TypeError(
            f"response_prefix must be str or None, not {type(response_prefix).__name__}"
        )
    try:
        text = _json.dumps(list(events), allow_nan=False)
    except ValueError as e:  # NaN or infinity, or a circular reference
        raise ThreadError(f"agent events: {e}") from e
    return _native.serialize_thread(text, response_prefix)


def system_prompt(tools: Optional[Tools] = None) -> str:
    """The system-prompt section that teaches the ``<tool>`` format and, given tools, describes
    each with its parameters and an example call. Raises :class:`ToolsError` for a bad list."""
    return _native.system_prompt(tools)


def dialects() -> List[str]:
    """The dialect names this build reads."""
    return _native.dialects()
