"""The store a daemon uses, chosen by the `store_url` setting."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store.base import Store
from steadyhand.store.redact import redact_url

if TYPE_CHECKING:
    from steadyhand.config import Settings

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite://"


def open_store(settings: Settings) -> Store:
    """The store of `settings.store_url`: "" the SQLite file in the state dir,
    sqlite:///PATH another SQLite file, postgresql://... a PostgreSQL database."""
    url = settings.store_url.strip()
    if not url:
        from steadyhand.store.sqlite import Store as SqliteStore

        return SqliteStore(settings.store_path)
    if url.startswith(SQLITE_SCHEME):
        from steadyhand.store.sqlite import Store as SqliteStore

        path = url[len(SQLITE_SCHEME) :]
        if not path.startswith("/"):
            raise _bad_url(url, "a SQLite store URL names an absolute path: sqlite:///PATH")
        return SqliteStore(Path(path))
    if url.startswith(POSTGRES_SCHEMES):
        from steadyhand.store.postgres import PostgresStore

        try:
            return PostgresStore(url)
        except RuntimeError as exc:
            raise SteadyhandError(
                ErrorCode.DAEMON_UNAVAILABLE,
                str(exc),
                "is the PostgreSQL server up, and do the store_url's user, password and "
                "database exist?",
            ) from None
    raise _bad_url(url, "store_url is empty (SQLite), sqlite:///PATH or postgresql://...")


def is_shared(settings: Settings) -> bool:
    """Whether the store may be shared with other daemons (any store_url but "")."""
    return bool(settings.store_url.strip())


def daemon_owner(settings: Settings) -> str:
    """This daemon's name in leases and `sessions`: daemon_name, else host:pid."""
    return settings.daemon_name or f"{socket.gethostname()}:{os.getpid()}"


def _bad_url(url: str, hint: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.BAD_REQUEST, f"store_url {redact_url(url)!r} is not a store URL", hint
    )
