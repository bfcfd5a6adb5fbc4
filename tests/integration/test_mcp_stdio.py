"""`steadyhand mcp` over stdio answers the handshake and the tool list from what the SDK
answered before (mcp-replies.json in the state dir) while the SDK loads, then hands the
connection over; an outdated reply is put right for the next start. Each test's tool call
starts a daemon on its own state dir (fresh_daemon stops it)."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from typing import Any

import pytest

from steadyhand.fronts.agent.tools import agent_commands
from steadyhand.fronts.mcp.stdio import CACHE_NAME
from tests.conftest import Daemon

pytestmark = pytest.mark.integration

HELLO = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "test_mcp_stdio", "version": "1"},
}


def session(env: dict[str, str], *flags: str) -> tuple[dict[int, Any], str]:
    """One client: initialize, tools/list, ping, a tool call; the replies by id, and the
    server's stderr (it logs with --verbose)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "steadyhand", "mcp", "--verbose", *flags],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    replies: dict[int, Any] = {}

    def ask(message: dict[str, Any]) -> None:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        server.stdin.flush()
        if "id" in message:
            while message["id"] not in replies:
                line = server.stdout.readline()
                assert line, "the server closed its stdout"
                reply = json.loads(line)
                replies[reply["id"]] = reply

    try:
        ask({"id": 1, "method": "initialize", "params": HELLO})
        ask({"method": "notifications/initialized"})
        ask({"id": 2, "method": "tools/list"})
        ask({"id": 3, "method": "ping"})
        ask({"id": 4, "method": "tools/call", "params": {"name": "secrets", "arguments": {}}})
    finally:
        _, err = server.communicate(timeout=60)  # closes its stdin: the client leaves
    return replies, err.decode()


def test_the_second_start_answers_from_the_cache(fresh_daemon: Daemon) -> None:
    state_dir, env = fresh_daemon.settings.state_dir, fresh_daemon.env
    first, first_log = session(env)
    assert "from the cache" not in first_log
    assert (state_dir / CACHE_NAME).is_file()
    assert stat.S_IMODE((state_dir / CACHE_NAME).stat().st_mode) == 0o600
    second, second_log = session(env)
    assert "answered initialize from the cache" in second_log
    assert "answered tools/list from the cache" in second_log
    for n in (1, 2):
        assert second[n]["result"] == first[n]["result"]
    tools = {tool["name"] for tool in second[2]["result"]["tools"]}
    assert {"snapshot", "click", "secrets"} <= tools
    assert second[3]["result"] == {}  # the SDK serves what follows
    assert second[4]["result"]["isError"] is False


def test_an_outdated_reply_is_put_right_for_the_next_start(fresh_daemon: Daemon) -> None:
    state_dir, env = fresh_daemon.settings.state_dir, fresh_daemon.env
    truth, _ = session(env)
    cache = state_dir / CACHE_NAME
    saved = json.loads(cache.read_text())
    for key, text in saved["replies"].items():
        if key.startswith('["tools/list"'):
            listed = json.loads(text)
            listed["tools"] = listed["tools"][:1]
            saved["replies"][key] = json.dumps(listed)
    cache.write_text(json.dumps(saved))
    outdated, log = session(env)
    assert len(outdated[2]["result"]["tools"]) == 1, "the cache's reply was served"
    assert "served an outdated" in log
    again, _ = session(env)
    assert again[2]["result"] == truth[2]["result"]


def test_another_build_ignores_the_cache(fresh_daemon: Daemon) -> None:
    state_dir, env = fresh_daemon.settings.state_dir, fresh_daemon.env
    session(env)
    cache = state_dir / CACHE_NAME
    saved = json.loads(cache.read_text())
    saved["build"] = "another"
    cache.write_text(json.dumps(saved))
    replies, log = session(env)
    assert "from the cache" not in log
    assert len(replies[2]["result"]["tools"]) > 10


def test_each_choice_of_caps_has_its_own_cached_tool_list(fresh_daemon: Daemon) -> None:
    env = {k: v for k, v in fresh_daemon.env.items() if k != "DISPLAY"}
    core, _ = session(env, "--caps", "core")
    tabs, log = session(env, "--caps", "tabs")
    assert "answered tools/list from the cache" not in log, "core+tabs' list is not core's"
    typed, log = session(env, "--output-schemas")
    assert "answered tools/list from the cache" not in log, "nor is core's with output schemas"
    offered = agent_commands()
    assert len(core[2]["result"]["tools"]) == sum(c.caps == "core" for c in offered)
    assert len(tabs[2]["result"]["tools"]) == sum(c.caps in ("core", "tabs") for c in offered)
    assert all("outputSchema" in tool for tool in typed[2]["result"]["tools"])
    assert not any("outputSchema" in tool for tool in core[2]["result"]["tools"])
    default, log = session(env)
    assert "answered tools/list from the cache" in log, "the default is core"
    assert default[2]["result"] == core[2]["result"]
