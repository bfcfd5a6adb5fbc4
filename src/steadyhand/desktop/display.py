"""The screen and the real input of the desktop the daemon runs in: X11 (XTEST, XGetImage)
or a wlroots Wayland compositor (virtual pointer and keyboard, grim).

Everything that clicks, types or reads pixels goes through here, so the rest of the
desktop code says what to do and not on which display. Under Wayland an application does
not know where its windows are: AT-SPI boxes are relative to the window, and `origin`
gives the window's place on the screen (sway's tree). Called on the AT-SPI thread.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any

from steadyhand.desktop import see, sway, wayland, xinput, xwindows
from steadyhand.desktop.atspi import Box
from steadyhand.errors import ErrorCode, SteadyhandError


@functools.cache
def is_wayland() -> bool:
    """Whether the desktop is a Wayland one (WAYLAND_DISPLAY, no X DISPLAY): asked once."""
    return bool(os.environ.get("WAYLAND_DISPLAY")) and not os.environ.get("DISPLAY")


def route() -> str:
    """The name of real input here, as results and `desktop transports` say it."""
    return "wlinput" if is_wayland() else "xinput"


def prepare() -> None:
    """Make what real input needs before an action is watched: under Wayland the virtual
    devices, whose first keyboard gives a window the focus (an event of its own)."""
    if is_wayland():
        _wayland(wayland.ready)


def size() -> tuple[int, int]:
    return sway.screen_size() if is_wayland() else xinput.screen_size()


def _wayland(send: Callable[..., None], *args: Any) -> None:
    """Input through the virtual devices; after a broken connection they are made anew."""
    try:
        send(size(), *args)
    except OSError as exc:
        wayland.forget()
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            f"the Wayland compositor's connection broke: {exc}",
            "try again (the devices are made anew); the compositor may have restarted",
        ) from exc
    except SteadyhandError as exc:
        if exc.code != ErrorCode.BAD_REQUEST:  # the compositor failed, not the request
            wayland.forget()
        raise


def click(x: int, y: int, button: int = 1, times: int = 1) -> None:
    if is_wayland():
        _wayland(wayland.click, x, y, button, times)
    else:
        xinput.click(x, y, button, times)


def pointer(kind: str, x: int, y: int, button: int = 1) -> None:
    if is_wayland():
        _wayland(wayland.pointer, kind, x, y, button)
    else:
        xinput.pointer(kind, x, y, button)


def scroll(x: int, y: int, dx: int, dy: int) -> None:
    if is_wayland():
        _wayland(wayland.scroll, x, y, dx, dy)
    else:
        xinput.scroll(x, y, dx, dy)


def drag(start: tuple[int, int], end: tuple[int, int]) -> None:
    if is_wayland():
        _wayland(wayland.drag, start, end)
    else:
        xinput.drag(start, end)


def press(combo: str) -> None:
    if is_wayland():
        _wayland(wayland.press, combo)
    else:
        xinput.press(combo)


def type_text(text: str) -> None:
    if is_wayland():
        _wayland(wayland.type_text, text)
    else:
        xinput.type_text(text)


def grab() -> see.Canvas:
    """The whole screen now."""
    if is_wayland():
        width, height, rgb = sway.grab()
        return see.Canvas(width, height, bytearray(rgb))
    return see.grab()


def region_pixels(region: Box | None, skips: Sequence[Box], margin: int) -> bytes:
    """`region` of the screen, 4 bytes a pixel, with `skips` (grown by `margin`) blanked."""
    if not is_wayland():
        return see.region_pixels(region, skips, margin)
    area = see.clip(region, *size())
    if area is None:
        return b""
    x0, y0, x1, y1 = area
    w, h, rgb = sway.grab(Box(x0, y0, x1 - x0, y1 - y0))
    data = bytearray(w * h * 4)
    data[0::4], data[1::4], data[2::4] = rgb[0::3], rgb[1::3], rgb[2::3]
    for skip in skips:
        see.blank(data, w, (x0, y0, x1, y1), skip, margin)
    return bytes(data)


def origin(pid: int, title: str) -> tuple[int, int]:
    """Where a window of application `pid` (titled `title`) starts on the screen: (0, 0)
    under X, whose AT-SPI boxes are the screen's already."""
    return sway.origin(pid, title) if is_wayland() else (0, 0)


def covered(pid: int, point: tuple[int, int]) -> bool:
    """Whether another application's window is over `point` (X; Wayland: not known, False)."""
    return False if is_wayland() else xwindows.covered(pid, point)


def focus_window(pid: int, title: str) -> None:
    """Give the keyboard to the application's window titled `title`."""
    if is_wayland():
        sway.command(f"[con_id={sway.window(pid, title)['id']}] focus")
        return
    for shown in xwindows.list_windows():
        if shown.pid == pid and " ".join(shown.title.split()) == title:
            if not shown.focused:
                xwindows.ask_focus(xwindows.find(shown.id)[0], shown)
            return


def x11_only(what: str) -> None:
    """`not_actionable` for what only an X desktop can do (window commands, xclip)."""
    if is_wayland():
        raise SteadyhandError(
            ErrorCode.NOT_ACTIONABLE,
            f"{what} needs an X11 desktop; this daemon runs on Wayland (sway)",
            "snapshot, act, press and see work on Wayland; run an X session "
            "(`steadyhand desktop session`) for window commands and the clipboard",
        )
