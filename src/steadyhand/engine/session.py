"""A session is one isolated browser context with its tabs; a tab is a page with an id.

Tab ids (`t1`, `t2`, ...) are never reused within a session. The last tab a command
used is the default target of the next one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from playwright.async_api import BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.history import RestoredHistory
from steadyhand.engine.nav_proxy import NavProxy
from steadyhand.engine.net_control import NetControl
from steadyhand.engine.page_events import PageEvents, named_in
from steadyhand.engine.page_log import PageLog, attach_page_log
from steadyhand.engine.recording import TabRecording
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.vault import mask_zip

log = logging.getLogger("steadyhand.session")


class TabState(Protocol):
    """What the snapshot layer keeps of a tab: its page model, refs, and what the agent last
    saw (snapshot/state.py). The engine only carries it: what of it outlives the page (the
    refs handed out) is kept past the tab's close and handed on by a recovery."""

    def reloaded(self) -> TabState:
        """What of it still holds once the tab's page is gone or reloaded."""
        ...


@dataclass
class Tab:
    id: str
    page: Page
    events: PageEvents
    state: TabState | None = None  # made by the snapshot layer on first use
    # What the page logged and fetched since the tab was adopted (`console`, `network`).
    log: PageLog = field(default_factory=PageLog)
    # Main-frame documents (document_id) a named secret was typed into: `evaluate` could read
    # it back transformed past the masking, so it is refused there (steadyhand/vault.py).
    secret_documents: set[str] = field(default_factory=set)
    # Restored from a checkpoint: the history it had before (engine/history.py).
    restored: RestoredHistory | None = None

    async def document_id(self) -> str:
        """Identity of the main-frame document now loaded (changes on every navigation)."""
        return str(await self.page.evaluate("() => String(performance.timeOrigin)"))


class Session:
    """An isolated context (own cookies, storage, cache) and its tabs."""

    def __init__(
        self,
        name: str,
        context: BrowserContext,
        download_path: Callable[[str], Path] | None = None,
        dialog_policy: str = "report",
        profile: str | None = None,
        *,
        attached: str | None = None,
        proxy: NavProxy | None = None,
        own_rules: dict[str, Any] | None = None,
        emulation: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.context = context
        # Every connection of the context goes through the proxy, which applies the
        # session's navigation policy (none for an attached application's browser).
        self.proxy = proxy
        self.own_rules = own_rules or {}  # the session's tightening, kept in checkpoints
        # Routes (mocked or blocked requests) and offline mode, for every tab; checkpointed.
        self.net = NetControl(context, proxy)
        # What it emulates (engine/emulation.py's spec), kept in checkpoints.
        self.emulation: dict[str, Any] = emulation or {}
        # Changed since the context was made (`emulate`): set on each page it opens too.
        self.page_media: dict[str, Any] = {}  # emulate_media's arguments
        self.page_viewport: dict[str, int] | None = None
        self._fitting: set[asyncio.Future[None]] = set()
        if proxy is not None:  # a crashed context's too
            context.on("close", lambda _ctx: asyncio.ensure_future(proxy.close()))
        self.profile = profile  # a persistent profile's name; None for a throwaway context
        # The CDP endpoint of a running application this session is attached to (its own
        # browser, not ours): closing the session leaves the application as it is.
        self.attached = attached
        # Where its browser runs: "local" (launched here) or a browser endpoint's name or URL.
        self.browser_name = "local"
        self.download_path = download_path or named_in(Path("downloads") / name)
        self.dialog_policy = dialog_policy
        self.created_at = time.time()
        self.tracing_since: float | None = None  # monotonic time `trace start` began
        # Where a trace still recording at close is saved (None: it is dropped).
        self.unsaved_trace_path: Callable[[], Path] | None = None
        # Tabs' recordings (`record start`), by tab id: running, or finished by a close and
        # not yet handed to a command (`record stop`, `tab close`, `close` report them).
        self.recordings: dict[str, TabRecording] = {}
        self.tabs: dict[str, Tab] = {}
        self.next_tab = 1
        self._current: str | None = None
        # What the last recovery restored and lost: reported by the next command, once.
        self.recovered: dict[str, Any] | None = None
        self.closing = False  # set before a close we asked for (any other close is a loss)
        self.actions_since_checkpoint = 0
        self.checkpointed_urls: dict[str, str] = {}
        self.on_crash: Callable[[str], None] | None = None  # called with a crashed tab's id
        # What closed tabs leave (their refs): a recovery keeps those known too.
        self._closed_states: dict[str, TabState] = {}
        context.on("page", self._adopt)

    def _adopt(self, page: Page) -> None:
        self.adopt(page)

    def adopt(self, page: Page, tab_id: str | None = None, fit: bool = True) -> Tab:
        """Give every page of the context a tab id, including popups the page opens.

        `tab_id`: the id to give it (a restored tab keeps the one it had). `fit`: apply
        what `emulate` changed in the background (False: the caller awaits `fit` itself).
        """
        for tab in self.tabs.values():
            if tab.page is page:
                if tab_id is not None and tab_id != tab.id and tab_id not in self.tabs:
                    self.tabs[tab_id] = self.tabs.pop(tab.id)
                    self._closed_states.pop(tab_id, None)
                    tab.id = tab_id
                return tab
        events = PageEvents(page, self.download_path, self.dialog_policy)
        events.attach()
        if tab_id is None or tab_id in self.tabs:
            tab_id = f"t{self.next_tab}"
        tab = Tab(id=tab_id, page=page, events=events)
        self._closed_states.pop(tab_id, None)
        number = tab_id[1:]
        if number.isdigit():
            self.next_tab = max(self.next_tab, int(number) + 1)
        self.tabs[tab.id] = tab
        tab.log.marks = self.net.marks
        attach_page_log(tab.log, page)
        page.on("close", lambda _page: self.forget(tab.id))
        page.on("crash", lambda _page: self.on_crash(tab.id) if self.on_crash else None)
        if fit and (self.page_media or self.page_viewport):  # a popup: as its session emulates
            fitting = asyncio.ensure_future(self._fit_quietly(page))
            self._fitting.add(fitting)  # held until done: a task nobody holds may vanish
            fitting.add_done_callback(self._fitting.discard)
        return tab

    async def fit(self, page: Page) -> None:
        """Give a page what `emulate` changed since the context was made."""
        if self.page_media:
            await page.emulate_media(**self.page_media)
        if self.page_viewport:
            await page.set_viewport_size(self.page_viewport)  # type: ignore[arg-type]

    async def _fit_quietly(self, page: Page) -> None:
        try:
            await self.fit(page)
        except PlaywrightError as exc:  # closed as soon as opened
            log.info("session %s: emulation of a new page: %s", self.name, exc)

    def urls(self) -> dict[str, str]:
        """Each open tab's URL, by tab id."""
        return {t.id: t.page.url for t in self.tabs.values() if not t.page.is_closed()}

    def tab_states(self) -> dict[str, TabState]:
        """Every tab's state by tab id, closed tabs' too."""
        states = dict(self._closed_states)
        states.update((i, t.state) for i, t in self.tabs.items() if t.state is not None)
        return states

    def forget(self, tab_id: str) -> None:
        tab = self.tabs.pop(tab_id, None)
        if tab is not None and tab.state is not None:
            self._closed_states[tab_id] = tab.state.reloaded()
        if self._current == tab_id:
            self._current = next(reversed(self.tabs), None)

    async def new_tab(self) -> Tab:
        page = await new_page(self.context)
        tab = self.adopt(page, fit=False)
        await self.fit(page)  # awaited here: the tab is as emulated before it is used
        self._current = tab.id
        return tab

    def tab(self, tab_id: str | None = None) -> Tab:
        """The named tab, or the last one used; `unknown_tab` when there is none."""
        wanted = tab_id or self._current
        if wanted is None or wanted not in self.tabs:
            if tab_id is None and self.tabs:
                wanted = next(reversed(self.tabs))
            else:
                known = ", ".join(self.tabs) or "none"
                raise SteadyhandError(
                    ErrorCode.UNKNOWN_TAB,
                    f"session {self.name!r} has no tab {wanted or ''}".rstrip(),
                    f"open tabs: {known}; list them with `tabs` or open one with `open URL`",
                )
        self._current = wanted
        return self.tabs[wanted]

    def has_tabs(self) -> bool:
        return bool(self.tabs)

    def current_tab(self) -> Tab | None:
        """The tab the next command without --tab acts on (None: no tab), changing nothing."""
        wanted = self.current_tab_id or next(reversed(self.tabs), None)
        return None if wanted is None else self.tabs[wanted]

    @property
    def current_tab_id(self) -> str | None:
        return self._current if self._current in self.tabs else None

    async def close(self) -> None:
        self.closing = True
        try:
            await self.finish_recordings()
            await self._close()
        finally:
            if self.proxy is not None:
                await self.proxy.close()

    async def finish_recordings(self) -> None:
        """Finish every tab's recording (the session is closing): each file is left whole.

        One that takes longer than RECORDING_FINISH_S goes on finishing behind the close."""
        running = [r.finish(orphan=True) for r in self.recordings.values()]
        if not running:
            return
        done = asyncio.gather(*running, return_exceptions=True)
        try:
            for failed in await asyncio.wait_for(asyncio.shield(done), RECORDING_FINISH_S):
                if isinstance(failed, BaseException):
                    log.warning("session %s: a recording could not be saved: %s", self.name, failed)
        except TimeoutError:
            log.warning("session %s: its recordings still finish as it closes", self.name)

    async def _close(self) -> None:
        if self.attached is not None:
            # Its pages and the application are not ours to close: only our connection.
            # (Over connect_over_cdp, Browser.close drops the websocket; it sends no
            # Browser.close to the application.)
            browser = self.context.browser
            if browser is not None:
                await browser.close()
            return
        if self.tracing_since is not None and self.unsaved_trace_path is not None:
            # A trace still recording is saved rather than lost with the context.
            path = self.unsaved_trace_path()
            try:
                await self.context.tracing.stop(path=path)
                # As `trace stop` keeps one: the user's alone, typed secrets masked.
                await asyncio.to_thread(path.chmod, 0o600)
                await asyncio.to_thread(mask_zip, path)
                log.info("session %s closed while tracing; trace saved to %s", self.name, path)
            except PlaywrightError as exc:
                log.warning("session %s: its trace could not be saved: %s", self.name, exc)
            self.tracing_since = None
        await self.context.close()


# How long a closing session waits for its recordings' files before it closes anyway.
RECORDING_FINISH_S = 3.0

# How often a page being created checks that its browser still runs.
NEW_PAGE_POLL_S = 0.1


async def new_page(context: BrowserContext) -> Page:
    """`context.new_page()`, failing as closed when the browser or context goes away
    meanwhile: Playwright's own call then waits forever for a page the killed browser never
    announces, and holds its command until the deadline instead of its recovery."""
    closed = asyncio.Event()

    def on_close(_context: BrowserContext) -> None:
        closed.set()

    context.on("close", on_close)
    creating = asyncio.ensure_future(context.new_page())
    browser = context.browser
    try:
        while True:
            done, _ = await asyncio.wait({creating}, timeout=NEW_PAGE_POLL_S)
            if done:
                return creating.result()
            if closed.is_set() or (browser is not None and not browser.is_connected()):
                creating.cancel()
                await asyncio.gather(creating, return_exceptions=True)
                raise PlaywrightError(
                    "BrowserContext.new_page: Target page, context or browser has been "
                    "closed while the page was being created"
                )
    finally:
        context.remove_listener("close", on_close)
