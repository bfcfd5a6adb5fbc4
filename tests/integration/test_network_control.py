"""Network control against a real page and a real JSON API, both served here on 127.0.0.1:
`route` answers the page's fetch itself (a mock, a status, a file) or fails it, `unroute`
gives the API back, `offline` takes the browser off the network; `network` marks what a
route answered; new tabs, a suspend and a crash keep all of it; the navigation policy
and the approval gate still win over a mock; bad input is refused and the session goes on.
"""

from __future__ import annotations

import http.server
import json
import os
import signal
import sqlite3
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from steadyhand.engine.chromium import owned_processes
from tests.conftest import Daemon, wait_until
from tests.integration.test_approvals import in_background, pending_for, start

pytestmark = pytest.mark.integration

APP = """<!doctype html><title>App</title><p id="user">loading</p>
<script>
const api = new URLSearchParams(location.search).get("api") || "/api/user";
async function load(method = "GET") {
  let shown;
  try {
    const init = method === "GET" ? {} :
      {method, body: "{}", headers: {"content-type": "application/json"}};
    const answer = await fetch(api, init);
    const type = answer.headers.get("content-type");
    shown = `${answer.status} ${type}: ${(await answer.json()).name}`;
  } catch (e) {
    shown = "fetch failed";
  }
  document.getElementById("user").textContent = shown;
  return `${shown} online=${navigator.onLine}`;
}
load();
</script>"""


class Api(http.server.BaseHTTPRequestHandler):
    """The app page, and its API: /api/user answers the real user."""

    served: ClassVar[list[str]] = []  # the API requests that reached this server

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/api/"):
            Api.served.append(path)
            body, kind = json.dumps({"name": "Ada (real)"}).encode(), "application/json"
        else:
            body, kind = APP.encode(), "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def app() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def load(d: Daemon, session: str, method: str = "GET", tab: str | None = None) -> str:
    """What the page's fetch of its API got now, and navigator.onLine."""
    where = {"tab": tab} if tab else {}
    value: str = d.call("evaluate", expression=f"load('{method}')", session=session, **where)[
        "value"
    ]
    return value


def fetches(d: Daemon, session: str, tab: str | None = None) -> list[dict[str, object]]:
    where = {"tab": tab} if tab else {}
    rows: list[dict[str, object]] = d.call("network", session=session, filter="/api/", **where)[
        "requests"
    ]
    return rows


def logged_errors(d: Daemon, session: str, command: str) -> list[str | None]:
    with sqlite3.connect(d.settings.store_path) as db:
        rows = db.execute(
            "SELECT error_code FROM action_log WHERE session = ? AND command = ? ORDER BY id",
            (session, command),
        ).fetchall()
    return [row[0] for row in rows]


REAL = "200 application/json: Ada (real) online=true"


def test_a_mock_replaces_the_answer_until_unrouted(daemon: Daemon, app: str) -> None:
    s = "mock"
    daemon.call("open", url=f"{app}/app", session=s)
    assert load(daemon, s) == REAL
    before = len(Api.served)

    added = daemon.call("route", pattern="**/api/user", fulfill='{"name": "Mock"}', session=s)
    assert added["routes"] == [
        {
            "pattern": "**/api/user",
            "block": False,
            "status": 200,
            "content_type": "application/json",
            "bytes": 16,
            "source": "JSON",
            "hits": 0,
        }
    ]
    assert added["text"].splitlines()[0] == "added route **/api/user"
    assert load(daemon, s) == "200 application/json: Mock online=true"

    daemon.call(
        "route", pattern="**/api/user", fulfill='{"name": "Down"}', status=503, session=s
    )  # the same pattern again: replaced
    assert load(daemon, s) == "503 application/json: Down online=true"
    assert len(Api.served) == before, "a mocked answer never reaches the server"
    listed = daemon.call("routes", session=s)
    assert [(r["pattern"], r["status"], r["hits"]) for r in listed["routes"]] == [
        ("**/api/user", 503, 1)
    ]

    rows = fetches(daemon, s)
    assert [(r["status"], r.get("route")) for r in rows] == [
        (200, None),
        (200, None),
        (200, "mocked"),
        (503, "mocked"),
    ]
    text = daemon.call("network", session=s, filter="/api/")["text"].splitlines()
    assert "-> 503 mocked" in text[-1] and "mocked" not in text[0]

    removed = daemon.call("unroute", pattern="**/api/user", session=s)
    assert removed["routes"] == [] and removed["text"] == (
        "removed route **/api/user\nno routes; online"
    )
    assert load(daemon, s) == REAL
    assert len(Api.served) == before + 1


def test_a_block_fails_the_fetch_and_unroute_all_lifts_it(daemon: Daemon, app: str) -> None:
    s = "block"
    daemon.call("open", url=f"{app}/app", session=s)
    # The page's own first fetch (on load) has been answered: it is not counted below.
    daemon.call("wait", session=s, text_gone="loading")
    before = len(Api.served)
    daemon.call("route", pattern="**/api/*", block=True, session=s)
    daemon.call("route", pattern="**/nothing-here", block=True, session=s)
    assert load(daemon, s) == "fetch failed online=true"
    assert len(Api.served) == before
    (last,) = fetches(daemon, s)[-1:]
    assert last["route"] == "blocked" and last["status"] is None and last["failure"]
    assert "-> blocked by route" in daemon.call("network", session=s, failed=True)["text"]

    gone = daemon.call("unroute", session=s)  # no pattern: every route
    assert gone["text"] == "removed 2 routes\nno routes; online"
    assert load(daemon, s) == REAL


def test_a_body_from_a_file_inside_the_roots(daemon: Daemon, app: str) -> None:
    s = "file"
    daemon.call("open", url=f"{app}/app", session=s)
    folder = daemon.settings.artifacts_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "user.json").write_text('{"name": "From a file"}')
    added = daemon.call(
        "route", pattern="**/api/user", fulfill=str(folder / "user.json"), session=s
    )
    assert added["routes"][0]["source"] == str(folder / "user.json")
    assert load(daemon, s) == "200 application/json: From a file online=true"

    (folder / "user.txt").write_text('{"name": "Typed"}')
    daemon.call(
        "route",
        pattern="**/api/user",
        fulfill=str(folder / "user.txt"),
        content_type="application/json",
        status=201,
        session=s,
    )
    assert load(daemon, s) == "201 application/json: Typed online=true"

    # A file outside every file root is refused as upload refuses it.
    error = daemon.fail("route", pattern="**/api/user", fulfill="/etc/hostname", session=s)
    assert error.code == "policy_denied", error.message


def test_offline_fails_every_fetch_and_online_restores(daemon: Daemon, app: str) -> None:
    s = "offline"
    daemon.call("open", url=f"{app}/app", session=s)
    went = daemon.call("offline", state="on", session=s)
    assert went["offline"] is True and went["text"].startswith("offline on")
    assert load(daemon, s) == "fetch failed online=false"
    assert "INTERNET_DISCONNECTED" in str(fetches(daemon, s)[-1]["failure"])
    # A mock still answers offline (no network is needed for it).
    daemon.call("route", pattern="**/api/user", fulfill='{"name": "Cached"}', session=s)
    assert load(daemon, s) == "200 application/json: Cached online=false"
    daemon.call("unroute", session=s)

    back = daemon.call("offline", state="off", session=s)
    assert back["offline"] is False
    assert load(daemon, s) == REAL


def test_a_new_tab_meets_the_sessions_routes(daemon: Daemon, app: str) -> None:
    s = "tabs"
    daemon.call("route", pattern="**/api/user", fulfill='{"name": "Early"}', session=s)
    # The route came first and started the session: the first page load meets it.
    daemon.call("open", url=f"{app}/app", session=s)
    assert load(daemon, s) == "200 application/json: Early online=true"
    daemon.call("tab.new", url=f"{app}/app", session=s)
    daemon.call("wait", text="Early", session=s)
    assert fetches(daemon, s, tab="t2")[0]["route"] == "mocked"


def test_a_suspended_session_comes_back_with_its_routes_and_offline(
    daemon: Daemon, app: str
) -> None:
    s = "suspend"
    daemon.call("open", url=f"{app}/app", session=s)
    daemon.call("route", pattern="**/api/user", fulfill='{"name": "Kept"}', status=202, session=s)
    daemon.call("route", pattern="**/ads/**", block=True, session=s)
    daemon.call("offline", state="on", session=s)
    daemon.call("session.suspend", name=s)
    daemon.call("session.restore", name=s)
    daemon.call("wait", text="Kept", session=s)
    listed = daemon.call("routes", session=s)
    assert [(r["pattern"], r["block"]) for r in listed["routes"]] == [
        ("**/ads/**", True),
        ("**/api/user", False),
    ]
    assert listed["offline"] is True
    # The tab loaded again (online), met the mock, and is offline now.
    assert daemon.call("evaluate", expression="user.textContent", session=s)["value"] == (
        "202 application/json: Kept"
    )
    assert load(daemon, s) == "202 application/json: Kept online=false"


def test_a_crashed_session_recovers_its_routes(fresh_daemon: Daemon, app: str) -> None:
    """No navigation after `route`: the route's own checkpoint is what brings it back."""
    d, s = fresh_daemon, "crash"
    d.cli("daemon", "start")
    d.call("open", url=f"{app}/app", session=s)
    d.call("route", pattern="**/api/user", fulfill='{"name": "Survivor"}', session=s)
    renderers = [
        pid
        for pid in owned_processes(d.settings.state_dir)
        if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    assert renderers
    for pid in renderers:
        os.kill(pid, signal.SIGKILL)

    def recovered() -> bool:
        (me,) = [x for x in d.call("sessions")["sessions"] if x["name"] == s]
        return bool(me["health"] and me["health"]["recoveries"] == 1 and me["status"] == "active")

    assert wait_until(recovered, 30)
    assert [r["pattern"] for r in d.call("routes", session=s)["routes"]] == ["**/api/user"]
    assert load(d, s) == "200 application/json: Survivor online=true"


def test_the_navigation_policy_wins_over_a_mock(daemon: Daemon, app: str) -> None:
    """A session that blocks localhost gets no mocked answer from it; one that does not
    gets it from the other origin (CORS answered, a preflighted POST too)."""
    other = app.replace("127.0.0.1", "localhost")
    page = f"{app}/app?api={urllib.parse.quote(other + '/api/user', safe='')}"
    mock = {"pattern": "**/api/user", "fulfill": '{"name": "Mock"}'}

    daemon.call("open", url=page, session="strict", block_hosts="localhost")
    daemon.call("route", session="strict", **mock)
    assert load(daemon, "strict") == "fetch failed online=true"
    refused = daemon.call("policy", session="strict")["blocked"]
    assert {"host": "localhost", "rule": "blocked_hosts", "subject": "localhost"} in refused
    assert fetches(daemon, "strict")[-1].get("route") is None  # the policy answered, no route

    daemon.call("open", url=page, session="loose")
    daemon.call("route", session="loose", **mock)
    assert load(daemon, "loose") == "200 application/json: Mock online=true"
    assert load(daemon, "loose", "POST") == "200 application/json: Mock online=true"


BAD_ROUTES: list[tuple[dict[str, object], str]] = [
    ({"pattern": "**/api/user"}, "needs --block or --fulfill"),
    ({"pattern": "**/api/user", "block": True, "fulfill": "{}"}, "not both"),
    ({"pattern": "**/api/user", "fulfill": '{"name": '}, "not valid JSON"),
    ({"pattern": "**/api/user", "fulfill": "no-such-file.json"}, "neither JSON nor a file"),
    ({"pattern": "**/api/user", "fulfill": "{}", "status": 99}, "status"),
    ({"pattern": "**/api/user", "fulfill": "{}", "status": 700}, "status"),
    ({"pattern": "**/api/user", "block": True, "status": 404}, "shape a --fulfill"),
    ({"pattern": "/api/user", "block": True}, "matches none"),
    ({"pattern": "**/{a,{b}}", "block": True}, "nested"),
    ({"pattern": "**/{a", "block": True}, "unclosed"),
    ({"pattern": " ", "block": True}, "needs a URL pattern"),
]


@pytest.mark.parametrize("case", range(len(BAD_ROUTES)))
def test_bad_input_is_refused_and_the_session_goes_on(daemon: Daemon, app: str, case: int) -> None:
    params, said = BAD_ROUTES[case]
    s = f"bad-{case}"
    daemon.call("open", url=f"{app}/app", session=s)
    error = daemon.fail("route", session=s, **params)
    assert error.code == "bad_request", (error.code, error.message)
    assert said in error.message, error.message
    assert error.hint
    assert daemon.call("routes", session=s)["routes"] == []
    assert load(daemon, s) == REAL
    assert logged_errors(daemon, s, "route") == ["bad_request"]


def test_unroute_of_an_unknown_pattern_and_a_bad_offline(daemon: Daemon, app: str) -> None:
    s = "bad-unroute"
    daemon.call("open", url=f"{app}/app", session=s)
    daemon.call("route", pattern="**/api/user", block=True, session=s)
    error = daemon.fail("unroute", pattern="**/api/users", session=s)
    assert error.code == "bad_request" and "**/api/user" in (error.hint or "")
    error = daemon.fail("offline", state="maybe", session=s)
    assert error.code == "bad_request"
    assert [r["pattern"] for r in daemon.call("routes", session=s)["routes"]] == ["**/api/user"]
    assert daemon.fail("routes", session="never-opened").code == "unknown_session"


def test_a_mock_of_an_approval_domain_waits_for_a_person(
    tmp_path_factory: pytest.TempPathFactory, app: str
) -> None:
    """A mocked answer from an approval_domains host is held as a connection there would be:
    denied, the fetch fails; approved, the mock answers (and is not asked for again)."""
    d = start(tmp_path_factory, approval_domains="localhost", approval_timeout_s=60)
    try:
        s = "gated"
        other = app.replace("127.0.0.1", "localhost")
        d.call("route", pattern="**/api/user", fulfill='{"name": "Mock"}', session=s)
        d.call(
            "open",
            url=f"{app}/app?api={urllib.parse.quote(other + '/api/user', safe='')}",
            session=s,
        )
        pending = pending_for(d, s, "navigation")
        assert pending["target"] == "localhost"
        assert d.cli("deny", pending["id"]).rc == 0
        d.call("wait", text="fetch failed", session=s)
        blocked = d.call("policy", session=s)["blocked"]
        assert [b["rule"] for b in blocked] == ["approval"]
        assert d.call("routes", session=s)["routes"][0]["hits"] == 0

        loading = in_background(d, "evaluate", expression="load()", session=s)
        pending = pending_for(d, s, "navigation")
        assert d.cli("approve", pending["id"]).rc == 0
        assert loading.result(timeout=60)["value"] == "200 application/json: Mock online=true"
        assert load(d, s) == "200 application/json: Mock online=true"
        assert d.call("routes", session=s)["routes"][0]["hits"] == 2
    finally:
        d.stop()
