"""The store's interface on both backends: the same tests on SQLite and on a real
PostgreSQL server (tests/postgres.py), and the session leases daemons share."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store import postgres as postgres_module
from steadyhand.store.base import ApprovalRow, ArtifactFile, Store
from steadyhand.store.open import open_store
from steadyhand.store.postgres import PostgresStore
from steadyhand.store.schema import STEPS, script
from steadyhand.store.sqlite import KEEP_CHECKPOINTS, SCHEMA_VERSION
from tests.conftest import make_settings


@pytest.fixture
def store(store_url: str, tmp_path: Path) -> Iterator[Store]:
    opened = open_store(make_settings(tmp_path / "state", store_url=store_url))
    yield opened
    opened.close()


def log(store: Store, session: str | None, command: str = "click", ok: bool = True) -> int:
    return store.log_action(
        session=session,
        tab="t1",
        command=command,
        params={"ref": "e1", "password": "[redacted]"},
        ok=ok,
        error_code=None if ok else "stale_ref",
        error_message=None if ok else "stale",
        duration_ms=1.5,
    )


def test_the_backend_is_the_url_s_and_at_the_latest_schema(store: Store, store_url: str) -> None:
    assert store.dialect == ("postgresql" if store_url.startswith("postgresql") else "sqlite")
    assert store.schema_version == SCHEMA_VERSION == len(STEPS)


def test_action_log_round_trip(store: Store) -> None:
    first = log(store, "a")
    second = log(store, "a", ok=False)
    other = log(store, "b", command="open")
    assert first < second < other
    rows = store.actions("a")
    assert [(r.id, r.ok, r.error_code, r.tab) for r in rows] == [
        (first, True, None, "t1"),
        (second, False, "stale_ref", "t1"),
    ]
    assert rows[0].params == {"ref": "e1", "password": "[redacted]"}
    assert isinstance(rows[0].ts, float) and rows[0].ts == pytest.approx(time.time(), abs=60)
    assert [r.id for r in store.actions(after=first)] == [second, other]
    assert [r.id for r in store.actions(limit=1)] == [other]
    assert {k: r.id for k, r in store.last_actions().items()} == {"a": second, "b": other}


def test_life_start_is_the_last_close_something_followed(store: Store) -> None:
    log(store, "s", "open")
    closed = log(store, "s", "close")
    assert store.life_start("s") == 0  # nothing after the close yet
    log(store, "s", "open")
    assert store.life_start("s") == closed


def test_session_status_keeps_the_profile_and_retires(store: Store) -> None:
    store.set_session_status("a", "active", "work")
    store.set_session_status("a", "suspended")
    store.set_session_status("b", "active", "")
    assert store.sessions() == {"a": "suspended", "b": "active"}
    assert [(r.name, r.profile) for r in store.session_rows()] == [("a", "work"), ("b", "")]
    assert store.retire_sessions("active", "suspended") == 1
    assert store.sessions() == {"a": "suspended", "b": "suspended"}


def test_checkpoints_keep_the_newest_few(store: Store) -> None:
    action = log(store, "s")
    for i in range(KEEP_CHECKPOINTS + 2):
        saved = store.save_checkpoint("s", f"n{i}", {"tabs": [{"url": f"http://x/{i}"}]})
        assert saved.last_action == action
    latest = store.latest_checkpoint("s")
    assert latest is not None and latest.reason == f"n{KEEP_CHECKPOINTS + 1}"
    assert latest.state == {"tabs": [{"url": f"http://x/{KEEP_CHECKPOINTS + 1}"}]}
    assert set(store.checkpoint_times()) == {"s"}
    store.forget_checkpoints("s")
    assert store.latest_checkpoint("s") is None


def test_artifacts_are_indexed_with_their_action(store: Store) -> None:
    action = store.log_action(
        session="s",
        tab=None,
        command="screenshot",
        params={},
        ok=True,
        error_code=None,
        error_message=None,
        duration_ms=3,
        files=[ArtifactFile("screenshot", "page", "/x/a.png", 10)],
        artifacts=["/x/a.png"],
    )
    rows = store.artifacts("s")
    assert [(r.action_id, r.kind, r.path, r.bytes) for r in rows] == [
        (action, "screenshot", "/x/a.png", 10)
    ]
    assert store.actions("s")[0].artifacts == ("/x/a.png",)
    store.forget_artifacts([rows[0].id])
    assert store.artifacts() == []
    # A file no action wrote (a recording its tab's own close finished) has no action.
    store.index_file("s", ArtifactFile("video", "t1", "/x/v.avi", 99))
    (video,) = store.artifacts("s")
    assert (video.action_id, video.kind, video.label, video.path, video.bytes) == (
        None,
        "video",
        "t1",
        "/x/v.avi",
        99,
    )


def test_approvals_are_added_once_and_settled_once(store: Store) -> None:
    row = ApprovalRow("ap1", "s", "click", "Buy", {"ref": "e1"}, "spends money", "pending", 1.0)
    assert store.add_approval(row)
    assert not store.add_approval(row)  # the id is taken
    assert store.settle_approval("ap1", "approved", "ok", 2.0)
    assert not store.settle_approval("ap1", "denied", None, 3.0)
    settled = store.approval("ap1")
    assert settled is not None and (settled.status, settled.decided_at) == ("approved", 2.0)
    store.add_approval(ApprovalRow("ap2", None, "open", "x", {}, "r", "pending", 4.0))
    assert store.cancel_pending_approvals("gone") == 1
    assert [a.status for a in store.approvals()] == ["cancelled", "approved"]


def test_concurrent_writers_lose_and_duplicate_no_row(store: Store) -> None:
    ids: list[int] = []
    lock = threading.Lock()

    def writer(n: int) -> None:
        for _ in range(25):
            new = log(store, f"s{n}")
            with lock:
                ids.append(new)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rows = store.actions(limit=10_000)
    assert len(ids) == len(set(ids)) == 200
    assert sorted(r.id for r in rows) == sorted(ids)


# ----------------------------------------------------------------- leases


def test_a_lease_is_taken_renewed_and_refused_to_others(store: Store) -> None:
    taken = store.take_lease("s", "A", 30)
    assert (taken.taken, taken.owner, taken.previous) == (True, "A", None)
    again = store.take_lease("s", "A", 30)  # its owner takes it again: a renewal
    assert again.taken and again.previous is None
    refused = store.take_lease("s", "B", 30)
    assert (refused.taken, refused.owner) == (False, "A")
    assert 25 < refused.remaining_s <= 30
    assert store.renew_leases("A", ["s", "other"], 30) == {"s"}
    assert store.renew_leases("B", ["s"], 30) == set()
    assert {k: v.owner for k, v in store.leases().items()} == {"s": "A"}


def test_an_expired_lease_is_taken_over_and_its_old_owner_cannot_renew(store: Store) -> None:
    store.take_lease("s", "A", 0.3)
    assert not store.take_lease("s", "B", 30).taken
    time.sleep(0.5)
    assert store.leases() == {}  # expired: in force nowhere
    took = store.take_lease("s", "B", 30)
    assert (took.taken, took.owner, took.previous) == (True, "B", "A")
    assert store.renew_leases("A", ["s"], 30) == set()
    assert not store.take_lease("s", "A", 30).taken


def test_released_leases_are_free_at_once(store: Store) -> None:
    for name in ("a", "b", "c"):
        store.take_lease(name, "A", 30)
    assert store.release_leases("A", ["a"]) == 1
    assert store.take_lease("a", "B", 30).taken
    assert store.release_leases("B") == 1
    assert store.release_leases("A") == 2
    assert store.leases() == {}


def test_live_leases_keep_their_sessions_and_approvals_from_a_restart(store: Store) -> None:
    store.set_session_status("theirs", "active")
    store.set_session_status("dead", "active")
    store.take_lease("theirs", "B", 30)
    store.add_approval(ApprovalRow("p1", "theirs", "click", "x", {}, "r", "pending", 1.0))
    store.add_approval(ApprovalRow("p2", "dead", "click", "x", {}, "r", "pending", 1.0))
    assert store.retire_sessions("active", "suspended") == 1
    assert store.sessions() == {"theirs": "active", "dead": "suspended"}
    assert store.cancel_pending_approvals("gone") == 1
    assert [(a.id, a.status) for a in store.approvals()] == [
        ("p1", "pending"),
        ("p2", "cancelled"),
    ]


def test_of_daemons_racing_for_a_lease_exactly_one_wins(store_url: str, tmp_path: Path) -> None:
    # Each racer has a connection of its own (as separate daemons would).
    stores = [open_store(make_settings(tmp_path / f"s{n}", store_url=store_url)) for n in range(6)]
    try:
        for round_ in range(5):
            winners = race(stores, f"race{round_}")
            assert len(winners) == 1
            assert stores[0].leases()[f"race{round_}"].owner == winners[0]
    finally:
        for opened in stores:
            opened.close()


def race(stores: list[Store], session: str) -> list[str]:
    """Every store asks for `session`'s lease at once; the owners that got it."""
    start = threading.Barrier(len(stores))
    winners: list[str] = []

    def one(n: int) -> None:
        start.wait()
        if stores[n].take_lease(session, f"D{n}", 30).taken:
            winners.append(f"D{n}")

    threads = [threading.Thread(target=one, args=(n,)) for n in range(len(stores))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return winners


# ----------------------------------------------------------------- one schema, two dialects


def test_both_dialects_render_the_same_tables_and_columns(
    postgres_url: str, tmp_path: Path
) -> None:
    PostgresStore(postgres_url).close()
    sqlite_store = open_store(make_settings(tmp_path, store_url=f"sqlite://{tmp_path / 's.db'}"))
    sqlite_store.close()
    import sqlite3

    with sqlite3.connect(tmp_path / "s.db") as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        lite = {
            (t, r[1])
            for t in tables
            if t != "sqlite_sequence"
            for r in db.execute(f"PRAGMA table_info({t})")
        }
    with psycopg.connect(postgres_url) as pg:
        rows = pg.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' AND table_name != 'steadyhand_schema'"
        ).fetchall()
    assert lite == set(rows)
    assert "CREATE TABLE flows" in script(STEPS[-1], "sqlite")
    assert "CREATE UNIQUE INDEX flows_name_version" in script(STEPS[-1], "postgresql")


def test_a_second_opener_does_not_migrate_again(postgres_url: str) -> None:
    first = PostgresStore(postgres_url)
    log(first, "s")
    second = PostgresStore(postgres_url)
    assert second.schema_version == SCHEMA_VERSION and len(second.actions()) == 1
    first.close()
    second.close()


def test_connections_the_server_dropped_are_replaced_before_use(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_module, "IDLE_CHECK_S", 0.05)
    store = PostgresStore(postgres_url)
    try:
        first = log(store, "s")
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            dropped = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid != pg_backend_pid()"
            ).fetchone()
        assert dropped is not None and dropped[0] >= 1
        time.sleep(0.2)
        second = log(store, "s")  # no error: the dead connection was not handed out
        assert [r.id for r in store.actions("s")] == [first, second]
    finally:
        store.close()


def test_an_unreachable_store_names_it_without_the_password(
    postgres: object, tmp_path: Path
) -> None:
    url = "postgresql://steadyhand:hunter2@127.0.0.1:1/nowhere"
    settings = make_settings(tmp_path, store_url=url)
    assert "hunter2" not in repr(settings)
    with pytest.raises(SteadyhandError) as refused:
        open_store(settings)
    assert refused.value.code == ErrorCode.DAEMON_UNAVAILABLE
    text = str(refused.value.to_dict())
    assert "hunter2" not in text and "127.0.0.1:1/nowhere" in text
    with pytest.raises(SteadyhandError) as bad:
        open_store(make_settings(tmp_path, store_url="mysql://u:hunter2@h/db"))
    assert bad.value.code == ErrorCode.BAD_REQUEST and "hunter2" not in str(bad.value)


def test_flows_are_versioned_listed_and_removed(store: Store) -> None:
    body = {"format": 1, "name": "shop", "steps": [{"command": "open"}], "description": "buy"}
    assert store.save_flow("shop", body) == 1
    assert store.save_flow("shop", {**body, "steps": [{"command": "open"}] * 2}) == 2
    assert store.save_flow("other", {**body, "name": "other"}) == 1
    newest = store.flow("shop")
    assert newest is not None and newest.version == 2 and len(newest.body["steps"]) == 2
    assert newest.body["version"] == 2  # the body says which version it is
    first = store.flow("shop", 1)
    assert first is not None and len(first.body["steps"]) == 1
    assert store.flow("shop", 3) is None and store.flow("none") is None
    listed = {f.name: f for f in store.flows()}
    assert (listed["shop"].version, listed["shop"].versions, listed["shop"].steps) == (2, 2, 2)
    assert listed["shop"].description == "buy"
    assert store.flow_versions("shop") == [1, 2]
    assert store.forget_flow("shop", 1) == 1 and store.flow_versions("shop") == [2]
    assert store.forget_flow("shop") == 1 and store.flow("shop") is None
    assert [f.name for f in store.flows()] == ["other"]
