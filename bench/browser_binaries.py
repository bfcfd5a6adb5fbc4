"""What a headless session costs on each Chromium binary: the full browser vs the headless
shell, driven by raw Playwright and by steadyhand, in one run.

Debian ships two builds of the same Chromium: `chromium` (the desktop browser; `--headless`
runs it without a window) and `chromium-headless-shell` (the engine alone, what Playwright
runs headless by default). steadyhand picks the shell for headless sessions when it is
installed (engine/chromium.py). Each sample is a fresh process that launches the binary and
works through `--sessions` sessions one after another on bench/snapshot.py's form page:

  raw          new context, goto, aria_snapshot(mode="ai"), 5 clicks on the Save button
               (locator aria-ref=eN), fill the "Full name" field, close the context
  steadyhand   the same through steadyhand in-process (client.LocalBackend: the whole
               command dispatch with its checks and action log): open, snapshot, 5 clicks
               by ref, type by ref, session close

The CPU of a sample is the user+system time of that process and everything it waited for
(Playwright's driver, Chromium and its renderers), from os.wait4. Samples are interleaved
round by round (the four cells in an order that rotates). Prints medians of wall time and
CPU seconds per cell and the ratios shell/full; asserts nothing about time.

    .venv/bin/python bench/browser_binaries.py [--rounds 5] [--sessions 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

# This folder's: run as `python bench/browser_binaries.py`.
from act import raw_ref
from snapshot import FIXTURES, TIMEOUT_MS
from steadyhand.client import LocalBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import BASE_ARGS, find_chromium, is_headless_shell
from steadyhand.snapshot.lookup import find_ref

FORM = next(f for f in FIXTURES if f.name == "form")
FIELD = ("textbox", "Full name")
CLICKS = 5
DRIVERS = ("raw", "steadyhand")


async def raw_sessions(binary: str, url: str, sessions: int) -> None:
    args = [*BASE_ARGS, *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=binary, args=args)
        for _ in range(sessions):
            context = await browser.new_context()
            page = await context.new_page()
            await page.goto(url)
            text = await page.aria_snapshot(mode="ai", timeout=TIMEOUT_MS)
            button = page.locator(f"aria-ref={raw_ref(text, *FORM.target)}")
            for _ in range(CLICKS):
                await button.click(timeout=TIMEOUT_MS)
            await page.locator(f"aria-ref={raw_ref(text, *FIELD)}").fill("Ada Lovelace")
            await context.close()
        await browser.close()


async def steadyhand_sessions(binary: str, url: str, sessions: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="sh-bench-binaries-"))
    settings = Settings.load(state_dir=root, chromium=binary, failure_screenshots=False)
    backend = LocalBackend(settings)
    try:
        for number in range(sessions):
            session = {"session": f"s{number}", "timeout": TIMEOUT_MS}
            await backend.call("open", {**session, "url": url})
            text = (await backend.call("snapshot", session))["snapshot"]
            ref = find_ref(text, *FORM.target)
            for _ in range(CLICKS):
                await backend.call("click", {**session, "ref": ref})
            await backend.call("type", {**session, "ref": find_ref(text, *FIELD), "text": "Ada"})
            await backend.call("close", session)
    finally:
        await backend.aclose()
        shutil.rmtree(root, ignore_errors=True)


def one_sample(driver: str, binary: str, url: str, sessions: int) -> None:
    """The child's side: do the work, then exit."""
    work = raw_sessions if driver == "raw" else steadyhand_sessions
    asyncio.run(work(binary, url, sessions))


def measured(driver: str, binary: str, url: str, sessions: int) -> tuple[float, float]:
    """Wall seconds and CPU seconds of one sample process and all it waited for."""
    argv = [sys.executable, __file__, "--one", driver, binary, url, str(sessions)]
    began = time.perf_counter()
    child = subprocess.Popen(argv)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{driver} on {binary} exited {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        driver, binary, url, sessions = args.one
        one_sample(driver, binary, url, int(sessions))
        return 0
    full, shell = find_chromium(headless=False), find_chromium(headless=True)
    if not is_headless_shell(shell):
        print(f"no headless shell installed (headless sessions run {shell}): nothing to compare")
        return 1
    binaries = {"full": str(full), "shell": str(shell)}
    site = Path(tempfile.mkdtemp(prefix="sh-bench-binaries-site-"))
    (site / FORM.file).write_text(FORM.html())
    server = serve_directory(site)
    url = f"{base_url(server)}/{FORM.file}"
    cells = [(d, b) for d in DRIVERS for b in binaries]
    wall: dict[tuple[str, str], list[float]] = {cell: [] for cell in cells}
    cpu: dict[tuple[str, str], list[float]] = {cell: [] for cell in cells}
    try:
        for number in range(args.rounds):
            shift = number % len(cells)
            for driver, name in cells[shift:] + cells[:shift]:
                took, used = measured(driver, binaries[name], url, args.sessions)
                wall[(driver, name)].append(took)
                cpu[(driver, name)].append(used)
            print(f"round {number + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    finally:
        server.shutdown()
        shutil.rmtree(site, ignore_errors=True)
    return report(args, binaries, wall, cpu)


def report(
    args: argparse.Namespace,
    binaries: dict[str, str],
    wall: dict[tuple[str, str], list[float]],
    cpu: dict[tuple[str, str], list[float]],
) -> int:
    print(
        f"browser binaries: {args.rounds} interleaved rounds, each sample a process that "
        f"launches the binary and works through {args.sessions} sessions on the form page; "
        "medians\n" + "\n".join(f"  {name}: {path}" for name, path in binaries.items())
    )
    print(f"{'driver':<11} {'binary':<6} {'wall s':>7} {'CPU s':>7} {'CPU/session':>12}")
    for (driver, name), walls in wall.items():
        used = statistics.median(cpu[(driver, name)])
        print(
            f"{driver:<11} {name:<6} {statistics.median(walls):7.2f} {used:7.2f} "
            f"{used / args.sessions:12.3f}"
        )
    summary: dict[str, Any] = {"rounds": args.rounds, "sessions": args.sessions}
    for driver in DRIVERS:
        for what, samples in (("wall", wall), ("cpu", cpu)):
            ratio = statistics.median(samples[(driver, "shell")]) / statistics.median(
                samples[(driver, "full")]
            )
            summary[f"{driver} {what} shell/full"] = round(ratio, 2)
    ours = statistics.median(cpu[("steadyhand", "shell")]) / statistics.median(
        cpu[("raw", "shell")]
    )
    summary["steadyhand/raw cpu on the shell"] = round(ours, 2)
    for key, value in summary.items():
        if "/" in key:
            print(f"{key}: {value}")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
