"""Action-log write throughput: the embedded SQLite store vs the shared PostgreSQL store.

16 sessions write at once, each from its own thread (the daemon calls the store through
asyncio.to_thread, i.e. from its thread pool), each row a realistic action: params, a
result of a few hundred bytes, as Store.log_action writes it (one transaction per row,
the id from the database). Both stores are what a daemon opens: SQLite in WAL mode with
synchronous=NORMAL, one connection behind a lock; PostgreSQL through a pool of
store/postgres.py's POOL_MAX connections, on a local server (127.0.0.1, TCP) that this
script starts with PostgreSQL's durable defaults (fsync, synchronous commits on), in a
temp dir; --pg-url names another server instead.

Prints rows/s for each backend (the median over --rounds rounds, each on a fresh store,
after one warm-up round), the PostgreSQL/SQLite ratio, then one JSON line. Asserts
nothing about time.

    .venv/bin/python bench/store.py [--rows 200] [--sessions 16] [--rounds 5]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.postgres: a throwaway PostgreSQL server
from tests.postgres import postgres_server  # noqa: E402

from steadyhand.store.base import Store  # noqa: E402
from steadyhand.store.postgres import PostgresStore  # noqa: E402
from steadyhand.store.sqlite import Store as SqliteStore  # noqa: E402

RESULT = {
    "tab": "t1",
    "url": "http://127.0.0.1:8000/form.html",
    "title": "Form fixture",
    "changes": ["~ textbox Name: Ada Lovelace (was: )", "~ paragraph: saved"] * 4,
}


def write_rows(store: Store, session: str, rows: int, start: threading.Barrier) -> None:
    start.wait()
    for n in range(rows):
        store.log_action(
            session=session,
            tab="t1",
            command="type",
            params={"ref": f"e{n}", "text": "Ada Lovelace", "submit": False},
            ok=True,
            error_code=None,
            error_message=None,
            duration_ms=12.5,
            result=RESULT,
            request_id=f"{session}-{n}",
        )


def one_round(store: Store, sessions: int, rows: int) -> float:
    """Rows per second of `sessions` threads writing `rows` rows each; checks none is lost."""
    start = threading.Barrier(sessions + 1)
    threads = [
        threading.Thread(target=write_rows, args=(store, f"s{n}", rows, start))
        for n in range(sessions)
    ]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    written = store.actions(limit=sessions * rows + 1)
    if len(written) != sessions * rows or len({r.id for r in written}) != len(written):
        raise SystemExit(f"lost or duplicated rows: {len(written)} of {sessions * rows}")
    return sessions * rows / elapsed


def measure(
    open_fresh: Callable[[], contextlib.AbstractContextManager[Store]], args: argparse.Namespace
) -> list[float]:
    figures = []
    for round_ in range(args.rounds + 1):
        with open_fresh() as store:
            rate = one_round(store, args.sessions, args.rows)
        if round_:  # the first is a warm-up
            figures.append(rate)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200, help="rows per session per round")
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="steadyhand-bench-store-"))
    counter = iter(range(10**6))

    @contextlib.contextmanager
    def sqlite_store() -> Iterator[Store]:
        store = SqliteStore(scratch / f"store-{next(counter)}.sqlite")
        try:
            yield store
        finally:
            store.close()

    try:
        sqlite = measure(sqlite_store, args)
        with postgres_server(durable=True) as server:

            @contextlib.contextmanager
            def pg_store() -> Iterator[Store]:
                store = PostgresStore(server.url(server.create_database()))
                try:
                    yield store
                finally:
                    store.close()

            postgres = measure(pg_store, args)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    s_med, p_med = statistics.median(sqlite), statistics.median(postgres)
    print(f"action-log writes, {args.sessions} sessions at once, {args.rows} rows each")
    print(f"  sqlite      {s_med:9.0f} rows/s  (rounds: {', '.join(f'{r:.0f}' for r in sqlite)})")
    print(f"  postgresql  {p_med:9.0f} rows/s  (rounds: {', '.join(f'{r:.0f}' for r in postgres)})")
    print(f"  postgresql / sqlite: {p_med / s_med:.2f}")
    record = {
        "bench": "store",
        "sessions": args.sessions,
        "rows_per_session": args.rows,
        "sqlite_rows_s": round(s_med),
        "postgresql_rows_s": round(p_med),
        "ratio_pg_sqlite": round(p_med / s_med, 3),
    }
    print(json.dumps(record))


if __name__ == "__main__":
    main()
