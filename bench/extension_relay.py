"""What the Chrome extension relay costs: the same commands on a tab of "the user's"
Chromium attached through the extension, next to a session steadyhand manages, in one run.

A page with a button (each click changes one status text) is served on 127.0.0.1. This
process runs a steadyhand engine in-process (steadyhand.client.LocalBackend: the whole
command dispatch, no daemon or socket) whose relay listens on a free port, and starts a
Chromium with the unpacked extension (extension/) as the user's browser; the page is
opened there and attached through the extension's own attach function (what its toolbar
button calls). The managed session opens the same page in steadyhand's own Chromium. The
floor: raw Playwright on the user's tab itself (`aria_snapshot(mode="ai")`, a locator
click by aria-ref, `page.evaluate`). Per round, on each side:

  snapshot   `snapshot` (the default view)
  click      `click` by ref (verified, its changes reported), after an untimed snapshot
  evaluate   `evaluate document.title`: one round trip to the page and back

Also timed once: `attach`, from the extension's attach call to the tab being in the
session (the first attach opens the session over the relay). Each round puts another side
first; one warm-up round is not counted. Prints the median (ms) of each cell, the relay's
p95, and its ratio to the managed session and to raw Playwright, then one JSON line.
Asserts nothing about time.

    .venv/bin/python bench/extension_relay.py [--rounds 15]
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

from playwright.async_api import BrowserContext, Page, Playwright, async_playwright

from steadyhand.client import LocalBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import find_chromium
from steadyhand.extension.link import LOAD_ARGS
from steadyhand.snapshot.lookup import find_ref

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench</title></head>
<body><h1>Relay bench</h1>
<button type="button" onclick="document.getElementById('n').textContent = ++window.n">Count</button>
<p id="n">0</p><script>window.n = 0;</script></body></html>"""
CELLS = ("snapshot", "click", "evaluate")
SIDES = ("raw", "managed", "relay")


async def users_chrome(playwright: Playwright) -> BrowserContext:
    """A Chromium with the unpacked extension, as the user's."""
    return await playwright.chromium.launch_persistent_context(
        tempfile.mkdtemp(),
        executable_path=str(find_chromium()),
        headless=True,
        args=LOAD_ARGS,
        ignore_default_args=["--disable-extensions"],
    )


async def raw_cell(page: Page, cell: str) -> float:
    """The floor: raw Playwright doing the cell's work on the user's tab itself."""
    if cell == "click":
        ref = find_ref(await page.aria_snapshot(mode="ai"), "button", "Count")
        started = time.perf_counter()
        await page.locator(f"aria-ref={ref}").click()
    else:
        started = time.perf_counter()
        if cell == "snapshot":
            await page.aria_snapshot(mode="ai")
        else:
            await page.evaluate("document.title")
    return (time.perf_counter() - started) * 1000


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(rounds: int) -> None:
    site_dir = Path(tempfile.mkdtemp())
    (site_dir / "bench.html").write_text(PAGE)
    server = serve_directory(site_dir)
    url = f"{base_url(server)}/bench.html"
    settings = Settings.load(state_dir=Path(tempfile.mkdtemp()), extension_port=0)
    backend = LocalBackend(settings)
    times: dict[tuple[str, str], list[float]] = {(s, c): [] for s in SIDES for c in CELLS}
    try:
        paired = await backend.call("extension.pair", {})
        await backend.call("open", {"session": "managed", "url": url})
        async with async_playwright() as playwright:
            user = await users_chrome(playwright)
            worker = user.service_workers[0] if user.service_workers else None
            worker = worker or await user.wait_for_event("serviceworker")
            await worker.evaluate(
                "([relayUrl, token]) => chrome.storage.local.set({relayUrl, token})",
                [paired["relay_url"], paired["token"]],
            )
            page = await user.new_page()
            await page.goto(url)
            tab = await worker.evaluate(
                "async (url) => (await chrome.tabs.query({})).find(t => t.url === url).id", url
            )
            started = time.perf_counter()
            await worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
            attach_ms = (time.perf_counter() - started) * 1000
            names = {"managed": "managed", "relay": paired["session"]}
            order = list(SIDES)

            async def timed(side: str, cell: str) -> float:
                if side == "raw":
                    return await raw_cell(page, cell)
                session = names[side]
                if cell == "click":
                    snap = await backend.call("snapshot", {"session": session})
                    ref = find_ref(snap["snapshot"], "button", "Count")
                    params: dict[str, Any] = {"session": session, "ref": ref}
                elif cell == "evaluate":
                    params = {"session": session, "expression": "document.title"}
                else:
                    params = {"session": session}
                started = time.perf_counter()
                await backend.call(cell, params)
                return (time.perf_counter() - started) * 1000

            for round_no in range(rounds + 1):
                order = order[1:] + order[:1]  # each side first in turn
                for cell in CELLS:
                    for side in order:
                        spent = await timed(side, cell)
                        if round_no:  # the first round warms up
                            times[(side, cell)].append(spent)
            await user.close()
    finally:
        await backend.aclose()
        server.shutdown()

    report(times, attach_ms, rounds)


def report(times: dict[tuple[str, str], list[float]], attach_ms: float, rounds: int) -> None:
    """Print the figures, then one JSON line."""
    print(f"extension relay vs managed session vs raw Playwright, {rounds} rounds (ms)")
    print(f"  attach (extension call -> tab in the session): {attach_ms:.0f}")
    print(
        f"  {'cell':<10} {'raw p50':>8} {'managed p50':>12} {'relay p50':>10} {'p95':>7}"
        f" {'relay/managed':>14} {'relay/raw':>10}"
    )
    figures: dict[str, Any] = {"attach_ms": round(attach_ms, 1), "rounds": rounds}
    for cell in CELLS:
        raw, managed, relay = (times[(side, cell)] for side in SIDES)
        w50, m50, r50 = (statistics.median(t) for t in (raw, managed, relay))
        print(
            f"  {cell:<10} {w50:>8.1f} {m50:>12.1f} {r50:>10.1f} {quantile(relay, 0.95):>7.1f}"
            f" {r50 / m50:>14.2f} {r50 / w50:>10.2f}"
        )
        figures[cell] = {
            "raw_p50": round(w50, 2),
            "managed_p50": round(m50, 2),
            "relay_p50": round(r50, 2),
        }
    print(json.dumps(figures))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    asyncio.run(main(parser.parse_args().rounds))
