"""One CDP session per tab, made on first use and kept with the page: the input a click sends
(act/own_input.py) and the tab's history a checkpoint keeps (engine/history.py) go through
it, so neither pays for a session of its own per call."""

from __future__ import annotations

import weakref

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

_SESSIONS: weakref.WeakKeyDictionary[Page, CDPSession | None] = weakref.WeakKeyDictionary()


async def tab_cdp(page: Page) -> CDPSession | None:
    """The tab's CDP session; None where the browser gives none (an attached browser that
    refuses it): callers then do without."""
    if page in _SESSIONS:
        return _SESSIONS[page]
    try:
        session: CDPSession | None = await page.context.new_cdp_session(page)
    except PlaywrightError:
        session = None
    _SESSIONS[page] = session
    return session
