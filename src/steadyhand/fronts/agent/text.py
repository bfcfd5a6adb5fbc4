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
from steadyhand.fronts.boundary import bounded, escape
from steadyhand.fronts.cli.spec import result_defaults
from steadyhand.fronts.reply_kinds import BATCH


def result_text(data: Any, command: str | None = None, boundary: str | None = None) -> str:
    """The text of one command's JSON result (`command`: its name, for how it is written;
    `boundary`: the marker id page text goes between, fronts/boundary.py)."""
    forms = command_forms()
    form = forms.get(command or "")
    batch = (form or {}).get("reply") == BATCH
    return reply.render(data, form, forms=forms if batch else None, boundary=boundary)


@functools.cache
def command_forms() -> dict[str, dict[str, Any]]:
    """How each command's result is written, by name (as cli_spec.json has it)."""
    return {
        name: {
            "reply": c.result.REPLY,
            "result_defaults": result_defaults(c.result),
            "page_text": c.result.PAGE_TEXT,
        }
        for name, c in COMMANDS.items()
    }


# Exit codes of errors in steadyhand's own words: a bad input (2), the daemon (6).
OWN_ERRORS = frozenset({2, 6})


def error_text(error: SteadyhandError, boundary: str | None = None) -> str:
    """`error [code]: message` and `hint: ...`, plus the error's data when it has any.

    With a `boundary`, an error about the page (any but a bad input's or the daemon's) has
    its message and data (which may quote the page: a dialog's text, the candidates' names)
    between its markers, under `error [code]`; the hint stays out.
    """
    shown = dict(error.data)
    # A page's snapshot in the data (a flow's divergence: `saw`) reads as the page, below.
    saw = shown.pop("saw") if isinstance(shown.get("saw"), str) else None
    data = ["data: " + json.dumps(shown, separators=(",", ":"), default=str)] if shown else []
    data += ["the page now:", saw] if saw else []
    if boundary is not None and error.code.exit_code in OWN_ERRORS:
        return escape(error_text(error))
    if boundary is None:
        lines = [f"error [{error.code}]: {error.message}"]
        lines += [f"hint: {error.hint}"] if error.hint else []
        return "\n".join(lines + data)
    said = bounded("\n".join([error.message, *data]), boundary)
    hint = [escape(f"hint: {error.hint}")] if error.hint else []
    return "\n".join([f"error [{error.code}]", said, *hint])
