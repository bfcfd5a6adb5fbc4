"""Commands that act on elements with keys and clicks: click, type, fill, press.

(select, check, uncheck, hover, drag and select-text: act_pointer_and_choice.py.)

Each takes a ref (`e12`) or a locator (`role=button[name="Save"]`, `text=Save`, ...), and
runs as tries of precondition -> act -> verify inside `Act` (see steadyhand/act/loop.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Literal

from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from steadyhand.act.aim import Aim
from steadyhand.act.checks import not_actionable
from steadyhand.act.loop import Act
from steadyhand.act.own_input import (
    Aimed,
    insert_text,
    mouse_events,
    own_aim,
    ready_on_page,
    release,
    send_all,
)
from steadyhand.act.pixel_mask import mask_field
from steadyhand.act.resolve import NAVIGATED
from steadyhand.act.results import ActionResult
from steadyhand.act.retry import Retryable
from steadyhand.act.verify import (
    TYPED_JS,
    Unverified,
    check_value,
    field_value,
)
from steadyhand.call import Call
from steadyhand.commands.table import SUBMIT, GateRule, TabParams, command, positional
from steadyhand.engine import playwright_errors
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.page_model import MODEL_OF_E
from steadyhand.snapshot.state import TypedField
from steadyhand.vault import REFERENCE, only_references, reference, uses_secret

# Whether the page handles key events on the element itself: then typing sends keys.
LISTENS_FOR_KEYS_JS = f"e => !!{MODEL_OF_E}?.listensForKeys(e)"
# The page model's mutation count in an element's own document.
FRAME_MUTATIONS_JS = f"e => {MODEL_OF_E} ? {MODEL_OF_E}.mutations() : null"
TARGET_HELP = (
    'element ref (e12) or locator (role=button[name="Save"], text=..., label=..., css=...)'
)


class ActParams(TabParams):
    changes: bool | None = Field(
        None, description="report what the action changed on the page (default: act_changes)"
    )
    watchdog: bool | None = Field(
        None, description="dismiss known banners and modals first (default: watchdog setting)"
    )
    expect_url: str | None = Field(
        None, description="after acting, the URL must contain this (or match it, with *)"
    )
    expect_text: str | None = Field(None, description="after acting, the page must show this text")
    expect_ref_gone: str | None = Field(
        None, description="after acting, this ref must be gone or hidden (e.g. a dialog's)"
    )


class RefParams(ActParams):
    ref: str = positional(TARGET_HELP)


async def act_on_ref(
    call: Call,
    params: RefParams,
    action: str,
    do: Any,
) -> ActionResult:
    """Resolve the target, act on that very element (with retries), report what happened.

    `do(handle)` acts and returns what the result's `data` should say.
    """
    async with Act(call, params) as act:

        async def body() -> None:
            async with act.target(params.ref) as aim:
                await act.ready()
                act.detail.update(await do(aim.handle) or {})

        await act.run(body)
    return await act.result(action, params.ref)


# ---------------------------------------------------------------------- click

Modifier = Literal["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]


class ClickParams(RefParams):
    double: bool = Field(False, description="double-click (as --count 2)")
    count: int = Field(
        1, ge=1, le=3, description="clicks in a row: 2 double-clicks, 3 selects a paragraph"
    )
    button: Literal["left", "right", "middle"] = Field("left", description="mouse button")
    modifiers: list[Modifier] = Field(
        default_factory=list, description="keys held during the click: Alt Control Meta Shift"
    )
    x: float | None = Field(None, description="click this far from the element's left edge")
    y: float | None = Field(None, description="click this far from the element's top edge")


def _click_options(params: ClickParams) -> dict[str, Any]:
    if (params.x is None) != (params.y is None):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "a click position needs both --x and --y",
            "give both offsets from the element's top-left corner, or neither for its centre",
        )
    if params.double and params.count not in (1, 2):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"--double is two clicks, --count asks for {params.count}",
            "give one of them: --double, or --count 1-3",
        )
    options: dict[str, Any] = {
        "button": params.button,
        "click_count": 2 if params.double else params.count,
        "modifiers": list(params.modifiers),
    }
    if params.x is not None and params.y is not None:
        options["position"] = {"x": params.x, "y": params.y}
    return options


@command("click", acts=True, on_element=True)
async def click(call: Call, params: ClickParams) -> ActionResult:
    """Click an element; reports navigation, popups, dialogs and downloads it caused."""
    options = _click_options(params)
    async with Act(call, params) as act:
        await act.run(lambda: click_once(act, params.ref, options))
    return await act.result("click", params.ref)


LATE_NAVIGATION_S = 0.2  # after a failed try: time for a navigation it started to commit


async def click_once(act: Act, spec: str, options: dict[str, Any]) -> None:
    """One try of a click on the element `spec` names.

    Playwright dispatches the click only once its checks pass, and blocks events that would
    land on another element, so a click that timed out before "click action done" did
    nothing: the next try (after the watchdog has had another look) may click again. A
    trial click first would leave a gap in which a late modal covers the element and the
    real click waits out the deadline.
    """
    try:
        async with act.target(spec) as aim:
            await _click_try(act, aim, options)
    except SteadyhandError as exc:
        # An earlier try timed out around the moment Playwright clicked, and the tab has
        # left the document since: that click landed (seen under 16 parallel sessions);
        # the result reports where the tab is now.
        if not (exc.code == ErrorCode.STALE_REF and exc.data.get("reason") == NAVIGATED):
            raise
        if not act.click_timed_out:
            raise
        act.detail["late_click"] = "the click landed as its try timed out; the tab navigated"


# Whether the element lies (partly) outside what its scroll boxes or the viewport show:
# a virtual grid's row rendered ahead of the scroll, say.
OUT_OF_VIEW_JS = """e => {
  const r = e.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return false;
  const out = b => r.top < b.top - 1 || r.bottom > b.bottom + 1 || r.left < b.left - 1
    || r.right > b.right + 1;
  for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
    const s = getComputedStyle(p);
    if (/(auto|scroll|hidden)/.test(s.overflowX + s.overflowY) && out(p.getBoundingClientRect()))
      return true;
  }
  return out({top: 0, left: 0, bottom: innerHeight, right: innerWidth});
}"""
# Waits (at most `ms`) for the element's document to settle: what scrolling it into view
# made the page render (a virtual grid re-renders the rows that came into view).
SETTLE_E_JS = f"(e, ms) => {MODEL_OF_E} ? {MODEL_OF_E}.settle(ms, true) : null"
SCROLL_SETTLE_MS = 300


async def _into_view(act: Act, aim: Aim) -> None:
    """Scroll an element that is out of view into view and let the page settle before the
    click: a click that scrolls as it goes lands while the page re-renders what scrolled
    in (a virtual grid), and may hit nothing."""
    with act.call.outcome.timing.stage("check"):
        try:
            if not await aim.handle.evaluate(OUT_OF_VIEW_JS):
                return
            await aim.handle.scroll_into_view_if_needed(timeout=act.try_ms)
            await aim.handle.evaluate(SETTLE_E_JS, SCROLL_SETTLE_MS)
        except PlaywrightError:
            return  # gone or hidden: the click's own checks say why


async def _click_try(act: Act, aim: Aim, options: dict[str, Any]) -> None:
    # The watchdog's scan runs in the click's own check, unless the baseline must be read
    # after it and before the click (ready does both).
    sweep_in_check = act.watching and act.fresh_baseline()
    await act.ready(aim, count=False, sweep=not sweep_in_check)
    if await _click_own(act, aim, options, sweep_in_check):
        return
    await act.ready_to_count()
    await act.opens_another_tab(aim)
    await _into_view(act, aim)

    async def click(ms: float) -> None:
        url = act.tab.page.url
        try:
            await aim.handle.click(timeout=ms, **options)
        except PlaywrightError as exc:  # a PlaywrightTimeout too
            # Dispatched, then the wait for the navigation it started ran out or lost
            # its document: the click happened (a slow server, a loaded machine);
            # clicking again would act twice or find the page gone (a retry once
            # failed with stale_ref so, under load). The result reports where the tab is.
            # Under load the timeout can also fire as the click lands, before the call
            # log says so: a tab that navigated meanwhile was clicked too.
            if playwright_errors.click_dispatched(str(exc)):
                return
            await asyncio.sleep(LATE_NAVIGATION_S)  # a navigation it started commits
            if act.tab.page.url == url:
                act.click_timed_out = True  # it may still land: see click_once
                raise

    await act.actionable(aim, click)


# What a click's result says when its guard could not confirm it reached the element.
UNCONFIRMED = {
    "none": "unconfirmed: no pointer event of the click reached the page's window",
    "busy": "unconfirmed: the page did not answer after the click (busy, or navigating)",
}


async def _click_own(act: Act, aim: Aim, options: dict[str, Any], sweep: bool) -> bool:
    """Click with steadyhand's own input (act/own_input.py); False: Playwright's path must.
    `sweep`: the watchdog has not run yet (it runs in the check)."""
    position = options.get("position") or {}
    at = await own_aim(act, aim, x=position.get("x"), y=position.get("y"), sweep=sweep)
    if at is None or at.session is None:
        return False
    events = mouse_events(
        at,
        options.get("button", "left"),
        options.get("click_count", 1),
        options.get("modifiers", []),
    )
    try:
        await asyncio.wait_for(send_all(at.session, events), act.try_ms / 1000)
    except TimeoutError:
        # Sent, and the page has not answered since (busy in a handler): whether the click
        # reached the element is not known, and the result says so.
        act.detail["input"] = UNCONFIRMED["busy"]
        return True
    verdict = await release(act.tab.page, at.token)
    if verdict in UNCONFIRMED:  # not retried: it may have landed, and twice would be worse
        act.detail["input"] = UNCONFIRMED[verdict]
    if verdict == "detached":  # the pointer's arrival re-rendered it: the next try waits
        raise Retryable(
            ErrorCode.STALE_REF,
            f"{aim.what} was removed or re-rendered as the pointer came; the click was stopped",
            "take a new snapshot and use a ref from it",
        )
    if verdict is not None and verdict != "ok" and verdict not in UNCONFIRMED:
        # A cover came between the check and the click: the guard stopped the click
        # before the page saw it, so another try cannot click twice.
        err = not_actionable(aim.what, {"state": "covered", "cover": verdict})
        raise Retryable(err.code, err.message, err.hint, err.data)
    return True


# ---------------------------------------------------------------------- typing

# True unless the field Playwright will type into (the element, or the control of the
# <label> it sits in) is known to hold ordinary text. Unknown means "may be a secret".
MAY_BE_SECRET = """e => {
  let t = e;
  const editable = x => x instanceof HTMLInputElement || x instanceof HTMLTextAreaElement
    || x instanceof HTMLSelectElement || x.isContentEditable;
  if (!editable(t)) t = t.closest('label')?.control ?? t;
  const ac = (t.getAttribute('autocomplete') || '').toLowerCase();
  if (ac.includes('password') || ac.includes('one-time-code')) return true;
  if (t instanceof HTMLTextAreaElement || (t.isContentEditable && !(t instanceof HTMLInputElement)))
    return false;
  if (t instanceof HTMLInputElement)
    return !['text', 'search', 'email', 'url', 'tel', 'number'].includes(t.type);
  return true;
}"""
CARET_TO_END_JS = """e => {
  const t = (e instanceof HTMLLabelElement && e.control) || e;
  t.focus();
  if (typeof t.setSelectionRange === 'function' && typeof t.value === 'string') {
    try { t.setSelectionRange(t.value.length, t.value.length); } catch (err) {}
  }
}"""
SLOW_KEY_DELAY_MS = 30


SECRET_HELP = "; {{secret:NAME}} in it types the secret NAME (see `secrets`)"


class TypeParams(RefParams):
    text: str | None = positional("text to type" + SECRET_HELP, default=None, sensitive=True)
    secret: str | None = Field(
        None,
        description="type the value of the secret of this name instead of text (see "
        "`secrets`): it is typed in the daemon and never shown",
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
    )
    submit: bool = Field(False, description="press Enter afterwards")
    slowly: bool = Field(False, description="type key by key instead of filling at once")
    clear: bool = Field(True, description="replace what the field holds (--no-clear appends)")


async def _type_into(act: Act, aim: Aim, text: str, *, clear: bool, slowly: bool) -> str:
    """Type `text` into the field; what the field should hold afterwards."""
    handle = aim.handle
    by_keys = slowly or bool(await handle.evaluate(LISTENS_FOR_KEYS_JS))
    if clear and not by_keys:
        await act.actionable(aim, lambda ms: handle.fill(text, timeout=ms), editable=True)
        return text
    before = ""
    if clear:
        await act.actionable(aim, lambda ms: handle.fill("", timeout=ms), editable=True)
    else:
        before = await field_value(handle) or ""
        await handle.evaluate(CARET_TO_END_JS)
    delay = SLOW_KEY_DELAY_MS if slowly else 0
    await handle.type(text, delay=delay, timeout=act.call.remaining_ms())
    return before + text


def _type_text(params: TypeParams) -> str:
    """What `type` types: its text, or a reference to the secret it names."""
    if params.secret is not None:
        if params.text:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "type takes text or --secret NAME, not both",
                "put {{secret:NAME}} inside the text to type a secret among other text",
            )
        return reference(params.secret)
    if params.text is None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "type needs the text to type (or --secret NAME)",
            'e.g. type e5 "Ada" or type e6 --secret BANK_PASSWORD',
        )
    return params.text


def check_secrets(call: Call, *texts: str) -> None:
    """Every secret the texts name exists (`not_found` before anything is done)."""
    for text in texts:
        for name in REFERENCE.findall(text):
            call.runtime.secrets.lookup(name)


async def with_secrets(call: Call, aim: Aim, text: str) -> str:
    """The text with its secrets' values in, for the document the target is in: a secret
    scoped to other domains is refused (`policy_denied`) before anything is typed. Only
    what the target's frame is, as the browser knows it (not the page's script), counts."""
    if not uses_secret(text):
        return text
    frame = await aim.handle.owner_frame()
    url = frame.url if frame is not None else ""
    typed = call.runtime.secrets.expand(text, url, aim.what)
    await mask_field(aim.handle)  # covered in every picture before the value goes in
    tab = call.tab_used
    if tab is not None:  # evaluate is refused on this page from now on (commands/evaluate.py)
        tab.secret_documents.add(await tab.document_id())
    return typed


@command("type", acts=True, gate_rule=GateRule(presses=lambda p: SUBMIT if p.submit else None))
async def type_(call: Call, params: TypeParams) -> ActionResult:
    """Type text into a field (replacing its value unless --no-clear); verified."""
    text = _type_text(params)
    check_secrets(call, text)
    named = uses_secret(text)
    async with Act(call, params) as act:

        async def body() -> None:
            async with act.target(params.ref) as aim:
                # The secrets first: a refused one is refused before the field is touched,
                # and nothing awaits between the check's focus and the text going in.
                typed = await with_secrets(call, aim, text)
                at = await _fill_check(act, aim, params)
                secret = at.secret if at else bool(await aim.handle.evaluate(MAY_BE_SECRET))
                if not secret or only_references(text):
                    call.reveal("text")  # ordinary text, or only secrets' names
                if at is not None and typed:
                    before: Any = at.mutations
                    await insert_text(at, typed)
                    wanted = typed
                else:
                    before = await aim.handle.evaluate(FRAME_MUTATIONS_JS)
                    wanted = await _type_into(
                        act, aim, typed, clear=params.clear, slowly=params.slowly
                    )
                after = await aim.handle.evaluate(TYPED_JS)
                reacted = _reacted(before, after)
                try:
                    found = check_value(aim.what, wanted, after["value"], secret or named, reacted)
                except Unverified as exc:
                    if not params.clear:  # typed again, it would be appended twice
                        raise SteadyhandError(exc.code, exc.message, exc.hint, exc.data) from None
                    raise
                act.detail.update(found)
                if params.submit:
                    await aim.handle.press("Enter", timeout=call.remaining_ms())
                elif after["value"] is not None and after.get("doc") and after.get("id"):
                    # Not left now (that would be acting): the next action reports it.
                    act.typed = TypedField(
                        params.ref,
                        str(after["doc"]),
                        int(after["id"]),
                        wanted,
                        str(after["value"]),
                        secret or named,
                    )
                act.detail["submitted"] = params.submit

        await act.run(body)
    return await act.result("type", params.ref)


async def _fill_check(act: Act, aim: Aim, params: TypeParams) -> Aimed | None:
    """Ready the act; for text that replaces the field's, check the field for steadyhand's
    own input and select what it holds (act/own_input.py). None: Playwright's path types."""
    sweep_in_check = act.watching and act.fresh_baseline()
    own = params.clear and not params.slowly
    await act.ready(aim, count=not own, sweep=not (own and sweep_in_check))
    if not own:
        return None
    at = await own_aim(act, aim, edit=True, sweep=sweep_in_check)
    if at is None:
        await act.ready_to_count()
        return None
    if at.keys:  # the page handles keys on it: typing sends keys (Playwright's)
        act.call.outcome.timing.route = "playwright: key handlers"
        return None
    return at


def _reacted(before: Any, typed: dict[str, Any]) -> int:
    """DOM changes the page made while the text went in: from the count before typing, or
    from when typing gave the field the focus if that came later (what leaving the field
    before did, a blur handler, is not this field's reaction); 0 if unknown."""
    after, focused = typed.get("mutations"), typed.get("focused_at")
    if not isinstance(before, int) or not isinstance(after, int) or after < before:
        return 0
    start = max(before, focused) if isinstance(focused, int) and focused <= after else before
    return after - start


class FillParams(ActParams):
    fields: dict[str, str] = positional(
        "REF=VALUE pairs, one per field" + SECRET_HELP, sensitive=True
    )


@command("fill", acts=True, gate_rule=GateRule(fields=True))
async def fill(call: Call, params: FillParams) -> ActionResult:
    """Fill several fields at once (REF=VALUE each), every one verified."""
    if not params.fields:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, "fill needs at least one field", "give REF=VALUE pairs"
        )
    call.reveal("fields")
    for ref in params.fields:
        call.redact("fields", ref)  # until its field is known to hold ordinary text
    check_secrets(call, *params.fields.values())
    async with Act(call, params) as act:

        async def body() -> None:
            async with contextlib.AsyncExitStack() as stack:
                # Resolve every target before typing anything, so a bad one changes nothing.
                aims = {
                    ref: await stack.enter_async_context(act.target(ref)) for ref in params.fields
                }
                await act.ready()
                # Every secret's scope is checked before anything is typed.
                texts = {
                    ref: await with_secrets(call, aim, params.fields[ref])
                    for ref, aim in aims.items()
                }
                secrets: dict[str, bool] = {}
                found: dict[str, dict[str, Any]] = {}  # what each field's check said
                typed: dict[str, Any] = {}  # each field's value right after it was filled
                last: dict[str, Any] = {}
                for ref, aim in aims.items():
                    secret = bool(await aim.handle.evaluate(MAY_BE_SECRET))
                    if not secret or only_references(params.fields[ref]):
                        call.reveal("fields", ref)
                    secrets[ref] = secret or uses_secret(params.fields[ref])
                    text = texts[ref]

                    async def put(ms: float, aim: Aim = aim, text: str = text) -> None:
                        await aim.handle.fill(text, timeout=ms)

                    before = await aim.handle.evaluate(FRAME_MUTATIONS_JS)
                    await act.actionable(aim, put, editable=True)
                    last = await aim.handle.evaluate(TYPED_JS)
                    reacted = _reacted(before, last)
                    found[ref] = check_value(aim.what, text, last["value"], secrets[ref], reacted)
                    typed[ref] = last["value"]
                # Filling a field left the one before (a change, a blur): every field is
                # read again, and one that leaving changed is judged on that change alone.
                # The last one is not left (checking never acts): the next action reports
                # what leaving it made of its value.
                for ref, aim in aims.items():
                    value = await field_value(aim.handle)
                    if value != typed[ref]:
                        found[ref] = check_value(aim.what, texts[ref], value, secrets[ref])
                act.detail["filled"] = list(params.fields)
                for kind in ("reformatted", "unverified"):
                    some = {ref: one[kind] for ref, one in found.items() if kind in one}
                    if some:
                        act.detail[kind] = some
                ref = list(aims)[-1]
                if last.get("value") is not None and last.get("doc") and last.get("id"):
                    act.typed = TypedField(
                        ref,
                        str(last["doc"]),
                        int(last["id"]),
                        texts[ref],
                        str(last["value"]),
                        secrets[ref],
                    )

        await act.run(body)
    return await act.result("fill", None)


# ---------------------------------------------------------------------- keys


class PressParams(ActParams):
    key: str = positional("key or combination, e.g. Enter, Control+a, ArrowDown")
    ref: str | None = Field(None, description="focus this element (ref or locator) first")


ACTIVATING = ("Enter", "Space", " ")  # keys that click a focused button or submit a form


def activating_key(params: PressParams) -> str | None:
    """The key a press ends on, when it clicks what has the focus or submits its form."""
    key = params.key.split("+")[-1]
    return key if key in ACTIVATING else None


@command("press", acts=True, on_element=True, gate_rule=GateRule(presses=activating_key))
async def press(call: Call, params: PressParams) -> ActionResult:
    """Press a key or key combination, on an element or the focused one."""
    try:
        async with Act(call, params) as act:

            async def body() -> None:
                if params.ref is None:
                    await ready_on_page(act)
                    await act.tab.page.keyboard.press(params.key)
                    return
                async with act.target(params.ref) as aim:
                    await act.ready(aim)
                    await aim.handle.press(params.key, timeout=call.remaining_ms())

            await act.run(body)
            act.detail["key"] = params.key
    except PlaywrightError as exc:
        if playwright_errors.unknown_key(str(exc)):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"unknown key {params.key!r}",
                "use names like Enter, Tab, Escape, ArrowDown, Control+a, Shift+Tab",
            ) from exc
        raise
    return await act.result("press", params.ref)


# ---------------------------------------------------------------------- choices
