"""The embedded store: one SQLite file (WAL) with sessions, the action log and approvals.

The schema is versioned with `PRAGMA user_version`; MIGRATIONS[i] (store/schema.py's
STEPS[i] as SQLite DDL) moves a database from version i to i+1.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from steadyhand.store import base
from steadyhand.store.base import (
    KEEP_CHECKPOINTS,
    ActionRow,
    ApprovalRow,
    ArtifactFile,
    ArtifactRow,
    Checkpoint,
    Lease,
    SessionRow,
)
from steadyhand.store.schema import STEPS, Dialect, script
from steadyhand.store.state_keys import StateKeys

__all__ = [
    "KEEP_CHECKPOINTS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "ActionRow",
    "ApprovalRow",
    "ArtifactFile",
    "ArtifactRow",
    "Checkpoint",
    "Lease",
    "SessionRow",
    "SqliteDatabase",
    "Store",
]

MIGRATIONS: list[str] = [script(step, "sqlite") for step in STEPS]
SCHEMA_VERSION = len(MIGRATIONS)


class _Connection:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self._db.execute(sql, args)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._db.executemany(sql, rows)


class SqliteDatabase:
    """One connection in autocommit mode, one caller at a time (a lock)."""

    dialect: Dialect = "sqlite"
    now = "((julianday('now') - 2440587.5) * 86400.0)"

    def __init__(self, path: Path) -> None:
        self.lock = threading.Lock()
        self.connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.execute("PRAGMA busy_timeout=5000")
        # What is deleted or written over is zeroed in the file, not left in a free page.
        self.connection.execute("PRAGMA secure_delete=ON")
        self._wrapped = _Connection(self.connection)

    @contextmanager
    def use(self, atomic: bool = False) -> Iterator[_Connection]:
        with self.lock:
            if not atomic:
                yield self._wrapped
                return
            self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield self._wrapped
            except BaseException:
                self.connection.execute("ROLLBACK")
                raise
            self.connection.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            self.connection.close()


class Store(base.Store):
    """The store in one SQLite file, private to the user."""

    def __init__(self, path: Path, keys: StateKeys | None = None) -> None:
        """`keys`: by default the key file beside the store's directory (the state dir's
        own, when the store is its steadyhand.sqlite)."""
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # Create the file private to the user before SQLite opens it.
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        os.chmod(path, 0o600)
        self._sqlite = SqliteDatabase(path)
        super().__init__(self._sqlite, keys or StateKeys.for_state_dir(path.parent, environ={}))
        self._migrate()

    def _migrate(self) -> None:
        db = self._sqlite.connection
        with self._sqlite.lock:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.path} has schema version {version}, newer than this "
                    f"steadyhand ({SCHEMA_VERSION}); upgrade steadyhand"
                )
            for step in range(version, SCHEMA_VERSION):
                # One script, one transaction: a failed step leaves the previous version.
                script = f"BEGIN IMMEDIATE;\n{MIGRATIONS[step]}\nPRAGMA user_version = {step + 1};"
                try:
                    db.executescript(script + "\nCOMMIT;")
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise

    def forget_overwritten(self) -> None:
        """No old copy of a row written over is left: free pages from before secure_delete
        are rewritten (VACUUM), and old page images leave the write-ahead log."""
        with self._sqlite.lock:
            self._sqlite.connection.execute("VACUUM")
            self._sqlite.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @property
    def schema_version(self) -> int:
        with self._sqlite.lock:
            return int(self._sqlite.connection.execute("PRAGMA user_version").fetchone()[0])
