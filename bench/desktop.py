"""What desktop automation costs: snapshots of big windows, actions per transport, `see`,
and a Chromium app's web form through CDP and through keys.

A private desktop (steadyhand.desktop.session: Xvfb, session bus, accessibility bus), a
daemon inside it, and the GTK 3 test form (tests/desktop_apps/gtk3_form.py) with extra
buttons for a ~250-node and a ~1 000-node window (the node count printed is what a
`desktop snapshot --all` lists); window move/resize/focus, the clipboard and launch,
without a window manager and with openbox when it is installed. Measured through the
daemon's JSON-RPC, as an agent sees it; medians and p95 of N rounds, interleaved. The Qt 6
form too when PySide6 is installed. Asserts nothing about time.

    .venv/bin/python bench/desktop.py [-n 10] [--part all|snapshots|actions|web|windows]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from steadyhand import processes, rpc_client
from steadyhand.config import Settings
from steadyhand.desktop.session import DesktopSession
from steadyhand.engine.chromium import find_chromium
from steadyhand.errors import SteadyhandError

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
    print("desktop snapshot of one window, ms (median / p95); bulk and walk interleaved:")
    for label, argv in (("GTK 3", GTK), ("Qt 6", QT)):
        if label == "Qt 6" and importlib.util.find_spec("PySide6") is None:
            print("  Qt 6: PySide6 is not installed; skipped")
            continue
        for extra in (220, 960):
            with app_on(session, [*argv, "--nodes", str(extra)], settings) as pid:
                everything = call(settings, "desktop.snapshot", app=str(pid), all=True)
                nodes = everything["snapshot"].count("\n") + 1
                samples: dict[str, list[float]] = {"walk": [], "bulk": [], "cache": []}
                snapshot = functools.partial(call, settings, "desktop.snapshot", app=str(pid))
                how = ""
                for _ in range(rounds):
                    walked = timed(
                        samples["walk"], functools.partial(snapshot, fresh=True, walk=True)
                    )
                    bulk = timed(samples["bulk"], functools.partial(snapshot, fresh=True))
                    how = bulk["read"][str(pid)]
                    if bulk["snapshot"] != walked["snapshot"]:
                        raise SystemExit(f"{label}: the bulk read and the walk differ")
                    if timed(samples["cache"], snapshot)["cached"] != [pid]:
                        raise SystemExit("the snapshot just after a read was not reused")
                ratio = statistics.median(samples["walk"]) / statistics.median(samples["bulk"])
                print(f"  {label} {nodes:5d} nodes  walk {summary(samples['walk'])}")
                print(
                    f"  {label} {nodes:5d} nodes  bulk {summary(samples['bulk'])}  "
                    f"({how}; {ratio:.1f}x faster than the walk; same text)"
                )
                print(f"  {label} {nodes:5d} nodes cache {summary(samples['cache'])}")


def measure_actions(session: DesktopSession, settings: Settings, rounds: int) -> None:
    with app_on(session, GTK, settings) as pid:
        page = call(settings, "desktop.snapshot", app=str(pid))["snapshot"]
        greet, name = ref(page, "push button", "Greet"), ref(page, "text", "Name")
        pad = ref(page, "panel", "Click pad")
        kinds: dict[str, Callable[[], Any]] = {
            "click (atspi action)": lambda: call(settings, "desktop.click", ref=greet),
            "type (atspi text)": lambda: call(settings, "desktop.type", ref=name, text="Ada"),
            "focus (atspi)": lambda: call(settings, "desktop.focus", ref=name),
            "click (xinput)": lambda: call(settings, "desktop.click", ref=pad),
            "drag (xinput)": lambda: call(settings, "desktop.drag", ref=pad, to="+60,+0"),
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


def measure_scroll(session: DesktopSession, settings: Settings, rounds: int) -> None:
    with app_on(session, [*GTK, "--nodes", "200"], settings) as pid:
        page = call(settings, "desktop.snapshot", app=str(pid))["snapshot"]
        item = ref(page, "push button", "Item 1")
        samples: list[float] = []
        for i in range(rounds * 2):  # down and back up: each verified by the bars moving
            steps = 3 if i % 2 == 0 else -3
            done = timed(samples, functools.partial(scroll, settings, item, steps))
            if not done["verified"] or done["transport"] != "xinput":
                raise SystemExit(f"scroll not verified by the wheel: {done}")
    print(f"  {'scroll (xinput wheel)':<22}{summary(samples)}")


def scroll(settings: Settings, item: str, steps: int) -> Any:
    return call(settings, "desktop.scroll", ref=item, dy=steps)


@contextlib.contextmanager
def web_app(session: DesktopSession, url: str, debug_port: bool) -> Iterator[int]:
    """Chromium showing `url` as an app, its web content on the accessibility bus."""
    argv = [str(find_chromium()), f"--app={url}", "--force-renderer-accessibility"]
    argv += ["--no-first-run", "--disable-gpu", "--test-type", "--window-size=700,500"]
    argv += ["--no-sandbox"] if os.geteuid() == 0 else []
    argv += ["--remote-debugging-port=0"] if debug_port else []
    with tempfile.TemporaryDirectory() as profile:
        process = session.launch(
            [*argv, f"--user-data-dir={profile}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield process.pid
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(10)


def web_refs(settings: Settings, pid: int) -> tuple[str, str]:
    deadline = time.monotonic() + 30
    page = ""
    while time.monotonic() < deadline:
        try:
            page = call(settings, "desktop.snapshot", app=str(pid))["snapshot"]
        except SteadyhandError as exc:
            page = str(exc)
        if 'check box "Agree"' in page:
            return ref(page, "entry", "Email"), ref(page, "push button", "Send")
        time.sleep(0.2)
    raise SystemExit(f"the Chromium app's form never showed on the accessibility bus:\n{page}")


def measure_web(session: DesktopSession, settings: Settings, rounds: int) -> None:
    """Chromium's web entry has no AT-SPI EditableText: CDP fills it when the app has a
    debugging port, real keys (X input) when not."""
    site = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "site"
    handler = functools.partial(QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/desktop_web_form.html"
    samples: dict[str, list[float]] = {}
    try:
        # One at a time: without a window manager both windows sit at (0,0), and Chromium
        # treats a covered window's page as hidden.
        for debug_port, transport in ((True, "cdp"), (False, "xinput")):
            with web_app(session, url, debug_port) as pid:
                entry, send = web_refs(settings, pid)
                kinds: dict[str, tuple[str, Callable[[], Any]]] = {
                    f"type ({transport})": (
                        transport,
                        functools.partial(web_type, settings, entry),
                    ),
                    f"click (atspi, web) {transport}": (
                        "atspi",
                        functools.partial(web_click, settings, send),
                    ),
                }
                for kind in kinds:
                    samples[kind] = []
                first: list[float] = []  # CDP: connects to the app's debugging port once
                timed(first, functools.partial(web_type, settings, entry))
                samples[f"first type ({transport})"] = first
                for _ in range(rounds):
                    for kind, (used, work) in kinds.items():
                        done = timed(samples[kind], work)
                        if done["transport"] != used:
                            raise SystemExit(f"{kind} went through {done['transport']}: {done}")
    finally:
        server.shutdown()
    print("actions on a Chromium app's web form, ms (median / p95):")
    for kind, values in samples.items():
        print(f"  {kind:<22}{summary(values)}")


def web_type(settings: Settings, entry: str) -> Any:
    return call(settings, "desktop.type", ref=entry, text="ada@example.com")


def web_click(settings: Settings, button: str) -> Any:
    return call(settings, "desktop.click", ref=button)


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def window_of(settings: Settings, pid: int) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for window in call(settings, "desktop.windows")["windows"]:
            if window["pid"] == pid and window["viewable"]:
                return str(window["id"])
        time.sleep(0.1)
    raise SystemExit(f"no window of pid {pid}")


def measure_windows(session: DesktopSession, settings: Settings, rounds: int) -> None:
    """Window moves, resizes and focus, the clipboard, and launch until shown."""
    wm = call(settings, "desktop.windows")["wm"]
    with app_on(session, GTK, settings) as gtk, app_on(session, QT, settings) as qt:
        ids = [window_of(settings, gtk), window_of(settings, qt)]
        kinds: dict[str, Callable[[int], Any]] = {
            "windows (list)": lambda i: call(settings, "desktop.windows"),
            "window move": lambda i: call(
                settings, "desktop.window.move", id=ids[0], x=100 + i % 2 * 50, y=80
            ),
            "window resize": lambda i: call(
                settings, "desktop.window.resize", id=ids[0], width=500 + i % 2 * 40, height=360
            ),
            "window focus": lambda i: call(settings, "desktop.window.focus", id=ids[i % 2]),
            "clipboard set": lambda i: call(settings, "desktop.clipboard.set", text=f"text {i}"),
            "clipboard get": lambda i: call(settings, "desktop.clipboard.get"),
        }
        samples: dict[str, list[float]] = {k: [] for k in kinds}
        for i in range(rounds):
            for kind, work in kinds.items():
                timed(samples[kind], functools.partial(work, i))
    shown: list[float] = []
    launched: list[float] = []
    for _ in range(max(3, rounds // 2)):
        done = timed(launched, lambda: call(settings, "desktop.launch", argv=GTK))
        shown.append(done["visible_ms"])
        with contextlib.suppress(ProcessLookupError):
            os.killpg(done["pid"], signal.SIGTERM)
        while Path(f"/proc/{done['pid']}").exists():
            time.sleep(0.05)
    print(f"windows, clipboard, launch through the daemon (WM: {wm or 'none'}), ms (median / p95):")
    for kind, values in samples.items():
        print(f"  {kind:<22}{summary(values)}")
    print(f"  {'launch GTK (call)':<22}{summary(launched)}")
    print(f"  {'launch GTK (to shown)':<22}{summary(shown)}")


@contextlib.contextmanager
def daemon_on(session: DesktopSession, root: Path) -> Iterator[Settings]:
    settings = Settings.load(state_dir=root)
    rpc_client.start_daemon(settings, session.env)
    try:
        yield settings
    finally:
        with contextlib.suppress(SteadyhandError):
            rpc_client.request(settings, "daemon.stop", {}, 30)
        pid = rpc_client.daemon_pid(settings)
        if pid is not None:
            processes.wait_exit(pid, 30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10, help="rounds")
    parser.add_argument(
        "--part", choices=("all", "snapshots", "actions", "web", "windows"), default="all"
    )
    args = parser.parse_args()
    rounds, part = args.n, args.part
    root = Path(tempfile.mkdtemp(prefix="sh-bench-desktop-"))
    started = time.perf_counter()
    with DesktopSession() as session:
        print(f"desktop session up in {(time.perf_counter() - started) * 1000:.0f} ms")
        with daemon_on(session, root / "state") as settings:
            if part in ("all", "snapshots"):
                measure_snapshots(session, settings, rounds)
            if part in ("all", "actions"):
                measure_actions(session, settings, rounds)
                measure_scroll(session, settings, rounds)
            if part in ("all", "web"):
                measure_web(session, settings, rounds)
            if part in ("all", "windows"):
                measure_windows(session, settings, rounds)
    if part in ("all", "windows") and shutil.which("openbox"):
        with (
            DesktopSession(window_manager="openbox") as session,
            daemon_on(session, root / "state-wm") as settings,
        ):
            measure_windows(session, settings, rounds)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
