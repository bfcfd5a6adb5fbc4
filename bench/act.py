"""What one act costs in steadyhand, in-process, next to raw Playwright's, in one run.

The three fixture pages of bench/snapshot.py (form, table, big; imported from it, not
copied) are served on 127.0.0.1 from a temp dir. Two browsers in this process, on one
asyncio loop: raw Playwright (async API) driving the system Chromium, and a steadyhand
engine (steadyhand.client.LocalBackend, as bench/observe.py uses it: the whole command
dispatch, with its checks, action log and the JSON round trip of the result, but no
daemon or socket) with its own Chromium. On each page, per round:

  raw snapshot       page.aria_snapshot(mode="ai")
  raw click          page.locator("aria-ref=eN").click(), eN found in the raw snapshot
  click changes      steadyhand `click` by ref, its report of what changed on (default)
  click no-changes   steadyhand `click --no-changes`
  snapshot           steadyhand `snapshot` (the default view)
  interactive        steadyhand `snapshot --interactive`
  diff               steadyhand `snapshot --diff`, right after one click that changes the
                     page (that click not timed)
  floor              steadyhand `sessions`: what dispatch costs around any command
  raw fill           page.locator("aria-ref=eN").fill(text), on pages with a text field
  raw fill+read      the same fill, then its input_value() read back and compared (what
                     steadyhand's `type` checks); the base of the fill and type ratios
  type               steadyhand `type` by ref into that field (verified, read back)
  raw press          page.keyboard.press("End"), on what has the focus
  press              steadyhand `press End` (no ref: what has the focus), changes on

Each steadyhand act also reports where its time went (its result's `timing`: resolve,
check, input, settle, changes, record); a table of their medians follows the main one.

Both steadyhand clicks are timed right after a `snapshot` (not timed) that hands out
the ref, as an agent's snapshot -> act loop does, so their baseline is fresh. The
target is the first element with the fixture's role and name (Save, Edit, Open); each
click changes one status text. Rounds are interleaved: every cell once per round, the
cells in an order that rotates each round; one warm-up round is not counted. Prints
the median and p95 (ms) of each cell with its ratio to raw (clicks to the raw click,
snapshots to the raw aria_snapshot) and the characters of each view next to raw's,
then one JSON line. Asserts nothing about time.

    .venv/bin/python bench/act.py [--rounds 7] [--pages form,table,big]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Locator, Page, async_playwright

# This folder's: run as `python bench/act.py`.
from snapshot import FIXTURES, MAX_CHARS, TIMEOUT_MS, Fixture
from steadyhand.call import STAGES
from steadyhand.client import LocalBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import BASE_ARGS, find_chromium
from steadyhand.snapshot.lookup import find_ref

CELLS = (
    "raw snapshot",
    "raw click",
    "click changes",
    "click no-changes",
    "snapshot",
    "interactive",
    "diff",
    "floor",
    "raw fill",
    "raw fill+read",
    "type",
    "raw press",
    "press",
)
TYPING = ("raw fill", "raw fill+read", "type", "raw press", "press")
PRESSING = ("raw press", "press")
KEY = "End"  # pressed on what has the focus: moves a caret, changes nothing
# The text field typed into, on the pages that have one.
FIELDS = {"form": ("textbox", "Full name")}
CLICKS = ("click changes", "click no-changes")
VIEWS = ("snapshot", "interactive", "diff")
SIZED = ("raw snapshot", *VIEWS, "click changes")  # cells whose text is counted

Samples = defaultdict[tuple[str, str], list[float]]


@dataclass
class Measured:
    ms: Samples = field(default_factory=lambda: defaultdict(list))
    chars: Samples = field(default_factory=lambda: defaultdict(list))
    notes: dict[str, str] = field(default_factory=dict)  # per page: the diff's first line
    # per (page, cell): the act result's `timing`, ms per stage (call.STAGES)
    stages: defaultdict[tuple[str, str], defaultdict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    # per (page, cell): the routes its input took (the result's `route`), counted
    routes: defaultdict[tuple[str, str], Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    failures: dict[tuple[str, str], str] = field(default_factory=dict)


def raw_ref(text: str, role: str, name: str) -> str:
    """The ref of the first `- role "name" ... [ref=eN]` line of a raw ai snapshot."""
    pattern = rf'^\s*- {re.escape(role)} "{re.escape(name)}"(?: \[[^\]\n]*\])*? \[ref=(\w+)\]'
    found = re.search(pattern, text, re.MULTILINE)
    if found is None:
        raise KeyError(f"no {role} {name!r} in the raw snapshot")
    return found.group(1)


async def timed(samples: list[float], action: Awaitable[Any]) -> Any:
    started = time.perf_counter()
    result = await action
    samples.append((time.perf_counter() - started) * 1000)
    return result


class Bench:
    """One page in both browsers, and what each cell does on it."""

    def __init__(self, fixture: Fixture, raw: Page, backend: LocalBackend, out: Measured) -> None:
        self.fixture = fixture
        self.name = fixture.name
        self.raw = raw
        self.backend = backend
        self.out = out
        self.ref = ""  # the target's ref in the last raw snapshot
        self.field_ref = ""  # ...and the text field's
        self.typed = 0

    async def sh(self, method: str, **params: Any) -> Any:
        call = {"session": self.name, "timeout": TIMEOUT_MS, **params}
        return await self.backend.call(method, call)

    async def sh_snapshot(self, **flags: Any) -> dict[str, Any]:
        got: dict[str, Any] = await self.sh("snapshot", max_chars=MAX_CHARS, **flags)
        if got.get("next_offset") is not None:
            raise RuntimeError(f"{self.name}: the snapshot was cut at {len(got['snapshot'])}")
        return got

    async def raw_snapshot(self) -> str:
        text: str = await self.raw.aria_snapshot(mode="ai", timeout=TIMEOUT_MS)
        self.ref = raw_ref(text, *self.fixture.target)
        if self.name in FIELDS:
            self.field_ref = raw_ref(text, *FIELDS[self.name])
        return text

    def staged(self, cell: str, done: dict[str, Any]) -> None:
        for stage, spent in (done.get("timing") or {}).items():
            self.out.stages[(self.name, cell)][stage].append(spent)
        if done.get("route"):
            self.out.routes[(self.name, cell)][str(done["route"])] += 1

    @staticmethod
    async def fill_and_read(field: Locator, text: str) -> None:
        """Raw Playwright's fill, checked as steadyhand's `type` is: the value read back."""
        await field.fill(text, timeout=TIMEOUT_MS)
        if await field.input_value(timeout=TIMEOUT_MS) != text:
            raise RuntimeError("the raw fill did not hold")

    async def setup(self, url: str) -> None:
        await self.raw.goto(url)
        await self.raw_snapshot()
        await self.sh("open", url=url)
        await self.sh_snapshot()

    async def cell(self, cell: str) -> None:
        ms, chars = self.out.ms[(self.name, cell)], self.out.chars[(self.name, cell)]
        if cell == "raw snapshot":
            chars.append(len(await timed(ms, self.raw_snapshot())))
        elif cell == "raw click":
            await timed(ms, self.raw.locator(f"aria-ref={self.ref}").click(timeout=TIMEOUT_MS))
        elif cell in CLICKS:
            ref = find_ref((await self.sh_snapshot())["snapshot"], *self.fixture.target)
            changes = cell == "click changes"
            done = await timed(ms, self.sh("click", ref=ref, changes=changes))
            chars.append(len(done.get("changes") or ""))
            self.staged(cell, done)
        elif cell == "diff":
            ref = find_ref((await self.sh_snapshot())["snapshot"], *self.fixture.target)
            await self.sh("click", ref=ref, changes=False)
            got = await timed(ms, self.sh_snapshot(diff=True))
            chars.append(got["chars"])
            self.out.notes[self.name] = (got["snapshot"].splitlines() or [""])[0]
        elif cell == "floor":
            await timed(ms, self.sh("sessions"))
        elif cell in TYPING:
            self.typed += 1
            text = f"Ada Lovelace {self.typed}"
            field = self.raw.locator(f"aria-ref={self.field_ref}")
            if cell == "raw fill":
                await timed(ms, field.fill(text, timeout=TIMEOUT_MS))
            elif cell == "raw fill+read":
                await timed(ms, self.fill_and_read(field, text))
            elif cell == "raw press":
                await timed(ms, self.raw.keyboard.press(KEY))
            elif cell == "press":
                self.staged(cell, await timed(ms, self.sh("press", key=KEY)))
            else:
                ref = find_ref((await self.sh_snapshot())["snapshot"], *FIELDS[self.name])
                self.staged(cell, await timed(ms, self.sh("type", ref=ref, text=text)))
        else:
            flags = {"interactive": True} if cell == "interactive" else {}
            chars.append((await timed(ms, self.sh_snapshot(**flags)))["chars"])


async def measure(rounds: int, fixtures: list[Fixture]) -> Measured:
    site = Path(tempfile.mkdtemp(prefix="sh-bench-act-site-"))
    for fixture in fixtures:
        (site / fixture.file).write_text(fixture.html())
    server = serve_directory(site)
    root = Path(tempfile.mkdtemp(prefix="sh-bench-act-"))
    settings = Settings.load(state_dir=root / "state", failure_screenshots=False)
    backend = LocalBackend(settings)
    out = Measured()
    args = [*BASE_ARGS, *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(find_chromium(settings.chromium)), headless=True, args=args
            )
            benches = []
            for fixture in fixtures:
                bench = Bench(fixture, await browser.new_page(), backend, out)
                await bench.setup(f"{base_url(server)}/{fixture.file}")
                benches.append(bench)
            for number in range(rounds + 1):  # round 0 warms up and is not kept
                kept = Measured()
                shift = number % len(CELLS)
                for bench in benches:
                    bench.out = kept
                    for cell in CELLS[shift:] + CELLS[:shift]:
                        if cell in TYPING and bench.name not in FIELDS:
                            continue
                        await run_cell(bench, cell)
                if number:
                    merge(out, kept)
                else:
                    out.failures.update(kept.failures)
            await browser.close()
    finally:
        try:
            await backend.aclose()
        finally:
            server.shutdown()
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(site, ignore_errors=True)
    return out


async def run_cell(bench: Bench, cell: str) -> None:
    """One cell; a failure is noted (first one per cell) and the bench goes on."""
    key = (bench.name, cell)
    if key in bench.out.failures:
        return
    try:
        await bench.cell(cell)
    except Exception as exc:
        bench.out.failures[key] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"


def merge(into: Measured, kept: Measured) -> None:
    for key, values in kept.ms.items():
        into.ms[key] += values
    for key, values in kept.chars.items():
        into.chars[key] += values
    for key, stages in kept.stages.items():
        for stage, values in stages.items():
            into.stages[key][stage] += values
    for key, routes in kept.routes.items():
        into.routes[key] += routes
    into.notes.update(kept.notes)
    for key, message in kept.failures.items():
        into.failures.setdefault(key, message)


# ---------------------------------------------------------------- reporting


def p95(values: list[float]) -> float:
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def median_of(samples: Samples, page: str, cell: str) -> float | None:
    values = samples.get((page, cell))
    return statistics.median(values) if values else None


def report(measured: Measured, rounds: int, fixtures: list[Fixture]) -> dict[str, Any]:
    ms, chars = measured.ms, measured.chars
    print(
        f"act bench: {rounds} interleaved rounds (+1 warm-up), in-process on one asyncio loop;"
        " ms median / p95\nratio: clicks and floor vs the raw click, fills and type vs the raw "
        "fill with its value read back, press vs the raw keyboard.press, "
        "views vs the raw aria_snapshot(mode='ai'); chars vs the raw snapshot's\n"
    )
    header = f"{'page':<7}{'cell':<18}{'median':>9}{'p95':>9}{'x raw':>8}{'chars':>10}{'x raw':>8}"
    print(header)
    print("-" * len(header))
    out: dict[str, Any] = {"bench": "act", "rounds": rounds, "pages": {}}
    for fixture in fixtures:
        name = fixture.name

        raw_click, raw_snap = median_of(ms, name, "raw click"), median_of(ms, name, "raw snapshot")
        raw_fill = median_of(ms, name, "raw fill+read")
        raw_press = median_of(ms, name, "raw press")
        raw_chars = median_of(chars, name, "raw snapshot")
        cells: dict[str, Any] = {}
        for cell in CELLS:
            values = ms.get((name, cell))
            if cell in TYPING and name not in FIELDS:
                continue
            if not values:
                print(f"{name:<7}{cell:<18}{'failed':>9}")
                cells[cell] = None
                continue
            base = raw_snap if cell in VIEWS or cell == "raw snapshot" else raw_click
            base = raw_fill if cell in TYPING else base
            base = raw_press if cell in PRESSING else base
            median = statistics.median(values)
            row: dict[str, Any] = {"ms": round(median, 2), "p95_ms": round(p95(values), 2)}
            line = f"{name:<7}{cell:<18}{median:>9.1f}{p95(values):>9.1f}"
            line += f"{median / base:>7.2f}x" if base else f"{'':>8}"
            if base:
                row["time_ratio"] = round(median / base, 3)
            size = median_of(chars, name, cell)
            if cell in SIZED and size is not None:
                row["chars"] = int(size)
                line += f"{int(size):>10,}"
                if cell != "click changes" and raw_chars:
                    row["size_ratio"] = round(size / raw_chars, 4)
                    line += f"{size / raw_chars:>7.3f}x"
            cells[cell] = row
            print(line)
        on, off = median_of(ms, name, "click changes"), median_of(ms, name, "click no-changes")
        if on is not None and off is not None:
            cells["changes_cost_ms"] = round(on - off, 2)
            print(f"{'':<7}{'changes cost':<18}{on - off:>9.1f}  (click changes - no-changes)")
        cells["diff_said"] = measured.notes.get(name, "")
        print(f"{'':<7}{'diff said':<18}{measured.notes.get(name, '')!r}\n")
        out["pages"][name] = cells
    out["stages"] = stage_table(measured, fixtures)
    if measured.failures:
        print("failed (first error per cell):")
        for (page, cell), message in measured.failures.items():
            print(f"  {page} {cell}: {message}")
    out["failures"] = {
        f"{page} {cell}": message for (page, cell), message in measured.failures.items()
    }
    print(
        "click chars: the `changes` text the click returned. Steadyhand's clicks follow an "
        "untimed snapshot (fresh baseline); diff follows an untimed --no-changes click."
    )
    return out


def stage_table(measured: Measured, fixtures: list[Fixture]) -> dict[str, Any]:
    """Where each act's time went: the median ms of each stage of its result's `timing`."""
    print("stages of steadyhand's acts, median ms (result `timing`; its sum leaves out dispatch)")
    print(f"{'page':<7}{'cell':<18}" + "".join(f"{stage:>9}" for stage in STAGES) + "  route")
    table: dict[str, Any] = {}
    for fixture in fixtures:
        for cell in (*CLICKS, "type", "press"):
            stages = measured.stages.get((fixture.name, cell))
            if not stages:
                continue
            medians: dict[str, Any] = {
                stage: round(statistics.median(stages[stage]), 2) for stage in stages
            }
            routes = measured.routes.get((fixture.name, cell), Counter())
            route = ", ".join(f"{name} x{n}" for name, n in routes.most_common())
            table[f"{fixture.name} {cell}"] = medians | {"routes": dict(routes)}
            cols = "".join(
                f"{medians[stage]:>9.1f}" if stage in medians else f"{'-':>9}" for stage in STAGES
            )
            print(f"{fixture.name:<7}{cell:<18}{cols}  {route}")
    print()
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7, help="counted rounds (default 7)")
    parser.add_argument(
        "--pages", default="form,table,big", help="comma-separated pages (default all three)"
    )
    args = parser.parse_args()
    wanted = [name.strip() for name in args.pages.split(",") if name.strip()]
    known = {fixture.name: fixture for fixture in FIXTURES}
    unknown = [name for name in wanted if name not in known]
    if unknown or not wanted:
        parser.error(f"--pages: unknown {unknown}; choose from {', '.join(known)}")
    fixtures = [known[name] for name in wanted]
    rounds = max(1, args.rounds)
    measured = asyncio.run(measure(rounds, fixtures))
    print(json.dumps(report(measured, rounds, fixtures)))


if __name__ == "__main__":
    main()
