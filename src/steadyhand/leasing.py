"""Session leases: with a store several daemons share, one daemon runs a session at a time.

A command naming a session first claims its lease (store.take_lease, atomic in the
database): refused with `session_leased` while another daemon's lease is live. A heartbeat
renews the leases of the sessions this daemon runs every lease_s/3 and lets go of the
others. A daemon that dies stops renewing; once its lease runs out, the next daemon a
command on the session reaches takes it over from the session's latest checkpoint (the
engine's suspended-session path: restored on use).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store.open import daemon_owner, is_shared, shown_owner

if TYPE_CHECKING:
    from steadyhand.config import Settings
    from steadyhand.engine.engine import Engine
    from steadyhand.store.base import Store

log = logging.getLogger("steadyhand.leasing")

# Statuses of a session row another daemon left that this one may restore once it holds
# the lease: it ran there ("active") or was suspended there.
RESTORABLE = ("active", "live", "suspended")


class SessionLeases:
    """This daemon's leases, as `owner`, on the sessions it runs."""

    def __init__(self, store: Store, engine: Engine, owner: str, lease_s: float) -> None:
        self.store = store
        self.engine = engine
        self.owner = owner
        self.lease_s = lease_s
        self._confirmed: dict[str, float] = {}  # session -> when the store last said ours
        self._claimed: dict[str, float] = {}  # session -> when a command last claimed it
        self._heartbeat: asyncio.Task[None] | None = None

    @property
    def held(self) -> set[str]:
        return set(self._confirmed)

    async def claim(self, name: str) -> None:
        """Hold `name`'s lease for a command on it, or raise `session_leased`.

        A session another daemon ran (whose lease ran out) becomes a suspended session of
        this daemon's engine: the command restores it from its latest checkpoint.
        """
        now = time.monotonic()
        self._claimed[name] = now
        confirmed = self._confirmed.get(name)
        if confirmed is not None and now - confirmed < self.lease_s / 3:
            return  # renewed that recently: still ours for two thirds of a lease at least
        lease = await asyncio.to_thread(self.store.take_lease, name, self.owner, self.lease_s)
        if not lease.taken:
            self._claimed.pop(name, None)
            raise leased_error(name, lease.owner, lease.remaining_s)
        self._confirmed[name] = time.monotonic()
        if lease.previous is not None:
            log.warning("took over session %s from %s (its lease ran out)", name, lease.previous)
        await self._adopt(name)

    async def _adopt(self, name: str) -> None:
        """Make a session another daemon left restorable here (if it has a checkpoint);
        forget one listed here as suspended that another daemon has closed since."""
        engine = self.engine
        if engine.pool.get(name) is not None or engine.pool.opening(name):
            return
        if name in engine.recovering():
            return
        rows = await asyncio.to_thread(self.store.session_rows)
        row = next((r for r in rows if r.name == name), None)
        if name in engine.suspended():
            if row is not None and row.status == "closed":
                await engine.close_session(name)  # (closed already: nothing else changes)
            return
        if row is None or row.status not in RESTORABLE:
            return
        if not await asyncio.to_thread(self.store.has_checkpoint, name):
            return
        engine.load_suspended({name})

    def running(self) -> set[str]:
        """Sessions this daemon runs or is bringing up, whose leases it keeps."""
        engine = self.engine
        names = {s.name for s in engine.sessions()} | engine.recovering()
        # A session a command claimed is kept while its browser starts (however long that
        # takes), and for a lease's time after the claim (a command closing it, say).
        now = time.monotonic()
        names |= {
            n
            for n, at in self._claimed.items()
            if now - at < self.lease_s or engine.pool.opening(n)
        }
        return names

    async def beat(self) -> None:
        """Renew the leases of the sessions this daemon runs; let go of the rest. A session
        whose lease another daemon took meanwhile (this one stalled past its lease) is
        closed here, so that two daemons never drive it."""
        started = time.monotonic()
        keep = self.running()
        renewed = await asyncio.to_thread(
            self.store.renew_leases, self.owner, sorted(keep), self.lease_s
        )
        for name in renewed:
            self._confirmed[name] = started
        # Lost: another daemon holds it now. (Not renewed but free: a claim still on its
        # way to the store, or a lease that ran out unclaimed; the next claim settles it.)
        lost: set[str] = set()
        if keep - renewed:
            held = await asyncio.to_thread(self.store.leases)
            lost = {n for n in keep - renewed if n in held and held[n].owner != self.owner}
        for name in sorted(lost):
            self._confirmed.pop(name, None)
            self._claimed.pop(name, None)
            if self.engine.pool.get(name) is not None:
                log.warning("lost the lease of session %s to another daemon; closing it here", name)
                await self.engine.release(name)
        # A command may have claimed a session while the store answered: keep that too.
        keep |= self.running() | {n for n, at in self._claimed.items() if at >= started}
        let_go = sorted(set(self._confirmed) - keep)
        if let_go:
            await asyncio.to_thread(self.store.release_leases, self.owner, let_go)
            for name in let_go:
                self._confirmed.pop(name, None)
        for name in [n for n in self._claimed if n not in keep]:
            del self._claimed[name]

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 3)
            try:
                await self.beat()
            except Exception:  # the store away for a moment: the next beat tries again
                log.exception("renewing session leases failed")

    def start(self) -> None:
        """Start the heartbeat (on the running event loop)."""
        if self._heartbeat is None:
            self._heartbeat = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop the heartbeat and release every lease (the sessions were suspended): any
        daemon may restore them at once."""
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
            self._heartbeat = None
        await asyncio.to_thread(self.store.release_leases, self.owner)
        self._confirmed.clear()
        self._claimed.clear()


def session_leases(settings: Settings, store: Store, engine: Engine) -> SessionLeases | None:
    """This daemon's leases, their heartbeat started, when the store may be shared (any
    store_url); None for the embedded store, which only this daemon opens."""
    if not is_shared(settings):
        return None
    leases = SessionLeases(store, engine, daemon_owner(settings), settings.lease_s)
    leases.start()
    return leases


def leased_error(name: str, holder: str, remaining_s: float) -> SteadyhandError:
    owner = shown_owner(holder)
    return SteadyhandError(
        ErrorCode.SESSION_LEASED,
        f"session {name!r} is run by another daemon, {owner!r}",
        f"send commands on {name!r} to the daemon {owner!r}, or use another session name; "
        f"if that daemon is gone, its lease runs out within {remaining_s:.1f} s and then "
        "this daemon takes the session over from its latest checkpoint",
        {"session": name, "owner": owner, "expires_in_s": round(remaining_s, 1)},
    )
