"""The browsers sessions run in: the Playwright driver, the shared Chromium (launched on
first use, again after a crash), a Chromium per persistent profile, and the browser
endpoints steadyhand connects to instead (engine/endpoints.py, engine/remote.py), with the
choice of where a session opens (`places`)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import Any

from playwright.async_api import Browser, BrowserContext, Playwright

from steadyhand.config import Settings
from steadyhand.engine import driver
from steadyhand.engine.chromium import find_chromium, launch_args
from steadyhand.engine.endpoints import (
    AUTO,
    LOCAL,
    Endpoint,
    adhoc,
    least_loaded,
    parse_endpoints,
)
from steadyhand.engine.profiles import Profiles
from steadyhand.engine.remote import RemoteBrowsers
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError, first_line

log = logging.getLogger("steadyhand.engine")


class Browsers:
    """Every browser of one engine. `live()`: its live sessions (for the load per place);
    `on_endpoint_lost`: told when an endpoint's browser disconnects."""

    def __init__(
        self,
        settings: Settings,
        profiles: Profiles,
        live: Callable[[], list[Session]],
        on_endpoint_lost: Callable[[Endpoint, Browser], None],
    ) -> None:
        self.settings = settings
        self.profiles = profiles
        self.live = live
        self._playwright: Playwright | None = None
        self._starting: asyncio.Future[Playwright] | None = None
        self._browser: Browser | None = None
        self.closing = False
        self._lock = asyncio.Lock()  # one browser launch at a time
        self.chromium_path = ""
        self.chromium_version = ""
        # Browsers we connect to rather than launch (engine/endpoints.py).
        self.endpoints = parse_endpoints(settings.browser_endpoints)
        self._adhoc: dict[str, Endpoint] = {}  # `open --browser URL` / `--cdp`
        self.remote = RemoteBrowsers(on_endpoint_lost)
        self.check_browser(settings.default_browser, "setting default_browser")

    @property
    def browser_running(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    async def playwright(self) -> Playwright:
        """Playwright's driver, started once: callers that come while it starts (the warm
        start's launch, a first command reading the device list) wait for the same one."""
        if self._playwright is None:
            starting = self._starting
            if starting is None:
                starting = self._starting = asyncio.ensure_future(driver.started())
            try:
                started = await asyncio.shield(starting)
            except BaseException:
                if starting.done() and self._starting is starting:
                    self._starting = None  # failed: the next caller tries again
                raise
            if self.closing:  # closed while it started: close() stops it
                raise SteadyhandError(
                    ErrorCode.BROWSER_NOT_FOUND,
                    "the browser is shutting down",
                    "start the daemon again",
                )
            self._playwright = started
        return self._playwright

    def _check_display(self) -> None:
        if not self.settings.headless and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        ):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "a headed browser needs a display and this daemon has none",
                "set DISPLAY (for example run Xvfb :99 and export DISPLAY=:99) before "
                "`steadyhand daemon start --headed`, or run headless",
            )

    async def browser(self) -> Browser:
        """The shared browser of throwaway sessions, launched (again) when needed."""
        async with self._lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            path = find_chromium(self.settings.chromium, headless=self.settings.headless)
            self._check_display()
            playwright = await self.playwright()
            try:
                self._browser = await playwright.chromium.launch(
                    executable_path=str(path),
                    headless=self.settings.headless,
                    args=launch_args(self.settings.state_dir),
                )
            except Exception as exc:
                raise _launch_failed(path, exc) from exc
            self._browser.on("disconnected", self._on_disconnect)
            self.chromium_path = str(path)
            self.chromium_version = self._browser.version
            log.info("launched Chromium %s from %s", self.chromium_version, path)
            return self._browser

    def _on_disconnect(self, browser: Browser) -> None:
        if browser is self._browser:
            self._browser = None
            if not self.closing:
                log.warning("the browser disconnected (crash or kill)")

    def check_browser(self, where: str, what: str = "--browser") -> None:
        """bad_request unless `where` is local, auto, a configured endpoint or a URL."""
        if where in (LOCAL, AUTO) or where in self.endpoints or "://" in where:
            if "://" in where:
                adhoc(where)  # bad_request for a URL that is no endpoint
            return
        known = ", ".join([LOCAL, AUTO, *self.endpoints])
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{what}: no browser endpoint named {where!r}",
            f"known: {known} (setting browser_endpoints), or a URL (http://HOST:PORT for a "
            "DevTools endpoint, ws://HOST:PORT/ for a Playwright server)",
        )

    def endpoint(self, where: str) -> Endpoint | None:
        """The endpoint a session placed at `where` (a place's name, or a URL) runs on; None
        for the local Chromium."""
        if where == LOCAL:
            return None
        known = self.endpoints.get(where) or self._adhoc.get(where)
        if known is not None:
            return known
        made = adhoc(where)
        return self._adhoc.setdefault(made.name, made)

    def place_of(self, where: str) -> str:
        """The name a session placed at `where` is listed under."""
        endpoint = self.endpoint(where)
        return LOCAL if endpoint is None else endpoint.name

    def load(self) -> dict[str, int]:
        """Live sessions per place (local, endpoint name or URL)."""
        counts: dict[str, int] = {}
        for session in self.live():
            counts[session.browser_name] = counts.get(session.browser_name, 0) + 1
        return counts

    def endpoint_lines(self) -> list[str]:
        """One line per endpoint (configured, or used by URL): where, and how it is now."""
        load = self.load()
        lines = []
        for name, endpoint in (self.endpoints | self._adhoc).items():
            linked = "connected" if self.remote.connected(name) else "not connected"
            where = "" if name == endpoint.where else f" {endpoint.where}"
            lines.append(f"{name} ({endpoint.kind}){where}: {linked}, {load.get(name, 0)} live")
        return lines

    def places(self, state: dict[str, Any] | None, profile: str | None) -> list[str]:
        """Where to open a session, in the order to try.

        A new session goes where it was asked (`browser`), else by default_browser ("auto":
        the least loaded of local and every endpoint). A session coming back from a
        checkpoint tries where it ran last, and fails over to the others: the other
        endpoints, least loaded first, then the local Chromium; when it comes back because
        its endpoint died, or when this daemon does not know it (another daemon's endpoint,
        a URL of another life), that one is tried last. A profile lives on this disk: local.
        """
        state = state or {}
        if profile is not None:  # `--browser ENDPOINT --profile` is refused by _open_at
            asked = state.get("browser")
            return [asked] if asked not in (None, AUTO, LOCAL) and "tabs" not in state else [LOCAL]
        load = self.load()
        if "tabs" not in state:  # a new session
            asked = state.get("browser") or self.settings.default_browser
            return least_loaded([LOCAL, *self.endpoints], load) if asked == AUTO else [asked]
        asked = state.get("browser") or LOCAL  # a checkpoint names only an endpoint
        others = [p for p in least_loaded([*self.endpoints], load) if p != asked]
        others += [LOCAL] if asked != LOCAL else []
        unknown = asked != LOCAL and asked not in self.endpoints and asked not in self._adhoc
        if unknown and "://" not in asked:
            return others  # a name this daemon's settings do not give
        last = state.get("lost_endpoint") == asked or unknown
        return [*others, asked] if last else [asked, *others]

    async def launch_profile(
        self,
        profile: str,
        viewport: dict[str, int],
        proxy: dict[str, str] | None = None,
        emulated: dict[str, Any] | None = None,
    ) -> BrowserContext:
        """A browser on the profile's user-data dir (`proxy`: a session's; profile export
        and import load no page from the network, their seed pages are fulfilled;
        `emulated`: a session's emulation as context options)."""
        path = find_chromium(self.settings.chromium, headless=self.settings.headless)
        self._check_display()
        playwright = await self.playwright()
        try:
            return await playwright.chromium.launch_persistent_context(
                self.profiles.user_data_dir(profile),
                executable_path=str(path),
                headless=self.settings.headless,
                args=launch_args(self.settings.state_dir),
                viewport=viewport,  # type: ignore[arg-type]
                proxy=proxy,  # type: ignore[arg-type]
                **(emulated or {}),
            )
        except Exception as exc:
            raise _launch_failed(path, exc) from exc

    @property
    def shared(self) -> Browser | None:
        """The shared browser, while it runs."""
        return self._browser

    def drop_shared(self) -> Browser | None:
        """Forget the shared browser (it died: the next session launches another); the
        dead one, for closing."""
        dead, self._browser = self._browser, None
        return dead

    async def close(self) -> None:
        """The shared browser, the endpoints' links and the driver, closed."""
        self.closing = True
        if self._browser is not None:
            try:
                await asyncio.wait_for(self._browser.close(), 10)
            except Exception:
                log.exception("closing the browser failed")
            self._browser = None
        await self.remote.close()
        starting, self._starting = self._starting, None
        if self._playwright is None and starting is not None:
            if not starting.done():
                starting.cancel()
            elif not starting.cancelled() and starting.exception() is None:
                self._playwright = starting.result()  # started as the browser closed: stop it
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None

    def viewport(self) -> dict[str, int]:
        return {"width": self.settings.viewport_width, "height": self.settings.viewport_height}


async def close_quietly(browser: Browser) -> None:
    try:
        await asyncio.wait_for(browser.close(), 5)
    except Exception as exc:
        log.info("closing a dead browser: %r", exc)


def _launch_failed(path: object, exc: BaseException) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.BROWSER_CRASHED,
        f"Chromium at {path} failed to start: {first_line(exc)}",
        f"run `{path} --headless --version` to check the binary; see daemon.log",
    )
