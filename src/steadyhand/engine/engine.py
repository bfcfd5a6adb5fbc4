"""The engine: browsers and sessions for one process, behind one object.

Its parts, one concern each: browsers.py (the driver, the shared Chromium, profiles'
browsers, endpoints, where a session opens), opening.py (a session's context with its
proxy, emulation and page model), recovery.py (checkpoints, restore, crash recovery),
records.py (each session's status: the one state machine of its lifecycle, drawn there),
pool.py (live sessions and the cap) and health.py (probes). What the rest of steadyhand
asks of them goes through `Engine`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Browser, BrowserContext, Playwright

from steadyhand.config import Settings, check_session_name
from steadyhand.engine.browsers import Browsers
from steadyhand.engine.checkpoint import seed_profile
from steadyhand.engine.emulation import AT_START, FLAGS, check, conflicts, describe, flag
from steadyhand.engine.endpoints import AUTO, LOCAL, Endpoint
from steadyhand.engine.health import HealthMonitor
from steadyhand.engine.opening import SessionOpener
from steadyhand.engine.pool import Pool
from steadyhand.engine.profiles import Profiles
from steadyhand.engine.records import SessionRecords, Status
from steadyhand.engine.recovery import CHECKPOINT_TIMEOUT_S, Recovery
from steadyhand.engine.remote import RemoteBrowsers
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store.base import Checkpoint, Store

log = logging.getLogger("steadyhand.engine")


class Engine:
    """Browsers and sessions for one process. Launches Chromium on first use."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        prepare_context: Callable[[BrowserContext], Awaitable[None]],
    ) -> None:
        self.settings = settings
        self.store = store
        self.profiles = Profiles(settings.profiles_dir)
        self.records = SessionRecords()
        self.browsers = Browsers(settings, self.profiles, self.sessions, self._on_endpoint_lost)
        self.health = HealthMonitor(self)
        # prepare_context: the page model's install (snapshot/page_model.py, given by
        # startup.open_engine), so that its script runs in every document before the
        # page's own. The engine does not import it: the snapshot layer sits above.
        self.opener = SessionOpener(
            settings, self.browsers, prepare_context, self._on_context_close, self.health.watch
        )
        self.pool = Pool(self.opener.open, settings.max_sessions, settings.pool_wait_ms)
        self.recovery = Recovery(
            settings,
            store,
            pool=self.pool,
            records=self.records,
            browsers=self.browsers,
            release=self._release,
        )

    # ----------------------------------------------------------------- browsers

    @property
    def browser_running(self) -> bool:
        return self.browsers.browser_running

    @property
    def chromium_path(self) -> str:
        return self.browsers.chromium_path

    @property
    def chromium_version(self) -> str:
        return self.browsers.chromium_version

    @property
    def endpoints(self) -> dict[str, Endpoint]:
        return self.browsers.endpoints

    @property
    def remote(self) -> RemoteBrowsers:
        return self.browsers.remote

    @property
    def recoveries(self) -> int:
        return self.recovery.recoveries

    @property
    def connection_gate(self) -> Callable[[str, str], Awaitable[str | None]] | None:
        """Asked (session, host) before a session's browser connects to an allowed host."""
        return self.opener.connection_gate

    @connection_gate.setter
    def connection_gate(self, gate: Callable[[str, str], Awaitable[str | None]] | None) -> None:
        self.opener.connection_gate = gate

    async def playwright(self) -> Playwright:
        return await self.browsers.playwright()

    async def browser(self) -> Browser:
        """The shared browser of throwaway sessions, launched (again) when needed."""
        return await self.browsers.browser()

    def check_browser(self, where: str, what: str = "--browser") -> None:
        self.browsers.check_browser(where, what)

    def place_of(self, where: str) -> str:
        return self.browsers.place_of(where)

    def load(self) -> dict[str, int]:
        return self.browsers.load()

    def endpoint_lines(self) -> list[str]:
        return self.browsers.endpoint_lines()

    def _on_endpoint_lost(self, endpoint: Endpoint, browser: Browser) -> None:
        if self.browsers.closing:
            return
        log.warning("browser endpoint %s disconnected", endpoint.name)
        for session in self.pool.sessions():
            if session.context.browser is browser:
                self.recovery.on_context_close(session)

    # ----------------------------------------------------------------- sessions

    async def attach(
        self, name: str, endpoint: str, deadline: float, headers: dict[str, str] | None = None
    ) -> Session:
        """A session on a running Chromium or Electron application's own browser, through
        its debugging port: its pages are the session's tabs. No checkpoints (the app keeps
        its state, and its cookies are not ours to store), no recovery, and closing the
        session leaves the application running. `headers`: sent when connecting (the
        extension relay's secret), kept out of the endpoint shown and stored."""
        check_session_name(name)
        status = self.records.status(name)
        if status == "suspended" and not self.store.has_checkpoint(name):
            # An attached session a killed daemon left (it keeps no checkpoints): nothing
            # to restore, so the name is free again.
            self.records.forget(name)
            status = None
        if (
            self.pool.get(name) is not None
            or self.pool.opening(name)
            or status in ("suspended", "restoring", "recovering")
        ):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} already exists",
                "attach under another name (--session NAME), or close that session first",
            )
        opener = self.opener.attached(endpoint, deadline, headers)
        session = await self.pool.acquire(name, opener=opener)
        self.records.move(name, "active")
        await asyncio.to_thread(self.store.set_session_status, name, "active", "")
        return session

    async def session(
        self,
        name: str,
        create: bool = False,
        profile: str | None = None,
        rules: dict[str, Any] | None = None,
        browser: str | None = None,
        *,
        emulation: dict[str, Any] | None = None,
    ) -> Session:
        """The named session; opened on demand when `create`, else `unknown_session`.

        `rules`: the navigation policy's tightening for a session this call starts
        (NavPolicy.tightened's arguments); a live session keeps the rules it started with.
        `browser`: where a session this call starts runs (`Browsers.places`); a live one stays.
        `emulation`: what a session this call starts emulates (engine/emulation.py); a live
        one must emulate the same already.
        """
        if browser is not None:
            self.check_browser(browser)
        if emulation:
            check(emulation, (await self.playwright()).devices)
        running = self.records.in_flight(name)
        if running is not None:
            await asyncio.shield(running)
        live = self.pool.get(name)
        if live is not None and rules and rules != live.own_rules:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} is running with navigation rules {live.own_rules or 'none'} "
                "of its own; they are set when a session starts",
                f"close it first (`close --session {name}`), or use another session name",
            )
        if (
            live is not None
            and browser not in (None, AUTO)
            and (self.place_of(browser) != live.browser_name)
        ):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} is running on browser {live.browser_name}; a session's "
                "browser is chosen when it starts",
                f"close it first (`close --session {name}`), or use another session name",
            )
        if live is not None and emulation:
            self._check_emulation(live, emulation)
        if live is not None and (profile is None or live.profile == profile):
            return live
        record = self.records.get(name)
        status = None if record is None else record.status
        if live is None and record is not None and status == "lost" and not create:
            raise SteadyhandError(
                ErrorCode.BROWSER_CRASHED,
                f"session {name!r} was lost: {record.why}",
                f"open the page again (`open URL --session {name}`): a new session starts",
            )
        if live is None and status == "suspended":
            raise self._suspended_error(name)
        if live is None and not create:
            known = ", ".join(s.name for s in self.pool.sessions()) or "none"
            check_session_name(name)
            mine = " (an MCP connection's own: closed when its connection ended)"
            raise SteadyhandError(
                ErrorCode.UNKNOWN_SESSION,
                f"no session named {name!r}" + (mine if name.startswith("mcp-") else ""),
                f"live sessions: {known}; `open` a URL in session {name!r} to start it",
            )
        state = ({"nav": rules} if rules else {}) | ({"browser": browser} if browser else {})
        state |= {"emulation": emulation} if emulation else {}
        session = await self.pool.acquire(name, profile, state=state or None)
        self.records.move(name, "active")
        if live is None:  # "" (not NULL): a session on no profile, so restore uses none
            await asyncio.to_thread(self.store.set_session_status, name, "active", profile or "")
        return session

    def _check_emulation(self, live: Session, given: dict[str, Any]) -> None:
        """`bad_request` unless the live session emulates what `given` asks already."""
        differ = conflicts(given, live.emulation)
        if not differ:
            return
        flags = ", ".join(FLAGS[k] for k in differ)
        fixed = [k for k in differ if k in AT_START]
        hint = (
            f"a session's {', '.join(FLAGS[k] for k in fixed)} is set when it starts: close "
            f"it first (`close --session {live.name}`), or open another session name with it"
            if fixed
            else f"`emulate {' '.join(flag(k, given[k]) for k in differ)} --session "
            f"{live.name}` changes it on the live session"
        )
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"session {live.name!r} runs with another {flags} (it emulates: "
            f"{describe(live.emulation) or 'nothing'})",
            hint,
        )

    def _suspended_error(self, name: str) -> SteadyhandError:
        try:
            checkpoint = self.store.latest_checkpoint(name)
        except SteadyhandError as exc:  # sealed with a key this daemon lacks: say so
            checkpoint, saved = None, f" ({exc.message})"
        else:
            saved = ""
        if checkpoint is not None:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(checkpoint.ts))
            urls = ", ".join(t["url"] for t in checkpoint.state.get("tabs", [])) or "no tabs"
            saved = f" (checkpoint of {when}: {urls})"
        return SteadyhandError(
            ErrorCode.SESSION_SUSPENDED,
            f"session {name!r} is suspended{saved}",
            f"restore it with `session restore {name}`, or discard it with "
            f"`close --session {name}`",
            {"session": name},
        )

    def sessions(self) -> list[Session]:
        return self.pool.sessions()

    def context_count(self) -> int:
        """Browser contexts open: the shared browser's, plus one per profile session."""
        shared = self.browsers.shared
        count = len(shared.contexts) if self.browser_running and shared is not None else 0
        return count + sum(1 for s in self.pool.sessions() if s.profile is not None)

    def status_of(self, name: str) -> Status | None:
        """The session's status here (records.py); None: no record of it in this engine."""
        return self.records.status(name)

    def suspended(self) -> set[str]:
        return self.records.named("suspended")

    def lost(self) -> dict[str, str]:
        names = self.records.named("lost")
        return {name: record.why for name in names if (record := self.records.get(name))}

    def recovering(self) -> set[str]:
        """Sessions being brought back: restored or recovered."""
        return self.records.named("restoring", "recovering")

    def load_suspended(self, names: set[str]) -> None:
        """Sessions a previous daemon left: listed, and restorable with `restore`."""
        for name in names:
            self.records.move(name, "suspended")

    async def suspend(self, name: str) -> Checkpoint:
        """Checkpoint a live session, close it and free its slot; `restore` brings it back."""
        session = await self.session(name)
        if session.attached is not None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} is attached to a running application, which keeps its own "
                "state: there is nothing to suspend",
                f"`close --session {name}` detaches (the application keeps running)",
            )
        saved = await self.checkpoint(session, "suspend")
        if saved is None:  # closing now would lose the state: keep the session as it is
            raise SteadyhandError(
                ErrorCode.TIMEOUT,
                f"session {name!r} could not be checkpointed (a page did not answer); "
                "it stays active",
                "see `sessions` for its health; `close --session NAME` discards it",
            )
        await self._release(session)
        self.records.move(name, "suspended")
        await asyncio.to_thread(self.store.set_session_status, name, "suspended")
        return saved

    async def close_session(self, name: str) -> bool:
        """Close a session for good: tabs, cookies, storage and its checkpoints are gone.
        False when it was closed already (a second `close` is done, not an error)."""
        live = self.pool.get(name)
        if live is None and self.records.status(name) not in ("suspended", "lost"):
            if (await asyncio.to_thread(self.store.sessions)).get(name) == "closed":
                return False
            live = await self.session(name)  # unknown_session; waits for a restore
        if live is not None:
            await self._release(live)
        self.records.move(name, "closed")
        await asyncio.to_thread(self.store.forget_checkpoints, name)
        await asyncio.to_thread(self.store.set_session_status, name, "closed")
        return True

    async def release(self, name: str) -> None:
        """Close a live session here without touching its records in the store (another
        daemon took it over): its context, its profile's lock; no record of it here."""
        session = self.pool.get(name)
        if session is not None:
            await self._release(session)
            self.records.forget(name)

    async def _release(self, session: Session) -> None:
        await self.pool.release(session.name)
        if session.profile is not None:
            self.profiles.unlock(session.profile)
        place = session.browser_name
        if place != LOCAL and not self.load().get(place):
            # Its last session left: a Playwright server's browser (billed, often) or a
            # user's Chrome is not held open for nothing.
            # (An ad-hoc URL stays known: a restore goes back to it first.)
            await self.browsers.remote.disconnect(place)

    # ----------------------------------------------------------------- recovery

    async def checkpoint(self, session: Session, reason: str) -> Checkpoint | None:
        return await self.recovery.checkpoint(session, reason)

    async def after_command(self, session: Session, acted: bool) -> None:
        await self.recovery.after_command(session, acted)

    async def restore_on_use(self, name: str) -> dict[str, Any] | None:
        return await self.recovery.restore_on_use(name)

    async def restore(self, name: str) -> dict[str, Any]:
        return await self.recovery.restore(name)

    def _on_context_close(self, session: Session) -> None:
        self.recovery.on_context_close(session)

    async def lost_under(self, session: Session, wait_s: float = 2.0) -> bool:
        return await self.recovery.lost_under(session, wait_s)

    def start_recovery(
        self, name: str, why: str, previous: Session | None = None, close_first: bool = False
    ) -> asyncio.Task[Any]:
        return self.recovery.start_recovery(name, why, previous, close_first)

    async def recover(self, name: str, why: str) -> None:
        await self.recovery.recover(name, why)

    # ----------------------------------------------------------------- profiles

    async def export_profile(self, name: str) -> dict[str, Any]:
        """The profile's cookies and localStorage as a Playwright storage state."""
        live = next((s for s in self.pool.sessions() if s.profile == name), None)
        if live is not None:
            return dict(await live.context.storage_state())
        with self.profiles.locked(name, "profile export"):
            context = await self.browsers.launch_profile(name, self.browsers.viewport())
            try:
                return dict(await context.storage_state())
            finally:
                await context.close()

    async def import_profile(self, name: str, state: dict[str, Any]) -> None:
        """Add a storage state's cookies and localStorage to a profile (created if new)."""
        if not self.profiles.exists(name):
            self.profiles.create(name)
        with self.profiles.locked(name, "profile import"):
            context = await self.browsers.launch_profile(name, self.browsers.viewport())
            try:
                await seed_profile(context, state, CHECKPOINT_TIMEOUT_S)
            finally:
                await context.close()

    # ----------------------------------------------------------------- shutdown

    async def shutdown(self) -> None:
        """Checkpoint and close every session (suspended, restorable), the browser, the driver.

        Safe to call twice.
        """
        self.browsers.closing = True
        await self.health.stop()
        for name in self.recovering():
            task = self.records.in_flight(name)
            if task is not None:
                task.cancel()
        sessions = self.pool.sessions()
        await asyncio.gather(*(self.checkpoint(s, "shutdown") for s in sessions))
        await self.pool.shutdown()
        for session in sessions:
            if session.profile is not None:
                self.profiles.unlock(session.profile)
            status = "closed" if session.attached is not None else "suspended"
            await asyncio.to_thread(self.store.set_session_status, session.name, status)
        await self.browsers.close()
