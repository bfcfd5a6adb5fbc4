"""Tab commands: list, open, focus, close."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from steadyhand.act.results import (
    NavigationResult,
    PageResult,
    TabInfo,
    navigation_result,
    page_result,
    tab_infos,
)
from steadyhand.call import Call
from steadyhand.commands.navigation import goto, open_tab, refuse_blocked
from steadyhand.commands.recordings import save_recordings
from steadyhand.commands.table import Params, Result, command, positional
from steadyhand.engine.urls import normalize_url


class TabList(Result):
    PAGE_TEXT: ClassVar[bool] = True
    tabs: list[TabInfo]


@command("tabs", reads_only=True, touches_page=False, timeout="short", caps="tabs")
async def tabs(call: Call, params: Params) -> TabList:
    """List the session's tabs; the current one is marked."""
    return TabList(tabs=await tab_infos(await call.session()))


class TabNewParams(Params):
    url: str | None = positional("URL to open in the new tab", None)


@command("tab.new", creates_session=True, timeout="long", navigates=True, caps="tabs")
async def tab_new(call: Call, params: TabNewParams) -> NavigationResult:
    """Open a new tab (blank, or at a URL) and make it current."""
    url = normalize_url(params.url) if params.url else None
    session = await call.session(create=True)
    if url is not None:
        await refuse_blocked(call, url)
    tab = await open_tab(call, session)
    call.tab_id = tab.id
    if url is None:
        return await navigation_result(tab, None, navigated=False)
    return await goto(call, tab, url)


class TabIdParams(Params):
    tab: str = positional("tab id, e.g. t2")


@command("tab.focus", caps="tabs")
async def tab_focus(call: Call, params: TabIdParams) -> PageResult:
    """Make a tab the current one and bring it to the front."""
    tab = await call.tab(params.tab)
    await tab.page.bring_to_front()
    return PageResult(**await page_result(tab))


class TabCloseParams(Params):
    tab: str | None = positional("tab id (default: the current tab)", None)


class TabClosed(TabList):
    videos: list[str] = Field(default_factory=list, description="its recording, saved")


@command("tab.close", destructive=True, caps="tabs")
async def tab_close(call: Call, params: TabCloseParams) -> TabClosed:
    """Close a tab; the most recent remaining tab becomes current."""
    tab = await call.tab(params.tab, dialog_ok=True)
    session = await call.session()
    videos = await save_recordings(call, session, tab.id)
    await tab.page.close()
    session.forget(tab.id)
    return TabClosed(tabs=await tab_infos(session), videos=videos)
