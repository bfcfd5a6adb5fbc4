"""The pool of live sessions: acquire, release, destroy, status, with a cap on contexts.

Each session is its own browser context (cookies, storage and cache of its own), or, on a
persistent profile, its own browser on that profile's user-data dir. The pool does not
know how contexts are made: the engine hands it an `Opener`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from steadyhand.config import check_session_name
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError

log = logging.getLogger("steadyhand.pool")


# Makes the session `name` (on `profile`, from a checkpoint's state) and returns it.
Opener = Callable[[str, str | None, dict[str, Any] | None], Awaitable[Session]]


@dataclass(frozen=True)
class PoolStatus:
    live: int
    opening: int
    waiting: int
    cap: int
    wait_ms: int


class Pool:
    def __init__(self, opener: Opener, cap: int, wait_ms: int) -> None:
        self._open = opener
        self.cap = max(1, cap)
        self.wait_ms = max(0, wait_ms)
        self._sessions: dict[str, Session] = {}
        self._opening: dict[str, asyncio.Future[Session]] = {}
        self._waiting = 0
        self._changed = asyncio.Condition()

    def get(self, name: str) -> Session | None:
        return self._sessions.get(name)

    def opening(self, name: str) -> bool:
        """Whether a session of this name is being opened now."""
        return name in self._opening

    def sessions(self) -> list[Session]:
        return list(self._sessions.values())

    def status(self) -> PoolStatus:
        return PoolStatus(
            live=len(self._sessions),
            opening=len(self._opening),
            waiting=self._waiting,
            cap=self.cap,
            wait_ms=self.wait_ms,
        )

    async def acquire(
        self,
        name: str,
        profile: str | None = None,
        state: dict[str, Any] | None = None,
        wait_ms: float | None = None,
        opener: Opener | None = None,
    ) -> Session:
        """The live session `name`, opened when there is none (waiting for a free slot);
        `opener` instead of the pool's own (an attached session is made differently)."""
        existing = self._sessions.get(name)
        if existing is not None:
            if profile is not None and existing.profile != profile:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"session {name!r} is open on "
                    + (f"profile {existing.profile!r}" if existing.profile else "no profile"),
                    f"use another session name for profile {profile!r}, or close {name!r} first",
                )
            return existing
        pending = self._opening.get(name)
        if pending is not None:  # two first calls on one name: the second gets the first's
            return await asyncio.shield(pending)
        check_session_name(name)
        future: asyncio.Future[Session] = asyncio.get_running_loop().create_future()
        self._opening[name] = future
        try:
            await self._slot(name, self.wait_ms if wait_ms is None else wait_ms)
            session = await (opener or self._open)(name, profile, state)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: a lone opener must not log "never retrieved"
            raise
        finally:
            del self._opening[name]
            async with self._changed:
                self._changed.notify_all()
        self._sessions[name] = session
        future.set_result(session)
        return session

    async def _slot(self, name: str, wait_ms: float) -> None:
        """Wait until a context may be opened for `name` (it is counted in _opening)."""

        def full() -> bool:
            return len(self._sessions) + len(self._opening) > self.cap

        if not full():
            return
        deadline = time.monotonic() + wait_ms / 1000
        self._waiting += 1
        try:
            async with self._changed:
                while full():
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise self._exhausted(name)
                    try:
                        await asyncio.wait_for(self._changed.wait(), left)
                    except TimeoutError:
                        continue
        finally:
            self._waiting -= 1

    def _exhausted(self, name: str) -> SteadyhandError:
        live = ", ".join(self._sessions) or "none"
        return SteadyhandError(
            ErrorCode.POOL_EXHAUSTED,
            f"cannot open session {name!r}: {len(self._sessions)} of {self.cap} session "
            "slots are in use",
            f"close or suspend one (`close --session NAME`, `session suspend NAME`; live: "
            f"{live}), raise the max_sessions setting, or set pool_wait_ms to wait for a slot",
            {"live": list(self._sessions), "cap": self.cap},
        )

    def drop(self, name: str) -> Session | None:
        """Take a session out of the pool without closing it (its browser is gone)."""
        session = self._sessions.pop(name, None)
        if session is not None:
            asyncio.get_running_loop().create_task(self._notify())
        return session

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def release(self, name: str, timeout_s: float = 10.0) -> Session | None:
        """Close a live session's context and free its slot."""
        session = self._sessions.pop(name, None)
        if session is None:
            return None
        try:
            await asyncio.wait_for(session.close(), timeout_s)
        except Exception as exc:  # a wedged page: the slot is free all the same
            log.warning("closing session %s failed: %r", name, exc)
        await self._notify()
        return session

    async def shutdown(self, timeout_s: float = 5.0) -> None:
        """Close every session side by side (a wedged page costs its timeout once)."""
        names = list(self._sessions)
        await asyncio.gather(*(self.release(n, timeout_s) for n in names))
