"""X input in this process (XTEST through python-xlib): the fallback when an object offers
no accessible action. Runs on the AT-SPI thread like everything desktop."""

from __future__ import annotations

import functools
import os
from typing import Any

from steadyhand.desktop.gi_path import ensure_gi
from steadyhand.errors import ErrorCode, SteadyhandError


@functools.cache
def display() -> Any:
    """This process's connection to the X display (DISPLAY), opened once."""
    ensure_gi()  # python3-xlib lives beside gi in Debian's dist-packages
    try:
        from Xlib import display as xdisplay
    except ImportError as exc:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            "X input needs python-xlib, which is not installed",
            "run scripts/ensure-desktop (Debian's python3-xlib)",
        ) from exc
    try:
        return xdisplay.Display(os.environ.get("DISPLAY"))
    except Exception as exc:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            f"cannot open the X display {os.environ.get('DISPLAY')!r}: {exc}",
            "run the daemon inside a desktop session (`steadyhand desktop session --`)",
        ) from exc


def screen_size() -> tuple[int, int]:
    screen = display().screen()
    return int(screen.width_in_pixels), int(screen.height_in_pixels)


def click(x: int, y: int, button: int = 1) -> None:
    """Move the pointer to (x, y) and click there."""
    from Xlib import X
    from Xlib.ext import xtest

    d = display()
    xtest.fake_input(d, X.MotionNotify, x=x, y=y)
    xtest.fake_input(d, X.ButtonPress, button)
    xtest.fake_input(d, X.ButtonRelease, button)
    d.sync()


MODIFIERS = {
    "ctrl": "Control_L",
    "control": "Control_L",
    "shift": "Shift_L",
    "alt": "Alt_L",
    "super": "Super_L",
    "meta": "Meta_L",
}
NAMED = {
    "enter": "Return",
    "esc": "Escape",
    "del": "Delete",
    "space": "space",
    "tab": "Tab",
    "backspace": "BackSpace",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "pageup": "Prior",
    "pagedown": "Next",
    "home": "Home",
    "end": "End",
}


def keycodes(combo: str) -> list[int]:
    """The keycodes of `ctrl+s`, `Return`, `alt+F4`: modifiers first, then the key."""
    from Xlib import XK

    d = display()
    codes = []
    for part in combo.split("+"):
        name = part.strip()
        keysym_name = MODIFIERS.get(name.lower()) or NAMED.get(name.lower()) or name
        keysym = XK.string_to_keysym(keysym_name)
        code = d.keysym_to_keycode(keysym) if keysym else 0
        if not code:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"no key named {name!r} in {combo!r}",
                "write keys as X names joined by +: ctrl+s, Return, alt+F4, shift+Tab",
            )
        codes.append(int(code))
    return codes


def press(combo: str) -> None:
    """Press the keys of `combo` down in order and release them in reverse."""
    from Xlib import X
    from Xlib.ext import xtest

    d = display()
    codes = keycodes(combo)
    for code in codes:
        xtest.fake_input(d, X.KeyPress, code)
    for code in reversed(codes):
        xtest.fake_input(d, X.KeyRelease, code)
    d.sync()
