"""The store a daemon uses, chosen by the `store_url` setting."""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.redact import redact_url
from steadyhand.store.base import Store
from steadyhand.store.state_keys import StateKeys

if TYPE_CHECKING:
    from steadyhand.config import Settings

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite://"


def state_keys(settings: Settings, environ: Mapping[str, str] | None = None) -> StateKeys:
    """The keys that seal the store's checkpoints and exported profiles (store/state_keys.py):
    read `environ` (the process's) before the daemon takes the key out of it."""
    return StateKeys.for_state_dir(
        settings.state_dir,
        environ=environ,
        key_file=settings.state_key_file,
        use_keyring=settings.state_keyring,
    )


def open_store(settings: Settings, keys: StateKeys | None = None) -> Store:
    """The store of `settings.store_url`: "" the SQLite file in the state dir,
    sqlite:///PATH another SQLite file, postgresql://... a PostgreSQL database; its
    checkpoints sealed with `keys` (default: `state_keys(settings)`)."""
    url = settings.store_url.strip()
    keys = keys or state_keys(settings)
    if not url:
        from steadyhand.store.sqlite import Store as SqliteStore

        return SqliteStore(settings.store_path, keys)
    if url.startswith(SQLITE_SCHEME):
        from steadyhand.store.sqlite import Store as SqliteStore

        path = url[len(SQLITE_SCHEME) :]
        if not path.startswith("/"):
            raise _bad_url(url, "a SQLite store URL names an absolute path: sqlite:///PATH")
        return SqliteStore(Path(path), keys)
    if url.startswith(POSTGRES_SCHEMES):
        from steadyhand.store.postgres import PostgresStore

        try:
            return PostgresStore(url, keys=keys)
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


# Makes this process's lease owner unique: two daemons given one daemon_name (a shared
# config), or containers sharing a host name and a pid, must never hold each other's leases.
_INSTANCE = secrets.token_hex(4)


def daemon_owner(settings: Settings) -> str:
    """This daemon's owner in leases: its name (daemon_name, else host:pid), then `#` and a
    token of this process's own; `shown_owner` is what people read."""
    return (settings.daemon_name or f"{socket.gethostname()}:{os.getpid()}") + "#" + _INSTANCE


def shown_owner(owner: str) -> str:
    """A lease owner as `sessions` and errors name it: the daemon's name."""
    return owner.split("#", 1)[0]


def _bad_url(url: str, hint: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.BAD_REQUEST, f"store_url {redact_url(url)!r} is not a store URL", hint
    )
