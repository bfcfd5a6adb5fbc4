"""Windows, clipboard and launch on a private Xvfb desktop, against real GTK 3 and Qt 6 apps
and a daemon inside the session; without a window manager, and with openbox when it is
installed."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from steadyhand.desktop.session import DesktopSession
from tests.conftest import Daemon, make_settings, run_cli, running_daemon, wait_until
from tests.desktop_env import (
    APPS,
    DEBIAN_PYTHON,
    gtk3_form,
    launched,
    qt6_form,
    skip_reason,
    wait_on_bus,
)

pytestmark = pytest.mark.integration


def window_of(daemon: Daemon, pid: int, timeout_s: float = 20.0) -> dict[str, Any]:
    """The mapped top-level window of process `pid`, once `desktop windows` shows it."""
    found: list[dict[str, Any]] = []

    def shown() -> bool:
        found[:] = [w for w in daemon.call("desktop.windows")["windows"] if w["pid"] == pid]
        return bool(found) and found[0]["viewable"]

    assert wait_until(shown, timeout_s), daemon.call("desktop.windows")
    return found[0]


def xwininfo(session: DesktopSession, window: str) -> dict[str, int]:
    """The window's absolute position and size as xwininfo (another X client) reads them."""
    out = subprocess.run(
        ["xwininfo", "-id", window], env=session.env, capture_output=True, text=True, check=True
    ).stdout
    fields = {
        "x": r"Absolute upper-left X:\s+(-?\d+)",
        "y": r"Absolute upper-left Y:\s+(-?\d+)",
        "width": r"Width:\s+(\d+)",
        "height": r"Height:\s+(\d+)",
    }
    return {k: int(re.search(p, out).group(1)) for k, p in fields.items()}  # type: ignore[union-attr]


def kill_group(pid: int) -> None:
    """Stop a program the daemon launched (its own process group) and wait until it is gone."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    if not wait_until(lambda: not Path(f"/proc/{pid}").exists(), 10):
        os.killpg(pid, signal.SIGKILL)


@pytest.fixture
def gtk_app(desktop: DesktopSession) -> Iterator[subprocess.Popen[bytes]]:
    with launched(desktop, gtk3_form("--at", "30,40")) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        yield app


def test_windows_lists_the_gtk_and_qt_forms(
    desktop: DesktopSession, desktop_daemon: Daemon, gtk_app: subprocess.Popen[bytes]
) -> None:
    d = desktop_daemon
    with launched(desktop, qt6_form()) as qt:
        wait_on_bus(desktop, qt.pid, "push button", "Greet")
        listed = d.call("desktop.windows")
        assert listed["wm"] is None  # a bare Xvfb: no window manager
        gtk_window = window_of(d, gtk_app.pid)
        qt_window = window_of(d, qt.pid)
        assert gtk_window["title"] == "GTK form" and qt_window["title"] == "Qt form"
        assert gtk_window["instance"] == "gtk3_form.py"
        assert re.fullmatch(r"0x[0-9a-f]+", gtk_window["id"])
        assert (gtk_window["x"], gtk_window["y"]) == (30, 40)  # where --at put it
        assert gtk_window["mapped"] and gtk_window["viewable"] and gtk_window["width"] > 100
        # The toolkits' helper windows (GTK's leader, Qt's selection owner) are left out.
        assert [w["title"] for w in listed["windows"] if w["pid"] == qt.pid] == ["Qt form"]
        assert not any("Selection Owner" in w["title"] for w in listed["windows"])
        # --app by pid, by WM_CLASS, and by the name the a11y bus knows it by.
        by_pid = d.call("desktop.windows", app=str(qt.pid))["windows"]
        assert [w["id"] for w in by_pid] == [qt_window["id"]]
        assert [w["pid"] for w in d.call("desktop.windows", app="gtk3_form.py")["windows"]] == [
            gtk_app.pid
        ]
        bus_name = next(a["name"] for a in d.call("desktop.apps")["apps"] if a["pid"] == qt.pid)
        assert [w["pid"] for w in d.call("desktop.windows", app=bus_name)["windows"]] == [qt.pid]
        missing = d.fail("desktop.windows", app="no-such-app")
        assert missing.code == "not_found" and "GTK form" in (missing.hint or "")


def test_move_resize_and_focus_are_read_back(
    desktop: DesktopSession, desktop_daemon: Daemon, gtk_app: subprocess.Popen[bytes]
) -> None:
    d = desktop_daemon
    wid = window_of(d, gtk_app.pid)["id"]
    moved = d.call("desktop.window.move", id=wid, x=210, y=155)
    assert moved["verified"] and moved["transport"] == "x11"
    assert (moved["before"]["x"], moved["before"]["y"]) == (30, 40)
    assert (moved["window"]["x"], moved["window"]["y"]) == (210, 155)
    assert xwininfo(desktop, wid) | {"width": 0, "height": 0} == {
        "x": 210,
        "y": 155,
        "width": 0,
        "height": 0,
    }
    resized = d.call("desktop.window.resize", id=wid, width=520, height=380)
    assert resized["verified"] and (resized["window"]["width"], resized["window"]["height"]) == (
        520,
        380,
    )
    assert xwininfo(desktop, wid) == {"x": 210, "y": 155, "width": 520, "height": 380}

    with launched(desktop, qt6_form()) as qt:
        wait_on_bus(desktop, qt.pid, "push button", "Greet")
        qt_id = window_of(d, qt.pid)["id"]
        for target, other in ((qt_id, wid), (wid, qt_id)):
            focused = d.call("desktop.window.focus", id=target)
            assert focused["verified"] and focused["window"]["focused"]
            assert focused["transport"] == "x11"
            now = {w["id"]: w["focused"] for w in d.call("desktop.windows")["windows"]}
            assert now[target] and not now[other]
            focus = subprocess.run(
                ["xdotool", "getwindowfocus"],
                env=desktop.env,
                capture_output=True,
                text=True,
                check=True,
            )
            assert int(focus.stdout) == int(target, 16)  # another X client agrees


def test_close_makes_the_gtk_form_exit(desktop: DesktopSession, desktop_daemon: Daemon) -> None:
    d = desktop_daemon
    with launched(desktop, gtk3_form()) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        wid = window_of(d, app.pid)["id"]
        closed = d.call("desktop.window.close", id=wid)
        assert closed["verified"] and closed["transport"] == "wm_delete_window"
        assert closed["window"] is None and closed["gone"] == "destroyed"
        assert app.wait(10) == 0  # its destroy handler quit the main loop
        gone = d.fail("desktop.window.focus", id=wid)
        assert gone.code == "not_found"


def test_window_ids_unknown_and_malformed(desktop_daemon: Daemon) -> None:
    d = desktop_daemon
    err = d.fail("desktop.window.move", id="0x7ffffff", x=1, y=1)
    assert err.code == "not_found" and "windows:" in (err.hint or "")
    for bad in ("nope", "0xZZ", "-5", ""):
        assert d.fail("desktop.window.focus", id=bad).code == "bad_request", bad
    assert d.fail("desktop.window.resize", id="0x1", width=0, height=10).code == "bad_request"
    assert d.fail("desktop.window.move", id="0x1", x=40_000, y=0).code == "bad_request"  # INT16


def test_a_window_without_wm_delete_window_cannot_be_closed_without_a_wm(
    desktop: DesktopSession, desktop_daemon: Daemon
) -> None:
    with launched(desktop, [DEBIAN_PYTHON, str(APPS / "bare_window.py")]) as bare:
        wid = window_of(desktop_daemon, bare.pid)["id"]
        err = desktop_daemon.fail("desktop.window.close", id=wid)
        assert err.code == "not_actionable" and f"pid {bare.pid}" in (err.hint or "")
        assert bare.poll() is None


def test_clipboard_round_trips_and_a_gtk_app_shares_it(
    desktop: DesktopSession, desktop_daemon: Daemon, gtk_app: subprocess.Popen[bytes]
) -> None:
    d = desktop_daemon
    text = "héllo ✓ s3cret\nline two"
    done = d.call("desktop.clipboard.set", text=text)
    assert done == {"selection": "clipboard", "verified": True, "chars": len(text)}
    assert d.call("desktop.clipboard.get") == {
        "selection": "clipboard",
        "text": text,
        "has_text": True,
    }
    d.call("desktop.clipboard.set", text="primary one", selection="primary")
    assert d.call("desktop.clipboard.get", selection="primary")["text"] == "primary one"
    assert d.call("desktop.clipboard.get")["text"] == text  # the two are separate

    # The GTK app pastes what we set, and we read what it copies.
    d.call("desktop.clipboard.set", text="from steadyhand")
    d.call("desktop.window.focus", id=window_of(d, gtk_app.pid)["id"])
    page = d.call("desktop.snapshot", app=str(gtk_app.pid))["snapshot"]
    entry = re.search(r'- text "Name" [^\n]*\[ref=(d\d+)\]', page)
    assert entry, page
    d.call("desktop.press", keys="ctrl+v", ref=entry.group(1))
    assert wait_until(
        lambda: (
            re.search(
                r'text "Name" [^\n]*: from steadyhand',
                d.call("desktop.snapshot", app=str(gtk_app.pid))["snapshot"],
            )
            is not None
        ),
        5,
    )
    d.call("desktop.type", ref=entry.group(1), text="copied in GTK")
    d.call("desktop.press", keys="ctrl+a", ref=entry.group(1))
    d.call("desktop.press", keys="ctrl+c", ref=entry.group(1))
    assert wait_until(lambda: d.call("desktop.clipboard.get")["text"] == "copied in GTK", 5)

    # Clipboard text is kept out of the action log: set's param and get's result.
    log = d.call("trace", last=0)["actions"]
    sets = [e for e in log if e["command"] == "desktop.clipboard.set"]
    assert sets and all(e["params"]["text"] == "[redacted]" for e in sets)
    assert any(e["command"] == "desktop.clipboard.get" for e in log)
    for path in d.settings.state_dir.rglob("*"):  # the store, its WAL, the logs
        if path.is_file():
            assert b"s3cret" not in path.read_bytes(), path


def test_launch_waits_until_the_app_shows(desktop: DesktopSession, desktop_daemon: Daemon) -> None:
    d = desktop_daemon
    started = d.call("desktop.launch", argv=gtk3_form("--at", "50,60"))
    pid = started["pid"]
    try:
        assert started["app"] == "gtk3_form.py"
        assert [w["title"] for w in started["windows"]] == ["GTK form"]
        assert started["windows"][0]["pid"] == pid
        assert 0 < started["visible_ms"] < 30_000
        assert Path(started["log"]).is_file()
        assert {"name": "gtk3_form.py", "pid": pid} in d.call("desktop.apps")["apps"]
        assert os.getpgid(pid) == pid  # its own process group
    finally:
        kill_group(pid)


def test_launch_finds_the_window_of_a_child_the_program_started(desktop_daemon: Daemon) -> None:
    form = " ".join(gtk3_form())
    started = desktop_daemon.call("desktop.launch", argv=["sh", "-c", f"{form}; exit 0"])
    try:
        # The window's pid is the shell's child, in the process group the launch made.
        assert started["windows"] and started["windows"][0]["pid"] != started["pid"]
        assert os.getpgid(started["windows"][0]["pid"]) == started["pid"]
    finally:
        kill_group(started["pid"])


def test_launch_of_a_program_that_exits_or_is_missing(desktop_daemon: Daemon) -> None:
    d = desktop_daemon
    err = d.fail("desktop.launch", argv=["sh", "-c", "echo it broke >&2; exit 3"])
    assert err.code == "action_failed" and "code 3" in err.message
    assert "it broke" in err.message and err.data["exit_code"] == 3
    assert Path(err.data["log"]).read_text().strip() == "it broke"
    missing = d.fail("desktop.launch", argv=["steadyhand-no-such-program"])
    assert missing.code == "not_found" and "PATH" in (missing.hint or "")
    quick = d.call("desktop.launch", argv=["sh", "-c", "exit 0"], wait=False)
    assert quick["visible_ms"] is None and quick["windows"] == []


# ---------------------------------------------------------------- with a window manager


@pytest.fixture(scope="module")
def wm_desktop(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[DesktopSession, Daemon]]:
    """A second private desktop with openbox running, and a daemon in it."""
    reason = skip_reason()
    if reason is None and shutil.which("openbox") is None:
        reason = "openbox is not installed (apt-get install openbox)"
    if reason is not None:
        pytest.skip(reason)
    with DesktopSession(window_manager="openbox") as session:
        state = tmp_path_factory.mktemp("wm-state")
        with running_daemon(make_settings(state), session.env) as daemon:
            assert daemon.call("desktop.windows")["wm"] == "Openbox"  # up before start() returns
            yield session, daemon


def test_with_openbox_actions_go_through_the_window_manager(
    wm_desktop: tuple[DesktopSession, Daemon],
) -> None:
    session, d = wm_desktop
    # A new desktop's selection holds nothing yet: an answer, not an error.
    nothing = {"selection": "primary", "text": "", "has_text": False}
    assert d.call("desktop.clipboard.get", selection="primary") == nothing
    with launched(session, gtk3_form()) as gtk, launched(session, qt6_form()) as qt:
        gtk_window, qt_window = window_of(d, gtk.pid), window_of(d, qt.pid)
        assert gtk_window["frame"] is not None  # openbox decorates it
        moved = d.call("desktop.window.move", id=gtk_window["id"], x=300, y=200)
        assert moved["verified"] and moved["transport"] == "ewmh"
        assert (moved["window"]["x"], moved["window"]["y"]) == (300, 200)
        resized = d.call("desktop.window.resize", id=gtk_window["id"], width=500, height=400)
        assert resized["verified"] and resized["window"]["width"] == 500
        for target in (qt_window["id"], gtk_window["id"]):
            focused = d.call("desktop.window.focus", id=target)
            assert focused["verified"] and focused["transport"] == "ewmh"
        closed = d.call("desktop.window.close", id=qt_window["id"])
        assert closed["verified"] and closed["transport"] == "wm_delete_window"
        assert qt.wait(10) == 0
    with launched(session, [DEBIAN_PYTHON, str(APPS / "bare_window.py")]) as bare:
        wid = window_of(d, bare.pid)["id"]
        closed = d.call("desktop.window.close", id=wid)
        assert closed["verified"] and closed["transport"] == "ewmh"  # openbox kills its client
        assert bare.wait(10) != 0


def test_the_session_cli_starts_a_window_manager() -> None:
    if shutil.which("openbox") is None or skip_reason() is not None:
        pytest.skip("needs openbox and the desktop programs")
    script = "xprop -root _NET_SUPPORTING_WM_CHECK"
    done = run_cli(
        "desktop", "session", "--wm", "openbox", "--", "sh", "-c", script, env=dict(os.environ)
    )
    assert done.rc == 0 and "window id #" in done.out, done
    missing = run_cli(
        "desktop", "session", "--wm", "no-such-wm", "--", "true", env=dict(os.environ)
    )
    assert missing.rc != 0 and "no-such-wm" in missing.err
