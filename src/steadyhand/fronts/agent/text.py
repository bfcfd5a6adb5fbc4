"""What a model reads back from a command: the same text for MCP and for LLM tool results.

The same short reply the CLI prints (fronts/reply.py): a snapshot as its text under a
one-line header, an act as one status line and its changes, other results without their
empty and default fields. The whole result travels beside it as data (MCP's structured
content, the tool result's `data`). An error is two lines a model can act on: the code and
message, then the hint.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from steadyhand.commands import COMMANDS
from steadyhand.errors import SteadyhandError
from steadyhand.fronts import reply
from steadyhand.fronts.cli.spec import result_defaults


def result_text(data: Any, command: str | None = None) -> str:
    """The text of one command's JSON result (`command`: its name, for how it is written)."""
    forms = command_forms()
    form = forms.get(command or "")
    return reply.render(
        data, form, forms=forms if (form or {}).get("reply") == reply.BATCH else None
    )


@functools.cache
def command_forms() -> dict[str, dict[str, Any]]:
    """How each command's result is written, by name (as cli_spec.json has it)."""
    return {
        name: {"reply": c.result.REPLY, "result_defaults": result_defaults(c.result)}
        for name, c in COMMANDS.items()
    }


def error_text(error: SteadyhandError) -> str:
    """`error [code]: message` and `hint: ...`, plus the error's data when it has any."""
    lines = [f"error [{error.code}]: {error.message}"]
    if error.hint:
        lines.append(f"hint: {error.hint}")
    if error.data:
        lines.append("data: " + json.dumps(error.data, separators=(",", ":"), default=str))
    return "\n".join(lines)
