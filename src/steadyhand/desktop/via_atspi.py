"""The `atspi` transport: the element's own accessible interfaces — its Action (press,
click, toggle), EditableText, Selection, Component focus, and its scroll bars' Value."""

from __future__ import annotations

import time
from typing import Any

from steadyhand.desktop.atspi import atspi
from steadyhand.desktop.deadline import timed_out
from steadyhand.desktop.transport import Target, Want
from steadyhand.desktop.tree import Node
from steadyhand.desktop.worker import AtspiWorker
from steadyhand.errors import ErrorCode, SteadyhandError

# Tried in this order: GTK says click; Qt's check box has Toggle (its Press does not toggle).
PRESS_ACTIONS = ("click", "toggle", "press", "activate", "jump")
WHEEL_STEPS_PER_RANGE = 20  # one wheel step, when a scroll bar gives no increment
HEALTH_S = 2.0
# How libatspi says a D-Bus call got no reply within its timeout.
NO_REPLY = ("Timeout was reached", "Did not receive a reply", "NoReply")


class AtspiTransport:
    name = "atspi"

    def __init__(self, worker: AtspiWorker) -> None:
        self.worker = worker

    def can_handle(self, target: Target, want: Want) -> str | None:
        facts = target.facts
        if want.kind == "click":
            return None if press_action(facts.actions) else "it offers no press action"
        if want.kind == "type":
            return None if "EditableText" in facts.interfaces else "it has no editable text"
        if want.kind == "select":
            return (
                None
                if facts.role in ("combo box", "list box", "list", "menu")
                else ("it is not a combo box or list")
            )
        if want.kind == "focus":
            return None if "Component" in facts.interfaces else "it has no component"
        if want.kind == "scroll":
            return None if scroll_bars(target.node) else "no scroll bar holds it"
        return f"AT-SPI has no {want.kind} action"

    async def health(self) -> dict[str, Any]:
        apps = await self.worker.run(
            lambda _: atspi().get_desktop(0).get_child_count(),
            time.monotonic() + HEALTH_S,
            "AT-SPI health",
        )
        return {"ok": True, "applications": apps}

    async def execute(self, target: Target, want: Want, deadline: float) -> str:
        return await self.worker.run(
            lambda _: self.answered(target, want), deadline, f"AT-SPI {want.kind} on {target.ref}"
        )

    def answered(self, target: Target, want: Want) -> str:
        """`act`, where an application that did not answer in time is a `timeout`, not a
        failure to hand over: the call reached it and may still take effect (a slow click
        handler), so another transport acting too could do it twice."""
        try:
            return self.act(target, want)
        except Exception as exc:
            if any(sign in str(exc) for sign in NO_REPLY):
                raise timed_out(
                    f"{target.facts.role} {target.facts.name!r} ({target.ref}) did not answer "
                    f"the {want.kind} in time"
                ) from exc
            raise

    def act(self, target: Target, want: Want) -> str:
        Atspi, obj = atspi(), target.node.obj
        if want.kind == "click":
            chosen = press_action(target.facts.actions)
            assert chosen is not None  # can_handle said so
            names = [a.lower() for a in target.facts.actions]
            if not Atspi.Action.do_action(obj, names.index(chosen)):
                raise SteadyhandError(  # nothing done: the next transport may try
                    ErrorCode.ACTION_FAILED, f"the application refused its {chosen!r} action", ""
                )
            return chosen
        if want.kind == "type":
            Atspi.EditableText.set_text_contents(obj, want.text or "")
            return "set text"
        if want.kind == "select":
            holder, index, options = option(obj, want.value or "")
            if index is None:
                raise no_option(target, want.value or "", options)
            item = option_item(obj, index)
            if "select" in action_names(item):  # Chromium: the option's action commits it
                Atspi.Action.do_action(item, action_names(item).index("select"))
                return "select option"
            Atspi.Selection.select_child(holder, index)
            return "select"
        if want.kind == "focus":
            if not Atspi.Component.grab_focus(obj):
                raise SteadyhandError(
                    ErrorCode.ACTION_FAILED, "the application refused to focus it", ""
                )
            return "grab focus"
        for bar, vertical in scroll_bars(target.node):
            steps = want.dy if vertical else want.dx
            if steps:
                now = Atspi.Value.get_current_value(bar)
                low, high = Atspi.Value.get_minimum_value(bar), Atspi.Value.get_maximum_value(bar)
                step = (
                    Atspi.Value.get_minimum_increment(bar) or (high - low) / WHEEL_STEPS_PER_RANGE
                )
                Atspi.Value.set_current_value(bar, max(low, min(high, now + steps * step)))
        return "set scroll value"


def press_action(actions: tuple[str, ...] | list[str]) -> str | None:
    names = [a.lower() for a in actions]
    return next((n for n in PRESS_ACTIONS if n in names), None)


def scroll_bars(node: Node) -> list[tuple[Any, bool]]:
    """The scroll bars (object, vertical) of the nearest scroll pane that holds `node` (or
    is it), as last walked."""
    pane: Node | None = node
    while pane is not None and pane.facts.role != "scroll pane":
        pane = pane.parent
    if pane is None:
        return []
    return [
        (bar.obj, bar.facts.box is not None and bar.facts.box.height > bar.facts.box.width)
        for bar in pane.children
        if bar.facts.role == "scroll bar" and "Value" in bar.facts.interfaces
    ]


def action_names(obj: Any) -> list[str]:
    if "Action" not in obj.get_interfaces():
        return []
    Atspi = atspi()
    return [
        Atspi.Action.get_action_name(obj, i).lower() for i in range(Atspi.Action.get_n_actions(obj))
    ]


def options_of(obj: Any) -> Any:
    """What holds a combo box's options: the popup menu or list under it, or itself."""
    if obj.get_child_count() == 1 and "Selection" in obj.get_child_at_index(0).get_interfaces():
        return obj.get_child_at_index(0)
    return obj


def option_item(obj: Any, index: int) -> Any:
    return options_of(obj).get_child_at_index(index)


def option(obj: Any, value: str) -> tuple[Any, int | None, list[str]]:
    """Where to select (GTK: the combo box itself; Qt: its list), the index of the option
    named `value` (None: no such option), and every option's name."""
    items = options_of(obj)
    holder = obj if "Selection" in obj.get_interfaces() else items
    names = [
        " ".join((items.get_child_at_index(i).get_name() or "").split())
        for i in range(items.get_child_count())
    ]
    index = names.index(value) if value in names else None
    return holder, index, names


def no_option(target: Target, value: str, options: list[str]) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.NOT_FOUND,
        f"{target.ref} ({target.facts.role} {target.facts.name!r}) has no option {value!r}",
        "options: " + ", ".join(repr(o) for o in options),
    )
