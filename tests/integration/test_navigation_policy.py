"""A hostile site against the navigation policy: real Chromium, a real daemon, pages on
127.0.0.1 served here. Every way a page can lead the browser somewhere (a link, a
redirect, a script, a form, a popup, an iframe, a fetch) to a refused address is refused
with `policy_denied` naming the rule (or reported as `blocked` where the page itself
loaded), and the session, the daemon and the action log stay whole.

169.254.169.254 answers nothing on this machine: the tests tell a refusal from a failed
connection by the proxy's refusal page and the rule in the error.
"""

from __future__ import annotations

import http.server
import sqlite3
import threading
import urllib.parse
from collections.abc import Iterator

import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon

pytestmark = pytest.mark.integration

METADATA = "http://169.254.169.254/latest/meta-data/"


def pages(port: int) -> dict[str, str]:
    other = f"http://localhost:{port}"
    return {
        "/": f"""<title>Hostile</title>
<a href="{METADATA}">Free credits</a>
<a href="/redirect?to={urllib.parse.quote(METADATA)}">Via a redirect</a>
<a href="{METADATA}" target="_blank">In a new tab</a>
<button onclick="location.href='{METADATA}'">Script</button>
<form action="{METADATA}" method="post"><button>Post it</button></form>
<a href="file:///etc/passwd">Local file</a>""",
        "/framed": f"""<title>Framed</title><p>outer page</p>
<iframe title="inner" src="{METADATA}"></iframe>""",
        "/peek": f"""<title>Peek</title><p id="out">waiting</p>
<script>fetch("{other}/secret").then(r => r.text()).then(
  t => out.textContent = "read: " + t, () => out.textContent = "fetch refused")</script>""",
        "/cross": f"""<title>Cross</title><a href="{other}/secret">Other host</a>
<iframe title="other" src="{other}/secret"></iframe>""",
        "/secret": "<title>Secret</title><p>the secret page</p>",
    }


class Hostile(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = urllib.parse.urlsplit(self.path)
        if parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", urllib.parse.parse_qs(parts.query)["to"][0])
            self.end_headers()
            return
        address: tuple[str, int] = self.server.server_address  # type: ignore[assignment]
        port = address[1]
        body = pages(port).get(parts.path, "<title>none</title>")
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def ref(daemon: Daemon, session: str, role: str, name: str) -> str:
    return find_ref(daemon.snapshot(session, interactive=True), role, name)


def refused(daemon: Daemon, rule: str, method: str, **params: object) -> dict[str, object]:
    error = daemon.fail(method, **params)
    assert error.code == "policy_denied", (error.code, error.message)
    assert f"rule {rule}" in error.message, error.message
    return dict(error.data or {})


def logged_errors(daemon: Daemon, session: str, command: str) -> list[str | None]:
    """The error codes of the session's `command` rows in the action log, in order."""
    with sqlite3.connect(daemon.settings.store_path) as db:
        rows = db.execute(
            "SELECT error_code FROM action_log WHERE session = ? AND command = ? ORDER BY id",
            (session, command),
        ).fetchall()
    return [row[0] for row in rows]


def test_the_agent_cannot_open_files_or_metadata(daemon: Daemon, hostile: str) -> None:
    s = "nav-open"
    daemon.call("open", url=f"{hostile}/", session=s)
    refused(daemon, "file_urls", "open", url="file:///etc/passwd", session=s)
    refused(daemon, "metadata", "navigate", url=METADATA, session=s)
    refused(daemon, "metadata", "tab.new", url="http://metadata.google.internal/", session=s)
    refused(daemon, "link_local", "open", url="http://169.254.10.1:8080/", session=s)
    refused(daemon, "metadata", "open", url=f"{hostile}/redirect?to={METADATA}", session=s)
    # No tab was opened for a URL refused up front; the redirect's shows the refusal.
    tabs = daemon.call("tabs", session=s)["tabs"]
    assert [t["url"] for t in tabs] == [f"{hostile}/", METADATA]
    assert "blocked by steadyhand: rule metadata" in daemon.snapshot(s, tab=tabs[1]["id"])
    assert logged_errors(daemon, s, "open") == [None] + ["policy_denied"] * 3
    assert logged_errors(daemon, s, "navigate") == ["policy_denied"]


@pytest.mark.parametrize(
    ("role", "name"),
    [
        ("link", "Free credits"),
        ("link", "Via a redirect"),
        ("button", "Script"),
        ("button", "Post it"),
    ],
)
def test_a_page_cannot_lead_the_tab_there(
    daemon: Daemon, hostile: str, role: str, name: str
) -> None:
    s = f"nav-{name.split(maxsplit=1)[0].lower()}"
    daemon.call("open", url=f"{hostile}/", session=s)
    data = refused(daemon, "metadata", "click", ref=ref(daemon, s, role, name), session=s)
    assert data["tab"] == "t1"
    shown = daemon.snapshot(s)
    assert "blocked by steadyhand: rule metadata" in shown and "ami-id" not in shown
    daemon.call("back", session=s)  # the session goes on
    assert "Free credits" in daemon.snapshot(s)
    assert logged_errors(daemon, s, "click") == ["policy_denied"]
    assert logged_errors(daemon, s, "back") == [None]


def test_a_popup_to_a_refused_address_is_refused(daemon: Daemon, hostile: str) -> None:
    s = "nav-popup"
    daemon.call("open", url=f"{hostile}/", session=s)
    data = refused(
        daemon, "metadata", "click", ref=ref(daemon, s, "link", "In a new tab"), session=s
    )
    assert data["tab"] == "t2"
    assert "blocked by steadyhand" in daemon.snapshot(s, tab="t2")


def test_an_iframe_of_a_refused_address_is_blocked_and_said(daemon: Daemon, hostile: str) -> None:
    s = "nav-frame"
    opened = daemon.call("open", url=f"{hostile}/framed", session=s)
    assert opened["blocked"] == [
        {"host": "169.254.169.254", "rule": "metadata", "subject": "169.254.169.254"}
    ]
    shown = daemon.snapshot(s)
    assert "outer page" in shown and "blocked by steadyhand: rule metadata" in shown


def test_a_file_link_does_not_load(daemon: Daemon, hostile: str) -> None:
    s = "nav-file"
    daemon.call("open", url=f"{hostile}/", session=s)
    daemon.call("click", ref=ref(daemon, s, "link", "Local file"), session=s)
    assert daemon.call("tabs", session=s)["tabs"][0]["url"] == f"{hostile}/"  # Chromium's own


def test_a_session_blocking_a_host_blocks_every_way_there(daemon: Daemon, hostile: str) -> None:
    """`--block-hosts localhost`: the same server under another name is refused for
    links, iframes and a script's fetch (loopback goes through the checks too)."""
    s = "nav-hosts"
    opened = daemon.call("open", url=f"{hostile}/cross", session=s, block_hosts="localhost")
    assert {b["rule"] for b in opened["blocked"]} == {"blocked_hosts"}
    assert "the secret page" not in daemon.snapshot(s)
    refused(daemon, "blocked_hosts", "click", ref=ref(daemon, s, "link", "Other host"), session=s)
    daemon.call("back", session=s)
    daemon.call("navigate", url=f"{hostile}/peek", session=s)
    daemon.call("wait", text="fetch refused", session=s)
    policy = daemon.call("policy", session=s)
    assert policy["own_rules"] == {"block": "localhost"}
    assert "never localhost" in policy["rules"]
    refused(
        daemon, "blocked_hosts", "open", url=hostile.replace("127.0.0.1", "localhost"), session=s
    )


def test_a_session_blocking_private_addresses_loads_none(daemon: Daemon, hostile: str) -> None:
    s = "nav-private"
    refused(daemon, "private", "open", url=f"{hostile}/", session=s, block_private=True)
    daemon.call("open", url=f"{hostile}/", session="nav-loose")
    error = daemon.fail("open", url=f"{hostile}/", session="nav-loose", block_private=True)
    assert error.code == "bad_request" and "set when a session starts" in error.message


def test_the_daemon_and_the_log_stay_whole(daemon: Daemon, hostile: str) -> None:
    s = "nav-whole"
    daemon.call("open", url=f"{hostile}/", session=s)
    for _ in range(3):
        refused(daemon, "metadata", "navigate", url=METADATA, session=s)
    assert daemon.call("daemon.status")["pid"] == daemon.pid()
    assert "Free credits" in daemon.snapshot(s)
    assert logged_errors(daemon, s, "navigate") == ["policy_denied"] * 3
