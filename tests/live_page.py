"""A person's browser on the live view (fronts/http/live_app.py), for the tests that drive it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from steadyhand.engine.chromium import find_chromium
from tests.conftest import Daemon
from tests.http_server import HttpServer, start_http

# Notifications the page shows, kept where a test can read them (window.__notes).
RECORD_NOTIFICATIONS = """
window.__notes = [];
window.Notification = class extends Notification {
  constructor(title, options) { super(title, options); window.__notes.push(title); }
};
"""


@contextlib.contextmanager
def serving(daemon: Daemon, env: dict[str, str] | None = None) -> Iterator[HttpServer]:
    """`serve --http` on `daemon` (its environment, plus `env`); it must stop cleanly."""
    handle = start_http(daemon.env | (env or {}))
    try:
        yield handle
    finally:
        assert handle.stop() == 0, handle.stderr()
    assert "Traceback" not in handle.stderr(), handle.stderr()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """The person's browser: a Chromium of the test's own, not the daemon's. The full
    browser, as a person runs (the headless shell has no desktop notifications)."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(find_chromium(headless=False)))
        yield launched
        launched.close()


@pytest.fixture
def person(browser: Browser, server: HttpServer) -> Iterator[Page]:
    """A person's tab, logged into the live view with the API token (`server`: the test
    module's `serve --http`)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.grant_permissions(["notifications"], origin=server.url)
    context.add_init_script(RECORD_NOTIFICATIONS)
    page = context.new_page()
    log_in(page, server, server.token)
    yield page
    context.close()


def log_in(page: Page, server: HttpServer, token: str) -> None:
    page.goto(server.url + "/")
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_selector("body[data-ready]")


def watch(page: Page, session: str) -> None:
    """Open a session (or `desktop`) on the page and wait for its first frame."""
    page.get_by_role("button", name=session, exact=True).click()
    expect(page.locator("#session-name")).to_have_text(session)
    wait_for_frames(page, 1)


def frames(page: Page) -> int:
    return int(page.eval_on_selector("#screen", "img => img.dataset.frames || '0'"))


def wait_for_frames(page: Page, at_least: int) -> None:
    page.wait_for_function(
        f"Number(document.getElementById('screen').dataset.frames) >= {at_least}", timeout=15_000
    )
