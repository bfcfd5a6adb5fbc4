"""Commands on the page as a whole: scroll, resize, wait."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, Literal

from playwright.async_api import ElementHandle, Page
from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from steadyhand.act.conditions import (
    Condition,
    HandbackCondition,
    LoadCondition,
    LoadState,
    RefCondition,
    SleepCondition,
    TextCondition,
    UrlCondition,
    UrlMatch,
)
from steadyhand.act.loop import Act
from steadyhand.act.results import ActionResult, PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.act_on_elements import ActParams
from steadyhand.commands.table import Result, TabParams, command, positional
from steadyhand.engine.emulation import VIEWPORT_MAX, VIEWPORT_MIN
from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError

# ---------------------------------------------------------------- scroll

# What scrolls in a document, for the snippets below: the root, or a box whose overflow
# scrolls and that has more to show; `boxOf`: the first that scrolls from an element up
# (through shadow hosts); `pos`: where it is and how far it goes.
SCROLLERS = """
  const root = document.scrollingElement || document.documentElement;
  const scrolls = n => {
    if (n === root) return true;
    const s = getComputedStyle(n);
    return /(auto|scroll|overlay)/.test(`${s.overflowX} ${s.overflowY}`)
      && (n.scrollHeight > n.clientHeight || n.scrollWidth > n.clientWidth);
  };
  const up = n => n.parentElement || n.getRootNode().host || null;
  const boxOf = start => {
    let n = start;
    while (n && n !== root && !scrolls(n)) n = up(n);
    return n || root;
  };
  const pos = n => ({
    x: Math.round(n.scrollLeft), y: Math.round(n.scrollTop),
    max_x: Math.max(0, n.scrollWidth - n.clientWidth),
    max_y: Math.max(0, n.scrollHeight - n.clientHeight),
  });
"""
# Scrolls the page (el null) or the box an element scrolls in, and reports where it was
# and is. "The box": the element itself if it scrolls, else its nearest ancestor that does,
# else the window. With intoView, every box between the element and the window counts.
SCROLL_JS = (
    "(el, op) => {"
    + SCROLLERS
    + """  const kind = n => (n === root ? 'window' : n === el ? 'element' : 'container');
  const moved = (a, b) => a.x !== b.x || a.y !== b.y;
  if (op.intoView) {
    const chain = [];
    for (let n = boxOf(up(el) || root); ; n = boxOf(up(n) || root)) {
      chain.push(n);
      if (n === root) break;
    }
    const before = chain.map(pos);
    const r = el.getBoundingClientRect();
    const inside = b => r.top >= b.top && r.left >= b.left && r.bottom <= b.bottom
      && r.right <= b.right;
    const shown = inside({top: 0, left: 0, bottom: innerHeight, right: innerWidth})
      && (chain[0] === root || inside(chain[0].getBoundingClientRect()));
    if (!shown) el.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
    const after = chain.map(pos);
    const i = Math.max(0, before.findIndex((b, k) => moved(b, after[k])));
    return {scroller: kind(chain[i]), before: before[i], after: after[i],
            moved: moved(before[i], after[i])};
  }
  const box = el ? boxOf(el) : root;
  const before = pos(box);
  if (op.to) {
    box.scrollTo({top: op.to === 'top' ? 0 : box.scrollHeight, left: box.scrollLeft,
                  behavior: 'instant'});
  } else {
    box.scrollBy({left: op.dx, top: op.dy, behavior: 'instant'});
  }
  const after = pos(box);
  return {scroller: kind(box), before, after, moved: moved(before, after)};
}"""
)


# For a wheel over an element: the point a person would put the pointer at (the middle of
# the element's part inside the viewport, in its frame's coordinates), and the box a wheel
# there scrolls (the innermost scrolling box under that point), with its position.
WHEEL_AIM_JS = """el => {
  const r = el.getBoundingClientRect();
  const left = Math.max(r.left, 0), right = Math.min(r.right, innerWidth);
  const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
  if (right - left < 1 || bottom - top < 1) return null;
  const x = (left + right) / 2, y = (top + bottom) / 2;
  return {x, y, left: r.left, top: r.top};
}"""
WHEEL_BOX_JS = (
    "(el, [x, y]) => {"
    + SCROLLERS
    + """
  let n = el.getRootNode().elementFromPoint ? el.getRootNode().elementFromPoint(x, y) : null;
  if (!n || !(n === el || el.contains(n))) n = el;
  return boxOf(n);
}"""
)
POSITION_JS = (
    "(n, el) => {"
    + SCROLLERS
    + """
  return {...pos(n), kind: n === root ? 'window' : n === el ? 'element' : 'container'};
}"""
)
TO_END_JS = """(n, to) => n.scrollTo({top: to === 'top' ? 0 : n.scrollHeight,
  left: n.scrollLeft, behavior: 'instant'})"""
WHEEL_SETTLE_S = 1.0  # a wheel's scroll lands within this (it may be animated)


class ScrollParams(ActParams):
    ref: str | None = positional("scroll this element's box, not the page", None)
    dx: int = Field(0, description="pixels to scroll right (negative: left)")
    dy: int = Field(0, description="pixels to scroll down (negative: up)")
    into_view: bool = Field(False, description="scroll until the element (REF) is in view")
    to: Literal["top", "bottom"] | None = Field(None, description="scroll to the top or bottom")


class ScrollPosition(Result):
    x: int
    y: int
    max_x: int = Field(description="the furthest x the box can scroll to")
    max_y: int = Field(description="the furthest y the box can scroll to")


class ScrollResult(ActionResult):
    scroller: Literal["window", "element", "container"] = Field(
        description="what scrolled: the window, the element, or a box it sits in"
    )
    before: ScrollPosition
    after: ScrollPosition
    moved: bool = Field(description="false when it was already as far as it goes")


def _scroll_op(params: ScrollParams) -> dict[str, object]:
    offsets = params.dx != 0 or params.dy != 0
    if params.into_view and params.ref is None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "--into-view needs the element: scroll REF --into-view",
            "give a ref from a snapshot, e.g. scroll e12 --into-view",
        )
    if sum((params.into_view, offsets, params.to is not None)) > 1:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "give one of --dx/--dy, --to or --into-view",
            "scroll by pixels (--dy 600), to an end (--to bottom) or to an element (--into-view)",
        )
    into_view = params.into_view or (params.ref is not None and not offsets and params.to is None)
    if not (into_view or offsets or params.to):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "scroll needs --dy/--dx, --to top|bottom, or an element to bring into view",
            "e.g. scroll --dy 600, scroll --to bottom, scroll e12 (into view), "
            "scroll e12 --dy 300 (inside that element's box)",
        )
    return {"dx": params.dx, "dy": params.dy, "to": params.to, "intoView": into_view}


@command("scroll")
async def scroll(call: Call, params: ScrollParams) -> ScrollResult:
    """Scroll the page or an element's box: by --dx/--dy, --to top|bottom, or REF into view."""
    op = _scroll_op(params)
    async with Act(call, params) as act:
        if params.ref is not None:
            async with act.target(params.ref) as target:
                await act.ready()
                if op["intoView"]:
                    found = await target.handle.evaluate(SCROLL_JS, op)
                else:
                    found = await _wheel(
                        act.tab.page, target.handle, params.dx, params.dy, params.to
                    )
        else:
            await act.ready()
            found = await act.tab.page.evaluate(f"op => ({SCROLL_JS})(null, op)", op)
    done = await act.result("scroll", params.ref)
    return ScrollResult.model_validate(done.model_dump() | found)


async def _wheel(
    page: Page, element: ElementHandle, dx: int, dy: int, to: str | None = None
) -> dict[str, Any]:
    """Turn the mouse wheel over `element`, as a person scrolls a grid or a list: the page
    sees real wheel events (a virtual grid renders the rows that come into view), and the
    box under the pointer scrolls (`to`: that box is scrolled to its top or bottom). Where
    it was and is, as SCROLL_JS reports it."""
    aim = await element.evaluate(WHEEL_AIM_JS)
    if aim is None:  # not in view: bring it in first
        await element.scroll_into_view_if_needed()
        aim = await element.evaluate(WHEEL_AIM_JS)
    box = await element.bounding_box()
    if aim is None or box is None:
        raise SteadyhandError(
            ErrorCode.NOT_ACTIONABLE,
            "the element has no visible part to turn the wheel over",
            "scroll the page (scroll --dy N) or bring it into view (scroll REF) first",
        )
    # The same point in the main frame's viewport (the element may be in an iframe).
    x = box["x"] + aim["x"] - aim["left"]
    y = box["y"] + aim["y"] - aim["top"]
    scroller = await element.evaluate_handle(WHEEL_BOX_JS, [aim["x"], aim["y"]])
    try:
        before = await scroller.evaluate(POSITION_JS, element)
        if to is not None:
            await scroller.evaluate(TO_END_JS, to)
        else:
            await page.mouse.move(x, y)
            await page.mouse.wheel(dx, dy)
        after = before
        until = time.monotonic() + WHEEL_SETTLE_S
        while time.monotonic() < until:  # the scroll lands (or does not) within a frame or two
            await asyncio.sleep(0.03)
            now = await scroller.evaluate(POSITION_JS, element)
            if now == after and now != before:
                break
            after = now
    finally:
        with contextlib.suppress(PlaywrightError):
            await scroller.dispose()
    kind = before.pop("kind")
    after.pop("kind", None)
    return {"scroller": kind, "before": before, "after": after, "moved": before != after}


# ---------------------------------------------------------------- resize


class ResizeParams(TabParams):
    width: int = positional(f"viewport width in CSS pixels ({VIEWPORT_MIN}-{VIEWPORT_MAX})")
    height: int = positional(f"viewport height in CSS pixels ({VIEWPORT_MIN}-{VIEWPORT_MAX})")


class Size(Result):
    width: int
    height: int


class ResizeResult(PageResult):
    viewport: Size = Field(description="the tab's viewport now, as the page measures it")
    previous: Size | None = Field(None, description="the viewport before")


@command("resize")
async def resize(call: Call, params: ResizeParams) -> ResizeResult:
    """Set the tab's viewport size (W H in CSS pixels)."""
    for name, value in (("width", params.width), ("height", params.height)):
        if not VIEWPORT_MIN <= value <= VIEWPORT_MAX:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"viewport {name} {value} is out of range",
                f"give a width and height from {VIEWPORT_MIN} to {VIEWPORT_MAX}, "
                "e.g. resize 1280 800",
            )
    tab = await call.tab(params.tab)
    before = tab.page.viewport_size
    await tab.page.set_viewport_size({"width": params.width, "height": params.height})
    # As the page measures it: proof the resize took, not just what was asked for.
    measured = await tab.page.evaluate("() => [innerWidth, innerHeight]")
    return ResizeResult(
        **await page_result(tab),
        viewport=Size(width=measured[0], height=measured[1]),
        previous=Size(width=before["width"], height=before["height"]) if before else None,
    )


# ---------------------------------------------------------------- wait

POLL_S = 0.1
# Stop this long (at most a quarter of the time) before the command's deadline, to answer
# with what is still unmet rather than be cut off with a bare timeout. Each round of checks
# is itself cut at the end, so little more is needed than to let go of the conditions.
MARGIN_S = 0.15


class WaitParams(TabParams):
    text: str | None = Field(
        None, min_length=1, description="until this text is shown (main frame, case-sensitive)"
    )
    text_gone: str | None = Field(
        None, min_length=1, description="until this text is no longer shown (main frame)"
    )
    url: str | None = Field(
        None,
        min_length=1,
        description="until the URL matches: a glob with * (whole URL), else a substring",
    )
    ref: str | None = Field(None, description="until this element is visible")
    ref_gone: str | None = Field(None, description="until this element is hidden or removed")
    load: LoadState | None = Field(None, description="until the page reaches this load state")
    ms: int | None = Field(
        None, ge=0, le=600_000, description="at least this long (cut to the command's deadline)"
    )
    handback: bool = Field(
        False,
        description="until a person who took the session over (live view) hands it back; "
        "give a long --timeout",
    )


class WaitResult(PageResult):
    met: list[str] = Field(description="the conditions, all of which held")
    waited_ms: int
    url_match: UrlMatch | None = Field(None, description="how --url was matched")
    note: str | None = None


def _loop_time_at(monotonic: float) -> float:
    """The event loop's clock at time.monotonic() `monotonic`."""
    return asyncio.get_running_loop().time() + (monotonic - time.monotonic())


def _conditions(call: Call, tab: Tab, params: WaitParams, budget_ms: float) -> list[Condition]:
    found: list[Condition] = []
    if params.text is not None:
        found.append(TextCondition(tab, params.text, gone=False))
    if params.text_gone is not None:
        found.append(TextCondition(tab, params.text_gone, gone=True))
    if params.url is not None:
        found.append(UrlCondition(tab, params.url))
    if params.ref is not None:
        found.append(RefCondition(tab, params.ref, False, call.remaining_ms))
    if params.ref_gone is not None:
        found.append(RefCondition(tab, params.ref_gone, True, call.remaining_ms))
    if params.load is not None:
        found.append(LoadCondition(tab, params.load, max(1.0, budget_ms)))
    if params.ms is not None:
        found.append(SleepCondition(params.ms, budget_ms))
    if params.handback:
        takeovers, name = call.runtime.live.takeovers, call.session_name
        found.append(HandbackCondition(lambda: takeovers.get(name) is not None))
    return found


async def _holds(tab: Tab, condition: Condition) -> bool:
    try:
        return await condition.holds()
    except PlaywrightError:
        if tab.page.is_closed():
            raise
        return False  # e.g. the document went away mid-check: ask again next round


@command("wait", reads_only=True)
async def wait(call: Call, params: WaitParams) -> WaitResult:
    """Wait until every condition given holds: text, URL, element, load state, or time."""
    tab = await call.tab(params.tab)
    started = time.monotonic()
    end = call.deadline - min(MARGIN_S, (call.deadline - started) / 4)
    conditions = _conditions(call, tab, params, (end - started) * 1000)
    if not conditions:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "wait needs at least one condition",
            "e.g. wait --text Saved, --text-gone Loading, --url '*/done', --ref e12, "
            "--ref-gone e12, --load networkidle, --ms 500, --handback",
        )
    held = [False] * len(conditions)
    try:
        while True:
            # A round the deadline cuts short proves nothing; it leaves the conditions it
            # did not reach as the last round found them, for the error to name.
            whole = False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(_loop_time_at(end)):
                    for i, condition in enumerate(conditions):
                        held[i] = await _holds(tab, condition)
                    whole = True
            if whole and all(held):
                break
            now = time.monotonic()
            if now >= end:
                unmet = [c for c, ok in zip(conditions, held, strict=True) if not ok]
                took = round((now - call.started) * 1000)
                given = round((call.deadline - call.started) * 1000)
                raise SteadyhandError(
                    ErrorCode.TIMEOUT,
                    f"wait gave up after {took} ms of its {given} ms; still unmet: "
                    + "; ".join(c.unmet() for c in unmet),
                    "raise --timeout if the page is just slow; a snapshot shows what it shows now",
                    {"unmet": [c.label for c in unmet]},
                )
            await asyncio.sleep(min(POLL_S, end - now))
    finally:
        for condition in conditions:
            await condition.close()
    sleep = next((c for c in conditions if isinstance(c, SleepCondition)), None)
    url = next((c for c in conditions if isinstance(c, UrlCondition)), None)
    return WaitResult(
        **await page_result(tab),
        met=[c.label for c in conditions],
        waited_ms=round((time.monotonic() - started) * 1000),
        url_match=url.how if url else None,
        note=f"--ms {sleep.ms} was cut to fit the command's deadline (raise --timeout)"
        if sleep and sleep.capped
        else None,
    )
