"""The agent's-eye suite, side by side: steadyhand and raw Playwright, in one run.

Every task of tests/agent (a page, an instruction, a scripted solver that reads only the
snapshot's text and acts only by ref, and a check of the page's own state) runs twice on
the same pages served from 127.0.0.1: once through a steadyhand daemon (its `snapshot`
and act commands over the socket, as an agent's tool calls), once on raw Playwright
(`page.aria_snapshot(mode="ai")` + `aria-ref=` locators), each driving the system
Chromium. Which runs first alternates from task to task.

Prints per task: solved by steadyhand / by raw Playwright, the characters of the first
snapshot each solver read (and their ratio; a page still loading may show nothing), the
mean characters per snapshot, the steps (acts) and snapshots each took, and the seconds.
Then, per page the tasks use, the characters of its settled snapshot (read until two in
a row agree, before any act) in each tool. Then the totals: tasks solved, tasks raw
Playwright solves and steadyhand does not (the floor: there must be none), pages where
steadyhand's snapshot is longer than raw's, and one JSON line. Asserts nothing.

    .venv/bin/python bench/agent.py [--tasks ID,MODULE,...] [--repeat N] [--gaps]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.agent.drivers import RawPlaywright, Steadyhand
from tests.agent.run import Outcome, run
from tests.agent.suite import tasks
from tests.conftest import FIXTURES, make_settings, running_daemon

from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import BASE_ARGS, find_chromium


def mean(values: list[int]) -> int:
    return round(statistics.fmean(values)) if values else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", help="comma-separated task ids or tasks_* module names")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each task per tool")
    parser.add_argument("--gaps", action="store_true", help="the known gaps' tasks too")
    args = parser.parse_args()
    chosen = tasks(args.tasks.split(",") if args.tasks else None, gaps=args.gaps)
    server = serve_directory(FIXTURES)
    site = base_url(server)
    rows: list[tuple[Outcome, Outcome, int, int]] = []
    with (
        running_daemon(make_settings(Path(tempfile.mkdtemp(prefix="agent-bench-")))) as daemon,
        sync_playwright() as p,
    ):
        flags = [*BASE_ARGS, *(["--no-sandbox"] if os.geteuid() == 0 else [])]
        browser = p.chromium.launch(executable_path=str(find_chromium()), args=flags)
        header = (
            f"{'task':30} {'sh':>3} {'raw':>3}  {'chars sh/raw':>13} {'ratio':>5}  "
            f"{'mean chars':>11}  {'steps':>5}  {'looks':>5}  {'seconds':>9}"
        )
        print(header)
        print("-" * len(header))
        for n, task in enumerate(chosen):
            for attempt in range(args.repeat):
                outcomes: dict[str, Outcome] = {}
                order = ("sh", "raw") if (n + attempt) % 2 == 0 else ("raw", "sh")
                for which in order:
                    if which == "sh":
                        driver = Steadyhand(daemon.call, f"agent-{n}-{attempt}")
                        outcomes[which] = run(task, driver, site)
                        driver.close()
                    else:
                        raw = RawPlaywright(browser)
                        outcomes[which] = run(task, raw, site)
                        raw.close()
                sh, rw = outcomes["sh"], outcomes["raw"]
                ratio = sh.first_chars / rw.first_chars if rw.first_chars else float("nan")
                said = {True: "ok", False: "NO"}
                print(
                    f"{task.id:30} {said[sh.solved]:>3} {said[rw.solved]:>3}"
                    f"  {sh.first_chars:>6}/{rw.first_chars:<6} {ratio:>5.2f}"
                    f"  {mean(sh.record.chars):>5}/{mean(rw.record.chars):<5}"
                    f"  {sh.record.steps:>2}/{rw.record.steps:<2}"
                    f"  {sh.record.snapshots:>2}/{rw.record.snapshots:<2}"
                    f"  {sh.seconds:>4.1f}/{rw.seconds:<4.1f}",
                    flush=True,
                )
                for tag, o in (("steadyhand", sh), ("playwright", rw)):
                    if not o.solved:
                        print(f"    {tag}: {o.record.failure[:220]}")
                rows.append((sh, rw, sh.first_chars, rw.first_chars))
        pages = measure_pages(sorted({t.page for t in chosen}), daemon, browser, site)
        browser.close()
    server.shutdown()
    report(rows, pages)


SETTLE_LOOKS = 12  # a page is settled when two snapshots in a row are the same


def settled(snapshot: Callable[[], str]) -> str:
    """The page's snapshot once it stopped changing (scripts that render late)."""
    last = snapshot()
    for _ in range(SETTLE_LOOKS):
        time.sleep(0.25)
        now = snapshot()
        if now == last and now.strip():
            return now
        last = now
    return last


def measure_pages(
    pages: list[str], daemon: Any, browser: Any, site: str
) -> list[tuple[str, int, int]]:
    """Each page's settled snapshot, as steadyhand and raw Playwright write it: characters."""
    print()
    print(f"{'page (settled, before any act)':62} {'steadyhand':>10} {'raw':>7} {'ratio':>5}")
    found = []
    for n, page in enumerate(pages):
        sh = Steadyhand(daemon.call, f"page-{n}")
        sh.open(f"{site}/{page}")
        ours = settled(sh.snapshot)
        sh.close()
        raw = RawPlaywright(browser)
        raw.open(f"{site}/{page}")
        theirs = settled(raw.snapshot)
        raw.close()
        found.append((page, len(ours), len(theirs)))
        ratio = len(ours) / len(theirs) if theirs else float("inf")
        print(f"{page[-62:]:62} {len(ours):>10} {len(theirs):>7} {ratio:>5.2f}", flush=True)
    return found


def report(
    rows: list[tuple[Outcome, Outcome, int, int]], pages: list[tuple[str, int, int]]
) -> None:
    total = len(rows)
    sh_ok = sum(sh.solved for sh, _, _, _ in rows)
    raw_ok = sum(rw.solved for _, rw, _, _ in rows)
    floor = sorted({sh.task.id for sh, rw, _, _ in rows if rw.solved and not sh.solved})
    better = sorted({sh.task.id for sh, rw, _, _ in rows if sh.solved and not rw.solved})
    ratios = [a / b for _, a, b in pages if b]
    longer = [page for page, a, b in pages if a > b]
    sh_time = [sh.seconds for sh, _, _, _ in rows]
    raw_time = [rw.seconds for _, rw, _, _ in rows]
    sh_steps = sum(sh.record.steps for sh, _, _, _ in rows)
    raw_steps = sum(rw.record.steps for _, rw, _, _ in rows)
    print()
    print(f"tasks: {total} runs of {len({sh.task.id for sh, _, _, _ in rows})} tasks")
    print(
        f"solved: steadyhand {sh_ok}/{total} ({sh_ok / total:.0%}), raw Playwright "
        f"{raw_ok}/{total} ({raw_ok / total:.0%})"
    )
    print(f"raw solves, steadyhand does not (must be none): {', '.join(floor) or 'none'}")
    print(f"steadyhand solves, raw does not: {', '.join(better) or 'none'}")
    if ratios:
        print(
            f"settled pages: {len(pages)}; characters steadyhand/raw: median ratio "
            f"{statistics.median(ratios):.2f}, max {max(ratios):.2f}; steadyhand's longer on: "
            f"{', '.join(longer) or 'none'}"
        )
    print(f"acts: steadyhand {sh_steps}, raw {raw_steps}")
    print(
        f"seconds per task, median: steadyhand {statistics.median(sh_time):.2f}, raw "
        f"{statistics.median(raw_time):.2f}"
    )
    print(
        json.dumps(
            {
                "runs": total,
                "steadyhand_solved": sh_ok,
                "playwright_solved": raw_ok,
                "raw_only": floor,
                "steadyhand_only": better,
                "pages": [{"page": p, "chars": [a, b]} for p, a, b in pages],
                "longer_pages": longer,
                "tasks": [
                    {
                        "id": sh.task.id,
                        "steadyhand": sh.solved,
                        "playwright": rw.solved,
                        "mean_chars": [mean(sh.record.chars), mean(rw.record.chars)],
                        "steps": [sh.record.steps, rw.record.steps],
                        "seconds": [round(sh.seconds, 2), round(rw.seconds, 2)],
                    }
                    for sh, rw, _, _ in rows
                ],
            }
        )
    )


if __name__ == "__main__":
    main()
