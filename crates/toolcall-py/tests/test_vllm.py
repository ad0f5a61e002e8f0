"""toolcall.vllm against the real vLLM (skipped where vLLM is not installed: `cargo xtask vllm`
installs vllm==0.32.0 into target/vllm-venv and runs these).

The parsers are loaded as `vllm serve --tool-parser-plugin` loads them
(`ToolParserManager.import_tool_parser`), composed by `ParserManager.get_parser` as the chat
completion server composes them, and driven through `Parser.parse_delta` / `Parser.parse` as it
drives them, with a character-level tokenizer (one token per character, each dialect's markers
one special token each) standing in for the model's.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from typing import Any, List, Optional

import pytest

import toolcall

vllm = pytest.importorskip("vllm", reason="vLLM is not installed (cargo xtask vllm)")

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager  # noqa: E402
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager  # noqa: E402

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"},
                               "mode": {"type": "integer"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"},
                                                            "line": {"type": "integer"}}},
        },
    },
]

CODE = 'fn main() {\n    if a < b && c > d { println!("<{}>", "é ✓"); }\n}'

# Two calls of each dialect, with prose around them.
CALLS = {
    "tool": (
        "<tool><tool_name>write_file</tool_name><arguments><path>src/a.rs</path>"
        "<content><![CDATA[" + CODE + "]]></content><mode>420</mode></arguments></tool>",
        "<tool><tool_name>read_file</tool_name><arguments><path>b.txt</path><line>7</line>"
        "</arguments></tool>",
    ),
    "qwen3-coder": (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.rs\n</parameter>\n"
        "<parameter=content>\n" + CODE + "\n</parameter>\n<parameter=mode>\n420\n</parameter>\n"
        "</function>\n</tool_call>",
        "<tool_call>\n<function=read_file>\n<parameter=path>\nb.txt\n</parameter>\n"
        "<parameter=line>\n7\n</parameter>\n</function>\n</tool_call>",
    ),
    "seed-oss": (
        "<seed:tool_call>\n<function=write_file>\n<parameter=path>src/a.rs</parameter>\n"
        "<parameter=content>" + CODE + "</parameter>\n<parameter=mode>420</parameter>\n"
        "</function>\n</seed:tool_call>",
        "<seed:tool_call>\n<function=read_file>\n<parameter=path>b.txt</parameter>\n"
        "<parameter=line>7</parameter>\n</function>\n</seed:tool_call>",
    ),
    "hermes": (
        "<tool_call>\n" + json.dumps({"name": "write_file", "arguments": {
            "path": "src/a.rs", "content": CODE, "mode": 420}}) + "\n</tool_call>",
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "b.txt", "line": 7}}\n'
        "</tool_call>",
    ),
}

EXPECTED = [
    ("write_file", {"path": "src/a.rs", "content": CODE, "mode": 420}),
    ("read_file", {"path": "b.txt", "line": 7}),
]

MARKUP = ("<tool", "</tool", "<function", "</function", "<parameter", "<seed:", "<think",
          "</think", "<arguments", "CDATA")


def compact(args: Any) -> str:
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"))


@pytest.fixture(params=["streamed", "whole"])
def mode(request: Any, plugin: str) -> Any:
    """Both ways of sending calls: arguments streamed as written (the default), or each call
    whole when complete (TOOLCALL_VLLM_WHOLE_CALLS=1)."""
    from toolcall.vllm._parsers import ToolcallToolParser

    before = ToolcallToolParser.whole_calls
    ToolcallToolParser.whole_calls = request.param == "whole"
    yield request.param
    ToolcallToolParser.whole_calls = before


def output_of(dialect: str) -> str:
    first, second = CALLS[dialect]
    return "I'll do both.\n" + first + "\n" + second + "\nDone: é ✓."


@pytest.fixture(scope="module")
def plugin() -> str:
    path = subprocess.run(
        [sys.executable, "-m", "toolcall.vllm", "--path"], check=True, capture_output=True,
        text=True,
    ).stdout.strip()
    ToolParserManager.import_tool_parser(path)
    ReasoningParserManager.import_reasoning_parser(path)
    return path


def tokenizer_for(texts: List[str]) -> Any:
    """One token per character; every dialect's markers are special tokens."""
    markers = sorted({m for pair in (_markers() for _ in [0]) for m in pair}, key=len)
    chars = sorted({c for t in texts for c in t} | {chr(c) for c in range(32, 127)} | {"\n"})
    vocab = {"[UNK]": 0}
    for c in chars:
        vocab.setdefault(c, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tok.decoder = decoders.Fuse()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]")
    fast.add_special_tokens({"additional_special_tokens": markers})
    return fast


def _markers() -> List[str]:
    out = ["<tool_call>", "</tool_call>", "<seed:tool_call>", "</seed:tool_call>", "<tool>",
           "</tool>"]
    for d in toolcall.dialects():
        out.extend(toolcall._native.reasoning_markers(d))
    return out


def request() -> ChatCompletionRequest:
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "go"}], tools=TOOLS, tool_choice="auto"
    )


class Streamed:
    def __init__(self) -> None:
        self.content: List[str] = []
        self.reasoning: List[str] = []
        self.names: dict[int, str] = {}
        self.ids: dict[int, str] = {}
        self.args: dict[int, List[str]] = {}

    def add(self, msg: Any) -> None:
        if msg is None:
            return
        if msg.content:
            self.content.append(msg.content)
        if msg.reasoning:
            self.reasoning.append(msg.reasoning)
        for tc in msg.tool_calls or []:
            if tc.id is not None:
                assert tc.index not in self.ids, "a call announced twice"
                self.ids[tc.index] = tc.id
            if tc.function is not None:
                if tc.function.name:
                    self.names[tc.index] = tc.function.name
                if tc.function.arguments:
                    self.args.setdefault(tc.index, []).append(tc.function.arguments)

    def result(self) -> tuple[str, str, list[tuple[str, str]]]:
        calls = [(self.names[i], "".join(self.args.get(i, []))) for i in sorted(self.names)]
        assert sorted(self.names) == list(range(len(self.names))), "indices 0, 1, ..."
        return "".join(self.content), "".join(self.reasoning), calls


def drive(tok: Any, parser_cls: Any, text: str, size: int, prompt: str = "go",
          req: Optional[ChatCompletionRequest] = None, keep: Optional[list[Any]] = None
          ) -> Streamed:
    """What the chat completion server does per request: one Parser, one parse_delta per
    engine step, each step `size` tokens, `finished` on the last."""
    req = req or request()
    parser = parser_cls(tok, req.tools, chat_template_kwargs=None, model_config=None)
    if keep is not None:
        keep.append(parser)
    ids = tok.encode(text, add_special_tokens=False)
    prompt_ids = tok.encode(prompt, add_special_tokens=False)
    out = Streamed()
    steps = [ids[i : i + size] for i in range(0, len(ids), size)] or [[]]
    for n, step in enumerate(steps):
        delta = tok.decode(step, skip_special_tokens=False)
        out.add(parser.parse_delta(delta, step, req, prompt_ids, finished=n == len(steps) - 1))
    return out


def composed(tok: Any, dialect: str, reasoning: bool = False) -> Any:
    return ParserManager.get_parser(
        tool_parser_name=f"toolcall-{dialect}",
        reasoning_parser_name=f"toolcall-{dialect}" if reasoning else None,
        enable_auto_tools=True,
        tokenizer=tok,
    )


def test_plugin_path_and_registration(plugin: str) -> None:
    assert plugin.endswith("toolcall_vllm_plugin.py")
    names = subprocess.run([sys.executable, "-m", "toolcall.vllm", "--names"], check=True,
                           capture_output=True, text=True).stdout.split()
    assert names == [f"toolcall-{d}" for d in toolcall.dialects()]
    for name in names:
        tool_cls = ToolParserManager.get_tool_parser(name)
        assert tool_cls.supports_required_and_named is False
        assert tool_cls.engine_based_streaming is True
        assert ReasoningParserManager.get_reasoning_parser(name).engine_based_streaming


@pytest.mark.parametrize("dialect", [d for d in CALLS if d in toolcall.dialects()])
def test_streamed_tool_calls(mode: str, dialect: str) -> None:
    text = output_of(dialect)
    tok = tokenizer_for([text])
    cls = composed(tok, dialect)
    want = [(name, compact(args)) for name, args in EXPECTED]
    results = set()
    for size in (1, 2, 3, 4, 7, 16, 10_000):
        s = drive(tok, cls, text, size)
        content, reasoning, calls = s.result()
        # The arguments streamed for each call concatenate to its final arguments JSON.
        assert calls == want, f"{size}-token deltas"
        assert [json.loads(a) for _, a in calls] == [a for _, a in EXPECTED]
        # Parallel calls: each under its own index and id.
        assert sorted(s.ids) == [0, 1] and len(set(s.ids.values())) == 2
        assert not any(m in content for m in MARKUP), content
        assert content.startswith("I'll do both.") and content.endswith("Done: é ✓.")
        assert reasoning == ""
        results.add((content, tuple(calls)))
    # Any delta size gives the same result.
    assert len(results) == 1
    # Non-streaming, the same calls and content.
    req = request()
    reasoning, content, calls = cls(tok, req.tools).parse(text, req, enable_auto_tools=True)
    assert [(c.name, c.arguments) for c in calls] == want
    assert content == next(iter(results))[0]


@pytest.mark.parametrize("dialect", [d for d in CALLS if d in toolcall.dialects()])
def test_a_call_cut_by_the_end_is_not_reported(mode: str, dialect: str) -> None:
    first, second = CALLS[dialect]
    cut = second[: len(second) * 2 // 3]
    text = "Start.\n" + first + "\n" + cut
    tok = tokenizer_for([text])
    cls = composed(tok, dialect)
    for size in (1, 5, 10_000):
        parsers: list[Any] = []
        s = drive(tok, cls, text, size, keep=parsers)
        content, _, calls = s.result()
        tp = parsers[0].tool_parser
        assert json.loads(calls[0][1]) == EXPECTED[0][1]
        assert not any(m in content for m in MARKUP)
        # Nothing completes the cut call: the serving layer finds nothing left to send.
        assert tp.get_remaining_unstreamed_args() == ""
        if mode == "whole":
            # Never sent.
            assert [name for name, _ in calls] == ["write_file"], f"{size}-token deltas"
            assert tp.failed_tool_call_ids == []
        else:
            # Its start had been sent; its arguments stop short of a JSON object, and its id
            # is listed as failed.
            assert [name for name, _ in calls] == ["write_file", "read_file"]
            with pytest.raises(ValueError):
                json.loads(calls[1][1])
            assert tp.failed_tool_call_ids == [s.ids[1]]
    req = request()
    _, _, calls = cls(tok, req.tools).parse(text, req, enable_auto_tools=True)
    assert [c.name for c in calls] == ["write_file"]


def test_serving_layer_state(mode: str) -> None:
    """prev_tool_call_arr and streamed_args_for_tool as the serving layer reads them at the end
    (get_remaining_unstreamed_args): every call's arguments, all of them already streamed."""
    text = output_of("qwen3-coder")
    tok = tokenizer_for([text])
    parsers: list[Any] = []
    drive(tok, composed(tok, "qwen3-coder"), text, 3, keep=parsers)
    tp = parsers[0].tool_parser
    if mode == "whole":
        assert tp.prev_tool_call_arr == [{"name": n, "arguments": a} for n, a in EXPECTED]
    else:
        assert tp.prev_tool_call_arr == [{"name": n, "arguments": compact(a)} for n, a in EXPECTED]
    assert tp.streamed_args_for_tool == [compact(a) for _, a in EXPECTED]
    assert tp.failed_tool_call_ids == []
    assert tp.get_remaining_unstreamed_args() == ""
    assert tp.current_tool_id == 1


@pytest.mark.parametrize("choice", ["required", "none"])
def test_tool_choice(plugin: str, choice: str) -> None:
    text = output_of("qwen3-coder")
    tok = tokenizer_for([text])
    cls = composed(tok, "qwen3-coder")
    req = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "go"}],
                                tools=TOOLS, tool_choice=choice)
    content, _, calls = drive(tok, cls, text, 4, req=req).result()
    if choice == "required":
        # Not forced into JSON: the model's own markup is read, as with "auto".
        assert [n for n, _ in calls] == ["write_file", "read_file"]
    else:
        assert calls == []
    assert not any(m in content for m in MARKUP)


def test_typing_follows_the_request_tools(plugin: str) -> None:
    text = CALLS["qwen3-coder"][1]
    tok = tokenizer_for([text])
    cls = composed(tok, "qwen3-coder")
    _, _, [(name, args)] = drive(tok, cls, text, 3).result()
    assert json.loads(args) == {"path": "b.txt", "line": 7}
    # A tool whose schema says string: the same text is the string "7".
    as_text = [{"type": "function", "function": {"name": "read_file", "parameters": {
        "type": "object", "properties": {"line": {"type": "string"}}}}}]
    req = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "go"}],
                                tools=as_text, tool_choice="auto")
    _, _, [(_, args)] = drive(tok, cls, text, 3, req=req).result()
    assert json.loads(args) == {"path": "b.txt", "line": "7"}
    # No tools in the request (vLLM then calls no tool parser; asked directly, the parser
    # applies the package's own rule for untyped values).
    req = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "go"}])
    info = cls(tok, None).tool_parser.extract_tool_calls(text, req)
    untyped = toolcall.parse(text, dialect="qwen3-coder").calls[0]["arguments"]
    assert info.tools_called
    assert [json.loads(c.function.arguments) for c in info.tool_calls] == [untyped]


@pytest.mark.parametrize("dialect", [d for d in CALLS if d in toolcall.dialects()])
def test_reasoning_parser(plugin: str, dialect: str) -> None:
    open_, close = toolcall._native.reasoning_markers(dialect)
    text = open_ + "Plan: write, then read." + close + "\n\nOn it.\n" + CALLS[dialect][0]
    tok = tokenizer_for([text])
    cls = composed(tok, dialect, reasoning=True)
    seen = set()
    for size in (1, 2, 5, 9, 10_000):
        content, reasoning, calls = drive(tok, cls, text, size).result()
        assert reasoning == "Plan: write, then read."
        assert content == "\n\nOn it.\n"
        assert [n for n, _ in calls] == ["write_file"]
        seen.add((content, reasoning, tuple(calls)))
    assert len(seen) == 1
    req = request()
    reasoning, content, calls = cls(tok, req.tools).parse(text, req, enable_auto_tools=True)
    assert reasoning == "Plan: write, then read." and content == "\n\nOn it.\n"
    assert [c.name for c in calls] == ["write_file"]


def test_reasoning_opened_by_the_prompt(plugin: str) -> None:
    dialect = "qwen3-coder"
    text = "still thinking</think>The answer." + CALLS[dialect][1]
    tok = tokenizer_for([text, "<|assistant|>\n<think>\n"])
    cls = composed(tok, dialect, reasoning=True)
    for size in (1, 4, 10_000):
        s = drive(tok, cls, text, size, prompt="go <|assistant|>\n<think>\n")
        content, reasoning, calls = s.result()
        assert (reasoning, content) == ("still thinking", "The answer.")
        assert [n for n, _ in calls] == ["read_file"]
    # A prompt that closes reasoning itself (thinking turned off): all of it is the answer.
    s = drive(tok, cls, "Just this.", 3, prompt="go <think>\n\n</think>\n\n")
    assert s.result()[:2] == ("Just this.", "")


def test_output_that_ends_in_reasoning(plugin: str) -> None:
    text = "<think>never closed"
    tok = tokenizer_for([text])
    cls = composed(tok, "qwen3-coder", reasoning=True)
    for size in (1, 3, 10_000):
        content, reasoning, calls = drive(tok, cls, text, size).result()
        assert (content, reasoning, calls) == ("", "never closed", [])


def test_arguments_stream_before_the_call_completes(plugin: str) -> None:
    text = output_of("qwen3-coder")
    tok = tokenizer_for([text])
    req = request()
    parser = composed(tok, "qwen3-coder")(tok, req.tools)
    ids = tok.encode(text, add_special_tokens=False)
    upto = len(tok.encode(text[: text.index("println!")], add_special_tokens=False))
    out = Streamed()
    for i in range(0, upto, 4):
        out.add(parser.parse_delta(tok.decode(ids[i : i + 4]), ids[i : i + 4], req, [1],
                                   finished=False))
    # The call's name and the first line of its content are out before its end was written.
    assert out.names == {0: "write_file"}
    assert "".join(out.args[0]).startswith('{"path":"src/a.rs","content":"fn main() {')


def test_messages_as_the_serving_layer_sends_them(plugin: str) -> None:
    """Each DeltaMessage as chat completion streaming serializes it
    (`model_dump_json(exclude_unset=True)`): the call's first entry carries its id, type and
    name; every later entry only its index and an arguments fragment."""
    text = "On it.\n" + CALLS["qwen3-coder"][1]
    tok = tokenizer_for([text])
    req = request()
    parser = ToolParserManager.get_tool_parser("toolcall-qwen3-coder")(tok, req.tools)
    sent = []
    for i in range(0, len(text), 3):
        m = parser.extract_tool_calls_streaming("", "", text[i : i + 3], [], [], [], req)
        if m is not None:
            sent.append(json.loads(m.model_dump_json(exclude_unset=True)))
    m = parser.finish_streaming()
    if m is not None:
        sent.append(json.loads(m.model_dump_json(exclude_unset=True)))
    entries = [tc for m in sent for tc in m.get("tool_calls", [])]
    first, rest = entries[0], entries[1:]
    assert first["id"].startswith("chatcmpl-tool-") and first["type"] == "function"
    assert first["index"] == 0 and first["function"]["name"] == "read_file"
    assert rest and all(set(tc) == {"index", "function"} and set(tc["function"]) == {"arguments"}
                        for tc in rest)
    arguments = "".join(tc["function"].get("arguments", "") for tc in entries)
    assert arguments == compact(EXPECTED[1][1])
    assert "".join(m["content"] for m in sent if m.get("content")) == "On it.\n"


def test_work_per_delta_is_proportional_to_the_delta(mode: str) -> None:
    """A 256 KiB write_file call in 4-character deltas costs about 4x a 64 KiB one: the
    parser is fed each delta, never the text so far."""
    def text_of(kib: int) -> str:
        body = ("x = a < b && c > d  # é\n" * (kib * 1024 // 24))
        return "<tool_call>\n<function=write_file>\n<parameter=content>\n" + body + \
            "</parameter>\n</function>\n</tool_call>"

    small, large = text_of(64), text_of(256)
    tok = tokenizer_for([large])
    cls = composed(tok, "qwen3-coder")
    req = request()

    def run(text: str) -> float:
        ids = tok.encode(text, add_special_tokens=False)
        steps = [ids[i : i + 4] for i in range(0, len(ids), 4)]
        deltas = [tok.decode(s, skip_special_tokens=False) for s in steps]
        parser = cls(tok, req.tools, chat_template_kwargs=None, model_config=None)
        out = Streamed()
        t = time.perf_counter()
        for n, (d, s) in enumerate(zip(deltas, steps)):
            out.add(parser.parse_delta(d, s, req, [1], finished=n == len(steps) - 1))
        elapsed = time.perf_counter() - t
        assert json.loads(out.result()[2][0][1])["content"] == text[
            text.index("content>\n") + 9 : text.index("</parameter>")].removesuffix("\n")
        return elapsed

    best = min(run(large) / run(small) for _ in range(2))
    assert best < 8, f"4x the text took {best:.1f}x the time (linear: 4x; quadratic: 16x)"


@pytest.mark.parametrize("tool_parser,reasoning_parser", [
    ("toolcall-hermes", "qwen3"),   # ours beside vLLM's own reasoning parser
    ("hermes", "toolcall-hermes"),  # vLLM's own tool parser beside ours
])
def test_beside_vllms_own_parsers(plugin: str, tool_parser: str, reasoning_parser: str) -> None:
    text = "<think>Plan.</think>\n\nOn it.\n" + CALLS["hermes"][0]
    tok = tokenizer_for([text])
    cls = ParserManager.get_parser(tool_parser_name=tool_parser,
                                   reasoning_parser_name=reasoning_parser,
                                   enable_auto_tools=True, tokenizer=tok)
    for size in (1, 3, 10_000):
        content, reasoning, calls = drive(tok, cls, text, size).result()
        assert reasoning.strip() == "Plan."
        assert content.strip() == "On it."
        assert [(n, json.loads(a)) for n, a in calls] == [EXPECTED[0]]
