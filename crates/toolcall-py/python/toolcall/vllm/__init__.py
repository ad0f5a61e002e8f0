"""toolcall as a vLLM plugin: a tool parser and a reasoning parser for every dialect.

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin "$(python -m toolcall.vllm --path)" \\
        --tool-call-parser toolcall-qwen3-coder \\
        --reasoning-parser-plugin "$(python -m toolcall.vllm --path)" \\
        --reasoning-parser toolcall-qwen3-coder

Every dialect of :func:`toolcall.dialects` is registered as ``toolcall-<dialect>`` with vLLM's
``ToolParserManager`` and ``ReasoningParserManager``. Importing this module needs no vLLM;
:func:`register` (which the plugin file calls) does.
"""

from __future__ import annotations

import pathlib

__all__ = ["plugin_path", "register", "parser_name"]


def plugin_path() -> str:
    """The file to give ``--tool-parser-plugin`` and ``--reasoning-parser-plugin``."""
    return str(pathlib.Path(__file__).with_name("toolcall_vllm_plugin.py"))


def parser_name(dialect: str) -> str:
    """The name a dialect's parsers are registered under: ``toolcall-<dialect>``."""
    return f"toolcall-{dialect}"


def register() -> list[str]:
    """Registers the tool and reasoning parser of every dialect; returns their names."""
    from ._parsers import register as _register

    return _register()
