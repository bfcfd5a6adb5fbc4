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


def test_take_over_the_desktop_type_into_the_gtk_entry_and_hand_back(
    person: Page, desktop_daemon: Daemon, server: HttpServer
) -> None:
    d = desktop_daemon
    launched = d.call("desktop.launch", argv=gtk3_form("--at", "0,0"))
    pid = launched["pid"]
    try:
        name = ref_of(snap(d, pid), "text", "Name")
        boxes = d.call("desktop.see", annotate=True, app=str(pid))["boxes"]
        box = next(b for b in boxes if b["ref"] == name)
        width = d.call("desktop.transports")["transports"][-1]["detail"]["screen"]
        screen_width = int(str(width).split("x")[0])
        watch(person, "desktop")
        with server.client() as api:  # the agent's input is refused while nobody drives
            events = [{"type": "click", "x": 5, "y": 5}]
            refused = api.post("/live/api/input", json={"desktop": True, "events": events})
            assert refused.status_code == 403, refused.text

        person.get_by_role("button", name="Take over").click()
        expect(person.get_by_role("button", name="Hand back")).to_be_visible()
        person.reload()  # a reload shows the desktop still held
        person.wait_for_selector("body[data-ready]")
        watch(person, "desktop")
        expect(person.get_by_role("button", name="Hand back")).to_be_visible()
        paused = d.fail("desktop.type", ref=name, text="agent text")
        assert paused.code == "session_paused" and "drives the desktop" in paused.message
        assert "Name" in snap(d, pid), "reads still answer"

        # The person clicks the Name entry on the live screen and types.
        shown = person.locator("#screen").bounding_box()
        assert shown is not None
        scale = shown["width"] / screen_width
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        person.mouse.click(shown["x"] + x * scale, shown["y"] + y * scale)
        person.keyboard.type("Grace")
        person.keyboard.press("Backspace")
        assert wait_until(lambda: f"[ref={name}]: Grac\n" in snap(d, pid) + "\n", 10)

        person.get_by_role("button", name="Hand back").click()
        expect(person.get_by_role("button", name="Take over")).to_be_visible()
        expect(person.locator("#status")).to_contain_text("1 clicks, 6 keys")
        again = d.call("desktop.type", ref=name, text="Ada")  # the agent acts again
        assert again["effect"] == "confirmed" and again["value"] == "Ada"
        timeline = person.locator("#timeline")
        expect(timeline.locator("li", has_text="desktop.handback")).to_have_count(1)
        expect(timeline.locator("li", has_text="desktop.takeover")).to_have_count(1)
    finally:
        kill_group(pid)
