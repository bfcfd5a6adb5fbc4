"""What a model reads back from a command: the same text for MCP and for LLM tool results.

The same short reply the CLI prints (fronts/reply.py): a snapshot as its text under a
one-line header, an act as one status line and its changes, other results without their
empty and default fields. The whole result travels beside it as data (MCP's structured
content, the tool result's `data`). An error is two lines a model can act on: the code and
message, then the hint.
"""

from __future__ import annotations

import json
from typing import Any

from steadyhand.commands import COMMANDS
from steadyhand.errors import SteadyhandError
from steadyhand.fronts import reply
from steadyhand.fronts.cli_spec import result_defaults


def result_text(data: Any, command: str | None = None) -> str:
    """The text of one command's JSON result (`command`: its name, for its defaults)."""
    known = COMMANDS.get(command or "")
    steps = (
        {name: result_defaults(c.result) for name, c in COMMANDS.items()}
        if reply.is_batch(data)
        else None
    )
    return reply.render(data, result_defaults(known.result) if known else None, step_defaults=steps)


def error_text(error: SteadyhandError) -> str:
    """`error [code]: message` and `hint: ...`, plus the error's data when it has any."""
    lines = [f"error [{error.code}]: {error.message}"]
    if error.hint:
        lines.append(f"hint: {error.hint}")
    if error.data:
        lines.append("data: " + json.dumps(error.data, separators=(",", ":"), default=str))
    return "\n".join(lines)
