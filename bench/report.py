"""What a session report costs: building it for a session of N actions with screenshots,
its size, and how long Chromium takes to open it.

A private daemon (step_screenshots on, so every act leaves a before and an after
screenshot, and failures a failure screenshot) on the test fixture page form.html, served
on 127.0.0.1 by this script, runs --actions actions in a cycle: `snapshot`, `type` into
"Name", `click` on "Place order", `check` "Gift wrap"; every tenth a `click` on a ref
never handed out (it fails with not_found). Then:
  report    the `report` command's round trip (JSON-RPC, from this process), --rounds
            times, median; and, in this process, the parts: reading the trace from the
            store, rendering the HTML, per action.
  file      its size, the screenshots inlined, and the share of the file they make.
  open      Chromium loading the file (`goto` to the load event), median of --rounds.

Prints a table, then one JSON line; asserts nothing about time. Stops the daemon it
started (and only that one).

    .venv/bin/python bench/report.py [--actions 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from steadyhand import rpc_client
from steadyhand.commands import COMMANDS
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import find_chromium, launch_args
from steadyhand.errors import SteadyhandError
from steadyhand.observe.report import render
from steadyhand.observe.trace import entries_with_results
from steadyhand.snapshot.lookup import find_ref
from steadyhand.store.sqlite import Store

SITE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "site"
SESSION = "bench-report"
NAVIGATIONS = frozenset(c.name for c in COMMANDS.values() if c.navigates)


def ms(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action()
    return (time.perf_counter() - started) * 1000, value


def run_actions(rpc: Callable[..., Any], url: str, count: int) -> None:
    rpc("open", url=url)
    snapshot = rpc("snapshot", max_chars=1_000_000)["snapshot"]
    refs = {
        "name": find_ref(snapshot, "textbox", "Name"),
        "order": find_ref(snapshot, "button", "Place order"),
        "gift": find_ref(snapshot, "checkbox", "Gift wrap"),
    }
    steps: list[Callable[[int], Any]] = [
        lambda _: rpc("snapshot", max_chars=1_000_000),
        lambda i: rpc("type", ref=refs["name"], text=f"Ada {i}"),
        lambda _: rpc("click", ref=refs["order"]),
        lambda _: rpc("check", ref=refs["gift"]),
    ]
    for i in range(count - 2):  # open and the first snapshot count
        if i % 10 == 9:
            with contextlib.suppress(SteadyhandError):
                rpc("click", ref="e999")
            continue
        steps[i % len(steps)](i)


def open_times(settings: Settings, path: Path, rounds: int) -> list[float]:
    """Milliseconds Chromium takes to load the file, each time in a new page."""
    opens: list[float] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(find_chromium(settings.chromium)),
            headless=True,
            args=launch_args(settings.state_dir),
        )
        for _ in range(rounds):
            page = browser.new_page()
            took, _ = ms(partial(page.goto, path.as_uri(), wait_until="load"))
            opens.append(took)
            page.close()
        browser.close()
    return opens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="sh-bench-report-"))
    settings = Settings.load(state_dir=root / "daemon", step_screenshots=True)
    server = serve_directory(SITE)

    def rpc(method: str, **params: Any) -> Any:
        return rpc_client.call(settings, method, {"session": SESSION, **params}, False)

    rpc_client.start_daemon(settings)
    try:
        started = time.perf_counter()
        run_actions(rpc, f"{base_url(server)}/form.html", args.actions)
        acting_s = time.perf_counter() - started
        runs = [
            ms(lambda: rpc("report", path=str(root / "report.html"))) for _ in range(args.rounds)
        ]
        command_ms = statistics.median(t for t, _ in runs)
        out = runs[-1][1]
        store = Store(settings.state_dir / "steadyhand.sqlite")
        read_ms, found = ms(
            lambda: entries_with_results(store, SESSION, NAVIGATIONS, every_life=True)
        )
        items = [e for e, _ in found]
        render_ms, _ = ms(lambda: render(SESSION, items, results={e.id: r for e, r in found}))
        store.close()
        opens = open_times(settings, Path(out["path"]), args.rounds)
    finally:
        try:
            rpc_client.request(settings, "daemon.stop", {}, 30)
        finally:
            server.shutdown()

    image_bytes = sum(
        a.bytes for e in items for a in e.artifacts if a.kind == "screenshot" and a.exists
    )
    figures = {
        "actions": out["actions"],
        "failed": out["failed"],
        "acting_s": round(acting_s, 1),
        "report_command_ms": round(command_ms, 1),
        "report_per_action_ms": round(command_ms / out["actions"], 2),
        "store_read_ms": round(read_ms, 1),
        "render_ms": round(render_ms, 1),
        "file_bytes": out["bytes"],
        "images_inlined": out["images_inlined"],
        "images_left_out": out["images_left_out"],
        "image_bytes": image_bytes,
        "chromium_open_ms": round(statistics.median(opens), 1),
    }
    shutil.rmtree(root, ignore_errors=True)
    mb = 1024 * 1024
    print(
        f"session of {figures['actions']} actions ({figures['failed']} failed), "
        f"run in {figures['acting_s']} s with before/after screenshots"
    )
    print(
        f"  report command      {figures['report_command_ms']:>9.1f} ms "
        f"({figures['report_per_action_ms']} ms per action, median of {args.rounds})"
    )
    print(f"    store read        {figures['store_read_ms']:>9.1f} ms (in this process)")
    print(f"    render HTML       {figures['render_ms']:>9.1f} ms (in this process)")
    print(
        f"  file                {figures['file_bytes'] / mb:>9.2f} MB, "
        f"{figures['images_inlined']} screenshots inlined "
        f"({image_bytes / mb:.2f} MB of PNG), {figures['images_left_out']} left out"
    )
    print(f"  Chromium opens it   {figures['chromium_open_ms']:>9.1f} ms (to load, median)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
