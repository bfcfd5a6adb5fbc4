"""The state key and what it seals: checkpoints in a real SQLite store, key files, the
environment's key, rotation, and failing closed on a key the store does not hold."""

from __future__ import annotations

import base64
import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store.sealing import open_document, seal, seal_document, unseal
from steadyhand.store.sqlite import Store
from steadyhand.store.state_keys import (
    ENV_KEY,
    KeyFile,
    KeyringEntry,
    StateKeys,
    beside,
    key_id,
)

COOKIE = "c00kie-in-a-checkpoint-5e1f"
STATE: dict[str, Any] = {
    "tabs": [{"id": "t1", "url": "http://127.0.0.1/x", "session_storage": {"k": "s3ss"}}],
    "cookies": [{"name": "sid", "value": COOKIE, "domain": "127.0.0.1", "path": "/"}],
    "origins": [],
}


def store_bytes(path: Path) -> bytes:
    """Every file of the store (the database, its WAL and shared memory)."""
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_a_checkpoint_is_sealed_in_the_file_and_opens_again(tmp_path: Path) -> None:
    db = tmp_path / "state" / "steadyhand.sqlite"
    store = Store(db)
    store.save_checkpoint("s1", "test", STATE)
    assert COOKIE.encode() not in store_bytes(db)
    with closing(sqlite3.connect(db)) as raw:
        (text,) = raw.execute("SELECT state_json FROM checkpoints").fetchone()
    assert text.startswith("sealed:1:" + key_id(store.keys.current()))
    key_file = beside(db.parent)
    assert key_file == tmp_path / "state.key" and key_file.stat().st_mode & 0o777 == 0o600
    store.close()

    again = Store(db)  # a new process reads the same key file
    checkpoint = again.latest_checkpoint("s1")
    assert checkpoint is not None and checkpoint.state == STATE
    again.close()


def test_a_store_without_its_key_fails_closed_and_keeps_the_rest(tmp_path: Path) -> None:
    db = tmp_path / "state" / "steadyhand.sqlite"
    store = Store(db)
    store.save_checkpoint("s1", "test", STATE)
    store.log_action(
        session="s1", tab="t1", command="click", params={}, ok=True, error_code=None,
        error_message=None, duration_ms=1.0,
    )  # fmt: skip
    lost_key = key_id(store.keys.current())
    store.close()
    beside(db.parent).unlink()

    other = Store(db)  # no key: none is made over the sealed rows, which stay as they were
    with pytest.raises(SteadyhandError) as caught:
        other.save_checkpoint("s2", "test", STATE)
    assert caught.value.code == ErrorCode.STATE_LOCKED and lost_key in caught.value.message
    assert not beside(db.parent).exists()
    with pytest.raises(SteadyhandError) as caught:
        other.latest_checkpoint("s1")
    assert caught.value.code == ErrorCode.STATE_LOCKED
    assert lost_key in caught.value.message and "nothing was deleted" in caught.value.hint
    assert other.has_checkpoint("s1")
    assert [a.command for a in other.actions("s1")] == ["click"]
    with pytest.raises(SteadyhandError) as caught:  # `state rekey` makes no key over them
        other.reseal_checkpoints()
    assert caught.value.code == ErrorCode.STATE_LOCKED
    assert other.checkpoint_keys() == {lost_key: 1}
    other.close()


def test_a_sealed_value_moved_to_another_row_or_altered_does_not_open(tmp_path: Path) -> None:
    keys = StateKeys.for_state_dir(tmp_path / "state", environ={})
    box = seal(keys, "checkpoint", "alice", b'{"a": 1}')
    assert unseal(keys, "checkpoint", "alice", box, "it") == b'{"a": 1}'
    for purpose, binding, text in [
        ("checkpoint", "bob", box),  # another session's row
        ("storage state", "alice", box),  # another kind of value
        ("checkpoint", "alice", box[:-6] + ("AAAA==" if not box.endswith("AAAA==") else "BBBB==")),
    ]:
        with pytest.raises(SteadyhandError) as caught:
            unseal(keys, purpose, binding, text, "it")
        assert caught.value.code == ErrorCode.STATE_LOCKED


def test_a_clear_checkpoint_of_an_older_steadyhand_is_sealed_at_start(tmp_path: Path) -> None:
    db = tmp_path / "state" / "steadyhand.sqlite"
    store = Store(db)
    store.save_checkpoint("s1", "test", STATE)
    with closing(sqlite3.connect(db)) as raw:  # as an older steadyhand wrote it
        raw.execute("UPDATE checkpoints SET state_json = ?", (json.dumps(STATE),))
        raw.commit()
    assert store.checkpoint_keys() == {"clear": 1}
    with pytest.raises(SteadyhandError) as caught:  # only the start's migration reads it
        store.latest_checkpoint("s1")
    assert caught.value.code == ErrorCode.STATE_LOCKED and "in clear" in caught.value.message
    counts = store.reseal_checkpoints(only_clear=True)
    assert counts == {"resealed": 0, "sealed": 1, "kept": 0, "locked": 0}
    assert COOKIE.encode() not in store_bytes(db)  # not in a free page, not in the WAL
    assert store.latest_checkpoint("s1").state == STATE  # type: ignore[union-attr]
    store.close()


def test_rotation_reseals_every_checkpoint_and_forgets_the_old_key(tmp_path: Path) -> None:
    db = tmp_path / "state" / "steadyhand.sqlite"
    store = Store(db)
    for name in ("s1", "s2"):
        store.save_checkpoint(name, "test", STATE)
    old = key_id(store.keys.current())
    exported = seal_document(store.keys, "storage state", {"cookies": [], "origins": []})

    old_ids, new = store.keys.rotate()
    assert old_ids == [old] and new != old
    assert set(store.keys.by_id()) == {old, new}  # the file holds both until forgotten
    counts = store.reseal_checkpoints()
    assert counts == {"resealed": 2, "sealed": 0, "kept": 0, "locked": 0}
    assert store.checkpoint_keys() == {new: 2}
    assert store.keys.forget_old() == [old]
    store.close()

    again = Store(db)
    assert set(again.keys.by_id()) == {new}
    assert again.latest_checkpoint("s2").state == STATE  # type: ignore[union-attr]
    with pytest.raises(SteadyhandError) as caught:  # a file the old key sealed
        open_document(again.keys, exported, "the export")
    assert caught.value.code == ErrorCode.STATE_LOCKED and old in caught.value.message
    again.close()


def test_the_environment_s_key_wins_and_cannot_be_rotated_here(tmp_path: Path) -> None:
    raw = os.urandom(32)
    old = os.urandom(32)
    for written in (
        raw.hex(),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
    ):
        keys = StateKeys.for_state_dir(
            tmp_path / "state", environ={ENV_KEY: written, ENV_KEY + "_OLD": old.hex()}
        )
        assert keys.current() == raw and set(keys.by_id()) == {key_id(raw), key_id(old)}
        assert "STEADYHAND_STATE_KEY" in keys.source
    assert not beside(tmp_path / "state").exists()  # no file made when the env gives the key
    with pytest.raises(SteadyhandError) as caught:
        keys.rotate()
    assert caught.value.code == ErrorCode.BAD_REQUEST and "_OLD" in caught.value.hint

    bad = StateKeys.for_state_dir(tmp_path / "state", environ={ENV_KEY: "hunter2"})
    with pytest.raises(SteadyhandError) as caught:
        bad.current()
    assert caught.value.code == ErrorCode.BAD_REQUEST and "hunter2" not in str(caught.value)


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.key"
    KeyFile(path).write([os.urandom(32)])
    path.chmod(0o644)
    with pytest.raises(SteadyhandError) as caught:
        StateKeys(stores=[KeyFile(path)]).current()
    assert "open to others" in caught.value.message and "chmod 600" in caught.value.hint
    path.unlink()
    path.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SteadyhandError):
        StateKeys(stores=[KeyFile(path)]).current()


class Backend:
    """A keyring backend as the `keyring` package's are: get/set by service and user."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, user: str) -> str | None:
        return self.items.get((service, user))

    def set_password(self, service: str, user: str, value: str) -> None:
        self.items[(service, user)] = value


def test_a_keyring_keeps_the_key_before_a_file_and_a_file_key_still_opens(tmp_path: Path) -> None:
    backend = Backend()
    path = tmp_path / "state.key"
    keys = StateKeys(stores=[KeyringEntry(backend, "/state"), KeyFile(path)])
    made = keys.current()
    assert backend.items[("steadyhand", "/state")].strip() == made.hex() and not path.exists()
    assert keys.source == "the keyring entry steadyhand//state"

    # A key file from before the keyring was reachable is still read when the keyring is empty.
    KeyFile(path).write([b"\1" * 32])
    fresh = StateKeys(stores=[KeyringEntry(Backend(), "/state"), KeyFile(path)])
    assert fresh.current() == b"\1" * 32
