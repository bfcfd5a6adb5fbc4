"""Desktop automation against real GTK 3 and Qt 6 apps on a private Xvfb desktop, through a
daemon running inside that desktop session."""

from __future__ import annotations

import os
import re
import signal
import struct
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from steadyhand.desktop.session import DesktopSession
from tests.conftest import Daemon, make_settings, running_daemon, wait_until
from tests.desktop_env import gtk3_form, launched, qt6_form, wait_on_bus

pytestmark = pytest.mark.integration


def ref_of(snapshot: str, role: str, name: str) -> str:
    found = re.search(rf'- {re.escape(role)} "{re.escape(name)}"[^\n]*\[ref=(d\d+)\]', snapshot)
    assert found, f"no {role} {name!r} with a ref in:\n{snapshot}"
    return found.group(1)


def real_input(daemon: Daemon) -> str:
    """The desktop's real-input route: xinput on X11, wlinput on Wayland (the last one)."""
    name: str = daemon.call("desktop.transports")["transports"][-1]["name"]
    return name


def snap(daemon: Daemon, pid: int) -> str:
    text: str = daemon.call("desktop.snapshot", app=str(pid))["snapshot"]
    return text


@pytest.fixture
def gtk_app(desktop: DesktopSession) -> Iterator[int]:
    with launched(desktop, gtk3_form()) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        yield app.pid


def test_gtk3_snapshot_and_verified_actions(desktop_daemon: Daemon, gtk_app: int) -> None:
    d = desktop_daemon
    assert {"name": "gtk3_form.py", "pid": gtk_app} in d.call("desktop.apps")["apps"]
    page = snap(d, gtk_app)
    assert '- frame "GTK form"' in page
    greet, name = ref_of(page, "push button", "Greet"), ref_of(page, "text", "Name")
    subscribe, size = ref_of(page, "check box", "Subscribe"), ref_of(page, "combo box", "Size")
    assert re.search(r'combo box "Size" \[ref=d\d+\]: Small', page)
    assert "menu item" not in page  # a closed menu's items are not on screen

    typed = d.call("desktop.type", ref=name, text="Ada")
    assert typed["verified"] and typed["value"] == "Ada" and typed["transport"] == "atspi"
    assert d.call("desktop.click", ref=greet)["transport"] == "atspi"
    toggled = d.call("desktop.click", ref=subscribe)
    assert toggled["verified"] and "checked" in toggled["states"]
    chosen = d.call("desktop.select", ref=size, value="Large")
    assert chosen["verified"] and chosen["value"] == "Large" and chosen["transport"] == "atspi"

    again = snap(d, gtk_app)
    assert ref_of(again, "push button", "Greet") == greet  # refs stay with their objects
    assert re.search(r'check box "Subscribe" \[checked\] \[ref=d\d+\]', again)
    assert re.search(r'combo box "Size" \[ref=d\d+\]: Large', again)
    assert re.search(r'text "Name" [^\n]*: Ada', again)
    assert 'label "size Large"' in again  # the app's own status line saw the last one

    missing = d.fail("desktop.select", ref=size, value="Huge")
    assert missing.code == "not_found" and "'Medium'" in (missing.hint or "")
    assert d.fail("desktop.type", ref=greet, text="x").code == "not_actionable"
    assert d.fail("desktop.click", ref="d99999").code == "not_found"
    # Every desktop action is in the action log, typed text and all.
    log = d.call("trace", last=0)["actions"]
    typed_row = next(e for e in log if e["command"] == "desktop.type" and e["ok"])
    assert typed_row["params"] == {"ref": name, "text": "Ada"}


def test_x_input_fallback_and_menu_path(desktop_daemon: Daemon, gtk_app: int) -> None:
    d = desktop_daemon
    page = snap(d, gtk_app)
    pad = ref_of(page, "panel", "Click pad")
    done = d.call("desktop.click", ref=pad)
    assert done["transport"] == real_input(d) and done["action"] == "click"
    assert 'label "clicks 1"' in snap(d, gtk_app)
    saved = d.call("desktop.menu", path="File > Save", app=str(gtk_app))
    assert saved["transport"] == "atspi" and saved["name"] == "Save"
    assert 'label "saved"' in snap(d, gtk_app)
    wrong = d.fail("desktop.menu", path="File > Nope", app=str(gtk_app))
    assert wrong.code == "not_found" and "'File'" in (wrong.hint or "")


def test_ref_of_a_gone_window_is_stale(desktop: DesktopSession, desktop_daemon: Daemon) -> None:
    with launched(desktop, gtk3_form()) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        greet = ref_of(snap(desktop_daemon, app.pid), "push button", "Greet")
    err = desktop_daemon.fail("desktop.click", ref=greet)
    assert err.code == "stale_ref" and "snapshot" in (err.hint or "")
    assert desktop_daemon.fail("desktop.click", ref=greet).code == "stale_ref"  # for good


def test_a_hung_app_times_out_and_the_daemon_stays_healthy(
    desktop_daemon: Daemon, gtk_app: int, desktop: DesktopSession
) -> None:
    d = desktop_daemon
    greet = ref_of(snap(d, gtk_app), "push button", "Greet")
    os.kill(gtk_app, signal.SIGSTOP)
    try:
        for method, params in (
            # fresh: a walk of the app (its last one, from before it stopped, may be reused)
            ("desktop.snapshot", {"app": str(gtk_app), "fresh": True}),
            ("desktop.click", {"ref": greet}),
        ):
            started = time.monotonic()
            err = d.fail(method, timeout="2s", **params)
            assert err.code == "timeout" and "hung" in (err.hint or ""), err
            # It answers at its deadline, not at the client's far later one.
            assert time.monotonic() - started < 2 + 3
        assert d.call("daemon.status")["pid"] == d.pid()
    finally:
        os.kill(gtk_app, signal.SIGCONT)
    assert ref_of(snap(d, gtk_app), "push button", "Greet") == greet


def png_pixels(path: Path) -> tuple[int, int, bytes]:
    """Width, height and RGB rows of a PNG written by `desktop see` (8-bit RGB, filter 0)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    idat, at = b"", 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        if data[at + 4 : at + 8] == b"IDAT":
            idat += data[at + 8 : at + 8 + length]
        at += 12 + length
    raw = zlib.decompress(idat)
    rows = b"".join(raw[y * (width * 3 + 1) + 1 : (y + 1) * (width * 3 + 1)] for y in range(height))
    return width, height, rows


def test_see_annotate_boxes_the_refs_where_the_widgets_are(
    desktop_daemon: Daemon, gtk_app: int
) -> None:
    d = desktop_daemon
    page = snap(d, gtk_app)
    seen = d.call(
        "desktop.see", annotate=True, app=str(gtk_app), path=str(d.settings.artifacts_dir / "s.png")
    )
    boxes = {b["ref"]: b for b in seen["boxes"]}
    greet = boxes[ref_of(page, "push button", "Greet")]
    width, height, rows = png_pixels(Path(seen["path"]))
    assert (width, height) == (1280, 800)

    def pixel(x: int, y: int) -> bytes:
        at = (y * width + x) * 3
        return rows[at : at + 3]

    red = b"\xd0\x10\x30"
    mid_y = greet["y"] + greet["height"] // 2
    assert pixel(greet["x"], mid_y) == red  # its left edge is framed
    assert pixel(greet["x"] + greet["width"] - 1, mid_y) == red
    assert pixel(greet["x"] + greet["width"] // 2, mid_y) != red  # the button shows inside
    plain = d.call("desktop.see", path=str(d.settings.artifacts_dir / "plain.png"))
    assert plain["boxes"] == []
    _w, _h, clean = png_pixels(Path(plain["path"]))
    at = (mid_y * width + greet["x"]) * 3
    assert clean[at : at + 3] != red


def test_qt6_form_snapshot_and_verified_actions(
    desktop: DesktopSession, desktop_daemon: Daemon
) -> None:
    d = desktop_daemon
    with launched(desktop, qt6_form()) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        page = snap(d, app.pid)
        name, greet = ref_of(page, "text", "Name"), ref_of(page, "push button", "Greet")
        subscribe = ref_of(page, "check box", "Subscribe")
        size = ref_of(page, "combo box", "Small")  # Qt names a combo box by its choice
        assert d.call("desktop.type", ref=name, text="Grace")["value"] == "Grace"
        assert d.call("desktop.click", ref=greet)["transport"] == "atspi"
        toggled = d.call("desktop.click", ref=subscribe)
        assert toggled["verified"] and "checked" in toggled["states"]
        again = snap(d, app.pid)
        assert ref_of(again, "push button", "Greet") == greet
        assert re.search(r'check box "Subscribe" \[checked\]', again)
        chosen = d.call("desktop.select", ref=size, value="Large")
        # Qt's combo box ignores the accessible selection: a real click on it, then on
        # the option, and the result says so.
        assert chosen["verified"] and chosen["value"] == "Large"
        assert chosen["transport"] == real_input(d)
        again = snap(d, app.pid)
        # Qt renames the combo box after its choice; the ref stays with the object.
        assert re.search(rf'combo box "Large" [^\n]*\[ref={size}\]: Large', again)
        assert re.search(r'text "Name" [^\n]*: Grace', again)
        assert 'label "size Large"' in again  # the app's own status saw the last action


def test_a_daemon_without_a_desktop_says_how_to_get_one(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/steadyhand-test-bus"  # no autolaunch
    with running_daemon(make_settings(tmp_path_factory.mktemp("nodesk")), env) as d:
        for _ in range(2):  # and again: the failure is remembered, not retried into a hang
            err = d.fail("desktop.apps")
            assert err.code == "action_failed" and "desktop session" in (err.hint or "")
        assert d.call("daemon.status")["pid"] == d.pid()


def test_snapshot_reuses_a_walk_until_an_event_an_action_or_its_time(
    desktop_daemon: Daemon, gtk_app: int
) -> None:
    d = desktop_daemon
    assert d.settings.desktop_cache_ms == 2000

    def reused() -> bool:
        """A snapshot right after another reuses its walk. Retried by the caller: an event
        the app sends on its own between the two (late, under load) rightly spoils a pair."""
        first = d.call("desktop.snapshot", app=str(gtk_app))
        again = d.call("desktop.snapshot", app=str(gtk_app))
        return bool(again["cached"] == [gtk_app] and again["snapshot"] == first["snapshot"])

    assert wait_until(reused, 10)
    assert d.call("desktop.snapshot", app=str(gtk_app), fresh=True)["cached"] == []

    # A change from outside steadyhand: the app's AT-SPI event invalidates its walk.
    os.kill(gtk_app, signal.SIGUSR1)
    assert wait_until(lambda: 'label "signalled 1"' in snap(d, gtk_app), 5)
    assert wait_until(reused, 10)

    # A desktop action invalidates it too, even one the app sends no event for (a bare
    # Shift; its reaction to others may come after the reply).
    d.call("desktop.snapshot", app=str(gtk_app))
    d.call("desktop.press", keys="shift", allow_noop=True)
    assert d.call("desktop.snapshot", app=str(gtk_app))["cached"] == []

    # And its time: desktop_cache_ms bounds how old a reused walk can be.
    d.call("desktop.snapshot", app=str(gtk_app))
    time.sleep(2.1)
    assert d.call("desktop.snapshot", app=str(gtk_app))["cached"] == []


def test_a_window_on_top_hides_the_refs_under_it_and_snapshots_by_window(
    desktop: DesktopSession, desktop_daemon: Daemon, gtk_app: int
) -> None:
    """Without a window manager both forms sit at (0, 0): the one started last is on top."""
    d = desktop_daemon
    below = ref_of(snap(d, gtk_app), "push button", "Greet")
    with launched(desktop, gtk3_form()) as top:
        wait_on_bus(desktop, top.pid, "push button", "Greet")
        above = ref_of(snap(d, top.pid), "push button", "Greet")
        seen = d.call("desktop.see", annotate=True, path=str(d.settings.artifacts_dir / "both.png"))
        boxed = {b["ref"] for b in seen["boxes"]}
        assert above in boxed and below not in boxed  # covered: not boxed

        window = next(w for w in d.call("desktop.windows")["windows"] if w["pid"] == top.pid)
        only = d.call("desktop.snapshot", window=window["id"])["snapshot"]
        assert only.startswith('- frame "GTK form"')
        assert ref_of(only, "push button", "Greet") == above and f"ref={below}]" not in only
        missing = d.fail("desktop.snapshot", window="0x7fffff0")
        assert missing.code == "not_found" and str(gtk_app) in (missing.hint or "")
