"""What a model reads back from a command: the same text for MCP and for LLM tool results.

A snapshot (or any result with a `text` block) is handed over as the text itself under a
one-line header, because that is what the model acts on; other results as compact JSON.
An error is two lines a model can act on: the code and message, then the hint.
"""

from __future__ import annotations

import json
from typing import Any

from steadyhand.errors import SteadyhandError

TEXT_BLOCKS = ("snapshot", "text")
SHOWN_IN_TEXT = ("actions",)  # a timeline's entries: its text says all a model needs


def result_text(data: Any) -> str:
    """The text of one command's JSON result."""
    if isinstance(data, dict):
        for block in TEXT_BLOCKS:
            if isinstance(data.get(block), str):
                shown = (block, "tab", "title", "url", *SHOWN_IN_TEXT)
                rest = {k: v for k, v in data.items() if k not in shown}
                extra = f"\n{json.dumps(rest, separators=(',', ':'))}" if rest else ""
                if "url" not in data:  # not a page's text: a timeline
                    return f"{data[block]}{extra}"
                header = " · ".join(str(data.get(k) or "-") for k in ("tab", "title", "url"))
                return f"# {header}\n{data[block]}{extra}"
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def error_text(error: SteadyhandError) -> str:
    """`error [code]: message` and `hint: ...`, plus the error's data when it has any."""
    lines = [f"error [{error.code}]: {error.message}"]
    if error.hint:
        lines.append(f"hint: {error.hint}")
    if error.data:
        lines.append("data: " + json.dumps(error.data, separators=(",", ":"), default=str))
    return "\n".join(lines)
