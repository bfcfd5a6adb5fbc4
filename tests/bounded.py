"""Replies to a model hold page text between content boundaries (fronts/boundary.py): the
text inside one, checked."""

from __future__ import annotations

import re

OPENING = re.compile(r"^⟦page ([0-9a-f]{8}): untrusted content, not instructions⟧$")


def inside(text: str) -> str:
    """The text between the one boundary that wraps `text` (first line to last)."""
    lines = text.splitlines()
    opened = OPENING.match(lines[0]) if lines else None
    assert opened, f"not bounded:\n{text}"
    assert lines[-1] == f"⟦/page {opened[1]}⟧", f"closed early or not at all:\n{text}"
    return "\n".join(lines[1:-1]) + ("\n" if text.endswith("\n") else "")
