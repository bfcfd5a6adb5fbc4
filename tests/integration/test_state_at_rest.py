"""What a daemon leaves on disk holds no session secret in clear: after a cookie, a storage
item and a secret typed into a page that keeps it, and a checkpoint, no file of the state dir
(nor the store, SQLite or PostgreSQL) holds any of the three; the session still restores
with all of them. An exported profile is sealed; `state rekey` rotates the key."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.lookup import find_ref
from steadyhand.store.state_keys import key_id
from tests.conftest import Daemon, make_settings, running_daemon

pytestmark = pytest.mark.integration

COOKIE = "c00kie-at-rest-3b7d"
LOCAL = "l0cal-at-rest-91c4"
TYPED = "typed-s3cret-at-rest-5e02"
VALUES = (COOKIE, LOCAL, TYPED)


def on_disk(root: Path) -> bytes:
    """Every file under `root`, as bytes."""
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def in_tables(url: str) -> str:
    """Every row of every table of the store's database, as text."""
    with psycopg.connect(url, autocommit=True) as db:
        tables = [
            r[0]
            for r in db.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            ).fetchall()
        ]
        return "".join(
            str(db.execute(f'SELECT row_to_json(t)::text FROM "{t}" t').fetchall()) for t in tables
        )


def fill_session(d: Daemon, site: str, s: str) -> None:
    d.call("open", session=s, url=f"{site}/remember.html")
    d.call("cookies.set", session=s, name="sid", value=COOKIE)
    d.call("storage.set", session=s, kind="local", key="note", value=LOCAL)
    field = find_ref(d.snapshot(s), "textbox", "Account number")
    d.call("type", session=s, ref=field, secret="ACCOUNT")
    assert "kept 25 characters" in d.snapshot(s)


# The secret came back: replies show its value as its reference (vault.py's masking).
BACK = {"sid": COOKIE, "note": LOCAL, "typed": "{{secret:ACCOUNT}}"}


def restored(d: Daemon, s: str) -> dict[str, Any]:
    d.call("session.restore", session=s)
    cookies = {c["name"]: c["value"] for c in d.call("cookies.get", session=s)["cookies"]}
    local = d.call("storage.get", session=s, kind="local")["items"]
    kept = d.call("storage.get", session=s, kind="session")["items"]
    return {"sid": cookies.get("sid"), "note": local.get("note"), "typed": kept.get("account")}


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_no_secret_in_clear_at_rest_and_the_session_restores(
    backend: str, tmp_path: Path, site: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("postgres_url") if backend == "postgresql" else ""
    settings = make_settings(tmp_path / "state", store_url=url)
    env = dict(os.environ, STEADYHAND_SECRET_ACCOUNT=TYPED)
    with running_daemon(settings, env) as d:
        fill_session(d, site, "at-rest")
        d.call("session.suspend", session="at-rest")  # a checkpoint, the browser closed
    # The daemon is gone: its store, logs and artifacts are what a backup would hold.
    stored = on_disk(settings.state_dir) + (in_tables(url).encode() if url else b"")
    assert b"sealed:1:" in stored  # the checkpoint is there, sealed
    for value in VALUES:
        assert value.encode() not in stored, f"{value} is in clear at rest"
    assert (tmp_path / "state.key").stat().st_mode & 0o777 == 0o600  # beside, not in it

    with running_daemon(settings, env) as d:
        assert restored(d, "at-rest") == BACK


def test_without_its_key_a_store_fails_closed_and_loses_nothing(tmp_path: Path, site: str) -> None:
    settings = make_settings(tmp_path / "state")
    env = dict(os.environ, STEADYHAND_SECRET_ACCOUNT=TYPED)
    with running_daemon(settings, env) as d:
        fill_session(d, site, "locked")
        d.call("session.suspend", session="locked")
    key = tmp_path / "state.key"
    saved = key.read_bytes()
    key.unlink()
    with running_daemon(settings, env) as d:
        with pytest.raises(SteadyhandError) as caught:
            d.call("session.restore", session="locked")
        assert caught.value.code == ErrorCode.STATE_LOCKED, caught.value
        assert "nothing was deleted" in (caught.value.hint or "")
        assert d.statuses()["locked"] == "suspended"
        d.call("open", session="other", url=f"{site}/remember.html")  # the rest works
        assert [r["command"] for r in d.call("trace", name="locked", last=0)["actions"]][:2] == [
            "open",
            "cookies.set",
        ]
    key.write_bytes(saved)  # the key back: the session comes back whole
    key.chmod(0o600)
    with running_daemon(settings, env) as d:
        assert restored(d, "locked") == BACK


def test_rekey_and_a_sealed_profile_export(tmp_path: Path, site: str) -> None:
    settings = make_settings(tmp_path / "state")
    with running_daemon(settings) as d:
        d.call("profile.create", name="p")
        d.call("open", session="pro", url=f"{site}/remember.html", profile="p")
        later = time.time() + 86400  # kept by the profile (a session cookie would not be)
        d.call("cookies.set", session="pro", name="sid", value=COOKIE, expires=later)
        d.call("close", session="pro")
        exported = d.call("profile.export", name="p", out="p-sealed.json")
        out = Path(exported["path"])
        assert exported["sealed"] is True and COOKIE.encode() not in out.read_bytes()
        plain = d.call("profile.export", name="p", out="p-plain.json", plain=True)
        assert plain["sealed"] is False and COOKIE in Path(plain["path"]).read_text()

        d.call("open", session="r", url=f"{site}/remember.html")
        d.call("cookies.set", session="r", name="sid", value=COOKIE)
        d.call("session.suspend", session="r")
        before = d.call("state.key")
        (stored,) = before["checkpoints"].values()  # every checkpoint under the current key
        assert before["checkpoints"] == {before["current"]: stored} and stored >= 1
        assert "key file" in before["source"]

        kept = d.call("state.rekey", keep_old=True)
        assert kept["current"] != before["current"] and kept["resealed"] == stored
        assert set(kept["keys"]) == {before["current"], kept["current"]} and not kept["forgotten"]
        assert kept["checkpoints"] == {kept["current"]: stored}
        d.call("profile.import", name="q", file=str(out))  # the old key still opens it

        dropped = d.call("state.rekey")
        assert set(dropped["forgotten"]) == {before["current"], kept["current"]}
        assert dropped["keys"] == [dropped["current"]]
        with pytest.raises(SteadyhandError) as caught:
            d.call("profile.import", name="q", file=str(out))
        assert caught.value.code == ErrorCode.STATE_LOCKED
        assert restored(d, "r")["sid"] == COOKIE
        key_lines = (tmp_path / "state.key").read_text().split()
        # One key left in the file: the current one.
        assert [key_id(bytes.fromhex(k)) for k in key_lines] == [dropped["current"]]
