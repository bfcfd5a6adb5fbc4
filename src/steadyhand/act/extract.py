"""Read content out of a page: its text, attributes, tables, or the page as Markdown.

Each read is one evaluate of `extract.js` over the elements in scope: the page's body,
one element, or every element a selector matches.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from playwright.async_api import ElementHandle, Page
from playwright.async_api import Error as PlaywrightError

from steadyhand.engine import playwright_errors
from steadyhand.errors import ErrorCode, SteadyhandError

Kind = Literal["text", "attr", "table", "markdown"]

EXTRACT_JS = Path(__file__).with_name("extract.js").read_text()
_PAGE_JS = f"args => ({EXTRACT_JS})([document.body || document.documentElement], args)"
_ELEMENT_JS = f"(element, args) => ({EXTRACT_JS})([element], args)"
_ELEMENTS_JS = f"(elements, args) => ({EXTRACT_JS})(elements, args)"


def _args(kind: Kind, name: str | None) -> dict[str, Any]:
    return {"kind": kind, "name": name}


async def read_page(page: Page, kind: Kind, name: str | None = None) -> dict[str, Any]:
    """Read the whole page."""
    found: dict[str, Any] = await page.evaluate(_PAGE_JS, _args(kind, name))
    return found


async def read_element(
    handle: ElementHandle, kind: Kind, name: str | None = None
) -> dict[str, Any]:
    """Read one element (and what it contains)."""
    found: dict[str, Any] = await handle.evaluate(_ELEMENT_JS, _args(kind, name))
    return found


async def read_selector(
    page: Page, selector: str, kind: Kind, name: str | None = None
) -> dict[str, Any]:
    """Read every element matching `selector` (Playwright's CSS: open shadow roots too)."""
    try:
        found: dict[str, Any] = await page.locator(selector).evaluate_all(
            _ELEMENTS_JS, _args(kind, name)
        )
    except PlaywrightError as exc:
        if not playwright_errors.bad_selector(str(exc)):
            raise
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"--selector {selector!r} is not a valid selector",
            "give a CSS selector, e.g. 'main article' or 'table#prices'",
        ) from exc
    if not found["matched"]:
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"no element matches --selector {selector!r}",
            "check the selector against the page (a snapshot shows the page)",
        )
    return found
