"""The daemon side of leases (steadyhand/leasing.py) on both backends: claims, the
heartbeat letting go, and a dead daemon's session adopted as a suspended one. Real
engines (no browser is started: no session is opened) on a real store."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from steadyhand.engine.engine import Engine
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.leasing import SessionLeases
from steadyhand.snapshot import page_model
from steadyhand.store.open import open_store, shown_owner
from tests.conftest import make_settings

LEASE_S = 0.6


@pytest.fixture
def daemons(store_url: str, tmp_path: Path) -> Iterator[tuple[SessionLeases, SessionLeases]]:
    """Two daemons' leases (A, B) on one store, each with its own store connection."""
    made: list[SessionLeases] = []
    for name in ("A", "B"):
        settings = make_settings(tmp_path / name, store_url=store_url, daemon_name=name)
        store = open_store(settings)
        made.append(
            SessionLeases(store, Engine(settings, store, page_model.install), name, LEASE_S)
        )
    yield made[0], made[1]
    for leases in made:
        leases.store.close()


def refused(leases: SessionLeases, name: str) -> SteadyhandError:
    with pytest.raises(SteadyhandError) as caught:
        asyncio.run(leases.claim(name))
    return caught.value


def test_a_claimed_session_is_refused_to_another_daemon_with_its_owner(
    daemons: tuple[SessionLeases, SessionLeases],
) -> None:
    a, b = daemons
    asyncio.run(a.claim("s"))
    asyncio.run(a.claim("s"))  # again: still ours
    error = refused(b, "s")
    assert error.code == ErrorCode.SESSION_LEASED
    assert error.data["owner"] == "A" and error.data["session"] == "s"
    assert "'A'" in error.message and "'A'" in error.hint
    assert a.held == {"s"} and b.held == set()


def test_the_heartbeat_lets_go_of_a_session_nobody_runs(
    daemons: tuple[SessionLeases, SessionLeases],
) -> None:
    a, b = daemons
    asyncio.run(a.claim("s"))
    asyncio.run(a.beat())  # claimed a moment ago: kept (a command may be opening it)
    assert refused(b, "s").code == ErrorCode.SESSION_LEASED
    time.sleep(LEASE_S)
    asyncio.run(a.beat())  # no session of that name runs in A: released at once
    assert a.held == set() and a.store.leases() == {}
    asyncio.run(b.claim("s"))


def test_a_dead_daemon_s_session_becomes_a_suspended_one_here(
    daemons: tuple[SessionLeases, SessionLeases],
) -> None:
    a, b = daemons
    asyncio.run(a.claim("s"))
    a.store.set_session_status("s", "active", "")
    a.store.save_checkpoint("s", "navigation", {"tabs": [{"id": "t1", "url": "about:blank"}]})
    asyncio.run(a.claim("t"))  # a session with no checkpoint: nothing to restore
    a.store.set_session_status("t", "active", "")
    # A dies: nothing renews its leases.
    assert refused(b, "s").code == ErrorCode.SESSION_LEASED
    time.sleep(LEASE_S + 0.1)
    asyncio.run(b.claim("s"))
    asyncio.run(b.claim("t"))
    assert b.engine.suspended() == {"s"}, "restored from its checkpoint on use"
    assert {k: v.owner for k, v in b.store.leases().items()} == {"s": "B", "t": "B"}
    assert refused(a, "s").data["owner"] == "B"


def test_a_session_another_daemon_closed_is_no_longer_suspended_here(
    daemons: tuple[SessionLeases, SessionLeases],
) -> None:
    a, b = daemons
    b.engine.load_suspended({"s"})  # as B found it when it started
    asyncio.run(a.claim("s"))  # A restored it, then closed it (its checkpoints gone)
    a.store.set_session_status("s", "closed")
    asyncio.run(a.stop())
    asyncio.run(b.claim("s"))
    assert b.engine.suspended() == set(), "a command on it starts a new session"
    assert b.store.sessions() == {"s": "closed"}


def test_stopping_releases_every_lease(daemons: tuple[SessionLeases, SessionLeases]) -> None:
    a, b = daemons

    async def run_and_stop() -> None:
        a.start()
        await a.claim("s")
        await a.claim("u")
        await asyncio.sleep(LEASE_S / 2)  # a beat or so
        await a.stop()

    asyncio.run(run_and_stop())
    assert a.store.leases() == {}
    asyncio.run(b.claim("s"))


def test_a_claim_made_during_a_heartbeat_keeps_its_lease(
    daemons: tuple[SessionLeases, SessionLeases],
) -> None:
    """The beat decides what to let go after the store answered: a session a command
    claimed meanwhile is not among it."""
    a, b = daemons
    renew = a.store.renew_leases

    def slow_renew(owner: str, sessions: Sequence[str], lease_s: float) -> set[str]:
        time.sleep(0.3)  # the store answering slowly: the claim lands in between
        return renew(owner, sessions, lease_s)

    a.store.renew_leases = slow_renew  # type: ignore[method-assign]

    async def run() -> None:
        beat = asyncio.create_task(a.beat())
        await asyncio.sleep(0.05)
        await a.claim("mid")
        await beat

    asyncio.run(run())
    assert "mid" in a.held
    assert refused(b, "mid").code == ErrorCode.SESSION_LEASED


def test_two_daemons_of_one_name_are_two_owners(tmp_path: Path) -> None:
    """daemon_name is what people read; the lease owner carries a token of the process."""
    import subprocess
    import sys

    code = (
        "from steadyhand.config import Settings; from steadyhand.store.open import daemon_owner;"
        "print(daemon_owner(Settings(daemon_name='worker-1')))"
    )
    owners = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(2)
    }
    assert len(owners) == 2
    assert {shown_owner(o) for o in owners} == {"worker-1"}
