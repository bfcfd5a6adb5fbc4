"""A screen a person watches: a tab's CDP screencast, or the X screen of the desktop.

One `Screen` per tab (or desktop) is shared by all its watchers. It runs only while
someone watches: the first watcher starts it, the last one leaving stops it. Its rate is
bounded at the source: a tab's next frame is acknowledged to Chromium (which sends no
more until then) no sooner than 1/max_fps after the last, so an idle page costs nothing
and a busy one about max_fps JPEG encodes a second; and watchers get at most max_fps
frames a second, always ending on the newest. A watcher holds only the newest frame:
one that reads slowly skips frames, it never queues them.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from playwright.async_api import CDPSession, Error, Page

from steadyhand.desktop import display, see, xinput
from steadyhand.engine.recording import start_screencast
from steadyhand.errors import ErrorCode, SteadyhandError

log = logging.getLogger("steadyhand.live")

Frame = dict[str, Any]
CDP_WAIT_S = 10.0  # starting or stopping a screencast longer than this: the tab is stuck


class Screen:
    """Frames fanned out to watchers; subclasses produce them between start and stop."""

    def __init__(self, max_fps: float) -> None:
        self.interval_s = 1.0 / max(0.1, max_fps)
        self.last: Frame | None = None
        self.frames = 0  # produced since created (bench/live_view.py reads it)
        self._watchers: set[asyncio.Queue[Frame]] = set()
        self._lock = asyncio.Lock()

    @property
    def watched(self) -> bool:
        return bool(self._watchers)

    @contextlib.asynccontextmanager
    async def watch(self) -> AsyncIterator[asyncio.Queue[Frame]]:
        """A one-frame queue of the newest frame (the last one first) while the block runs."""
        queue: asyncio.Queue[Frame] = asyncio.Queue(1)
        try:  # a watcher that leaves while the screen starts is gone too, and stops it
            async with self._lock:
                self._watchers.add(queue)
                if len(self._watchers) == 1:
                    await self.start()
            if self.last is not None:
                queue.put_nowait(self.last)
            yield queue
        finally:
            async with self._lock:
                self._watchers.discard(queue)
                if not self._watchers:
                    with contextlib.suppress(Exception):
                        await self.stop()

    def emit(self, frame: Frame) -> None:
        self.frames += 1
        self.last = frame
        for queue in self._watchers:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(frame)

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError


class TabScreen(Screen):
    """A tab's screen from `Page.startScreencast` (JPEG), over its own CDP session."""

    def __init__(self, page: Page, tab_id: str, max_fps: float, quality: int, label: str) -> None:
        super().__init__(max_fps)
        self.page = page
        self.tab_id = tab_id
        self.label = label  # session/tab, as daemon.status lists the screens watched
        self.quality = quality
        self._cdp: CDPSession | None = None
        self._acked_at = 0.0  # when the last frame was (or is to be) acknowledged
        self._sent_at = 0.0  # when the last frame went to the watchers
        self._waiting: Frame | None = None  # the newest frame, until its turn comes
        self._unacked: set[int] = set()  # frames whose acknowledgement waits for its turn

    async def start(self) -> None:
        try:
            await asyncio.wait_for(self._start(), CDP_WAIT_S)
        except TimeoutError as exc:
            await self.stop()
            raise SteadyhandError(
                ErrorCode.TIMEOUT,
                f"tab {self.tab_id} did not start its screencast within {CDP_WAIT_S:g} s",
                "the page may be hung or stopped by a dialog; reload the live view",
            ) from exc

    async def _start(self) -> None:
        cdp = await self.page.context.new_cdp_session(self.page)
        cdp.on("Page.screencastFrame", self._frame)
        self._cdp = cdp
        await start_screencast(cdp, self.page, self.quality)

    async def stop(self) -> None:
        cdp, self._cdp = self._cdp, None
        self._waiting = None
        if cdp is None:
            return
        for session_id in self._unacked:  # frames held back by the rate bound: let them go
            _ack_soon(cdp, session_id)
        self._unacked.clear()
        with contextlib.suppress(Error, TimeoutError):
            await asyncio.wait_for(cdp.send("Page.stopScreencast"), CDP_WAIT_S)
        with contextlib.suppress(Error, TimeoutError):  # even when the stop failed
            await asyncio.wait_for(cdp.detach(), CDP_WAIT_S)

    def _frame(self, params: dict[str, Any]) -> None:
        meta = params.get("metadata", {})
        frame = {
            "kind": "frame",
            "tab": self.tab_id,
            "mime": "image/jpeg",
            "data": params["data"],  # base64 already
            "css_width": meta.get("deviceWidth"),
            "css_height": meta.get("deviceHeight"),
            "offset_top": meta.get("offsetTop", 0),
            "ts": time.time(),
        }
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        # Chromium keeps more than one frame in flight, so acks alone do not bound the
        # rate: a frame that comes before its turn waits for it, and a newer one that
        # comes meanwhile takes its place (watchers always end on the newest).
        turn = self._sent_at + self.interval_s
        if now >= turn and self._waiting is None:
            self._send(frame)
        else:
            if self._waiting is None:
                loop.call_later(max(0.0, turn - now), self._send_waiting)
            self._waiting = frame
        delay = max(0.0, self._acked_at + self.interval_s - now)
        self._acked_at = now + delay
        self._unacked.add(params["sessionId"])
        loop.call_later(delay, self._ack, params["sessionId"])

    def _send(self, frame: Frame) -> None:
        self._sent_at = time.monotonic()
        self.emit(frame)

    def _send_waiting(self) -> None:
        frame, self._waiting = self._waiting, None
        if frame is not None and self._cdp is not None:
            self._send(frame)

    def _ack(self, session_id: int) -> None:
        if self._cdp is not None and session_id in self._unacked:
            self._unacked.discard(session_id)
            _ack_soon(self._cdp, session_id)


def _ack_soon(cdp: CDPSession, session_id: int) -> None:
    task = asyncio.ensure_future(cdp.send("Page.screencastFrameAck", {"sessionId": session_id}))
    task.add_done_callback(_quiet)


class DesktopScreen(Screen):
    """The X screen, read at most max_fps times a second; a frame is sent only when the
    screen changed (PNG: no imaging library is needed)."""

    def __init__(self, max_fps: float, grab: Callable[[], see.Canvas] | None = None) -> None:
        super().__init__(max_fps)
        self._grab = grab or self._own_grab
        # Its own X connection: frames are read on pool threads while the desktop worker
        # uses the shared one, and a python-xlib connection used from two threads at once
        # mixes up replies ("Request reply to unknown request").
        self._display: Any = None
        self._task: asyncio.Task[None] | None = None
        self._digest = b""

    async def start(self) -> None:
        self._digest = b""
        self._task = asyncio.create_task(self._poll())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _poll(self) -> None:
        failing = False
        while True:
            started = time.monotonic()
            try:
                frame = await asyncio.to_thread(self._read)
                failing = False
            except Exception as exc:  # X went away: say so once, then keep trying
                if not failing:
                    log.warning("desktop screen: %s", exc)
                failing, frame = True, None
            if frame is not None:
                self.emit(frame)
            await asyncio.sleep(max(0.0, started + self.interval_s - time.monotonic()))

    def _own_grab(self) -> see.Canvas:
        if display.is_wayland():
            return display.grab()
        if self._display is None:
            self._display = xinput.open_display()
        return see.grab(self._display)

    def _read(self) -> Frame | None:
        canvas = self._grab()
        digest = hashlib.blake2b(canvas.pixels, digest_size=16).digest()
        if digest == self._digest:
            return None
        self._digest = digest
        return {
            "kind": "frame",
            "tab": "desktop",
            "mime": "image/png",
            "data": base64.b64encode(canvas.png(level=1)).decode(),
            "css_width": canvas.width,
            "css_height": canvas.height,
            "offset_top": 0,
            "ts": time.time(),
        }


def _quiet(task: asyncio.Future[Any]) -> None:
    """A frame acknowledged after its page closed: nothing to do."""
    if not task.cancelled():
        task.exception()
