"""The user's own Chrome through the steadyhand extension: Chromium started here with the
unpacked extension (extension/), paired with a daemon's relay; a tab attached through the
extension's own attach function (what its toolbar button calls) is driven by the CLI."""

from __future__ import annotations

import contextlib
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, Worker, sync_playwright
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from steadyhand.engine.chromium import find_chromium
from steadyhand.extension.link import LOAD_ARGS
from steadyhand.extension.pairing import TOKEN_FILE
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings, running_daemon, wait_until
from tests.integration.test_replies import Transcript

pytestmark = pytest.mark.integration

EXTENSION = Path(__file__).resolve().parents[2] / "extension"
SESSION = "chrome"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon whose relay listens on any free port (make_settings: tests run side by
    side)."""
    with running_daemon(make_settings(tmp_path_factory.mktemp("state"))) as handle:
        yield handle


@pytest.fixture(scope="module")
def paired(daemon: Daemon) -> dict[str, Any]:
    """What `steadyhand extension pair` prints, as JSON."""
    run = daemon.cli("extension", "pair", "--json")
    assert run.rc == 0, run.err
    result: dict[str, Any] = json.loads(run.out)["result"]
    return result


@pytest.fixture(scope="module")
def chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """The "user's" Chromium, with the extension loaded unpacked (the full browser's
    headless mode runs extensions and their service workers; the headless shell does not)."""
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("user-profile")),
            executable_path=str(find_chromium(headless=False)),
            headless=True,
            args=LOAD_ARGS,
            ignore_default_args=["--disable-extensions"],
        )
        yield context
        context.close()


def worker_of(context: BrowserContext) -> Worker:
    """The extension's service worker."""
    workers = [w for w in context.service_workers if w.url.endswith("/background.js")]
    return workers[0] if workers else context.wait_for_event("serviceworker")


def tab_id_of(worker: Worker, url: str) -> int:
    found = worker.evaluate(
        "async (url) => (await chrome.tabs.query({})).filter(t => t.url === url).map(t => t.id)",
        url,
    )
    assert len(found) == 1, found
    return int(found[0])


def badge(worker: Worker, tab_id: int) -> str:
    return str(worker.evaluate("(tabId) => chrome.action.getBadgeText({tabId})", tab_id))


def configure(worker: Worker, relay_url: str, token: str) -> None:
    """What the user types into the extension's options page."""
    worker.evaluate(
        "([relayUrl, token]) => chrome.storage.local.set({relayUrl, token})", [relay_url, token]
    )


def pair_in_options(chrome: BrowserContext, worker: Worker, relay_url: str, token: str) -> None:
    """Pair as the user does: the extension's options page, both fields, Save."""
    extension_id = worker.url.split("/")[2]
    options = open_page(chrome, f"chrome-extension://{extension_id}/options.html")
    options.fill("#relayUrl", relay_url)
    options.fill("#token", token)
    options.click("#save")
    options.get_by_role("status").get_by_text("Saved.").wait_for()
    options.close()
    stored = worker.evaluate("chrome.storage.local.get(['relayUrl', 'token'])")
    assert stored == {"relayUrl": relay_url, "token": token}


def open_page(chrome: BrowserContext, url: str) -> Page:
    page = chrome.new_page()
    page.goto(url)
    return page


def cli_json(daemon: Daemon, *args: str) -> dict[str, Any]:
    run = daemon.cli(*args, "--json")
    reply: dict[str, Any] = json.loads(run.out)
    return reply


def session_tabs(daemon: Daemon) -> list[str]:
    """The session's tabs, as `tabs` lists them."""
    return [t["url"] for t in cli_json(daemon, "--session", SESSION, "tabs")["result"]["tabs"]]


def test_pairing_token_is_private(daemon: Daemon, paired: dict[str, Any]) -> None:
    path = daemon.settings.state_dir / TOKEN_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    assert paired["token"] in path.read_text()
    assert paired["relay_url"].startswith("ws://127.0.0.1:")
    assert paired["session"] == SESSION
    assert Path(paired["extension_dir"]) == EXTENSION
    # The token reaches the caller, never the logs or the store.
    for other in daemon.settings.state_dir.rglob("*"):
        if other.is_file() and other != path:
            assert paired["token"].encode() not in other.read_bytes(), other


def test_attach_snapshot_click_detach(
    daemon: Daemon, paired: dict[str, Any], chrome: BrowserContext, site: str
) -> None:
    worker = worker_of(chrome)
    pair_in_options(chrome, worker, paired["relay_url"], paired["token"])
    url = f"{site}/extension.html"
    page = open_page(chrome, url)
    tab = tab_id_of(worker, url)

    # The toolbar button's function: resolves once the tab is in the daemon's session.
    worker.evaluate("(tabId) => steadyhand.toggle(tabId)", tab)
    assert badge(worker, tab) == "ON"
    status = cli_json(daemon, "extension", "status")["result"]
    assert status["connected"] and status["session"] == SESSION
    assert [t["tab"] for t in status["tabs"]] == [tab]

    snap = daemon.cli("--session", SESSION, "snapshot")
    assert snap.rc == 0, snap.err
    assert "Not greeted yet" in snap.out
    button = next(line for line in snap.out.splitlines() if 'button "Greet"' in line)
    ref = button.split("[ref=")[1].split("]")[0]
    click = daemon.cli("--session", SESSION, "click", ref)
    assert click.rc == 0, click.err
    # The user's own tab changed, and the session sees it.
    assert page.text_content("#said") == "Greeted 1 time(s)"
    assert "Greeted 1 time(s)" in daemon.cli("--session", SESSION, "snapshot").out
    shot = cli_json(daemon, "--session", SESSION, "screenshot")
    assert shot["ok"], shot
    assert Path(shot["result"]["path"]).read_bytes().startswith(b"\x89PNG")

    worker.evaluate("(tabId) => steadyhand.toggle(tabId)", tab)  # the button again: detach
    assert badge(worker, tab) == ""
    assert wait_until(lambda: session_tabs(daemon) == [])
    gone = cli_json(daemon, "--session", SESSION, "snapshot")
    assert gone["error"]["code"] == "unknown_tab", gone
    # The relay opens no tab of its own: the agent is told to have one attached.
    opened = cli_json(daemon, "--session", SESSION, "open", f"{site}/extension.html")
    assert "attach it with the steadyhand button" in opened["error"]["message"], opened
    assert cli_json(daemon, "extension", "status")["result"]["tabs"] == []
    assert not page.is_closed()  # the user's tab stays open in Chrome
    page.close()


def test_tabs_join_leave_and_close_with_the_session(
    daemon: Daemon, paired: dict[str, Any], chrome: BrowserContext, site: str
) -> None:
    """A second tab joins the session; the agent navigates one; the user closes the other
    (chrome.debugger's onDetach); closing the session lets the last one go (badge off)."""
    worker = worker_of(chrome)
    configure(worker, paired["relay_url"], paired["token"])
    first_url, second_url = f"{site}/extension.html?first", f"{site}/extension.html?second"
    first, second = open_page(chrome, first_url), open_page(chrome, second_url)
    first_tab, second_tab = tab_id_of(worker, first_url), tab_id_of(worker, second_url)
    worker.evaluate("(tabId) => steadyhand.attach(tabId)", first_tab)
    worker.evaluate("(tabId) => steadyhand.attach(tabId)", second_tab)
    assert sorted(session_tabs(daemon)) == [first_url, second_url]

    moved = daemon.cli("--session", SESSION, "navigate", f"{site}/extension.html?moved")
    assert moved.rc == 0, moved.err
    # (Page.url of this sync API moves only as its events are pumped: ask the page.)
    moved_first = first.evaluate("location.search") == "?moved"
    assert moved_first or second.evaluate("location.search") == "?moved"
    left = first if moved_first else second
    closed = second if left is first else first

    closed.close()  # by the user: Chrome detaches the debugger from it
    assert wait_until(lambda: session_tabs(daemon) == [left.url])
    status = cli_json(daemon, "extension", "status")["result"]
    assert [t["url"] for t in status["tabs"]] == [left.url]

    left_tab = first_tab if left is first else second_tab
    assert badge(worker, left_tab) == "ON"
    assert daemon.cli("--session", SESSION, "close").rc == 0
    assert wait_until(lambda: badge(worker, left_tab) == "")
    assert cli_json(daemon, "extension", "status")["result"]["tabs"] == []
    assert not left.is_closed()
    left.close()


def test_a_tab_opened_from_an_attached_tab_joins(
    daemon: Daemon, paired: dict[str, Any], chrome: BrowserContext, site: str
) -> None:
    """A link with target=_blank clicked by the agent: the tab it opens is attached too
    (badge ON) and is the session's new tab, the click's popup."""
    worker = worker_of(chrome)
    configure(worker, paired["relay_url"], paired["token"])
    url = f"{site}/extension.html?opener"
    open_page(chrome, url)
    tab = tab_id_of(worker, url)
    worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
    link = find_ref(daemon.snapshot(SESSION), "link", "Open another")
    clicked = cli_json(daemon, "--session", SESSION, "click", link)
    assert clicked["ok"], clicked
    opened = f"{site}/extension.html?opened"
    assert wait_until(lambda: sorted(session_tabs(daemon)) == sorted([url, opened]))
    popup = tab_id_of(worker, opened)
    assert wait_until(lambda: badge(worker, popup) == "ON")
    assert "Open another" in daemon.cli("--session", SESSION, "snapshot").out
    assert daemon.cli("extension", "detach").rc == 0  # all of them
    assert wait_until(lambda: badge(worker, popup) == "" and badge(worker, tab) == "")
    assert wait_until(lambda: session_tabs(daemon) == [])
    for left in chrome.pages:
        if left.url in (url, opened):
            left.close()


def test_frames_of_an_attached_tab(
    daemon: Daemon, paired: dict[str, Any], chrome: BrowserContext, site: str, cross_site: str
) -> None:
    """A same-origin and a cross-origin iframe (its own process: a child session the
    relay routes by Chromium's own session id) are read and acted on by ref."""
    worker = worker_of(chrome)
    configure(worker, paired["relay_url"], paired["token"])
    url = f"{site}/frames.html?cross={cross_site}/frame-inner.html?who=cross"
    page = open_page(chrome, url)
    page.frame_locator("#cross").locator("#go").wait_for()
    tab = tab_id_of(worker, url)
    worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
    snap = daemon.snapshot(SESSION)
    for nth, who in enumerate(("same", "cross")):
        typed = daemon.cli(
            "--session", SESSION, "type", find_ref(snap, "textbox", "Inner name", nth), who
        )
        assert typed.rc == 0, typed.err
        clicked = daemon.cli(
            "--session", SESSION, "click", find_ref(snap, "button", "Inner go", nth)
        )
        assert clicked.rc == 0, clicked.err
        assert f"inner {who}: {who}" in daemon.snapshot(SESSION)
    frame = page.frame_locator("#cross").locator("#status")
    assert frame.text_content() == "inner cross: cross"
    worker.evaluate("(tabId) => steadyhand.detach(tabId)", tab)
    page.close()


def test_wrong_token_is_refused(
    daemon: Daemon, paired: dict[str, Any], chrome: BrowserContext, site: str
) -> None:
    worker = worker_of(chrome)
    configure(worker, paired["relay_url"], "not-" + paired["token"])
    url = f"{site}/extension.html?wrong-token"
    page = open_page(chrome, url)
    tab = tab_id_of(worker, url)
    with pytest.raises(Exception, match="wrong pairing token"):
        worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
    assert badge(worker, tab) == ""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        nowhere = f"ws://127.0.0.1:{probe.getsockname()[1]}/extension"
    configure(worker, nowhere, paired["token"])
    with pytest.raises(Exception, match=re.escape(f"no relay at {nowhere}: is the daemon running")):
        worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
    assert worker.evaluate("steadyhand.attachedTabs()") == []
    assert cli_json(daemon, "extension", "status")["result"]["tabs"] == []
    page.close()


def test_the_token_never_travels_and_a_squatter_gets_nothing(
    paired: dict[str, Any], chrome: BrowserContext, site: str
) -> None:
    """A program holding the relay's port (the daemon down) hears a nonce, not the token,
    and cannot prove the token: the extension refuses it. A relay URL off this machine is
    refused before any connection."""
    import threading

    from websockets.sync.server import ServerConnection, serve

    heard: list[str] = []

    def squat(connection: ServerConnection) -> None:
        heard.append(str(connection.recv(timeout=5)))
        connection.send(json.dumps({"type": "challenge", "nonce": "00", "proof": "f" * 64}))
        with contextlib.suppress(Exception):
            heard.append(str(connection.recv(timeout=5)))

    with serve(squat, "127.0.0.1", 0) as squatter:
        threading.Thread(target=squatter.serve_forever, daemon=True).start()
        worker = worker_of(chrome)
        configure(
            worker, f"ws://127.0.0.1:{squatter.socket.getsockname()[1]}/extension", paired["token"]
        )
        url = f"{site}/extension.html?squatter"
        page = open_page(chrome, url)
        tab = tab_id_of(worker, url)
        with pytest.raises(Exception, match="wrong pairing token"):
            worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
        squatter.shutdown()
    assert heard and json.loads(heard[0])["type"] == "hello"
    assert all(paired["token"] not in message for message in heard)
    configure(worker, "ws://192.0.2.50:9224/extension", paired["token"])
    with pytest.raises(Exception, match="not ws:// on this machine"):
        worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
    assert badge(worker, tab) == ""
    page.close()


def test_relay_doors_are_closed_to_others(paired: dict[str, Any]) -> None:
    """Not from an extension: refused before any message; the CDP door wants the daemon's
    secret."""
    with pytest.raises(InvalidStatus) as no_origin:
        connect(paired["relay_url"], open_timeout=5).close()
    assert no_origin.value.response.status_code == 403
    cdp = paired["relay_url"].replace("/extension", "/cdp")
    with pytest.raises(InvalidStatus) as no_secret:
        connect(cdp, open_timeout=5, origin=Origin("chrome-extension://x")).close()
    assert no_secret.value.response.status_code == 401


def test_extension_replies(fresh_daemon: Daemon, chrome: BrowserContext, site: str) -> None:
    """The extension commands' human replies (tests/golden/extension.txt)."""
    t = Transcript(fresh_daemon, site, env=fresh_daemon.env | {"STEADYHAND_EXTENSION_PORT": "0"})
    t("extension", "status")
    pairing = t("extension", "pair").out
    token = pairing.split("token: ", 1)[1].split()[0]
    relay_url = pairing.split("relay_url: ", 1)[1].split()[0]
    t.name(token, "TOKEN")
    t.name(relay_url, "ws://127.0.0.1:PORT/extension")
    t.name(str(EXTENSION), "EXTENSION_DIR")
    worker = worker_of(chrome)
    configure(worker, relay_url, token)
    url = f"{site}/extension.html?replies"
    page = open_page(chrome, url)
    tab = tab_id_of(worker, url)
    t.name(str(tab), "TAB")
    worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
    t("extension", "status")
    t("tabs", "--session", SESSION)
    greet = find_ref(t("snapshot", "--session", SESSION).out, "button", "Greet")
    t("click", greet, "--session", SESSION)
    t("extension", "detach", "999999999", rc=3)
    t("extension", "detach", str(tab))
    assert wait_until(lambda: badge(worker, tab) == "")
    t("extension", "status")
    t.matches("extension")
    page.close()


def test_pairing_outlives_the_daemon(fresh_daemon: Daemon) -> None:
    """The relay starts again with the daemon, on the same token; --new makes another."""
    env = fresh_daemon.env | {"STEADYHAND_EXTENSION_PORT": "0"}

    def run(*args: str) -> dict[str, Any]:
        reply = json.loads(fresh_daemon.cli(*args, "--json", env=env).out)
        result: dict[str, Any] = reply["result"]
        return result

    assert run("extension", "status")["relay_url"] == ""  # not paired: no relay
    first = run("--session", "mine", "extension", "pair")
    assert first["session"] == "mine"
    fresh_daemon.stop()
    status = run("extension", "status")  # starts a new daemon
    assert status["paired"] and status["session"] == "mine"
    assert status["relay_url"].startswith("ws://127.0.0.1:")
    assert run("--session", "mine", "extension", "pair")["token"] == first["token"]
    assert run("--session", "mine", "extension", "pair", "--new")["token"] != first["token"]


def test_tabs_are_let_go_when_the_daemon_stops(
    fresh_daemon: Daemon, chrome: BrowserContext, site: str
) -> None:
    """The relay closing (the daemon stops) detaches every tab: badges off, Chrome's
    debugging bar gone, the pages left as they were."""
    env = fresh_daemon.env | {"STEADYHAND_EXTENSION_PORT": "0"}
    paired = json.loads(fresh_daemon.cli("extension", "pair", "--json", env=env).out)["result"]
    worker = worker_of(chrome)
    configure(worker, paired["relay_url"], paired["token"])
    url = f"{site}/extension.html?stopping"
    page = open_page(chrome, url)
    tab = tab_id_of(worker, url)
    worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
    assert badge(worker, tab) == "ON"
    fresh_daemon.stop()
    assert wait_until(lambda: badge(worker, tab) == "")
    assert worker.evaluate("steadyhand.attachedTabs()") == []
    assert page.text_content("#said") == "Not greeted yet"
    page.close()
    # The session ended with the daemon, closed rather than lost (nothing to restore).
    sessions = json.loads(fresh_daemon.cli("sessions", "--json", env=env).out)["result"]
    assert [(s["name"], s["status"]) for s in sessions["sessions"]] == [(SESSION, "closed")]


def test_a_killed_daemon_leaves_the_name_free_to_attach_again(
    fresh_daemon: Daemon, chrome: BrowserContext, site: str
) -> None:
    """SIGKILL leaves the attached session's row active; the next daemon lists it as
    suspended, but it has no checkpoint to restore: attaching takes the name again."""
    import os
    import signal

    env = fresh_daemon.env | {"STEADYHAND_EXTENSION_PORT": "0"}
    worker = worker_of(chrome)
    url = f"{site}/extension.html?killed"
    page = open_page(chrome, url)
    tab = tab_id_of(worker, url)
    for life in range(2):
        paired = json.loads(fresh_daemon.cli("extension", "pair", "--json", env=env).out)
        configure(worker, paired["result"]["relay_url"], paired["result"]["token"])
        worker.evaluate("(tabId) => steadyhand.attach(tabId)", tab)
        assert badge(worker, tab) == "ON", life
        pid = fresh_daemon.pid()
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert wait_until(lambda: badge(worker, tab) == "")
    page.close()
