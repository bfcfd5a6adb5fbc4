"""Health: probe every session's tabs on a heartbeat; recover the ones that stop answering.

A probe is a trivial evaluate in each tab under a deadline: a crashed renderer or a page
stuck in a script loop fails it. A tab that Chromium reports crashed fails it at once. A
session whose probes fail `health_failures` times in a row (the circuit breaker) is closed
and recreated from its checkpoint. Tabs held by an open dialog are skipped: a dialog stops
a page's scripts by design.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Protocol

from playwright.async_api import Error as PlaywrightError

from steadyhand.config import Settings
from steadyhand.engine import playwright_errors
from steadyhand.engine.pool import Pool
from steadyhand.engine.session import Session

log = logging.getLogger("steadyhand.health")


@dataclass
class Health:
    """What the probes last saw of one session."""

    status: str = "unknown"  # ok, failing, recovering
    failures: int = 0  # consecutive failed probes
    last_probe: float = 0.0
    last_error: str = ""
    recoveries: int = 0
    crashed_tabs: set[str] = field(default_factory=set)

    def as_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "failures": self.failures,
            "last_probe": self.last_probe,
            "last_error": self.last_error,
            "recoveries": self.recoveries,
        }


async def probe(session: Session, timeout_ms: float, health: Health) -> str:
    """'' when every tab answers within the deadline, else what failed."""
    problems: list[str] = []

    async def one(tab_id: str) -> None:
        tab = session.tabs.get(tab_id)
        if tab is None or tab.page.is_closed() or tab.events.dialog_info() is not None:
            return
        if tab_id in health.crashed_tabs:
            problems.append(f"tab {tab_id} crashed")
            return
        try:
            await asyncio.wait_for(tab.page.evaluate("1"), timeout_ms / 1000)
        except TimeoutError:
            problems.append(f"tab {tab_id} did not answer within {timeout_ms:.0f} ms")
        except PlaywrightError as exc:
            if tab.page.is_closed() or playwright_errors.navigated(str(exc)):
                return  # closed, or between two documents: alive either way
            problems.append(f"tab {tab_id}: {str(exc).strip().splitlines()[0]}")

    await asyncio.gather(*(one(t) for t in list(session.tabs)))
    return "; ".join(problems)


class Watched(Protocol):
    """What the monitor needs of the engine it watches (engine.py's `Engine`)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def pool(self) -> Pool: ...

    def sessions(self) -> list[Session]: ...

    async def recover(self, name: str, why: str) -> None: ...


class HealthMonitor:
    """The heartbeat: one loop over every live session of the engine."""

    def __init__(self, engine: Watched) -> None:
        self.engine = engine
        settings = engine.settings
        self.interval_s = settings.health_interval_s
        self.timeout_ms = float(settings.health_probe_ms)
        self.threshold = max(1, settings.health_failures)
        self.health: dict[str, Health] = {}
        self._task: asyncio.Task[None] | None = None

    def of(self, name: str) -> Health:
        return self.health.setdefault(name, Health())

    def watch(self, session: Session) -> None:
        """Count a crashed tab as failed at once, and start recovery without waiting."""
        health = self.of(session.name)
        health.crashed_tabs.clear()

        def crashed(tab_id: str) -> None:
            health.crashed_tabs.add(tab_id)
            health.last_error = f"tab {tab_id} crashed"
            asyncio.get_running_loop().create_task(self.check(session))

        session.on_crash = crashed

    def start(self) -> None:
        if self.interval_s > 0 and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._beat())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            sessions = self.engine.sessions()
            await asyncio.gather(*(self.check(s) for s in sessions), return_exceptions=True)

    async def check(self, session: Session) -> Health:
        """Probe one session now; recover it when the breaker trips."""
        health = self.of(session.name)
        if self.engine.pool.get(session.name) is not session or session.attached is not None:
            return health  # an attached application is not ours to probe or restart
        failed = await probe(session, self.timeout_ms, health)
        health.last_probe = time.time()
        if not failed:
            health.status, health.failures, health.last_error = "ok", 0, ""
            return health
        crashed = bool(health.crashed_tabs)
        health.failures = self.threshold if crashed else health.failures + 1
        health.last_error = failed
        health.status = "failing"
        log.warning("session %s probe failed (%d): %s", session.name, health.failures, failed)
        if health.failures >= self.threshold and self.engine.pool.get(session.name) is session:
            health.status = "recovering"
            health.recoveries += 1
            why = failed if crashed else f"health probes failed {health.failures} times: {failed}"
            await self.engine.recover(session.name, why)
            health.failures = 0
            health.crashed_tabs.clear()
            health.status = "ok" if self.engine.pool.get(session.name) else "lost"
        return health
