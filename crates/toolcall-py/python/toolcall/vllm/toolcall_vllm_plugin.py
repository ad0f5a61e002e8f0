"""The file vLLM imports (``--tool-parser-plugin`` / ``--reasoning-parser-plugin``): it registers
toolcall's parsers, ``toolcall-<dialect>`` for every dialect."""

from toolcall.vllm import register

PARSERS = register()
