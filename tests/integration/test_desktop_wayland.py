"""The desktop on Wayland: a headless sway (wlroots) instead of Xvfb, with the same
snapshot -> ref -> act. The GTK 3 form's suites (test_desktop's, the effects', the bulk
reads') run here again, on this module's `desktop` and `desktop_daemon`; what only X can do
is refused with a clear error."""

from __future__ import annotations

import os
import pwd
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from steadyhand.desktop.session import DesktopSession, missing_programs
from tests import desktop_env
from tests.conftest import Daemon, make_settings, run_cli, running_daemon, wait_until
from tests.desktop_env import gtk3_form, launched, wait_on_bus
from tests.integration.test_desktop import (
    gtk_app,
    ref_of,
    snap,
    test_a_hung_app_times_out_and_the_daemon_stays_healthy,
    test_gtk3_snapshot_and_verified_actions,
    test_qt6_form_snapshot_and_verified_actions,
    test_ref_of_a_gone_window_is_stale,
    test_see_annotate_boxes_the_refs_where_the_widgets_are,
    test_snapshot_reuses_a_walk_until_an_event_an_action_or_its_time,
    test_x_input_fallback_and_menu_path,
)
from tests.integration.test_desktop_bulk import test_a_bulk_read_shows_what_the_walk_shows
from tests.integration.test_desktop_effects import form, page_of, test_each_effect_kind
from tests.integration.test_desktop_router import gtk_grid, test_scroll_drag_and_focus_on_gtk

pytestmark = pytest.mark.integration
# Collected again here, on the Wayland desktop (the fixtures below).
__all__ = [
    "form",
    "gtk_app",
    "gtk_grid",
    "test_a_bulk_read_shows_what_the_walk_shows",
    "test_a_hung_app_times_out_and_the_daemon_stays_healthy",
    "test_each_effect_kind",
    "test_gtk3_snapshot_and_verified_actions",
    "test_qt6_form_snapshot_and_verified_actions",
    "test_ref_of_a_gone_window_is_stale",
    "test_scroll_drag_and_focus_on_gtk",
    "test_see_annotate_boxes_the_refs_where_the_widgets_are",
    "test_snapshot_reuses_a_walk_until_an_event_an_action_or_its_time",
    "test_x_input_fallback_and_menu_path",
]


@pytest.fixture(scope="module")
def desktop() -> Iterator[DesktopSession]:
    reason = desktop_env.skip_reason()
    missing = missing_programs(wayland=True)
    if reason is not None or missing:
        pytest.skip(reason or f"a Wayland session needs {', '.join(missing)} (ensure-desktop)")
    with DesktopSession(wayland=True) as session:
        yield session


@pytest.fixture(scope="module")
def desktop_daemon(
    desktop: DesktopSession, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Daemon]:
    settings = make_settings(tmp_path_factory.mktemp("wayland"))
    with running_daemon(settings, desktop.env) as handle:
        yield handle


def test_the_session_is_wayland(desktop: DesktopSession, desktop_daemon: Daemon) -> None:
    assert "DISPLAY" not in desktop.env and desktop.env["WAYLAND_DISPLAY"].startswith("/")
    assert desktop.env["GDK_BACKEND"] == "wayland" and desktop.env["QT_QPA_PLATFORM"] == "wayland"
    transports = desktop_daemon.call("desktop.transports")["transports"]
    assert [t["name"] for t in transports] == ["atspi", "cdp", "wlinput"]
    assert transports[2]["ok"] and transports[2]["detail"]["screen"] == "1280x800"


def test_real_input_lands_where_the_tree_says(
    desktop: DesktopSession, desktop_daemon: Daemon
) -> None:
    """AT-SPI boxes are relative to the window under Wayland: steadyhand moves them by
    the window's place in sway, so a real click at a box's centre hits the element."""
    d = desktop_daemon
    with launched(desktop, gtk3_form()) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        page = snap(d, app.pid)
        pad, name = ref_of(page, "panel", "Click pad"), ref_of(page, "text", "Name")
        clicked = d.call("desktop.click", ref=pad)  # no accessible action: the pointer
        assert clicked["transport"] == "wlinput" and clicked["effect"] == "confirmed"
        assert wait_until(lambda: 'label "clicks 1"' in snap(d, app.pid), 5)
        dragged = d.call("desktop.drag", ref=pad, to="+60,+0")
        assert dragged["transport"] == "wlinput"
        assert wait_until(lambda: bool(re.search(r'label "dragged 6\d,', snap(d, app.pid))), 5)
        d.call("desktop.type", ref=name, text="Ada")
        pressed = d.call("desktop.press", keys="End", ref=name)
        assert pressed["transport"] == "wlinput"
        d.call("desktop.press", keys="x")  # where the focus is: after the End
        assert wait_until(lambda: bool(re.search(r'"Name" [^\n]*: Adax\n', snap(d, app.pid))), 5)
        seen = d.call("desktop.see", annotate=True, app=str(app.pid))
        assert seen["bytes"] > 1000 and any(b["ref"] == pad for b in seen["boxes"])


def test_what_only_x_can_do_is_refused_clearly(desktop_daemon: Daemon) -> None:
    for method in ("desktop.windows", "desktop.clipboard.get"):
        err = desktop_daemon.fail(method)
        assert err.code == "not_actionable" and "Wayland" in err.message, err
    assert desktop_daemon.call("daemon.status")["pid"]


__all__ += ["page_of"]


def test_the_cli_starts_a_wayland_session_and_stops_sway() -> None:
    if missing_programs(wayland=True):
        pytest.skip("a Wayland session needs sway and grim (ensure-desktop)")
    script = (
        'echo "wayland=$WAYLAND_DISPLAY"; echo "display=${DISPLAY:-none}"; '
        'echo "gdk=$GDK_BACKEND"; grim -t ppm - | head -c 2; echo; exit 3'
    )
    done = run_cli(
        "desktop", "session", "--wayland", "--", "sh", "-c", script, env=dict(os.environ)
    )
    assert done.rc == 3, done.err
    lines = dict(line.split("=", 1) for line in done.out.splitlines() if "=" in line)
    assert lines["wayland"].startswith("/") and "steadyhand-sway-" in lines["wayland"]
    assert (lines["display"], lines["gdk"]) == ("none", "wayland")
    assert "P6" in done.out  # grim read the headless output
    assert not os.path.exists(lines["wayland"]), "sway's directory is gone with it"
    refused = run_cli(
        "desktop", "session", "--wayland", "--wm", "openbox", "--", "true", env=dict(os.environ)
    )
    assert refused.rc != 0 and "--wm is for X sessions" in refused.err


def test_sway_runs_as_an_id_of_its_own_with_none_of_our_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As root, sway (which refuses root) runs as a user id no account has, in a 0700
    directory of that id, and none of the caller's environment (a secret in it) reaches it:
    no other process can reach its sockets, its screen or its input."""
    if missing_programs(wayland=True) or os.geteuid() != 0:
        pytest.skip("a Wayland session as root (sway, grim; run as root)")
    monkeypatch.setenv("STEADYHAND_TEST_SECRET", "s3cret-for-sway")
    with DesktopSession(wayland=True) as session:
        sway = session._services["sway"]  # setpriv executes sway: the same process
        environ = Path(f"/proc/{sway.pid}/environ").read_bytes()
        assert b"s3cret-for-sway" not in environ and b"DBUS_SESSION_BUS_ADDRESS" not in environ
        uids = next(
            line
            for line in Path(f"/proc/{sway.pid}/status").read_text().splitlines()
            if line.startswith("Uid:")
        )
        uid = int(uids.split()[1])
        assert uid != 0
        with pytest.raises(KeyError):
            pwd.getpwuid(uid)
        socket_dir = Path(session.env["WAYLAND_DISPLAY"]).parent
        info = socket_dir.stat()
        assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (uid, 0o700)
    assert not socket_dir.exists()
