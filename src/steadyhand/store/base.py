"""The store's interface, one for every backend: sessions, checkpoints, the action log,
approvals, the artifact index and session leases.

The queries are written once, with `?` placeholders and SQL that SQLite and PostgreSQL
read alike; a backend (store/sqlite.py, store/postgres.py) runs them on its connection
and keeps its tables at the schema of store/schema.py. Callers on the event loop use
asyncio.to_thread: every method blocks.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from steadyhand.errors import SteadyhandError
from steadyhand.store.flows import FlowRows
from steadyhand.store.schema import Dialect
from steadyhand.store.sealing import PREFIX, is_sealed, locked, seal, sealed_key, unseal
from steadyhand.store.state_keys import StateKeys, key_id
from steadyhand.vault import mask_text


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """Statements with `?` placeholders, on one connection of the backend."""

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


class Database(Protocol):
    """A backend's connections: `use(atomic=True)` is one transaction (committed when the
    block ends, rolled back when it raises); `use()` may commit statement by statement."""

    dialect: Dialect
    now: str  # SQL: seconds since the epoch by the database's clock

    def use(self, atomic: bool = False) -> AbstractContextManager[Connection]: ...

    def close(self) -> None: ...


KEEP_CHECKPOINTS = 3  # per session: the newest, and two to fall back on


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

    kind: str  # screenshot, pdf, download, trace or video
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


ARTIFACT_INSERT = "session, action_id, ts, kind, label, path, bytes"
ARTIFACT_COLUMNS = f"id, {ARTIFACT_INSERT}"


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


@dataclass(frozen=True)
class Lease:
    """Who holds a session now, after an attempt to take it."""

    session: str
    owner: str
    remaining_s: float  # until it expires unless renewed
    taken: bool  # the asker holds it now
    previous: str | None = None  # the other owner whose expired lease the asker took over


class Store(FlowRows):
    """The store over a backend's connections (see store.open_store for one by URL)."""

    def __init__(self, db: Database, keys: StateKeys | None = None) -> None:
        self._db = db
        # Seal checkpoints (cookies, storage, URLs) at rest; by default a key for this
        # process only (store.open_store passes the state dir's).
        self.keys = keys or StateKeys.in_memory()
        # Sealing and resealing one at a time: a checkpoint sealed with the old key while
        # `state rekey` reseals would stay under a key about to be forgotten.
        self._sealing = threading.Lock()
        self._key_checked = False
        # Told each status a session enters (the daemon's metrics count them).
        self.on_session_status: Callable[[str], None] | None = None

    @property
    def dialect(self) -> Dialect:
        return self._db.dialect

    @property
    def schema_version(self) -> int:
        raise NotImplementedError

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._db.use() as db:
            return db.execute(sql, args).fetchall()

    def _one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        with self._db.use() as db:
            return db.execute(sql, args).fetchone()

    def _write(self, sql: str, args: Sequence[Any] = ()) -> int:
        with self._db.use() as db:
            return db.execute(sql, args).rowcount

    def set_session_status(self, name: str, status: str, profile: str | None = None) -> None:
        """Record a session's status (and its profile, when given)."""
        now = time.time()
        self._write(
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
        rows = self._all(
            "SELECT name, status, profile, created_at, updated_at FROM sessions ORDER BY name"
        )
        return [SessionRow(*row) for row in rows]

    def save_checkpoint(self, session: str, reason: str, state: dict[str, Any]) -> Checkpoint:
        """Store the session's state as its newest checkpoint (older ones beyond a few go)."""
        now = time.time()
        last = self._one(
            "SELECT COALESCE(MAX(id), 0) FROM action_log WHERE session = ?", (session,)
        )[0]
        with self._sealing:
            payload = self._seal_state(session, json.dumps(state, sort_keys=True))
            with self._db.use(atomic=True) as db:
                db.execute(
                    "INSERT INTO checkpoints (session, ts, reason, last_action, state_json)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (session, now, reason, last, payload),
                )
                db.execute(
                    "DELETE FROM checkpoints WHERE session = ? AND id NOT IN (SELECT id FROM"
                    " checkpoints WHERE session = ? ORDER BY id DESC LIMIT ?)",
                    (session, session, KEEP_CHECKPOINTS),
                )
        return Checkpoint(session, now, reason, int(last), state)

    def latest_checkpoint(self, session: str) -> Checkpoint | None:
        row = self._one(
            "SELECT ts, reason, last_action, state_json FROM checkpoints WHERE session = ?"
            " ORDER BY id DESC LIMIT 1",
            (session,),
        )
        if row is None:
            return None
        return Checkpoint(session, row[0], row[1], row[2], self._open_state(session, row[3]))

    def has_checkpoint(self, session: str) -> bool:
        """Whether a checkpoint of `session` is stored (opening it or not)."""
        return (
            self._one("SELECT 1 FROM checkpoints WHERE session = ? LIMIT 1", (session,)) is not None
        )

    def reseal_checkpoints(self, only_clear: bool = False) -> dict[str, int]:
        """Seal every checkpoint under the current key: those a previous key sealed and those
        stored in clear by an older steadyhand (`only_clear`: those only). Counts: resealed,
        sealed (were clear), kept (left as they were), locked (no key held opens them)."""
        with self._sealing:
            return self._reseal(only_clear)

    def _reseal(self, only_clear: bool) -> dict[str, int]:
        counts = {"resealed": 0, "sealed": 0, "kept": 0, "locked": 0}
        # (No LIKE: psycopg reads a literal % as a placeholder.)
        where = f" WHERE substr(state_json, 1, {len(PREFIX)}) <> ?" if only_clear else ""
        sql = f"SELECT id, session, state_json FROM checkpoints{where}"
        rows = self._all(sql, (PREFIX,) if only_clear else ())
        if rows and not self._key_checked:
            self._refuse_new_key_over_sealed_rows()
        current = key_id(self.keys.current()) if rows else None
        for row_id, session, text in rows:
            kid = sealed_key(text)
            if kid == current:
                counts["kept"] += 1
                continue
            try:
                plain = json.dumps(self._open_state(session, text, clear=True), sort_keys=True)
            except SteadyhandError:
                counts["locked"] += 1
                continue
            self._write(
                "UPDATE checkpoints SET state_json = ? WHERE id = ? AND state_json = ?",
                (self._seal_state(session, plain), row_id, text),
            )
            counts["resealed" if kid else "sealed"] += 1
        if counts["sealed"]:
            self.forget_overwritten()
        return counts

    def forget_overwritten(self) -> None:
        """Make the backend drop old copies of rows written over (clear checkpoints)."""

    def checkpoint_keys(self) -> dict[str, int]:
        """How many checkpoints each key sealed ("clear": stored before sealing)."""
        rows = self._all(
            "SELECT substr(state_json, 1, 17), COUNT(*) FROM checkpoints"
            " GROUP BY substr(state_json, 1, 17)"
        )
        return {sealed_key(head) or "clear": int(n) for head, n in rows}

    def _seal_state(self, session: str, text: str) -> str:
        if not self._key_checked:  # a key made now would lock out what the lost one sealed
            self._refuse_new_key_over_sealed_rows()
        return seal(self.keys, "checkpoint", session, text.encode())

    def _refuse_new_key_over_sealed_rows(self) -> None:
        if not self.keys.by_id():
            sealed = [k for k in self.checkpoint_keys() if k != "clear"]
            if sealed:
                raise locked(
                    "the store's checkpoints",
                    f"they were sealed with key {', '.join(sealed)} and this daemon holds no "
                    "key: it makes no new one over them",
                    self.keys,
                )
        self._key_checked = True

    def _open_state(self, session: str, text: str, clear: bool = False) -> dict[str, Any]:
        if not is_sealed(text):
            if not clear:  # sealed at the daemon's start: a clear row now was put there
                raise locked(
                    f"session {session!r}'s checkpoint",
                    "it is stored in clear, which only an older steadyhand did (sealed at "
                    "start); this one was written since, by something else",
                    self.keys,
                )
            return dict(json.loads(text))
        opened = unseal(self.keys, "checkpoint", session, text, f"session {session!r}'s checkpoint")
        return dict(json.loads(opened))

    def checkpoint_times(self) -> dict[str, float]:
        """Each session's newest checkpoint time."""
        rows = self._all("SELECT session, MAX(ts) FROM checkpoints GROUP BY session")
        return {name: float(ts) for name, ts in rows}

    def last_actions(self) -> dict[str, ActionRow]:
        """Each session's newest action_log row."""
        ids = [
            int(r[0])
            for r in self._all(
                "SELECT MAX(id) FROM action_log WHERE session IS NOT NULL GROUP BY session"
            )
        ]
        if not ids:
            return {}
        rows = self._rows(f"WHERE id IN ({','.join('?' * len(ids))})", tuple(ids), len(ids))
        return {row.session: row for row in rows if row.session is not None}

    def forget_checkpoints(self, session: str) -> None:
        self._write("DELETE FROM checkpoints WHERE session = ?", (session,))

    def retire_sessions(self, status: str, new_status: str) -> int:
        """Move every session with `status` to `new_status`, but those a live lease holds
        (another daemon runs them); return how many moved."""
        return self._write(
            "UPDATE sessions SET status = ?, updated_at = ? WHERE status = ? AND name NOT IN"
            f" (SELECT session FROM leases WHERE expires_at > {self._db.now})",
            (new_status, time.time(), status),
        )

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
        """Append one action, and index the files it wrote, in one transaction; its id.

        Never retried here: a failed commit may have landed, and a second try would log
        the action twice. The id comes from the database (a sequence every daemon shares).
        """
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
        # One statement (autocommitted) unless files go with it: then one transaction.
        with self._db.use(atomic=bool(files)) as db:
            action_id = int(
                db.execute(
                    "INSERT INTO action_log (ts, session, tab, command, params_json, ok,"
                    " error_code, error_message, duration_ms, retries, artifacts_json,"
                    " result_json, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " RETURNING id",
                    row,
                ).fetchone()[0]
            )
            if files:
                db.executemany(
                    f"INSERT INTO artifacts ({ARTIFACT_INSERT}) VALUES (?,?,?,?,?,?,?)",
                    [
                        (session or "default", action_id, now, f.kind, f.label, f.path, f.bytes)
                        for f in files
                    ],
                )
        return action_id

    def index_file(self, session: str, file: ArtifactFile) -> None:
        """Index a file no action wrote (a recording the tab's own close finished)."""
        self._write(
            f"INSERT INTO artifacts ({ARTIFACT_INSERT}) VALUES (?,?,?,?,?,?,?)",
            (session, None, time.time(), file.kind, file.label, file.path, file.bytes),
        )

    def artifacts(self, session: str | None = None) -> list[ArtifactRow]:
        """Indexed files, oldest first, optionally of one session."""
        where, args = ("WHERE session = ?", (session,)) if session is not None else ("", ())
        rows = self._all(f"SELECT {ARTIFACT_COLUMNS} FROM artifacts {where} ORDER BY id", args)
        return [ArtifactRow(*r) for r in rows]

    def forget_artifacts(self, ids: list[int]) -> None:
        """Drop index rows (their files are gone)."""
        if ids:
            with self._db.use() as db:
                db.executemany("DELETE FROM artifacts WHERE id = ?", [(i,) for i in ids])

    def actions(
        self, session: str | None = None, limit: int = 1000, after: int = 0, upto: int = 2**62
    ) -> list[ActionRow]:
        """The action log, oldest first (the newest `limit` rows), optionally for one
        session or between ids (after `after`, up to `upto`)."""
        if session is None:
            return self._rows("WHERE id > ? AND id <= ?", (after, upto), limit)
        return self._rows("WHERE id > ? AND id <= ? AND session = ?", (after, upto, session), limit)

    def life_start(self, session: str) -> int:
        """The id of the session name's last successful `close` that something followed
        (0: none); its actions after it are its latest life."""
        row = self._one(
            "SELECT MAX(id) FROM action_log WHERE session = ? AND command = 'close'"
            " AND ok = 1 AND id < (SELECT MAX(id) FROM action_log WHERE session = ?)",
            (session, session),
        )
        return int(row[0] or 0)

    def _rows(self, where: str, args: tuple[Any, ...], limit: int) -> list[ActionRow]:
        query = (
            "SELECT id, ts, session, tab, command, params_json, ok, error_code, error_message,"
            " duration_ms, retries, artifacts_json, result_json, request_id"
            f" FROM action_log {where}"
            " ORDER BY id DESC LIMIT ?"
        )
        rows = self._all(query, (*args, limit))
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
        added = self._write(
            f"INSERT INTO approvals ({APPROVAL_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT (id) DO NOTHING",
            values,
        )
        return added == 1

    def settle_approval(
        self, approval_id: str, status: str, note: str | None, decided_at: float
    ) -> bool:
        """Record the decision on a pending approval; False when it was not pending."""
        settled = self._write(
            "UPDATE approvals SET status = ?, note = ?, decided_at = ?"
            " WHERE id = ? AND status = 'pending'",
            (status, note, decided_at, approval_id),
        )
        return settled == 1

    def cancel_pending_approvals(self, note: str) -> int:
        """Settle every pending approval as cancelled (their daemon is gone), but those of
        sessions a live lease holds (another daemon runs them)."""
        return self._write(
            "UPDATE approvals SET status = 'cancelled', note = ?, decided_at = ?"
            " WHERE status = 'pending' AND (session IS NULL OR session NOT IN"
            f" (SELECT session FROM leases WHERE expires_at > {self._db.now}))",
            (note, time.time()),
        )

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
        found = self._all(f"SELECT {APPROVAL_COLUMNS} FROM approvals {where}", args)
        return [
            ApprovalRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6], r[7], r[8], r[9])
            for r in found
        ]

    def sessions(self) -> dict[str, str]:
        return dict(self._all("SELECT name, status FROM sessions"))

    # ----------------------------------------------------------------- leases

    def take_lease(self, session: str, owner: str, lease_s: float) -> Lease:
        """Hold `session` for `lease_s` seconds, unless another owner's lease still runs;
        the lease in force afterwards. Atomic: of daemons racing for it, one wins."""
        now = self._db.now
        with self._db.use(atomic=True) as db:
            before = db.execute(
                f"SELECT owner, expires_at - {now} FROM leases WHERE session = ?", (session,)
            ).fetchone()
            # The database arbitrates: the conditional upsert changes no row when a live
            # lease of another owner is there (PostgreSQL re-checks it after a racing
            # insert commits; SQLite runs one writer at a time).
            taken = db.execute(
                f"INSERT INTO leases (session, owner, expires_at) VALUES (?, ?, {now} + ?)"
                " ON CONFLICT (session) DO UPDATE SET owner = excluded.owner,"
                " expires_at = excluded.expires_at"
                f" WHERE leases.owner = excluded.owner OR leases.expires_at <= {now}"
                " RETURNING owner",
                (session, owner, lease_s),
            ).fetchall()
            if taken:
                previous = before[0] if before is not None and before[0] != owner else None
                return Lease(session, owner, lease_s, True, previous)
            held = db.execute(
                f"SELECT owner, expires_at - {now} FROM leases WHERE session = ?", (session,)
            ).fetchone()
        return Lease(session, str(held[0]), max(0.0, float(held[1])), False)

    def renew_leases(self, owner: str, sessions: Sequence[str], lease_s: float) -> set[str]:
        """Extend `owner`'s leases on `sessions`; the sessions it still holds (a lease it
        let expire and another owner took is gone)."""
        if not sessions:
            return set()
        marks = ",".join("?" * len(sessions))
        rows = self._all(
            f"UPDATE leases SET expires_at = {self._db.now} + ?"
            f" WHERE owner = ? AND session IN ({marks}) RETURNING session",
            (lease_s, owner, *sessions),
        )
        return {str(r[0]) for r in rows}

    def release_leases(self, owner: str, sessions: Sequence[str] | None = None) -> int:
        """Drop `owner`'s leases (on `sessions`, else all of them); how many went."""
        if sessions is None:
            return self._write("DELETE FROM leases WHERE owner = ?", (owner,))
        if not sessions:
            return 0
        marks = ",".join("?" * len(sessions))
        return self._write(
            f"DELETE FROM leases WHERE owner = ? AND session IN ({marks})", (owner, *sessions)
        )

    def leases(self) -> dict[str, Lease]:
        """The leases in force, by session."""
        rows = self._all(
            f"SELECT session, owner, expires_at - {self._db.now} FROM leases"
            f" WHERE expires_at > {self._db.now}"
        )
        return {str(s): Lease(str(s), str(o), float(r), False) for s, o, r in rows}

    def close(self) -> None:
        self._db.close()
