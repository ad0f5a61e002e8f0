"""toolcall.OpenAIDeltas: the Rust bridge's OpenAI-style tool_calls deltas, from Python."""

from __future__ import annotations

import json
import random
import threading
from typing import Any, List

import pytest

import toolcall
from conftest import random_pieces

CODE = 'fn main() {\n    if a < b && c > d { println!("<{}>", "é ✓"); }\n}'

SAMPLES = {
    "tool": "Sure.\n<tool><tool_name>write_file</tool_name><arguments><path>a.rs</path>"
    "<content><![CDATA[" + CODE + "]]></content><mode>420</mode></arguments></tool>\n"
    "<tool><tool_name>ls</tool_name></tool> done",
    "qwen3-coder": "Sure.\n<tool_call>\n<function=write_file>\n<parameter=path>\na.rs\n"
    "</parameter>\n<parameter=content>\n" + CODE + "\n</parameter>\n<parameter=mode>\n420\n"
    "</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=ls>\n</function>\n"
    "</tool_call> done",
    "seed-oss": "Sure.\n<seed:tool_call>\n<function=write_file>\n<parameter=path>a.rs</parameter>"
    "\n<parameter=content>" + CODE + "</parameter>\n<parameter=mode>420</parameter>\n"
    "</function>\n</seed:tool_call>\n<seed:tool_call>\n<function=ls>\n</function>\n"
    "</seed:tool_call> done",
    "hermes": "Sure.\n<tool_call>\n" + json.dumps({"name": "write_file", "arguments": {
        "path": "a.rs", "content": CODE, "mode": 420}}) + "\n</tool_call>\n"
    '<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call> done',
}

TOOLS = [{"type": "function", "function": {"name": "write_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"},
                                     "mode": {"type": "integer"}}}}},
         {"type": "function", "function": {"name": "ls", "parameters": {"type": "object"}}}]


def run(pieces: List[str], **options: Any) -> List[dict[str, Any]]:
    d = toolcall.OpenAIDeltas(**options)
    out: List[dict[str, Any]] = []
    for p in pieces:
        out.extend(d.feed(p))
    out.extend(d.finish())
    return out


def folded(events: List[dict[str, Any]]) -> dict[str, Any]:
    calls: dict[int, dict[str, Any]] = {}
    content = []
    for e in events:
        k = e["event"]
        if k == "content":
            content.append(e["text"])
        elif k == "tool_call_start":
            assert e["index"] not in calls
            calls[e["index"]] = {"id": e["id"], "name": e["name"], "args": "", "done": False}
        elif k == "arguments":
            assert not calls[e["index"]]["done"]
            calls[e["index"]]["args"] += e["fragment"]
        elif k == "call_done":
            calls[e["index"]]["done"] = True
        elif k == "call_failed":
            if e["index"] is not None:
                calls[e["index"]]["failed"] = e["message"]
    return {"content": "".join(content), "calls": [calls[i] for i in sorted(calls)]}


@pytest.mark.parametrize("dialect", [d for d in SAMPLES if d in toolcall.dialects()])
def test_fragments_concatenate_to_the_final_arguments(dialect: str) -> None:
    text = SAMPLES[dialect]
    whole = toolcall.parse(text, dialect=dialect, tools=TOOLS)
    want = folded(run([text], dialect=dialect, tools=TOOLS))
    assert [c["name"] for c in want["calls"]] == ["write_file", "ls"]
    assert [json.loads(c["args"]) for c in want["calls"]] == [c["arguments"] for c in whole.calls]
    assert all(c["done"] and "failed" not in c for c in want["calls"])
    assert want["content"] == whole.prose
    rng = random.Random(dialect)
    for n in (1, 2, 3, 5, 16):
        assert folded(run(random_pieces(text, rng, n), dialect=dialect, tools=TOOLS)) == want


def test_strings_stream_as_they_arrive() -> None:
    text = SAMPLES["qwen3-coder"]
    d = toolcall.OpenAIDeltas(dialect="qwen3-coder", tools=TOOLS)
    cut = text.index("println!")
    events = d.feed(text[:cut])
    sent = "".join(e["fragment"] for e in events if e["event"] == "arguments")
    # The content's first line is already out before the call is complete.
    assert sent.startswith('{"path":"a.rs","content":"fn main() {')
    assert not any(e["event"] == "call_done" for e in events)


def test_a_cut_call_fails() -> None:
    text = SAMPLES["qwen3-coder"]
    events = run([text[: text.index("</function>")]], dialect="qwen3-coder")
    [failed] = [e for e in events if e["event"] == "call_failed"]
    assert failed["index"] == 0 and failed["message"]
    assert failed["error"]["kind"] == "unterminated_call" and "Fix" in failed["error"]["feedback"]
    assert not any(e["event"] == "call_done" for e in events)


def test_state_and_threads() -> None:
    d = toolcall.OpenAIDeltas(dialect="hermes")
    assert d.feed("hi") + d.finish() == [{"event": "content", "text": "hi"}]
    assert d.finished and d.finish() == []
    with pytest.raises(toolcall.StateError):
        d.feed("x")
    other = toolcall.OpenAIDeltas()
    caught: List[BaseException] = []
    t = threading.Thread(target=lambda: caught.extend(_try(other.feed, "x")))
    t.start()
    t.join()
    assert len(caught) == 1 and isinstance(caught[0], toolcall.StateError)
    with pytest.raises(TypeError):
        other.feed(b"x")  # type: ignore[arg-type]
    with pytest.raises(toolcall.DialectError):
        toolcall.OpenAIDeltas(dialect="nope")


def _try(f: Any, *args: Any) -> List[BaseException]:
    try:
        f(*args)
    except BaseException as e:  # noqa: BLE001 - what is raised is the point
        return [e]
    return []
