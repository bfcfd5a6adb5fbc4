"""Playwright's failures as the taxonomy's errors: the one place that decides what a
Playwright error means for the caller (engine/playwright_errors.py reads its wording).

`translate` answers for a command that failed (execute/run.py); `raced` is the part of it
the act loop retries (act/retry.py): the element re-rendered or the page navigated under
the call, which another try may not meet.
"""

from __future__ import annotations

import logging

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from steadyhand.engine import playwright_errors
from steadyhand.errors import ErrorCode, SteadyhandError, first_line

log = logging.getLogger("steadyhand.execute")

TIMEOUT_HINT = (
    "the page may be busy or hung, or the element hidden, covered or disabled; the daemon "
    "and other tabs are unaffected: take a new snapshot to see why, close the tab, or raise "
    "--timeout"
)


def raced(exc: BaseException) -> SteadyhandError | None:
    """The element was removed or re-rendered, or the page navigated, while the call ran
    (not a page that failed to load); None for anything else."""
    text = str(exc)
    if playwright_errors.element_detached(text):
        return SteadyhandError(
            ErrorCode.STALE_REF,
            "the element was removed or re-rendered while the action waited for it",
            "take a new snapshot and use a ref from it",
        )
    if playwright_errors.navigated(text) and not playwright_errors.load_failed(text):
        return SteadyhandError(
            ErrorCode.NAVIGATION_FAILED,
            f"the page navigated while the command ran: {first_line(exc)}",
            "wait for the page to settle (`wait --load load`), then take a new snapshot",
        )
    return None


def translate(
    exc: BaseException, browser_running: bool = True, tab_closed: bool = False
) -> SteadyhandError:
    """Map a Playwright (or unexpected) failure onto the taxonomy.

    `tab_closed`: the command's tab is closed now, so whatever Playwright said on the way
    (an element "not attached", a frame "detached") was the close.
    """
    text = str(exc)
    first = first_line(exc)
    if isinstance(exc, PlaywrightTimeout):
        return SteadyhandError(ErrorCode.TIMEOUT, first, TIMEOUT_HINT)
    if not isinstance(exc, PlaywrightError):
        log.exception("internal error", exc_info=exc)
        return SteadyhandError(
            ErrorCode.INTERNAL,
            f"{type(exc).__name__}: {first}",
            "see the daemon log; please report",
        )
    if playwright_errors.renderer_crashed(first):  # whether or not the crash closed the tab
        return SteadyhandError(
            ErrorCode.BROWSER_CRASHED,
            f"the tab's renderer crashed while the command ran: {first}",
            "its session is recovered from its last checkpoint: take a new snapshot (refs "
            "from before are stale), check whether the action took effect, then retry",
        )
    if tab_closed and browser_running:
        return _closed_under(first)
    met = raced(exc)
    if met is not None:
        return met
    if playwright_errors.load_failed(text):
        return SteadyhandError(
            ErrorCode.NAVIGATION_FAILED, first, "check the URL and that the server is up"
        )
    if playwright_errors.target_closed(text):
        if browser_running:
            return _closed_under(first)
        return SteadyhandError(
            ErrorCode.BROWSER_CRASHED,
            first,
            "the browser went away; open the page again and a new browser starts",
        )
    return SteadyhandError(
        ErrorCode.ACTION_FAILED, first, "take a new snapshot and check the element's state"
    )


def _closed_under(first: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.ACTION_FAILED,
        f"the tab, frame or session was closed while the command ran: {first}",
        "list what is open with `tabs` or `sessions`",
    )
