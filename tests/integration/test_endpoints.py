"""Sessions on browsers steadyhand did not launch: a Chromium with a DevTools endpoint and
a `playwright run-server`, both started by the test on this machine; failover between them."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from steadyhand.engine.chromium import BASE_ARGS, descendants, find_chromium
from steadyhand.errors import ErrorCode
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings, running_daemon, wait_until
from tests.integration.test_navigation_policy import hostile, ref, refused

__all__ = ["hostile"]  # a fixture these tests use too

SITE_FILES = Path(__file__).parents[1] / "fixtures/site/files"
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("endpoints")]
OWN_DAEMON = "its sessions spread over the daemon's browsers by load"  # conftest.daemon


@dataclass
class Server:
    """A browser endpoint process the test owns."""

    process: subprocess.Popen[str]
    url: str

    def kill(self) -> None:
        """SIGKILL its whole process group: the browser dies as in a crash."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)


def _started(args: list[str], pattern: str) -> Server:
    process = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(pattern, line)
        if found:
            return Server(process, found.group(1))
    raise AssertionError(f"{args[0]} exited before listening (status {process.wait()})")


def cdp_chromium(profile: Path) -> Server:
    """Chromium with --remote-debugging-port, as a user or a container would start it."""
    args = [
        str(find_chromium()),
        *BASE_ARGS,
        "--headless",
        "--no-sandbox",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    server = _started(args, r"DevTools listening on ws://([\d.]+:\d+)/")
    return Server(server.process, "http://" + server.url)


def run_server(host: str = "127.0.0.1") -> Server:
    """`playwright run-server`: Playwright's own protocol, as browser grids speak it."""
    args = [sys.executable, "-m", "playwright", "run-server", "--host", host]
    # --unsafe: the client names the browser binary (Debian's Chromium; no Playwright
    # browser build is installed here). A grid launches its own.
    return _started([*args, "--port", "0", "--unsafe"], r"Listening on (ws://\S+)")


def launch_header() -> str:
    options = {"executablePath": str(find_chromium()), "args": ["--no-sandbox"]}
    return "x-playwright-launch-options=" + json.dumps(options, separators=(",", ":"))


@pytest.fixture
def endpoints(tmp_path: Path) -> Iterator[dict[str, Server]]:
    servers = {"box": cdp_chromium(tmp_path / "box-profile"), "grid": run_server()}
    yield servers
    for server in servers.values():
        server.kill()


def endpoint_setting(servers: dict[str, Server]) -> str:
    return f"box={servers['box'].url}; grid={servers['grid'].url} {launch_header()}"


@pytest.fixture
def remote_daemon(tmp_path: Path, endpoints: dict[str, Server]) -> Iterator[Daemon]:
    settings = make_settings(tmp_path / "state", browser_endpoints=endpoint_setting(endpoints))
    with running_daemon(settings) as handle:
        yield handle


def browsers(daemon: Daemon) -> dict[str, str]:
    return {s["name"]: s["browser"] or "local" for s in daemon.call("sessions")["sessions"]}


@pytest.mark.parametrize("where", ["local", "box", "grid"])
def test_a_session_on_an_endpoint_snapshots_acts_and_checkpoints(
    remote_daemon: Daemon, site: str, where: str
) -> None:
    d = remote_daemon
    opened = d.cli("open", f"{site}/nav-a.html", "--browser", where, "--session", where)
    assert opened.rc == 0, opened.err
    assert browsers(d)[where] == where  # local: the Chromium steadyhand launched, as a baseline
    lines = d.call("daemon.status")["endpoints"]
    assert any(
        line.startswith(f"{where} (") and line.endswith(": connected, 1 live") for line in lines
    ) or (where == "local"), lines
    snap = d.snapshot(where)
    d.call("click", session=where, ref=find_ref(snap, "button", "Count"))
    d.call("click", session=where, ref=find_ref(snap, "button", "Count"))
    assert "count 2" in d.snapshot(where)
    # Files come to this machine: a trace, a screenshot, a download.
    d.call("trace.start", session=where)
    d.call("click", session=where, ref=find_ref(snap, "button", "Count"))
    trace = Path(d.call("trace.stop", session=where)["path"])
    assert trace.stat().st_size > 1000 and trace.read_bytes()[:2] == b"PK"
    shot = Path(d.call("screenshot", session=where)["path"])
    assert shot.read_bytes()[:4] == b"\x89PNG"
    d.call("navigate", session=where, url=f"{site}/gauntlet/files.html")
    got = d.call(
        "download", session=where, ref=find_ref(d.snapshot(where), "link", "Download report")
    )
    (saved,) = got["downloads"]
    assert Path(saved["path"]).read_bytes() == (SITE_FILES / "report.csv").read_bytes()
    d.call("back", session=where)
    # The checkpoint cycle: suspend closes its context on the endpoint, restore reopens
    # it there from the stored state.
    d.call("session.suspend", session=where, name=where)
    assert d.statuses()[where] == "suspended"
    restored = d.call("session.restore", session=where, name=where)
    assert restored["restored"] == [f"t1 {site}/nav-a.html"], restored
    assert browsers(d)[where] == where
    assert "Page A" in d.snapshot(where)
    d.call("close", session=where)


def test_a_dead_endpoint_fails_its_session_over_to_another(
    remote_daemon: Daemon, endpoints: dict[str, Server], site: str
) -> None:
    d = remote_daemon
    assert d.cli("open", f"{site}/nav-a.html", "--browser", "box", "--session", "fo").rc == 0
    d.call("navigate", session="fo", url=f"{site}/nav-b.html")  # checkpointed: navigated
    endpoints["box"].kill()
    assert wait_until(lambda: browsers(d).get("fo") == "grid", 30), browsers(d)
    reply = d.cli("snapshot", "--session", "fo")
    assert reply.rc == 0, reply.err
    assert "Page B" in reply.out
    assert "now on browser grid (was box)" in reply.out
    assert d.call("sessions")["sessions"][0]["status"] == "active"


def test_open_cdp_takes_a_port_of_this_machine(
    remote_daemon: Daemon, endpoints: dict[str, Server], site: str
) -> None:
    port = endpoints["box"].url.rsplit(":", 1)[1]
    done = remote_daemon.cli("open", f"{site}/nav-a.html", "--cdp", port, "--session", "adhoc")
    assert done.rc == 0, done.err
    assert browsers(remote_daemon)["adhoc"] == f"http://127.0.0.1:{port}"
    # Suspended, its connection goes (its last session); restored, it goes back there.
    remote_daemon.call("session.suspend", session="adhoc", name="adhoc")
    lines = remote_daemon.call("daemon.status")["endpoints"]
    assert f"http://127.0.0.1:{port} (cdp): not connected, 0 live" in lines, lines
    assert remote_daemon.call("session.restore", session="adhoc", name="adhoc")["restored"]
    assert browsers(remote_daemon)["adhoc"] == f"http://127.0.0.1:{port}"
    remote_daemon.call("close", session="adhoc")


def test_bad_endpoints_are_clear_errors(remote_daemon: Daemon, site: str) -> None:
    d = remote_daemon
    unknown = d.fail("open", session="x1", url=f"{site}/nav-a.html", browser="nowhere")
    assert unknown.code == ErrorCode.BAD_REQUEST
    assert "box" in unknown.hint and "grid" in unknown.hint
    down = d.fail("open", session="x2", url=f"{site}/nav-a.html", cdp="127.0.0.1:9")
    assert down.code == ErrorCode.BROWSER_NOT_FOUND
    assert "run-server" in down.hint
    both = d.fail("open", session="x3", url=f"{site}/nav-a.html", cdp="9", browser="box")
    assert both.code == ErrorCode.BAD_REQUEST
    d.call("profile.create", name="mine")
    far = d.fail("open", session="x4", url=f"{site}/nav-a.html", browser="box", profile="mine")
    assert far.code == ErrorCode.BAD_REQUEST and "this machine's disk" in far.message
    assert "x2" not in d.statuses()
    assert d.call("sessions") is not None  # the daemon is fine


def test_auto_spreads_new_sessions_by_load(
    tmp_path: Path, endpoints: dict[str, Server], site: str
) -> None:
    settings = make_settings(
        tmp_path / "auto", browser_endpoints=endpoint_setting(endpoints), default_browser="auto"
    )
    with running_daemon(settings) as d:
        for name in ("s1", "s2", "s3"):
            assert d.cli("open", f"{site}/nav-a.html", "--session", name).rc == 0
        placed = browsers(d)
        assert sorted(placed.values()) == ["box", "grid", "local"]
        # A checkpoint of a local session names no endpoint: it comes back local, not "auto".
        (here,) = (name for name, where in placed.items() if where == "local")
        d.call("session.suspend", session=here, name=here)
        assert d.call("session.restore", session=here, name=here)["restored"]
        assert browsers(d)[here] == "local"


def outward_address() -> str | None:
    """This machine's address on its network (not loopback), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))  # no packet is sent: only a route is chosen
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") else address


def listening_ports(address: str) -> set[int]:
    """TCP ports listening on an IPv4 address of this machine (from /proc/net/tcp)."""
    wanted = socket.inet_aton(address)[::-1].hex().upper()
    ports = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        host, port = local.split(":")
        if state == "0A" and host == wanted:  # 0A: LISTEN
            ports.add(int(port, 16))
    return ports


def first_status(address: str, port: int) -> bytes:
    with socket.create_connection((address, port), timeout=5) as conn:
        conn.sendall(b"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n")
        return conn.recv(200).split(b"\r\n", 1)[0]


def test_a_browser_on_another_machine_goes_through_a_proxy_with_credentials(
    tmp_path: Path, hostile: str
) -> None:
    """An endpoint reached over the network cannot reach the session's loopback proxy: the
    proxy listens on this machine's address towards it and asks for the session's own
    credentials; the rules and the report are the same."""
    address = outward_address()
    if address is None:
        pytest.skip("this machine has no network address besides loopback")
    far = run_server(host=address)
    try:
        settings = make_settings(
            tmp_path / "far", browser_endpoints=f"far={far.url} {launch_header()}"
        )
        with running_daemon(settings) as d:
            before = listening_ports(address)
            opened = d.call("open", url=f"{hostile}/framed", session="far", browser="far")
            (proxy,) = listening_ports(address) - before  # the session's, on that address
            assert first_status(address, proxy) == b"HTTP/1.1 407 Proxy Authentication Required"
            assert opened["blocked"] == [
                {"host": "169.254.169.254", "rule": "metadata", "subject": "169.254.169.254"}
            ]
            assert "outer page" in d.snapshot("far")
            d.call("navigate", url=f"{hostile}/", session="far")
            link = ref(d, "far", "link", "Free credits")
            refused(d, "metadata", "click", ref=link, session="far")
            d.call("back", session="far")  # the tab shows the refusal page
            redirect = ref(d, "far", "link", "Via a redirect")
            refused(d, "metadata", "click", ref=redirect, session="far")
            assert browsers(d)["far"] == "far"
    finally:
        far.kill()


def test_endpoint_headers_take_secrets_by_name(
    tmp_path: Path, endpoints: dict[str, Server], site: str
) -> None:
    """A header value naming a secret is expanded in the daemon when it connects (here the
    launch options the server needs: without them it has no browser to start), and the
    value is in no log or store file."""
    value = launch_header().split("=", 1)[1]
    settings = make_settings(
        tmp_path / "sec",
        browser_endpoints=f"grid={endpoints['grid'].url} "
        "x-playwright-launch-options={{secret:GRID_LAUNCH}}",
    )
    environ = dict(os.environ, STEADYHAND_SECRET_GRID_LAUNCH=value)
    with running_daemon(settings, environ) as d:
        done = d.cli("open", f"{site}/nav-a.html", "--browser", "grid", "--session", "sec")
        assert done.rc == 0, done.err
        assert browsers(d)["sec"] == "grid"
        pid = d.pid()
        assert pid is not None
        children = descendants({pid}) - {pid}
        assert children  # Playwright's driver at least
        for child in children:
            with contextlib.suppress(OSError):
                inherited = Path(f"/proc/{child}/environ").read_bytes()
                assert b"STEADYHAND_BROWSER_ENDPOINTS" not in inherited, child
                assert b"STEADYHAND_SECRET_GRID_LAUNCH" not in inherited, child
    written = [p for p in settings.state_dir.rglob("*") if p.is_file()]
    assert written
    for path in written:
        assert str(find_chromium()).encode() not in path.read_bytes(), path


def test_an_attached_application_is_held_to_the_navigation_policy(
    daemon: Daemon, hostile: str, tmp_path: Path
) -> None:
    """An application attached over its debugging port (`desktop attach`) runs in a context
    no proxy setting reaches: its requests are checked as they are routed, so the hostile
    site's ways out (a link, a redirect, a script, a form, an iframe) are refused there too,
    with the rule named, and the session goes on."""
    app = cdp_chromium(tmp_path / "app-profile")
    s = "nav-attached"
    try:
        daemon.call("desktop.attach", app=app.url, session=s)
        daemon.call("navigate", url=f"{hostile}/", session=s)
        ways = [("link", "Free credits"), ("link", "Via a redirect")]
        ways += [("button", "Script"), ("button", "Post it")]
        for role, name in ways:
            refused(daemon, "metadata", "click", ref=ref(daemon, s, role, name), session=s)
            shown = daemon.snapshot(s)
            assert "blocked by steadyhand: rule metadata" in shown and "ami-id" not in shown
            # Not `back`: behind a redirect's refusal page, history may hold the redirect
            # itself (by timing), and going back to it is refused again, rightly.
            daemon.call("navigate", url=f"{hostile}/", session=s)
            assert "Free credits" in daemon.snapshot(s), name
        # A popup: the application's new page is routed through the guard too.
        data = refused(
            daemon, "metadata", "click", ref=ref(daemon, s, "link", "In a new tab"), session=s
        )
        assert "blocked by steadyhand" in daemon.snapshot(s, tab=str(data["tab"]))
        daemon.call("tab.close", tab=str(data["tab"]), session=s)
        daemon.call("click", ref=ref(daemon, s, "link", "Local file"), session=s)
        assert daemon.call("tabs", session=s)["tabs"][0]["url"] == f"{hostile}/"  # Chromium's own
        framed = daemon.call("navigate", url=f"{hostile}/framed", session=s)
        assert framed["blocked"] == [
            {"host": "169.254.169.254", "rule": "metadata", "subject": "169.254.169.254"}
        ]
        assert "outer page" in daemon.snapshot(s)
        refused(daemon, "metadata", "navigate", url="http://169.254.169.254/", session=s)
        blocked = daemon.call("policy", session=s)["blocked"]
        assert {b["rule"] for b in blocked} == {"metadata"} and len(blocked) >= 5
        daemon.call("close", session=s)
        assert app.process.poll() is None, "closing the session leaves the application running"
    finally:
        app.kill()
