"""One act command in flight: precondition -> act -> verify, retried within its deadline.

Every act command runs inside `Act`:

1. `run(body)` runs tries of `body` until one succeeds. A try resolves its targets (refs
   are re-resolved after a re-render; locators wait for their element to appear), lets
   the watchdog clear known interruptions, waits for the element to be actionable (within
   the try's share of the deadline), acts, and verifies the action's postcondition.
   Failures that may pass are retried with backoff (see act/retry.py); others end
   the command at once.
2. A JavaScript dialog opened by the action stops the page: the try ends there and the
   result reports the dialog (the action finishes when the dialog is answered).
3. `result()` reports where the tab is, what the action caused (navigation, popups,
   downloads, dialogs, DOM change), what it changed on the page (unless --no-changes),
   and checks the caller's --expect-* conditions.

What the command did so far (tries, watchdog dismissals, re-resolved refs) is kept on the
Call, so a failure reports it too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from types import TracebackType
from typing import Any, Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from steadyhand.act.aim import Aim, let_go
from steadyhand.act.checks import diagnose, not_actionable
from steadyhand.act.conditions import expectations_hold
from steadyhand.act.cover import dismiss_cover
from steadyhand.act.locators import resolve_locator
from steadyhand.act.resolve import is_gone, resolve_entry, resolve_ref
from steadyhand.act.results import ActionResult, action_result
from steadyhand.act.retry import Retryable, backoff_s, classify, try_budget_ms
from steadyhand.act.timing import staged
from steadyhand.act.verify import LEFT_JS, Unverified, left_report
from steadyhand.act.watchdog import sweep
from steadyhand.act.watchdog_patterns import patterns_for
from steadyhand.call import Call
from steadyhand.engine.page_events import Mark
from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.diff import report
from steadyhand.snapshot.lookup import is_ref
from steadyhand.snapshot.page_model import MODEL
from steadyhand.snapshot.render import View, page
from steadyhand.snapshot.state import TypedField, state_of
from steadyhand.snapshot.take import take
from steadyhand.snapshot.tree import Node

# Waits until a frame goes by with no DOM mutation and no request the page started still
# pending, at most SETTLE_MAX_MS; a page that queued nothing for a frame (no animation
# frame callback, timer due, or resize/intersection observer) is quiet after a task.
SETTLE_JS = f"ms => {MODEL} ? {MODEL}.settle(ms) : null"
SETTLE_MAX_MS = 600
# DOM mutations the page model has seen in this document: the result says whether the
# action changed any.
MUTATIONS_JS = f"() => {MODEL} ? {MODEL}.mutations() : null"
LOAD_WAIT_MS = 5_000
EVIDENCE_MARGIN_MS = 300.0  # kept back from the tries: time to explain a failure
# Failures that waited for the element on every try: the message says how long, measured.
WAITED_FOR = frozenset({ErrorCode.NOT_FOUND, ErrorCode.NOT_ACTIONABLE})
REPORT_BUDGET_S = 5.0  # reading what the action changed gives up after this
WATCHDOG_MS = 1_500.0  # each dismissal (click, then wait for the banner to go)
EXPECTED_POPUP_S = 5.0  # a link that opens another tab: how long its tab may take to appear
OPENS_TAB_S = 2.0  # asking the clicked element whether it opens a tab
# Whether a clicked element is (in) a link that opens its page in another tab or window.
OPENS_TAB_JS = """e => {
  const link = e.closest && e.closest('a[href], area[href]');
  const target = ((link && link.target) || '').toLowerCase();
  return !!link && !['', '_self', '_parent', '_top'].includes(target);
}"""


def public(signal: SteadyhandError) -> SteadyhandError:
    """The act loop's own signals (Retryable, Unverified) as the error every client sees:
    the code's own class (NotActionableError, VerificationFailedError, ...), so a caller
    catches the same class in process as over the daemon."""
    return SteadyhandError(signal.code, signal.message, signal.hint, signal.data)


# How long an act's check waits before looking at why the element is not actionable yet
# (a known banner over it is dismissed then, without waiting out the try).
FIRST_LOOK_MS = 500.0


class ActOptions(Protocol):
    tab: str | None
    changes: bool | None
    watchdog: bool | None
    expect_url: str | None
    expect_text: str | None
    expect_ref_gone: str | None


class Act:
    def __init__(self, call: Call, params: ActOptions) -> None:
        self.call = call
        self.params = params
        self.detail: dict[str, Any] = {}
        self.reresolved = call.outcome.reresolved
        self.watchdog = call.outcome.watchdog
        self.changes = (
            params.changes if params.changes is not None else call.runtime.settings.act_changes
        )
        self.watching = (
            params.watchdog if params.watchdog is not None else call.runtime.settings.watchdog
        )
        self.try_ms = 0.0
        self.stopped_by_dialog = False
        self._tab: Tab | None = None
        self._url_before = ""
        self._mark: Mark | None = None
        self._pages_before: set[Any] = set()  # the context's pages when the action began
        self._ready = False
        self._counting = False
        self._mutations_before = 0
        self._unverified = 0
        self._read_after = False  # the page model was read after the action (its counter too)
        self._before: Capture | None = None  # the page as the action found it...
        self._read_before = False  # ...once the first read after it has taken it
        self._title_read = False  # ... and its title with it
        self.click_timed_out = False  # a click try timed out: the click may land late
        # The clicked element is (in) a link that opens another tab: asked before the
        # click, while its handle lives (the page may take it after).
        self.opens_tab = False
        self._left_mid_action = False  # a target was detached while a try used it
        self._cover_tried = False  # the generic banner rule ran (once per command)
        # The field this action typed into and left focused (type, fill): the next action
        # reports what the page made of its value once it was left.
        self.typed: TypedField | None = None

    @property
    def tab(self) -> Tab:
        assert self._tab is not None, "use Act as an async context manager"
        return self._tab

    @property
    def retries(self) -> int:
        return self.call.outcome.retries

    async def __aenter__(self) -> Act:
        self._tab = await self.call.tab(self.params.tab)
        self._url_before = self.tab.page.url
        self._mark = self.tab.events.mark()
        self._pages_before = set(self.tab.page.context.pages)
        self.try_ms = self.call.remaining_ms()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None or not self.changes:
            state_of(self.tab).acted_since_baseline = True

    # ------------------------------------------------------------------ tries

    async def run(self, body: Callable[[], Awaitable[None]]) -> None:
        """Run tries of `body` until one succeeds, the tries run out, or one fails for good."""
        retries = max(0, self.call.runtime.settings.act_retries)
        last: SteadyhandError | None = None
        began = time.monotonic()
        tries = 0
        for n in range(retries + 1):
            tries = n + 1
            left = self.call.remaining_ms() - EVIDENCE_MARGIN_MS
            self.try_ms = try_budget_ms(max(1.0, left), retries + 1 - n)
            try:
                with self.call.outcome.timing.stage("input"):  # less resolve and check
                    await self._until_dialog(body())
                return
            except Unverified as exc:
                self._unverified += 1
                if self._unverified >= 2:  # no effect twice: trying again will not help
                    raise public(exc) from None
                last = exc
            except Retryable as exc:
                last = exc
            except PlaywrightTimeout:
                raise
            except PlaywrightError as exc:
                retryable = classify(exc)
                if retryable is None:
                    raise
                last = retryable
            self._left_mid_action |= last.code == ErrorCode.STALE_REF
            pause = backoff_s(n + 1)
            if n == retries or self.call.remaining_ms() < pause * 1000 + EVIDENCE_MARGIN_MS:
                break
            self.call.outcome.retries += 1
            await asyncio.sleep(pause)
        assert last is not None
        if last.code in WAITED_FOR:  # how long it waited, measured over every try
            over = f" over {tries} tries" if tries > 1 else ""
            last.message += f" (waited {time.monotonic() - began:.1f} s{over})"
        raise public(last) from None

    async def _until_dialog(self, attempt: Awaitable[None]) -> None:
        """Await the try, or stop waiting when it opens a dialog (which stops the page)."""
        events = self.tab.events
        task = asyncio.ensure_future(attempt)
        if events.dialog_policy != "report":
            await task
            return
        opened = asyncio.ensure_future(events.dialog_opened.wait())
        try:
            done, _ = await asyncio.wait({task, opened}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            opened.cancel()
        if task in done:
            task.result()
            return
        events.park(task)
        self.stopped_by_dialog = True

    @asynccontextmanager
    async def target(self, spec: str) -> AsyncIterator[Aim]:
        """The element a ref or locator names, for one try."""
        if is_ref(spec):
            try:
                with self.call.outcome.timing.stage("resolve"):
                    found = await resolve_ref(self.tab, spec, self.call.remaining_ms())
            except SteadyhandError as exc:
                # A re-render that removed the element mid-action may not have put its
                # twin back yet: wait for it over the next tries. A ref already stale
                # when the command came fails at once.
                if self._left_mid_action and is_gone(exc):
                    raise Retryable(exc.code, exc.message, exc.hint, exc.data) from None
                raise
            if found.reresolved:
                self.reresolved[found.asked] = found.ref
            try:
                entry = resolve_entry(self.tab, found.ref)
                link = entry.identity.role == "link" or bool(entry.url)
                self.call.outcome.targets[spec] = entry.described()
                yield Aim(found.handle, f"{found.ref} ({entry.label()})", link)
            finally:
                let_go(found.handle)
            return
        try:
            with self.call.outcome.timing.stage("resolve"):
                handle = await resolve_locator(self.tab, spec, self.try_ms)
        except SteadyhandError as exc:
            if exc.code == ErrorCode.NOT_FOUND:  # it may appear by the next try
                raise Retryable(exc.code, exc.message, exc.hint, exc.data) from None
            raise
        self.call.outcome.targets[spec] = {"locator": spec}
        try:
            yield Aim(handle, spec)
        finally:
            let_go(handle)

    async def actionable(
        self,
        aim: Aim,
        check: Callable[[float], Awaitable[None]],
        *,
        editable: bool = False,
    ) -> None:
        """Wait (within this try) until `check` passes: Playwright's actionability checks.

        `check` must not act (a trial click, or an idempotent action such as fill). When
        it times out, the element is examined and the try fails with the reason.
        """
        running = asyncio.ensure_future(check(self.try_ms))
        try:
            if self.watching:
                # A known banner that came after the sweep (a consent box shown a moment
                # after the page) is cleared while the check waits, not once the whole try
                # has waited under it; the check itself is never sent twice.
                done, _ = await asyncio.wait({running}, timeout=FIRST_LOOK_MS / 1000)
                if not done and (await self._examine(aim, editable)).get("state") == "covered":
                    await self.sweep(aim)
            await running
            return
        except PlaywrightTimeout:
            found = await self._examine(aim, editable)
        finally:
            if not running.done():
                running.cancel()
            elif not running.cancelled():
                running.exception()  # retrieved: raised above, or left for the examination's
        if found.get("state") == "covered" and await self._dismiss_cover(aim):
            try:  # the banner is gone: the check gets another share of the deadline
                await check(max(1.0, min(self.try_ms, self._left_s() * 1000)))
                return
            except PlaywrightTimeout:
                found = await self._examine(aim, editable)
        err = not_actionable(aim.what, found)
        raise Retryable(err.code, err.message, err.hint, err.data) from None

    @staged("check")
    async def _examine(self, aim: Aim, editable: bool) -> dict[str, Any]:
        """Why the element failed its check (act/checks.py)."""
        return await diagnose(aim.handle, editable)

    async def sweep(
        self, aim: Aim | None, scanned: dict[str, Any] | None = None
    ) -> list[dict[str, str]]:
        """The watchdog's known interruptions dismissed (act/watchdog.py), reported.
        `scanned`: the page scanned for them already, in another call."""
        cleared = await sweep(
            self.tab.page,
            patterns_for(self.call.runtime.settings.watchdog_patterns),
            aim.handle if aim is not None else None,
            timeout_ms=min(WATCHDOG_MS, self.call.remaining_ms()),
            scanned=scanned,
        )
        self.watchdog.extend(cleared)
        return cleared

    @staged("check")
    async def _dismiss_cover(self, aim: Aim) -> bool:
        """Once per command, when the target stayed covered: dismiss a known interruption
        that came late, else click the one way out of the unknown banner over it
        (act/cover.py). Whether something was cleared away."""
        settings = self.call.runtime.settings
        if self._cover_tried or not self.watching:
            return False
        self._cover_tried = True
        # A known banner that showed after the sweep before acting: its own rule first (it
        # knows the library's button); the generic rule only for what no pattern knows.
        cleared = await self.sweep(aim)
        if any(entry["action"] in ("clicked", "hidden") for entry in cleared):
            return True
        if not settings.watchdog_generic_banners:
            return False
        budget = min(WATCHDOG_MS, self._left_s() * 1000)
        entry = await dismiss_cover(aim.handle, budget)
        if entry is None:
            return False
        self.watchdog.append(entry)
        return entry["action"] == "clicked"

    @staged("check")
    async def ready(
        self, aim: Aim | None = None, *, count: bool = True, sweep: bool = True
    ) -> None:
        """Call once the targets are resolved, right before acting (`aim`: the target).

        Runs the watchdog, and if the last snapshot is older than the last action (or there
        is none), reads the page as it is now, so the changes reported are this action's.
        Not earlier: reading the page hands out refs, and a ref the agent was never given
        must stay unknown. `count=False`: the caller reads the mutation count (`counted`);
        `sweep=False`: the caller runs the watchdog (`sweep`), with a fresh baseline only.
        """
        self._ready = True
        self.call.outcome.acting = True
        if self.watching and (sweep or not self.fresh_baseline()):
            await self.sweep(aim)
        if not self.fresh_baseline():
            state_of(self.tab).seen(await take(self.tab, self.call.remaining_ms()))
        if count:
            await self.ready_to_count()

    def fresh_baseline(self) -> bool:
        """The page as the agent last read it is the one to report changes against."""
        return not self.changes or state_of(self.tab).fresh_baseline()

    async def ready_to_count(self) -> None:
        """Read the page's mutation count before acting (once per command)."""
        with suppress(PlaywrightError):
            if not self._counting:
                self.counted(await self.tab.page.evaluate(MUTATIONS_JS))

    def counted(self, before: int | None) -> None:
        """The page's mutation count right before acting, as read with another call."""
        if not self._counting:
            self._counting = before is not None
            self._mutations_before = int(before or 0)

    # ------------------------------------------------------------------ result

    async def result(self, action: str, ref: str | None) -> ActionResult:
        done = await self._result(action, ref)
        done.timing = self.call.outcome.timing.shown()
        done.route = self.call.outcome.timing.route
        return done

    @staged("changes")
    async def _result(self, action: str, ref: str | None) -> ActionResult:
        assert self._ready, "an act command must call Act.ready() before acting"
        assert self._mark is not None
        events = self.tab.events
        changes: str | None = None
        dom_changed: bool | None = None
        if not self.stopped_by_dialog:
            changes, dom_changed = await self._aftermath()
        # The title as the read after the action found it; read it apart when none ran.
        title = state_of(self.tab).model.title if self._title_read else None
        done = await action_result(self.tab, action, ref, self._url_before, title, **self.detail)
        done.changes = changes
        done.dom_changed = dom_changed
        done.dialog = events.dialog_info()
        done.dialogs_answered = events.answered_since(self._mark)
        session = await self.call.session()
        popups = events.popups_since(self._mark)
        if not popups and self._expects_popup():
            popups = await events.popup_after(self._mark, min(EXPECTED_POPUP_S, self._left_s()))
            # A page its opener did not announce (a noopener link): the context has it.
            popups = popups or [
                p for p in self.tab.page.context.pages if p not in self._pages_before
            ]
        done.popups = [session.adopt(p).id for p in popups]
        done.downloads = await events.downloads_since(
            self._mark,
            min(10.0, self.call.remaining_ms() / 1000),
            expect=self._may_download(ref),
        )
        if not self.stopped_by_dialog:
            await self._left_field(done)
            await self._expectations(done)
            if done.dom_changed is False and self._expects():
                done.dom_changed = await self._dom_changed()  # the awaited effect came later
                if done.dom_changed and done.changes is not None:
                    done.changes = await self._changes()  # ...and is among the changes
        done.reresolved = self.reresolved
        done.watchdog = self.watchdog
        done.retries = self.retries
        done.duration_ms = round((time.monotonic() - self.call.started) * 1000, 1)
        self.call.outcome.downloads = done.downloads  # indexed with the action's row
        return done

    async def _left_field(self, done: ActionResult) -> None:
        """The field typed into before, once this action has left it: what the page made
        of the value then (`data.left`), when it changed it (formatted, cleared, ...)."""
        state = state_of(self.tab)
        pending, state.typed = state.typed, self.typed
        if pending is None or (self.typed is not None and self.typed.id == pending.id):
            return
        frame = state.model.frame_for_doc(self.tab.page, pending.doc)
        if frame is None:
            return  # its document is gone: nothing left to tell
        try:
            now = await asyncio.wait_for(
                frame.evaluate(LEFT_JS, [pending.doc, pending.id]), self._left_s()
            )
        except (PlaywrightError, TimeoutError):
            return
        if not now or now.get("value") is None:
            return
        if now.get("focused"):
            if state.typed is None:
                state.typed = pending  # not left yet: a later action reports it
            return
        found = left_report(pending.typed, pending.value, str(now["value"]), pending.secret)
        if found is not None:
            done.data["left"] = {"ref": pending.target, **found}

    def _left_s(self) -> float:
        return max(0.0, self.call.remaining_ms() - EVIDENCE_MARGIN_MS) / 1000

    @staged("check")
    async def opens_another_tab(self, aim: Aim) -> None:
        """Before a click: whether `aim` is (in) a link that opens another tab, so that
        the result waits for a tab Playwright announces late. Asked of links only (and of
        locators, whose elements are not known)."""
        if aim.link is False:
            return
        try:
            self.opens_tab = bool(
                await asyncio.wait_for(aim.handle.evaluate(OPENS_TAB_JS), OPENS_TAB_S)
            )
        except (PlaywrightError, TimeoutError):  # gone or busy: the click finds out
            self.opens_tab = False

    def _expects_popup(self) -> bool:
        """A click on a link that opens another tab, which has not shown yet."""
        if not self.opens_tab or self.tab.page.url != self._url_before:
            return False
        # A page stopped by a dialog opened nothing yet (it answers nothing until then).
        return not self.stopped_by_dialog and self.tab.events.pending is None

    def _may_download(self, ref: str | None) -> bool:
        """The action clicked a `download` link, or a page load it sent ended without a
        page: a download may still be announced."""
        entry = state_of(self.tab).refs.lookup(ref) if ref else None
        if entry is not None and entry.downloads:
            return True
        return bool(self.tab.log.aborted_navigations_since(self.call.started))

    async def _aftermath(self) -> tuple[str | None, bool | None]:
        """What the action changed, read within a bounded time.

        The action is done; a page that stops answering afterwards (busy, hung) must not
        turn it into a failure, so the reading gives up and says so.
        """
        budget_s = min(
            REPORT_BUDGET_S, max(0.0, self.call.remaining_ms() - EVIDENCE_MARGIN_MS) / 1000
        )

        async def read() -> tuple[str | None, bool | None]:
            await self._settle()
            changes = await self._changes() if self.changes else None
            changed = await self._dom_changed()
            if changed is False and changes and not changes.startswith("#"):
                # What a snapshot shows changed without a DOM mutation (a field's value,
                # a checkbox's state): the two never disagree.
                changed = True
            return changes, changed

        try:
            return await asyncio.wait_for(read(), budget_s)
        except TimeoutError:
            state_of(self.tab).acted_since_baseline = True
            note = (
                f"# the page did not answer within {budget_s:.1f} s after the action (busy or "
                "hung): take a snapshot to see it"
            )
            return (note if self.changes else None), None

    @staged("settle")
    async def _settle(self) -> None:
        tab = self.tab
        until = time.monotonic() + SETTLE_MAX_MS / 1000
        try:
            await tab.page.evaluate(SETTLE_JS, SETTLE_MAX_MS)
            # Requests the browser sent since the call began (a link's navigation or
            # download, which the page's own script cannot see) end before the read.
            await tab.log.quiet_since(self.call.started, until - time.monotonic())
        except PlaywrightError:
            # The action navigated: the old document (and the evaluate) went with it.
            with suppress(PlaywrightError):
                await tab.page.wait_for_load_state(
                    "load", timeout=min(LOAD_WAIT_MS, self.call.remaining_ms())
                )

    async def _dom_changed(self) -> bool | None:
        if not self._counting or self.tab.page.url != self._url_before:
            return None
        count = state_of(self.tab).model.mutations if self._read_after else None
        self._read_after = False  # a later call (an awaited effect) reads the page again
        if count is None:
            try:
                count = await self.tab.page.evaluate(MUTATIONS_JS)
            except PlaywrightError:
                return None
        if count is None or count < self._mutations_before:
            return None  # another document (the counter starts again with each)
        return count > self._mutations_before

    async def _changes(self) -> str:
        """What the action changed, read once the page has settled (read again after an
        effect the expectations waited for: against the page before the action still)."""
        tab = self.tab
        state = state_of(tab)
        if not self._read_before:
            self._before, self._read_before = state.baseline, True
        try:
            taken = await take(tab, self.call.remaining_ms())
        except (PlaywrightError, SteadyhandError) as exc:
            state.acted_since_baseline = True
            return f"# the page could not be read after the action: {str(exc).splitlines()[0]}"
        self._read_after = self._title_read = True
        seen: list[Node] = []
        text = report(self._before, taken, View(), seen, counts=False)
        state.seen(taken)
        state.refs.saw(seen)
        chunk = page(text, 0, self.call.runtime.settings.snapshot_max_chars)
        if chunk.next_offset is None:
            return chunk.text
        left = chunk.total - chunk.next_offset
        return chunk.text + f"\n[… {left:,} more characters; `snapshot` shows the whole page]"

    # ------------------------------------------------------------------ expectations

    async def _expectations(self, done: ActionResult) -> None:
        """The caller's --expect-* conditions (act/conditions.py), polled until they hold."""
        await expectations_hold(self.tab, self._expects(), done, self.call.remaining_ms)

    def _expects(self) -> list[tuple[str, str]]:
        given = (
            ("url", self.params.expect_url),
            ("text", self.params.expect_text),
            ("ref_gone", self.params.expect_ref_gone),
        )
        return [(name, value) for name, value in given if value]
