"""A daemon started by a browser command launches Chromium while it loads (warm start);
one started by `daemon start` or a desktop command waits for the first use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steadyhand.engine.chromium import descendants
from tests.conftest import Daemon, wait_until

pytestmark = pytest.mark.integration
OWN_DAEMON = "its tests time the daemon's first commands"  # conftest.daemon


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def log_events(daemon: Daemon) -> list[str]:
    events = []
    for path in (daemon.settings.state_dir / "logs").glob("*.jsonl"):
        events += [json.loads(line).get("event", "") for line in path.read_text().splitlines()]
    return events


def test_a_browser_command_starts_the_browser_with_the_daemon(
    fresh_daemon: Daemon, site: str
) -> None:
    opened = fresh_daemon.cli("open", f"{site}/form.html", "--session", "warm")
    assert opened.rc == 0, opened.err
    assert any(e.startswith("browser ready") for e in log_events(fresh_daemon))
    # One Playwright driver, started first thing, shared by the warm start's launch and
    # the first command (they once raced to start one each).
    pid = fresh_daemon.call("daemon.status")["pid"]
    drivers = [p for p in descendants({pid}) if "playwright/driver" in command_line(p)]
    assert len(drivers) == 1, [command_line(p) for p in drivers]
    snapshot = fresh_daemon.cli("snapshot", "--session", "warm")
    assert snapshot.rc == 0 and "Gift wrap" in snapshot.out


def test_daemon_start_leaves_the_browser_for_the_first_use(fresh_daemon: Daemon) -> None:
    started = fresh_daemon.cli("daemon", "start", "--json")
    assert started.rc == 0, started.err
    assert started.json["result"]["browser_running"] is False
    assert wait_until(lambda: any("listening" in e for e in log_events(fresh_daemon)))
    assert not any(e.startswith("browser ready") for e in log_events(fresh_daemon))
    assert fresh_daemon.call("daemon.status")["browser_running"] is False
