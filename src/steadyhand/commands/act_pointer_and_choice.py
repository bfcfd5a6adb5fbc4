"""Commands that choose or point on elements: select, check, uncheck, hover, drag and
select-text.

Each takes a ref (`e12`) or a locator, like every act (act_on_elements.py), and runs as
tries of precondition -> act -> verify inside `Act` (see steadyhand/act/loop.py).
"""

from __future__ import annotations

import asyncio
import time
from typing import Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import FloatRect
from pydantic import Field

from steadyhand.act.aim import Aim
from steadyhand.act.loop import Act
from steadyhand.act.results import ActionResult
from steadyhand.act.retry import Retryable
from steadyhand.act.verify import (
    CHECKED_JS,
    HOVERED_JS,
    SELECTED_JS,
    Unverified,
    check_checked,
    check_selected,
)
from steadyhand.call import Call
from steadyhand.commands.act_on_elements import MAY_BE_SECRET, ActParams, RefParams
from steadyhand.commands.table import GateRule, command, positional
from steadyhand.engine import playwright_errors
from steadyhand.errors import ErrorCode, SteadyhandError


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
OPTION_POLL_S = 0.1


async def _wait_for_options(act: Act, aim: Aim, wanted: list[str]) -> None:
    """Wait (within the try) for every wanted option: options are often loaded late."""
    deadline = time.monotonic() + act.try_ms / 1000
    while True:
        check = await aim.handle.evaluate(SELECT_CHECK, wanted)
        if not check or not check["missing"]:
            return
        if time.monotonic() >= deadline:
            shown = ", ".join(repr(label) for label in check["labels"][:30]) or "none yet"
            raise Retryable(
                ErrorCode.BAD_REQUEST,
                f"no option {', '.join(map(repr, check['missing']))} in {aim.what}",
                f"options (by label): {shown}",
            )
        await asyncio.sleep(OPTION_POLL_S)


@command("select", acts=True, on_element=True, gate_rule=GateRule(picks=lambda p: tuple(p.values)))
async def select(call: Call, params: SelectParams) -> ActionResult:
    """Select option(s) of a <select> by value or label (waits for late options); verified."""
    async with Act(call, params) as act:

        async def body() -> None:
            async with act.target(params.ref) as aim:
                await act.ready(aim)
                await _wait_for_options(act, aim, params.values)

                async def choose(ms: float) -> None:
                    await aim.handle.select_option(params.values, timeout=ms)

                await act.actionable(aim, choose)
                selected = await aim.handle.evaluate(SELECTED_JS)
                chosen = check_selected(aim.what, params.values, selected)
                act.detail["selected"] = [value for value, _label in chosen]
                act.detail["labels"] = [label for _value, label in chosen]

        await act.run(body)
    return await act.result("select", params.ref)


async def _set_checked(call: Call, params: RefParams, wanted: bool) -> ActionResult:
    async with Act(call, params) as act:

        async def body() -> None:
            async with act.target(params.ref) as aim:
                await act.ready(aim)
                handle = aim.handle

                async def toggle(ms: float) -> None:
                    await (handle.check if wanted else handle.uncheck)(timeout=ms)

                try:
                    await act.actionable(aim, toggle)
                except PlaywrightError as exc:
                    if not playwright_errors.state_unchanged(str(exc)):
                        raise
                check_checked(aim.what, wanted, await handle.evaluate(CHECKED_JS))
                act.detail["checked"] = wanted

        await act.run(body)
    return await act.result("check" if wanted else "uncheck", params.ref)


@command("check", acts=True, on_element=True)
async def check(call: Call, params: RefParams) -> ActionResult:
    """Check a checkbox or radio button; verified."""
    return await _set_checked(call, params, True)


@command("uncheck", acts=True, on_element=True)
async def uncheck(call: Call, params: RefParams) -> ActionResult:
    """Uncheck a checkbox; verified."""
    return await _set_checked(call, params, False)


# ---------------------------------------------------------------------- pointer


@command("hover", acts=True)
async def hover(call: Call, params: RefParams) -> ActionResult:
    """Move the mouse over an element; verified (the element is hovered)."""
    async with Act(call, params) as act:

        async def body() -> None:
            async with act.target(params.ref) as aim:
                await act.ready(aim)
                await act.actionable(aim, lambda ms: aim.handle.hover(timeout=ms))
                if not await aim.handle.evaluate(HOVERED_JS):
                    raise Unverified(
                        f"{aim.what} is not under the mouse after hovering it (it moved away)",
                        "take a snapshot: the page may move or hide it on hover",
                    )

        await act.run(body)
    return await act.result("hover", params.ref)


Position = Literal["center", "top", "bottom", "left", "right"]


class DragParams(ActParams):
    source: str = positional("element to drag (ref or locator)")
    target: str = positional("element to drop it on (ref or locator)")
    to_position: Position = Field(
        "center",
        description="where in the target to drop: center, or just inside its top, bottom, "
        "left or right edge (before/after it in a sortable list)",
    )
    offset: str | None = Field(
        None,
        description="drop at X,Y pixels from the target's top-left corner (instead of "
        "--to-position)",
    )


DRAG_STEPS = 10
DRAG_PAUSE_S = 0.03  # between moves: libraries that animate (SortableJS) track each one
EDGE = 0.2  # --to-position: this far inside the edge (of the width or height)


def drop_point(box: FloatRect, position: str, offset: str | None) -> tuple[float, float]:
    """Where to release the mouse over a target with this bounding box."""
    x, y, w, h = box["x"], box["y"], box["width"], box["height"]
    if offset is not None:
        try:
            dx, dy = (float(part) for part in offset.split(","))
        except ValueError:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"--offset {offset!r} is not X,Y",
                "give pixels from the target's top-left corner, e.g. --offset 10,40",
            ) from None
        return x + dx, y + dy
    fx, fy = {
        "center": (0.5, 0.5),
        "top": (0.5, EDGE),
        "bottom": (0.5, 1 - EDGE),
        "left": (EDGE, 0.5),
        "right": (1 - EDGE, 0.5),
    }[position]
    return x + w * fx, y + h * fy


@command("drag", acts=True)
async def drag(call: Call, params: DragParams) -> ActionResult:
    """Drag one element onto another (mouse down, paced moves, up; HTML5 drag and drop too)."""
    async with Act(call, params) as act:

        async def body() -> None:
            async with act.target(params.source) as source, act.target(params.target) as goal:
                await act.ready(source)
                await act.actionable(source, lambda ms: source.handle.hover(trial=True, timeout=ms))
                await act.actionable(goal, lambda ms: goal.handle.hover(trial=True, timeout=ms))
                mouse = act.tab.page.mouse
                await source.handle.hover(timeout=call.remaining_ms())
                start = await source.handle.bounding_box()
                await mouse.down()
                try:
                    await goal.handle.scroll_into_view_if_needed(timeout=call.remaining_ms())
                    box = await goal.handle.bounding_box()
                    if box is None or start is None:
                        raise Retryable(
                            ErrorCode.NOT_ACTIONABLE,
                            f"{goal.what} has no box to drop on (hidden)",
                            "take a snapshot and drop on a visible element",
                        )
                    x, y = drop_point(box, params.to_position, params.offset)
                    x0 = start["x"] + start["width"] / 2
                    y0 = start["y"] + start["height"] / 2
                    for step in range(1, DRAG_STEPS + 1):
                        k = step / DRAG_STEPS
                        await mouse.move(x0 + (x - x0) * k, y0 + (y - y0) * k)
                        await asyncio.sleep(DRAG_PAUSE_S)
                finally:
                    await mouse.up()
                act.detail.update(
                    {"source": params.source, "target": params.target, "dropped_at": [x, y]}
                )

        await act.run(body)
    return await act.result("drag", params.source)


# ---------------------------------------------------------------------- text selection

# Selects text inside an element, from the start of `from` to the end of `to` (whitespace
# compared as a person reads it); a field's value through setSelectionRange. Returns the
# selection's text, or {missing: "from"|"to"}.
SELECT_TEXT_JS = """(el, [from, to]) => {
  const squash = s => s.replace(/\\s+/g, ' ');
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    const v = el.value;
    const a = from ? v.indexOf(from) : 0;
    if (a < 0) return {missing: 'from'};
    const b = to ? v.indexOf(to, a) : (from ? a + from.length - 1 : v.length - 1);
    if (b < 0) return {missing: 'to'};
    const end = to ? b + to.length : b + 1;
    el.focus();
    el.setSelectionRange(a, end);
    return {text: v.slice(a, end)};
  }
  const nodes = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  let flat = '';
  const where = [];  // flat index -> [node, offset]
  for (const n of nodes) {
    for (let i = 0; i < n.data.length; i++) {
      const c = /\\s/.test(n.data[i]) ? ' ' : n.data[i];
      if (c === ' ' && flat.endsWith(' ')) continue;
      flat += c;
      where.push([n, i]);
    }
  }
  const a = from ? flat.indexOf(squash(from)) : flat.search(/\\S/);
  if (a < 0) return {missing: 'from'};
  let b;
  if (to) {
    const at = flat.indexOf(squash(to), a);
    if (at < 0) return {missing: 'to'};
    b = at + squash(to).length - 1;
  } else {
    b = from ? a + squash(from).length - 1 : flat.trimEnd().length - 1;
  }
  const range = document.createRange();
  range.setStart(where[a][0], where[a][1]);
  range.setEnd(where[b][0], where[b][1] + 1);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  return {text: selection.toString()};
}"""


# A field (not page text) that may hold a secret.
SECRET_FIELD_JS = (
    "e => (e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement) && "
    f"({MAY_BE_SECRET})(e)"
)


class SelectTextParams(ActParams):
    ref: str = positional("element whose text to select (a paragraph, a cell, a field, ...)")
    from_text: str | None = Field(
        None,
        description="select from the start of this text (default: all of it)",
        json_schema_extra={"flag": "from"},
    )
    to_text: str | None = Field(
        None,
        description="to the end of this text (default: the end of --from)",
        json_schema_extra={"flag": "to"},
    )


@command("select-text", acts=True)
async def select_text(call: Call, params: SelectTextParams) -> ActionResult:
    """Select text inside an element (all of it, or --from TEXT [--to TEXT]); verified."""
    async with Act(call, params) as act:

        async def body() -> None:
            async with act.target(params.ref) as aim:
                await act.ready(aim)
                wanted = {"from": params.from_text, "to": params.to_text}
                if await aim.handle.evaluate(SECRET_FIELD_JS):
                    # Neither its text nor whether a guess is in it may leave the page.
                    raise SteadyhandError(
                        ErrorCode.POLICY_DENIED,
                        f"{aim.what} may hold a secret: its text is not selected or shown",
                        "select text in ordinary fields and page text only",
                    )
                found = await aim.handle.evaluate(SELECT_TEXT_JS, list(wanted.values()))
                if "missing" in found:
                    which = found["missing"]
                    raise SteadyhandError(
                        ErrorCode.NOT_FOUND,
                        f"{aim.what} has no text {wanted[which]!r} (--{which})",
                        "copy the words from a snapshot of that element (snapshot --ref REF)",
                    )
                act.detail["selected"] = found["text"]

        await act.run(body)
    return await act.result("select-text", params.ref)
