"""Locators: name an element by what it is instead of by ref.

Forms (the vocabulary of Playwright's own locators):

    role=button[name="Save"]   role=checkbox[name="Terms"][checked]   role=heading[level=2]
    text=Save (substring, any case)        text="Save" (whole text, exact)
    label=Email   placeholder=Search   testid=submit   (quoted: exact)
    css=form .primary   xpath=//button[1]

Several forms joined by ` || ` are tried in turn: the first that matches anything is used.
A form matching more than one element is `ambiguous` (the candidates are listed), never a
silent first match. Locators look in the tab's main frame; refs reach into iframes.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from playwright.async_api import ElementHandle, Locator, Page
from playwright.async_api import Error as PlaywrightError

from steadyhand.act.watchdog import left_ms
from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.candidates import with_refs
from steadyhand.snapshot.lookup import LOCATOR_PREFIXES as PREFIXES

FORMS_HINT = (
    'a ref from a snapshot (e12), or a locator: role=button[name="Save"], text=Save, '
    "label=Email, placeholder=Search, testid=submit, css=SELECTOR, xpath=PATH; "
    "join alternatives with ' || '"
)
_ROLE = re.compile(r"^([a-z]+)((?:\[[^\]]*\])*)$")
_ROLE_ATTR = re.compile(r"\[\s*([a-z-]+)\s*(?:=\s*(\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\]]*?))?\s*\]")
POLL_S = 0.1
MAX_CANDIDATES = 10
CANDIDATES_MS = 5000  # reading the page to name the candidates

DESCRIBE_JS = """e => {
  const tag = e.tagName.toLowerCase();
  const name = (e.getAttribute('aria-label') || e.innerText || e.value || e.textContent || '')
    .trim().replace(/\\s+/g, ' ').slice(0, 60);
  const id = e.id ? '#' + e.id : '';
  return `${e.getAttribute('role') || tag}${id}${name ? ' "' + name + '"' : ''}`;
}"""


@dataclass(frozen=True)
class Alternative:
    text: str
    prefix: str
    value: str


def parse(spec: str) -> list[Alternative]:
    """The alternatives of a locator spec; `bad_request` naming the part that is wrong."""
    found = []
    for part in (p.strip() for p in spec.split("||")):
        prefix, sep, value = part.partition("=")
        if not sep or prefix not in PREFIXES or not value.strip():
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST, f"{part!r} is not a ref or a locator", FORMS_HINT
            )
        if prefix == "role" and not _ROLE.match(value.strip()):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f'{part!r}: a role locator is role=ROLE[name="..."][other=value]...',
                FORMS_HINT,
            )
        found.append(Alternative(part, prefix, value.strip()))
    return found


def _text_value(value: str) -> tuple[str, bool]:
    """(text, exact): a quoted value is matched whole and case-sensitively."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return (json.loads(value) if value[0] == '"' else value[1:-1]), True
    return value, False


def to_locator(page: Page, alt: Alternative) -> Locator:
    if alt.prefix in ("css", "xpath"):
        return page.locator(f"{alt.prefix}={alt.value}")
    if alt.prefix == "role":
        return _role_locator(page, alt.value)
    text, exact = _text_value(alt.value)
    if alt.prefix == "text":
        return page.get_by_text(text, exact=exact)
    if alt.prefix == "label":
        return page.get_by_label(text, exact=exact)
    if alt.prefix == "placeholder":
        return page.get_by_placeholder(text, exact=exact)
    return page.get_by_test_id(text)


def _role_locator(page: Page, value: str) -> Locator:
    match = _ROLE.match(value)
    assert match is not None  # parse() checked
    role, attrs = match.group(1), match.group(2)
    options: dict[str, Any] = {}
    for key, given in _ROLE_ATTR.findall(attrs):
        raw = given.strip()
        if key == "name":
            text, exact = _text_value(raw)
            options["name"], options["exact"] = text, exact or options.get("exact", False)
        elif key == "exact":
            options["exact"] = True
        elif key == "level":
            options["level"] = int(raw)
        elif key in ("checked", "disabled", "expanded", "pressed", "selected", "include-hidden"):
            flag = raw.lower() not in ("false", "0")
            options[key.replace("-", "_")] = flag
        else:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"role locator: unknown attribute [{key}]",
                'use [name="..."], [exact], [level=N], [checked], [disabled], [expanded], '
                "[pressed], [selected]",
            )
    return page.get_by_role(role, **options)  # type: ignore[arg-type]


async def resolve_locator(tab: Tab, spec: str, wait_ms: float) -> ElementHandle:
    """The one element the spec names, waiting up to `wait_ms` for it to appear.

    `not_found` when nothing matched in time; `ambiguous` with the candidates, each with
    a ref and its context, when the first alternative that matches anything matches several.
    """
    page = tab.page
    alternatives = parse(spec)
    deadline = time.monotonic() + wait_ms / 1000
    while True:
        for alt in alternatives:
            locator = to_locator(page, alt)
            try:
                count = await locator.count()
            except PlaywrightError as exc:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"locator {alt.text!r} is not valid: {str(exc).splitlines()[0]}",
                    FORMS_HINT,
                ) from exc
            if count == 1:
                handle = await locator.element_handle(timeout=max(1.0, wait_ms))
                if handle is not None:
                    return handle
            if count > 1:
                raise await _ambiguous(tab, locator, alt, count, wait_ms)
        if time.monotonic() >= deadline:
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                f"no element matches {spec!r}",  # the act loop says how long it waited
                "take a snapshot to see what the page has; check the name's spelling and "
                "case, or use text=/label= for a looser match",
                {"locator": spec},
            )
        await asyncio.sleep(POLL_S)


async def _ambiguous(
    tab: Tab, locator: Locator, alt: Alternative, count: int, wait_ms: float
) -> SteadyhandError:
    # Within the try's budget (at least half a second): naming them must not outlast it.
    budget_ms = max(500.0, min(CANDIDATES_MS, wait_ms))
    deadline = time.monotonic() + budget_ms / 1000
    handles: list[ElementHandle] = []
    for i in range(min(count, MAX_CANDIDATES)):
        with suppress(PlaywrightError):
            handle = await locator.nth(i).element_handle(timeout=left_ms(deadline))
            if handle is not None:
                handles.append(handle)
    try:
        candidates = await with_refs(tab, handles, left_ms(deadline))
        if candidates is None:
            candidates = []
            for handle in handles:
                try:
                    candidates.append(str(await handle.evaluate(DESCRIBE_JS)))
                except PlaywrightError:
                    candidates.append("(gone)")
    finally:
        for handle in handles:
            with suppress(PlaywrightError):
                await handle.dispose()
    more = f" and {count - len(handles)} more" if count > len(handles) else ""
    return SteadyhandError(
        ErrorCode.AMBIGUOUS,
        f"{alt.text!r} matches {count} elements: " + "; ".join(candidates) + more,
        "act on the one you mean by its ref (each candidate has one now), or make the "
        'locator name one: add [name="..."], quote the text for an exact match, use a '
        "narrower css=",
        {"locator": alt.text, "count": count, "candidates": candidates},
    )
