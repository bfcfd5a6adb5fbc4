"""What desktop automation costs: snapshots of big windows, actions per transport, `see`.

A private desktop (steadyhand.desktop.session: Xvfb, session bus, accessibility bus), a
daemon inside it, and the GTK 3 test form (tests/desktop_apps/gtk3_form.py) with extra
buttons for a ~250-node and a ~1 000-node window (the node count printed is what a
`desktop snapshot --all` lists). Measured through the daemon's JSON-RPC, as an agent sees
it; medians and p95 of N rounds, interleaved. The Qt 6 form too when PySide6 is installed.
Asserts nothing about time.

    .venv/bin/python bench/desktop.py [-n 10]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from steadyhand.config import Settings
from steadyhand.desktop.session import DesktopSession
from steadyhand.errors import SteadyhandError
from steadyhand.fronts import rpc_client

APPS = Path(__file__).resolve().parent.parent / "tests" / "desktop_apps"
GTK = ["/usr/bin/python3", str(APPS / "gtk3_form.py")]
QT = [sys.executable, str(APPS / "qt6_form.py")]


def timed(samples: list[float], work: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = work()
    samples.append((time.perf_counter() - started) * 1000)
    return result


def summary(samples: list[float]) -> str:
    p95 = statistics.quantiles(samples, n=20)[-1] if len(samples) > 1 else samples[0]
    return f"{statistics.median(samples):8.1f} / {p95:8.1f}"


@contextlib.contextmanager
def app_on(session: DesktopSession, argv: list[str], settings: Settings) -> Iterator[int]:
    process = session.launch(argv)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            apps = rpc_client.call(settings, "desktop.apps", {})["apps"]
            if any(a["pid"] == process.pid for a in apps):
                text = call(settings, "desktop.snapshot", app=str(process.pid))["snapshot"]
                if "Greet" in text:
                    break
            time.sleep(0.2)
        yield process.pid
    finally:
        process.terminate()
        process.wait(10)


def call(settings: Settings, method: str, **params: Any) -> Any:
    return rpc_client.call(settings, method, params)


def ref(snapshot: str, role: str, name: str) -> str:
    found = re.search(rf'- {role} "{name}"[^\n]*\[ref=(d\d+)\]', snapshot)
    if found is None:
        raise SystemExit(f"no {role} {name!r} in the snapshot")
    return found.group(1)


def measure_snapshots(session: DesktopSession, settings: Settings, rounds: int) -> None:
    print("desktop snapshot of one window, ms (median / p95):")
    for label, argv in (("GTK 3", GTK), ("Qt 6", QT)):
        if label == "Qt 6" and importlib.util.find_spec("PySide6") is None:
            print("  Qt 6: PySide6 is not installed; skipped")
            continue
        for extra in (220, 960):
            with app_on(session, [*argv, "--nodes", str(extra)], settings) as pid:
                everything = call(settings, "desktop.snapshot", app=str(pid), all=True)
                nodes = everything["snapshot"].count("\n") + 1
                samples: list[float] = []
                read = functools.partial(call, settings, "desktop.snapshot", app=str(pid))
                for _ in range(rounds):
                    timed(samples, read)
                print(f"  {label} {nodes:5d} nodes       {summary(samples)}")


def measure_actions(session: DesktopSession, settings: Settings, rounds: int) -> None:
    with app_on(session, GTK, settings) as pid:
        page = call(settings, "desktop.snapshot", app=str(pid))["snapshot"]
        greet, name = ref(page, "push button", "Greet"), ref(page, "text", "Name")
        pad = ref(page, "panel", "Click pad")
        kinds: dict[str, Callable[[], Any]] = {
            "click (atspi action)": lambda: call(settings, "desktop.click", ref=greet),
            "type (atspi text)": lambda: call(settings, "desktop.type", ref=name, text="Ada"),
            "click (xinput)": lambda: call(settings, "desktop.click", ref=pad),
            "see": lambda: call(settings, "desktop.see"),
            "see --annotate": lambda: call(settings, "desktop.see", annotate=True, app=str(pid)),
        }
        samples: dict[str, list[float]] = {k: [] for k in kinds}
        for _ in range(rounds):
            for kind, work in kinds.items():
                timed(samples[kind], work)
    print("actions on the GTK 3 form through the daemon, ms (median / p95):")
    for kind, values in samples.items():
        print(f"  {kind:<22}{summary(values)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10, help="rounds")
    rounds = parser.parse_args().n
    root = Path(tempfile.mkdtemp(prefix="sh-bench-desktop-"))
    started = time.perf_counter()
    with DesktopSession() as session:
        print(f"desktop session up in {(time.perf_counter() - started) * 1000:.0f} ms")
        settings = Settings.load(state_dir=root / "state")
        rpc_client.start_daemon(settings, session.env)
        try:
            measure_snapshots(session, settings, rounds)
            measure_actions(session, settings, rounds)
        finally:
            with contextlib.suppress(SteadyhandError):
                rpc_client.request(settings, "daemon.stop", {}, 30)
            pid = rpc_client.daemon_pid(settings)
            if pid is not None:
                rpc_client.wait_exit(pid, 30)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
