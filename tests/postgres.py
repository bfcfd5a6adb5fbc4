"""A real PostgreSQL server for the tests: initdb in a temp dir, started on a free port of
127.0.0.1, stopped at the end. Each test gets a database of its own.

PostgreSQL refuses to run as root (CI's user): then the server runs as `nobody`.
STEADYHAND_TEST_PG_OPTS adds server options (say " -c log_statement=mod") and keeps its
dir (and server.log) for a look afterwards.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

SUPERUSER = "steadyhand"
START_TIMEOUT_S = 60


def find_bin(name: str) -> str:
    """A PostgreSQL program: on PATH, else in Debian's /usr/lib/postgresql/N/bin."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    if versions:
        return str(versions[0])
    raise RuntimeError(
        f"PostgreSQL's {name} is not installed: `make test` installs Debian's postgresql "
        "package (scripts/ensure-postgresql)"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_server_user(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", *argv]


@dataclass
class PostgresServer:
    """A running server: `url(db)` reaches one of its databases as the superuser."""

    port: int
    root: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            # FILE_COPY: a copy of the empty template, faster here than WAL_LOG's.
            admin.execute(f"CREATE DATABASE {name} STRATEGY = FILE_COPY")
        return name

    def drop_database(self, name: str) -> None:
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextlib.contextmanager
def postgres_server(durable: bool = False) -> Iterator[PostgresServer]:
    """Start a throwaway server (trust auth, on 127.0.0.1 only); stop it after. Tests run
    it with fsync and synchronous commits off; `durable` keeps PostgreSQL's defaults (a
    benchmark's)."""
    root = Path(tempfile.mkdtemp(prefix="steadyhand-pg-"))
    data, log = root / "data", root / "server.log"
    data.mkdir()
    if os.geteuid() == 0:
        for path in (root, data):
            shutil.chown(path, "nobody", "nogroup")
    port = free_port()
    ctl = find_bin("pg_ctl")
    try:
        subprocess.run(
            _as_server_user(
                [
                    find_bin("initdb"),
                    "-D",
                    str(data),
                    "-U",
                    SUPERUSER,
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-sync",
                ]
            ),
            check=True,
            capture_output=True,
            cwd=root,
        )
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c max_connections=200"
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        options += os.environ.get("STEADYHAND_TEST_PG_OPTS", "")
        start = [ctl, "-D", str(data), "-l", str(log), "-o", options, "-w"]
        subprocess.run(
            _as_server_user([*start, "-t", str(START_TIMEOUT_S), "start"]),
            check=True,
            capture_output=True,
            cwd=root,
        )
        yield PostgresServer(port, root)
    except subprocess.CalledProcessError as exc:
        server_log = log.read_text(errors="replace") if log.exists() else ""
        raise RuntimeError(
            f"PostgreSQL failed to start: {exc.stderr!r} {exc.stdout!r}\n{server_log}"
        ) from exc
    finally:
        subprocess.run(
            _as_server_user([ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
            capture_output=True,
            check=False,
            cwd=root,
        )
        if not os.environ.get("STEADYHAND_TEST_PG_OPTS"):
            shutil.rmtree(root, ignore_errors=True)
