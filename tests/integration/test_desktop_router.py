"""The desktop router against real apps: per action the first transport that can handle
the element acts (AT-SPI, then CDP, then X input), its effect is verified through the
tree, and the result names the transport and what the ones before it said.

The Chromium "app" (what an Electron app is to the desktop) shows a page served here.
With a remote-debugging port on loopback, its web entry (which has no AT-SPI
EditableText) is filled through CDP; without one, by real keys (X input).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest

from steadyhand.desktop.cdp_ports import probe
from steadyhand.desktop.session import DesktopSession
from steadyhand.engine.chromium import find_chromium
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, wait_until
from tests.desktop_env import gtk3_form, launched, wait_on_bus
from tests.integration.test_desktop import real_input, ref_of, snap

pytestmark = pytest.mark.integration


@pytest.fixture
def gtk_grid(desktop: DesktopSession) -> Iterator[int]:
    """The GTK form with 200 buttons in a scrolled grid."""
    with launched(desktop, gtk3_form("--nodes", "200")) as app:
        wait_on_bus(desktop, app.pid, "push button", "Item 200")
        yield app.pid


def test_scroll_drag_and_focus_on_gtk(desktop_daemon: Daemon, gtk_grid: int) -> None:
    d = desktop_daemon
    page = snap(d, gtk_grid)
    first = ref_of(page, "push button", "Item 1")
    assert 'push button "Item 200"' not in page  # below the pane's view
    scrolled = d.call("desktop.scroll", ref=first, dy=5)
    assert scrolled["verified"] and scrolled["transport"] == real_input(d), scrolled
    after = snap(d, gtk_grid)
    assert 'push button "Item 1"' not in after  # scrolled out of the pane's view
    assert re.search(r'push button "Item \d+" \[ref=d\d+\]', after), after
    # Item 1 is out of view now: the wheel turns over its pane instead.
    back = d.call("desktop.scroll", ref=first, dy=-5)
    assert back["verified"] and back["transport"] == real_input(d), back
    assert 'push button "Item 1"' in snap(d, gtk_grid)
    assert d.fail("desktop.scroll", ref=first, dy=0).code == "bad_request"

    pad = ref_of(page, "panel", "Click pad")
    dragged = d.call("desktop.drag", ref=pad, to="+60,+0")
    assert dragged["transport"] == real_input(d) and dragged["action"] == "drag"
    assert dragged["verified"] is False  # the tree cannot show a drag on a bare pad
    assert "atspi: skipped" in dragged["tried"][0]
    assert wait_until(lambda: 'label "dragged 60,0"' in snap(d, gtk_grid), 5)
    assert d.fail("desktop.drag", ref=pad, to="left").code == "bad_request"
    assert d.fail("desktop.drag", ref=pad, to="99999,5").code == "bad_request"  # off screen

    entry = ref_of(page, "text", "Name")
    focused = d.call("desktop.focus", ref=entry)
    assert focused["verified"] and "focused" in focused["states"], focused
    assert focused["transport"] == "atspi"  # grab_focus, read back as the focused state


@pytest.fixture(scope="module")
def chromium_path() -> str:
    try:
        return str(find_chromium(headless=False))  # a headed app window
    except Exception as exc:
        pytest.skip(f"no Chromium: {exc}")


def chromium_app(
    desktop: DesktopSession, chromium: str, url: str, profile: str, debug_port: bool
) -> subprocess.Popen[bytes]:
    argv = [
        chromium,
        f"--app={url}",
        f"--user-data-dir={profile}",
        "--force-renderer-accessibility",  # web content on the AT-SPI bus
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-gpu",
        "--test-type",  # no "unsupported flag" bar for --no-sandbox
        "--window-size=700,500",
    ]
    if os.geteuid() == 0:
        argv.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    if debug_port:
        argv.append("--remote-debugging-port=0")  # a free port, on 127.0.0.1
    return desktop.launch(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture(params=[True, False], ids=["cdp", "no-cdp"])
def web_app(
    request: pytest.FixtureRequest, desktop: DesktopSession, chromium_path: str, site: str
) -> Iterator[tuple[int, bool]]:
    debug_port: bool = request.param
    with tempfile.TemporaryDirectory() as profile:
        app = chromium_app(
            desktop, chromium_path, f"{site}/desktop_web_form.html", profile, debug_port
        )
        try:
            wait_on_bus(desktop, app.pid, "check box", "Agree")  # named once laid out
            yield app.pid, debug_port
        finally:
            os.killpg(app.pid, signal.SIGTERM)  # the browser and its renderers
            app.wait(10)


def test_chromium_app_routes_through_cdp_or_keys(
    desktop_daemon: Daemon, web_app: tuple[int, bool]
) -> None:
    d = desktop_daemon
    pid, debug_port = web_app
    page = snap(d, pid)
    entry = ref_of(page, "entry", "Email")
    typed = d.call("desktop.type", ref=entry, text="ada@example.com")
    assert typed["verified"] and typed["value"] == "ada@example.com", typed
    assert typed["tried"][0] == "atspi: skipped, it has no editable text"
    health = {t["name"]: t for t in d.call("desktop.transports")["transports"]}
    assert list(health) == ["atspi", "cdp", "xinput"] and all(t["ok"] for t in health.values())
    if debug_port:
        assert typed["transport"] == "cdp"
        endpoint = health["cdp"]["detail"]["endpoints"][str(pid)]
        assert endpoint.startswith("http://127.0.0.1:")
        assert health["cdp"]["detail"]["connected"] == [endpoint]
    else:
        assert typed["transport"] == "xinput"
        assert "no remote-debugging port" in typed["tried"][1]

    sent = d.call("desktop.click", ref=ref_of(page, "push button", "Send"))
    assert sent["transport"] == "atspi"
    assert wait_until(lambda: 'static "sent ada@example.com"' in snap(d, pid), 5)
    agreed = d.call("desktop.click", ref=ref_of(page, "check box", "Agree"))
    assert agreed["verified"] and "checked" in agreed["states"]
    plan = d.call("desktop.select", ref=ref_of(page, "combo box", "Plan"), value="Pro")
    assert plan["verified"] and plan["value"] == "Pro", plan
    assert re.search(r'combo box "Plan"[^\n]*: Pro', snap(d, pid))


@pytest.fixture
def debuggable_app(
    desktop: DesktopSession, chromium_path: str, site: str
) -> Iterator[subprocess.Popen[bytes]]:
    with tempfile.TemporaryDirectory() as profile:
        url = f"{site}/desktop_web_form.html"
        app = chromium_app(desktop, chromium_path, url, profile, debug_port=True)
        try:
            wait_on_bus(desktop, app.pid, "check box", "Agree")
            yield app
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(app.pid, signal.SIGTERM)
            app.wait(10)


def test_an_attached_app_is_a_browser_session_that_close_leaves_running(
    desktop_daemon: Daemon, debuggable_app: subprocess.Popen[bytes]
) -> None:
    d, pid = desktop_daemon, debuggable_app.pid
    attached = d.call("desktop.attach", app=str(pid), session="webform")
    assert attached["session"] == "webform" and attached["pid"] == pid
    assert attached["endpoint"].startswith("http://127.0.0.1:")
    assert [t["title"] for t in attached["tabs"]] == ["Web form"]

    # The browser commands reach the application's page, with e-refs.
    page = d.snapshot("webform")
    d.call("type", session="webform", ref=find_ref(page, "textbox", "Email"), text="lin@x.org")
    d.call("click", session="webform", ref=find_ref(page, "button", "Send"))
    assert "sent lin@x.org" in d.snapshot("webform")
    assert d.fail("desktop.attach", app=str(pid), session="webform").code == "bad_request"
    assert d.fail("session.suspend", name="webform").code == "bad_request"

    d.call("close", session="webform")  # detaches: the application runs on
    time.sleep(1)
    assert debuggable_app.poll() is None and probe(int(attached["endpoint"].split(":")[-1]))
    assert f"pid={pid}]" in d.call("desktop.snapshot", app=str(pid))["snapshot"]

    # Attached again by its endpoint; the application quitting loses the session, saying so.
    d.call("desktop.attach", app=attached["endpoint"], session="webform")
    os.killpg(pid, signal.SIGTERM)
    debuggable_app.wait(10)

    def status() -> str:
        rows = d.call("sessions")["sessions"]
        return next((r["status"] for r in rows if r["name"] == "webform"), "")

    assert wait_until(lambda: status() == "lost", 10), status()
    err = d.fail("snapshot", session="webform")
    assert err.code == "browser_crashed" and "quit" in err.message, err


def test_attach_refuses_apps_without_a_debugging_port_and_remote_endpoints(
    desktop_daemon: Daemon, gtk_grid: int
) -> None:
    d = desktop_daemon
    no_port = d.fail("desktop.attach", app=str(gtk_grid), session="gtk")
    assert no_port.code == "not_actionable" and "--remote-debugging-port" in (no_port.hint or "")
    remote = d.fail("desktop.attach", app="http://10.0.0.7:9222", session="remote")
    assert remote.code == "bad_request"
    assert d.fail("desktop.attach", app="http://127.0.0.1:x", session="bad").code == "bad_request"
    assert d.fail("desktop.attach", app="no-such-app", session="x").code == "not_found"
