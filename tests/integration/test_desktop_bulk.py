"""A desktop snapshot read in bulk (pipelined D-Bus calls, desktop/bulk.py) shows exactly
what the object-by-object walk shows, on the real GTK 3 and Qt 6 forms, and its refs act."""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from steadyhand.desktop.session import DesktopSession
from tests.conftest import Daemon
from tests.desktop_env import gtk3_form, launched, qt6_form, wait_on_bus
from tests.integration.test_desktop import ref_of

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("toolkit", "how"),
    [("gtk3", "bulk p2p"), ("qt6", "bulk")],  # GTK's atk-bridge offers its own socket, Qt not
)
def test_a_bulk_read_shows_what_the_walk_shows(
    desktop: DesktopSession, desktop_daemon: Daemon, toolkit: str, how: str
) -> None:
    d = desktop_daemon
    argv = (gtk3_form if toolkit == "gtk3" else qt6_form)("--nodes", "40")
    with launched(desktop, argv) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        pid = str(app.pid)
        for everything in (False, True):
            walked = d.call("desktop.snapshot", app=pid, all=everything, fresh=True, walk=True)
            bulk = d.call("desktop.snapshot", app=pid, all=everything, fresh=True)
            assert walked["read"] == {pid: "walk"}
            assert bulk["read"] == {pid: how}
            assert bulk["cached"] == []
            assert bulk["snapshot"] == walked["snapshot"]
        page = bulk["snapshot"]
        assert "Item 40" in page and re.search(r"combo box [^\n]*: Small", page)

        # A ref from a bulk read acts: its object is found when the action needs it.
        name = ref_of(page, "text", "Name")
        typed = d.call("desktop.type", ref=name, text="Bulk")
        assert typed["verified"] and typed["value"] == "Bulk" and typed["transport"] == "atspi"
        after = d.call("desktop.snapshot", app=pid)
        assert after["read"] == {pid: how}  # the action spoiled the cache: read again
        assert re.search(rf'text "Name" [^\n]*\[ref={name}\]: Bulk', after["snapshot"])
        again = d.call("desktop.snapshot", app=pid)
        assert again["read"] == {pid: "cache"} and again["cached"] == [app.pid]


def test_a_hung_application_does_not_stop_another_ones_snapshot(
    desktop: DesktopSession, desktop_daemon: Daemon
) -> None:
    d = desktop_daemon
    with launched(desktop, gtk3_form()) as hung, launched(desktop, qt6_form()) as qt:
        wait_on_bus(desktop, hung.pid, "push button", "Greet")
        wait_on_bus(desktop, qt.pid, "push button", "Greet")
        # The daemon looks at a new application's windows for LOOKS_S (3.2 s): a hung one
        # would hold its AT-SPI thread meanwhile, which is not what is tested here.
        time.sleep(3.5)
        os.kill(hung.pid, signal.SIGSTOP)
        try:
            # Within a deadline that waiting out the hung one's name (or walking) would miss.
            shown = d.call("desktop.snapshot", app=str(qt.pid), fresh=True, timeout=4000)
            assert shown["read"] == {str(qt.pid): "bulk"} and "Greet" in shown["snapshot"]
            named = {a["pid"]: a["name"] for a in d.call("desktop.apps")["apps"]}
            assert named[qt.pid] == "qt6_form"
        finally:
            os.kill(hung.pid, signal.SIGCONT)
