"""The screenshot command: the tab, one element, or the page with ref labels."""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from steadyhand.act.pixel_mask import MASK_COLOR, covered, unmasking
from steadyhand.act.resolve import element
from steadyhand.act.results import PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.table import GateRule, Result, TabParams, command, file_path
from steadyhand.engine import playwright_errors
from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.labels import draw, erase, labels_for
from steadyhand.snapshot.take import take


class ScreenshotParams(TabParams):
    ref: str | None = Field(None, description="only this element")
    full_page: bool = Field(False, description="the whole scrollable page, not the viewport")
    path: str | None = file_path("where to write the PNG (default: the artifacts dir)")
    labels: bool = Field(
        False, description="draw a box and its ref over every element that can be acted on"
    )
    unmasked: bool = Field(
        False,
        description="without the black boxes over password fields and fields a secret was "
        "typed into (a person must approve)",
    )


class LabelInfo(Result):
    ref: str
    role: str
    name: str
    box: list[int] = Field(description="x, y, width, height in CSS pixels of the image")


class ScreenshotResult(PageResult):
    path: str
    bytes: int
    labels: list[LabelInfo] | None = Field(None, description="the labels drawn, with --labels")


CAPTURE_TRIES = 4


async def capture_page(
    call: Call, tab: Tab, path: Path, full_page: bool, unmasked: bool = False
) -> bytes:
    """A PNG of the page; retried briefly while a headed window has no frame to capture yet.

    A headed Chromium (on Xvfb, say) answers "Unable to capture screenshot" until its
    window has painted once; that clears within a few hundred milliseconds.
    """
    for attempt in range(1, CAPTURE_TRIES + 1):
        try:
            return await tab.page.screenshot(
                path=path,
                full_page=full_page,
                timeout=call.remaining_ms(),
                mask=[] if unmasked else covered(tab.page),
                mask_color=MASK_COLOR,
            )
        except PlaywrightError as exc:
            if not playwright_errors.screenshot_unavailable(str(exc)) or attempt == CAPTURE_TRIES:
                raise
            await asyncio.sleep(0.15 * attempt)
    raise AssertionError("unreachable")


def asks_unmasked(params: ScreenshotParams) -> str | None:
    """Why the call asks a person: a picture with the secrets' boxes lifted."""
    return "a picture without the boxes that cover secrets" if params.unmasked else None


@command("screenshot", reads_only=True, gate_rule=GateRule(asks=asks_unmasked))
async def screenshot(call: Call, params: ScreenshotParams) -> ScreenshotResult:
    """Save a PNG of the tab (or one element) and return its path."""
    tab = await call.tab(params.tab)
    path = await call.output_path(params.path, "screenshot", label=tab.id, ext="png")
    if params.labels and params.ref:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "--labels draws over the whole page; it does not take --ref",
            "drop --ref, or take the element's screenshot without --labels",
        )
    drawn: list[LabelInfo] | None = None
    # (--unmasked: the boxes come off around the capture only.)
    if params.ref:
        async with (
            element(tab, params.ref, call.remaining_ms()) as target,
            unmasking(tab.page, params.unmasked),
        ):
            png = await target.handle.screenshot(
                path=path,
                timeout=call.remaining_ms(),
                mask=[] if params.unmasked else covered(tab.page),
                mask_color=MASK_COLOR,
            )
    elif params.labels:
        png, drawn = await labelled(call, tab, path, params.full_page, params.unmasked)
    else:
        async with unmasking(tab.page, params.unmasked):
            png = await capture_page(call, tab, path, params.full_page, params.unmasked)
    call.keep(path, "screenshot", tab.id)
    return ScreenshotResult(**await page_result(tab), path=str(path), bytes=len(png), labels=drawn)


async def labelled(
    call: Call, tab: Tab, path: Path, full_page: bool, unmasked: bool = False
) -> tuple[bytes, list[LabelInfo]]:
    """A PNG with every actionable element boxed and labelled; the page is left as it was."""
    taken = await take(tab, call.remaining_ms(), boxes=True)
    size = tab.page.viewport_size
    viewport = None if full_page or size is None else (size["width"], size["height"])
    found = await labels_for(tab, taken, viewport)
    try:
        await draw(tab, found)
        async with unmasking(tab.page, unmasked):
            png = await capture_page(call, tab, path, full_page, unmasked)
    finally:
        await erase(tab)
    infos = [LabelInfo(ref=f.ref, role=f.role, name=f.name, box=list(f.box)) for f in found]
    return png, infos
