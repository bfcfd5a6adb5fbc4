"""What sessions cost: acquiring one, keeping it alive, recovering it, and sharing a daemon.

Five measurements in one run (--phases picks some), against a private daemon
(max_sessions=16) in a temp state dir, on the test fixture pages (tests/fixtures/site)
served on 127.0.0.1 by this script:
  acquire   `open` of a new session on nav-a.html (a new browser context + first load) vs
            `open` of one more tab in that live session (the same load, no context): the
            difference is the context's cost; then `close` of the session (two tabs).
            Round-trip medians and p95 over --rounds rounds, one warm-up round not counted.
  memory    the daemon's Chromium (main process and every descendant, found through /proc)
            with 0, 1, 4, 8 and 16 live sessions, each on nav-a.html: RSS and, where
            /proc/PID/smaps_rollup is readable, PSS (shared pages counted once), in MB;
            and the per-session slope. The 0 is the browser already launched, no context.
            --mem-rounds ramps, medians.
  crash     one logged-in session (a cookie, localStorage, sessionStorage); `kill -9` of
            Chromium's process group; the client-side time from the kill to the first
            `snapshot` that succeeds, next to the `recovery_ms` that snapshot's `recovered`
            report gives (the daemon's own: from noticing the crash to the session restored
            from its checkpoint). Then with 4 logged-in sessions: the time until all 4 have
            answered a snapshot. --crash-rounds kills each, median and max.
  parallel  1, 4 and 16 agent threads, each on its own session on form.html, each doing
            --actions real actions in a cycle (`snapshot`, `type` into "Name", `click` on
            "Place order", which changes the page without navigating; acts with
            changes=False); p50/p95 of every action's round trip per level, and the p50
            ratios 4 vs 1 and 16 vs 1. Two passes (1, 4, 16 then 16, 4, 1), half the
            actions each, after one untimed warm-up cycle per session.

  clicks    1 agent, then 16 at once (and back), each on its own session on form.html
            clicking "Place order" --clicks times (changes on, as an agent clicks): p50/p95
            per click, the p95 ratio 16 vs 1, and the CPU the daemon and its Chromium spent
            per click (/proc, over each level's run).

Times are client-side JSON-RPC round trips (socket and JSON included), made from this
process. The daemon keeps its defaults otherwise: a checkpoint after each navigation and
every 10 actions, health probes every 30 s. Prints a table, then one JSON line; asserts
nothing about time. Stops the daemon it started (and only that one).

    .venv/bin/python bench/sessions.py [--rounds 10] [--crash-rounds 5] [--actions 20]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from steadyhand import rpc_client
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import BrowserProcess, find_owned_browsers, owned_processes
from steadyhand.errors import SteadyhandError
from steadyhand.processes import process_alive
from steadyhand.snapshot.lookup import find_ref

SITE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "site"
MAX_SESSIONS = 16
MEMORY_LEVELS = (0, 1, 4, 8, 16)
PARALLEL_LEVELS = (1, 4, 16)
SETTLE_S = 1.5  # after the sessions of a memory level are open, before sampling
SAMPLES = 3  # memory samples per level, SAMPLE_GAP_S apart; their median is kept
SAMPLE_GAP_S = 0.3
RECOVERY_DEADLINE_S = 90.0  # a kill not recovered by then counts as failed
WHOLE = 1_000_000  # max_chars: snapshots never cut

# ---------------------------------------------------------------- helpers


def ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def median(values: Iterable[float]) -> float:
    got = list(values)
    return statistics.median(got) if got else math.nan


def p95(values: Iterable[float]) -> float:
    """Nearest-rank 95th percentile."""
    got = sorted(values)
    return got[max(0, math.ceil(0.95 * len(got)) - 1)] if got else math.nan


def rnd(value: float, digits: int = 1) -> float | None:
    return None if math.isnan(value) else round(value, digits)


@dataclass
class Daemon:
    settings: Settings
    site: str

    def call(self, method: str, **params: Any) -> Any:
        return rpc_client.call(self.settings, method, params, autostart=False)

    def timed(self, out: list[float], method: str, **params: Any) -> Any:
        started = time.perf_counter()
        result = self.call(method, **params)
        out.append(ms_since(started))
        return result

    def url(self, page: str) -> str:
        return f"{self.site}/{page}"

    def snapshot(self, session: str) -> str:
        text: str = self.call("snapshot", session=session, max_chars=WHOLE)["snapshot"]
        return text

    def browser(self) -> BrowserProcess:
        """The daemon's one live Chromium main process."""
        live = [b for b in find_owned_browsers(self.settings.state_dir) if process_alive(b.pid)]
        if len(live) != 1:
            raise RuntimeError(f"expected one Chromium of this daemon, found {live}")
        return live[0]

    def log_in(self, session: str, name: str) -> None:
        self.call("open", session=session, url=self.url("account/login.html"))
        page = self.snapshot(session)
        self.call("type", session=session, ref=find_ref(page, "textbox", "Name"), text=name)
        done = self.call("click", session=session, ref=find_ref(page, "button", "Log in"))
        if not done.get("navigated"):
            raise RuntimeError(f"logging {session} in did not navigate: {done}")


def start(state_dir: Path, site: str) -> Daemon:
    settings = Settings.load(state_dir=state_dir, max_sessions=MAX_SESSIONS)
    rpc_client.start_daemon(settings)
    return Daemon(settings, site)


def stop(daemon: Daemon) -> list[str]:
    """Stop the daemon; what it left running (nothing, normally)."""
    pid = rpc_client.daemon_pid(daemon.settings)
    if pid is None:
        return []
    try:
        daemon.call("daemon.stop")
    except SteadyhandError as exc:
        return [f"daemon.stop failed: {exc.code} {exc.message}"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        browsers = [
            b for b in find_owned_browsers(daemon.settings.state_dir) if process_alive(b.pid)
        ]
        if not process_alive(pid) and not browsers:
            return []
        time.sleep(0.1)
    left = [f"daemon {pid}"] if process_alive(pid) else []
    return left + [
        f"chromium {b.pid}"
        for b in find_owned_browsers(daemon.settings.state_dir)
        if process_alive(b.pid)
    ]


# ---------------------------------------------------------------- memory of a process tree


def _kb(path: Path, key: str) -> int | None:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


@dataclass(frozen=True)
class Memory:
    rss_mb: float
    pss_mb: float  # nan when some process's smaps_rollup could not be read
    processes: int


def tree_memory(state_dir: Path) -> Memory:
    rss = pss = 0
    pss_ok = True
    count = 0
    for pid in owned_processes(state_dir):
        proc = Path("/proc") / str(pid)
        got_rss = _kb(proc / "status", "VmRSS:")
        if got_rss is None:  # gone, or a zombie (no VmRSS)
            continue
        count += 1
        rss += got_rss
        got_pss = _kb(proc / "smaps_rollup", "Pss:")
        if got_pss is None:
            pss_ok = False
        else:
            pss += got_pss
    return Memory(rss / 1024, pss / 1024 if pss_ok else math.nan, count)


def sampled_memory(state_dir: Path) -> Memory:
    time.sleep(SETTLE_S)
    samples = []
    for n in range(SAMPLES):
        if n:
            time.sleep(SAMPLE_GAP_S)
        samples.append(tree_memory(state_dir))
    return Memory(
        median(s.rss_mb for s in samples),
        median(s.pss_mb for s in samples),
        int(median(s.processes for s in samples)),
    )


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    if any(math.isnan(y) for y in ys) or len(points) < 2:
        return math.nan
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    num = sum((x - mean_x) * (y - mean_y) for x, y in points)
    den = sum((x - mean_x) ** 2 for x in xs)
    return num / den


# ---------------------------------------------------------------- the four measurements


@dataclass
class Results:
    acquire: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    memory: dict[int, list[Memory]] = field(default_factory=lambda: defaultdict(list))
    crash_one: list[dict[str, Any]] = field(default_factory=list)
    crash_four: list[dict[str, Any]] = field(default_factory=list)
    actions: dict[int, list[tuple[str, float]]] = field(default_factory=lambda: defaultdict(list))
    walls: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    # clicks phase, per level: each click's round trip, and CPU seconds (daemon, Chromium)
    clicks: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    click_cpu: dict[int, list[tuple[float, float]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    notes: list[str] = field(default_factory=list)


def measure_acquire(d: Daemon, rounds: int, out: Results) -> None:
    url = d.url("nav-a.html")
    for number in range(rounds + 1):  # round 0 warms up and is not kept
        kept: dict[str, list[float]] = defaultdict(list)
        name = f"acq{number}"
        d.timed(kept["new session"], "open", session=name, url=url)
        d.timed(kept["new tab"], "open", session=name, url=url)
        d.timed(kept["close"], "close", session=name)
        if number:
            for key, values in kept.items():
                out.acquire[key] += values


def measure_memory(d: Daemon, rounds: int, out: Results) -> None:
    url = d.url("nav-a.html")
    for number in range(rounds):
        live: list[str] = []
        for level in MEMORY_LEVELS:
            while len(live) < level:
                live.append(f"mem{number}-{len(live)}")
                d.call("open", session=live[-1], url=url)
            out.memory[level].append(sampled_memory(d.settings.state_dir))
        for name in live:
            d.call("close", session=name)


def until_answered(d: Daemon, session: str, killed: float) -> dict[str, Any]:
    """Snapshot `session` until one succeeds; what it took, and what the daemon reported."""
    errors: list[str] = []
    while True:
        try:
            got = d.call("snapshot", session=session, max_chars=WHOLE)
        except SteadyhandError as exc:
            errors.append(str(exc.code))
            if time.perf_counter() - killed > RECOVERY_DEADLINE_S:
                return {"ok": False, "ms": ms_since(killed), "errors": errors}
            time.sleep(0.02)
            continue
        recovered = got.get("recovered") or {}
        return {
            "ok": True,
            "ms": ms_since(killed),
            "recovery_ms": recovered.get("recovery_ms"),
            "reported": bool(recovered),
            "lost": recovered.get("lost", []),
            "logged_in": "Logged in as" in got["snapshot"] and "theme: dark" in got["snapshot"],
            "draft": "draft: unsent note" in got["snapshot"],
            "errors": errors,
        }


def kill_browser(d: Daemon) -> float:
    browser = d.browser()
    if browser.pgid == os.getpgrp():
        raise RuntimeError("Chromium shares this script's process group; not killing it")
    killed = time.perf_counter()
    os.killpg(browser.pgid, signal.SIGKILL)
    return killed


def measure_crash(d: Daemon, rounds: int, out: Results) -> None:
    d.log_in("crash1", "Ada")
    for _ in range(rounds):
        killed = kill_browser(d)
        out.crash_one.append(until_answered(d, "crash1", killed))
        time.sleep(0.5)  # let the relaunched browser settle before the next kill
    d.call("close", session="crash1")

    names = [f"crash4-{n}" for n in range(4)]
    for name in names:
        d.log_in(name, name)
    with ThreadPoolExecutor(len(names)) as pool:
        for _ in range(rounds):
            killed = kill_browser(d)
            each = list(pool.map(partial(until_answered, d, killed=killed), names))
            out.crash_four.append(
                {
                    "ok": all(e["ok"] for e in each),
                    "ms": max(e["ms"] for e in each),
                    "recovery_ms": max((e.get("recovery_ms") or 0.0) for e in each),
                    "reported": all(e.get("reported") for e in each),
                    "logged_in": all(e.get("logged_in") for e in each),
                    "draft": all(e.get("draft") for e in each),
                    "errors": [err for e in each for err in e["errors"]],
                    "each_ms": [round(e["ms"]) for e in each],
                }
            )
            time.sleep(0.5)
    for name in names:
        d.call("close", session=name)


class Agent:
    """One session on form.html, acting in a cycle: snapshot, type, click."""

    STEPS = ("snapshot", "type", "click")

    def __init__(self, d: Daemon, session: str) -> None:
        self.d, self.session, self.step = d, session, 0
        d.call("open", session=session, url=d.url("form.html"))
        self.read(d.snapshot(session))

    def read(self, page: str) -> None:
        self.name_ref = find_ref(page, "textbox", "Name")
        self.button_ref = find_ref(page, "button", "Place order")

    def act(self) -> tuple[str, float]:
        kind = self.STEPS[self.step % len(self.STEPS)]
        self.step += 1
        started = time.perf_counter()
        if kind == "snapshot":
            got = self.d.call("snapshot", session=self.session, max_chars=WHOLE)
            spent = ms_since(started)
            self.read(got["snapshot"])
            return kind, spent
        if kind == "type":
            self.d.call(
                "type",
                session=self.session,
                ref=self.name_ref,
                text=f"{self.session} {self.step}",
                changes=False,
            )
        else:
            self.d.call("click", session=self.session, ref=self.button_ref, changes=False)
        return kind, ms_since(started)

    def run(self, count: int, start: threading.Barrier) -> list[tuple[str, float]]:
        start.wait()
        return [self.act() for _ in range(count)]


def measure_parallel(d: Daemon, actions: int, out: Results) -> None:
    agents = [Agent(d, f"agent{n}") for n in range(max(PARALLEL_LEVELS))]
    for agent in agents:  # one untimed cycle each
        for _ in Agent.STEPS:
            agent.act()
    halves = (actions - actions // 2, actions // 2)
    orders = (PARALLEL_LEVELS, tuple(reversed(PARALLEL_LEVELS)))
    with ThreadPoolExecutor(max(PARALLEL_LEVELS)) as pool:
        for count, order in zip(halves, orders, strict=True):
            if not count:
                continue
            for level in order:
                barrier = threading.Barrier(level)
                started = time.perf_counter()
                runs = [pool.submit(a.run, count, barrier) for a in agents[:level]]
                for run in runs:
                    out.actions[level] += run.result()
                out.walls[level] += time.perf_counter() - started
    for agent in agents:
        d.call("close", session=agent.session)


CLICK_LEVELS = (1, 16)


def cpu_s(pids: Iterable[int]) -> float:
    """User + system CPU seconds the processes have used so far (/proc/PID/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / ticks


def measure_clicks(d: Daemon, clicks: int, out: Results) -> None:
    """1 agent, then 16 at once (then the other way round), each on its own session on
    form.html clicking "Place order" (changes on, as an agent's click) `clicks` times per
    pass; each click's round trip, and the CPU the daemon and its Chromium spent."""
    pid = rpc_client.daemon_pid(d.settings)
    agents = [Agent(d, f"clicker{n}") for n in range(max(CLICK_LEVELS))]

    def run(agent: Agent, count: int, start: threading.Barrier) -> list[float]:
        start.wait()
        spent = []
        for _ in range(count):
            began = time.perf_counter()
            d.call("click", session=agent.session, ref=agent.button_ref)
            spent.append(ms_since(began))
        return spent

    for agent in agents:  # one untimed click each
        d.call("click", session=agent.session, ref=agent.button_ref)
    halves = (clicks - clicks // 2, clicks // 2)
    orders = (CLICK_LEVELS, tuple(reversed(CLICK_LEVELS)))
    with ThreadPoolExecutor(max(CLICK_LEVELS)) as pool:
        for count, order in zip(halves, orders, strict=True):
            for level in order:
                if not count:
                    continue
                barrier = threading.Barrier(level)
                browsers = owned_processes(d.settings.state_dir)
                daemon_before, browser_before = cpu_s([pid] if pid else []), cpu_s(browsers)
                runs = [pool.submit(run, a, count, barrier) for a in agents[:level]]
                for done in runs:
                    out.clicks[level] += done.result()
                browsers |= owned_processes(d.settings.state_dir)
                out.click_cpu[level].append(
                    (
                        (cpu_s([pid] if pid else []) - daemon_before) / (count * level),
                        (cpu_s(browsers) - browser_before) / (count * level),
                    )
                )
    for agent in agents:
        d.call("close", session=agent.session)


def report_clicks(r: Results, clicks: int) -> dict[str, Any]:
    print(
        f"clicks: agents on their own sessions (form.html), each clicking {clicks} times per "
        "level (changes on); ms per click, CPU ms per click"
    )
    print(
        f"  {'agents':>6}{'clicks':>8}{'p50':>8}{'p95':>8}{'x p95':>8}{'daemon CPU':>12}"
        f"{'Chromium CPU':>14}"
    )
    base = p95(r.clicks[CLICK_LEVELS[0]])
    got: dict[str, Any] = {}
    for level in CLICK_LEVELS:
        samples = r.clicks[level]
        daemon_cpu = sum(c for c, _ in r.click_cpu[level]) / max(1, len(r.click_cpu[level]))
        chromium_cpu = sum(c for _, c in r.click_cpu[level]) / max(1, len(r.click_cpu[level]))
        got[str(level)] = {
            "clicks": len(samples),
            "p50_ms": rnd(median(samples)),
            "p95_ms": rnd(p95(samples)),
            "p95_ratio_vs_1": rnd(p95(samples) / base, 2),
            "daemon_cpu_ms_per_click": rnd(daemon_cpu * 1000, 2),
            "chromium_cpu_ms_per_click": rnd(chromium_cpu * 1000, 2),
        }
        print(
            f"  {level:>6}{len(samples):>8}{median(samples):>8.1f}{p95(samples):>8.1f}"
            f"{p95(samples) / base:>7.2f}x{daemon_cpu * 1000:>12.2f}{chromium_cpu * 1000:>14.2f}"
        )
    print(f"  machine: {os.cpu_count()} CPUs\n")
    return got


# ---------------------------------------------------------------- running and reporting


def measure(args: argparse.Namespace) -> tuple[Results, float]:
    server = serve_directory(SITE)
    root = Path(tempfile.mkdtemp(prefix="sh-bench-sessions-"))
    out = Results()
    began = time.perf_counter()
    d = start(root / "daemon", base_url(server))
    try:
        status = d.call("sessions")
        if status.get("cap") != MAX_SESSIONS:
            out.notes.append(f"the daemon's pool cap is {status.get('cap')}, not {MAX_SESSIONS}")
        phases: list[tuple[str, Callable[[], None]]] = [
            ("acquire", lambda: measure_acquire(d, args.rounds, out)),
            ("memory", lambda: measure_memory(d, args.mem_rounds, out)),
            ("parallel", lambda: measure_parallel(d, args.actions, out)),
            ("clicks", lambda: measure_clicks(d, args.clicks, out)),
            ("crash", lambda: measure_crash(d, args.crash_rounds, out)),
        ]
        for name, phase in phases:
            if name not in args.phases:
                continue
            started = time.perf_counter()
            phase()
            print(f"[{name} done in {time.perf_counter() - started:.0f} s]", file=sys.stderr)
        recoveries = d.call("daemon.status").get("recoveries")
        out.notes.append(f"daemon.status recoveries: {recoveries}")
    finally:
        try:
            left = stop(d)
            if left:
                out.notes.append(f"left running after daemon.stop: {', '.join(left)}")
        finally:
            server.shutdown()
            shutil.rmtree(root, ignore_errors=True)
    return out, time.perf_counter() - began


def report_acquire(r: Results, rounds: int) -> dict[str, Any]:
    print(f"acquire: {rounds} rounds (+1 warm-up), nav-a.html; client round trips in ms")
    header = f"  {'':<34}{'p50':>8}{'p95':>8}"
    print(header)
    got: dict[str, Any] = {}
    labels = {
        "new session": "open, new session (context + load)",
        "new tab": "open, new tab in that session",
        "close": "close (session with 2 tabs)",
    }
    for key, label in labels.items():
        values = r.acquire[key]
        got[key.replace(" ", "_")] = {"p50_ms": rnd(median(values)), "p95_ms": rnd(p95(values))}
        print(f"  {label:<34}{median(values):>8.1f}{p95(values):>8.1f}")
    context = median(r.acquire["new session"]) - median(r.acquire["new tab"])
    got["context_cost_ms"] = rnd(context)
    print(f"  {'context cost (p50 difference)':<34}{context:>8.1f}\n")
    return got


def report_memory(r: Results, rounds: int) -> dict[str, Any]:
    print(
        f"memory: Chromium tree (main process + descendants), {rounds} ramp(s), medians; "
        "sessions on nav-a.html"
    )
    print(f"  {'sessions':>8}{'procs':>7}{'RSS MB':>9}{'PSS MB':>9}{'PSS +/sess':>12}")
    levels: dict[str, Any] = {}
    previous: tuple[int, float] | None = None
    points_rss: list[tuple[float, float]] = []
    points_pss: list[tuple[float, float]] = []
    for level in MEMORY_LEVELS:
        samples = r.memory[level]
        rss, pss = median(s.rss_mb for s in samples), median(s.pss_mb for s in samples)
        procs = int(median(s.processes for s in samples))
        step = math.nan if previous is None else (pss - previous[1]) / (level - previous[0])
        previous = (level, pss)
        points_rss.append((level, rss))
        points_pss.append((level, pss))
        levels[str(level)] = {"rss_mb": rnd(rss), "pss_mb": rnd(pss), "processes": procs}
        step_text = "" if math.isnan(step) else f"{step:>12.1f}"
        print(f"  {level:>8}{procs:>7}{rss:>9.1f}{pss:>9.1f}{step_text}")
    rss_slope, pss_slope = slope(points_rss), slope(points_pss)
    print(
        f"  per-session slope (least squares over 0..16): PSS {pss_slope:.1f} MB, "
        f"RSS {rss_slope:.1f} MB (RSS counts shared pages once per process)\n"
    )
    return {"levels": levels, "slope_pss_mb": rnd(pss_slope), "slope_rss_mb": rnd(rss_slope)}


def _crash_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [run for run in runs if run["ok"]]
    client = [run["ms"] for run in ok]
    daemon = [run["recovery_ms"] for run in ok if run.get("recovery_ms") is not None]
    return {
        "runs": len(runs),
        "failed": len(runs) - len(ok),
        "client_p50_ms": rnd(median(client)),
        "client_max_ms": rnd(max(client, default=math.nan)),
        "daemon_p50_ms": rnd(median(daemon)),
        "daemon_max_ms": rnd(max(daemon, default=math.nan)),
        "all_reported": all(run.get("reported") for run in ok),
        "all_logged_in": all(run.get("logged_in") for run in ok),
        "all_draft": all(run.get("draft") for run in ok),
        "errors_seen": sorted({e for run in runs for e in run["errors"]}),
    }


def report_crash(r: Results, rounds: int) -> dict[str, Any]:
    print(f"crash: kill -9 of Chromium's process group, {rounds} times each; ms")
    print(f"  {'':<30}{'kill->ok p50':>13}{'max':>8}{'recovery_ms p50':>17}{'max':>8}")
    got: dict[str, Any] = {}
    for key, label, runs in (
        ("one", "1 session (logged in)", r.crash_one),
        ("four", "4 sessions, all answered", r.crash_four),
    ):
        s = got[key] = _crash_summary(runs)
        print(
            f"  {label:<30}{s['client_p50_ms'] or math.nan:>13.0f}"
            f"{s['client_max_ms'] or math.nan:>8.0f}{s['daemon_p50_ms'] or math.nan:>17.0f}"
            f"{s['daemon_max_ms'] or math.nan:>8.0f}"
        )
        checks = (
            f"failed {s['failed']}/{s['runs']}; `recovered` reported: {s['all_reported']}; "
            f"still logged in (cookie + localStorage): {s['all_logged_in']}; "
            f"sessionStorage draft: {s['all_draft']}"
        )
        print(f"  {'':<30}{checks}")
        if s["errors_seen"]:
            print(f"  {'':<30}errors before success: {', '.join(s['errors_seen'])}")
    if r.crash_four:
        each = [run.get("each_ms", []) for run in r.crash_four]
        got["four"]["each_ms"] = each
        print(f"  {'':<30}4 sessions, each kill->ok per round: {each}")
    lost = {tuple(run.get("lost", [])) for run in r.crash_one if run.get("lost")}
    if lost:
        print(f"  {'':<30}1 session, `lost` said: {sorted(lost)}")
    print(
        "  recovery_ms is the daemon's (from noticing the crash to the session restored); "
        "kill->ok adds detection and the snapshot\n"
    )
    return got


def report_parallel(r: Results, actions: int) -> dict[str, Any]:
    print(
        f"parallel: agents on their own sessions (form.html), {actions} actions each per "
        "level (snapshot/type/click cycle, acts with changes=False); ms"
    )
    print(
        f"  {'agents':>6}{'actions':>9}{'p50':>8}{'p95':>8}{'x p50':>8}{'act/s':>11}"
        f"   p50 snapshot / type / click"
    )
    base = median(ms for _, ms in r.actions[PARALLEL_LEVELS[0]])
    got: dict[str, Any] = {}
    for level in PARALLEL_LEVELS:
        samples = r.actions[level]
        all_ms = [ms for _, ms in samples]
        p50_ms = median(all_ms)
        by_kind = {k: median(ms for kind, ms in samples if kind == k) for k in Agent.STEPS}
        rate = len(samples) / r.walls[level] if r.walls[level] else math.nan
        got[str(level)] = {
            "actions": len(samples),
            "p50_ms": rnd(p50_ms),
            "p95_ms": rnd(p95(all_ms)),
            "p50_ratio_vs_1": rnd(p50_ms / base, 2),
            "actions_per_s": rnd(rate),
            "p50_by_kind_ms": {k: rnd(v) for k, v in by_kind.items()},
        }
        kinds = " / ".join(f"{by_kind[k]:.0f}" for k in Agent.STEPS)
        print(
            f"  {level:>6}{len(samples):>9}{p50_ms:>8.1f}{p95(all_ms):>8.1f}"
            f"{p50_ms / base:>7.2f}x{rate:>11.1f}   {kinds}"
        )
    print(f"  machine: {os.cpu_count()} CPUs\n")
    return got


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=10, help="acquire rounds (default 10)")
    parser.add_argument("--mem-rounds", type=int, default=2, help="memory ramps (default 2)")
    parser.add_argument(
        "--crash-rounds", type=int, default=5, help="kills per crash case (default 5)"
    )
    parser.add_argument(
        "--actions", type=int, default=20, help="actions per agent per level (default 20)"
    )
    parser.add_argument(
        "--clicks", type=int, default=20, help="clicks per agent per level (default 20)"
    )
    parser.add_argument(
        "--phases",
        default="acquire,memory,parallel,clicks,crash",
        help="which phases to run, comma-separated (default: all)",
    )
    args = parser.parse_args()
    args.phases = set(args.phases.split(","))
    args.clicks = max(2, args.clicks)
    args.rounds, args.mem_rounds = max(1, args.rounds), max(1, args.mem_rounds)
    args.crash_rounds, args.actions = max(1, args.crash_rounds), max(2, args.actions)
    results, took = measure(args)
    print(f"sessions bench: private daemon, max_sessions={MAX_SESSIONS}\n")
    summary: dict[str, Any] = {
        "bench": "sessions",
        "rounds": args.rounds,
        "mem_rounds": args.mem_rounds,
        "crash_rounds": args.crash_rounds,
        "actions": args.actions,
        "acquire": report_acquire(results, args.rounds) if "acquire" in args.phases else None,
        "memory": report_memory(results, args.mem_rounds) if "memory" in args.phases else None,
        "crash": report_crash(results, args.crash_rounds) if "crash" in args.phases else None,
        "parallel": report_parallel(results, args.actions) if "parallel" in args.phases else None,
        "clicks": report_clicks(results, args.clicks) if "clicks" in args.phases else None,
        "notes": results.notes,
        "seconds": round(took, 1),
    }
    for note in results.notes:
        print(f"note: {note}")
    print(f"whole bench: {took:.0f} s")
    print(json.dumps(summary))
