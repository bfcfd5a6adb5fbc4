"""What the MCP front costs on top of the daemon it calls.

On the form fixture, `snapshot` and `click` (on the Gift wrap checkbox) two ways, interleaved
in one run so machine noise hits them alike:
  mcp      a tool call through the official MCP client to `steadyhand mcp` over stdio
  direct   the same command over DaemonBackend (one JSON-RPC round trip to the daemon)
both against one daemon, each in a session of its own; plus, for reference, an MCP `ping`
(the SDK's stdio round trip alone, no daemon) and how long an MCP client takes to start the
server and list its tools. Prints medians, p95 and
ratios; asserts nothing about time. Then the tool list's size beside Playwright MCP's and
Chrome DevTools MCP's (mcp_lists.py).

    .venv/bin/python bench/fronts_mcp.py [-n 30]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

import mcp_lists
from cli_latency import FIXTURES, timed  # this folder's: run as `python bench/fronts_mcp.py`
from steadyhand import rpc_client
from steadyhand.client import DaemonBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.errors import SteadyhandError
from steadyhand.snapshot.lookup import find_ref

STARTS = 5  # server starts measured: each costs a process and its imports


@contextlib.asynccontextmanager
async def mcp_client(env: dict[str, str]) -> AsyncIterator[ClientSession]:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "steadyhand", "mcp"], env=env
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def tool(session: ClientSession, name: str, **arguments: Any) -> types.CallToolResult:
    result = await session.call_tool(name, arguments)
    if result.is_error:
        block = result.content[0]
        raise RuntimeError(block.text if isinstance(block, types.TextContent) else str(block))
    return result


def summary(samples: list[float]) -> tuple[float, float]:
    """Median and 95th percentile."""
    return statistics.median(samples), statistics.quantiles(samples, n=20)[-1]


@contextlib.asynccontextmanager
async def daemon_and_site() -> AsyncIterator[tuple[Settings, str]]:
    """A daemon on a temp state dir and the fixture site: (its settings, the site's URL)."""
    server = serve_directory(FIXTURES)
    root = Path(tempfile.mkdtemp(prefix="sh-bench-mcp-"))
    settings = Settings.load(state_dir=root / "state")
    try:
        rpc_client.start_daemon(settings)
        yield settings, base_url(server)
    finally:
        with contextlib.suppress(SteadyhandError):
            rpc_client.request(settings, "daemon.stop", {}, 30)
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)


async def measure(n: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = defaultdict(list)
    async with daemon_and_site() as (settings, site):
        env = dict(os.environ, STEADYHAND_STATE_DIR=str(settings.state_dir))
        url = f"{site}/form.html"

        async def start() -> None:
            async with mcp_client(env) as session:
                await session.list_tools()

        for _ in range(STARTS):
            await timed(samples["mcp start+list_tools"], start)

        direct = DaemonBackend(settings, autostart=False)
        mine = {"session": "bench-direct"}
        async with mcp_client(env) as session, contextlib.aclosing(direct):
            await tool(session, "open", url=url)
            snap = await tool(session, "snapshot")
            assert isinstance(snap.structured_content, dict)
            mcp_ref = find_ref(snap.structured_content["snapshot"], "checkbox", "Gift wrap")
            await direct.call("open", mine | {"url": url})
            page = (await direct.call("snapshot", mine))["snapshot"]
            direct_ref = find_ref(page, "checkbox", "Gift wrap")

            async def load_then_read() -> None:
                await tool(session, "navigate", url=url, snapshot=False)
                await tool(session, "snapshot", interactive=True)

            for _ in range(n):
                await timed(samples["mcp ping"], session.send_ping)
                await timed(samples["mcp snapshot"], lambda: tool(session, "snapshot"))
                await timed(samples["mcp click"], lambda: tool(session, "click", ref=mcp_ref))
                await timed(samples["direct snapshot"], lambda: direct.call("snapshot", mine))
                await timed(
                    samples["direct click"],
                    lambda: direct.call("click", mine | {"ref": direct_ref}),
                )
            for _ in range(n):  # after the clicks: a load leaves their refs behind
                await timed(samples["mcp navigate, then snapshot -i"], load_then_read)
                await timed(
                    samples["mcp navigate (view inline)"],
                    lambda: tool(session, "navigate", url=url),
                )
    return samples


def report(samples: dict[str, list[float]], n: int) -> None:
    """Each command over MCP beside the same over DaemonBackend, then the reference rows."""
    print(f"fronts_mcp: form fixture, n={n} each, interleaved; times in ms (median / p95)")
    print(f"{'':<10}{'MCP stdio':>16}{'DaemonBackend':>16}{'MCP / direct':>16}{'MCP adds':>16}")
    for op in ("snapshot", "click"):
        mcp = summary(samples[f"mcp {op}"])
        direct = summary(samples[f"direct {op}"])
        print(
            f"{op:<10}{mcp[0]:>8.1f} /{mcp[1]:>6.1f}{direct[0]:>8.1f} /{direct[1]:>6.1f}"
            f"{mcp[0] / direct[0]:>8.2f}x/{mcp[1] / direct[1]:>5.2f}x"
            f"{mcp[0] - direct[0]:>+8.1f} /{mcp[1] - direct[1]:>+6.1f}"
        )
    two, one = (
        summary(samples[k])
        for k in ("mcp navigate, then snapshot -i", "mcp navigate (view inline)")
    )
    print(
        f"a page load and its view: two calls {two[0]:.1f} / {two[1]:.1f}, one call (inline) "
        f"{one[0]:.1f} / {one[1]:.1f}: {one[0] / two[0]:.2f}x"
    )
    for name in ("mcp ping", "mcp start+list_tools"):
        median, p95 = summary(samples[name])
        print(f"{name}: {median:.1f} / {p95:.1f} (n={len(samples[name])})")


def main() -> None:
    parser = argparse.ArgumentParser(description="MCP over stdio vs DaemonBackend latency.")
    parser.add_argument("-n", type=int, default=30, help="samples per measurement (>= 20)")
    n = max(20, parser.parse_args().n)
    report(asyncio.run(measure(n)), n)
    print()
    mcp_lists.main()  # what the tool list costs an agent each turn, beside its peers


if __name__ == "__main__":
    main()
