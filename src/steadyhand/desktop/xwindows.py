"""Top-level X windows, read and asked through plain X calls: list them, find one, ask to
focus, move, resize or close it (windows.py waits for and verifies each effect).

With a window manager (EWMH: `_NET_SUPPORTING_WM_CHECK`), the windows are its
`_NET_CLIENT_LIST` and actions are requests to it (`_NET_ACTIVE_WINDOW`,
`_NET_MOVERESIZE_WINDOW`, `_NET_CLOSE_WINDOW`); without one (a bare Xvfb) toolkit windows
are the root's children, and actions are plain X requests (XConfigureWindow,
XSetInputFocus). Either way every action is read back: an answer says what the X server
shows after it, not what was asked.

The functions here make X calls on the shared connection (xinput.display()), so they run
on the desktop worker thread; windows.py's `Windows` wraps them for the daemon's event
loop.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from steadyhand.desktop import xinput
from steadyhand.errors import ErrorCode, SteadyhandError

WINDOW_ID = re.compile(r"^(0x[0-9a-fA-F]{1,8}|[0-9]{1,10})$")
SOURCE_PAGER = 2  # EWMH source indication: a pager acts for the user (WMs obey it)
STATIC_GRAVITY = 10  # x, y name the client window's corner, not its frame's


@dataclass
class WindowFacts:
    """One top-level window as the X server shows it (x, y: root coordinates)."""

    id: int
    title: str
    pid: int | None
    instance: str  # WM_CLASS: the instance part (often the program's name)
    wm_class: str  # WM_CLASS: the class part
    x: int
    y: int
    width: int
    height: int
    mapped: bool
    viewable: bool
    focused: bool
    frame: tuple[int, int, int, int] | None = None  # WM's left, right, top, bottom
    protocols: list[str] = field(default_factory=list)

    @property
    def hex_id(self) -> str:
        return hex(self.id)

    def summary(self) -> str:
        return f"{self.hex_id} {self.title!r} (pid {self.pid})"


def parse_id(text: str) -> int:
    """'0x1a00003' (or decimal) -> the window id; anything else is a bad_request."""
    if not WINDOW_ID.match(text.strip()):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{text!r} is not an X window id",
            "give an id as `desktop windows` prints it, e.g. 0x1a00003",
        )
    return int(text.strip(), 0)


# ---------------------------------------------------------------- reading (worker thread)


def _atom(name: str) -> int:
    return int(xinput.display().intern_atom(name))


def _xerror() -> type[Exception]:
    from Xlib import error

    return error.XError  # type: ignore[no-any-return]


def _property(window: Any, name: str, kind: int = 0) -> Any:
    """A property's value (an array, bytes or str), or None when unset or the window is gone."""
    try:
        prop = window.get_full_property(_atom(name), kind)
    except _xerror():
        return None
    return None if prop is None else prop.value


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return "" if value is None else str(value)


def wm_window() -> Any | None:
    """The EWMH window manager's check window, or None when no such manager runs."""
    d = xinput.display()
    root = d.screen().root
    found = _property(root, "_NET_SUPPORTING_WM_CHECK")
    if not found:
        return None
    check = d.create_resource_object("window", int(found[0]))
    own = _property(check, "_NET_SUPPORTING_WM_CHECK")
    # A manager that died leaves the root's property behind: its window is gone with it.
    return check if own and int(own[0]) == int(found[0]) else None


def wm_name() -> str | None:
    """The running window manager's name ('Openbox'), or None without one."""
    check = wm_window()
    if check is None:
        return None
    return _text(_property(check, "_NET_WM_NAME")) or "unnamed"


def _supported(name: str) -> bool:
    root = xinput.display().screen().root
    atoms = _property(root, "_NET_SUPPORTED") or []
    return _atom(name) in [int(a) for a in atoms]


def _focus_chain() -> set[int]:
    """The window with the input focus and its ancestors (empty: no window has it)."""
    d = xinput.display()
    focus = d.get_input_focus().focus
    chain: set[int] = set()
    root_id = int(d.screen().root.id)
    while not isinstance(focus, int) and focus is not None and int(focus.id) != root_id:
        chain.add(int(focus.id))
        try:
            focus = focus.query_tree().parent
        except _xerror():
            break
    return chain


def _candidates(everything: bool) -> list[Any]:
    """The top-level windows: the WM's clients, else the root's toolkit windows."""
    from Xlib import X

    d = xinput.display()
    root = d.screen().root
    if wm_window() is not None:
        listed = _property(root, "_NET_CLIENT_LIST")
        if listed is not None:
            return [d.create_resource_object("window", int(w)) for w in listed]
    found = []
    for window in root.query_tree().children:
        try:
            attributes = window.get_attributes()
        except _xerror():
            continue  # gone meanwhile
        if attributes.win_class != X.InputOutput:
            continue  # GTK's client leader, and other input-only helpers
        if not everything and (
            attributes.map_state == X.IsUnmapped or attributes.override_redirect
        ):
            continue  # Qt's selection owners, menus and tooltips
        if _property(window, "WM_STATE") is not None or _title(window):
            found.append(window)
    return found


def _title(window: Any) -> str:
    try:
        return _text(_property(window, "_NET_WM_NAME")) or _text(window.get_wm_name())
    except _xerror():
        return ""


def read(window: Any, focus: set[int] | None = None) -> WindowFacts | None:
    """What the X server shows of `window` now; None when it is gone."""
    from Xlib import X

    d = xinput.display()
    try:
        attributes = window.get_attributes()
        geometry = window.get_geometry()
        origin = d.screen().root.translate_coords(window, 0, 0)
        wm_class = window.get_wm_class() or ("", "")
        protocols = window.get_wm_protocols() or []
    except _xerror():
        return None
    pid = _property(window, "_NET_WM_PID")
    extents = _property(window, "_NET_FRAME_EXTENTS")
    chain = _focus_chain() if focus is None else focus
    return WindowFacts(
        id=int(window.id),
        title=_title(window),
        pid=int(pid[0]) if pid else None,
        instance=str(wm_class[0]),
        wm_class=str(wm_class[1]),
        x=int(origin.x),
        y=int(origin.y),
        width=int(geometry.width),
        height=int(geometry.height),
        mapped=attributes.map_state != X.IsUnmapped,
        viewable=attributes.map_state == X.IsViewable,
        focused=int(window.id) in chain,
        frame=(int(extents[0]), int(extents[1]), int(extents[2]), int(extents[3]))
        if extents and len(extents) == 4
        else None,
        protocols=[str(d.get_atom_name(p)) for p in protocols],
    )


def list_windows(everything: bool = False) -> list[WindowFacts]:
    """The top-level windows (with `everything`, also unmapped and override-redirect ones
    when there is no window manager)."""
    focus = _focus_chain()
    found = (read(w, focus) for w in _candidates(everything))
    return [f for f in found if f is not None]


def stacking() -> list[WindowFacts]:
    """The viewable top-level windows from the bottom of the stack to the top."""
    root = xinput.display().screen().root
    if wm_window() is not None:
        listed = _property(root, "_NET_CLIENT_LIST_STACKING")
        if listed is not None:
            d = xinput.display()
            windows = [d.create_resource_object("window", int(w)) for w in listed]
            found = [read(w) for w in windows]
            return [f for f in found if f is not None and f.viewable]
    # Without a window manager the root's children come in stacking order, bottom first.
    return [f for f in list_windows() if f.viewable]


def top_window_at(stack: list[WindowFacts], x: int, y: int) -> WindowFacts | None:
    """The window on top at screen point (x, y) of a `stacking()` list."""
    for window in reversed(stack):
        if window.x <= x < window.x + window.width and window.y <= y < window.y + window.height:
            return window
    return None


def covered(pid: int, point: tuple[int, int], stack: list[WindowFacts] | None = None) -> bool:
    """Whether another application's window is on top at `point` (without a window manager
    every window sits where its app put it, often at 0,0)."""
    top = top_window_at(stacking() if stack is None else stack, *point)
    return top is not None and top.pid is not None and top.pid != pid


def find(window_id: int) -> tuple[Any, WindowFacts]:
    """The top-level window with this id, read now; not_found lists the ones there are."""
    for window in _candidates(everything=True):
        if int(window.id) == window_id:
            facts = read(window)
            if facts is not None:
                return window, facts
    shown = list_windows()
    raise SteadyhandError(
        ErrorCode.NOT_FOUND,
        f"no top-level window {hex(window_id)}",
        "windows: "
        + (", ".join(w.summary() for w in shown) or "none")
        + " (`desktop windows` lists them)",
    )


def still_there(window_id: int) -> WindowFacts | None:
    """The window's facts while it is still a top-level window on screen; None once it is
    destroyed, unmapped or left the WM's client list."""
    for window in _candidates(everything=True):
        if int(window.id) == window_id:
            facts = read(window)
            return facts if facts is not None and facts.mapped else None
    return None


# ---------------------------------------------------------------- acting (worker thread)


def _checked(send: Callable[[Any], None], what: str) -> None:
    """Make a request that has no reply, and turn an X error it caused into ours."""
    from Xlib import error

    catch = error.CatchError()
    send(catch)
    xinput.display().sync()
    if catch.get_error() is not None:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            f"the X server refused to {what}: {catch.get_error()}",
            "the window may have gone meanwhile; `desktop windows` lists them",
        )


def _client_message(window: Any, kind: str, data: list[int], to_root: bool) -> None:
    from Xlib import X
    from Xlib.protocol import event

    d = xinput.display()
    message = event.ClientMessage(
        window=window, client_type=_atom(kind), data=(32, [*data, 0, 0, 0, 0, 0][:5])
    )
    target = d.screen().root if to_root else window
    mask = X.SubstructureRedirectMask | X.SubstructureNotifyMask if to_root else X.NoEventMask
    _checked(lambda catch: target.send_event(message, event_mask=mask, onerror=catch), kind)


def ask_focus(window: Any, facts: WindowFacts) -> str:
    """Ask for the input focus on `window` and raise it; the transport used."""
    from Xlib import X

    if wm_window() is not None and _supported("_NET_ACTIVE_WINDOW"):
        _client_message(window, "_NET_ACTIVE_WINDOW", [SOURCE_PAGER, X.CurrentTime], True)
        return "ewmh"
    if not facts.viewable:
        raise SteadyhandError(
            ErrorCode.NOT_ACTIONABLE,
            f"window {facts.summary()} is not on screen (unmapped), so it cannot take focus",
            "without a window manager a hidden window can only be shown by its application",
        )
    _checked(lambda catch: window.raise_window(onerror=catch), "raise the window")
    _checked(
        lambda catch: window.set_input_focus(X.RevertToParent, X.CurrentTime, onerror=catch),
        "set the input focus",
    )
    return "x11"


def ask_geometry(window: Any, **asked: int) -> str:
    """Ask for a new position (x, y) and/or size (width, height); the transport used."""
    if wm_window() is not None and _supported("_NET_MOVERESIZE_WINDOW"):
        flags = STATIC_GRAVITY | (SOURCE_PAGER << 12)
        values = []
        for bit, name in enumerate(("x", "y", "width", "height")):
            if name in asked:
                flags |= 1 << (8 + bit)
            values.append(asked.get(name, 0))
        _client_message(window, "_NET_MOVERESIZE_WINDOW", [flags, *values], True)
        return "ewmh"
    # Without a manager nothing redirects the request: the server applies it as asked.
    _checked(lambda catch: window.configure(onerror=catch, **asked), "configure the window")
    return "x11"


def ask_close(window: Any, facts: WindowFacts) -> str:
    """Ask the window's application (or the manager) to close it; the transport used."""
    from Xlib import X

    if "WM_DELETE_WINDOW" in facts.protocols:
        _client_message(window, "WM_PROTOCOLS", [_atom("WM_DELETE_WINDOW"), X.CurrentTime], False)
        return "wm_delete_window"
    if wm_window() is not None and _supported("_NET_CLOSE_WINDOW"):
        _client_message(window, "_NET_CLOSE_WINDOW", [X.CurrentTime, SOURCE_PAGER], True)
        return "ewmh"
    raise SteadyhandError(
        ErrorCode.NOT_ACTIONABLE,
        f"window {facts.summary()} does not take WM_DELETE_WINDOW and no window manager "
        "runs to close it",
        "use the application's own Quit (desktop menu 'File > Quit'), or stop its process"
        + (f" (pid {facts.pid})" if facts.pid else ""),
    )


def placed(facts: WindowFacts, x: int, y: int) -> bool:
    """Whether the window sits at (x, y): its own corner, or its frame's (a WM may place
    either, depending on gravity)."""
    if (facts.x, facts.y) == (x, y):
        return True
    left, _right, top, _bottom = facts.frame or (0, 0, 0, 0)
    return (facts.x - left, facts.y - top) == (x, y)


def gone_state(window_id: int) -> str | None:
    """How the window went (destroyed, unmapped, unmanaged: left the WM's client list), or
    None while it is there."""
    if still_there(window_id) is not None:
        return None
    facts = read(xinput.display().create_resource_object("window", window_id))
    if facts is None:
        return "destroyed"
    return "unmapped" if not facts.mapped else "unmanaged"


def matches(window: WindowFacts, app: str) -> bool:
    """Whether a window belongs to `app`: its pid, or its WM_CLASS (either part)."""
    if app.isdigit():
        return window.pid == int(app)
    return app.lower() in (window.instance.lower(), window.wm_class.lower())


def window_data(facts: WindowFacts) -> dict[str, Any]:
    """A window as JSON-ready data (the commands' Window model has the same fields)."""
    return {
        "id": facts.hex_id,
        "title": facts.title,
        "pid": facts.pid,
        "instance": facts.instance,
        "wm_class": facts.wm_class,
        "x": facts.x,
        "y": facts.y,
        "width": facts.width,
        "height": facts.height,
        "mapped": facts.mapped,
        "viewable": facts.viewable,
        "focused": facts.focused,
        "frame": list(facts.frame) if facts.frame else None,
    }
