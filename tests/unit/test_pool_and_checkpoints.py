"""The pool's cap and wait, profile locks, and checkpoint storage, without a browser.

The pool does not make contexts itself (the engine's opener does), so here the opener
returns sessions over a stand-in context; everything with a browser is in
tests/integration/test_sessions.py.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from steadyhand.engine.checkpoint import local_storage, origin_of, storage_state
from steadyhand.engine.pool import Pool
from steadyhand.engine.profiles import Profiles
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store.sqlite import KEEP_CHECKPOINTS, Store


class StandInContext:
    """Just enough of a BrowserContext for Session: event hooks and close."""

    def __init__(self) -> None:
        self.closed = False

    def on(self, event: str, handler: Any) -> None:
        pass

    async def close(self) -> None:
        self.closed = True


def make_pool(cap: int, wait_ms: int = 0, open_s: float = 0.0) -> tuple[Pool, list[str]]:
    opened: list[str] = []

    async def opener(name: str, profile: str | None, state: dict[str, Any] | None) -> Session:
        await asyncio.sleep(open_s)
        opened.append(name)
        return Session(name, StandInContext(), profile=profile)  # type: ignore[arg-type]

    return Pool(opener, cap, wait_ms), opened


def test_the_cap_refuses_with_the_live_sessions_named() -> None:
    async def run() -> SteadyhandError:
        pool, _ = make_pool(cap=2)
        await pool.acquire("a")
        await pool.acquire("b")
        assert await pool.acquire("a") is pool.get("a"), "a live session is no new slot"
        with pytest.raises(SteadyhandError) as caught:
            await pool.acquire("c")
        return caught.value

    err = asyncio.run(run())
    assert err.code == ErrorCode.POOL_EXHAUSTED
    assert "2 of 2" in err.message and err.data == {"live": ["a", "b"], "cap": 2}


def test_a_waiter_gets_the_slot_a_release_frees_and_times_out_without_one() -> None:
    async def run() -> tuple[bool, str]:
        pool, _ = make_pool(cap=1, wait_ms=2_000)
        first = await pool.acquire("a")
        waiter = asyncio.create_task(pool.acquire("b"))
        await asyncio.sleep(0.05)
        assert not waiter.done() and pool.status().waiting == 1
        await pool.release("a")
        got = await waiter
        assert first.context.closed  # type: ignore[attr-defined]
        with pytest.raises(SteadyhandError) as caught:
            await pool.acquire("c", wait_ms=50)
        return got is pool.get("b"), caught.value.code

    assert asyncio.run(run()) == (True, ErrorCode.POOL_EXHAUSTED)


def test_two_first_calls_on_one_name_share_one_context() -> None:
    async def run() -> tuple[bool, list[str]]:
        pool, opened = make_pool(cap=4, open_s=0.05)
        one, two = await asyncio.gather(pool.acquire("same"), pool.acquire("same"))
        return one is two, opened

    assert asyncio.run(run()) == (True, ["same"])


def test_a_failed_open_frees_its_slot_and_bad_names_are_refused() -> None:
    async def run() -> list[str]:
        calls = 0

        async def opener(name: str, profile: str | None, state: Any) -> Session:
            nonlocal calls
            calls += 1
            if calls == 1:
                raise RuntimeError("no browser")
            return Session(name, StandInContext())  # type: ignore[arg-type]

        pool = Pool(opener, 1, 0)
        with pytest.raises(RuntimeError):
            await pool.acquire("a")
        await pool.acquire("a")  # the failed open left no reserved slot
        with pytest.raises(SteadyhandError, match="invalid session name"):
            await pool.acquire("../x")
        return [s.name for s in pool.sessions()]

    assert asyncio.run(run()) == ["a"]


def test_a_session_on_a_profile_is_not_reused_for_another_profile() -> None:
    async def run() -> str:
        pool, _ = make_pool(cap=2)
        await pool.acquire("s", profile="work")
        with pytest.raises(SteadyhandError) as caught:
            await pool.acquire("s", profile="home")
        return caught.value.message

    assert "profile 'work'" in asyncio.run(run())


def test_a_profile_is_locked_to_one_session_and_private(tmp_path: Path) -> None:
    profiles = Profiles(tmp_path / "profiles")
    info = profiles.create("work")
    assert (Path(info.path).stat().st_mode & 0o777) == 0o700
    profiles.lock("work", "s1")
    with pytest.raises(SteadyhandError) as here:
        profiles.lock("work", "s2")
    assert here.value.code == ErrorCode.PROFILE_IN_USE and "'s1'" in here.value.message
    # Another daemon (another Profiles on the same dir) is refused by the file lock.
    with pytest.raises(SteadyhandError, match="another steadyhand daemon"):
        Profiles(tmp_path / "profiles").lock("work", "elsewhere")
    with pytest.raises(SteadyhandError) as busy:
        profiles.delete("work")
    assert busy.value.code == ErrorCode.PROFILE_IN_USE
    profiles.unlock("work")
    profiles.delete("work")
    assert profiles.list() == []
    with pytest.raises(SteadyhandError) as gone:
        profiles.user_data_dir("work")
    assert gone.value.code == ErrorCode.NOT_FOUND and "profile create work" in gone.value.hint
    with pytest.raises(SteadyhandError, match="invalid profile name"):
        profiles.create("../etc")


def test_checkpoints_keep_the_newest_few_and_the_last_action_they_include(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    assert store.latest_checkpoint("a") is None
    store.log_action(
        session="a",
        tab="t1",
        command="open",
        params={},
        ok=True,
        error_code=None,
        error_message=None,
        duration_ms=1,
    )
    for n in range(KEEP_CHECKPOINTS + 2):
        store.save_checkpoint("a", f"r{n}", {"tabs": [{"id": "t1", "url": f"u{n}"}]})
    store.save_checkpoint("b", "other", {"tabs": []})
    latest = store.latest_checkpoint("a")
    assert latest is not None and latest.reason == f"r{KEEP_CHECKPOINTS + 1}"
    assert latest.last_action == store.actions("a")[-1].id
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        kept = db.execute("SELECT COUNT(*) FROM checkpoints WHERE session = 'a'").fetchone()[0]
    assert kept == KEEP_CHECKPOINTS
    assert set(store.checkpoint_times()) == {"a", "b"}
    store.forget_checkpoints("a")
    assert store.latest_checkpoint("a") is None and store.latest_checkpoint("b") is not None
    store.close()


def test_storage_state_keeps_cookies_and_local_storage_goes_by_origin() -> None:
    state = {
        "cookies": [{"name": "user", "value": "ada"}],
        "origins": [
            {"origin": "http://a.test:8000", "localStorage": [{"name": "k", "value": "v"}]},
            {"origin": "http://empty.test", "localStorage": []},
        ],
    }
    assert storage_state(state) == {"cookies": state["cookies"], "origins": []}
    assert local_storage(state) == {"http://a.test:8000": {"k": "v"}}
    assert origin_of("http://a.test:8000/x?y#z") == "http://a.test:8000"
    assert origin_of("about:blank") is None and origin_of("data:text/html,x") is None
    json.dumps(state)  # a state is plain JSON: it goes to SQLite as text
