"""X input in this process (XTEST through python-xlib): the fallback when an object offers
no accessible action. Runs on the AT-SPI thread like everything desktop."""

from __future__ import annotations

import functools
import os
import time
from typing import Any

from steadyhand.desktop.gi_path import ensure_gi
from steadyhand.errors import ErrorCode, SteadyhandError


@functools.cache
def display() -> Any:
    """This process's connection to the X display (DISPLAY), opened once (used on the
    desktop worker thread: a python-xlib connection is not safe across threads)."""
    return open_display()


def open_display() -> Any:
    """A new connection to the X display (DISPLAY), for a thread of its own."""
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


def click(x: int, y: int, button: int = 1, times: int = 1) -> None:
    """Move the pointer to (x, y) and click there (`times` clicks of `button`)."""
    from Xlib import X
    from Xlib.ext import xtest

    d = display()
    xtest.fake_input(d, X.MotionNotify, x=x, y=y)
    for _ in range(times):
        xtest.fake_input(d, X.ButtonPress, button)
        xtest.fake_input(d, X.ButtonRelease, button)
    d.sync()


def pointer(kind: str, x: int, y: int, button: int = 1) -> None:
    """Move the pointer to (x, y) and, for `down` or `up`, press or release `button`."""
    from Xlib import X
    from Xlib.ext import xtest

    d = display()
    xtest.fake_input(d, X.MotionNotify, x=x, y=y)
    if kind in ("down", "up"):
        xtest.fake_input(d, X.ButtonPress if kind == "down" else X.ButtonRelease, button)
    d.sync()


# X's wheel buttons: a click of each is one step of the wheel.
WHEEL_UP, WHEEL_DOWN, WHEEL_LEFT, WHEEL_RIGHT = 4, 5, 6, 7


def scroll(x: int, y: int, dx: int, dy: int) -> None:
    """Turn the wheel over (x, y): `dy` steps down (negative: up), `dx` right (left)."""
    if dy:
        click(x, y, WHEEL_DOWN if dy > 0 else WHEEL_UP, abs(dy))
    if dx:
        click(x, y, WHEEL_RIGHT if dx > 0 else WHEEL_LEFT, abs(dx))


DRAG_STEPS = 10  # toolkits start a drag only after the pointer moves while pressed
DRAG_STEP_S = 0.01


def drag(start: tuple[int, int], end: tuple[int, int]) -> None:
    """Press the left button at `start`, move to `end` in steps, release there."""
    from Xlib import X
    from Xlib.ext import xtest

    d = display()
    xtest.fake_input(d, X.MotionNotify, x=start[0], y=start[1])
    xtest.fake_input(d, X.ButtonPress, 1)
    d.sync()
    try:
        for step in range(1, DRAG_STEPS + 1):
            x = start[0] + (end[0] - start[0]) * step // DRAG_STEPS
            y = start[1] + (end[1] - start[1]) * step // DRAG_STEPS
            xtest.fake_input(d, X.MotionNotify, x=x, y=y)
            d.sync()
            time.sleep(DRAG_STEP_S)
    finally:  # never leave the button held down in the X server
        xtest.fake_input(d, X.ButtonRelease, 1)
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


SPECIAL_CHARS = {"\n": "Return", "\t": "Tab", " ": "space"}


def keysym_of(char: str) -> int:
    """The X keysym that types `char`: Latin-1 keysyms are their code points; the rest of
    Unicode is 0x01000000 + the code point."""
    from Xlib import XK

    if char in SPECIAL_CHARS:
        return int(XK.string_to_keysym(SPECIAL_CHARS[char]))
    point = ord(char)
    return point if 0x20 <= point <= 0xFF else 0x01000000 | point


def type_text(text: str) -> None:
    """Type `text` key by key, with Shift where the keymap needs it. A character the keymap
    lacks is typed through a spare keycode mapped to it for the moment, then unmapped."""
    from Xlib import X
    from Xlib.ext import xtest

    d = display()
    shift = keycodes("shift")[0]
    spare: int | None = None
    try:
        for char in text:
            keysym = keysym_of(char)
            found = list(d.keysym_to_keycodes(keysym))
            code, index = found[0] if found else (0, 0)
            if not code or index > 1:
                spare = spare or _spare_keycode()
                d.change_keyboard_mapping(spare, [(keysym, keysym)])
                d.sync()
                time.sleep(0.02)  # the application reads the new mapping first
                code, index = spare, 0
            if index == 1:
                xtest.fake_input(d, X.KeyPress, shift)
            xtest.fake_input(d, X.KeyPress, code)
            xtest.fake_input(d, X.KeyRelease, code)
            if index == 1:
                xtest.fake_input(d, X.KeyRelease, shift)
            d.sync()
    finally:
        if spare is not None:
            d.change_keyboard_mapping(spare, [(0, 0)])
            d.sync()


def _spare_keycode() -> int:
    """A keycode with no keysym on it, to map a character the keymap lacks."""
    d = display()
    first = d.display.info.min_keycode
    count = d.display.info.max_keycode - first + 1
    for offset, syms in enumerate(d.get_keyboard_mapping(first, count)):
        if not any(syms):
            return int(first + offset)
    raise SteadyhandError(
        ErrorCode.ACTION_FAILED,
        "the X keymap has no free keycode to type a character it lacks",
        "type only characters of the keyboard layout, or set the text through its field",
    )
