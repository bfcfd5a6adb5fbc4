"""What an act costs on a browser steadyhand did not launch, next to raw Playwright's, in one run.

Three places for the browser, all on this machine (loopback: this measures the protocol
and steadyhand's layers, not a network):

  local   the Chromium steadyhand launches (the default)
  cdp     a Chromium started with --remote-debugging-port (`connect_over_cdp`)
  server  `playwright run-server` (`connect`, Playwright's own protocol)

For each place, per round: a raw Playwright click (`page.locator("aria-ref=eN").click()`
on a page of a browser connected the same way) and a steadyhand `click` by ref (in
process, steadyhand.client.LocalBackend: the whole dispatch, action log and JSON round
trip, no socket), each right after a snapshot (not timed). Rounds are interleaved and
rotate the order; one warm-up round is not counted. Prints the median (ms) of each cell,
steadyhand / raw at each place, and each place / local; then one JSON line. Asserts
nothing about time.

    .venv/bin/python bench/endpoints.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' endpoint helpers
from tests.integration.test_endpoints import (
    cdp_chromium,
    launch_header,
    run_server,
)

from steadyhand.client import LocalBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import BASE_ARGS, find_chromium
from steadyhand.snapshot.lookup import find_ref

PLACES = ("local", "cdp", "server")
PAGE = """<!doctype html><title>Counter</title>
<button onclick="out.textContent = 'count ' + (++n)">Count</button>
<p id="out">count 0</p><script>let n = 0</script>"""


async def raw_page(browser: Browser, url: str) -> Page:
    page = await (await browser.new_context()).new_page()
    await page.goto(url)
    return page


async def raw_click(page: Page) -> float:
    text = await page.aria_snapshot(mode="ai")
    ref = find_ref(text, "button", "Count")
    started = time.perf_counter()
    await page.locator(f"aria-ref={ref}").click()
    return (time.perf_counter() - started) * 1000


async def steadyhand_click(backend: LocalBackend, session: str) -> float:
    snap = await backend.call("snapshot", {"session": session})
    ref = find_ref(snap["snapshot"], "button", "Count")
    started = time.perf_counter()
    await backend.call("click", {"session": session, "ref": ref})
    return (time.perf_counter() - started) * 1000


async def measure(rounds: int, work: Path) -> dict[str, list[float]]:
    (work / "site").mkdir()
    (work / "site" / "counter.html").write_text(PAGE)
    server = serve_directory(work / "site")
    url = base_url(server) + "/counter.html"
    cdp, grid = cdp_chromium(work / "cdp-profile"), run_server()
    endpoints = f"cdp={cdp.url}; server={grid.url} {launch_header()}"
    settings = Settings.load(state_dir=work / "state", browser_endpoints=endpoints)
    backend = LocalBackend(settings)
    samples: dict[str, list[float]] = defaultdict(list)
    try:
        async with async_playwright() as playwright:
            chromium = playwright.chromium
            raw_browsers = {
                "local": await chromium.launch(
                    executable_path=str(find_chromium()), args=[*BASE_ARGS, "--no-sandbox"]
                ),
                "cdp": await chromium.connect_over_cdp(cdp.url),
                "server": await chromium.connect(
                    grid.url, headers=dict([launch_header().split("=", 1)])
                ),
            }
            raw = {p: await raw_page(b, url) for p, b in raw_browsers.items()}
            for place in PLACES:
                await backend.call("open", {"session": place, "url": url, "browser": place})
            cells = [(kind, place) for place in PLACES for kind in ("raw", "steadyhand")]
            for round_no in range(rounds + 1):
                shift = round_no % len(cells)
                for kind, place in cells[shift:] + cells[:shift]:
                    if kind == "raw":
                        ms = await raw_click(raw[place])
                    else:
                        ms = await steadyhand_click(backend, place)
                    if round_no:  # the first round warms up
                        samples[f"{kind} {place}"].append(ms)
            for browser in raw_browsers.values():
                await browser.close()
    finally:
        await backend.aclose()
        server.shutdown()
        cdp.kill()
        grid.kill()
    return samples


def report(samples: dict[str, list[float]]) -> dict[str, Any]:
    med = {cell: statistics.median(values) for cell, values in samples.items()}
    print(f"{'place':8} {'raw click':>10} {'steadyhand':>11} {'sh/raw':>7} {'sh vs local':>12}")
    for place in PLACES:
        raw, ours = med[f"raw {place}"], med[f"steadyhand {place}"]
        versus = ours / med["steadyhand local"]
        print(f"{place:8} {raw:10.1f} {ours:11.1f} {ours / raw:7.2f} {versus:12.2f}")
    return {"median_ms": {cell: round(value, 1) for cell, value in med.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-endpoints-") as work:
        samples = asyncio.run(measure(args.rounds, Path(work)))
    print(f"# {args.rounds} rounds, medians in ms")
    print(json.dumps(report(samples) | {"rounds": args.rounds}))


if __name__ == "__main__":
    main()
