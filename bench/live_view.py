"""What the live view's screencast costs: frames, CPU and an agent's click, watched or not,
next to raw Playwright's, in one run.

This process runs a steadyhand engine in-process (steadyhand.client.LocalBackend) and
watches a session's tab as the live view does (`live.screen`: the tab's shared CDP
screencast, JPEG at live_quality, bounded at live_max_fps). Pages are served on 127.0.0.1.

1. Screen. On a static page and on a busy one (a CSS animation and a counter redrawn on
   every animation frame), windows of --seconds each, watched by one watcher (after its
   first fresh frame) or by none. Per window: frames received (frames/s), the median JPEG
   size, and CPU seconds over the window of steadyhand's Chromium (its whole process
   tree, from /proc), of Playwright's driver (node: every frame crosses it) and of this
   Python process (the daemon side, and the watcher reading frames), as CPU% (CPU s /
   wall s x 100). Windows are interleaved over --windows rounds, rotating the order; a
   short warm-up watch is not counted. Also checked: the screencast stops (no frame is
   produced) once its last watcher has left.
2. Click. A steadyhand `click` by ref (after an untimed snapshot) on a page whose button
   changes its text, with no watcher or with one watcher reading frames throughout (it
   joins, its first fresh frame arrives, then the snapshot and the timed click, then it
   leaves); beside it the raw Playwright floor: `page.locator("aria-ref=eN").click()` in
   a browser Playwright launched on the same system Chromium (BASE_ARGS), unwatched or
   watched by a raw CDP screencast (Page.startScreencast, frames acked at the same max
   fps). --rounds interleaved rounds rotating the four cells' order; one warm-up round is
   not counted.

Prints medians with ratios, then one JSON line. Asserts nothing about time. The machine's
load shows in the CPU figures: read them as differences within one run.

    .venv/bin/python bench/live_view.py [--seconds 5] [--windows 2] [--rounds 20] [--fps 5]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import CDPSession, Page, async_playwright

from endpoints import raw_click, steadyhand_click  # the same clicks, measured alike
from steadyhand.client import LocalBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import BASE_ARGS, descendants, find_chromium, owned_processes

STATIC = """<!doctype html><title>Static</title>
<h1>A page that does not change</h1><p>Some text, <a href="#x">a link</a>.</p>"""
BUSY = """<!doctype html><title>Busy</title>
<style>
  #box { width: 80px; height: 80px; background: #c33;
         animation: slide 1s linear infinite alternate; }
  @keyframes slide { from { transform: translateX(0) } to { transform: translateX(600px) } }
</style>
<div id="box"></div><p id="n">0</p>
<script>let n = 0; const out = document.getElementById("n");
(function tick() { out.textContent = String(++n); requestAnimationFrame(tick); })();</script>"""
COUNTER = """<!doctype html><title>Counter</title>
<button onclick="out.textContent = 'count ' + (++n)">Count</button>
<p id="out">count 0</p><script>let n = 0</script>"""
PAGES = ("static", "busy")
SEES = ("unwatched", "watched")
CELLS = tuple((kind, seen) for kind in ("raw", "steadyhand") for seen in SEES)
TICK = os.sysconf("SC_CLK_TCK")
FIRST_FRAME_S = 3.0
LEAVE_S = 15.0


# --- CPU -------------------------------------------------------------------------------


def cpu_ticks(pids: set[int]) -> dict[int, int]:
    """utime + stime (clock ticks) of each process still there."""
    ticks: dict[int, int] = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        ticks[pid] = int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat
    return ticks


def children(pid: int) -> set[int]:
    """The direct children of a process."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


@dataclass
class Side:
    """Whose processes a window counts: steadyhand's Chromium (by its owner flag) and
    driver, or the raw Playwright's driver and the Chromium below it."""

    state_dir: Path | None  # steadyhand's
    driver: set[int]

    def groups(self) -> dict[str, set[int]]:
        if self.state_dir is not None:
            return {"chromium": owned_processes(self.state_dir), "driver": self.driver}
        return {"chromium": descendants(self.driver) - self.driver, "driver": self.driver}


@dataclass
class CpuClock:
    """CPU seconds used by a side's browser tree and driver and this process since `start`."""

    side: Side
    wall: float = 0.0
    own: float = 0.0
    ticks: dict[str, dict[int, int]] = field(default_factory=dict)

    def _groups(self) -> dict[str, set[int]]:
        return self.side.groups()

    def start(self) -> None:
        self.ticks = {name: cpu_ticks(pids) for name, pids in self._groups().items()}
        self.own = time.process_time()
        self.wall = time.perf_counter()

    def stop(self) -> dict[str, float]:
        """CPU% of each group over the window, and its wall seconds."""
        wall = time.perf_counter() - self.wall
        own = time.process_time() - self.own
        used: dict[str, float] = {}
        for name, pids in self._groups().items():
            now, before = cpu_ticks(pids), self.ticks.get(name, {})
            used[name] = sum(t - before.get(pid, 0) for pid, t in now.items()) / TICK
        used["python"] = own
        return {name: s / wall * 100 for name, s in used.items()} | {"wall_s": wall}


# --- watching --------------------------------------------------------------------------


class Watcher:
    """One live-view watcher: reads `live.screen` in a task, keeping fresh frames."""

    def __init__(self, backend: LocalBackend, session: str) -> None:
        self.stream: AsyncGenerator[Any, None] = backend.stream("live.screen", {"session": session})
        self.joined = time.time()
        self.frames: list[tuple[float, int]] = []  # (emitted at, JPEG bytes)
        self.fresh = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for event in self.stream:
            if event.get("kind") == "frame" and event["ts"] >= self.joined:
                self.frames.append((event["ts"], len(base64.b64decode(event["data"]))))
                self.fresh.set()

    async def first_frame(self) -> bool:
        try:
            await asyncio.wait_for(self.fresh.wait(), FIRST_FRAME_S)
        except TimeoutError:
            return False
        return True

    async def leave(self) -> list[str]:
        """Stop watching; a problem if that hangs (its stack goes to stderr)."""
        self.task.cancel()
        done, _ = await asyncio.wait({self.task}, timeout=LEAVE_S)
        if not done:
            self.task.print_stack(file=sys.stderr)
            return [f"live.screen watcher still leaving after {LEAVE_S} s (stack on stderr)"]
        with contextlib.suppress(asyncio.CancelledError):
            await self.task
        try:
            await asyncio.wait_for(self.stream.aclose(), LEAVE_S)
        except TimeoutError:
            return [f"live.screen stream not closed after {LEAVE_S} s"]
        return []


class RawScreencast:
    """A raw CDP screencast on a Playwright page, frames acked as TabScreen does."""

    def __init__(self, page: Page, max_fps: float) -> None:
        self.page = page
        self.interval_s = 1.0 / max(0.1, max_fps)
        self.cdp: CDPSession | None = None
        self.frames: list[tuple[float, int]] = []  # (received at, JPEG bytes)
        self.fresh = asyncio.Event()
        self._last_at = 0.0

    async def start(self) -> bool:
        self.cdp = await self.page.context.new_cdp_session(self.page)
        self.cdp.on("Page.screencastFrame", self._frame)
        size = self.page.viewport_size or {"width": 1280, "height": 800}
        await self.cdp.send(
            "Page.startScreencast",
            {"format": "jpeg", "quality": 60, "maxWidth": size["width"]}
            | {"maxHeight": size["height"]},
        )
        try:
            await asyncio.wait_for(self.fresh.wait(), FIRST_FRAME_S)
        except TimeoutError:
            return False
        return True

    def _frame(self, params: dict[str, Any]) -> None:
        self.frames.append((time.time(), len(base64.b64decode(params["data"]))))
        self.fresh.set()
        now = time.monotonic()
        delay = max(0.0, self._last_at + self.interval_s - now)
        self._last_at = now + delay
        asyncio.get_running_loop().call_later(delay, self._ack, params["sessionId"])

    def _ack(self, session_id: int) -> None:
        if self.cdp is not None:
            task = asyncio.ensure_future(
                self.cdp.send("Page.screencastFrameAck", {"sessionId": session_id})
            )
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def stop(self) -> list[str]:
        cdp, self.cdp = self.cdp, None
        if cdp is not None:
            try:
                await asyncio.wait_for(cdp.send("Page.stopScreencast"), LEAVE_S)
                await asyncio.wait_for(cdp.detach(), LEAVE_S)
            except TimeoutError:
                return [f"raw screencast not stopped after {LEAVE_S} s"]
        return []


# --- 1. screen: frames and CPU ---------------------------------------------------------


def screen_frames(backend: LocalBackend) -> int:
    """Frames produced so far by every tab screen of the runtime (watched or not)."""
    runtime = backend._runtime
    assert runtime is not None, "the backend has run a command"
    live = runtime.live
    return sum(screen.frames for screen in live._screens.values())


async def screen_windows(
    backend: LocalBackend,
    raw: Page,
    sides: dict[str, Side],
    urls: dict[str, str],
    args: argparse.Namespace,
) -> tuple[dict[str, list[dict[str, float]]], dict[str, list[int]], list[str]]:
    """CPU% per window of each (side, page, seen), frame sizes, problems seen."""
    results: dict[str, list[dict[str, float]]] = defaultdict(list)
    sizes: dict[str, list[int]] = defaultdict(list)
    problems: list[str] = []
    await backend.call("open", {"session": "screen", "url": urls["busy"]})
    warm = Watcher(backend, "screen")  # warm-up: not counted
    await warm.first_frame()
    await asyncio.sleep(1.0)
    problems.extend(await warm.leave())
    cells = [(side, page, seen) for side in sides for page in PAGES for seen in SEES]
    for round_no in range(args.windows):
        shift = round_no % len(cells)
        for side, page, seen in cells[shift:] + cells[:shift]:
            note(f"screen window {round_no + 1}/{args.windows}: {side} {page} {seen}")
            if side == "raw":
                await raw.goto(urls[page])
            else:
                await backend.call("navigate", {"session": "screen", "url": urls[page]})
            await asyncio.sleep(0.5)  # let the load settle
            watcher: Watcher | RawScreencast | None = None
            if seen == "watched":
                if side == "steadyhand":
                    watcher = Watcher(backend, "screen")
                    fresh = await watcher.first_frame()
                else:
                    watcher = RawScreencast(raw, args.fps)
                    fresh = await watcher.start()
                if not fresh:
                    problems.append(f"{side} {page}: no frame within {FIRST_FRAME_S} s of joining")
            clock = CpuClock(sides[side])
            began = time.time()
            clock.start()
            await asyncio.sleep(args.seconds)
            used = clock.stop()
            key = f"{side} {page} {seen}"
            if watcher is not None:
                used["fps"] = sum(began <= ts for ts, _b in watcher.frames) / used["wall_s"]
                sizes[f"{side} {page}"].extend(b for _ts, b in watcher.frames)
                if isinstance(watcher, Watcher):
                    problems.extend(await watcher.leave())
                    problems.extend(await check_stopped(backend, page))
                else:
                    problems.extend(await watcher.stop())
            results[key].append(used)
    return results, sizes, problems


async def check_stopped(backend: LocalBackend, page: str) -> list[str]:
    """Problems if the screencast still runs (or is still counted watched) once left."""
    runtime = backend._runtime
    assert runtime is not None, "the backend has run a command"
    live = runtime.live
    found = []
    if live.watched_names():
        found.append(f"{page}: still listed as watched after the watcher left: {live.watched()}")
    before = screen_frames(backend)
    await asyncio.sleep(1.0)
    if (extra := screen_frames(backend) - before) > 0:
        found.append(f"{page}: {extra} frames produced in the 1 s after the last watcher left")
    return found


# --- 2. click round trip ---------------------------------------------------------------


async def clicks(
    backend: LocalBackend, raw: Page, url: str, rounds: int, fps: float
) -> tuple[dict[str, list[float]], list[str]]:
    samples: dict[str, list[float]] = defaultdict(list)
    problems: list[str] = []
    await backend.call("open", {"session": "click", "url": url})
    await raw.goto(url)
    for round_no in range(rounds + 1):
        note(f"click round {round_no}/{rounds}" + (" (warm-up)" if not round_no else ""))
        shift = round_no % len(CELLS)
        for kind, seen in CELLS[shift:] + CELLS[:shift]:
            ms = await click_cell(backend, raw, kind, seen, fps=fps, problems=problems)
            if round_no:  # the first round warms up
                samples[f"{kind} {seen}"].append(ms)
    return samples, problems


async def click_cell(
    backend: LocalBackend, page: Page, kind: str, seen: str, *, fps: float, problems: list[str]
) -> float:
    if kind == "raw":
        cast = RawScreencast(page, fps) if seen == "watched" else None
        if cast is not None and not await cast.start():
            problems.append("raw: no screencast frame within the wait")
        try:
            return await raw_click(page)
        finally:
            if cast is not None:
                problems.extend(await cast.stop())
    watcher = Watcher(backend, "click") if seen == "watched" else None
    if watcher is not None and not await watcher.first_frame():
        problems.append("steadyhand: no live.screen frame within the wait")
    try:
        return await steadyhand_click(backend, "click")
    finally:
        if watcher is not None:
            problems.extend(await watcher.leave())


# --- run and report --------------------------------------------------------------------


async def measure(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    site = work / "site"
    site.mkdir()
    for name, html in (("static", STATIC), ("busy", BUSY), ("counter", COUNTER)):
        (site / f"{name}.html").write_text(html)
    server = serve_directory(site)
    urls = {name: f"{base_url(server)}/{name}.html" for name in ("static", "busy", "counter")}
    state_dir = work / "state"
    settings = Settings.load(state_dir=state_dir, live_max_fps=args.fps)
    backend = LocalBackend(settings)
    try:
        await backend.call("open", {"session": "screen", "url": urls["static"]})
        ours = Side(state_dir, children(os.getpid()))  # steadyhand's driver, started by now
        async with async_playwright() as playwright:
            raw_side = Side(None, children(os.getpid()) - ours.driver)
            browser = await playwright.chromium.launch(
                executable_path=str(find_chromium()), args=[*BASE_ARGS, "--no-sandbox"]
            )
            try:
                raw = await browser.new_page(viewport={"width": 1280, "height": 800})
                sides = {"raw": raw_side, "steadyhand": ours}
                windows, sizes, problems = await screen_windows(backend, raw, sides, urls, args)
                await raw.close()  # a fresh page: its refs are eN again, not fNeN
                raw = await browser.new_page(viewport={"width": 1280, "height": 800})
                samples, more = await clicks(backend, raw, urls["counter"], args.rounds, args.fps)
            finally:
                note("closing the raw browser")
                await browser.close()
    finally:
        note("closing steadyhand's engine")
        await backend.aclose()
        server.shutdown()
    left = owned_processes(state_dir)
    if left:
        more.append(f"steadyhand Chromium processes left after close: {sorted(left)}")
    return {"windows": windows, "sizes": sizes, "samples": samples, "problems": problems + more}


def note(progress: str) -> None:
    """Where the run is, on stderr (a run that hangs shows where)."""
    print(f"  {progress}", file=sys.stderr, flush=True)


def med(values: list[dict[str, float]], key: str) -> float:
    return statistics.median(v[key] for v in values)


def report(found: dict[str, Any], fps: float) -> dict[str, Any]:
    windows, sizes, samples = found["windows"], found["sizes"], found["samples"]
    out: dict[str, Any] = {"screen": {}, "click_median_ms": {}}
    print(f"## screen, max {fps:g} fps: medians over windows; CPU% = CPU s / wall s x 100")
    head = f"{'side':10} {'page':6} {'watcher':10} {'frames/s':>8} {'chromium%':>9}"
    print(f"{head} {'driver%':>8} {'python%':>8} {'total%':>7} {'JPEG kB':>8}")
    for page in PAGES:
        added = {}
        for side in ("raw", "steadyhand"):
            totals = {}
            for seen in SEES:
                cell = windows[f"{side} {page} {seen}"]
                row = {k: med(cell, k) for k in ("chromium", "driver", "python")}
                row["total"] = totals[seen] = sum(row.values())
                row["fps"] = med(cell, "fps") if seen == "watched" else 0.0
                jpeg = sizes.get(f"{side} {page}") if seen == "watched" else None
                if jpeg:
                    row["jpeg_kb"] = statistics.median(jpeg) / 1000
                print(
                    f"{side:10} {page:6} {seen:10} {row['fps']:8.1f} {row['chromium']:9.1f} "
                    f"{row['driver']:8.1f} {row['python']:8.1f} {row['total']:7.1f} "
                    + (f"{row['jpeg_kb']:8.1f}" if "jpeg_kb" in row else f"{'-':>8}")
                )
                out["screen"][f"{side} {page} {seen}"] = {k: round(v, 2) for k, v in row.items()}
            added[side] = totals["watched"] - totals["unwatched"]
            print(
                f"{side:10} {page:6} {'added':10} {'':8} {'':9} {'':8} {'':8} {added[side]:+7.1f}"
            )
            out["screen"][f"{side} {page} added_cpu_pct"] = round(added[side], 2)
    print()
    print("## click round trip, medians in ms (watched: one watcher reading frames)")
    print(f"{'':11} {'unwatched':>10} {'watched':>8} {'w/u':>6}")
    medians = {cell: statistics.median(v) for cell, v in samples.items()}
    for kind in ("raw", "steadyhand"):
        u, w = medians[f"{kind} unwatched"], medians[f"{kind} watched"]
        print(f"{kind:11} {u:10.1f} {w:8.1f} {w / u:6.2f}")
    sh_raw = {seen: medians[f"steadyhand {seen}"] / medians[f"raw {seen}"] for seen in SEES}
    print(f"{'sh/raw':11} {sh_raw['unwatched']:10.2f} {sh_raw['watched']:8.2f}")
    out["click_median_ms"] = {cell: round(v, 1) for cell, v in sorted(medians.items())}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="each screen window")
    parser.add_argument("--windows", type=int, default=2, help="rounds of screen windows")
    parser.add_argument("--rounds", type=int, default=20, help="click rounds")
    parser.add_argument("--fps", type=float, default=5.0, help="live_max_fps")
    args = parser.parse_args()
    print(f"# load before: {Path('/proc/loadavg').read_text().strip()}")
    with tempfile.TemporaryDirectory(prefix="bench-live-") as work:
        found = asyncio.run(measure(args, Path(work)))
    print(
        f"# {args.windows} x {args.seconds:g} s screen windows per cell, "
        f"{args.rounds} click rounds, max {args.fps:g} fps, {os.cpu_count()} cores"
    )
    result = report(found, args.fps)
    for problem in found["problems"]:
        print(f"! {problem}")
    print(f"# load after: {Path('/proc/loadavg').read_text().strip()}")
    settings = {k: getattr(args, k) for k in ("seconds", "windows", "rounds", "fps")}
    print(json.dumps(result | settings | {"problems": found["problems"]}))


if __name__ == "__main__":
    main()
