"""Flows in the store, versioned: a fleet sharing the store shares them (store/base.py's
Store has these methods)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.vault import mask_text

SAVE_TRIES = 3  # daemons saving the same name at once: each gets its own next version


@dataclass(frozen=True)
class FlowRow:
    name: str
    version: int
    ts: float
    body: dict[str, Any]


@dataclass(frozen=True)
class FlowListing:
    name: str
    version: int  # the newest
    versions: int
    ts: float  # when the newest was saved
    steps: int
    description: str


class FlowRows:
    """The store's flow methods (mixed into Store: they use its connections)."""

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    def _one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        raise NotImplementedError

    def _write(self, sql: str, args: Sequence[Any] = ()) -> int:
        raise NotImplementedError

    def count_actions(self, session: str, after: int, upto: int) -> int:
        """How many actions of `session` lie after id `after`, up to id `upto`."""
        row = self._one(
            "SELECT COUNT(*) FROM action_log WHERE session = ? AND id > ? AND id <= ?",
            (session, after, upto),
        )
        return int(row[0])

    def save_flow(self, name: str, body: dict[str, Any]) -> int:
        """Store `body` as the next version of flow `name`; that version."""
        for _ in range(SAVE_TRIES):
            last = self._one("SELECT COALESCE(MAX(version), 0) FROM flows WHERE name = ?", (name,))
            version = int(last[0]) + 1
            dumped = mask_text(json.dumps({**body, "version": version}, ensure_ascii=False))
            added = self._write(
                "INSERT INTO flows (name, version, ts, body_json) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (name, version) DO NOTHING",
                (name, version, time.time(), dumped),
            )
            if added == 1:
                return version
        raise SteadyhandError(
            ErrorCode.TIMEOUT,
            f"flow {name!r} was saved by others {SAVE_TRIES} times while this save tried",
            "save it again",
        )

    def flow(self, name: str, version: int | None = None) -> FlowRow | None:
        """Flow `name` at `version` (None: its newest)."""
        if version is None:
            row = self._one(
                "SELECT version, ts, body_json FROM flows WHERE name = ?"
                " ORDER BY version DESC LIMIT 1",
                (name,),
            )
        else:
            row = self._one(
                "SELECT version, ts, body_json FROM flows WHERE name = ? AND version = ?",
                (name, version),
            )
        return (
            None if row is None else FlowRow(name, int(row[0]), float(row[1]), json.loads(row[2]))
        )

    def flow_versions(self, name: str) -> list[int]:
        rows = self._all("SELECT version FROM flows WHERE name = ? ORDER BY version", (name,))
        return [int(r[0]) for r in rows]

    def flows(self) -> list[FlowListing]:
        """Every flow's newest version, by name."""
        rows = self._all(
            "SELECT f.name, f.version, f.ts, f.body_json, c.n FROM flows f JOIN"
            " (SELECT name, MAX(version) AS top, COUNT(*) AS n FROM flows GROUP BY name) c"
            " ON f.name = c.name AND f.version = c.top ORDER BY f.name"
        )
        listed = []
        for name, version, ts, body_json, count in rows:
            body = json.loads(body_json)
            steps = len(body.get("steps") or [])
            about = str(body.get("description") or "")
            listed.append(FlowListing(name, int(version), int(count), float(ts), steps, about))
        return listed

    def forget_flow(self, name: str, version: int | None = None) -> int:
        """Drop flow `name` (one version, or all of them); how many versions went."""
        if version is None:
            return self._write("DELETE FROM flows WHERE name = ?", (name,))
        return self._write("DELETE FROM flows WHERE name = ? AND version = ?", (name, version))
