"""What `wait` waits for: each condition says whether it holds now, and if not, why.

Conditions are polled together, so "all hold" means all at one moment. A check that
races a navigation (its document went away mid-check) counts as "not yet".
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import re
import time
from collections.abc import Callable
from typing import Literal

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from steadyhand.act.resolve import resolve_entry, resolve_ref
from steadyhand.act.results import ActionResult
from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.state import state_of

LoadState = Literal["load", "domcontentloaded", "networkidle"]
UrlMatch = Literal["glob", "substring"]
RERESOLVE_EVERY_S = 0.5  # re-reading the page to find a ref's element costs a snapshot


class Condition:
    """One thing to wait for; `label` names it as the agent gave it."""

    label = ""

    async def holds(self) -> bool:
        raise NotImplementedError

    def unmet(self) -> str:
        """Why it does not hold (after `holds` said False)."""
        return self.label

    async def close(self) -> None:
        """Let go of whatever the condition held (handles, tasks)."""


class TextCondition(Condition):
    """Visible text in the tab's main frame, open shadow roots included; case-sensitive."""

    def __init__(self, tab: Tab, text: str, gone: bool) -> None:
        self.tab = tab
        self.gone = gone
        self.label = f"--text-gone {text!r}" if gone else f"--text {text!r}"
        # Playwright matches a regex against each element's whitespace-normalized text.
        self._locator = tab.page.get_by_text(re.compile(re.escape(" ".join(text.split()))))

    async def holds(self) -> bool:
        shown = await self._locator.filter(visible=True).count()
        return shown == 0 if self.gone else shown > 0

    def unmet(self) -> str:
        return f"{self.label}: " + ("still shown" if self.gone else "not shown")


def url_matcher(pattern: str) -> tuple[UrlMatch, re.Pattern[str]]:
    """A glob when the pattern has a `*` (matching the whole URL), else a substring.

    Only `*` makes a glob: `?` and `[` are everyday URL characters.
    """
    if "*" in pattern:
        parts = (re.escape(p) for p in pattern.split("*"))
        return "glob", re.compile(".*".join(parts), re.S)
    return "substring", re.compile(re.escape(pattern))


class UrlCondition(Condition):
    def __init__(self, tab: Tab, pattern: str) -> None:
        self.tab = tab
        self.how, self._regex = url_matcher(pattern)
        self.label = f"--url {pattern!r}"

    async def holds(self) -> bool:
        url = self.tab.page.url
        if self.how == "glob":
            return self._regex.fullmatch(url) is not None
        return self._regex.search(url) is not None

    def unmet(self) -> str:
        return f"{self.label} ({self.how}): the tab is at {self.tab.page.url}"


class LoadCondition(Condition):
    """A load state of the tab's current document, as Playwright defines it."""

    def __init__(self, tab: Tab, state: LoadState, timeout_ms: float) -> None:
        self.label = f"--load {state}"
        self._task = asyncio.ensure_future(tab.page.wait_for_load_state(state, timeout=timeout_ms))

    async def holds(self) -> bool:
        return self._task.done() and not self._task.cancelled() and not self._task.exception()

    def unmet(self) -> str:
        return f"{self.label}: not reached"

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task


class RefCondition(Condition):
    """An element by ref is visible (or, `gone`, is not: hidden, removed or navigated away)."""

    def __init__(self, tab: Tab, ref: str, gone: bool, remaining_ms: Callable[[], float]) -> None:
        self.tab = tab
        self.ref = ref
        self.gone = gone
        self.label = f"--ref-gone {ref}" if gone else f"--ref {ref}"
        self._remaining_ms = remaining_ms
        self._handle: ElementHandle | None = None
        self._resolved_at = 0.0
        self._why = ""

    async def _element(self) -> ElementHandle | None:
        """The ref's element; while there is none, looked for at most every RERESOLVE_EVERY_S."""
        if self._handle is not None:
            try:
                if await self._handle.evaluate("e => e.isConnected"):
                    return self._handle
            except PlaywrightError:
                pass
            await self._drop()
            self._resolved_at = 0.0  # just replaced, perhaps: look for its twin at once
        if time.monotonic() - self._resolved_at < RERESOLVE_EVERY_S:
            return None
        self._resolved_at = time.monotonic()
        try:
            target = await resolve_ref(self.tab, self.ref, self._remaining_ms())
        except SteadyhandError as exc:
            if exc.code != ErrorCode.STALE_REF:
                raise  # not a ref, or never handed out: waiting will not fix that
            if not self.gone and await self._document_left():
                raise  # its element can never come back
            self._why = exc.message.split(": ", 1)[-1]
            return None
        self._handle = target.handle
        return self._handle

    async def _document_left(self) -> bool:
        """Whether the tab has left the document the ref was handed out in."""
        try:
            entry = resolve_entry(self.tab, self.ref)
        except SteadyhandError:
            return True
        return await self.tab.document_id() != entry.main_doc

    async def holds(self) -> bool:
        handle = await self._element()
        try:
            visible = handle is not None and await handle.is_visible()
        except PlaywrightError:
            visible = False
        if handle is not None and not visible:
            self._why = "hidden"
        return not visible if self.gone else visible

    def unmet(self) -> str:
        if self.gone:
            return f"{self.label}: still visible"
        return f"{self.label}: " + (self._why or "not visible")

    async def _drop(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(PlaywrightError):
                await self._handle.dispose()
        self._handle = None

    async def close(self) -> None:
        await self._drop()


class HandbackCondition(Condition):
    """The session is no longer taken over by a person (live view): `driven` says False."""

    label = "--handback"

    def __init__(self, driven: Callable[[], bool]) -> None:
        self._driven = driven

    async def holds(self) -> bool:
        return not self._driven()

    def unmet(self) -> str:
        return "--handback (a person still drives the session)"


class SleepCondition(Condition):
    """At least `ms` milliseconds since the wait began (cut to fit the deadline)."""

    def __init__(self, ms: int, budget_ms: float) -> None:
        self.ms = ms
        self.capped = ms > budget_ms
        self.label = f"--ms {ms}"
        self._until = time.monotonic() + min(ms, budget_ms) / 1000

    async def holds(self) -> bool:
        return time.monotonic() >= self._until


async def expectation_holds(tab: Tab, name: str, value: str) -> bool:
    """Whether an act's --expect-NAME VALUE holds now (url: a glob with *, else a
    substring; text: shown in the main frame; ref_gone: the element hidden or removed)."""
    page_ = tab.page
    if name == "url":
        url = page_.url
        return fnmatch.fnmatchcase(url, value) if "*" in value else value in url
    if name == "text":
        try:
            return bool(await page_.evaluate("t => document.body.innerText.includes(t)", value))
        except PlaywrightError:
            return False
    try:
        entry = resolve_entry(tab, value)
    except SteadyhandError as exc:
        return exc.code == ErrorCode.STALE_REF  # its page is gone, and it with it
    handle = await state_of(tab).model.element(page_, entry.doc, entry.key, act=False)
    if handle is None:
        return True
    try:
        return not await handle.evaluate(
            "e => e.isConnected && e.checkVisibility({visibilityProperty: true})"
        )
    except PlaywrightError:
        return True
    finally:
        with contextlib.suppress(PlaywrightError):
            await handle.dispose()


EXPECT_POLL_S = 0.1
EXPECT_MARGIN_MS = 400.0  # kept back from the deadline: time to report the failure


async def expectations_hold(
    tab: Tab, wanted: list[tuple[str, str]], done: ActionResult, remaining_ms: Callable[[], float]
) -> None:
    """The caller's --expect-* conditions, polled until they hold or time runs out.

    A failure here is not retried: the action ran, and running it again could do it
    twice. The error carries the result so far.
    """
    if not wanted:
        return
    unmet: list[str] = []
    while True:
        unmet = [
            f"{name}={value!r}"
            for name, value in wanted
            if not await expectation_holds(tab, name, value)
        ]
        if not unmet or remaining_ms() <= EXPECT_MARGIN_MS:
            break
        await asyncio.sleep(EXPECT_POLL_S)
    if unmet:
        done.url = tab.page.url
        raise SteadyhandError(
            ErrorCode.VERIFICATION_FAILED,
            f"the {done.action} ran, but expected {' and '.join(unmet)} did not hold "
            "by the deadline",
            "it was not retried (that could act twice): take a snapshot to see what "
            "happened instead",
            {"result": done.model_dump(mode="json", exclude={"changes"})},
        )
