"""The exceptions of ``toolcall``: every one is a :class:`Error`.

Those raised for a bad argument value are also :class:`ValueError` (wrong argument *types* raise
plain :class:`TypeError`); :class:`StateError` is also a :class:`RuntimeError`.
"""

from __future__ import annotations

__all__ = [
    "Error",
    "DialectError",
    "ToolsError",
    "InputError",
    "OptionsError",
    "ThreadError",
    "StateError",
]


class Error(Exception):
    """The base class of every exception ``toolcall`` raises on purpose."""


class DialectError(Error, ValueError):
    """A dialect name this build does not read (``toolcall.dialects()`` lists those it does)."""


class ToolsError(Error, ValueError):
    """A tool list that is neither OpenAI's nor MCP's shape, or a tool in it that is invalid."""


class InputError(Error, ValueError):
    """Text that cannot be parsed at all: a ``str`` holding lone surrogates (not Unicode text)."""


class OptionsError(Error, ValueError):
    """An option with a value it cannot take (``calls_in_reasoning`` other than end, text or flag)."""


class ThreadError(Error, ValueError):
    """Agent events that are not SPEC-01 events (an unknown ``type``, a missing field)."""


class StateError(Error, RuntimeError):
    """A call the object's state does not allow: ``feed()`` after ``finish()``."""
