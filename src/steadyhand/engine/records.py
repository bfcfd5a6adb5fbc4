"""Where each session stands: one record per session, its status the engine's one state
machine.

    (new) ──open──> active ──suspend, daemon stop──> suspended ──restore──> restoring
    restoring ──> active, or back to what it was when the restore fails
    active ──browser crash, hung page──> recovering ──> active, or lost (no checkpoint)
    active ──the attached application quit──> lost
    active, suspended, lost ──close──> closed;   lost, closed ──open──> active (anew)

A live session's `Session` is in the pool (pool.py: opening, the cap, closing); the store's
`sessions.status` column is what a restart (or another daemon) sees of it. A session that
another daemon took over is forgotten here (no record). A move the table does not allow is
a bug, raised as one.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["active", "suspended", "restoring", "recovering", "lost", "closed"]
# The statuses each status may move to (None: a session this engine has no record of).
MOVES: dict[Status | None, frozenset[Status]] = {
    None: frozenset({"active", "suspended", "restoring", "lost", "closed"}),
    "active": frozenset({"active", "suspended", "recovering", "lost", "closed"}),
    "suspended": frozenset({"suspended", "restoring", "active", "closed"}),
    "restoring": frozenset({"active", "suspended", "lost"}),
    "recovering": frozenset({"active", "lost"}),
    "lost": frozenset({"active", "suspended", "restoring", "closed"}),
    "closed": frozenset({"active", "suspended", "restoring", "closed"}),
}
IN_FLIGHT: frozenset[Status] = frozenset({"restoring", "recovering"})


@dataclass
class SessionRecord:
    name: str
    status: Status
    why: str = ""  # lost: why it could not be recovered
    # restoring, recovering: the work bringing it back, which commands on it wait for
    task: asyncio.Task[Any] | None = None


class SessionRecords:
    """The engine's records, by session name."""

    def __init__(self) -> None:
        self._records: dict[str, SessionRecord] = {}

    def status(self, name: str) -> Status | None:
        record = self._records.get(name)
        return None if record is None else record.status

    def get(self, name: str) -> SessionRecord | None:
        return self._records.get(name)

    def move(
        self, name: str, status: Status, *, why: str = "", task: asyncio.Task[Any] | None = None
    ) -> SessionRecord:
        """Set `name`'s status; `why` for lost, `task` for restoring and recovering."""
        now = self.status(name)
        if status not in MOVES[now]:
            raise RuntimeError(f"session {name!r}: no move from {now or 'new'} to {status}")
        record = SessionRecord(name, status, why, task if status in IN_FLIGHT else None)
        self._records[name] = record
        return record

    def put_back(self, record: SessionRecord | None, name: str) -> None:
        """Undo a move: `record` is what `name` had before it (None: no record)."""
        if record is None:
            self._records.pop(name, None)
        else:
            self._records[name] = record

    def forget(self, name: str) -> None:
        """No record of `name` here any more (another daemon runs it)."""
        self._records.pop(name, None)

    def named(self, *statuses: Status) -> set[str]:
        return {name for name, r in self._records.items() if r.status in statuses}

    def in_flight(self, name: str) -> asyncio.Task[Any] | None:
        """The restore or recovery bringing `name` back, while it runs."""
        record = self._records.get(name)
        return None if record is None or record.status not in IN_FLIGHT else record.task
