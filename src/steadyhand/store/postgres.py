"""The shared store: a PostgreSQL database several daemons (and hosts) use at once.

Connections come from a pool (psycopg 3, psycopg_pool), in autocommit mode: a statement
is its own transaction, and `use(atomic=True)` is one transaction block. The schema is
versioned in `steadyhand_schema`, migrated under an advisory lock so that daemons starting
together migrate once.
"""

from __future__ import annotations

import functools
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from steadyhand.redact import redact_url
from steadyhand.store import base
from steadyhand.store.schema import STEPS, Dialect, statements
from steadyhand.store.state_keys import StateKeys

SCHEMA_VERSION = len(STEPS)
# pg_advisory_xact_lock's key for migrations: any constant the application keeps to itself.
MIGRATION_LOCK = 0x5745_4144_5948_414E  # "steadyhan"-ish, fits a signed bigint
POOL_MAX = 8  # the daemon's threads (asyncio.to_thread) rarely need more at once
CONNECT_TIMEOUT_S = 10.0
IDLE_CHECK_S = 2.0  # a connection idle this long is checked before it is used again


@functools.lru_cache(maxsize=512)
def to_pyformat(sql: str) -> str:
    """`?` placeholders as psycopg's `%s` (the store's SQL holds no literal ? or %)."""
    return sql.replace("?", "%s")


class _Connection:
    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self._connection = connection

    def execute(self, sql: str, args: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        return self._connection.execute(to_pyformat(sql), tuple(args))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._connection.cursor() as cursor:
            cursor.executemany(to_pyformat(sql), rows)


class PostgresDatabase:
    """A pool of connections to one database; every `use` is a transaction."""

    dialect: Dialect = "postgresql"
    now = "EXTRACT(EPOCH FROM clock_timestamp())::double precision"

    def __init__(self, url: str, max_size: int = POOL_MAX) -> None:
        self.url = url
        self._last_used: weakref.WeakKeyDictionary[psycopg.Connection[Any], float] = (
            weakref.WeakKeyDictionary()
        )
        try:  # at once, and the server's own words, when it cannot be reached
            psycopg.connect(url, connect_timeout=int(CONNECT_TIMEOUT_S)).close()
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise RuntimeError(f"cannot connect to the store {redact_url(url)}: {reason}") from None
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            open=False,
            # A connection the server dropped (restart, idle timeout) is replaced before
            # a caller gets it, rather than failing the caller's statement (which, for a
            # write, could not be retried: it may have landed).
            check=self._check_if_idle,
            # Autocommit: a lone statement is its own transaction, one round trip; a `use`
            # that must be atomic opens a transaction block (BEGIN ... COMMIT).
            kwargs={"connect_timeout": int(CONNECT_TIMEOUT_S), "autocommit": True},
            name="steadyhand-store",
        )
        try:
            self.pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except Exception as exc:
            self.pool.close()
            raise RuntimeError(f"cannot connect to the store {redact_url(url)}: {exc}") from None

    def _check_if_idle(self, connection: psycopg.Connection[Any]) -> None:
        """The pool's check before it hands a connection out: a round trip, so only for
        one that sat idle a while (a busy one just answered; checking every one halves the
        action log's write rate)."""
        used = self._last_used.get(connection)
        if used is None or time.monotonic() - used >= IDLE_CHECK_S:
            ConnectionPool.check_connection(connection)

    @contextmanager
    def use(self, atomic: bool = False) -> Iterator[_Connection]:
        with self.pool.connection() as connection:
            try:
                if not atomic:
                    yield _Connection(connection)
                    return
                with connection.transaction():
                    yield _Connection(connection)
            finally:
                self._last_used[connection] = time.monotonic()

    def close(self) -> None:
        self.pool.close()


class PostgresStore(base.Store):
    """The store in a PostgreSQL database (`postgresql://user:password@host/db`)."""

    def __init__(self, url: str, max_size: int = POOL_MAX, keys: StateKeys | None = None) -> None:
        self.url = redact_url(url)  # for messages; the password stays in the pool only
        self._pg = PostgresDatabase(url, max_size)
        super().__init__(self._pg, keys)
        try:
            self._migrate()
        except BaseException:
            self._pg.close()
            raise

    def _migrate(self) -> None:
        with self._pg.pool.connection() as connection:
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                connection.execute(
                    "CREATE TABLE IF NOT EXISTS steadyhand_schema (version INTEGER NOT NULL)"
                )
                row = connection.execute("SELECT version FROM steadyhand_schema").fetchone()
                if row is None:
                    connection.execute("INSERT INTO steadyhand_schema (version) VALUES (0)")
                version = 0 if row is None else int(row[0])
            if version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.url} has schema version {version}, newer than this "
                    f"steadyhand ({SCHEMA_VERSION}); upgrade steadyhand"
                )
            for step in range(version, SCHEMA_VERSION):
                # One step, one transaction (DDL is transactional in PostgreSQL); the lock
                # and a re-read make a daemon that waited skip what another one did.
                with connection.transaction():
                    connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                    done = connection.execute("SELECT version FROM steadyhand_schema").fetchone()
                    if done is not None and int(done[0]) > step:
                        continue
                    for sql in statements(STEPS[step], "postgresql"):
                        connection.execute(sql)
                    connection.execute("UPDATE steadyhand_schema SET version = %s", (step + 1,))

    def forget_overwritten(self) -> None:
        """Old row versions of the checkpoints table go (they held clear state)."""
        with self._pg.pool.connection() as connection:
            connection.execute("VACUUM FULL checkpoints")

    @property
    def schema_version(self) -> int:
        row = self._one("SELECT version FROM steadyhand_schema")
        return int(row[0])
