"""The package's API: parse, StreamParser, serialize_thread, system_prompt, dialects."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

import toolcall
from conftest import as_dict, random_pieces, stream

WRITE = (
    "I'll write it.\n<tool><tool_name>write_file</tool_name><arguments>"
    "<path>src/main.rs</path><content>if a &amp;&amp; b { go() }</content>"
    "<lines>3</lines></arguments></tool>\nDone."
)

QWEN = (
    "Reading it.\n<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/lib.rs\n</parameter>\n"
    "<parameter=line_start>\n10\n</parameter>\n</function>\n</tool_call>"
)

OPENAI_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "line_start": {"type": "integer"}},
            },
        },
    }
]

MCP_TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "line_start": {"type": "string"}},
        },
    }
]


def test_parse_tool_dialect() -> None:
    r = toolcall.parse(WRITE)
    assert isinstance(r, toolcall.ParseResult)
    assert r.ok and r.errors == []
    [call] = r.calls
    assert call["tool_name"] == "write_file"
    assert call["server_name"] == "local"
    assert call["arguments"] == {"path": "src/main.rs", "content": "if a && b { go() }", "lines": 3}
    assert type(call["arguments"]["lines"]) is int
    assert call["repairs"] == []
    assert {"argument": "content", "encoding": "entity_escaped"} in call["encodings"]
    assert call["legacy_json"] is False
    start, end = call["span"]
    assert WRITE[start:end].startswith("<tool>") and WRITE[start:end].endswith("</tool>")
    assert r.prose == "I'll write it.\n\nDone."
    assert r.reasoning == ""


def test_arguments_keep_document_order_and_types() -> None:
    r = toolcall.parse(
        "<tool><tool_name>t</tool_name><arguments><z>1.5</z><a>true</a><m>x</m>"
        "<big>9223372036854775807</big><neg>-9223372036854775808</neg>"
        "<list><item>1</item><item>two</item></list></arguments></tool>"
    )
    args = r.calls[0]["arguments"]
    assert list(args) == ["z", "a", "m", "big", "neg", "list"]
    assert args["z"] == 1.5 and type(args["z"]) is float
    assert args["a"] is True
    assert args["big"] == 2**63 - 1 and type(args["big"]) is int
    assert args["neg"] == -(2**63)
    assert args["list"] == {"item": [1, "two"]}  # no schema: repeated items are an array


def test_integers_beyond_64_bits() -> None:
    digits = "123456789012345678901234567890"
    # Raw text typed by the schema keeps every digit, as a Python int.
    r = toolcall.parse(
        "<tool_call>\n<function=f>\n<parameter=n>\n" + digits
        + "\n</parameter>\n</function>\n</tool_call>",
        dialect="qwen3-coder",
        tools=[{"name": "f", "inputSchema": {"type": "object",
                                             "properties": {"n": {"type": "integer"}}}}],
    )
    n = r.calls[0]["arguments"]["n"]
    assert n == int(digits) and type(n) is int
    # JSON read by serde_json (Hermes) gives the nearest float beyond 64 bits (docs/FORMAT.md
    # §5.1, "serde_json is built without arbitrary_precision").
    r = toolcall.parse(
        '<tool_call>{"name": "f", "arguments": {"n": ' + digits + "}}</tool_call>",
        dialect="hermes",
    )
    n = r.calls[0]["arguments"]["n"]
    assert n == float(digits) and type(n) is float


def test_spans_are_character_offsets() -> None:
    text = "Voilà — ünïcödé 🎉 first.\n" + WRITE + " ✓ <tool><tool_name>x</tool_name>"
    r = toolcall.parse(text)
    start, end = r.calls[0]["span"]
    assert text[start:end].startswith("<tool><tool_name>write_file")
    assert text[start:end].endswith("</arguments></tool>")
    [err] = r.errors
    assert err["kind"] == "unterminated_call"
    assert text[err["span"][0] :].startswith("<tool><tool_name>x")
    # The same spans streamed, in pieces that split characters' neighbours anywhere.
    for n in (1, 3, 8):
        assert stream(random_pieces(text, random.Random(n), n)) == as_dict(r)


def test_a_call_missing_its_function_tag_is_an_error_not_prose() -> None:
    # The model left out `<function=NAME>`: an error with feedback, never text passed on.
    text = "<tool_call>\n<parameter=path>\na.txt\n</parameter>\n</function>\n</tool_call>\ndone"
    r = toolcall.parse(text, dialect="qwen3-coder")
    assert r.calls == [] and r.prose == "\ndone"
    [e] = r.errors
    assert e["kind"] == "missing_tool_name" and (e["line"], e["column"]) == (2, 1)
    assert "<function=NAME>" in e["feedback"]
    for n in (1, 3, 8):
        assert stream(random_pieces(text, random.Random(n), n), dialect="qwen3-coder") == as_dict(r)


def test_tools_in_openai_and_mcp_shapes_type_arguments() -> None:
    by_openai = toolcall.parse(QWEN, dialect="qwen3-coder", tools=OPENAI_TOOLS)
    assert by_openai.calls[0]["arguments"] == {"path": "src/lib.rs", "line_start": 10}
    by_mcp = toolcall.parse(QWEN, dialect="qwen3-coder", tools=MCP_TOOLS)
    assert by_mcp.calls[0]["arguments"] == {"path": "src/lib.rs", "line_start": "10"}
    wrapped = toolcall.parse(QWEN, dialect="qwen3-coder", tools={"tools": MCP_TOOLS})
    assert wrapped.calls == by_mcp.calls


def test_errors_carry_feedback_and_partial_arguments() -> None:
    r = toolcall.parse("<tool><tool_name>write_file</tool_name><arguments><path>a.txt</path><c>x")
    assert r.calls == [] and not r.ok
    [e] = r.errors
    assert e["kind"] == "unterminated_call"
    assert e["tool_name"] == "write_file"
    assert e["partial"] == {"path": "a.txt"}  # the arguments completed before the end
    assert e["line"] == 1 and e["column"] >= 1
    assert "write_file" in e["feedback"] and "Fix:" in e["feedback"]
    assert e["limit"] is None
    assert e["message"] and isinstance(e["snippet"], str)


def test_reasoning_channel() -> None:
    text = "<think>Look it up.</think>It is 4."
    r = toolcall.parse(text, dialect="qwen3-coder", reasoning=True)
    assert (r.reasoning, r.prose) == ("Look it up.", "It is 4.")
    opened = toolcall.parse("still thinking</think>answer", reasoning_open=True)
    assert (opened.reasoning, opened.prose) == ("still thinking", "answer")
    off = toolcall.parse(text, dialect="qwen3-coder")
    assert off.reasoning == "" and off.prose == text
    call_in = "<think>x <tool_call>\n<function=ls>\n</function>\n</tool_call>"
    ends = toolcall.parse(call_in, dialect="qwen3-coder", reasoning=True)
    assert [c["tool_name"] for c in ends.calls] == ["ls"]
    kept = toolcall.parse(call_in, dialect="qwen3-coder", reasoning=True, calls_in_reasoning="text")
    assert kept.calls == [] and "<function=ls>" in kept.reasoning
    flagged_text = call_in + " then</think>answer"
    flagged = toolcall.parse(
        flagged_text, dialect="qwen3-coder", reasoning=True, calls_in_reasoning="flag"
    )
    assert flagged.calls == [] and flagged.errors == []
    assert [c["tool_name"] for c in flagged.reasoning_calls] == ["ls"]
    assert (flagged.reasoning, flagged.prose) == ("x  then", "answer")
    p = toolcall.StreamParser(dialect="qwen3-coder", reasoning=True, calls_in_reasoning="flag")
    events = [e for piece in random_pieces(flagged_text, random.Random(2), 3) for e in p.feed(piece)]
    events.extend(p.finish())
    kinds = [e["event"] for e in events]
    assert "call_started" not in kinds and kinds.count("reasoning_call") == 1
    assert [e["call"]["tool_name"] for e in events if e["event"] == "reasoning_call"] == ["ls"]


def test_stream_events() -> None:
    p = toolcall.StreamParser(dialect="qwen3-coder", tools=OPENAI_TOOLS)
    events = []
    for piece in random_pieces(QWEN, random.Random(1), 5):
        events.extend(p.feed(piece))
    events.extend(p.finish())
    kinds = [e["event"] for e in events]
    assert kinds[0] == "prose"
    assert kinds.index("call_started") < kinds.index("tool_name") < kinds.index("call_finished")
    assert "argument_delta" in kinds
    deltas = "".join(e["text"] for e in events if e["event"] == "argument_delta"
                     and e["argument"] == "path")
    assert deltas.strip() == "src/lib.rs"
    [done] = [e for e in events if e["event"] == "call_finished"]
    assert done["index"] == 0
    assert done["call"] == toolcall.parse(QWEN, dialect="qwen3-coder", tools=OPENAI_TOOLS).calls[0]
    assert p.finished
    assert p.finish() == []
    with pytest.raises(toolcall.StateError):
        p.feed("more")


def test_argument_value_events_keep_integers_beyond_a_float() -> None:
    # A declared integer's value event: every digit, as a Python int (it once went through
    # JSON and came back None when the integer was beyond a float's range).
    n = 2 * 10 ** 400
    text = ('<|open|>call tool="f"<|sep|><|open|>argument key="n" type="integer"<|sep|>'
            f"{n}<|close|>argument<|sep|><|close|>call<|sep|>")
    p = toolcall.StreamParser(dialect="kimi-k3")
    events = p.feed(text) + p.finish()
    [value] = [e for e in events if e["event"] == "argument_value"]
    assert (value["argument"], value["value"], value["index"]) == ("n", n, 0)
    [done] = [e for e in events if e["event"] == "call_finished"]
    assert done["call"]["arguments"]["n"] == n


def test_stream_without_argument_deltas() -> None:
    p = toolcall.StreamParser(dialect="qwen3-coder", argument_deltas=False)
    events = [e for piece in random_pieces(QWEN, random.Random(2), 3) for e in p.feed(piece)]
    events += p.finish()
    assert all(e["event"] != "argument_delta" for e in events)
    assert [e["call"]["tool_name"] for e in events if e["event"] == "call_finished"] == ["read_file"]


@pytest.mark.parametrize("dialect", toolcall.dialects())
def test_every_dialect_streams_like_one_shot(dialect: str) -> None:
    soup = (
        "pre <tool><tool_name>a</tool_name><arguments><x>1</x></arguments></tool> mid "
        "<tool_call>\n<function=b>\n<parameter=y>\n2\n</parameter>\n</function>\n</tool_call> "
        '<tool_call>{"name": "c", "arguments": {"z": [1, 2]}}</tool_call> '
        "<seed:tool_call>\n<function=d>\n<parameter=w>v</parameter>\n</function>\n</seed:tool_call>"
        " <think>t</think> end <tool><tool_name>open"
    )
    whole = toolcall.parse(soup, dialect=dialect, reasoning=True)
    assert whole.calls or whole.errors or whole.prose
    for seed in range(5):
        pieces = random_pieces(soup, random.Random(seed), 1 + seed * 3)
        assert stream(pieces, dialect=dialect, reasoning=True) == as_dict(whole)


def test_parser_belongs_to_its_thread() -> None:
    p = toolcall.StreamParser()
    p.feed("Hello <to")
    caught: list[BaseException] = []

    def other() -> None:
        for use in (lambda: p.feed("ol>"), p.finish, lambda: p.finished):
            try:
                use()
            except BaseException as e:  # noqa: BLE001 - what is raised is the point
                caught.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(caught) == 3
    for e in caught:
        assert isinstance(e, toolcall.StateError) and isinstance(e, RuntimeError)
        assert "thread" in str(e)
    # Nothing changed: the owner goes on where it was.
    events = p.feed("ol><tool_name>x</tool_name></tool>") + p.finish()
    assert [e["call"]["tool_name"] for e in events if e["event"] == "call_finished"] == ["x"]
    # Parsers made in other threads work there; dropping one anywhere is fine.
    results: list[Any] = []

    def own() -> None:
        q = toolcall.StreamParser()
        results.append(q.feed("<tool><tool_name>y</tool_name></tool>") + q.finish())

    threads = [threading.Thread(target=own) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(r[-1]["call"]["tool_name"] == "y" for r in results)


def test_gil_is_released_while_a_large_input_is_parsed() -> None:
    # 30 MiB of entity-escaped text (under the 32 MiB call limit): the parse takes a while,
    # its result is a fifth of that.
    big = (
        "<tool><tool_name>w</tool_name><arguments><c>"
        + "&amp;" * ((30 << 20) // 5)
        + "</c></arguments></tool>"
    )
    count = 0
    stop = False

    def spin() -> None:
        nonlocal count
        while not stop:
            count += 1

    # How fast the spinner counts with the interpreter to itself.
    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.05)
    before = count
    time.sleep(0.2)
    rate = (count - before) / 0.2
    best = 0.0
    for _ in range(3):
        c0, t0 = count, time.perf_counter()
        r = toolcall.parse(big)
        elapsed = time.perf_counter() - t0
        best = max(best, (count - c0) / (rate * elapsed))
        if best > 0.2:
            break
    stop = True
    t.join()
    assert len(r.calls[0]["arguments"]["c"]) == big.count("&amp;")
    # Held for the whole parse, the spinner would get only switch-interval slices of the time
    # the conversion to Python takes; released, it runs through the parse.
    assert best > 0.2, f"the spinner ran at {best:.0%} of its speed during parse()"


def test_serialize_thread() -> None:
    events = [
        {"type": "message", "role": "user", "content": "What is 2+2?", "timestamp": 1,
         "iteration": 0},
        {"type": "tool_call", "toolName": "calculator", "toolCallId": "c1",
         "args": {"expression": "2+2"}, "iteration": 1},
        {"type": "tool_result", "toolCallId": "c1", "result": "4", "iteration": 1},
        {"type": "message", "role": "assistant", "content": "It is 4 & <b>", "iteration": 1},
    ]
    xml = toolcall.serialize_thread(events)
    assert xml.startswith("<thread>\n") and xml.endswith("</thread>")
    assert '<event type="human" id="0" iteration="0">What is 2+2?</event>' in xml
    assert 'name="calculator"' in xml and "{&quot;expression&quot;:&quot;2+2&quot;}" in xml
    assert "It is 4 &amp; &lt;b&gt;" in xml
    primed = toolcall.serialize_thread(events, response_prefix="I will now")
    assert primed == xml + "\nI will now"
    assert toolcall.serialize_thread([]) == toolcall.serialize_thread((), None)


def test_any_member_name_is_a_member() -> None:
    # serde_json's `raw_value` feature (on in the extension) gives this one name a meaning in
    # `serde_json::Value`; every JSON the package reads takes it as a member like any other.
    name = "$serde_json::private::RawValue"
    events = [
        {"type": "tool_call", "toolName": "t", "toolCallId": "c", "args": {name: {name: 1}},
         "iteration": 1},
        {"type": "tool_result", "toolCallId": "c", "result": {name: "x"}, "iteration": 1},
    ]
    xml = toolcall.serialize_thread(events)
    assert xml.count(name) == 3
    r = toolcall.parse('<tool>{"tool_name": "t", "arguments": {"%s": [1]}}</tool>' % name)
    assert r.calls[0]["arguments"] == {name: [1]}


def test_serialize_thread_bad_events() -> None:
    with pytest.raises(toolcall.ThreadError):
        toolcall.serialize_thread([{"type": "no_such_event", "iteration": 0}])
    with pytest.raises(toolcall.ThreadError):
        toolcall.serialize_thread([{"type": "message", "role": "user", "iteration": 0}])
    with pytest.raises(toolcall.ThreadError):
        toolcall.serialize_thread([{"type": "tool_result", "toolCallId": "c", "result":
                                    float("nan"), "iteration": 0}])
    with pytest.raises(TypeError):
        toolcall.serialize_thread("[]")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        toolcall.serialize_thread([{"type": "message", "content": object()}])
    with pytest.raises(TypeError):
        toolcall.serialize_thread([], response_prefix=3)  # type: ignore[arg-type]


def test_system_prompt() -> None:
    bare = toolcall.system_prompt()
    assert "<tool>" in bare and "## Available tools" not in bare
    assert toolcall.system_prompt(None) == bare == toolcall.system_prompt([])
    text = toolcall.system_prompt(OPENAI_TOOLS)
    assert text.startswith(bare)
    assert "## Available tools" in text and "### read_file" in text and "Read a file" in text
    assert toolcall.system_prompt(MCP_TOOLS).count("### read_file") == 1
    with pytest.raises(toolcall.ToolsError):
        toolcall.system_prompt([{"description": "no name"}])
    with pytest.raises(toolcall.ToolsError):
        toolcall.system_prompt([{"name": "a"}, {"name": "a"}])


def test_dialects() -> None:
    names = toolcall.dialects()
    assert names[0] == "tool"
    assert {"tool", "qwen3-coder", "seed-oss", "hermes"} <= set(names)
    for name in names:
        assert toolcall.parse("", dialect=name).calls == []
    assert toolcall.parse(QWEN, dialect="QWEN3-CODER").calls


def test_exception_hierarchy() -> None:
    for cls in (toolcall.DialectError, toolcall.ToolsError, toolcall.InputError,
                toolcall.OptionsError, toolcall.ThreadError):
        assert issubclass(cls, toolcall.Error) and issubclass(cls, ValueError)
    assert issubclass(toolcall.StateError, toolcall.Error)
    assert issubclass(toolcall.StateError, RuntimeError)
    assert issubclass(toolcall.Error, Exception)


def test_version() -> None:
    assert toolcall.__version__.count(".") == 2
