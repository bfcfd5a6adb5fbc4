"""One thread for every AT-SPI call, running its own GLib main loop.

libatspi delivers events only to the thread whose main loop runs, and a hung application
stalls each call for libatspi's own timeout; so every call goes through this thread, and
the daemon waits for it under the command's deadline. Work that visits many objects gets a
`Deadline` and checks it between objects, so a walk over a hung or huge application stops
at its deadline instead of running on behind the command.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from steadyhand.desktop.deadline import Deadline, timed_out
from steadyhand.errors import ErrorCode, SteadyhandError

T = TypeVar("T")
CALL_TIMEOUT_MS = 1_000  # libatspi's per-call D-Bus timeout (its default is 800 ms)
# libatspi's timeout for an application it thinks is starting; longer would let one hung
# application hold the thread past the deadlines of the commands queued behind it.
STARTUP_TIMEOUT_MS = CALL_TIMEOUT_MS
MARGIN_S = 0.15
# Work waits for at most this many already-arrived sources (events) to be dispatched first.
CATCH_UP = 500


class AtspiWorker:
    """The AT-SPI thread: started on first use, stopped with the daemon."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._loop: Any = None  # GLib.MainLoop
        self._glib: Any = None
        self._lock = threading.Lock()
        self._catching_up = False

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._main, name="atspi", daemon=True)
                self._thread.start()
        self._ready.wait(30)
        if self._failed is not None:
            raise self._failed

    def _main(self) -> None:
        try:
            from steadyhand.desktop.atspi import atspi, glib

            self._glib = glib()
            module = atspi()
            # Without a session bus libatspi would have D-Bus autolaunch one: a stray bus
            # that no application is on.
            if not os.environ.get("DBUS_SESSION_BUS_ADDRESS") or module.init() not in (0, 1):
                raise SteadyhandError(
                    ErrorCode.ACTION_FAILED,
                    "the accessibility bus (AT-SPI) is not reachable from the daemon "
                    f"(DISPLAY={os.environ.get('DISPLAY')!r}, session bus "
                    f"{os.environ.get('DBUS_SESSION_BUS_ADDRESS') or 'not set'})",
                    "start the daemon inside a desktop: `steadyhand daemon stop`, then run "
                    "your agent under `steadyhand desktop session -- CMD` (or from a "
                    "desktop login with accessibility on)",
                )
            module.set_timeout(CALL_TIMEOUT_MS, STARTUP_TIMEOUT_MS)
            self._loop = self._glib.MainLoop()
        except BaseException as exc:  # reported to every caller
            self._failed = exc
            self._ready.set()
            return
        self._ready.set()
        self._loop.run()

    def submit(self, work: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Run `work` on the AT-SPI thread."""
        self._start()
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run() -> bool:
            if future.set_running_or_notify_cancel():
                self._catch_up()
                try:
                    future.set_result(work())
                except BaseException as exc:
                    future.set_exception(exc)
            return False  # once

        # At the events' own priority, not GLib's idle one: an application flooding the bus
        # with events would otherwise hold every command back until its deadline.
        self._glib.idle_add(run, priority=self._glib.PRIORITY_DEFAULT)
        return future

    def _catch_up(self) -> None:
        """Dispatch what has already arrived (the events a walk's reuse depends on) before
        the work reads, up to CATCH_UP sources so that a flood cannot hold it back."""
        if self._catching_up:  # a work item dispatched by another's catch-up
            return
        self._catching_up = True
        try:
            context = self._loop.get_context()
            for _ in range(CATCH_UP):
                if not context.pending():
                    break
                context.iteration(False)
        finally:
            self._catching_up = False

    async def run(self, work: Callable[[Deadline], T], deadline: float, doing: str) -> T:
        """`work(deadline)` on the AT-SPI thread, answered by `deadline` or a `timeout`.

        A call stuck in a hung application keeps the thread until libatspi gives up
        (CALL_TIMEOUT_MS); commands behind it wait their turn within their own deadlines.
        """
        # A little before the command's own deadline, so that this error (not the
        # command's generic one) answers.
        limit = deadline - MARGIN_S
        if time.monotonic() >= limit:  # never start work (an action) after its deadline
            raise timed_out(f"{doing} did not start within its deadline")
        future = self.submit(lambda: work(Deadline(limit)))
        try:
            return await asyncio.wait_for(
                asyncio.wrap_future(future), max(0.001, limit - time.monotonic())
            )
        except TimeoutError as exc:
            future.cancel()
            raise timed_out(f"{doing} did not finish within its deadline") from exc

    def stop(self) -> None:
        if self._loop is not None:
            self._glib.idle_add(self._loop.quit)
