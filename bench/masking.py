"""What covering secrets in pixels costs a screenshot: Playwright's plain `page.screenshot()`
(the raw baseline) vs the screenshot steadyhand takes (the same call with its mask: password
fields and fields a secret was typed into, act/pixel_mask.py), on the fixture's form page
with no field masked and with one, in the same run. Interleaved rounds, medians, ratios.
Asserts nothing about time.

    .venv/bin/python bench/masking.py [--rounds 7] [--n 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from playwright.async_api import Page, async_playwright

from steadyhand.act.pixel_mask import MASK_COLOR, covered, mask_field
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import BASE_ARGS, find_chromium

SITE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "site"


async def shots_ms(page: Page, n: int, masked: bool) -> float:
    """Median ms of one viewport screenshot."""
    times = []
    for _ in range(n):
        started = time.perf_counter()
        if masked:
            await page.screenshot(mask=covered(page), mask_color=MASK_COLOR)
        else:
            await page.screenshot()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


async def run(rounds: int, n: int) -> dict[str, list[float]]:
    server = serve_directory(SITE)
    cells: dict[str, list[float]] = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(find_chromium()), headless=True, args=list(BASE_ARGS)
        )
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await page.goto(f"{base_url(server)}/remember.html")
        for state in ("no field masked", "one field masked"):
            if state == "one field masked":
                started = time.perf_counter()
                await mask_field(await page.query_selector("#account"))  # type: ignore[arg-type]
                cells["mask_field (once per field typed)"] = [
                    (time.perf_counter() - started) * 1000
                ]
            for _ in range(rounds):  # interleaved: the machine's noise hits both
                cells.setdefault(f"raw screenshot, {state}", []).append(
                    await shots_ms(page, n, masked=False)
                )
                cells.setdefault(f"masked screenshot, {state}", []).append(
                    await shots_ms(page, n, masked=True)
                )
        await browser.close()
    server.shutdown()
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--n", type=int, default=20, help="screenshots per round and cell")
    args = parser.parse_args()
    cells = asyncio.run(run(args.rounds, args.n))
    medians = {k: statistics.median(v) for k, v in cells.items()}
    for label, ms in medians.items():
        print(f"{label:44} {ms:8.2f} ms")
    for state in ("no field masked", "one field masked"):
        raw, ours = medians[f"raw screenshot, {state}"], medians[f"masked screenshot, {state}"]
        print(f"masked / raw, {state:30} {ours / raw:8.2f}x  (+{ours - raw:.2f} ms)")
    print(json.dumps({"bench": "masking", "median_ms": medians}))


if __name__ == "__main__":
    main()
