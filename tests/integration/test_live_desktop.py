"""The live view of the desktop: the X screen as frames, and the desktop's actions and bus
events in the timeline, in a private X desktop (Xvfb, a11y bus)."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import Daemon, wait_until
from tests.desktop_env import gtk3_form
from tests.http_server import HttpServer
from tests.integration.test_desktop import ref_of, snap
from tests.integration.test_desktop_windows import kill_group
from tests.live_page import browser, frames, person, serving, wait_for_frames, watch

pytestmark = pytest.mark.integration
__all__ = ["browser", "person"]  # fixtures of tests/live_page.py


@pytest.fixture(scope="module")
def server(desktop_daemon: Daemon) -> Iterator[HttpServer]:
    with serving(desktop_daemon) as handle:
        yield handle


def shown_png(page: Page) -> bytes:
    src = page.eval_on_selector("#screen", "img => img.src")
    assert src.startswith("data:image/png;base64,"), src[:40]
    return base64.b64decode(src.split(",", 1)[1])


def test_the_desktop_screen_and_its_events_are_shown(person: Page, desktop_daemon: Daemon) -> None:
    d = desktop_daemon
    watch(person, "desktop")
    before = shown_png(person)
    assert before[:8] == b"\x89PNG\r\n\x1a\n"
    assert d.call("daemon.status")["screens_watched"] == ["desktop"]
    count = frames(person)

    launched = d.call("desktop.launch", argv=gtk3_form("--at", "0,0"))
    pid = launched["pid"]
    try:
        wait_for_frames(person, count + 1)  # its window appeared on the screen
        assert shown_png(person) != before
        name = ref_of(snap(d, pid), "text", "Name")
        d.call("desktop.type", ref=name, text="Ada")
        timeline = person.locator("#timeline")
        expect(timeline.locator("li", has_text="desktop.type")).to_have_count(1)
        expect(timeline.locator("li.event", has_text="text.changed").first).to_be_visible()
    finally:
        kill_group(pid)
    person.goto("about:blank")  # nobody watches: the X screen is no longer read
    assert wait_until(lambda: d.call("daemon.status")["screens_watched"] == [])
