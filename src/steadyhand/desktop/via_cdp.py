"""The `cdp` transport: a Chromium or Electron application's web content driven through
its remote-debugging port by steadyhand's own Playwright, the element found by the role
and name AT-SPI gives it (exactly one match, or it does not act)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Browser, Dialog, Page, Playwright

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
NO_PORT_AGAIN_S = 5.0  # an app with no debugging port is looked at again after this


class CdpTransport:
    name = "cdp"

    def __init__(self, playwright: Callable[[], Awaitable[Playwright]]) -> None:
        self._playwright = playwright
        self._endpoints: dict[int, str] = {}  # pid -> endpoint, found once
        self._none_since: dict[int, float] = {}  # pid -> when it had no endpoint
        self._browsers: dict[str, Browser] = {}  # endpoint -> connection

    async def endpoint(self, pid: int) -> str | None:
        """The application's CDP endpoint: found once per process; one that had none is
        looked at again after NO_PORT_AGAIN_S (it may open its port later)."""
        if pid in self._endpoints:
            return self._endpoints[pid]
        if time.monotonic() - self._none_since.get(pid, -NO_PORT_AGAIN_S) < NO_PORT_AGAIN_S:
            return None
        found = await asyncio.to_thread(endpoint_of, pid)
        if found is None:
            self._none_since[pid] = time.monotonic()
        else:
            self._endpoints[pid] = found
            self._none_since.pop(pid, None)
        return found

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
        found = {str(pid): url for pid, url in self._endpoints.items()}
        return {"ok": True, "connected": sorted(self._browsers), "endpoints": found}

    async def execute(self, target: Target, want: Want, deadline: float) -> str:
        assert target.cdp is not None
        browser = await self._connect(target.cdp, deadline)
        page, count = await asyncio.wait_for(
            _page_holding(browser, target), max(0.001, deadline - time.monotonic())
        )
        timeout = max(1.0, (deadline - time.monotonic()) * 1000)
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
            # no_defaults: leave the app's own download, focus and viewport settings alone.
            browser = await playwright.chromium.connect_over_cdp(
                endpoint, timeout=timeout, no_defaults=True
            )
            for context in browser.contexts:
                # With no listener Playwright dismisses every dialog the app opens; one
                # that does nothing leaves them to the app (and to `desktop` commands).
                context.on("dialog", _leave_to_the_app)
            self._browsers[endpoint] = browser
        return browser


def _leave_to_the_app(_dialog: Dialog) -> None:
    pass


async def _page_holding(browser: Browser, target: Target) -> tuple[Page, int]:
    """The page the element is in — among the pages titled as its document (all pages when
    none is) — and how many elements match its role and name across those pages: anything
    but one, and CDP does not act (a click must not land in another window)."""
    pages = [p for c in browser.contexts for p in c.pages]
    titled = [p for p in pages if await p.title() == target.web] or pages
    found: list[tuple[Page, int]] = []
    for page in titled:
        count = await page.get_by_role(
            ARIA_ROLES[target.facts.role],  # type: ignore[arg-type]
            name=target.facts.name,
            exact=True,
        ).count()
        if count:
            found.append((page, count))
    if not titled:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED, "the application's debugging port shows no page", ""
        )
    if len(found) != 1:
        return titled[0], sum(c for _p, c in found)
    return found[0]
