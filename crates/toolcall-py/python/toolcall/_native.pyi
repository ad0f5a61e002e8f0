"""Type stubs of the Rust extension ``toolcall._native`` (use it through ``toolcall``)."""

from typing import Any, Optional

__version__: str

def parse(
    text: str,
    dialect: Optional[str] = None,
    tools: Optional[Any] = None,
    reasoning: bool = False,
    reasoning_open: bool = False,
    calls_in_reasoning: Optional[str] = None,
) -> dict[str, Any]:
    """``{"calls", "errors", "prose", "reasoning"}`` of a whole response."""

def serialize_thread(events_json: str, response_prefix: Optional[str] = None) -> str:
    """The ``<thread>`` document of a JSON array of agent events."""

def system_prompt(tools: Optional[Any] = None) -> str:
    """The system-prompt section: the format instructions and the tools."""

def dialects() -> list[str]:
    """The dialect names this build reads."""

def reasoning_markers(dialect: str) -> tuple[str, str]:
    """The opening and closing markers of the dialect's reasoning block."""

class StreamParser:
    """The incremental parser; belongs to the thread that made it."""

    def __init__(
        self,
        dialect: Optional[str] = None,
        tools: Optional[Any] = None,
        reasoning: bool = False,
        reasoning_open: bool = False,
        calls_in_reasoning: Optional[str] = None,
        argument_deltas: bool = True,
    ) -> None: ...
    def feed(self, chunk: str) -> list[dict[str, Any]]:
        """Reads the next chunk; returns the events it made certain."""
    def finish(self) -> list[dict[str, Any]]:
        """Ends the input; calling it again returns no events."""
    @property
    def finished(self) -> bool:
        """Whether ``finish()`` was called."""

class OpenAIDeltas:
    """OpenAI-style streamed ``tool_calls`` deltas; belongs to the thread that made it."""

    def __init__(
        self,
        dialect: Optional[str] = None,
        tools: Optional[Any] = None,
        reasoning: bool = False,
        reasoning_open: bool = False,
        calls_in_reasoning: Optional[str] = None,
    ) -> None: ...
    def feed(self, chunk: str) -> list[dict[str, Any]]:
        """Reads the next chunk; returns the deltas it made certain."""
    def finish(self) -> list[dict[str, Any]]:
        """Ends the input; calling it again returns no events."""
    @property
    def finished(self) -> bool:
        """Whether ``finish()`` was called."""
