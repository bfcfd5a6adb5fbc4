"""Issue 18: bad input gets a clear error and loses nothing, on every front.

Every command (but daemon.stop and desktop.launch: tests/fuzzing.py says why) is fuzzed with
params drawn from its own schema over JSON-RPC, HTTP (`serve --http`) and MCP (`steadyhand
mcp` over stdio), against one real daemon with a real Chromium, most cases in a session
with the form page (served by the test on 127.0.0.1) open. The desktop commands run too:
this daemon has no desktop, so they are fuzzed for their refusals (test_desktop*.py drive
them on one). The seed is fixed (derandomize); `bench/fuzz.py --cases N` runs the long one.

Each case must answer a result or a structured error (an ErrorCode, not `internal`, with a
hint; no HTTP 500, no JSON-RPC internal error, no MCP protocol error) and add exactly the
action_log rows execute/run.py writes for it; the daemon must answer `daemon.status` after
every batch and at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from steadyhand.commands import COMMANDS
from steadyhand.fronts.schema import AGENT_HIDDEN
from tests import fuzzing
from tests.conftest import Daemon, running_daemon
from tests.http_server import HttpServer, start_http

pytestmark = pytest.mark.integration

EXAMPLES = {"rpc": 110, "http": 80, "mcp": 80}  # a few hundred in all, under ~2 minutes


@pytest.fixture(scope="module")
def fuzz_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    with running_daemon(fuzzing.fuzz_settings(tmp_path_factory.mktemp("state"))) as handle:
        yield handle


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where cases write files: absolute paths are moved under it, and the HTTP and MCP
    servers run in it (their client makes relative paths absolute in its cwd)."""
    return tmp_path_factory.mktemp("files")


@pytest.fixture(scope="module")
def http_server(fuzz_daemon: Daemon, files: Path) -> Iterator[HttpServer]:
    env = fuzzing.serve_env(fuzz_daemon.settings, dict(os.environ))
    handle = start_http(env, cwd=files)
    yield handle
    assert handle.stop() == 0
    assert "Traceback" not in handle.stderr(), handle.stderr()


@pytest.fixture(scope="module")
def fuzzer(fuzz_daemon: Daemon, site: str, files: Path) -> fuzzing.Fuzzer:
    pid = fuzz_daemon.pid()
    assert pid is not None
    runner = fuzzing.Fuzzer(fuzz_daemon.settings, site, files, fuzzing.Tally(), pid)
    runner.ensure_live()
    return runner


def fuzz_front(name: str, front: fuzzing.Front, runner: fuzzing.Fuzzer) -> None:
    runner.tally = fuzzing.Tally()

    @settings(
        max_examples=EXAMPLES[name],
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],  # rule breaks are tallied: nothing to shrink
        suppress_health_check=list(HealthCheck),
    )
    @given(case=fuzzing.case_strategy(name))
    def run(case: fuzzing.Case) -> None:
        runner.run(name, front, case)

    run()
    print("\n" + "\n".join(fuzzing.summary(runner.tally)))
    assert runner.alive(), "the daemon answers daemon.status after the run"
    assert runner.tally.crashes == 0
    assert not runner.tally.broken(), "\n".join(runner.tally.broken()[:25])


def test_fuzz_json_rpc(fuzz_daemon: Daemon, fuzzer: fuzzing.Fuzzer) -> None:
    fuzz_front("rpc", fuzzing.RpcFront(fuzz_daemon.settings), fuzzer)


def test_fuzz_http(http_server: HttpServer, fuzzer: fuzzing.Fuzzer) -> None:
    front = fuzzing.HttpFront(http_server.url, http_server.auth)
    try:
        fuzz_front("http", front, fuzzer)
    finally:
        front.close()


def test_fuzz_mcp(fuzz_daemon: Daemon, fuzzer: fuzzing.Fuzzer, files: Path) -> None:
    front = fuzzing.McpFront(fuzz_daemon.env, files)
    try:
        fuzz_front("mcp", front, fuzzer)
    finally:
        front.close()


def test_a_bad_timeout_refused_over_http_is_in_the_action_log(
    http_server: HttpServer, fuzz_daemon: Daemon
) -> None:
    """Regression: the HTTP front's client refused it before the daemon saw it (no row)."""
    before = fuzzing.log_rows(fuzz_daemon.settings)
    with http_server.client(timeout=60.0) as api:
        response = api.post("/v1/snapshot", json={"session": fuzzing.LIVE, "timeout": "abc"})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "bad_request"
    assert fuzzing.log_rows(fuzz_daemon.settings) == before + 1


def test_a_report_path_under_a_file_is_bad_request(fuzz_daemon: Daemon, site: str) -> None:
    """Regression: the folder a path needs being a file was an internal error. (Inside a
    file root, the artifacts dir: elsewhere the path is refused before it is made.)"""
    root = fuzz_daemon.settings.artifacts_dir
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    (root / "plain").write_text("a file, not a folder")
    fuzz_daemon.call("open", url=f"{site}/form.html", session="under-a-file")
    path = str(root / "plain" / "r.html")
    refused = fuzz_daemon.fail("report", path=path, session="under-a-file")
    assert refused.code == "bad_request" and refused.hint, refused


def test_every_command_is_fuzzed_on_every_front() -> None:
    """All but SKIP on JSON-RPC and HTTP; MCP offers all but the agent-hidden ones."""
    every = set(COMMANDS) - set(fuzzing.SKIP)
    assert {c.name for c in fuzzing.fuzzed_commands("rpc")} == every
    assert {c.name for c in fuzzing.fuzzed_commands("http")} == every
    assert {c.name for c in fuzzing.fuzzed_commands("mcp")} == every - AGENT_HIDDEN
