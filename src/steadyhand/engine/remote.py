"""Connections to the browsers of `browser_endpoints` (engine/endpoints.py): one per endpoint,
made on first use, dropped when the browser goes away (and made again on next use)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from playwright.async_api import Browser, Playwright

from steadyhand.engine.endpoints import CDP, Endpoint
from steadyhand.errors import ErrorCode, SteadyhandError, first_line
from steadyhand.redact import redact_url

log = logging.getLogger("steadyhand.engine")

CONNECT_TIMEOUT_MS = 15_000.0


class RemoteBrowsers:
    """The connected remote browsers, by endpoint name."""

    def __init__(self, on_lost: Callable[[Endpoint, Browser], None]) -> None:
        self._browsers: dict[str, Browser] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._dropped: set[int] = set()  # ids of browsers we disconnected on purpose
        self._on_lost = on_lost  # the endpoint's browser disconnected (died, or the link)
        # Expands {{secret:NAME}} in a header value for the endpoint's URL (the daemon's
        # vault); None: header values are sent as written.
        self.expand: Callable[[str, str], str] | None = None

    def connected(self, name: str) -> Browser | None:
        browser = self._browsers.get(name)
        return browser if browser is not None and browser.is_connected() else None

    async def browser(
        self, endpoint: Endpoint, playwright: Playwright, timeout_ms: float = CONNECT_TIMEOUT_MS
    ) -> Browser:
        """The endpoint's browser, connected now if it is not; browser_not_found if it
        cannot be reached."""
        lock = self._locks.setdefault(endpoint.name, asyncio.Lock())
        async with lock:
            live = self.connected(endpoint.name)
            if live is not None:
                return live
            headers = {
                key: self.expand(value, endpoint.url) if self.expand else value
                for key, value in endpoint.headers.items()
            }
            try:
                if endpoint.kind == CDP:
                    browser = await playwright.chromium.connect_over_cdp(
                        endpoint.url, timeout=timeout_ms, headers=headers or None
                    )
                else:
                    browser = await playwright.chromium.connect(
                        endpoint.url, timeout=timeout_ms, headers=headers or None
                    )
            except SteadyhandError:
                raise  # a secret the headers name is unknown or not for this host
            except Exception as exc:
                raise SteadyhandError(
                    ErrorCode.BROWSER_NOT_FOUND,
                    f"browser endpoint {redact_url(endpoint.name)!r} ({endpoint.kind} at "
                    f"{endpoint.where}) cannot be reached: {redact_url(first_line(exc))}",
                    "is the browser (or `playwright run-server`) running there? "
                    "`open --browser local` uses a Chromium on this machine",
                    {"endpoint": endpoint.shown()},
                ) from exc
            self._browsers[endpoint.name] = browser
            browser.on("disconnected", lambda b: self._disconnected(endpoint, b))
            log.info(
                "connected to %s endpoint %s: Chromium %s",
                endpoint.kind,
                redact_url(endpoint.name),
                browser.version,
            )
            return browser

    def _disconnected(self, endpoint: Endpoint, browser: Browser) -> None:
        if self._browsers.get(endpoint.name) is browser:
            del self._browsers[endpoint.name]
        if id(browser) in self._dropped:
            self._dropped.discard(id(browser))
            return
        self._on_lost(endpoint, browser)

    async def disconnect(self, name: str) -> None:
        """Drop the endpoint's connection now (its browser is not ours: for a Playwright
        server, closing the connection ends the browser it launched for us)."""
        browser = self._browsers.pop(name, None)
        if browser is not None:
            self._dropped.add(id(browser))
            try:
                await asyncio.wait_for(browser.close(), 5)
            except Exception as exc:
                log.info("disconnecting from a remote browser: %r", exc)

    def forget(self, name: str, browser: Browser) -> None:
        """Drop a connection found dead before its `disconnected` came."""
        if self._browsers.get(name) is browser:
            del self._browsers[name]

    async def close(self) -> None:
        """Disconnect from every endpoint (their browsers keep running: they are not ours)."""
        browsers, self._browsers = list(self._browsers.values()), {}
        for browser in browsers:
            try:
                await asyncio.wait_for(browser.close(), 5)
            except Exception as exc:
                log.info("disconnecting from a remote browser: %r", exc)
