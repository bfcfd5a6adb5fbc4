"""One act command in flight: its target elements, and what it reports when done.

Every act command runs inside `Act`: it resolves refs (noting any re-resolution), and
afterwards reports where the tab is and, unless told otherwise, what the action changed
on the page, so the agent rarely needs a separate snapshot.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, Protocol

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from steadyhand.actions.resolve import element
from steadyhand.call import Call
from steadyhand.commands.results import ActionResult, action_result
from steadyhand.engine.session import Tab
from steadyhand.errors import SteadyhandError
from steadyhand.snapshot.diff import report
from steadyhand.snapshot.render import View, page
from steadyhand.snapshot.take import take

# Resolves once the DOM has been quiet for 60 ms (or after 600 ms of constant change).
SETTLE_JS = """() => new Promise(resolve => {
  let quiet, hard;
  const observer = new MutationObserver(() => {
    clearTimeout(quiet);
    quiet = setTimeout(done, 60);
  });
  function done() {
    observer.disconnect(); clearTimeout(quiet); clearTimeout(hard); resolve();
  }
  observer.observe(document,
    {subtree: true, childList: true, attributes: true, characterData: true});
  quiet = setTimeout(done, 60);
  hard = setTimeout(done, 600);
})"""
LOAD_WAIT_MS = 5_000


class ActOptions(Protocol):
    tab: str | None
    changes: bool | None


class Act:
    def __init__(self, call: Call, params: ActOptions) -> None:
        self.call = call
        self.params = params
        self.detail: dict[str, Any] = {}
        self.reresolved: dict[str, str] = {}
        self.changes = (
            params.changes if params.changes is not None else call.runtime.settings.act_changes
        )
        self._tab: Tab | None = None
        self._url_before = ""
        self._ready = False

    @property
    def tab(self) -> Tab:
        assert self._tab is not None, "use Act as an async context manager"
        return self._tab

    async def __aenter__(self) -> Act:
        self._tab = await self.call.tab(self.params.tab)
        self._url_before = self.tab.page.url
        return self

    async def ready(self) -> None:
        """Call once the targets are resolved, right before acting.

        If the last snapshot is older than the last action (or there is none), read the
        page as it is now, so the changes reported are this action's. Not earlier: reading
        the page hands out refs, and a ref the agent was never given must stay unknown.
        """
        self._ready = True
        if self.changes and not self.tab.fresh_baseline():
            self.tab.seen(await take(self.tab, self.call.remaining_ms()))

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None or not self.changes:
            self.tab.acted_since_baseline = True

    @asynccontextmanager
    async def element(self, ref: str) -> AsyncIterator[ElementHandle]:
        async with element(self.tab, ref, self.call.remaining_ms()) as target:
            if target.reresolved:
                self.reresolved[target.asked] = target.ref
            yield target.handle

    async def result(self, action: str, ref: str | None) -> ActionResult:
        assert self._ready, "an act command must call Act.ready() before acting"
        changes = await self._changes() if self.changes else None
        done = await action_result(self.tab, action, ref, self._url_before, **self.detail)
        done.reresolved = self.reresolved
        done.changes = changes
        return done

    async def _changes(self) -> str:
        """What the action changed, read once the page has settled."""
        tab = self.tab
        try:
            try:
                await tab.page.evaluate(SETTLE_JS)
            except PlaywrightError:
                # The action navigated: the old document (and the evaluate) went with it.
                await tab.page.wait_for_load_state(
                    "load", timeout=min(LOAD_WAIT_MS, self.call.remaining_ms())
                )
            taken = await take(tab, self.call.remaining_ms())
        except (PlaywrightError, SteadyhandError) as exc:
            tab.acted_since_baseline = True
            return f"# the page could not be read after the action: {str(exc).splitlines()[0]}"
        text = report(tab.baseline, taken, View())
        tab.seen(taken)
        chunk = page(text, 0, self.call.runtime.settings.snapshot_max_chars)
        if chunk.next_offset is None:
            return chunk.text
        left = chunk.total - chunk.next_offset
        return chunk.text + f"\n[… {left:,} more characters; `snapshot` shows the whole page]"
