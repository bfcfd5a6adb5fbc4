"""What an agent host pays every turn for an MCP server's tool list.

Hosts put the whole `tools/list` result in the model's context on every turn, so its size
is a per-turn cost. Measured on the wire in one run: each server started over stdio, sent
`initialize` and `tools/list`, its result's JSON counted in bytes (compact, as the SDKs
send it) and in estimated tokens (bytes / 4, a rough rate for JSON text):

  steadyhand   its default (core), core + each capability group, all groups, and all
               groups with --output-schemas
  Playwright MCP        @playwright/mcp, its default and with every --caps group
  Chrome DevTools MCP   chrome-devtools-mcp, its default and --slim

The peers come from the npm registry at pinned versions (tests/npm_tools.py); without npm
they are skipped and said so. Prints a table; asserts nothing.

    .venv/bin/python bench/mcp_lists.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.npm_tools

from tests.npm_tools import NpmUnavailable, tool_bin

from steadyhand.caps import CAPS, CORE

PROTOCOL = "2025-06-18"
TIMEOUT_S = 120


@dataclass(frozen=True)
class Listed:
    server: str
    variant: str
    tools: int
    bytes: int

    @property
    def tokens(self) -> int:
        return round(self.bytes / 4)


def exchange(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """The `tools/list` result of the stdio server `argv` (every page of it)."""
    with subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        stdin, stdout = server.stdin, server.stdout

        def send(message: dict[str, Any]) -> None:
            stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
            stdin.flush()

        def answer(request_id: int) -> dict[str, Any]:
            for line in stdout:
                message = json.loads(line)
                if message.get("id") == request_id:
                    if "error" in message:
                        raise RuntimeError(f"{argv[0]}: {message['error']}")
                    return dict(message["result"])
            raise RuntimeError(f"{argv[0]} closed its stdout")

        try:
            hello = {"name": "bench", "version": "1"}
            params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": hello}
            send({"id": 1, "method": "initialize", "params": params})
            answer(1)
            send({"method": "notifications/initialized"})
            tools: list[Any] = []
            cursor: str | None = None
            request_id = 2
            while True:
                send(
                    {"id": request_id, "method": "tools/list"}
                    | ({"params": {"cursor": cursor}} if cursor else {})
                )
                page = answer(request_id)
                tools += page.get("tools", [])
                cursor = page.get("nextCursor")
                request_id += 1
                if not cursor:
                    return {"tools": tools}
        finally:
            server.kill()


def listed(server: str, variant: str, argv: list[str], env: dict[str, str]) -> Listed:
    result = exchange(argv, env)
    size = len(json.dumps(result, separators=(",", ":")).encode())
    return Listed(server, variant, len(result["tools"]), size)


def steadyhand_lists(state: Path) -> list[Listed]:
    env = dict(os.environ, STEADYHAND_STATE_DIR=str(state))
    env.pop("DISPLAY", None)
    mcp = [sys.executable, "-m", "steadyhand", "mcp"]
    rows = [listed("steadyhand", "default (core)", mcp, env)]
    rows += [
        listed("steadyhand", f"core+{group}", [*mcp, "--caps", group], env)
        for group in CAPS
        if group != CORE
    ]
    rows.append(listed("steadyhand", "all groups", [*mcp, "--caps", "all"], env))
    rows.append(
        listed(
            "steadyhand", "all + output schemas", [*mcp, "--caps", "all", "--output-schemas"], env
        )
    )
    return rows


def peer_lists(home: Path) -> tuple[list[Listed], list[str]]:
    rows: list[Listed] = []
    skipped: list[str] = []
    env = dict(os.environ, HOME=str(home), CI="1")  # CI: Chrome DevTools MCP sends no usage stats
    try:
        playwright = str(tool_bin("@playwright/mcp", "playwright-mcp"))
        rows.append(listed("Playwright MCP", "default", [playwright, "--headless"], env))
        every = [playwright, "--headless", "--caps", "vision,pdf,devtools"]
        rows.append(listed("Playwright MCP", "all --caps", every, env))
    except (NpmUnavailable, RuntimeError, OSError) as exc:
        skipped.append(f"Playwright MCP: {exc}")
    try:
        devtools = str(tool_bin("chrome-devtools-mcp", "chrome-devtools-mcp"))
        rows.append(listed("Chrome DevTools MCP", "default", [devtools, "--headless"], env))
        rows.append(
            listed("Chrome DevTools MCP", "--slim", [devtools, "--headless", "--slim"], env)
        )
    except (NpmUnavailable, RuntimeError, OSError) as exc:
        skipped.append(f"Chrome DevTools MCP: {exc}")
    return rows, skipped


def report(rows: list[Listed], skipped: list[str]) -> None:
    base = next((r for r in rows if r.server == "Playwright MCP" and r.variant == "default"), None)
    print("mcp_lists: tools/list as sent, compact JSON; tokens ~ bytes/4")
    ratio_head = "vs Playwright MCP default" if base else ""
    print(f"{'server':<22}{'variant':<24}{'tools':>6}{'bytes':>9}{'~tokens':>9}  {ratio_head}")
    for row in rows:
        ratio = f"{row.bytes / base.bytes:.2f}x" if base else ""
        sizes = f"{row.tools:>6}{row.bytes:>9,}{row.tokens:>9,}"
        print(f"{row.server:<22}{row.variant:<24}{sizes}  {ratio}")
    for line in skipped:
        print(f"skipped {line}")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="sh-bench-lists-") as root:
        mine = steadyhand_lists(Path(root) / "state")
        peers, skipped = peer_lists(Path(root))
    report([*mine, *peers], skipped)


if __name__ == "__main__":
    main()
