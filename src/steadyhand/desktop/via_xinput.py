"""The `xinput` transport: real pointer and keyboard input (XTEST) at the element's box —
for elements that offer no accessible action, and for what accessibility cannot do (drag,
the wheel)."""

from __future__ import annotations

import time
from typing import Any

from steadyhand.desktop import display
from steadyhand.desktop.atspi import Facts, read
from steadyhand.desktop.deadline import Deadline
from steadyhand.desktop.transport import TEXT_ROLES, Target, Want
from steadyhand.desktop.tree import ancestor
from steadyhand.desktop.via_atspi import no_option, option, option_item
from steadyhand.desktop.worker import AtspiWorker
from steadyhand.errors import ErrorCode, SteadyhandError

POPUP_WAIT_S = 1.0  # how long a combo box's list may take to open
FOCUS_WAIT_S = 0.5  # how long a clicked field may take to report the focus


class XInputTransport:
    """Real input: XTEST on X11 (`xinput`), the virtual pointer and keyboard on Wayland
    (`wlinput`)."""

    def __init__(self, worker: AtspiWorker) -> None:
        self.worker = worker
        self.name = display.route()

    def can_handle(self, target: Target, want: Want) -> str | None:
        if spot(target, want) is None:
            return "it is not on screen" + (
                " and no pane of it is" if want.kind == "scroll" else ""
            )
        texty = target.facts.role in TEXT_ROLES or "editable" in target.facts.states
        if want.kind == "focus" and not texty:
            return "a click would do more than focus it"  # a button would be pressed
        if want.kind == "type" and not texty:
            return "it is not a text field"  # keys typed at a button would press it
        if want.kind == "select" and target.facts.role != "combo box":
            return "it is not a combo box to open"
        return None

    async def health(self) -> dict[str, Any]:
        width, height = await self.worker.run(
            lambda _: display.size(), time.monotonic() + 2.0, "display health"
        )
        return {"ok": True, "screen": f"{width}x{height}"}

    async def execute(self, target: Target, want: Want, deadline: float) -> str:
        return await self.worker.run(
            lambda limit: self.act(target, want, limit),
            deadline,
            f"X input {want.kind} on {target.ref}",
        )

    def act(self, target: Target, want: Want, limit: Deadline) -> str:
        centre = spot(target, want)
        assert centre is not None  # can_handle said so
        # Looked at here, on the AT-SPI thread, and only when X input is to act: reading
        # the window stack costs ~8 ms, more than an accessible action itself.
        if display.covered(target.facts.pid, centre):
            raise SteadyhandError(
                ErrorCode.NOT_ACTIONABLE,
                "another application's window is on top of it",
                "bring its window up first (`desktop window focus ID`)",
            )
        if want.kind in ("click", "focus"):
            display.click(*centre)
            return "click"
        if want.kind == "type":
            display.click(*centre)  # focus it, select what it holds, type over it
            focused(target, limit)
            display.press("ctrl+a")
            if want.text:
                display.type_text(want.text)
            else:
                display.press("BackSpace")
            return "typed keys"
        if want.kind == "select":
            pick_by_pointer(target, want.value or "", limit)
            return "select"
        if want.kind == "scroll":
            display.scroll(*centre, want.dx, want.dy)
            return "wheel"
        assert want.to is not None
        display.drag(centre, want.to)
        return "drag"


def spot(target: Target, want: Want) -> tuple[int, int] | None:
    """Where the pointer acts: the element's centre, on screen; to scroll an element that
    is out of view, the centre of the pane that holds it."""
    screen = target.screen
    box = target.facts.box
    if box is not None and box.on_screen(*screen):
        return box.centre
    pane = ancestor(target.node, "scroll pane") if want.kind == "scroll" else None
    # As last walked: reading a GTK pane again just after it scrolled stalled for
    # libatspi's whole timeout (1-2 s) in a third of the tries.
    if pane is not None and pane.facts.box is not None and pane.facts.box.on_screen(*screen):
        return pane.facts.box.centre
    return None


def focused(target: Target, limit: Deadline) -> None:
    """Wait until the clicked field has the focus: keys typed anywhere else (another window
    on top, a field that refused the click) would land in the wrong place."""
    until = min(limit.at, time.monotonic() + FOCUS_WAIT_S)
    while "focused" not in read(target.node.obj, target.facts.pid, limit).states:
        if time.monotonic() > until:
            raise SteadyhandError(
                ErrorCode.ACTION_FAILED,
                "clicking it did not give it the keyboard focus: not typing blind",
                "focus its window first (`desktop window focus ID`), or snapshot again",
            )
        time.sleep(0.02)


def pick_by_pointer(target: Target, value: str, limit: Deadline) -> None:
    """Open a combo box's popup with a real click, then click the option in it."""
    obj = target.node.obj
    _holder, index, options = option(obj, value)
    if index is None:
        raise no_option(target, value, options)
    assert target.facts.box is not None
    screen = target.screen
    display.click(*target.facts.box.centre)
    until = min(limit.at, time.monotonic() + POPUP_WAIT_S)
    while time.monotonic() < until:
        shown: Facts = read(option_item(obj, index), target.facts.pid, limit)
        if shown.box is not None and shown.box.on_screen(*screen):
            display.click(*shown.box.centre)
            return
        time.sleep(0.05)
