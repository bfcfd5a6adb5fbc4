from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from steadyhand.config import Settings
from steadyhand.observe.retention import apply
from steadyhand.store.sqlite import ArtifactFile, Store


def make(tmp_path: Path, **settings: Any) -> tuple[Settings, Store]:
    config = Settings.load(state_dir=tmp_path / "state", **settings)
    return config, Store(config.store_path)


def write(
    settings: Settings, store: Store, session: str, name: str, *, size: int, age: int
) -> Path:
    """A file of `size` bytes in the session's artifacts, `age` seconds old, indexed with
    an action of its own."""
    path = settings.artifacts_dir / session / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    when = 1_700_000_000 - age
    os.utime(path, (when, when))
    index(store, session, path, size)
    return path


def index(store: Store, session: str, path: Path, size: int) -> None:
    """An action of the session that wrote `path`."""
    store.log_action(
        session=session,
        tab="t1",
        command="screenshot",
        params={},
        ok=True,
        error_code=None,
        error_message=None,
        duration_ms=1.0,
        files=[ArtifactFile("screenshot", "t1", str(path), size)],
    )


def test_only_the_newest_sessions_keep_their_files(tmp_path: Path) -> None:
    settings, store = make(tmp_path, artifacts_keep_sessions=2)
    files = {
        s: write(settings, store, s, f"{s}.png", size=10, age=age)
        for s, age in (("a", 400), ("b", 300), ("c", 200), ("d", 100))
    }
    outside = tmp_path / "mine.png"  # a caller's own path, indexed with session "a"
    outside.write_bytes(b"y")
    os.utime(outside, (1, 1))
    index(store, "a", outside, 1)
    stray = settings.artifacts_dir / "b" / "not-indexed.txt"  # from an older steadyhand
    stray.write_text("z")
    os.utime(stray, (1, 1))
    actions_before = len(store.actions())

    pruned = apply(store, settings)

    assert pruned.sessions == ["a", "b"] and pruned.files == 3
    assert pruned.bytes_freed == 21 and pruned.bytes_kept == 20
    assert not files["a"].exists() and not files["b"].exists() and not stray.exists()
    assert not (settings.artifacts_dir / "a").exists()
    assert files["c"].exists() and files["d"].exists() and outside.exists()
    # Their index rows go; the action log and every other row stay.
    assert {Path(r.path) for r in store.artifacts()} == {files["c"], files["d"], outside}
    assert len(store.actions()) == actions_before
    assert apply(store, settings).files == 0  # nothing more to do


def test_the_byte_budget_takes_the_oldest_files_but_not_open_sessions(tmp_path: Path) -> None:
    settings, store = make(tmp_path, artifacts_max_bytes=250)
    old_live = write(settings, store, "live", "0.png", size=100, age=900)
    older = write(settings, store, "s1", "1.png", size=100, age=800)
    old = write(settings, store, "s2", "2.png", size=100, age=700)
    new = write(settings, store, "s2", "3.png", size=100, age=100)

    pruned = apply(store, settings, live={"live"})

    # 400 bytes over a 250 budget: the oldest files of closed sessions go until it fits.
    assert not older.exists() and not old.exists()
    assert old_live.exists() and new.exists()
    assert pruned.files == 2 and pruned.bytes_kept == 200 and pruned.sessions == []
    assert {Path(r.path) for r in store.artifacts()} == {old_live, new}


def test_nothing_to_do_without_an_artifacts_dir(tmp_path: Path) -> None:
    settings, store = make(tmp_path)
    assert apply(store, settings).files == 0
