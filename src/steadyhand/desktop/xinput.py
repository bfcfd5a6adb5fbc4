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
