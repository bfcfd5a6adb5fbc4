"""What `record` costs: an agent's click with and without the tab recording, and the file a
recording writes for a still page and a busy one.

This process runs a steadyhand engine in-process (steadyhand.client.LocalBackend) on pages
served on 127.0.0.1.

1. Click. A `click` by ref (after an untimed snapshot) on a page whose button changes its
   text, in a session whose tab records (`record start` at --fps) or one whose tab does
   not; --rounds interleaved rounds rotating the order, one warm-up round not counted.
2. File. `record start` at --fps, --seconds of a still page, then of a busy one (a
   counter redrawn on every animation frame), `record stop`: frames, seconds, bytes and
   bytes a second of each file, and how long `record stop` took.

Prints medians with ratios, then one JSON line. Asserts nothing about time.

    .venv/bin/python bench/record.py [--rounds 20] [--seconds 5] [--fps 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from steadyhand.client import LocalBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.snapshot.lookup import find_ref

COUNTER = """<!doctype html><title>Counter</title><h1>Counter</h1>
<button onclick="this.nextElementSibling.textContent = 'count ' + (++window.n)">Count</button>
<p>count 0</p><script>window.n = 0;</script>"""
STILL = """<!doctype html><title>Still</title>
<h1>A page that does not change</h1><p>Some text, <a href="#x">a link</a>.</p>"""
BUSY = """<!doctype html><title>Busy</title><h1 id="n">0</h1>
<script>let n = 0; (function tick() { document.getElementById("n").textContent = ++n;
requestAnimationFrame(tick); })();</script>"""


async def click_ms(backend: LocalBackend, session: str) -> float:
    snap = await backend.call("snapshot", {"session": session})
    ref = find_ref(snap["snapshot"], "button", "Count")
    started = time.perf_counter()
    await backend.call("click", {"session": session, "ref": ref})
    return (time.perf_counter() - started) * 1000


async def clicks(backend: LocalBackend, url: str, rounds: int, fps: int) -> dict[str, float]:
    await backend.call("open", {"session": "plain", "url": url})
    await backend.call("open", {"session": "recorded", "url": url})
    await backend.call("record.start", {"session": "recorded", "fps": fps})
    samples: dict[str, list[float]] = {"plain": [], "recorded": []}
    order = ["plain", "recorded"]
    for round_no in range(rounds + 1):
        for session in order:
            ms = await click_ms(backend, session)
            if round_no:  # the first round warms up
                samples[session].append(ms)
        order.reverse()
    await backend.call("record.stop", {"session": "recorded"})
    return {session: statistics.median(values) for session, values in samples.items()}


async def video_of(backend: LocalBackend, url: str, seconds: float, fps: int) -> dict[str, Any]:
    session = "file-" + url.rsplit("/", 1)[1].removesuffix(".html")
    await backend.call("open", {"session": session, "url": url})
    await backend.call("record.start", {"session": session, "fps": fps})
    await asyncio.sleep(seconds)
    started = time.perf_counter()
    saved = await backend.call("record.stop", {"session": session})
    stop_ms = (time.perf_counter() - started) * 1000
    return {
        "frames": saved["frames"],
        "seconds": saved["seconds"],
        "bytes": saved["bytes"],
        "bytes_per_s": round(saved["bytes"] / max(saved["seconds"], 0.001)),
        "stop_ms": round(stop_ms, 1),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--fps", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        site = work / "site"
        site.mkdir()
        for name, page in (("counter", COUNTER), ("still", STILL), ("busy", BUSY)):
            (site / f"{name}.html").write_text(page)
        server = serve_directory(site)
        base = base_url(server)
        backend = LocalBackend(Settings.load(state_dir=work / "state"))
        try:
            click = await clicks(backend, f"{base}/counter.html", args.rounds, args.fps)
            files = {
                name: await video_of(backend, f"{base}/{name}.html", args.seconds, args.fps)
                for name in ("still", "busy")
            }
        finally:
            await backend.aclose()
            server.shutdown()
    ratio = click["recorded"] / click["plain"]
    print(f"click, median of {args.rounds}: {click['plain']:.1f} ms plain, ", end="")
    print(f"{click['recorded']:.1f} ms while recording at {args.fps} fps (x{ratio:.2f})")
    for name, video in files.items():
        print(
            f"{name} page, {args.seconds:g} s at {args.fps} fps: {video['frames']} frames, "
            f"{video['seconds']} s, {video['bytes'] / 1024:.0f} KB "
            f"({video['bytes_per_s'] / 1024:.0f} KB/s); record stop {video['stop_ms']} ms"
        )
    print(json.dumps({"fps": args.fps, "click_ms": click, "ratio": round(ratio, 3), **files}))


if __name__ == "__main__":
    asyncio.run(main())
