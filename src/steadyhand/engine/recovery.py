"""Sessions that outlive their browser: checkpoints (after a navigation, every N acts, on
suspend and at shutdown), restore from the last one (on request or on first use), and
recovery when a session's browser dies or its page hangs (recreated from its checkpoint in
the background, or recorded as lost). A recovered session's next command reports it: the
checkpoint it came from, what was restored and what was lost."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from steadyhand.config import Settings, check_session_name
from steadyhand.engine.browsers import Browsers, close_quietly
from steadyhand.engine.checkpoint import capture, restore_tabs
from steadyhand.engine.endpoints import LOCAL
from steadyhand.engine.pool import Pool
from steadyhand.engine.records import SessionRecords
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store.base import Checkpoint, Store

log = logging.getLogger("steadyhand.engine")

CHECKPOINT_TIMEOUT_S = 5.0
RESTORE_TAB_TIMEOUT_MS = 15_000.0
PROBE_S = 0.5  # how long a live context has to answer `_answers`


class Recovery:
    """Checkpoints, restores and recoveries of one engine's sessions. `release` closes a
    live session here (the engine's: its context, its profile's lock, an idle endpoint)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        *,
        pool: Pool,
        records: SessionRecords,
        browsers: Browsers,
        release: Callable[[Session], Awaitable[None]],
    ) -> None:
        self.settings = settings
        self.store = store
        self.pool = pool
        self.records = records
        self.browsers = browsers
        self.release = release
        self.recoveries = 0

    async def checkpoint(self, session: Session, reason: str) -> Checkpoint | None:
        """Store the session's state now; None (logged) when the page does not answer, and
        for an attached session (the application keeps its own state)."""
        if session.attached is not None:
            return None
        viewport = self.browsers.viewport()
        current = session.current_tab_id
        if current is not None:
            size = session.tabs[current].page.viewport_size
            if size:
                viewport = {"width": size["width"], "height": size["height"]}
        # Cleared before the capture: a route changed while it runs is saved next time.
        session.net.unsaved = False
        try:
            state = await asyncio.wait_for(capture(session, viewport), CHECKPOINT_TIMEOUT_S)
        except Exception as exc:
            session.net.unsaved = True
            log.warning("checkpoint of %s (%s) failed: %r", session.name, reason, exc)
            return None
        try:
            saved = await asyncio.to_thread(self.store.save_checkpoint, session.name, reason, state)
        except SteadyhandError as exc:  # no key to seal it with (state_locked): said, not fatal
            session.net.unsaved = True
            log.error("checkpoint of %s (%s) not stored: %s", session.name, reason, exc.message)
            return None
        except BaseException:
            session.net.unsaved = True
            raise
        session.checkpointed_urls = session.urls()
        session.actions_since_checkpoint = 0
        return saved

    async def after_command(self, session: Session, acted: bool) -> None:
        """Checkpoint when the session navigated (or opened/closed a tab) or every N acts."""
        if self.pool.get(session.name) is not session:
            return
        session.actions_since_checkpoint += int(acted)
        every = self.settings.checkpoint_every
        if session.urls() != session.checkpointed_urls:
            await self.checkpoint(session, "navigation")
        elif session.net.unsaved:  # a recovery must not lose routes or offline mode
            await self.checkpoint(session, "network control")
        elif every > 0 and session.actions_since_checkpoint >= every:
            await self.checkpoint(session, f"{every} actions")

    async def restore_on_use(self, name: str) -> dict[str, Any] | None:
        """Restore `name` if it is suspended, for a command that names it; the report for
        the command that started the restore, None for one that found it live or waited."""
        status = self.records.status(name)
        if status == "restoring":  # another command on it got there first: wait for it
            running = self.records.in_flight(name)
            if running is not None:
                await asyncio.shield(running)
            return None
        if status != "suspended" or self.pool.get(name) is not None:
            return None
        return await self.restore(name)

    async def restore(self, name: str) -> dict[str, Any]:
        """Recreate a suspended (or lost) session from its last checkpoint."""
        check_session_name(name)
        while (running := self.records.in_flight(name)) is not None:
            await asyncio.wait([running])  # a restore or recovery is bringing it back
        if self.pool.get(name) is not None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} is active; there is nothing to restore",
                "suspend it first (`session suspend NAME`) to restore its checkpoint",
            )
        # From here to the move, no await: a command racing this one finds it restoring.
        before = self.records.get(name)
        opening = asyncio.get_running_loop().create_task(self._restore_last(name))
        self.records.move(name, "restoring", task=opening)  # commands on it wait for it
        try:
            return await asyncio.shield(opening)
        except BaseException:
            if self.records.status(name) == "restoring":  # back to what it was
                self.records.put_back(before, name)
            raise

    async def _restore_last(self, name: str) -> dict[str, Any]:
        checkpoint = await asyncio.to_thread(self.store.latest_checkpoint, name)
        if checkpoint is None:
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                f"session {name!r} has no checkpoint to restore",
                "`sessions` lists what can be restored; `open URL --session NAME` starts anew",
            )
        return await self._reopen(name, checkpoint, "restore")

    async def _reopen(
        self, name: str, checkpoint: Checkpoint, why: str, previous: Session | None = None
    ) -> dict[str, Any]:
        """Open the session from `checkpoint`; what was restored and lost."""
        profile = self._profile_of(name)
        state = checkpoint.state
        if previous is not None:  # where it ran last (a failover since may postdate `state`)
            state = state | {"browser": previous.browser_name}
            remote = self.browsers.remote
            if previous.browser_name != LOCAL and not remote.connected(previous.browser_name):
                state["lost_endpoint"] = previous.browser_name
        was = state.get("browser") or LOCAL
        session = await self.pool.acquire(name, profile, state, wait_ms=self.pool.wait_ms)
        net = state.get("network") or {}
        try:
            unrouted = await session.net.load_routes(net)  # first: the tabs meet the mocks
            restored, lost = await restore_tabs(
                session, state, RESTORE_TAB_TIMEOUT_MS, with_local=profile is None
            )
            lost += unrouted
            if net.get("offline"):  # after: offline, no tab would load again
                await session.net.set_offline(True)
                session.net.unsaved = False
        except Exception:
            await self.release(session)
            raise
        if previous is not None:
            # Refs handed out before name nothing in the reloaded pages: keep them known,
            # so they are refused as stale rather than as never issued.
            states = previous.tab_states()
            for tab_id, tab in session.tabs.items():
                if tab_id in states:
                    tab.state = states[tab_id].reloaded()
        session.checkpointed_urls = session.urls()
        self.records.move(name, "active")
        await asyncio.to_thread(self.store.set_session_status, name, "active", profile)
        moved = {"browser": session.browser_name, "was_browser": was}
        return {
            "from": checkpoint.ts,
            "reason": why,
            "restored": restored,
            "lost": lost,
            "last_action": checkpoint.last_action,
        } | (moved if session.browser_name != was else {})

    def _profile_of(self, name: str) -> str | None:
        for row in self.store.session_rows():
            if row.name == name:
                return row.profile or None
        return None

    def on_context_close(self, session: Session) -> None:
        """A live session's context closed without steadyhand closing it: its browser died
        (or the application attached quit): recover it, or record it lost."""
        if session.closing or self.browsers.closing or self.pool.get(session.name) is not session:
            return
        self.pool.drop(session.name)
        if session.attached is not None:  # the application quit: not ours to restart
            why = (
                f"the application attached at {session.attached} quit or closed its debugging port"
            )
            self.records.move(session.name, "lost", why=why)
            log.warning("session %s lost: %s", session.name, why)
            asyncio.get_running_loop().create_task(
                asyncio.to_thread(self.store.set_session_status, session.name, "lost")
            )
            return
        why = "the browser exited unexpectedly"
        if session.profile is not None:
            self.browsers.profiles.unlock(session.profile)
        elif session.browser_name != LOCAL:
            browser = session.context.browser
            if browser is not None and not browser.is_connected():  # the endpoint is gone
                self.browsers.remote.forget(session.browser_name, browser)
                asyncio.get_running_loop().create_task(close_quietly(browser))
            # (Still connected: only this context closed, or the news is on its way; the
            # recovery finds out when it opens the session again.)
            why = f"the browser at endpoint {session.browser_name} went away"
        elif self.browsers.shared is not None and session.context.browser is self.browsers.shared:
            # Only the browser's death closes a context we did not close. Its "disconnected"
            # event may come later: do not hand the dead browser to the recovery.
            dead = self.browsers.drop_shared()
            if dead is not None:
                asyncio.get_running_loop().create_task(close_quietly(dead))
        self.start_recovery(session.name, why, session)

    async def lost_under(self, session: Session, wait_s: float = 2.0) -> bool:
        """Whether `session` died unexpectedly (and is recovered or recovering).

        A call that saw its page close may hear before the engine does: wait for the news.
        A session without tabs whose browser still answers was not lost: it had none (a
        session `offline` or `route` started, every tab closed), and says so at once.
        """
        if not session.tabs and await self._answers(session):
            return False
        deadline = time.monotonic() + wait_s
        while self.pool.get(session.name) is session:
            if session.closing or time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        return not session.closing and (
            self.records.in_flight(session.name) is not None
            or self.pool.get(session.name) is not None
        )

    async def _answers(self, session: Session) -> bool:
        """Whether the session's browser context answers a call (its cookies) at once."""
        try:
            await asyncio.wait_for(session.context.cookies(), PROBE_S)
        except Exception:  # closed, disconnected, or too slow to tell: maybe lost
            return False
        return True

    def start_recovery(
        self, name: str, why: str, previous: Session | None = None, close_first: bool = False
    ) -> asyncio.Task[Any]:
        """Recreate the session from its checkpoint in the background (once at a time)."""
        running = self.records.in_flight(name)
        if running is not None:
            return running
        log.warning("recovering session %s: %s", name, why)
        task = asyncio.get_running_loop().create_task(
            self._recover(name, why, previous, close_first)
        )
        self.records.move(name, "recovering", task=task)
        return task

    async def recover(self, name: str, why: str) -> None:
        """Close a live but unhealthy session and recreate it from its checkpoint."""
        session = self.pool.get(name)
        await self.start_recovery(name, why, session, close_first=session is not None)

    async def _recover(
        self, name: str, why: str, previous: Session | None, close_first: bool
    ) -> None:
        started = time.monotonic()
        if close_first and previous is not None:
            await self.release(previous)
        try:
            if previous is not None and previous.attached is not None:
                raise RuntimeError("steadyhand does not restart an application it attached to")
            checkpoint = await asyncio.to_thread(self.store.latest_checkpoint, name)
            if checkpoint is None:
                raise RuntimeError("it had no checkpoint")
            report = await self._reopen(name, checkpoint, why, previous)
        except Exception as exc:
            lost = f"{why}; it could not be restored: {exc}"
            self.records.move(name, "lost", why=lost)
            log.error("session %s lost: %s", name, lost)
            await asyncio.to_thread(self.store.set_session_status, name, "lost")
            return
        self.recoveries += 1
        report["recovery_ms"] = round((time.monotonic() - started) * 1000, 1)
        session = self.pool.get(name)
        if session is not None:
            session.recovered = report
        log.warning("session %s recovered in %.0f ms", name, report["recovery_ms"])
