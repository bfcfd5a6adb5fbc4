"""Chaos (issue 18): scripted actions while a killer SIGKILLs Chromium under them.

Shared by tests/integration/test_chaos.py (a short run, fixed seed) and bench/chaos.py.
Every action runs on tests/fixtures/site/chaos.html (a form, a counter, a link to
chaos-b.html) in one session, between two read-backs of the page's state (an `evaluate`
of the fields, the counter and the URL). With some probability (seeded) a killer thread
SIGKILLs, at a random moment of the action, either Chromium's browser process (its process
group: found through /proc by the daemon's owner flag) or its renderer processes.

Rules checked:
- no false success: an action that answered ok really did what it says, as the read-back
  after it shows (the field holds the text, the counter advanced, the box is checked, the
  option selected, the page is the one navigated to — after a link's click, within 2 s:
  its navigation may commit after the click answers —, the snapshot shows the page).
  When a call after the action reports a recovery (the browser died after the action
  answered), an effect that is gone must be one a restore does not keep (form input,
  script state: unverifiable) or be listed in the recovery's `lost` (reported lost);
  an action whose own result reports a recovery that came after it must say the restore
  undid it (`this COMMAND: ...` in the recovery's `lost`); anything else is a false success;
- no lost rows: the action log has exactly one row per call made (actions and read-backs,
  per command), whatever died when.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from steadyhand import rpc_client
from steadyhand.commands import COMMANDS
from steadyhand.config import Settings
from steadyhand.engine.chromium import descendants, find_owned_browsers
from steadyhand.errors import SteadyhandError
from steadyhand.snapshot.lookup import find_ref

SESSION = "chaos"
PAGE_A, PAGE_B = "chaos.html", "chaos-b.html"
STATE_JS = """() => {
  const el = (id) => document.getElementById(id);
  return {
    path: location.pathname.split('/').pop(),
    name: el('name') ? el('name').value : null,
    note: el('note') ? el('note').value : null,
    agree: el('agree') ? el('agree').checked : null,
    plan: el('plan') ? el('plan').value : null,
    count: el('count') ? Number(el('count').textContent) : null,
  };
}"""
ACTIONS_A = ["click", "type", "fill", "check", "uncheck", "select", "snapshot", "navigate",
             "evaluate", "open", "click-link"]  # fmt: skip
ACTIONS_B = ["snapshot", "back", "navigate", "evaluate", "open", "click-link"]
WORDS = ["Ada", "Grace Hopper", "Ünïcode ✓", "x" * 40, "O'Brien & co", "42"]


@dataclass
class Report:
    actions: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)  # kills by target
    recovered_results: int = 0  # results and errors that reported a recovery
    unverifiable: int = 0
    reported_lost: int = 0  # gone in a later recovery that lists it as lost
    verified: int = 0
    false_successes: list[str] = field(default_factory=list)
    rows_lost: dict[str, int] = field(default_factory=dict)  # command -> calls - rows
    recoveries: int = 0  # daemon.status's count over the run

    def lines(self) -> Iterator[str]:
        yield f"actions: {sum(self.actions.values())} ({_counts(self.actions)})"
        yield f"faults injected: {sum(self.faults.values())} ({_counts(self.faults)})"
        yield f"outcomes: {_counts(self.outcomes)}"
        yield f"recoveries (daemon.status): {self.recoveries}; results reporting one: " + str(
            self.recovered_results
        )
        yield (
            f"successes verified: {self.verified}; undone by a later recovery that reported "
            f"them lost: {self.reported_lost}; unverifiable: {self.unverifiable}"
        )
        yield f"false successes: {len(self.false_successes)}"
        yield f"rows lost: {sum(self.rows_lost.values())} {self.rows_lost or ''}".rstrip()


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counter.items()))


class Killer:
    """SIGKILLs the daemon's Chromium (the browser's process group) or its renderers."""

    def __init__(self, state_dir: Path, daemon_pid: int) -> None:
        self.state_dir = state_dir
        self.spared = {os.getpgrp(), os.getpgid(daemon_pid)}

    def kill(self, target: str) -> bool:
        """Whether anything was killed."""
        browsers = find_owned_browsers(self.state_dir)
        if target == "browser":
            for browser in browsers:
                with contextlib.suppress(ProcessLookupError):
                    if browser.pgid in self.spared:
                        os.kill(browser.pid, signal.SIGKILL)
                    else:
                        os.killpg(browser.pgid, signal.SIGKILL)
            return bool(browsers)
        killed = False
        for pid in descendants({b.pid for b in browsers}):
            with contextlib.suppress(OSError):
                if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)
                    killed = True
        return killed


class Chaos:
    def __init__(
        self,
        settings: Settings,
        site: str,
        seed: int,
        *,
        kills: int,
        actions: int,
        log: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.settings = settings
        self.site = site
        self.rng = random.Random(seed)
        # The killer's plan is its own random stream: which steps, what, when in the step.
        plan = random.Random(seed + 1)
        self.plan = {
            step: (plan.choice(["browser", "renderer", "renderer"]), plan.uniform(0.0, 0.25))
            for step in plan.sample(range(1, actions), min(kills, actions - 1))
        }
        self.actions = actions
        self.log = log
        self.report = Report()
        self.calls: Counter[str] = Counter()  # calls made, per command that logs them
        pid = rpc_client.daemon_pid(settings)
        assert pid is not None, "the daemon runs"
        self.killer = Killer(settings.state_dir, pid)
        self.snapshot_text = ""
        self.recoveries_seen: list[dict[str, Any]] = []

    # -- calls ---------------------------------------------------------------------------

    def call(self, method: str, **params: Any) -> tuple[str, Any]:
        """("ok", result) or (code, error); every call is counted for the row check."""
        if COMMANDS[method].touches_page:
            self.calls[method] += 1
        try:
            result = rpc_client.call(
                self.settings, method, {"session": SESSION, **params}, autostart=False
            )
        except SteadyhandError as exc:
            self._note_recovery(exc.data.get("recovered"))
            return str(exc.code), exc
        self._note_recovery(result.get("recovered") if isinstance(result, dict) else None)
        return "ok", result

    def _note_recovery(self, report: Any) -> None:
        if isinstance(report, dict):
            self.report.recovered_results += 1
            self.recoveries_seen.append(report)

    def read_state(self) -> dict[str, Any] | None:
        """The page's state; a few tries while the browser comes back."""
        for _ in range(4):
            code, result = self.call("evaluate", expression=STATE_JS)
            if code == "ok":
                value: dict[str, Any] = result["value"]
                return value
            time.sleep(0.5)
        return None

    def rows(self) -> Counter[str]:
        uri = f"file:{self.settings.store_path}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=10)) as db:
            found = db.execute(
                "SELECT command, COUNT(*) FROM action_log WHERE session = ? GROUP BY command",
                (SESSION,),
            ).fetchall()
        return Counter({str(c): int(n) for c, n in found})

    # -- the run ---------------------------------------------------------------------------

    def start(self) -> None:
        self.call("open", url=f"{self.site}/{PAGE_A}", timeout="30000")
        self.refresh_refs()

    def refresh_refs(self) -> None:
        code, result = self.call("snapshot")
        if code == "ok":
            self.snapshot_text = result["snapshot"]

    def close_other_tabs(self, keep: Any) -> None:
        """`open` adds a tab: the others are closed (as actions too) to stay under max_tabs."""
        code, listed = self.call("tabs")
        for tab in listed["tabs"] if code == "ok" else []:
            if tab["id"] != keep and not tab["current"]:
                self.call("tab.close", tab=tab["id"])

    def ref(self, role: str, name: str) -> str:
        try:
            return find_ref(self.snapshot_text, role, name)
        except KeyError:
            return "e999999"

    def run(self) -> Report:
        before_recoveries = int(rpc_client.call(self.settings, "daemon.status", {})["recoveries"])
        self.start()
        for step in range(self.actions):
            self.step(step)
        self.report.recoveries = (
            int(rpc_client.call(self.settings, "daemon.status", {})["recoveries"])
            - before_recoveries
        )
        rows = self.rows()
        self.report.rows_lost = {
            name: self.calls[name] - rows[name]
            for name in self.calls | rows
            if self.calls[name] != rows[name]
        }
        return self.report

    def step(self, step: int) -> None:
        before = self.read_state()
        on_a = before is not None and before.get("path") == PAGE_A
        kind = self.rng.choice(ACTIONS_A if on_a else ACTIONS_B)
        if self.rng.random() < 0.5:
            self.refresh_refs()
        timer = None
        started = time.monotonic()
        if step in self.plan:
            target, delay = self.plan[step]
            timer = threading.Timer(delay, self._kill, (target, started))
            timer.start()
        self.recoveries_seen = []
        code, result, check = self.act(kind)
        own = result.get("recovered") if isinstance(result, dict) else None
        # The action's own recovery ran it again on the restored session: it must hold.
        self.recoveries_seen = [r for r in self.recoveries_seen if r is not own]
        answered = time.monotonic() - started
        if timer is not None:
            timer.join()
        self.report.actions[kind] += 1
        self.report.outcomes[code] += 1
        shown = (
            {
                k: result.get(k)
                for k in ("navigated", "recovered", "url", "data", "route", "retries")
                if result.get(k)
            }
            if isinstance(result, dict)
            else str(result)[:200]
        )
        self.log(f"{step:3d} {kind:10s} {code} in {answered:.2f} s {shown}")
        if code != "ok":
            if code == "stale_ref":
                self.refresh_refs()
            return
        after = self.read_state()
        problem = "no read-back" if after is None else check(before or {}, after, result)
        settle = 8 if kind == "click-link" else 0  # a link's navigation may commit later
        while problem is not None and settle and after is not None:
            settle -= 1
            time.sleep(0.25)
            after = self.read_state()
            problem = "no read-back" if after is None else check(before or {}, after, result)
        self.log(f"    read back {after} recoveries since: {len(self.recoveries_seen)}")
        if problem is None:
            self.report.verified += 1
        elif self.recoveries_seen and kind in PAGE_MEMORY:
            self.report.unverifiable += 1  # a restore does not keep the page's memory
        elif self.recoveries_seen and _listed_lost(self.recoveries_seen, kind):
            self.report.reported_lost += 1  # gone in a recovery that says so
        elif isinstance(own, dict) and _says_undone(own, kind):
            self.report.reported_lost += 1  # its own recovery came after it, and says so
        elif after is None:
            self.report.unverifiable += 1
        else:
            self.report.false_successes.append(f"step {step} {kind}: {problem}")
            self.log(f"    FALSE SUCCESS {problem}; the action answered {result}")
            self.log(f"    tabs now: {self.call('tabs')[1]}")

    def _kill(self, target: str, started: float) -> None:
        if self.killer.kill(target):
            self.report.faults[target] += 1
            self.log(f"    killed {target} at {time.monotonic() - started:.2f} s")

    Check = Callable[[dict[str, Any], dict[str, Any], Any], str | None]

    def act(self, kind: str) -> tuple[str, Any, Chaos.Check]:
        """Run one action; its outcome and how to check it really happened."""
        rng = self.rng
        by_ref = rng.random() < 0.5  # refs from the last snapshot, else locators

        def target(role: str, name: str, locator: str) -> str:
            return self.ref(role, name) if by_ref else locator

        if kind == "click":
            code, result = self.call(
                "click", ref=target("button", "Add", 'role=button[name="Add"]')
            )

            def clicked(before: dict[str, Any], after: dict[str, Any], result: Any) -> str | None:
                if result.get("recovered"):  # ran again on the page its checkpoint restored
                    return None if (after.get("count") or 0) >= 1 else f"count {after}"
                want = (before.get("count") or 0) + 1
                return None if after.get("count") == want else f"count {after} want {want}"

            return code, result, clicked
        if kind in ("type", "fill"):
            text = rng.choice(WORDS) + str(rng.randrange(1000))
            field_name = "name" if kind == "type" else "note"
            label = field_name.capitalize()
            ref = target("textbox", label, f"label={label}")
            if kind == "type":
                code, result = self.call("type", ref=ref, text=text)
            else:
                code, result = self.call("fill", fields={ref: text})
            return code, result, _holds(field_name, text)
        if kind in ("check", "uncheck"):
            ref = target("checkbox", "Agree", "label=Agree")
            code, result = self.call(kind, ref=ref)
            return code, result, _holds("agree", kind == "check")
        if kind == "select":
            value = rng.choice(["free", "pro", "team"])
            code, result = self.call(
                "select", ref=target("combobox", "Plan", "css=#plan"), values=[value]
            )
            return code, result, _holds("plan", value)
        if kind in ("navigate", "open"):
            page = rng.choice([PAGE_A, PAGE_B])
            code, result = self.call(kind, url=f"{self.site}/{page}")
            if kind == "open" and code == "ok":
                self.close_other_tabs(result.get("tab"))
            return code, result, _holds("path", page)
        if kind == "click-link":
            page = PAGE_B if self.snapshot_text.count("Chaos A") else PAGE_A
            name = "Page B" if page == PAGE_B else "Page A"
            code, result = self.call("click", ref=target("link", name, f"text={name}"))
            return code, result, _holds("path", page)
        if kind == "back":
            code, result = self.call("back")
            return code, result, _any
        if kind == "snapshot":
            code, result = self.call("snapshot")
            if code == "ok":
                self.snapshot_text = result["snapshot"]
            return code, result, _shows_page
        code, result = self.call("evaluate", expression="document.title")
        return code, result, _titled


# Effects held in the page's memory (form input, script state): a restore from a checkpoint
# does not bring them back (README, "Checkpoints"), so a recovery after them hides them.
PAGE_MEMORY = {"click", "type", "fill", "check", "uncheck", "select"}


def _listed_lost(recoveries: list[dict[str, Any]], kind: str) -> bool:
    """Whether a recovery report lists an action of this kind among those it lost."""
    command = "click" if kind == "click-link" else kind
    lost = " ".join(str(item) for report in recoveries for item in report.get("lost", []))
    return f"{command} {{" in lost or f"; {command} " in lost


def _says_undone(recovery: dict[str, Any], kind: str) -> bool:
    """Whether the action's own recovery says the restore undid it (it ran before the crash)."""
    command = "click" if kind == "click-link" else kind
    return any(str(item).startswith(f"this {command}:") for item in recovery.get("lost", []))


def _holds(key: str, value: Any) -> Chaos.Check:
    def check(before: dict[str, Any], after: dict[str, Any], result: Any) -> str | None:
        return None if after.get(key) == value else f"{key} is {after.get(key)!r}, not {value!r}"

    return check


def _any(before: dict[str, Any], after: dict[str, Any], result: Any) -> str | None:
    return None


def _shows_page(before: dict[str, Any], after: dict[str, Any], result: Any) -> str | None:
    heading = "Chaos A" if after.get("path") == PAGE_A else "Chaos B"
    return None if heading in result["snapshot"] else f"snapshot without {heading!r}"


def _titled(before: dict[str, Any], after: dict[str, Any], result: Any) -> str | None:
    title = "Chaos A" if after.get("path") == PAGE_A else "Chaos B"
    return None if result.get("value") == title else f"title {result.get('value')!r}"


def chaos_settings(state_dir: Path) -> Settings:
    """A daemon with the default recovery machinery and deadlines short enough for a run."""
    return Settings.load(
        state_dir=state_dir,
        timeout_short_ms=5_000,
        timeout_medium_ms=8_000,
        timeout_long_ms=20_000,
        failure_screenshots=False,
    )
