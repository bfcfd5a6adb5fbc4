"""The embedded store: one SQLite file (WAL) with sessions, the action log and approvals.

The schema is versioned with `PRAGMA user_version`; MIGRATIONS[i] moves a database from
version i to i+1, so later issues append to the list and never edit a shipped step.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steadyhand.vault import mask_text

MIGRATIONS: list[str] = [
    """
    CREATE TABLE sessions (
        name        TEXT PRIMARY KEY,
        status      TEXT NOT NULL,
        created_at  REAL NOT NULL,
        updated_at  REAL NOT NULL
    );
    CREATE TABLE action_log (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        ts             REAL NOT NULL,
        session        TEXT,
        tab            TEXT,
        command        TEXT NOT NULL,
        params_json    TEXT NOT NULL,
        ok             INTEGER NOT NULL,
        error_code     TEXT,
        error_message  TEXT,
        duration_ms    REAL NOT NULL
    );
    CREATE INDEX action_log_session ON action_log (session, id);
    """,
    # The action engine: each row keeps the whole result (or error with its data).
    """
    ALTER TABLE action_log ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE action_log ADD COLUMN artifacts_json TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE action_log ADD COLUMN result_json TEXT;
    """,
    # Sessions that survive: a profile per session, and checkpoints to restore from.
    """
    ALTER TABLE sessions ADD COLUMN profile TEXT;
    CREATE TABLE checkpoints (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        session      TEXT NOT NULL,
        ts           REAL NOT NULL,
        reason       TEXT NOT NULL,
        last_action  INTEGER NOT NULL,
        state_json   TEXT NOT NULL
    );
    CREATE INDEX checkpoints_session ON checkpoints (session, id);
    """,
    # Approvals: calls a person approved or denied (params redacted as in the action log).
    """
    CREATE TABLE approvals (
        id            TEXT PRIMARY KEY,
        session       TEXT,
        command       TEXT NOT NULL,
        target        TEXT NOT NULL,
        params_json   TEXT NOT NULL,
        reason        TEXT NOT NULL,
        status        TEXT NOT NULL,
        requested_at  REAL NOT NULL,
        decided_at    REAL,
        note          TEXT
    );
    CREATE INDEX approvals_status ON approvals (status, requested_at);
    """,
    # Observability: the request id a log line names, and an index of every file written.
    """
    ALTER TABLE action_log ADD COLUMN request_id TEXT;
    CREATE TABLE artifacts (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        session    TEXT NOT NULL,
        action_id  INTEGER,
        ts         REAL NOT NULL,
        kind       TEXT NOT NULL,
        label      TEXT NOT NULL,
        path       TEXT NOT NULL,
        bytes      INTEGER NOT NULL
    );
    CREATE INDEX artifacts_session ON artifacts (session, id);
    CREATE INDEX artifacts_action ON artifacts (action_id);
    """,
]
KEEP_CHECKPOINTS = 3  # per session: the newest, and two to fall back on
SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True)
class ActionRow:
    id: int
    ts: float
    session: str | None
    tab: str | None
    command: str
    params: dict[str, Any]
    ok: bool
    error_code: str | None
    error_message: str | None
    duration_ms: float
    retries: int = 0
    artifacts: tuple[str, ...] = ()
    result: dict[str, Any] | None = None  # the result, or the error with its data
    request_id: str | None = None


@dataclass(frozen=True)
class ArtifactFile:
    """A file a command wrote: what it is, and the label in its name."""

    kind: str  # screenshot, pdf, download or trace
    label: str  # e.g. failure, before, after, page, the tab id, or a download's name
    path: str
    bytes: int


@dataclass(frozen=True)
class ArtifactRow:
    id: int
    session: str
    action_id: int | None
    ts: float
    kind: str
    label: str
    path: str
    bytes: int


ARTIFACT_COLUMNS = "id, session, action_id, ts, kind, label, path, bytes"


@dataclass(frozen=True)
class Checkpoint:
    session: str
    ts: float
    reason: str
    last_action: int  # the action_log id of the last action the state includes
    state: dict[str, Any]


@dataclass(frozen=True)
class ApprovalRow:
    id: str
    session: str | None
    command: str
    target: str
    params: dict[str, Any]
    reason: str
    status: str  # pending, approved, denied, expired or cancelled
    requested_at: float
    decided_at: float | None = None
    note: str | None = None


APPROVAL_COLUMNS = (
    "id, session, command, target, params_json, reason, status, requested_at, decided_at, note"
)


@dataclass(frozen=True)
class SessionRow:
    name: str
    status: str
    profile: str | None
    created_at: float
    updated_at: float


class Store:
    """Thread-safe access to the SQLite file; callers on the event loop use to_thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # Create the file private to the user before SQLite opens it.
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        os.chmod(path, 0o600)
        self._lock = threading.Lock()
        # Told each status a session enters (the daemon's metrics count them).
        self.on_session_status: Callable[[str], None] | None = None
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._migrate()

    def _migrate(self) -> None:
        with self._lock:
            version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.path} has schema version {version}, newer than this "
                    f"steadyhand ({SCHEMA_VERSION}); upgrade steadyhand"
                )
            for step in range(version, SCHEMA_VERSION):
                # One script, one transaction: a failed step leaves the previous version.
                script = f"BEGIN IMMEDIATE;\n{MIGRATIONS[step]}\nPRAGMA user_version = {step + 1};"
                try:
                    self._db.executescript(script + "\nCOMMIT;")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise

    @property
    def schema_version(self) -> int:
        with self._lock:
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def set_session_status(self, name: str, status: str, profile: str | None = None) -> None:
        """Record a session's status (and its profile, when given)."""
        now = time.time()
        with self._lock:
            self._db.execute(
                "INSERT INTO sessions (name, status, created_at, updated_at, profile)"
                " VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET status = excluded.status,"
                " updated_at = excluded.updated_at,"
                " profile = COALESCE(excluded.profile, sessions.profile)",
                (name, status, now, now, profile),
            )
        if self.on_session_status is not None:
            self.on_session_status(status)

    def session_rows(self) -> list[SessionRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT name, status, profile, created_at, updated_at FROM sessions ORDER BY name"
            ).fetchall()
        return [SessionRow(*row) for row in rows]

    def save_checkpoint(self, session: str, reason: str, state: dict[str, Any]) -> Checkpoint:
        """Store the session's state as its newest checkpoint (older ones beyond a few go)."""
        now = time.time()
        payload = json.dumps(state, sort_keys=True)
        with self._lock:
            last = self._db.execute(
                "SELECT COALESCE(MAX(id), 0) FROM action_log WHERE session = ?", (session,)
            ).fetchone()[0]
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO checkpoints (session, ts, reason, last_action, state_json)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (session, now, reason, last, payload),
                )
                self._db.execute(
                    "DELETE FROM checkpoints WHERE session = ? AND id NOT IN (SELECT id FROM"
                    " checkpoints WHERE session = ? ORDER BY id DESC LIMIT ?)",
                    (session, session, KEEP_CHECKPOINTS),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Checkpoint(session, now, reason, int(last), state)

    def latest_checkpoint(self, session: str) -> Checkpoint | None:
        with self._lock:
            row = self._db.execute(
                "SELECT ts, reason, last_action, state_json FROM checkpoints WHERE session = ?"
                " ORDER BY id DESC LIMIT 1",
                (session,),
            ).fetchone()
        if row is None:
            return None
        return Checkpoint(session, row[0], row[1], row[2], json.loads(row[3]))

    def checkpoint_times(self) -> dict[str, float]:
        """Each session's newest checkpoint time."""
        with self._lock:
            rows = self._db.execute("SELECT session, MAX(ts) FROM checkpoints GROUP BY session")
            return {name: float(ts) for name, ts in rows.fetchall()}

    def last_actions(self) -> dict[str, ActionRow]:
        """Each session's newest action_log row."""
        with self._lock:
            ids = [
                int(r[0])
                for r in self._db.execute(
                    "SELECT MAX(id) FROM action_log WHERE session IS NOT NULL GROUP BY session"
                ).fetchall()
            ]
        if not ids:
            return {}
        rows = self._rows(f"WHERE id IN ({','.join('?' * len(ids))})", tuple(ids), len(ids))
        return {row.session: row for row in rows if row.session is not None}

    def forget_checkpoints(self, session: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM checkpoints WHERE session = ?", (session,))

    def retire_sessions(self, status: str, new_status: str) -> int:
        """Move every session with `status` to `new_status`; return how many moved."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE sessions SET status = ?, updated_at = ? WHERE status = ?",
                (new_status, time.time(), status),
            )
            return cursor.rowcount

    def log_action(
        self,
        *,
        session: str | None,
        tab: str | None,
        command: str,
        params: dict[str, Any],
        ok: bool,
        error_code: str | None,
        error_message: str | None,
        duration_ms: float,
        retries: int = 0,
        artifacts: list[str] | None = None,
        result: dict[str, Any] | None = None,
        request_id: str | None = None,
        files: list[ArtifactFile] | None = None,
    ) -> int:
        """Append one action, and index the files it wrote, in one transaction."""
        now = time.time()
        paths = [*dict.fromkeys([*(artifacts or []), *(f.path for f in files or [])])]
        # No value of a named secret is written (steadyhand/vault.py), whatever the caller
        # passed: the rows are what `trace` and the report show.
        row: tuple[Any, ...] = (now, session, tab, command)
        row += (mask_text(json.dumps(params, sort_keys=True, default=str)),)
        message = None if error_message is None else mask_text(error_message)
        row += (int(ok), error_code, message, duration_ms, retries, json.dumps(paths))
        dumped = None if result is None else json.dumps(result, sort_keys=True, default=str)
        row += (None if dumped is None else mask_text(dumped),)
        row += (request_id,)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(
                    "INSERT INTO action_log (ts, session, tab, command, params_json, ok,"
                    " error_code, error_message, duration_ms, retries, artifacts_json,"
                    " result_json, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
                action_id = int(cursor.lastrowid or 0)
                self._db.executemany(
                    f"INSERT INTO artifacts ({ARTIFACT_COLUMNS}) VALUES (NULL,?,?,?,?,?,?,?)",
                    [
                        (session or "default", action_id, now, f.kind, f.label, f.path, f.bytes)
                        for f in files or []
                    ],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return action_id

    def artifacts(self, session: str | None = None) -> list[ArtifactRow]:
        """Indexed files, oldest first, optionally of one session."""
        where, args = ("WHERE session = ?", (session,)) if session is not None else ("", ())
        with self._lock:
            rows = self._db.execute(
                f"SELECT {ARTIFACT_COLUMNS} FROM artifacts {where} ORDER BY id", args
            ).fetchall()
        return [ArtifactRow(*r) for r in rows]

    def forget_artifacts(self, ids: list[int]) -> None:
        """Drop index rows (their files are gone)."""
        with self._lock:
            self._db.executemany("DELETE FROM artifacts WHERE id = ?", [(i,) for i in ids])

    def actions(
        self, session: str | None = None, limit: int = 1000, after: int = 0
    ) -> list[ActionRow]:
        """The action log, oldest first, optionally for one session or after an id."""
        if session is None:
            return self._rows("WHERE id > ?", (after,), limit)
        return self._rows("WHERE id > ? AND session = ?", (after, session), limit)

    def life_start(self, session: str) -> int:
        """The id of the session name's last successful `close` that something followed
        (0: none); its actions after it are its latest life."""
        with self._lock:
            row = self._db.execute(
                "SELECT MAX(id) FROM action_log WHERE session = ? AND command = 'close'"
                " AND ok = 1 AND id < (SELECT MAX(id) FROM action_log WHERE session = ?)",
                (session, session),
            ).fetchone()
        return int(row[0] or 0)

    def _rows(self, where: str, args: tuple[Any, ...], limit: int) -> list[ActionRow]:
        query = (
            "SELECT id, ts, session, tab, command, params_json, ok, error_code, error_message,"
            " duration_ms, retries, artifacts_json, result_json, request_id"
            f" FROM action_log {where}"
            " ORDER BY id DESC LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(query, (*args, limit)).fetchall()
        return [
            ActionRow(
                id=r[0],
                ts=r[1],
                session=r[2],
                tab=r[3],
                command=r[4],
                params=json.loads(r[5]),
                ok=bool(r[6]),
                error_code=r[7],
                error_message=r[8],
                duration_ms=r[9],
                retries=r[10],
                artifacts=tuple(json.loads(r[11])),
                result=None if r[12] is None else json.loads(r[12]),
                request_id=r[13],
            )
            for r in reversed(rows)
        ]

    def add_approval(self, row: ApprovalRow) -> bool:
        """Store a new approval; False when its id is taken."""
        values: tuple[Any, ...] = (row.id, row.session, row.command, mask_text(row.target))
        values += (mask_text(json.dumps(row.params)), mask_text(row.reason))
        values += (row.status, row.requested_at)
        values += (row.decided_at, row.note)
        try:
            with self._lock:
                self._db.execute(
                    f"INSERT INTO approvals ({APPROVAL_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    values,
                )
        except sqlite3.IntegrityError:
            return False
        return True

    def settle_approval(
        self, approval_id: str, status: str, note: str | None, decided_at: float
    ) -> bool:
        """Record the decision on a pending approval; False when it was not pending."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE approvals SET status = ?, note = ?, decided_at = ?"
                " WHERE id = ? AND status = 'pending'",
                (status, note, decided_at, approval_id),
            )
            return cursor.rowcount == 1

    def cancel_pending_approvals(self, note: str) -> int:
        """Settle every pending approval as cancelled (their daemon is gone)."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE approvals SET status = 'cancelled', note = ?, decided_at = ?"
                " WHERE status = 'pending'",
                (note, time.time()),
            )
            return cursor.rowcount

    def approval(self, approval_id: str) -> ApprovalRow | None:
        found = self._approval_rows("WHERE id = ?", (approval_id,))
        return found[0] if found else None

    def approvals(self, decided_limit: int = 1000) -> list[ApprovalRow]:
        """Pending approvals, oldest first, then up to `decided_limit` decided, newest first."""
        pending = self._approval_rows("WHERE status = 'pending' ORDER BY requested_at", ())
        decided = self._approval_rows(
            "WHERE status != 'pending' ORDER BY decided_at DESC, requested_at DESC LIMIT ?",
            (decided_limit,),
        )
        return pending + decided

    def _approval_rows(self, where: str, args: tuple[Any, ...]) -> list[ApprovalRow]:
        with self._lock:
            rows = self._db.execute(f"SELECT {APPROVAL_COLUMNS} FROM approvals {where}", args)
            found = rows.fetchall()
        return [
            ApprovalRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6], r[7], r[8], r[9])
            for r in found
        ]

    def sessions(self) -> dict[str, str]:
        with self._lock:
            return dict(self._db.execute("SELECT name, status FROM sessions").fetchall())

    def close(self) -> None:
        with self._lock:
            self._db.close()
