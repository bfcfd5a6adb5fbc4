"""Commands that act on elements by ref: click, type, fill, press, select, check, hover."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.act import Act
from steadyhand.commands.results import ActionResult
from steadyhand.commands.table import TabParams, command, positional
from steadyhand.errors import ErrorCode, SteadyhandError


class ActParams(TabParams):
    changes: bool | None = Field(
        None, description="report what the action changed on the page (default: act_changes)"
    )


class RefParams(ActParams):
    ref: str = positional("element ref from a snapshot, e.g. e12")


async def act_on_ref(
    call: Call,
    params: RefParams,
    action: str,
    do: Callable[[ElementHandle], Awaitable[dict[str, Any] | None]],
) -> ActionResult:
    """Resolve the ref, act on that very element, report what happened."""
    async with Act(call, params) as act, act.element(params.ref) as target:
        await act.ready()
        act.detail.update(await do(target) or {})
    return await act.result(action, params.ref)


class ClickParams(RefParams):
    double: bool = Field(False, description="double-click")
    button: Literal["left", "right", "middle"] = Field("left", description="mouse button")


@command("click")
async def click(call: Call, params: ClickParams) -> ActionResult:
    """Click an element by ref."""

    async def do(target: ElementHandle) -> None:
        clicks = 2 if params.double else 1
        await target.click(button=params.button, click_count=clicks, timeout=call.remaining_ms())

    return await act_on_ref(call, params, "click", do)


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


class TypeParams(RefParams):
    text: str = positional("text to put in the field (replaces what is there)", sensitive=True)
    submit: bool = Field(False, description="press Enter afterwards")
    slowly: bool = Field(False, description="type key by key instead of filling at once")


@command("type")
async def type_(call: Call, params: TypeParams) -> ActionResult:
    """Type text into a field by ref, replacing its value; --submit presses Enter."""

    async def do(target: ElementHandle) -> dict[str, Any]:
        if not await target.evaluate(MAY_BE_SECRET):
            call.reveal("text")
        if params.slowly:
            await target.fill("", timeout=call.remaining_ms())
            await target.type(params.text, delay=30, timeout=call.remaining_ms())
        else:
            await target.fill(params.text, timeout=call.remaining_ms())
        if params.submit:
            await target.press("Enter", timeout=call.remaining_ms())
        return {"submitted": params.submit}

    return await act_on_ref(call, params, "type", do)


class FillParams(ActParams):
    fields: dict[str, str] = positional("REF=VALUE pairs, one per field", sensitive=True)


@command("fill")
async def fill(call: Call, params: FillParams) -> ActionResult:
    """Fill several fields at once: REF=VALUE for each."""
    if not params.fields:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, "fill needs at least one field", "give REF=VALUE pairs"
        )
    call.reveal("fields")
    for ref in params.fields:
        call.redact("fields", ref)  # until its field is known to hold ordinary text
    async with Act(call, params) as act, contextlib.AsyncExitStack() as stack:
        # Resolve every ref before typing anything, so a bad ref changes nothing.
        targets = {ref: await stack.enter_async_context(act.element(ref)) for ref in params.fields}
        await act.ready()
        for ref, target in targets.items():
            if not await target.evaluate(MAY_BE_SECRET):
                call.reveal("fields", ref)
            await target.fill(params.fields[ref], timeout=call.remaining_ms())
        act.detail["filled"] = list(params.fields)
    return await act.result("fill", None)


class PressParams(ActParams):
    key: str = positional("key or combination, e.g. Enter, Control+a, ArrowDown")
    ref: str | None = Field(None, description="focus this element first")


@command("press")
async def press(call: Call, params: PressParams) -> ActionResult:
    """Press a key or key combination, on an element or the focused one."""
    try:
        async with Act(call, params) as act:
            if params.ref:
                async with act.element(params.ref) as target:
                    await act.ready()
                    await target.press(params.key, timeout=call.remaining_ms())
            else:
                await act.ready()
                await act.tab.page.keyboard.press(params.key)
            act.detail["key"] = params.key
    except PlaywrightError as exc:
        if "Unknown key" in str(exc):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"unknown key {params.key!r}",
                "use names like Enter, Tab, Escape, ArrowDown, Control+a, Shift+Tab",
            ) from exc
        raise
    return await act.result("press", params.ref)


class SelectParams(RefParams):
    values: list[str] = positional("option value(s) or label(s) to select")


# For a <select>: which wanted values match no option's value or label, and the labels.
SELECT_CHECK = """(e, wanted) => {
  const s = e instanceof HTMLSelectElement ? e : e.closest('label')?.control;
  if (!(s instanceof HTMLSelectElement)) return null;
  const opts = Array.from(s.options, o => [o.value, o.label]);
  return {
    missing: wanted.filter(w => !opts.some(([v, l]) => v === w || l === w)),
    labels: opts.map(o => o[1]),
  };
}"""


@command("select")
async def select(call: Call, params: SelectParams) -> ActionResult:
    """Select option(s) in a <select> by value or label."""

    async def do(target: ElementHandle) -> dict[str, Any]:
        check = await target.evaluate(SELECT_CHECK, params.values)
        if check and check["missing"]:
            shown = ", ".join(repr(label) for label in check["labels"][:30])
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"no option {', '.join(map(repr, check['missing']))} in {params.ref}",
                f"options (by label): {shown}",
            )
        selected = await target.select_option(params.values, timeout=call.remaining_ms())
        return {"selected": selected}

    return await act_on_ref(call, params, "select", do)


@command("check")
async def check(call: Call, params: RefParams) -> ActionResult:
    """Check a checkbox or radio button by ref."""

    async def do(target: ElementHandle) -> dict[str, Any]:
        await target.check(timeout=call.remaining_ms())
        return {"checked": True}

    return await act_on_ref(call, params, "check", do)


@command("uncheck")
async def uncheck(call: Call, params: RefParams) -> ActionResult:
    """Uncheck a checkbox by ref."""

    async def do(target: ElementHandle) -> dict[str, Any]:
        await target.uncheck(timeout=call.remaining_ms())
        return {"checked": False}

    return await act_on_ref(call, params, "uncheck", do)


@command("hover")
async def hover(call: Call, params: RefParams) -> ActionResult:
    """Move the mouse over an element by ref."""

    async def do(target: ElementHandle) -> None:
        await target.hover(timeout=call.remaining_ms())

    return await act_on_ref(call, params, "hover", do)
