"""Bad input never crashes: wrong types raise TypeError, bad values a toolcall.Error subclass,
and hostile text is parsed within the limits."""

from __future__ import annotations

import random
from typing import Any

import pytest

import toolcall
from conftest import as_dict, stream


@pytest.mark.parametrize("text", [b"<tool></tool>", bytearray(b"x"), None, 3, 1.5, ["a"], {"a": 1}])
def test_text_must_be_str(text: Any) -> None:
    with pytest.raises(TypeError) as info:
        toolcall.parse(text)
    assert "text must be str" in str(info.value)
    p = toolcall.StreamParser()
    with pytest.raises(TypeError):
        p.feed(text)
    # The parser is still usable after a refused chunk.
    assert p.feed("ok") + p.finish() == [{"event": "prose", "text": "ok"}]


def test_bytes_hint() -> None:
    with pytest.raises(TypeError, match="decode"):
        toolcall.parse(b"abc")


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "<tool><tool_name>\udc80</tool_name></tool>"])
def test_lone_surrogates(text: str) -> None:
    with pytest.raises(toolcall.InputError) as info:
        toolcall.parse(text)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value.__cause__, UnicodeEncodeError)
    p = toolcall.StreamParser()
    events = p.feed("before ")
    with pytest.raises(toolcall.InputError):
        p.feed(text)
    # What a caller does with such text: replace what UTF-8 cannot hold.
    cleaned = text.encode("utf-8", "replace").decode("utf-8")
    assert "?" in repr(toolcall.parse(cleaned))
    # The refused chunk was not read: the parser goes on as if it had never been offered.
    events += p.feed("after") + p.finish()
    assert "".join(e["text"] for e in events) == "before after"


def test_str_subclass_is_text() -> None:
    class Text(str):
        pass

    assert toolcall.parse(Text("<tool><tool_name>x</tool_name></tool>")).calls[0]["tool_name"] == "x"


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"dialect": "nope"}, toolcall.DialectError),
        ({"dialect": ""}, toolcall.DialectError),
        ({"dialect": 3}, TypeError),
        ({"dialect": b"tool"}, TypeError),
        ({"calls_in_reasoning": "maybe", "reasoning": True}, toolcall.OptionsError),
        ({"calls_in_reasoning": 1}, TypeError),
        ({"tools": "read_file"}, toolcall.ToolsError),
        ({"tools": 42}, toolcall.ToolsError),
        ({"tools": [1, 2]}, toolcall.ToolsError),
        ({"tools": [{"description": "no name"}]}, toolcall.ToolsError),
        ({"tools": [{"name": "a", "inputSchema": "not an object"}]}, toolcall.ToolsError),
        ({"tools": [{"name": "a", "inputSchema": {"default": float("nan")}}]}, toolcall.ToolsError),
        ({"tools": [{"name": "a", "inputSchema": {"x": object()}}]}, toolcall.ToolsError),
        ({"tools": [{"name": "a", "inputSchema": {1: "int key"}}]}, toolcall.ToolsError),
        ({"tools": [{"name": "a", "inputSchema": {"n": 1 << 70}}]}, toolcall.ToolsError),
        ({"tools": [{"name": "\ud800"}]}, toolcall.ToolsError),
        ({"tools": {"no": "tools key"}}, toolcall.ToolsError),
    ],
)
def test_bad_options(kwargs: dict[str, Any], error: type) -> None:
    with pytest.raises(error) as info:
        toolcall.parse("x", **kwargs)
    if issubclass(error, toolcall.Error):
        assert isinstance(info.value, ValueError)
    with pytest.raises(error):
        toolcall.StreamParser(**kwargs)


def test_deeply_nested_tools_are_refused() -> None:
    schema: Any = {}
    for _ in range(500):
        schema = {"nested": schema}
    with pytest.raises(toolcall.ToolsError, match="deeper"):
        toolcall.parse("x", tools=[{"name": "a", "inputSchema": schema}])


def test_wrong_arity_and_keywords() -> None:
    with pytest.raises(TypeError):
        toolcall.parse()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        toolcall.parse("x", no_such_option=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        toolcall.StreamParser(no_such_option=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        toolcall.StreamParser().feed()  # type: ignore[call-arg]


def test_control_characters_and_nul() -> None:
    text = "a\x00b<tool><tool_name>x</tool_name><arguments><v>\x00\x1b[0m</v></arguments></tool>"
    r = toolcall.parse(text)
    assert r.prose.startswith("a\x00b")
    assert r.calls or r.errors


def test_huge_input_within_limits() -> None:
    # 8 MiB of code in one call, and 4,000 small calls: read whole, nothing lost.
    code = "fn main() { let x = a < b && c > d; }\n" * ((8 << 20) // 40)
    text = "<tool_call>\n<function=write_file>\n<parameter=content>\n" + code + \
        "</parameter>\n</function>\n</tool_call>"
    r = toolcall.parse(text, dialect="qwen3-coder")
    # The value-text rule drops the line break before </parameter>.
    assert r.calls[0]["arguments"]["content"] == code[:-1]
    many = "<tool><tool_name>x</tool_name></tool>" * 4000
    r2 = toolcall.parse(many)
    assert len(r2.calls) == 1024  # the max_calls limit
    assert [e["limit"] for e in r2.errors] == ["max_calls"]


def test_input_over_the_size_limit_is_cut_with_an_error() -> None:
    text = "x" * ((64 << 20) + 10)
    r = toolcall.parse(text)
    assert len(r.prose) == 64 << 20
    [e] = r.errors
    assert (e["kind"], e["limit"]) == ("limit_exceeded", "max_input_bytes")


def test_random_garbage_never_crashes() -> None:
    rng = random.Random(7)
    alphabet = list("<>/=&;#x[]!-{}\":, \n\tatoolfunctionparameter_callé€\x00") + [
        "<tool>", "</tool>", "<tool_call>", "</tool_call>", "<function=", "<parameter=",
        "</parameter>", "</function>", "<![CDATA[", "]]>", "<think>", "</think>", "&amp;",
        "<seed:tool_call>", "<arguments>", "<tool_name>",
    ]
    for dialect in toolcall.dialects():
        for _ in range(60):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 120)))
            whole = toolcall.parse(text, dialect=dialect, reasoning=True)
            pieces = [text[i : i + 3] for i in range(0, len(text), 3)]
            assert stream(pieces, dialect=dialect, reasoning=True) == as_dict(whole), text
