"""vLLM's ToolParser and ReasoningParser over toolcall's Rust parser (imports vLLM).

Both are *engine-based* in vLLM's sense (``engine_based_streaming = True``): each request keeps
one :class:`toolcall.StreamParser` that is fed ``delta_text`` only, so the work per delta is
proportional to the delta, never to the text so far (and vLLM, seeing both parsers engine-based,
stops rebuilding ``previous_text + delta_text`` itself). At the end of the stream vLLM calls
``finish_streaming()``, which ends the parser: held-back prose comes out, and a call cut off by
the end is an error, never a call.

A call's arguments stream as they are written (:class:`toolcall.OpenAIDeltas`): its id and name
when its name is read, then fragments of its arguments JSON that concatenate to the final
arguments (strings as they arrive in the raw-text dialects and Hermes, other values once
complete; see the bridge's documentation for ``<tool>``). A call that
turns out truncated or malformed has its fragments stop there; nothing completes it (the serving
layer's ``get_remaining_unstreamed_args`` adds nothing), and its id is listed in the parser's
``failed_tool_call_ids``. A host that must never see a started call fail sets
``TOOLCALL_VLLM_WHOLE_CALLS=1``: each call is then sent whole when complete (id, name and all its
arguments in one delta), and a bad call is never sent.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from typing import Any, Optional

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser, ReasoningParserManager
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

try:  # the id vLLM's own parsers give calls
    from vllm.renderers.chat_utils import make_tool_call_id
except ImportError:  # pragma: no cover - older layouts
    import uuid

    def make_tool_call_id() -> str:  # type: ignore[misc]
        return f"chatcmpl-tool-{uuid.uuid4().hex}"


import toolcall
from toolcall import _native
from toolcall.vllm import parser_name

#: Tokens decoded from the end of a prompt to see whether it leaves reasoning open or closed.
PROMPT_TAIL_TOKENS = 64


def arguments_json(arguments: dict[str, Any]) -> str:
    """A call's arguments as the JSON text of an OpenAI tool call: compact, as the streamed
    fragments are (NaN and the infinities, which JSON cannot hold, as the strings "NaN", "+Inf",
    "-Inf", as toolcall's Rust side writes them)."""
    try:
        return json.dumps(arguments, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:
        return json.dumps(
            _finite(arguments), ensure_ascii=False, allow_nan=False, separators=(",", ":")
        )


def _finite(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("+Inf" if v > 0 else "-Inf")
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_finite(x) for x in v]
    return v


def request_tools(request: Any, fallback: Any = None) -> Optional[list[dict[str, Any]]]:
    """The request's tools as OpenAI-shaped dicts, for typing the arguments."""
    tools = getattr(request, "tools", None) or fallback
    if not tools:
        return None
    out = []
    for t in tools:
        if hasattr(t, "model_dump"):
            t = t.model_dump(exclude_none=True)
        if isinstance(t, dict):
            out.append(t)
    return out or None


class ToolcallToolParser(ToolParser):
    """Tool calls of one dialect (the class attribute ``dialect``) read by toolcall."""

    dialect: str = "tool"
    #: required/named tool_choice go through this parser too: the model writes its own markup,
    #: not the forced JSON.
    supports_required_and_named = False
    engine_based_streaming = True

    #: Send each call whole when it is complete instead of streaming its arguments
    #: (``TOOLCALL_VLLM_WHOLE_CALLS=1``): a call that fails is then never sent at all.
    whole_calls: bool = os.environ.get("TOOLCALL_VLLM_WHOLE_CALLS", "") not in ("", "0")

    def __init__(self, tokenizer: Any, tools: Any = None) -> None:
        super().__init__(tokenizer, tools)
        self._stream: Optional[toolcall.StreamParser] = None
        self._deltas: Optional[toolcall.OpenAIDeltas] = None
        self._finished = False
        #: The ids of calls that were started and then turned out truncated or malformed: a
        #: host must not run them.
        self.failed_tool_call_ids: list[str] = []
        self._call_ids: dict[int, str] = {}

    # The serving layer's state, read at the end of a stream (get_remaining_unstreamed_args):
    # each call's arguments as streamed so far. Fragments are kept as parts and joined only when
    # the state is read, so that a long argument is not copied whole on every delta.

    @property
    def streamed_args_for_tool(self) -> list[str]:  # type: ignore[override]
        self._join_fragments()
        return self._streamed_args

    @streamed_args_for_tool.setter
    def streamed_args_for_tool(self, value: list[str]) -> None:
        self._streamed_args = value
        self._fragments: dict[int, list[str]] = {}

    @property
    def prev_tool_call_arr(self) -> list[dict[str, Any]]:  # type: ignore[override]
        self._join_fragments()
        return self._prev_calls

    @prev_tool_call_arr.setter
    def prev_tool_call_arr(self, value: list[dict[str, Any]]) -> None:
        self._prev_calls = value

    def _join_fragments(self) -> None:
        fragments = self.__dict__.get("_fragments")
        if not fragments:
            return
        for index, parts in fragments.items():
            joined = self._streamed_args[index] + "".join(parts)
            self._streamed_args[index] = joined
            self._prev_calls[index]["arguments"] = joined
        fragments.clear()

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        if getattr(request, "tools", None) and getattr(request, "tool_choice", None) != "none":
            # Call markers are special tokens in some models; skipped, they never reach us.
            request.skip_special_tokens = False
        return request

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        r = toolcall.parse(
            model_output, dialect=self.dialect, tools=request_tools(request, self.tools)
        )
        calls = [
            ToolCall(
                id=make_tool_call_id(),
                type="function",
                function=FunctionCall(
                    name=c["tool_name"], arguments=arguments_json(c["arguments"])
                ),
            )
            for c in r.calls
        ]
        self.prev_tool_call_arr = [
            {"name": c["tool_name"], "arguments": c["arguments"]} for c in r.calls
        ]
        return ExtractedToolCallInformation(
            tools_called=bool(calls), tool_calls=calls, content=r.prose or None
        )

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Optional[DeltaMessage]:
        if self._finished or not delta_text:
            return None
        # Made on first use, on the thread that streams (a parser belongs to its thread); the
        # request's tools are read then, once per request (a model_dump per tool).
        if self.whole_calls:
            if self._stream is None:
                self._stream = toolcall.StreamParser(
                    dialect=self.dialect,
                    tools=request_tools(request, self.tools),
                    argument_deltas=False,
                )
            return self._message(self._stream.feed(delta_text))
        if self._deltas is None:
            self._deltas = toolcall.OpenAIDeltas(
                dialect=self.dialect, tools=request_tools(request, self.tools)
            )
        return self._delta_message(self._deltas.feed(delta_text))

    def finish_streaming(self) -> Optional[DeltaMessage]:
        """The end of the stream: held-back prose; a call still open fails."""
        if self._finished:
            return None
        self._finished = True
        if self._stream is not None:
            return self._message(self._stream.finish())
        if self._deltas is not None:
            return self._delta_message(self._deltas.finish())
        return None

    def _delta_message(self, events: list[dict[str, Any]]) -> Optional[DeltaMessage]:
        """OpenAIDeltas events as one DeltaMessage; the serving layer's state kept.

        The message is built as plain dicts and validated once (``model_validate``): about a
        third cheaper per delta than a DeltaMessage, a DeltaToolCall and a DeltaFunctionCall
        each made and validated on its own, with the same fields set."""
        content: list[str] = []
        calls: list[dict[str, Any]] = []
        for e in events:
            kind = e["event"]
            if kind == "content":
                content.append(e["text"])
            elif kind == "tool_call_start":
                index = e["index"]
                call_id = make_tool_call_id()
                self._call_ids[index] = call_id
                self.current_tool_id = index
                self.current_tool_name_sent = True
                # The arguments as a string: the serving layer compares it with what was
                # streamed and so adds nothing, whether the call completes or not.
                self.prev_tool_call_arr.append({"name": e["name"], "arguments": ""})
                self.streamed_args_for_tool.append("")
                self._fragments[index] = []
                calls.append(
                    {
                        "index": index,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": e["name"]},
                    }
                )
            elif kind == "arguments":
                index = e["index"]
                fragment = e["fragment"]
                self._fragments.setdefault(index, []).append(fragment)
                last = calls[-1] if calls else None
                if last is not None and last["index"] == index:
                    function = last["function"]
                    function["arguments"] = function.get("arguments", "") + fragment
                else:
                    calls.append({"index": index, "function": {"arguments": fragment}})
            elif kind == "call_failed" and e["index"] is not None:
                self.failed_tool_call_ids.append(self._call_ids[e["index"]])
        if not content and not calls:
            return None
        return DeltaMessage.model_validate(
            {"content": "".join(content) or None, "tool_calls": calls}
        )

    def _message(self, events: list[dict[str, Any]]) -> Optional[DeltaMessage]:
        """StreamParser events as one DeltaMessage, each finished call whole."""
        content: list[str] = []
        calls: list[DeltaToolCall] = []
        for e in events:
            kind = e["event"]
            if kind == "prose":
                content.append(e["text"])
            elif kind == "call_finished" and "call" in e:
                call = e["call"]
                index = len(self.prev_tool_call_arr)
                args = arguments_json(call["arguments"])
                self.current_tool_id = index
                self.current_tool_name_sent = True
                self.prev_tool_call_arr.append(
                    {"name": call["tool_name"], "arguments": call["arguments"]}
                )
                self.streamed_args_for_tool.append(args)
                calls.append(
                    DeltaToolCall(
                        index=index,
                        id=make_tool_call_id(),
                        type="function",
                        function=DeltaFunctionCall(name=call["tool_name"], arguments=args),
                    )
                )
        if not content and not calls:
            return None
        return DeltaMessage(content="".join(content) or None, tool_calls=calls)


class ToolcallReasoningParser(ReasoningParser):
    """The reasoning block of one dialect (``<think>…</think>``, ``<seed:think>…``) split off by
    toolcall (docs/FORMAT.md §10): the text after it goes on, markup included, to the tool
    parser."""

    dialect: str = "tool"
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self._open, self._close = _native.reasoning_markers(self.dialect)
        self._starts_open = False
        self._stream: Optional[toolcall.StreamParser] = None
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._answer_seen = False
        self._close_seen = False
        self._carry = ""
        self._ended = False

    @property
    def reasoning_start_str(self) -> Optional[str]:
        return self._open

    @property
    def reasoning_end_str(self) -> Optional[str]:
        return self._close

    # -- token-id questions: answered from the decoded tail ------------------------------------

    def _tail(self, input_ids: Sequence[int]) -> str:
        ids = list(input_ids[-PROMPT_TAIL_TOKENS:])
        if not ids:
            return ""
        return self.model_tokenizer.decode(ids, skip_special_tokens=False)

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        """Whether the ids end after a closed reasoning block (a chat template that turns
        thinking off writes ``<think>\\n\\n</think>`` at the end of the prompt)."""
        return self._tail(input_ids).rstrip().endswith(self._close)

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        tail = self._tail(prompt_token_ids)
        self._starts_open = tail.rfind(self._open) > tail.rfind(self._close)

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        return input_ids

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return self._ended

    # -- text -------------------------------------------------------------------------------

    def _split(self, text: str, reasoning: str, answer_seen: bool) -> Optional[int]:
        """Where the answer starts in ``text``, once that is certain; None before."""
        if self._starts_open:
            start = 0
        else:
            body = text.lstrip()
            if not body.startswith(self._open):
                # No reasoning block: the answer is everything (once toolcall says so).
                return 0 if answer_seen or (body and not self._open.startswith(body)) else None
            start = len(text) - len(body) + len(self._open)
        end = start + len(reasoning)
        if not text.startswith(self._close, end):
            # Ended by a call marker (policy `end`): the call is the answer's.
            return end if answer_seen else None
        after = end + len(self._close)
        # A repeated closing marker right after the block is dropped (FORMAT.md §10).
        rest = text[after:]
        blank = len(rest) - len(rest.lstrip())
        if rest.startswith(self._close, blank):
            return after + blank + len(self._close)
        if answer_seen or (rest.strip() and not self._close.startswith(rest.lstrip())):
            return after
        return None

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[Optional[str], Optional[str]]:
        r = toolcall.parse(
            model_output, dialect=self.dialect, reasoning=True, reasoning_open=self._starts_open
        )
        at = self._split(model_output, r.reasoning, True)
        if at is None:  # the output ended inside reasoning
            return r.reasoning or None, None
        return r.reasoning or None, model_output[at:] or None

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> Optional[DeltaMessage]:
        if self._ended:
            return DeltaMessage(content=delta_text) if delta_text else None
        if self._stream is None:
            self._stream = toolcall.StreamParser(
                dialect=self.dialect,
                reasoning=True,
                reasoning_open=self._starts_open,
                argument_deltas=False,
            )
        # Whether the closing marker has been written, looked for in the delta and the few
        # characters before it: nothing is rescanned while reasoning goes on.
        window = self._carry + delta_text
        self._close_seen = self._close_seen or self._close in window
        keep = len(self._close) - 1
        self._carry = window[-keep:] if keep > 0 else ""
        self._text.append(delta_text)
        return self._take(self._stream.feed(delta_text))

    def _take(self, events: list[dict[str, Any]]) -> Optional[DeltaMessage]:
        new = [e["text"] for e in events if e["event"] == "reasoning"]
        self._reasoning.extend(new)
        self._answer_seen = self._answer_seen or any(e["event"] != "reasoning" for e in events)
        if not (self._answer_seen or self._close_seen):
            return DeltaMessage(reasoning="".join(new)) if new else None
        # Only now is the text joined: where the answer starts is decided within a few deltas.
        text = "".join(self._text)
        self._text = [text]
        at = self._split(text, "".join(self._reasoning), self._answer_seen)
        content = None
        if at is not None:
            self._ended = True
            content = text[at:] or None
            self._text = []
        if not new and content is None:
            return None
        return DeltaMessage(reasoning="".join(new) or None, content=content)

    def finish_streaming(self) -> Optional[DeltaMessage]:
        """The stream ended while still in reasoning (or just after it)."""
        if self._ended or self._stream is None:
            return None
        self._answer_seen = True  # nothing follows: wherever reasoning stopped, it ended
        message = self._take(self._stream.finish())
        self._ended = True
        return message


def register() -> list[str]:
    """A tool parser and a reasoning parser named ``toolcall-<dialect>`` for every dialect."""
    names = []
    for dialect in toolcall.dialects():
        name = parser_name(dialect)
        title = "".join(p.capitalize() for p in dialect.replace("_", "-").split("-"))
        tool_cls = type(f"Toolcall{title}ToolParser", (ToolcallToolParser,), {"dialect": dialect})
        reasoning_cls = type(
            f"Toolcall{title}ReasoningParser", (ToolcallReasoningParser,), {"dialect": dialect}
        )
        ToolParserManager.register_module(name=name, module=tool_cls)
        ReasoningParserManager.register_module(name=name, module=reasoning_cls)
        names.append(name)
    return names
