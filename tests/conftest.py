"""Shared fixtures: a static site on 127.0.0.1 and real daemons with private state dirs."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from steadyhand import rpc_client
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.desktop.session import DesktopSession
from steadyhand.errors import SteadyhandError
from steadyhand.fronts.cli import main as cli_main
from tests import desktop_env
from tests.postgres import PostgresServer, postgres_server

FIXTURES = Path(__file__).parent / "fixtures" / "site"
WHOLE_SNAPSHOT = 10_000_000  # a max_chars that never cuts
SHARED_SCOPES = ("module", "class", "package")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """For parallel runs (`make test`: pytest-xdist with --dist loadgroup): the tests of a
    module that share a module-scoped fixture (its daemon, a server, a desktop app) form one
    group, run by one worker, so the fixture is built once; every other test is handed out
    on its own to whichever worker is free."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or not isinstance(item, pytest.Function):
            continue
        shared = any(
            defs and defs[-1].scope in SHARED_SCOPES
            for name, defs in info.name2fixturedefs.items()
            if name in item.fixturenames
        )
        if shared:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


@pytest.fixture(scope="session")
def site() -> Iterator[str]:
    """Base URL of tests/fixtures/site served on 127.0.0.1."""
    server = serve_directory(FIXTURES)
    yield base_url(server)
    server.shutdown()


@pytest.fixture(scope="session")
def cross_site() -> Iterator[str]:
    """The same files from a second port, named `localhost`: another origin and site."""
    server = serve_directory(FIXTURES)
    yield f"http://localhost:{server.server_address[1]}"
    server.shutdown()


def wait_until(check: Callable[[], bool], timeout_s: float = 20.0) -> bool:
    """Poll `check` until it holds or the time is up; its last answer."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


@dataclass
class CliRun:
    rc: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


def run_cli(
    *args: str,
    env: dict[str, str],
    stdin: str | None = None,
    cwd: Path | None = None,
    program: list[str] | None = None,
) -> CliRun:
    """`steadyhand ARGS` as its own process (`program`: another way in, the launcher or the
    reference CLI)."""
    done = subprocess.run(
        [*(program or [sys.executable, "-m", "steadyhand"]), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    return CliRun(done.returncode, done.stdout, done.stderr)


@dataclass
class Daemon:
    """A daemon on its own state dir, driven through the same client the CLI uses."""

    settings: Settings
    base_env: dict[str, str] | None = None  # a desktop session's; else this process's

    @property
    def env(self) -> dict[str, str]:
        base = os.environ if self.base_env is None else self.base_env
        return dict(base, STEADYHAND_STATE_DIR=str(self.settings.state_dir))

    def call(self, method: str, **params: Any) -> Any:
        return rpc_client.call(self.settings, method, params, autostart=False)

    def snapshot(self, session: str, **options: Any) -> str:
        """The tab's snapshot text, whole unless `max_chars` says otherwise."""
        options.setdefault("max_chars", WHOLE_SNAPSHOT)
        text: str = self.call("snapshot", session=session, **options)["snapshot"]
        return text

    def statuses(self) -> dict[str, str]:
        """Each session's status, as `sessions` lists them."""
        return {s["name"]: s["status"] for s in self.call("sessions")["sessions"]}

    def fail(self, method: str, **params: Any) -> SteadyhandError:
        """Call a command that must fail, and return its error."""
        try:
            result = self.call(method, **params)
        except SteadyhandError as exc:
            return exc
        raise AssertionError(f"{method} {params} should have failed, returned {result}")

    def cli(
        self,
        *args: str,
        stdin: str | None = None,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> CliRun:
        """Run `steadyhand ARGS` as its own process against this daemon's state dir."""
        return run_cli(*args, env=env or self.env, stdin=stdin, cwd=cwd)

    def pid(self) -> int | None:
        return rpc_client.daemon_pid(self.settings)

    def stop(self) -> None:
        """Stop the daemon as `steadyhand daemon stop` does, with the CLI's own function run
        in this process (a teardown need not start an interpreter); returns once the
        daemon's process has exited."""
        if self.pid() is not None:
            cli_main.RUN_HERE["daemon.stop"](self.settings, argparse.Namespace())


def make_settings(state_dir: Path, **overrides: Any) -> Settings:
    """Settings for a test daemon. A module's daemon serves many tests' sessions, so the
    pool cap is raised unless a test sets it (tests/integration/test_sessions.py does); an
    extension relay (`extension pair`, fuzzed too) takes any free port, not the fixed one."""
    defaults = {"max_sessions": 64, "extension_port": 0}
    return Settings.load(state_dir=state_dir, **(defaults | overrides))


@contextlib.contextmanager
def running_daemon(settings: Settings, environ: dict[str, str] | None = None) -> Iterator[Daemon]:
    """A daemon started on `settings` (in `environ`: a desktop session's), stopped on the
    way out."""
    handle = Daemon(settings, environ)
    rpc_client.start_daemon(settings, environ)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture(scope="session")
def worker_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """The daemon the test modules of this worker (or run) share: see `daemon`."""
    with running_daemon(make_settings(tmp_path_factory.mktemp("shared-state"))) as handle:
        yield handle


@pytest.fixture(scope="module")
def daemon(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Daemon]:
    """A running daemon for a test module; each test uses its own session names.

    Modules take turns on one daemon per worker (starting one costs a Python process,
    Playwright's driver and a Chromium, some 3 CPU-seconds), each closing the sessions it
    opened as it ends. A module whose tests look at the daemon as a whole (every session,
    its counters, its log, its process) sets OWN_DAEMON to the reason and gets its own."""
    if getattr(request.module, "OWN_DAEMON", None):
        with running_daemon(make_settings(tmp_path_factory.mktemp("state"))) as handle:
            yield handle
        return
    shared: Daemon = request.getfixturevalue("worker_daemon")
    if shared.pid() is None:  # an earlier module stopped it
        rpc_client.start_daemon(shared.settings)
    before = set(shared.statuses())
    yield shared
    with contextlib.suppress(SteadyhandError):
        for name in set(shared.statuses()) - before:
            shared.call("close", session=name)


@pytest.fixture
def fresh_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A state dir with no daemon yet; whatever the test starts is stopped afterwards."""
    handle = Daemon(make_settings(tmp_path_factory.mktemp("state")))
    yield handle
    handle.stop()


@pytest.fixture(scope="session")
def desktop() -> Iterator[DesktopSession]:
    """A private desktop (Xvfb, session bus, a11y bus) shared by the whole run; skipped,
    saying why, when the machine lacks its programs or PyGObject."""
    reason = desktop_env.skip_reason()
    if reason is not None:
        pytest.skip(reason)
    with DesktopSession() as session:
        yield session


@pytest.fixture(scope="module")
def desktop_daemon(
    desktop: DesktopSession, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Daemon]:
    """A daemon running inside the desktop session (its DISPLAY, its buses)."""
    settings = make_settings(tmp_path_factory.mktemp("state"))
    with running_daemon(settings, desktop.env) as handle:
        yield handle


@pytest.fixture
def virtual_display() -> Iterator[str]:
    """A private Xvfb display (":N") for headed-browser tests; skipped without Xvfb."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("Xvfb is not installed (make test installs it when run as root)")
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write_end), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as ready:
            number = ready.readline().strip()  # Xvfb writes its display once it accepts
        assert number.isdigit(), "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server (tests/postgres.py), one per test worker."""
    with postgres_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL of each backend: a SQLite file, a new PostgreSQL database (the same
    store tests run on both)."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'store.sqlite'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def postgres_url(postgres: PostgresServer) -> Iterator[str]:
    """A new, empty database of the test server, dropped after the test."""
    name = postgres.create_database()
    yield postgres.url(name)
    postgres.drop_database(name)
