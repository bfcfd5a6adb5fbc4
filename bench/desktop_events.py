"""What desktop events cost: how many a second the daemon takes in, and how late they come.

A private desktop (Xvfb, session bus, accessibility bus), a daemon inside it, and two GTK 3
apps: the test form (tests/desktop_apps/gtk3_form.py), typed into through the daemon to
time action -> event, and a ticker (below) that rewrites a label as fast as GTK lets it, a
flood of text and name events. Figures:

- latency: from sending `desktop type` to its text.changed event's arrival in the daemon
  (medians and p95 of N);
- throughput: events the daemon recorded a second while the ticker floods, against what the
  ticker says it emitted (each rewrite: text deleted, text inserted, name changed).

Asserts nothing about time.

    .venv/bin/python bench/desktop_events.py [-n 50] [--ticks 2000]
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from steadyhand import rpc_client
from steadyhand.config import Settings
from steadyhand.desktop.session import DesktopSession

APPS = Path(__file__).resolve().parent.parent / "tests" / "desktop_apps"
TICKER = """
import sys, time
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk
ticks = int(sys.argv[1])
window = Gtk.Window(title="Ticker")
label = Gtk.Label(label="start")
window.add(label)
window.show_all()
state = {"n": 0}
def tick():
    if state["n"] == 0:
        state["started"] = time.time()
    state["n"] += 1
    label.set_text(f"tick {state['n']}")
    if state["n"] < ticks:
        return True
    print(f"{state['started']} {time.time()}", flush=True)
    return False
GLib.timeout_add(1500, lambda: GLib.idle_add(tick) and False)  # once the bus has it
Gtk.main()
"""


def call(settings: Settings, method: str, **params: Any) -> Any:
    return rpc_client.call(settings, method, params)


def wait_for_app(settings: Settings, pid: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(a["pid"] == pid for a in call(settings, "desktop.apps")["apps"]):
            return
        time.sleep(0.1)
    raise SystemExit(f"app {pid} never showed on the bus")


def latency(session: DesktopSession, settings: Settings, rounds: int) -> None:
    form = session.launch(["/usr/bin/python3", str(APPS / "gtk3_form.py")])
    try:
        wait_for_app(settings, form.pid)
        time.sleep(0.5)
        page = call(settings, "desktop.snapshot", app=str(form.pid))["snapshot"]
        found = re.search(r'- text "Name"[^\n]*\[ref=(d\d+)\]', page)
        assert found, page
        since = call(settings, "desktop.watch", duration="0s")["last_seq"]
        sent: dict[str, float] = {}
        replied: dict[str, float] = {}
        for i in range(rounds):
            word = f"w{i}"
            sent[word] = time.time()
            call(settings, "desktop.type", ref=found.group(1), text=word)
            replied[word] = time.time()
        watched = call(
            settings, "desktop.watch", since=since, events="text", app=str(form.pid), duration="0s"
        )
        after_send, before_reply = [], []
        for event in watched["events"]:
            word = event["detail"].rpartition(": ")[2].strip("'")
            if event["detail"].startswith("insert") and word in sent:
                after_send.append((event["ts"] - sent[word]) * 1000)
                before_reply.append((replied[word] - event["ts"]) * 1000)
        print(f"action -> event, {len(after_send)} typings of the GTK form (ms, median / p95):")
        print(f"  request sent -> event received   {summary(after_send)}")
        print(f"  event received -> reply received {summary(before_reply)}")
    finally:
        form.terminate()
        form.wait(10)


def throughput(session: DesktopSession, settings: Settings, ticks: int) -> None:
    since = call(settings, "desktop.watch", duration="0s")["last_seq"]
    ticker = session.launch(["/usr/bin/python3", "-c", TICKER, str(ticks)], stdout=subprocess.PIPE)
    try:
        assert ticker.stdout is not None
        started, ended = (float(v) for v in ticker.stdout.readline().split())
        time.sleep(1.0)  # let the daemon take in the tail
        watched = call(
            settings,
            "desktop.watch",
            since=since,
            app=str(ticker.pid),
            events="text,name",
            duration="0s",
        )
    finally:
        ticker.terminate()
        ticker.wait(10)
    events = watched["events"]
    emitted = ticks * 3
    span = events[-1]["ts"] - events[0]["ts"] if len(events) > 1 else 0.0
    print(f"flood: {ticks} label rewrites in {ended - started:.2f} s by the ticker")
    print(
        f"  recorded {len(events)} of ~{emitted} events (missed in the ring: "
        f"{watched['missed']}), {len(events) / max(span, 1e-9):,.0f} events/s over "
        f"{span:.2f} s; last one {(events[-1]['ts'] - ended) * 1000:.0f} ms after the "
        "ticker's last rewrite"
    )


def summary(samples: list[float]) -> str:
    p95 = statistics.quantiles(samples, n=20)[-1] if len(samples) > 1 else samples[0]
    return f"{statistics.median(samples):7.1f} / {p95:7.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", type=int, default=50, help="typings timed")
    parser.add_argument("--ticks", type=int, default=2000, help="label rewrites in the flood")
    args = parser.parse_args()
    state = Path(tempfile.mkdtemp(prefix="steadyhand-bench-events-"))
    settings = Settings.load(state_dir=state)
    try:
        with DesktopSession() as session:
            rpc_client.start_daemon(settings, session.env)
            try:
                latency(session, settings, args.n)
                throughput(session, settings, args.ticks)
            finally:
                rpc_client.request(settings, "daemon.stop", {}, 30.0)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
