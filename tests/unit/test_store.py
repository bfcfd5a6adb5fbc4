from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from steadyhand.store import sqlite as store_module
from steadyhand.store.sqlite import SCHEMA_VERSION, Store


def test_new_store_is_private_wal_and_versioned(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    assert stat.S_IMODE((tmp_path / "s.sqlite").stat().st_mode) == 0o600
    assert store.schema_version == SCHEMA_VERSION
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


def test_action_log_round_trip_and_sessions(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    for i, ok in enumerate((True, False)):
        store.log_action(
            session="a",
            tab="t1",
            command="click",
            params={"ref": f"e{i}"},
            ok=ok,
            error_code=None if ok else "stale_ref",
            error_message=None if ok else "stale",
            duration_ms=1.5,
        )
    store.log_action(
        session="b",
        tab=None,
        command="open",
        params={},
        ok=True,
        error_code=None,
        error_message=None,
        duration_ms=2,
    )
    rows = store.actions("a")
    assert [(r.params["ref"], r.ok, r.error_code) for r in rows] == [
        ("e0", True, None),
        ("e1", False, "stale_ref"),
    ]
    assert len(store.actions()) == 3 and len(store.actions(limit=1)) == 1
    store.set_session_status("a", "live")
    store.set_session_status("a", "closed")
    assert store.sessions() == {"a": "closed"}
    store.close()


def test_reopening_keeps_data_and_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).set_session_status("kept", "live")
    again = Store(path)
    assert again.sessions() == {"kept": "live"}
    again.close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="newer than this steadyhand"):
        Store(path)


def test_a_failed_migration_leaves_the_previous_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    broken = [*store_module.MIGRATIONS, "CREATE TABLE extra (x); THIS IS NOT SQL;"]
    monkeypatch.setattr(store_module, "MIGRATIONS", broken)
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", len(broken))
    with pytest.raises(sqlite3.OperationalError):
        Store(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "extra" not in tables
