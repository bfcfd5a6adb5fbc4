"""A person's clicks, keys and wheel turns in the live view, forwarded to a tab.

The page sends events in the coordinates of the tab's viewport (CSS pixels, as the
screencast's metadata gives its size). They go to Chromium as CDP Input events through
Playwright's mouse and keyboard (which speak `Input.dispatchMouseEvent` and
`Input.dispatchKeyEvent` and know every key's code). Only a session a person took over
takes them: the agent is paused meanwhile, so the two never type into each other.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from playwright.async_api import Error, Page
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.live.takeover import Takeover

MAX_EVENTS = 200
EVENTS_TIMEOUT_S = 15.0


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Click(_Event):
    type: Literal["click"]
    x: float = Field(ge=0, le=100_000)
    y: float = Field(ge=0, le=100_000)
    button: Literal["left", "right", "middle"] = "left"
    count: int = Field(1, ge=1, le=3)


class Pointer(_Event):
    """A mouse button pressed or released, or the mouse moved (a drag between them)."""

    type: Literal["down", "up", "move"]
    x: float = Field(ge=0, le=100_000)
    y: float = Field(ge=0, le=100_000)
    button: Literal["left", "right", "middle"] = "left"
    count: int = Field(1, ge=1, le=3, description="the click count: 2 on a double click")


class Key(_Event):
    type: Literal["key"]
    key: str = Field(min_length=1, max_length=40, pattern=r"^[^+]+$|^\+$")
    modifiers: list[Literal["Alt", "Control", "Meta", "Shift"]] = []


class Text(_Event):
    type: Literal["text"]
    text: str = Field(min_length=1, max_length=10_000)


class Wheel(_Event):
    type: Literal["wheel"]
    x: float = Field(ge=0, le=100_000)
    y: float = Field(ge=0, le=100_000)
    dx: float = Field(0, ge=-100_000, le=100_000)
    dy: float = Field(0, ge=-100_000, le=100_000)


InputEvent = Annotated[Click | Pointer | Key | Text | Wheel, Field(discriminator="type")]
_EVENTS: TypeAdapter[list[InputEvent]] = TypeAdapter(list[InputEvent])


def parse_events(raw: Any) -> list[InputEvent]:
    """The events of a `live.input` request, or `bad_request` saying which one is wrong."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_EVENTS:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"events must be a list of 1 to {MAX_EVENTS} input events",
            'e.g. [{"type": "click", "x": 120, "y": 40}, {"type": "text", "text": "hi"}]',
        )
    try:
        return _EVENTS.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        index, *inner = first["loc"]
        where = f"events[{index}]" + "".join(f".{p}" for p in inner[1:])
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"bad input event at {where}: {first['msg']}",
            "types: click, down, up, move {x, y, button, count}, key {key, modifiers}, "
            "text {text}, wheel {x, y, dx, dy}",
        ) from exc


async def forward(page: Page, events: list[InputEvent], held: Takeover) -> None:
    """Play `events` on `page` in order, counting them on the takeover; `timeout` when the
    tab does not take them (a dialog stops it, or it hangs)."""
    try:
        await asyncio.wait_for(_play(page, events, held), EVENTS_TIMEOUT_S)
    except TimeoutError as exc:
        raise SteadyhandError(
            ErrorCode.TIMEOUT,
            f"the tab did not take the input within {EVENTS_TIMEOUT_S:g} s",
            "a dialog may be open (answer it: `dialog accept|dismiss`) or the page hangs",
        ) from exc


async def _play(page: Page, events: list[InputEvent], held: Takeover) -> None:
    try:
        for event in events:
            if isinstance(event, Click):
                await page.mouse.click(
                    event.x, event.y, button=event.button, click_count=event.count
                )
                held.clicks += 1
            elif isinstance(event, Pointer):
                await page.mouse.move(event.x, event.y)
                if event.type == "down":
                    await page.mouse.down(button=event.button, click_count=event.count)
                    held.clicks += 1
                elif event.type == "up":
                    await page.mouse.up(button=event.button, click_count=event.count)
            elif isinstance(event, Key):
                await page.keyboard.press("+".join([*event.modifiers, event.key]))
                held.keys += 1
            elif isinstance(event, Text):
                await page.keyboard.type(event.text)
                held.keys += len(event.text)
            else:
                await page.mouse.move(event.x, event.y)
                await page.mouse.wheel(event.dx, event.dy)
    except Error as exc:
        message = str(exc).splitlines()[0]
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            f"the tab did not take the input: {message}",
            "the key name is a KeyboardEvent.key (Enter, a, ArrowLeft); reload the live view",
        ) from exc
