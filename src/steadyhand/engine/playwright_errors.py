"""What a Playwright (or CDP) error says happened, read from its message: the one place
that knows Playwright's wording.

Playwright raises one `Error` class for most failures; what went wrong is only in the
text. Each reader below names one situation; the callers decide what it means for them
(retry, a taxonomy code, a failed probe).
"""

from __future__ import annotations

import re

# The page, context or browser went away under a call (or its renderer died).
_GONE = re.compile(r"has been closed|Target closed|Browser closed|Connection closed|crashed")
# The tab, frame or element's document was closed or detached (the browser may live on).
_CLOSED = ("has been closed", "Target closed", "has been detached")
_RENDERER_CRASHED = re.compile(r"\b(Target|Page) crashed")
_DETACHED = ("not attached to the DOM", "Element is detached")
_NAVIGATED = "Execution context was destroyed"
# Playwright's refusals to pass an element of another frame's document into this one.
_FOREIGN = (
    "Unable to adopt element handle from a different document",
    "JSHandles can be evaluated only in the context they were created",
)
_API_PREFIX = re.compile(r"^\w+\.\w+: ")  # "Page.evaluate_handle: "


def browser_gone(text: str) -> bool:
    """The page, context or browser went away, or a renderer crashed."""
    return bool(_GONE.search(text))


def target_closed(text: str) -> bool:
    """The tab, frame or element's document was closed or detached."""
    return any(words in text for words in _CLOSED)


def renderer_crashed(first: str) -> bool:
    """The tab's renderer died (SIGKILL, out of memory), whether or not the tab closed."""
    return bool(_RENDERER_CRASHED.search(first))


def element_detached(text: str) -> bool:
    """The element was removed or re-rendered while the call waited for it."""
    return any(words in text for words in _DETACHED)


def navigated(text: str) -> bool:
    """The page navigated (its document, and the call's context, went away)."""
    lines = text.strip().splitlines()
    return _NAVIGATED in text or (bool(lines) and "navigat" in lines[0].lower())


def script_interrupted(text: str) -> bool:
    """A script stopped because its page navigated, closed or lost its frame, not because
    of anything in the script."""
    return _NAVIGATED in text or target_closed(text) or "detached" in text


def load_failed(text: str) -> bool:
    """Chromium could not load the URL (`net::ERR_...`)."""
    return "net::ERR_" in text


def first_line_of(text: str) -> str:
    """The message's first line, without Playwright's `Class.method: ` prefix."""
    lines = _API_PREFIX.sub("", text.strip()).splitlines()
    return lines[0] if lines else ""


def context_destroyed(text: str) -> bool:
    """The document a read ran in went away mid-read (the page navigated)."""
    return _NAVIGATED in text


def click_dispatched(text: str) -> bool:
    """The call log says the click was dispatched before the call failed."""
    return "click action done" in text


def unknown_key(text: str) -> bool:
    """`press` was given a key name Playwright does not know."""
    return "Unknown key" in text


def state_unchanged(text: str) -> bool:
    """`check`/`uncheck` clicked, but the box did not change its state."""
    return "did not change its state" in text


def screenshot_unavailable(text: str) -> bool:
    """Chromium could not capture a screenshot right now (a page mid-navigation)."""
    return "Unable to capture screenshot" in text


def bad_selector(text: str) -> bool:
    """A CSS or Playwright selector did not parse."""
    return "selector" in text.lower()


def foreign_handle(text: str) -> bool:
    """An element handle was used in another document than its own."""
    return any(words in text for words in _FOREIGN)
