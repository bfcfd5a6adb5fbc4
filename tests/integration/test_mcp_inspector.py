"""The official MCP Inspector's CLI (npm, pinned in tests/npm_tools.py) against `steadyhand
mcp`, over stdio and streamable HTTP: a strict client that checks tool schemas for
portability and structured results against output schemas. Its printout is what a person
(or an agent host built on the TypeScript SDK) sees."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from steadyhand.commands.table import tool_name
from steadyhand.fronts.agent.tools import agent_commands
from steadyhand.snapshot.lookup import find_ref
from tests.bounded import inside
from tests.conftest import Daemon
from tests.integration.test_mcp import http_mcp
from tests.npm_tools import NpmUnavailable, tool_bin

pytestmark = pytest.mark.integration

INSPECTOR_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def inspector() -> Path:
    try:
        return tool_bin("@modelcontextprotocol/inspector", "mcp-inspector")
    except NpmUnavailable as exc:  # the client is the point of these tests: no quiet skip
        pytest.fail(f"the MCP Inspector could not be installed: {exc}")


class Inspector:
    """`mcp-inspector --cli` with one server: over stdio (`server` is its argv) or HTTP."""

    def __init__(self, binary: Path, daemon: Daemon, server: list[str], http: list[str]) -> None:
        self.binary, self.daemon, self.server, self.http = binary, daemon, server, http

    def run(self, *options: str) -> subprocess.CompletedProcess[str]:
        state = f"STEADYHAND_STATE_DIR={self.daemon.settings.state_dir}"
        target = ["-e", state, *options, "--", *self.server] if self.server else [*options]
        return subprocess.run(
            [str(self.binary), "--cli", *self.http, *target],
            capture_output=True,
            text=True,
            timeout=INSPECTOR_TIMEOUT_S,
            check=False,
        )

    def call(self, tool: str, **arguments: str) -> tuple[dict[str, Any], str]:
        """A tools/call: the result the Inspector printed, and all it printed."""
        pairs = [f"{k}={v}" for k, v in arguments.items()]
        given = ["--tool-arg", *pairs] if pairs else []
        done = self.run("--method", "tools/call", "--tool-name", tool, *given)
        printed = done.stdout + done.stderr
        start = done.stdout.find("{\n")  # its pretty-printed result (an error line may follow)
        assert start >= 0, printed
        result, _ = json.JSONDecoder().raw_decode(done.stdout[start:])
        return result, printed


def stdio(inspector: Path, daemon: Daemon, *flags: str) -> Inspector:
    server = [sys.executable, "-m", "steadyhand", "mcp", "--session", "inspected", *flags]
    return Inspector(inspector, daemon, server, [])


def scenario(client: Inspector, site: str) -> None:
    """open (its page inline), snapshot, click, and a click that fails, as a client sees them."""
    opened, _ = client.call("open", url=f"{site}/form.html")
    assert not opened["isError"]
    page = inside(opened["content"][0]["text"])
    assert page.startswith(f"# t1 · Form fixture · {site}/form.html\n"), page
    assert 'button "Place order" [ref=e' in page, "the page comes with the load"
    shown, _ = client.call("snapshot")
    text = shown["content"][0]["text"]
    button = find_ref(text, "button", "Place order")
    clicked, _ = client.call("click", ref=button)
    assert not clicked["isError"] and clicked["structuredContent"]["ok"] is True
    assert inside(clicked["content"][0]["text"]).startswith(f"ok click {button}")
    failed, printed = client.call("click", ref="e999")
    assert failed["isError"] and failed["structuredContent"]["error"]["code"] == "not_found"
    # The code, the message and the hint reach the person: not a schema complaint.
    assert "error [not_found]" in printed and "tab t1 has handed out no ref e999" in printed
    assert "hint: take a new snapshot" in printed
    assert "must have required property" not in printed


def test_the_tool_list_passes_the_strict_portability_check(inspector: Path, daemon: Daemon) -> None:
    for flags, offered in (((), "core"), (("--caps", "all", "--output-schemas"), "all")):
        done = stdio(inspector, daemon, *flags).run("--method", "tools/list", "--strict")
        assert done.returncode == 0, done.stderr
        assert "Warning" not in done.stderr and "error" not in done.stderr.lower(), done.stderr
        names = {tool["name"] for tool in json.loads(done.stdout)["tools"]}
        assert names == {tool_name(c.name) for c in agent_commands(offered)}


@pytest.mark.parametrize("flags", [(), ("--output-schemas",)], ids=["default", "output-schemas"])
def test_calls_and_errors_over_stdio(
    inspector: Path, daemon: Daemon, site: str, flags: tuple[str, ...]
) -> None:
    """Each call is a process of its own (one-shot): `--session` keeps the page between."""
    scenario(stdio(inspector, daemon, *flags), site)
    daemon.call("close", session="inspected")


def test_calls_and_errors_over_streamable_http(inspector: Path, daemon: Daemon, site: str) -> None:
    with http_mcp(daemon.env, "--output-schemas", "--session", "inspected-http") as (_, line):
        url = line.split(" on ")[1].split()[0]
        token = daemon.settings.http_token_path.read_text().strip()
        # No token: a clear 401; no OAuth discovery document to send clients looking for one.
        base = url.removesuffix("/mcp")
        assert httpx.get(f"{base}/.well-known/oauth-protected-resource").status_code == 404
        assert (
            httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}).status_code == 401
        )
        http = [
            "--transport",
            "http",
            "--server-url",
            url,
            "--header",
            f"Authorization: Bearer {token}",
        ]
        scenario(Inspector(inspector, daemon, [], http), site)
    daemon.call("close", session="inspected-http")
