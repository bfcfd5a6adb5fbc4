"""The `cdp` transport: a Chromium or Electron application's web content driven through
its remote-debugging port by steadyhand's own Playwright, the element found by the role
and name AT-SPI gives it (exactly one match, or it does not act)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Browser, Page, Playwright

from steadyhand.desktop.cdp_ports import endpoint_of, running
from steadyhand.desktop.transport import Target, Want
from steadyhand.errors import ErrorCode, SteadyhandError

# AT-SPI roles as Chromium maps them from ARIA roles, and back.
ARIA_ROLES = {
    "push button": "button",
    "toggle button": "button",
    "entry": "textbox",
    "password text": "textbox",
    "text": "textbox",
    "check box": "checkbox",
    "radio button": "radio",
    "combo box": "combobox",
    "list box": "listbox",
    "link": "link",
    "menu item": "menuitem",
    "slider": "slider",
    "spin button": "spinbutton",
    "page tab": "tab",
    "switch": "switch",
}
KINDS = ("click", "type", "select", "focus")
CONNECT_TIMEOUT_MS = 5_000.0


class CdpTransport:
    name = "cdp"

    def __init__(self, playwright: Callable[[], Awaitable[Playwright]]) -> None:
        self._playwright = playwright
        self._endpoints: dict[int, str | None] = {}  # pid -> endpoint, found once
        self._browsers: dict[str, Browser] = {}  # endpoint -> connection

    async def endpoint(self, pid: int) -> str | None:
        """The application's CDP endpoint; looked for once per process."""
        if pid not in self._endpoints:
            self._endpoints[pid] = await asyncio.to_thread(endpoint_of, pid)
        return self._endpoints[pid]

    def can_handle(self, target: Target, want: Want) -> str | None:
        if want.kind not in KINDS:
            return f"it does not {want.kind}"
        if target.web is None:
            return "it is not web content"
        if target.cdp is None:
            return "its application has no remote-debugging port on loopback"
        if target.facts.role not in ARIA_ROLES or not target.facts.name:
            return f"a {target.facts.role} without a name cannot be found in the page"
        return None

    async def health(self) -> dict[str, Any]:
        await self._playwright()  # the driver it needs, started
        for url, browser in list(self._browsers.items()):
            if not browser.is_connected():  # its application quit
                del self._browsers[url]
        for pid in [p for p in self._endpoints if not running(p)]:
            del self._endpoints[pid]
        found = {str(pid): url for pid, url in self._endpoints.items() if url is not None}
        return {"ok": True, "connected": sorted(self._browsers), "endpoints": found}

    async def execute(self, target: Target, want: Want, deadline: float) -> str:
        assert target.cdp is not None
        browser = await self._connect(target.cdp, deadline)
        timeout = max(1.0, (deadline - time.monotonic()) * 1000)
        page, count = await _page_holding(browser, target)
        if count != 1:
            raise SteadyhandError(
                ErrorCode.ACTION_FAILED,
                f"{count} elements of role {ARIA_ROLES[target.facts.role]} named "
                f"{target.facts.name!r} in the page, not one",
                "the next transport acts on its box instead",
            )
        element = page.get_by_role(
            ARIA_ROLES[target.facts.role],  # type: ignore[arg-type]
            name=target.facts.name,
            exact=True,
        )
        if want.kind == "click":
            await element.click(timeout=timeout)
        elif want.kind == "type":
            await element.fill(want.text or "", timeout=timeout)
        elif want.kind == "select":
            await element.select_option(label=want.value or "", timeout=timeout)
        else:
            await element.focus(timeout=timeout)
        return want.kind

    async def _connect(self, endpoint: str, deadline: float) -> Browser:
        browser = self._browsers.get(endpoint)
        if browser is None or not browser.is_connected():
            playwright = await self._playwright()
            timeout = max(1.0, min(CONNECT_TIMEOUT_MS, (deadline - time.monotonic()) * 1000))
            browser = await playwright.chromium.connect_over_cdp(endpoint, timeout=timeout)
            self._browsers[endpoint] = browser
        return browser

    def forget(self, pid: int) -> None:
        """The application is gone: look for its endpoint again if the pid comes back."""
        self._endpoints.pop(pid, None)

    def drop(self) -> None:
        """Forget the connections. Never `browser.close()`: over CDP it may send
        Browser.close and end the application; the connections end with Playwright."""
        self._browsers.clear()


async def _page_holding(browser: Browser, target: Target) -> tuple[Page, int]:
    """The page whose title is the element's document's (else the first page with a
    match), and how many elements in it match the element's role and name."""
    pages = [p for c in browser.contexts for p in c.pages]
    titled = [p for p in pages if await p.title() == target.web]
    best: tuple[Page, int] | None = None
    for page in titled + [p for p in pages if p not in titled]:
        count = await page.get_by_role(
            ARIA_ROLES[target.facts.role],  # type: ignore[arg-type]
            name=target.facts.name,
            exact=True,
        ).count()
        if count:
            return page, count
        best = best or (page, 0)
    if best is None:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED, "the application's debugging port shows no page", ""
        )
    return best
