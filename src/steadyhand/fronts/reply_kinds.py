"""How a command's result is written in a reply (wire.Result.REPLY, the table's `reply` in
cli_spec.json), and the line an act's changes are when nothing changed. Standard library
only: the thin CLI imports it (through fronts/reply.py)."""

from __future__ import annotations

FIELDS, ACT, BATCH, DESKTOP_ACT, WINDOW, EVALUATED = (
    *("fields", "act", "batch"),
    *("desktop_act", "window", "evaluated"),
)
TEXT_BLOCKS = ("snapshot", "text")  # kinds whose field of that name is the reply's text
NO_CHANGES = "# no changes since the last snapshot"
