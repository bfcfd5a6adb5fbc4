"""A tab's recording: its CDP screencast written as a video file (observe/avi.py).

Playwright records video only for a context made with `record_video_dir`, from its first
page to its close, and only with its own downloaded ffmpeg; a recording here starts and
stops on a live tab. So it takes the tab's screencast (`Page.startScreencast` on a CDP
session of its own: JPEG frames, sent when the page changes) and writes the frames at a
fixed rate as an MJPEG AVI.

Cost: nothing while no tab records (nothing here is on an act's path). While one does,
Chromium encodes at most `fps` JPEG frames a second for it (a frame is acknowledged, so
the next one is sent, no sooner than 1/fps after the last), and the file is written off
the event loop. A live-view watcher of the same tab has its own screencast: they do not
share frames or rates.

The file is finished (index and headers written, moved to its path) by `record stop`,
and also when the tab closes (its page's close event), when the session closes (Session
closes its recordings first), and so when the daemon stops.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from steadyhand.observe.avi import FixedRateVideo, VideoInfo

log = logging.getLogger("steadyhand.recording")

CDP_WAIT_S = 5.0  # a screencast call slower than this: the tab is stuck or gone
FIRST_FRAME_S = 2.0  # the screencast's first frame, before a screenshot stands in for it
HOLD_EVERY_S = 1.0  # how often a still page's frame is written up to now
SETTLE_S = 0.2  # at a stop, the frames still coming: done once none came for this long
SETTLE_MAX_S = 1.0


FALLBACK_SIZE = {"width": 1280, "height": 800}


async def start_screencast(cdp: CDPSession, page: Page, quality: int) -> None:
    """Have `cdp` send the tab's frames: JPEG at `quality`, at most its viewport's size
    (each must be acked, `Page.screencastFrameAck`, for the next to come)."""
    size = page.viewport_size or FALLBACK_SIZE
    await cdp.send(
        "Page.startScreencast",
        {
            "format": "jpeg",
            "quality": quality,
            "maxWidth": size["width"],
            "maxHeight": size["height"],
        },
    )


class TabRecording:
    """One tab's screencast going into one video file."""

    def __init__(
        self,
        page: Page,
        tab_id: str,
        path: Path,
        fps: int,
        quality: int,
        *,
        on_orphan: Callable[[TabRecording, VideoInfo], Awaitable[None]] | None = None,
    ) -> None:
        self.page = page
        self.tab_id = tab_id
        self.path = path
        self.fps = fps
        self.quality = quality
        self.saved: VideoInfo | None = None  # once finished
        # Told of a file no command finished (the tab closed by itself, the session closed
        # under it): `record start` indexes it, as no command's action can.
        self.on_orphan = on_orphan
        self.orphaned = False  # finished by a close no command asked for (see on_orphan)
        self._video: FixedRateVideo | None = None
        self._cdp: CDPSession | None = None
        self._queue: asyncio.Queue[tuple[str, float] | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._finishing: asyncio.Task[VideoInfo] | None = None
        self._first = asyncio.Event()
        self._started = asyncio.Event()  # start() is over, well or not
        self._acked_at = 0.0  # monotonic time of the last acknowledgement (or the next one)
        self._unacked: set[int] = set()  # frames whose acknowledgement waits for its turn
        self._frames_seen = 0
        self._settling = False  # stopping: frames are acknowledged at once
        self._last_at = 0.0  # the newest frame's time (its page's clock)
        self._last_seen = 0.0  # when it came (monotonic): the end is measured from it
        self._failed: BaseException | None = None

    @property
    def finished(self) -> bool:
        return self._finishing is not None

    async def start(self) -> None:
        """Open the file and start the screencast; returns once the first frame is in (or
        once it is clear none is coming yet: the video then starts with the first)."""
        try:
            self._video = await asyncio.to_thread(FixedRateVideo, self.path, self.fps)
            self._writer = asyncio.create_task(self._write())
            await asyncio.wait_for(self._start_screencast(), CDP_WAIT_S)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._first.wait(), FIRST_FRAME_S)
            if not self._first.is_set():  # a hidden tab sends none: a screenshot starts it
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    await asyncio.wait_for(self._screenshot_frame(), CDP_WAIT_S)
        except BaseException:
            await self._abandon()
            raise
        finally:
            self._started.set()
        self.page.once("close", lambda _page: self.finish_soon())

    async def _start_screencast(self) -> None:
        cdp = await self.page.context.new_cdp_session(self.page)
        cdp.on("Page.screencastFrame", self._frame)
        self._cdp = cdp  # before the first frame can come
        await start_screencast(cdp, self.page, self.quality)

    async def _screenshot_frame(self) -> None:
        assert self._cdp is not None
        shot = await self._cdp.send("Page.captureScreenshot", {"format": "jpeg"})
        self._take(shot["data"], time.time())

    def _frame(self, params: dict[str, Any]) -> None:
        if self._cdp is None:
            return
        at = params.get("metadata", {}).get("timestamp") or time.time()
        self._take(params["data"], float(at))
        self._frames_seen += 1
        # The next frame no sooner than 1/fps after the last: no JPEG is encoded in vain
        # (but at once while the recording settles: see _settle).
        now = time.monotonic()
        delay = 0.0 if self._settling else max(0.0, self._acked_at + 1 / self.fps - now)
        self._acked_at = now + delay
        self._unacked.add(params["sessionId"])
        asyncio.get_running_loop().call_later(delay, self._ack, params["sessionId"])

    def _take(self, data: str, at: float) -> None:
        self._last_at, self._last_seen = at, time.monotonic()
        self._queue.put_nowait((data, at))
        self._first.set()

    def _ack(self, session_id: int) -> None:
        if self._cdp is not None and session_id in self._unacked:
            self._unacked.discard(session_id)
            task = asyncio.ensure_future(
                self._cdp.send("Page.screencastFrameAck", {"sessionId": session_id})
            )
            task.add_done_callback(_quiet)

    async def _write(self) -> None:
        """Hand the frames to the file, in order, off the event loop."""
        video = self._video
        assert video is not None
        while True:
            try:
                item = await asyncio.wait_for(self._queue.get(), HOLD_EVERY_S)
            except TimeoutError:  # a still page: its frame is written up to now
                item = ("", self.now())
            if item is None:
                return
            if self._failed is not None:
                continue  # the disk failed once: the rest is drained, not written
            data, at = item
            try:
                await asyncio.to_thread(_add, video, data, at)
            except Exception as exc:
                log.warning("recording of tab %s: %s", self.tab_id, exc)
                self._failed = exc

    def now(self) -> float:
        """The time now, on the clock of the frames' stamps (the browser's)."""
        return self._last_at + (time.monotonic() - self._last_seen)

    def finish_soon(self) -> None:
        """Finish in the background (the tab closed under the recording)."""
        task = self._finish_task(orphan=True)
        task.add_done_callback(_logged)

    async def finish(self, orphan: bool = False) -> VideoInfo:
        """Stop the screencast and finish the file (once; later calls get the same file).

        `orphan`: no command will report it (the session closes under it): `on_orphan` is
        told. Raises OSError when the file could not be written."""
        return await asyncio.shield(self._finish_task(orphan))

    def _finish_task(self, orphan: bool) -> asyncio.Task[VideoInfo]:
        if self._finishing is None:
            self.orphaned = orphan
            self._finishing = asyncio.create_task(self._finish())
        return self._finishing

    async def _finish(self) -> VideoInfo:
        await self._started.wait()
        if self._video is None:
            raise OSError("the recording did not start")
        await self._settle()
        end = self.now()
        await self._stop_screencast()
        self._queue.put_nowait(None)
        if self._writer is not None:
            await self._writer
        video = self._video
        assert video is not None
        if self._failed is not None:
            await asyncio.to_thread(video.discard)
            raise OSError(f"the video could not be written: {self._failed}")
        self.saved = await asyncio.to_thread(video.end, end)
        self._video = None  # its last frame and index: the page may outlive the recording
        if self.orphaned and self.on_orphan is not None:
            try:
                await self.on_orphan(self, self.saved)
            except Exception as exc:  # the file is whole all the same
                log.warning("recording of tab %s: not indexed: %s", self.tab_id, exc)
        log.info(
            "recording of tab %s saved: %s (%d frames)", self.tab_id, self.path, self.saved.frames
        )
        return self.saved

    async def _settle(self) -> None:
        """Take the frames still on their way before stopping: a frame held back by the
        rate bound, or painted just before the stop (the page as the last act left it).
        Waits until no frame came for SETTLE_S, at most SETTLE_MAX_S."""
        if self._cdp is None or self.page.is_closed():
            return
        self._settling = True
        for session_id in list(self._unacked):
            self._ack(session_id)
        deadline = time.monotonic() + SETTLE_MAX_S
        while time.monotonic() < deadline:
            seen = self._frames_seen
            await asyncio.sleep(SETTLE_S)
            if self._frames_seen == seen:
                return

    async def _stop_screencast(self) -> None:
        cdp, self._cdp = self._cdp, None
        if cdp is None or self.page.is_closed():
            return
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(cdp.send("Page.stopScreencast"), CDP_WAIT_S)
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(cdp.detach(), CDP_WAIT_S)

    async def _abandon(self) -> None:
        """A start that failed: no screencast, no file."""
        await self._stop_screencast()
        self._queue.put_nowait(None)
        if self._writer is not None:
            await self._writer
        if self._video is not None:
            await asyncio.to_thread(self._video.discard)
            self._video = None


def _add(video: FixedRateVideo, data: str, at: float) -> None:
    """A frame (base64 JPEG) from `at` on; no data: the page still as it was at `at`."""
    if data:
        video.frame(base64.b64decode(data), at)
    else:
        video.hold(at)


def _quiet(task: asyncio.Future[Any]) -> None:
    """An acknowledgement sent as the page closed: nothing to do."""
    if not task.cancelled():
        task.exception()


def _logged(task: asyncio.Future[VideoInfo]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("a recording could not be finished: %s", task.exception())
