"""The AT-SPI library (libatspi through PyGObject), and reading one accessible object.

Every function here runs on the AT-SPI thread (worker.py). Objects are read field by
field; a call that fails (the object went away, the application is hung) leaves that
field empty rather than failing the whole read, because toolkits differ in what they
implement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from steadyhand.desktop.deadline import Deadline
from steadyhand.desktop.gi_path import ensure_gi

OFFSCREEN = -(2**31)  # GTK's extents for a widget that is not mapped (closed popups)
STATES = (
    "focused",
    "checked",
    "selected",
    "expanded",
    "pressed",
    "editable",
    "showing",
    "visible",
    "sensitive",
    "focusable",
)


def atspi() -> Any:
    ensure_gi()
    import gi

    gi.require_version("Atspi", "2.0")
    from gi.repository import Atspi

    return Atspi


def glib() -> Any:
    ensure_gi()
    from gi.repository import GLib

    return GLib


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    width: int
    height: int

    @property
    def centre(self) -> tuple[int, int]:
        return self.x + self.width // 2, self.y + self.height // 2

    def on_screen(self, width: int, height: int) -> bool:
        return (
            self.x != OFFSCREEN
            and self.width > 0
            and self.height > 0
            and self.x + self.width > 0
            and self.y + self.height > 0
            and self.x < width
            and self.y < height
        )


@dataclass
class Facts:
    """What one accessible object says about itself."""

    pid: int
    path: str
    role: str
    name: str
    states: frozenset[str]
    box: Box | None
    actions: tuple[str, ...]
    interfaces: frozenset[str]
    text: str | None  # an editable field's or a label's text
    children: int


def read(obj: Any, pid: int, deadline: Deadline | None = None) -> Facts:
    """One object's facts; with a deadline, checked before every call (a hung application
    costs each call libatspi's timeout)."""
    Atspi = atspi()

    def _try(call: Any, default: Any = None) -> Any:
        if deadline is not None:
            deadline.check("reading the accessibility tree")
        return attempt(call, default)

    interfaces = frozenset(_try(obj.get_interfaces, []) or [])
    role = str(_try(obj.get_role_name, "") or "")
    state_set = _try(obj.get_state_set)
    states = frozenset(
        name
        for name in STATES
        if state_set is not None and state_set.contains(getattr(Atspi.StateType, name.upper()))
    )
    box = None
    if "Component" in interfaces:
        rect = _try(lambda: Atspi.Component.get_extents(obj, Atspi.CoordType.SCREEN))
        if rect is not None:
            box = Box(rect.x, rect.y, rect.width, rect.height)
    actions: tuple[str, ...] = ()
    if "Action" in interfaces:
        count = _try(lambda: Atspi.Action.get_n_actions(obj), 0) or 0
        actions = tuple(
            str(_try(lambda i=i: Atspi.Action.get_action_name(obj, i), "") or "")
            for i in range(count)
        )
    text = None
    if "Text" in interfaces and ("EditableText" in interfaces or "editable" in states):
        # Chromium's web fields are editable Text without EditableText.
        text = _try(lambda: Atspi.Text.get_text(obj, 0, -1))
    elif role == "combo box":  # its choice
        text = _try(lambda: choice(Atspi, obj))
    return Facts(
        pid=pid,
        path=str(_try(lambda: obj.path, "") or ""),
        role=role,
        name=" ".join(str(_try(obj.get_name, "") or "").split()),
        states=states,
        box=box,
        actions=actions,
        interfaces=interfaces,
        text=text,
        children=int(_try(obj.get_child_count, 0) or 0),
    )


def choice(Atspi: Any, obj: Any) -> str | None:
    """A combo box's chosen option, as the application holds it: GTK says so through the
    combo's own selection; Qt names the combo after its current option (its popup list's
    selection is only the list's, not the combo's); Chromium selects it in the popup."""
    if "Selection" in obj.get_interfaces():
        return _selected_name(Atspi, obj)
    name = " ".join((obj.get_name() or "").split())
    if obj.get_child_count() == 1:
        items = obj.get_child_at_index(0)
        names = {
            " ".join((items.get_child_at_index(i).get_name() or "").split())
            for i in range(items.get_child_count())
        }
        if name in names:
            return name
        if "Selection" in items.get_interfaces():
            return _selected_name(Atspi, items)
    return None


def _selected_name(Atspi: Any, holder: Any) -> str | None:
    if not Atspi.Selection.get_n_selected_children(holder):
        return None
    chosen = Atspi.Selection.get_selected_child(holder, 0)
    return " ".join((chosen.get_name() or "").split()) if chosen is not None else None


def attempt(call: Any, default: Any = None) -> Any:
    """`call()`, or `default` when the object fails to answer."""
    try:
        return call()
    except Exception:  # GLib.Error from D-Bus: gone, hung, or not implemented
        return default
