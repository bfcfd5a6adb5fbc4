"""What the MCP front costs on top of the daemon it calls.

On the form fixture, `snapshot` and `click` (on the Gift wrap checkbox) two ways, interleaved
in one run so machine noise hits them alike:
  mcp      a tool call through the official MCP client to `steadyhand mcp` over stdio
  direct   the same command over DaemonBackend (one JSON-RPC round trip to the daemon)
both against one daemon, each in a session of its own; plus, for reference, an MCP `ping`
(the SDK's stdio round trip alone, no daemon) and how long an MCP client takes to start the
server and list its tools. Prints medians, p95 and
ratios; asserts nothing about time.

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
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from steadyhand.client import DaemonBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.fronts import rpc_client
from steadyhand.snapshot.lookup import find_ref

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "site"
STARTS = 5  # server starts measured: each costs a process and its imports


async def timed(samples: list[float], action: Callable[[], Awaitable[Any]]) -> Any:
    started = time.perf_counter()
    result = await action()
    samples.append((time.perf_counter() - started) * 1000)
    return result


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
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[round(0.95 * (len(ordered) - 1))]


async def measure(n: int) -> dict[str, list[float]]:
    server = serve_directory(FIXTURES)
    url = f"{base_url(server)}/form.html"
    root = Path(tempfile.mkdtemp(prefix="sh-bench-mcp-"))
    settings = Settings.load(state_dir=root / "state")
    env = dict(os.environ, STEADYHAND_STATE_DIR=str(settings.state_dir))
    rpc_client.start_daemon(settings)
    direct = DaemonBackend(settings, autostart=False)
    samples: dict[str, list[float]] = defaultdict(list)
    try:
        for _ in range(STARTS):

            async def start() -> None:
                async with mcp_client(env) as session:
                    await session.list_tools()

            await timed(samples["mcp start+list_tools"], start)

        async with mcp_client(env) as session:
            await tool(session, "open", url=url)
            snap = await tool(session, "snapshot")
            assert isinstance(snap.structured_content, dict)
            mcp_ref = find_ref(snap.structured_content["snapshot"], "checkbox", "Gift wrap")

            mine = {"session": "bench-direct"}
            await direct.call("open", mine | {"url": url})
            page = (await direct.call("snapshot", mine))["snapshot"]
            direct_ref = find_ref(page, "checkbox", "Gift wrap")

            for _ in range(n):
                await timed(samples["mcp ping"], session.send_ping)
                await timed(samples["mcp snapshot"], lambda: tool(session, "snapshot"))
                await timed(samples["mcp click"], lambda: tool(session, "click", ref=mcp_ref))
                await timed(samples["direct snapshot"], lambda: direct.call("snapshot", mine))
                await timed(
                    samples["direct click"],
                    lambda: direct.call("click", mine | {"ref": direct_ref}),
                )
    finally:
        await direct.aclose()
        rpc_client.request(settings, "daemon.stop", {}, 30)
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    return samples


def report(samples: dict[str, list[float]], n: int) -> None:
    print(f"fronts_mcp: form fixture, n={n} each, interleaved; times in ms")
    print(f"{'what':<22}{'median':>9}{'p95':>9}{'n':>5}")
    for name, values in samples.items():
        median, p95 = summary(values)
        print(f"{name:<22}{median:>9.1f}{p95:>9.1f}{len(values):>5}")
    print("\nMCP over stdio / DaemonBackend directly:")
    for op in ("snapshot", "click"):
        mcp_median, mcp_p95 = summary(samples[f"mcp {op}"])
        direct_median, direct_p95 = summary(samples[f"direct {op}"])
        print(
            f"  {op:<9} median {mcp_median / direct_median:5.2f}x "
            f"({mcp_median - direct_median:+6.1f} ms)   p95 {mcp_p95 / direct_p95:5.2f}x "
            f"({mcp_p95 - direct_p95:+6.1f} ms)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", type=int, default=30, help="samples per measurement (>= 20)")
    n = max(20, parser.parse_args().n)
    report(asyncio.run(measure(n)), n)
