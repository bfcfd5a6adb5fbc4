"""The private desktop: its environment, apps on its a11y bus, and nothing left behind."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from steadyhand.desktop import procs
from steadyhand.desktop.session import DesktopSession
from tests.conftest import Daemon, run_cli
from tests.desktop_env import actions_by_element, gtk3_form, launched, qt6_form, wait_on_bus

IS_ENABLED = [
    "gdbus",
    "call",
    "--session",
    "--dest",
    "org.a11y.Bus",
    "--object-path",
    "/org/a11y/bus",
    "--method",
    "org.freedesktop.DBus.Properties.Get",
    "org.a11y.Status",
    "IsEnabled",
]


def test_the_session_environment_is_private(desktop: DesktopSession) -> None:
    env = desktop.env
    assert env["DISPLAY"] == desktop.display
    assert re.fullmatch(r":\d+", desktop.display)
    runtime = Path(env["XDG_RUNTIME_DIR"])
    for name in ("XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        path = Path(env[name])
        assert path.parent == desktop.root
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, name
    assert env["DBUS_SESSION_BUS_ADDRESS"].startswith(f"unix:path={runtime}/bus,")
    assert desktop.a11y_address.startswith(f"unix:path={runtime}/")
    assert env["GSETTINGS_BACKEND"] == "memory"
    assert env["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] == "1"
    for name in ("AT_SPI_BUS_ADDRESS", "NO_AT_BRIDGE", "WAYLAND_DISPLAY"):
        assert name not in env
    enabled = subprocess.run(IS_ENABLED, env=env, capture_output=True, text=True, check=True)
    assert enabled.stdout.strip() == "(<true>,)"
    screen = subprocess.run(
        ["xdpyinfo", "-display", desktop.display], capture_output=True, text=True, check=True
    )
    assert "dimensions:    1280x800 pixels" in screen.stdout


def test_the_gtk3_form_shows_on_the_a11y_bus(desktop: DesktopSession) -> None:
    with launched(desktop, gtk3_form()) as app:
        found = wait_on_bus(desktop, app.pid, "push button", "Greet")
    seen = actions_by_element(found)
    assert seen[("push button", "Greet")] == ["click"]
    assert ("frame", "GTK form") in seen
    assert ("text", "Name") in seen
    assert seen[("check box", "Subscribe")] == ["click"]
    assert ("combo box", "Size") in seen
    assert {("menu item", n) for n in ("Small", "Medium", "Large")} <= seen.keys()
    assert {("menu", "File"), ("menu item", "Save"), ("menu item", "Quit")} <= seen.keys()
    assert ("label", "ready") in seen
    assert seen[("panel", "Click pad")] == []  # no action: X input only


def test_the_qt6_form_shows_on_the_a11y_bus(desktop: DesktopSession) -> None:
    with launched(desktop, qt6_form()) as app:
        found = wait_on_bus(desktop, app.pid, "push button", "Greet")
    seen = actions_by_element(found)
    assert "Press" in seen[("push button", "Greet")]
    assert ("filler", "Qt form") in seen
    assert ("text", "Name") in seen
    assert "Toggle" in seen[("check box", "Subscribe")]
    # On Linux Qt names a combo box by its current text (the label relates to it).
    assert ("combo box", "Small") in seen
    assert {("list item", n) for n in ("Small", "Medium", "Large")} <= seen.keys()
    assert ("label", "ready") in seen
    assert seen[("filler", "Click pad")] == []  # no action: X input only


def test_close_stops_everything_the_session_started() -> None:
    session = DesktopSession(size="800x600")
    session.start()
    try:
        app = session.launch(gtk3_form())
        wait_on_bus(session, app.pid, "push button", "Greet")
        # A process that leaves its group (a daemon would): only the session's mark finds it.
        escaper = session.launch(
            ["sh", "-c", "setsid sleep 300 >/dev/null 2>&1 & echo $!"], stdout=subprocess.PIPE
        )
        out, _ = escaper.communicate(timeout=10)
        escaped = int(out)
        groups = session.process_groups
        started = procs.group_members(groups) | procs.marked(session.mark)
        assert escaped in started and app.pid in started
        assert len(groups) >= 4  # bus, display, a11y launcher, the app
        # The a11y bus and registry are started by the launcher and the bus, not by us.
        assert len(started) > len(groups)
    finally:
        session.close()
    assert not procs.group_members(groups)
    assert not procs.marked(session.mark)
    assert not any(procs.alive(pid) for pid in started)
    assert not session.root.exists()


def test_the_cli_runs_a_command_in_a_session_and_cleans_up() -> None:
    script = (
        'echo "display=$DISPLAY"; echo "bus=$DBUS_SESSION_BUS_ADDRESS"; '
        + " ".join(IS_ENABLED)
        + "; setsid sleep 300 >/dev/null 2>&1 & echo escaped=$!; exit 5"
    )
    done = run_cli(
        "desktop", "session", "--size", "640x480", "--", "sh", "-c", script, env=dict(os.environ)
    )
    assert done.rc == 5, done.err
    lines = dict(line.split("=", 1) for line in done.out.splitlines() if "=" in line)
    assert re.fullmatch(r":\d+", lines["display"])
    assert lines["bus"].startswith("unix:path=/") and "steadyhand-desktop-" in lines["bus"]
    assert "(<true>,)" in done.out
    assert not procs.alive(int(lines["escaped"]))


def test_the_cli_refuses_a_missing_command() -> None:
    done = run_cli("desktop", "session", "--", env=dict(os.environ))
    assert done.rc == 2
    assert "give the command to run" in done.err


@pytest.mark.integration
def test_a_daemon_runs_inside_the_session(desktop: DesktopSession, desktop_daemon: Daemon) -> None:
    assert desktop_daemon.call("daemon.status")["pid"] == desktop_daemon.pid()
    pid = desktop_daemon.pid()
    assert pid is not None
    environ = dict(
        item.split("=", 1)
        for item in Path(f"/proc/{pid}/environ").read_text().split("\0")
        if "=" in item
    )
    for name in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", procs.MARK_VARIABLE):
        assert environ[name] == desktop.env[name], name
    assert desktop_daemon.env["DISPLAY"] == desktop.display  # its CLI runs see it too


def test_launch_needs_a_started_session() -> None:
    session = DesktopSession()
    try:
        with pytest.raises(Exception, match="not running"):
            session.launch([sys.executable, "-c", "pass"])
    finally:
        session.close()
