"""A tab's history across a restore: what `back` reaches after a crash.

A restored tab is a new page: Chromium's history of it starts at the restored URL (behind
it only the blank page and the seed page that wrote its storage), so `back` would land
on a page the agent never saw and the next read would succeed on it. So a checkpoint keeps
each tab's back stack (the URLs before the current entry, from CDP's navigation history),
and a restored tab remembers it with the history index of its restored entry (the floor):
`back` from the floor goes to the last URL of that stack (loading it), and with nothing
saved it says there is no page before. Forward from there is Chromium's own: a page left
by such a `back` is not in Chromium's forward history, and `forward` says it did not move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from steadyhand.engine.tab_cdp import tab_cdp

MAX_BACK = 20  # URLs of a tab's back stack a checkpoint keeps
SEED_PATH = "/__steadyhand_restore__"  # engine/checkpoint.py's seed page, never a page of ours


@dataclass
class RestoredHistory:
    """What a restored tab keeps of its history before the restore."""

    floor: int  # Chromium's history index of the restored entry
    back: list[str] = field(default_factory=list)  # the URLs before it, oldest first


@dataclass
class Where:
    """A tab's place in Chromium's history."""

    index: int
    urls: list[str]  # every entry's URL


async def where(page: Page) -> Where | None:
    """The tab's history as Chromium has it; None where it cannot tell."""
    cdp = await tab_cdp(page)
    if cdp is None:
        return None
    try:
        history = await cdp.send("Page.getNavigationHistory")
    except PlaywrightError:
        return None
    return Where(int(history["currentIndex"]), [str(e["url"]) for e in history["entries"]])


def ours(url: str) -> bool:
    """A page the agent was on (not the blank start, not the restore's seed page)."""
    parts = urlsplit(url)
    return bool(parts.scheme) and url != "about:blank" and parts.path != SEED_PATH


async def back_stack(page: Page, restored: RestoredHistory | None) -> list[str]:
    """The URLs before the tab's current page, oldest first (at most MAX_BACK)."""
    now = await where(page)
    earlier = list(restored.back) if restored is not None else []
    if now is not None:
        start = restored.floor if restored is not None else 0
        earlier += [u for u in now.urls[start : now.index] if ours(u)]
    return earlier[-MAX_BACK:]


async def restored_history(page: Page, back: list[str]) -> RestoredHistory | None:
    """What a tab just restored (at its checkpoint's URL) keeps: its saved back stack."""
    now = await where(page)
    if now is None:
        return None
    return RestoredHistory(now.index, [u for u in back if isinstance(u, str) and ours(u)])
