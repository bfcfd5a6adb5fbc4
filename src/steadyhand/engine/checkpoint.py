"""A session's restorable state: read it from a live context, put it back into a new one.

The state is what survives a browser restart: the URL of every tab (with its id), cookies,
localStorage per origin, each tab's sessionStorage for the origin it shows, the viewport,
the session's routes and offline mode (`route`, `offline`) and what it emulates
(engine/emulation.py). It is not the page's
memory: form input, scroll positions and script state are lost, and a restore says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.history import SEED_PATH, back_stack, restored_history
from steadyhand.engine.session import Session
from steadyhand.errors import first_line

SESSION_STORAGE_JS = """() => {
  const items = {};
  for (let i = 0; i < sessionStorage.length; i++) {
    const key = sessionStorage.key(i);
    items[key] = sessionStorage.getItem(key);
  }
  return items;
}"""
FILL_STORAGE_JS = """([local, session]) => {
  for (const [key, value] of Object.entries(local)) localStorage.setItem(key, value);
  for (const [key, value] of Object.entries(session)) sessionStorage.setItem(key, value);
}"""
# SEED_PATH: served (by route, never fetched) at a tab's origin to write its storage before
# the real page loads, so a page that reads sessionStorage on load finds it.
SEED_PAGE = "<!doctype html><title>restoring</title>"


def origin_of(url: str) -> str | None:
    """`scheme://host:port` for http(s) URLs; None for about:, data:, file: and the like."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"


async def capture(session: Session, viewport: dict[str, int]) -> dict[str, Any]:
    """The session's state now, as JSON-ready data (see the module doc)."""
    storage = await session.context.storage_state()
    tabs = []
    for tab in list(session.tabs.values()):
        page = tab.page
        if page.is_closed():
            continue
        items: dict[str, str] = {}
        if origin_of(page.url) and not tab.events.dialog_info():
            with contextlib.suppress(PlaywrightError):
                items = await page.evaluate(SESSION_STORAGE_JS)
        back = await back_stack(page, tab.restored)
        tabs.append(
            {"id": tab.id, "url": page.url, "session_storage": items}
            | ({"back": back} if back else {})
        )
    return (
        {
            "tabs": tabs,
            "current": session.current_tab_id,
            "next_tab": session.next_tab,
            "cookies": storage.get("cookies", []),
            "origins": storage.get("origins", []),
            "viewport": viewport,
        }
        | ({"nav": session.own_rules} if session.own_rules else {})
        | ({"network": net} if (net := session.net.saved()) else {})
        | ({"emulation": session.emulation} if session.emulation else {})
        | ({"browser": session.browser_name} if session.browser_name != "local" else {})
    )


def storage_state(state: dict[str, Any]) -> dict[str, Any]:
    """The cookies of a state, as `new_context(storage_state=...)` takes them.

    localStorage is left out: Playwright writes it by loading a page per origin, which
    costs a restore seconds; `restore_tabs` writes it in the seed step each tab has anyway.
    """
    return {"cookies": state.get("cookies", []), "origins": []}


def local_storage(state: dict[str, Any]) -> dict[str, dict[str, str]]:
    """localStorage items by origin."""
    return {
        o["origin"]: {i["name"]: i["value"] for i in o.get("localStorage", [])}
        for o in state.get("origins", [])
        if o.get("localStorage")
    }


async def seed_storage(
    page: Page, origin: str, local: dict[str, str], session: dict[str, str]
) -> None:
    """Write storage for `origin` from `page` (which leaves it on a blank seed page)."""
    seed = origin + SEED_PATH

    async def serve_seed(route: Any) -> None:
        await route.fulfill(status=200, content_type="text/html", body=SEED_PAGE)

    await page.route(seed, serve_seed)
    try:
        await page.goto(seed, wait_until="load")
        await page.evaluate(FILL_STORAGE_JS, [local, session])
    finally:
        await page.unroute(seed, serve_seed)


async def restore_tabs(
    session: Session, state: dict[str, Any], timeout_ms: float, with_local: bool = True
) -> tuple[list[str], list[str]]:
    """Reopen the state's tabs (same ids) in `session`; return (restored, lost) descriptions.

    `with_local`: also write the state's localStorage (a profile keeps its own). Tabs load
    side by side. A tab whose page does not load again is reported lost, never replaced
    silently: it stays open (on the error page, or blank) under its id.
    """
    saved_tabs = list(state.get("tabs", []))
    numbers = [int(t["id"][1:]) for t in saved_tabs if str(t["id"])[1:].isdigit()]
    # Pages the context announces get provisional ids above every saved one, so renaming
    # them to their saved ids never collides.
    session.next_tab = max([session.next_tab, int(state.get("next_tab", 1)), *numbers]) + 1
    reuse = [t.page for t in session.tabs.values() if t.page.url == "about:blank"]
    local = local_storage(state) if with_local else {}
    seeded: set[str] = set()  # origins whose localStorage a tab writes

    async def reopen(saved: dict[str, Any], page: Page | None) -> tuple[str, bool]:
        page = page or await session.context.new_page()
        tab = session.adopt(page, saved["id"])
        url = str(saved.get("url") or "about:blank")
        items = saved.get("session_storage") or {}
        origin = origin_of(url)
        try:
            if origin and (items or (origin in local and origin not in seeded)):
                mine = local.get(origin, {}) if origin not in seeded else {}
                seeded.add(origin)
                await seed_storage(page, origin, mine, items)
            if url != "about:blank":
                await page.goto(url, wait_until="load", timeout=timeout_ms)
            tab.restored = await restored_history(page, list(saved.get("back") or []))
        except PlaywrightError as exc:
            return f"tab {tab.id}: {url} did not load again ({first_line(exc)})", False
        return f"{tab.id} {url}", True

    pages: list[Page | None] = [reuse.pop(0) if reuse else None for _ in saved_tabs]
    outcomes = await asyncio.gather(*(reopen(t, p) for t, p in zip(saved_tabs, pages, strict=True)))
    lost = [d for d, ok in outcomes if not ok]
    rest = {o: items for o, items in local.items() if o not in seeded}
    if rest:
        try:
            await seed_origins(session.context, rest, timeout_ms / 1000)
        except (PlaywrightError, TimeoutError) as exc:
            lost.append(f"localStorage of {', '.join(rest)} ({exc})")
    ordered = sorted(session.tabs.values(), key=lambda t: _tab_number(t.id))
    session.tabs = {t.id: t for t in ordered}
    # The provisional ids are gone: the next tab gets the id after the last one given.
    numbers += [n for n in map(_tab_number, session.tabs) if n < NO_NUMBER]
    session.next_tab = max([int(state.get("next_tab", 1)), *(n + 1 for n in numbers)])
    current = state.get("current")
    if current in session.tabs:
        session.tab(current)
    return [d for d, ok in outcomes if ok], lost


async def seed_origins(
    context: BrowserContext, local: dict[str, dict[str, str]], timeout_s: float
) -> None:
    """Write localStorage for origins no tab shows, from a page opened for it."""
    page = await context.new_page()
    try:
        for origin, items in local.items():
            await asyncio.wait_for(seed_storage(page, origin, items, {}), timeout_s)
    finally:
        await page.close()


NO_NUMBER = 1 << 30  # a tab id that is not tN sorts last


def _tab_number(tab_id: str) -> int:
    return int(tab_id[1:]) if tab_id[1:].isdigit() else NO_NUMBER


async def seed_profile(context: BrowserContext, state: dict[str, Any], timeout_s: float) -> None:
    """Put a storage state (cookies, localStorage) into a context that is already open."""
    await context.add_cookies(state.get("cookies", []))
    local = local_storage(state)
    if local:
        await seed_origins(context, local, timeout_s)
