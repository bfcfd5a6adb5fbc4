"""A bare X window for the desktop tests: no toolkit, no WM_DELETE_WINDOW, no a11y.

Run it with /usr/bin/python3 (Debian's python3-xlib). It maps one 300x200 window titled
"Bare window" with _NET_WM_PID set, and serves X events until its connection is closed
(a window manager's XKillClient) or it is killed.
"""

from __future__ import annotations

import os
import sys

from Xlib import X, Xatom, display


def main() -> int:
    d = display.Display()
    window = d.screen().root.create_window(
        20, 20, 300, 200, 0, d.screen().root_depth, X.InputOutput, X.CopyFromParent
    )
    window.set_wm_name("Bare window")
    window.set_wm_class("bare_window", "BareWindow")
    window.change_property(d.intern_atom("_NET_WM_PID"), Xatom.CARDINAL, 32, [os.getpid()])
    window.map()
    d.sync()
    try:
        while True:
            d.next_event()
    except Exception:  # the connection was closed under it
        return 1


if __name__ == "__main__":
    sys.exit(main())
