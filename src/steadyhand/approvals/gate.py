"""The gate dispatch runs before a command's deadline starts: does this call need a
person's approval, and if so, ask and wait; a refusal is `approval_denied`.

What the policy decides on is read without acting on the page: a ref's role, name and
link URL come from the tab's ref registry. A locator (role=, text=, css=...) has no entry
there, so its elements' names are read from the page once (bounded by LOCATOR_READ_S);
the locator's own text counts too, for an element that is not on the page yet.

Known gaps (not gated): `press KEY` without --ref (the focused element is not known),
`type --submit` and `fill` (Enter in a form submits it), `evaluate`, a click on something
other than a link that navigates to a listed domain, redirects, and a css=/xpath=/testid=
locator whose element appears only after the command started.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from steadyhand.actions.locators import parse as parse_locator
from steadyhand.actions.locators import to_locator
from steadyhand.approvals.policy import ELEMENT_ACTS, NAVIGATIONS, Element, Policy
from steadyhand.approvals.registry import DENIED, EXPIRED, Decision
from steadyhand.call import Call
from steadyhand.engine.session import Tab
from steadyhand.engine.urls import normalize_url
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.lookup import is_ref
from steadyhand.snapshot.tree import parse as parse_tree
from steadyhand.store.redact import redact, redact_url

LOCATOR_READ_S = 2.0
MAX_LOCATOR_ELEMENTS = 10
EXPLICIT = "request_approval"  # the agent asks a person; always gated


@dataclass(frozen=True)
class Need:
    """Why a call needs approval, and what it acts on, in words for a person."""

    target: str
    reason: str


async def gate(call: Call, command: str, params: Any, raw: dict[str, Any]) -> bool:
    """Ask for approval when the call needs it; True if it waited (and was approved).

    Raises `approval_denied` when a person denied it, nobody decided in time, or the
    daemon stopped meanwhile.
    """
    approvals = call.runtime.approvals
    need = await need_for(approvals.policy, command, call, params)
    if need is None:
        return False
    decision = await approvals.request(
        session=call.session_name,
        command=command,
        target=need.target,
        reason=need.reason,
        params=shown_params(call, raw),
    )
    call.approval = decision
    if not decision.approved:
        raise denied(command, need, decision)
    return True


async def need_for(policy: Policy, command: str, call: Call, params: Any) -> Need | None:
    if command == EXPLICIT:
        return Need("", str(params.reason))
    if not policy.active:
        return None
    if command in NAVIGATIONS:
        url = _url(getattr(params, "url", None))
        reason = policy.navigation(command, url) if url else None
        return Need(redact_url(url), reason) if reason else None
    if command == "upload":
        reason = policy.upload()
        if reason is None:
            return None
        # A file outside the roots is refused (files_policy.py) before a person is asked.
        await call.input_paths(params.files, "upload")
        names = ", ".join(Path(p).name for p in params.files)
        return Need(f"{await _describe(call, params)} <- {names}", reason)
    spec = getattr(params, "ref", None)
    if command not in ELEMENT_ACTS or spec is None or not (policy.names or policy.domains):
        return None  # press without a ref acts on the focused element: not known here
    tab = await _tab(call, params)
    values = tuple(getattr(params, "values", ()) or ())
    if is_ref(spec):
        entry = tab.refs.lookup(spec)
        if entry is None:
            return None  # unknown or stale: the command fails on it without acting
        element = Element(entry.identity.role, entry.identity.name, entry.url)
        reason = policy.element(command, element, tab.page.url, values)
        return Need(f"{spec} ({element.label()})", reason) if reason else None
    reason = policy.locator(command, spec)
    if reason is not None:
        return Need(spec, reason)
    for element in await locator_elements(tab.page, spec):
        reason = policy.element(command, element, tab.page.url, values)
        if reason is not None:
            return Need(f"{spec} ({element.label()})", reason)
    return None


def denied(command: str, need: Need, decision: Decision) -> SteadyhandError:
    note = f": {decision.note}" if decision.note else ""
    hint = {
        DENIED: "a person said no: do not try it again unchanged; ask the user what to do instead",
        EXPIRED: "nobody decided in time: ask the user to look at `steadyhand approvals` "
        "(or raise approval_timeout_s), then try again",
    }.get(decision.status, "the daemon stopped while it waited; nothing was done")
    return SteadyhandError(
        ErrorCode.APPROVAL_DENIED,
        f"{command} was not approved ({decision.status}{note}); nothing was done",
        hint,
        {"approval": decision.id, "decision": decision.status, "reason": need.reason}
        | ({"note": decision.note} if decision.note else {}),
    )


def shown_params(call: Call, raw: dict[str, Any]) -> dict[str, Any]:
    """The call's params as the action log keeps them: typed text and URL secrets hidden."""
    params = redact({k: v for k, v in raw.items() if k != "session"}, call.redactions)
    if isinstance(params.get("url"), str):
        params["url"] = redact_url(params["url"])
    return params


async def locator_elements(page: Page, spec: str) -> list[Element]:
    """The elements a locator matches now (none if it is invalid or the page is slow)."""
    try:
        return await asyncio.wait_for(_read_locator(page, spec), LOCATOR_READ_S)
    except (TimeoutError, PlaywrightError, SteadyhandError):
        return []


async def _read_locator(page: Page, spec: str) -> list[Element]:
    for alternative in parse_locator(spec):  # the first that matches anything, as acting does
        locator = to_locator(page, alternative)
        count = min(await locator.count(), MAX_LOCATOR_ELEMENTS)
        if count:
            found = []
            for i in range(count):
                text = await locator.nth(i).aria_snapshot(timeout=LOCATOR_READ_S * 1000)
                for node in parse_tree(text).children[:1]:
                    name = node.name or (node.text or "")
                    found.append(Element(node.role, name, node.props.get("url", "")))
            return found
    return []


async def _tab(call: Call, params: Any) -> Tab:
    """The tab the command will act on (without the checks acting needs, e.g. dialogs).

    The command is pinned to it: refs are numbered per tab, so if another call made a
    different tab current during the wait, the same ref there would be another element.
    """
    tab = (await call.session()).tab(params.tab)
    call.tab_id = params.tab = tab.id
    return tab


async def _describe(call: Call, params: Any) -> str:
    tab = await _tab(call, params)
    entry = tab.refs.lookup(params.ref) if is_ref(params.ref) else None
    return f"{params.ref} ({entry.label()})" if entry else str(params.ref)


def _url(raw: str | None) -> str:
    if not raw:
        return ""
    try:
        return normalize_url(raw)
    except SteadyhandError:
        return ""  # the command refuses it without loading anything
