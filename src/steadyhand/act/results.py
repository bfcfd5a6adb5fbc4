"""Results several commands share: where a tab is, what an action did."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Response
from pydantic import Field

from steadyhand.engine.session import Session, Tab
from steadyhand.models import Result


class TabInfo(Result):
    id: str
    url: str
    title: str
    current: bool


class PageResult(Result):
    """Where a tab is after a command."""

    PAGE_TEXT: ClassVar[bool] = True  # its title, at least

    tab: str
    url: str
    title: str


class NavigationResult(PageResult):
    REPLY: ClassVar[str] = "snapshot"
    status: int | None = Field(None, description="HTTP status of the main document")
    navigated: bool = True
    snapshot: str | None = Field(None, description="the page's interactive view, if asked for")
    history: str | None = Field(
        None, description="how back went in a tab restored after a crash (its own history gone)"
    )


class ActionResult(PageResult):
    """What an act command did: verified, with everything it caused."""

    REPLY: ClassVar[str] = "act"
    NOT_FOR_THE_MODEL: ClassVar[frozenset[str]] = frozenset({"timing", "route"})

    ok: bool = True
    action: str
    ref: str | None = Field(None, description="the ref or locator acted on")
    data: dict[str, Any] = Field(
        default_factory=dict, description="what the action verified or read back"
    )
    retries: int = Field(0, description="tries after the first")
    duration_ms: float = 0.0
    artifacts: list[str] = Field(default_factory=list, description="files written")
    navigated: bool = Field(False, description="the action changed the tab's URL")
    reresolved: dict[str, str] = Field(
        default_factory=dict,
        description="refs the page had replaced, each with the ref of the element acted on",
    )
    watchdog: list[dict[str, str]] = Field(
        default_factory=list, description="interruptions dismissed before acting"
    )
    dialog: dict[str, Any] | None = Field(
        None, description="a dialog open in the tab, waiting for `dialog accept|dismiss`"
    )
    dialogs_answered: list[dict[str, Any]] = Field(
        default_factory=list, description="dialogs the `dialogs` setting answered"
    )
    popups: list[str] = Field(default_factory=list, description="tabs the action opened")
    downloads: list[dict[str, Any]] = Field(
        default_factory=list, description="files the action downloaded (saved paths)"
    )
    dom_changed: bool | None = Field(
        None, description="the action changed the page: its DOM or what a snapshot shows"
    )
    changes: str | None = Field(None, description="what the action changed on the page")
    timing: dict[str, float] | None = Field(
        None,
        description="milliseconds per stage: resolve, check, input, settle, changes, record "
        "(retry pauses and dispatch are in none)",
    )
    route: str | None = Field(
        None,
        description="how the input went: cdp (steadyhand's own, after one check in the "
        "page), or playwright and why",
    )


async def page_result(tab: Tab, title: str | None = None) -> dict[str, str]:
    """Tab id, URL and title (`title`: as a read of the page just now found it)."""
    # An open dialog stops the page: its title cannot be read until it is answered; a
    # busy page answers late.
    if title is None:
        title = await title_or_busy(tab) if tab.events.pending is None else ""
    return {"tab": tab.id, "url": tab.page.url, "title": title}


async def navigation_result(
    tab: Tab, response: Response | None, navigated: bool = True
) -> NavigationResult:
    status = response.status if response else None
    return NavigationResult(**await page_result(tab), status=status, navigated=navigated)


async def action_result(
    tab: Tab, action: str, ref: str | None, url_before: str, title: str | None, **detail: Any
) -> ActionResult:
    where = await page_result(tab, title)
    return ActionResult(
        **where, action=action, ref=ref, navigated=where["url"] != url_before, data=detail
    )


TITLE_WAIT_S = 1.0
NOT_RESPONDING = "(not responding)"


async def title_or_busy(tab: Tab) -> str:
    """The tab's title, without letting one hung page stall a listing of many."""
    try:
        return await asyncio.wait_for(tab.page.title(), TITLE_WAIT_S)
    except (TimeoutError, PlaywrightError):
        return NOT_RESPONDING


async def tab_infos(session: Session) -> list[TabInfo]:
    current = session.current_tab_id
    tabs = list(session.tabs.values())  # a popup may be adopted while we await titles
    titles = await asyncio.gather(*(title_or_busy(t) for t in tabs))
    return [
        TabInfo(id=t.id, url=t.page.url, title=title, current=t.id == current)
        for t, title in zip(tabs, titles, strict=True)
    ]
