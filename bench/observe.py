"""What observability costs per action: the action_log row, the metrics and the log line.

An engine in this process (steadyhand.client.LocalBackend) with logging set up as the
daemon sets it up (JSON lines to the rotating file at `log_level`), on the form fixture.
Each action runs the whole execute/run.py; a timer around its recording (row + index +
metrics + log line), and around its two parts (Store.log_action, the log line), gives the
overhead of each action. Three kinds of action, interleaved so noise hits them alike:

  check      a verified act on a checkbox (result with its `changes`)
  snapshot   the form's snapshot (the whole text is stored in the row's result)
  failure    a click on a ref that never was (error line; no screenshot: settings off)

each at log_level info and at debug (one more line with the params and the result).
Prints medians and p95 in microseconds and the share of the action's own time; asserts
nothing about time.

    .venv/bin/python bench/observe.py [-n 200]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cli_latency import FIXTURES  # this folder's: run as `python bench/observe.py`
from steadyhand.client import LocalBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.errors import SteadyhandError
from steadyhand.execute import record as recording
from steadyhand.observe import log as observe_log
from steadyhand.snapshot.lookup import find_ref
from steadyhand.store.sqlite import Store

Samples = defaultdict[str, list[float]]


@contextlib.contextmanager
def timing(owner: Any, name: str, into: list[float]) -> Iterator[None]:
    """Time every call of owner.name (sync or async) into `into` (seconds)."""
    original = getattr(owner, name)

    if asyncio.iscoroutinefunction(original):

        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                into.append(time.perf_counter() - started)

        setattr(owner, name, timed_async)
    else:

        def timed_sync(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                into.append(time.perf_counter() - started)

        setattr(owner, name, timed_sync)
    try:
        yield
    finally:
        setattr(owner, name, original)


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1] if len(samples) > 1 else samples[0]


async def measure(n: int) -> None:
    server = serve_directory(FIXTURES)
    root = Path(tempfile.mkdtemp(prefix="sh-bench-observe-"))
    settings = Settings.load(state_dir=root / "state", failure_screenshots=False, act_changes=True)
    observe_log.configure(settings, stderr=False)
    backend = LocalBackend(settings)
    s = "bench-observe"
    url = base_url(server) + "/form.html"
    record: list[float] = []
    row: list[float] = []
    line: list[float] = []
    total: Samples = defaultdict(list)
    overhead: Samples = defaultdict(list)
    parts: dict[str, Samples] = {"row": defaultdict(list), "line": defaultdict(list)}
    try:
        await backend.call("open", {"session": s, "url": url})
        page = (await backend.call("snapshot", {"session": s}))["snapshot"]
        gift = find_ref(page, "checkbox", "Gift wrap")

        async def check() -> None:
            await backend.call("check", {"session": s, "ref": gift})
            await backend.call("uncheck", {"session": s, "ref": gift})  # not timed below

        async def snapshot() -> None:
            await backend.call("snapshot", {"session": s})

        async def failure() -> None:
            with contextlib.suppress(SteadyhandError):
                await backend.call("click", {"session": s, "ref": "e999"})

        kinds: dict[str, Callable[[], Any]] = {
            "check": check,
            "snapshot": snapshot,
            "failure": failure,
        }
        root_logger = logging.getLogger()
        with (
            timing(recording, "record", record),
            timing(Store, "log_action", row),
            timing(recording, "action_logged", line),
        ):
            for run in kinds.values():  # warm-up
                await run()
            for _ in range(n):
                for level in ("info", "debug"):
                    root_logger.handlers[0].setLevel(level.upper())
                    root_logger.setLevel(level.upper())
                    for kind, run in kinds.items():
                        for timed in (record, row, line):
                            timed.clear()
                        started = time.perf_counter()
                        await run()
                        key = f"{kind} @{level}"
                        # The first timed record is the action's own (check's uncheck after).
                        total[key].append(
                            (time.perf_counter() - started) * (0.5 if kind == "check" else 1)
                        )
                        overhead[key].append(record[0])
                        parts["row"][key].append(row[0])
                        parts["line"][key].append(line[0])
    finally:
        await backend.aclose()
        server.shutdown()
        log_path = observe_log.log_file(settings)
        size = log_path.stat().st_size if log_path.exists() else 0
        shutil.rmtree(root, ignore_errors=True)
    report(n, total, overhead, parts)
    print(f"log file after the run: {size} bytes")


def report(n: int, total: Samples, overhead: Samples, parts: dict[str, Samples]) -> None:
    print(f"per action, n={n} each, interleaved; µs (median / p95); share = median overhead")
    print("  of the action's median time (check: half of a check+uncheck pair)")
    header = f"{'action':<16}{'record (all)':>18}{'store row':>16}{'log line':>16}"
    print(header + f"{'action ms':>12}{'share':>8}")
    for key in total:
        rec, rw, ln = overhead[key], parts["row"][key], parts["line"][key]
        med_total = statistics.median(total[key])
        print(
            f"{key:<16}"
            f"{statistics.median(rec) * 1e6:>9.0f} / {p95(rec) * 1e6:<6.0f}"
            f"{statistics.median(rw) * 1e6:>8.0f} / {p95(rw) * 1e6:<6.0f}"
            f"{statistics.median(ln) * 1e6:>8.0f} / {p95(ln) * 1e6:<6.0f}"
            f"{med_total * 1e3:>10.1f}"
            f"{statistics.median(rec) / med_total:>9.1%}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="rounds (each runs every kind twice)")
    args = parser.parse_args()
    asyncio.run(measure(args.n))


if __name__ == "__main__":
    main()
