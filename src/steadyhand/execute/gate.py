"""The gate execute/run.py runs before a command's deadline starts: does this call need a
person's approval, and if so, ask and wait; a refusal is `approval_denied`.

What the policy decides on is read without acting on the page: a ref's role, name and
link URL come from the tab's ref registry. A locator (role=, text=, css=...) has no entry
there, so its elements' names are read from the page once (bounded by LOCATOR_READ_S);
the locator's own text counts too, for an element that is not on the page yet.

`fill`, `type --submit` and Enter/Space (on a ref, a locator or the focused element) are
read the same way: the field's name and value, the form they submit (its submit buttons'
names and where it is sent), the control they activate. A navigation to an
approval_domains host that an act did not announce (a script, a redirect, a form the
page sends itself) is held at the connection by the session's proxy until a person
decides (engine/nav_proxy.py asks through `Approvals.hold`).

Known gaps (not gated): `evaluate` (a deployment that gates turns allow_evaluate off), and
a css=/xpath=/testid= locator whose element appears only after the command started.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from steadyhand.act.locators import parse as parse_locator
from steadyhand.act.locators import to_locator
from steadyhand.act.resolve import element
from steadyhand.approvals.policy import Element, Form, Policy
from steadyhand.approvals.registry import DENIED, EXPIRED, Decision
from steadyhand.call import Call
from steadyhand.commands import Command
from steadyhand.commands.table import SUBMIT
from steadyhand.engine.session import Tab
from steadyhand.engine.urls import normalize_url
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.redact import redact, redact_url
from steadyhand.snapshot.lookup import is_ref
from steadyhand.snapshot.state import state_of
from steadyhand.snapshot.tree import parse as parse_tree

LOCATOR_READ_S = 2.0
# What an act that presses a key on an element (null: none) would set off: whether it is a
# control that Enter/Space activates, its name and link, and the form it would submit.
ELEMENT_JS = """el => {
  if (!el || el.nodeType !== 1) return null;
  const label = e => (e.getAttribute("aria-label") || e.value || e.textContent || "").trim();
  const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute("type") || "").toLowerCase();
  const form = el.form || el.closest("form");
  const submits = form ? [...form.querySelectorAll(
    "button:not([type]), button[type=submit], input[type=submit], input[type=image]")] : [];
  return {
    tag, name: label(el).slice(0, 200), href: el.href || "",
    activates: ["button", "a", "summary"].includes(tag) || ["submit", "button", "checkbox",
      "radio", "image", "reset"].includes(type) || el.getAttribute("role") === "button",
    form: form ? {action: form.action || location.href,
                  submits: submits.map(label).filter(Boolean).slice(0, 10)} : null,
  };
}"""
MAX_LOCATOR_ELEMENTS = 10


@dataclass(frozen=True)
class Need:
    """Why a call needs approval, and what it acts on, in words for a person."""

    target: str
    reason: str
    url: str = ""  # where it goes, when it is a navigation (absolute)


async def gate(call: Call, spec: Command, params: Any, raw: dict[str, Any]) -> bool:
    """Ask for approval when the call needs it; True if it waited (and was approved).

    Raises `approval_denied` when a person denied it, nobody decided in time, or the
    daemon stopped meanwhile.
    """
    approvals = call.runtime.approvals
    command = spec.name
    need = await need_for(approvals.policy, spec, call, params)
    if need is None:
        return False
    decision = await approvals.request(
        session=call.session_name,
        command=command,
        target=need.target,
        reason=need.reason,
        params=shown_params(call, raw),
        notify=call.notify,
    )
    call.approval = decision
    if not decision.approved:
        raise denied(command, need, decision)
    if need.url:  # its pages may now connect there without asking again
        approvals.grant(call.session_name, need.url)
    return True


async def need_for(policy: Policy, spec: Command, call: Call, params: Any) -> Need | None:
    command = spec.name
    rule = spec.gate_rule
    if rule.always:
        return Need("", str(params.reason))
    asked = rule.asks(params) if rule.asks is not None else None
    if asked is not None:
        return Need(command, asked)
    if not policy.active:
        return None
    if spec.navigates:
        url = _url(getattr(params, "url", None))
        reason = policy.navigation(command, url) if url else None
        return Need(redact_url(url), reason, url) if reason else None
    if rule.files:
        reason = policy.upload()
        if reason is None:
            return None
        # A file outside the roots is refused (files_policy.py) before a person is asked.
        await call.input_paths(params.files, command)
        names = ", ".join(Path(p).name for p in params.files)
        return Need(f"{await _describe(call, params)} <- {names}", reason)
    if not (policy.names or policy.domains):
        return None
    if rule.fields:
        return await _fill_need(policy, call, params)
    pressed = rule.presses(params) if rule.presses is not None else None
    if pressed is not None:
        need = await _submit_need(policy, command, call, params, pressed)
        if need is not None or params.ref is None:
            return need
    target = getattr(params, "ref", None)
    if not spec.on_element or target is None:
        return None
    tab = await _tab(call, params)
    values = rule.picks(params) if rule.picks is not None else ()
    if is_ref(target):
        entry = state_of(tab).refs.lookup(target)
        if entry is None:
            return None  # unknown or stale: the command fails on it without acting
        element = Element(entry.identity.role, entry.identity.name, entry.url)
        reason = policy.element(command, element, tab.page.url, values)
        link = urljoin(tab.page.url, entry.url) if entry.url else ""
        return Need(f"{target} ({element.label()})", reason, link) if reason else None
    reason = policy.locator(command, target)
    if reason is not None:
        return Need(target, reason)
    for element in await locator_elements(tab.page, target):
        reason = policy.element(command, element, tab.page.url, values)
        if reason is not None:
            return Need(f"{target} ({element.label()})", reason)
    return None


async def _fill_need(policy: Policy, call: Call, params: Any) -> Need | None:
    """A field of a `fill` whose name, or the value given for it, matches approval_names."""
    if policy.names is None:
        return None
    tab = await _tab(call, params)
    for spec, value in params.fields.items():
        entry = state_of(tab).refs.lookup(spec) if is_ref(spec) else None
        element = Element(entry.identity.role, entry.identity.name) if entry else None
        if element is None:  # a locator: its elements as the page has them now
            found = await locator_elements(tab.page, spec)
            element = found[0] if found else Element("field", spec)
        reason = policy.field(element, str(value))
        if reason is not None:
            return Need(f"{spec} ({element.label()})", reason)
    return None


async def _submit_need(
    policy: Policy, command: str, call: Call, params: Any, pressed: str
) -> Need | None:
    """`type --submit`, or Enter/Space pressed on an element (the focused one without a
    ref): the form it submits, or the element it activates as a click would."""
    tab = await _tab(call, params)
    spec = params.ref
    facts = await _element_facts(tab, spec, call)
    if facts is None:
        return None  # gone, or the page does not answer: the act itself fails on it
    what = spec or f"the focused {facts['tag']}"
    submits = pressed == SUBMIT
    key = "" if submits else pressed
    if facts["activates"] and key:  # a button, link, checkbox ...: pressing it clicks it
        entry = state_of(tab).refs.lookup(spec) if spec and is_ref(spec) else None
        element = (
            Element(entry.identity.role, entry.identity.name, entry.url)
            if entry
            else Element(facts["tag"], facts["name"], facts["href"])
        )
        reason = policy.element(command, element, tab.page.url)
        if reason is not None:
            return Need(f"{what} ({element.label()})", reason)
    form = facts["form"]
    if form is None or not (submits or key == "Enter"):
        return None
    reason = policy.form(command, what, Form(form["action"], tuple(form["submits"])))
    return Need(what, reason) if reason else None


async def _element_facts(tab: Tab, spec: str | None, call: Call) -> dict[str, Any] | None:
    """ELEMENT_JS's answer for the ref's, the locator's or the focused element."""
    page = tab.page
    try:
        if spec is None:
            read = page.evaluate(f"({ELEMENT_JS})(document.activeElement)")
        elif is_ref(spec):
            return await _ref_facts(tab, spec, call)
        else:
            locator = to_locator(page, parse_locator(spec)[0]).first
            read = locator.evaluate(ELEMENT_JS, timeout=LOCATOR_READ_S * 1000)
        found: dict[str, Any] | None = await asyncio.wait_for(read, LOCATOR_READ_S)
        return found
    except (TimeoutError, PlaywrightError, SteadyhandError):
        return None


async def _ref_facts(tab: Tab, ref: str, call: Call) -> dict[str, Any] | None:
    try:
        async with element(tab, ref, min(LOCATOR_READ_S * 1000, call.remaining_ms())) as target:
            found: dict[str, Any] | None = await asyncio.wait_for(
                target.handle.evaluate(ELEMENT_JS), LOCATOR_READ_S
            )
            return found
    except (TimeoutError, PlaywrightError, SteadyhandError):
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
    entry = state_of(tab).refs.lookup(params.ref) if is_ref(params.ref) else None
    return f"{params.ref} ({entry.label()})" if entry else str(params.ref)


def _url(raw: str | None) -> str:
    if not raw:
        return ""
    try:
        return normalize_url(raw)
    except SteadyhandError:
        return ""  # the command refuses it without loading anything
