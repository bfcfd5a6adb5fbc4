"""Top-level X windows for the daemon: list them, and focus, move, resize or close one,
verified.

The X calls themselves are xwindows.py's, made on the desktop worker thread; here each
is waited for and read back from the daemon's event loop, between short visits to that
thread: an answer says what the X server shows after it, not what was asked.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from steadyhand.desktop import display, xwindows
from steadyhand.desktop.deadline import Deadline
from steadyhand.desktop.xwindows import (
    WindowFacts,
    ask_close,
    ask_focus,
    ask_geometry,
    find,
    list_windows,
    placed,
    window_data,
    wm_name,
)
from steadyhand.errors import ErrorCode, SteadyhandError

if TYPE_CHECKING:
    from steadyhand.desktop.desktop import Desktop

T = TypeVar("T")
SETTLE_S = 2.0  # how long a move, resize or focus may take to show
CLOSE_WAIT_S = 5.0  # how long a window may take to go once asked to close
DESTROY_WAIT_S = 0.2  # how long a closed window may stay unmapped before it is destroyed
POLL_S = 0.02


@dataclass
class WindowActed:
    action: str
    transport: str  # x11 (plain X requests), ewmh (asked the WM), wm_delete_window
    verified: bool
    before: WindowFacts
    after: WindowFacts | None  # None: closed
    wm: str | None
    gone: str | None = None


class Windows:
    """Window commands on the desktop worker thread, each waited for and read back."""

    def __init__(self, desktop: Desktop) -> None:
        self.desktop = desktop
        self.worker = desktop.worker

    async def _on_thread(self, work: Callable[[], T], deadline: float, doing: str) -> T:
        display.x11_only("desktop window commands")

        def run(_: Deadline) -> T:
            return work()

        return await self.worker.run(run, deadline, doing)

    async def list(
        self, app: str | None, everything: bool, deadline: float
    ) -> tuple[list[WindowFacts], str | None]:
        """The top-level windows (of one application: its name, WM_CLASS or pid), and the
        window manager's name."""

        display.x11_only("desktop windows")
        every, wm = await self.worker.run(
            lambda _: (list_windows(everything), wm_name()), deadline, "listing windows"
        )
        if app is None:
            return every, wm
        found = [w for w in every if xwindows.matches(w, app)]
        if not found and not app.isdigit():
            # An application's name on the a11y bus need not be its WM_CLASS.
            pids = {a["pid"] for a in await self.desktop.apps(deadline) if a["name"] == app}
            found = [w for w in every if w.pid in pids]
        return found, wm

    async def focus(self, window_id: int, deadline: float) -> WindowActed:
        def act() -> tuple[WindowFacts, str, str | None]:
            window, before = find(window_id)
            return before, ask_focus(window, before), wm_name()

        before, transport, wm = await self._on_thread(act, deadline, "focusing a window")
        after = await self._settle(window_id, lambda f: f.focused, deadline)
        if not after.focused:
            raise SteadyhandError(
                ErrorCode.VERIFICATION_FAILED,
                f"window {after.summary()} does not have the input focus after focusing it",
                "the window manager may refuse (focus stealing prevention), or the "
                "application gave the focus away; `desktop windows` shows which has it",
            )
        return WindowActed("focus", transport, True, before, after, wm)

    async def move(self, window_id: int, x: int, y: int, deadline: float) -> WindowActed:
        return await self._configure(
            window_id, "move", {"x": x, "y": y}, lambda f: placed(f, x, y), deadline
        )

    async def resize(self, window_id: int, width: int, height: int, deadline: float) -> WindowActed:
        if width < 1 or height < 1:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"a window cannot be {width}x{height}",
                "give a width and height of at least 1 pixel",
            )
        return await self._configure(
            window_id,
            "resize",
            {"width": width, "height": height},
            lambda f: (f.width, f.height) == (width, height),
            deadline,
        )

    async def _configure(
        self,
        window_id: int,
        action: str,
        asked: dict[str, int],
        done: Callable[[WindowFacts], bool],
        deadline: float,
    ) -> WindowActed:
        def act() -> tuple[WindowFacts, str, str | None]:
            window, before = find(window_id)
            return before, ask_geometry(window, **asked), wm_name()

        before, transport, wm = await self._on_thread(act, deadline, f"window {action}")
        after = await self._settle(window_id, done, deadline)
        if not done(after):
            wanted = " ".join(f"{k}={v}" for k, v in asked.items())
            raise SteadyhandError(
                ErrorCode.VERIFICATION_FAILED,
                f"window {after.summary()} is at {after.x},{after.y} size "
                f"{after.width}x{after.height} after the {action} to {wanted}",
                "the application or window manager kept it elsewhere (a minimum or "
                "maximum size, or a position kept on screen); the answer is what the "
                "X server shows",
                {"window": window_data(after)},
            )
        return WindowActed(action, transport, True, before, after, wm)

    async def close(self, window_id: int, deadline: float) -> WindowActed:
        def act() -> tuple[WindowFacts, str, str | None]:
            window, before = find(window_id)
            return before, ask_close(window, before), wm_name()

        before, transport, wm = await self._on_thread(act, deadline, "closing a window")
        asked = time.monotonic()
        until = min(deadline - 0.5, time.monotonic() + CLOSE_WAIT_S)
        hidden_until: float | None = None
        while True:
            state = await self._on_thread(
                lambda: xwindows.gone_state(window_id), deadline, "waiting for a window to close"
            )
            if state is None:
                hidden_until = None  # (still, or again) there
            else:
                # Toolkits unmap a window just before they destroy it: a moment more tells
                # a closed window from one only hidden.
                hidden_until = hidden_until or time.monotonic() + DESTROY_WAIT_S
                if state == "destroyed" or time.monotonic() > min(hidden_until, until):
                    return WindowActed("close", transport, True, before, None, wm, state)
            if time.monotonic() > until:
                break
            await asyncio.sleep(POLL_S)
        raise SteadyhandError(
            ErrorCode.VERIFICATION_FAILED,
            f"window {before.summary()} is still open {time.monotonic() - asked:.1f} s "
            "after asking it to close",
            "the application may be asking to confirm (unsaved changes): look with "
            "`desktop snapshot` and answer its dialog",
        )

    async def _settle(
        self, window_id: int, done: Callable[[WindowFacts], bool], deadline: float
    ) -> WindowFacts:
        """The window's facts once `done` holds, or the last read after SETTLE_S."""
        until = min(deadline - 0.5, time.monotonic() + SETTLE_S)
        while True:
            facts = await self._on_thread(
                lambda: find(window_id)[1], deadline, "reading a window back"
            )
            if done(facts) or time.monotonic() > until:
                return facts
            await asyncio.sleep(POLL_S)
