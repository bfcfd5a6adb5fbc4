"""The Engine owns the Playwright driver, one Chromium and the named sessions."""

from __future__ import annotations

import asyncio
import logging
import os
import re

from playwright.async_api import Browser, Playwright, async_playwright

from steadyhand.config import Settings
from steadyhand.engine.chromium import find_chromium, launch_args
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError

log = logging.getLogger("steadyhand.engine")

SESSION_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class Engine:
    """Browser and sessions for one process. Launches Chromium on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._sessions: dict[str, Session] = {}
        self._lost: set[str] = set()  # sessions that died with a crashed browser
        self._unreported: list[str] = []  # lost, and not yet handed to drain_lost()
        self._closing = False
        self._lock = asyncio.Lock()  # one browser launch at a time
        self._create_lock = asyncio.Lock()  # one session creation at a time
        self.chromium_path = ""
        self.chromium_version = ""

    @property
    def browser_running(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    async def browser(self) -> Browser:
        async with self._lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            path = find_chromium(self.settings.chromium)
            if not self.settings.headless and not (
                os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
            ):
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    "a headed browser needs a display and this daemon has none",
                    "set DISPLAY (for example run Xvfb :99 and export DISPLAY=:99) before "
                    "`steadyhand daemon start --headed`, or run headless",
                )
            if self._playwright is None:
                self._playwright = await async_playwright().start()
            try:
                self._browser = await self._playwright.chromium.launch(
                    executable_path=str(path),
                    headless=self.settings.headless,
                    args=launch_args(self.settings.state_dir),
                )
            except Exception as exc:
                raise SteadyhandError(
                    ErrorCode.BROWSER_CRASHED,
                    f"Chromium at {path} failed to start: {str(exc).splitlines()[0]}",
                    "run `chromium --headless --version` to check the binary; see daemon.log",
                ) from exc
            self._browser.on("disconnected", self._on_disconnect)
            self.chromium_path = str(path)
            self.chromium_version = self._browser.version
            log.info("launched Chromium %s from %s", self.chromium_version, path)
            return self._browser

    def _on_disconnect(self, browser: Browser) -> None:
        if self._closing or browser is not self._browser:
            return
        # The browser died under us (crash, OOM kill): its sessions went with it.
        log.warning("browser disconnected; lost session(s): %s", ", ".join(self._sessions))
        self._lost.update(self._sessions)
        self._unreported.extend(self._sessions)
        self._sessions.clear()
        self._browser = None

    async def session(self, name: str, create: bool = False) -> Session:
        """The named session; created on demand when `create`, else `unknown_session`."""
        existing = self._sessions.get(name)
        if existing is not None:
            return existing
        if name in self._lost and not create:
            raise SteadyhandError(
                ErrorCode.BROWSER_CRASHED,
                f"the browser exited unexpectedly and session {name!r} was lost with it",
                f"open the page again (`open URL --session {name}`): a new browser starts",
            )
        if not create:
            known = ", ".join(self._sessions) or "none"
            raise SteadyhandError(
                ErrorCode.UNKNOWN_SESSION,
                f"no session named {name!r}",
                f"live sessions: {known}; `open URL --session {name}` starts it",
            )
        if not SESSION_NAME.match(name):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"invalid session name {name!r}",
                "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
            )
        async with self._create_lock:
            # Two first calls on one session name race here; the second finds the first's.
            existing = self._sessions.get(name)
            if existing is not None:
                return existing
            browser = await self.browser()
            context = await browser.new_context(
                viewport={
                    "width": self.settings.viewport_width,
                    "height": self.settings.viewport_height,
                }
            )
            session = Session(
                name,
                context,
                downloads_dir=self.settings.downloads_root / name,
                dialog_policy=self.settings.dialogs,
            )
            self._sessions[name] = session
            self._lost.discard(name)
            return session

    def sessions(self) -> list[Session]:
        return list(self._sessions.values())

    def drain_lost(self) -> list[str]:
        """Sessions lost to a browser crash since the last call (for the store)."""
        lost, self._unreported = self._unreported, []
        return lost

    async def close_session(self, name: str) -> None:
        session = await self.session(name)
        del self._sessions[name]
        await session.close()

    async def shutdown(self) -> None:
        """Close every session, the browser and the driver; safe to call twice."""
        self._closing = True
        sessions = list(self._sessions.values())
        self._sessions.clear()
        # Side by side: a wedged page costs its 5 s once, not once per session.
        results = await asyncio.gather(
            *(asyncio.wait_for(s.close(), 5) for s in sessions), return_exceptions=True
        )
        for session, result in zip(sessions, results, strict=True):
            if isinstance(result, BaseException):
                log.warning("closing session %s failed: %r", session.name, result)
        if self._browser is not None:
            try:
                await asyncio.wait_for(self._browser.close(), 10)
            except Exception:
                log.exception("closing the browser failed")
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None
