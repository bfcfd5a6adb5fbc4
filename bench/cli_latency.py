"""What a call costs through the CLI, from cold, and through MCP; beside a bare interpreter.

Three groups, each interleaved in one run so machine noise hits its members alike, each
with its own samples of the floor, `python -I -S -c pass` (this interpreter):

  hot    a daemon serving the form fixture: `steadyhand daemon status`, `snapshot` and
         `click` as whole CLI processes (`steadyhand` beside this interpreter, what users
         run), the reference CLI (`python -m steadyhand.fronts.cli.main`), one JSON-RPC round
         trip from this process (rpc), the command on an engine in this process (inproc),
         a stale ref refused over RPC; and agent-browser's native CLI on the same page
         (`get url`, `snapshot`, `click`) when it is installed.
  cold   from no daemon to the first snapshot: `steadyhand open URL` then `snapshot` on a
         new state dir (the daemon is stopped after, untimed); agent-browser's `open` then
         `snapshot` on a new HOME (closed after, untimed).
  mcp    spawning `steadyhand mcp` (stdio) to the answer of `tools/list` (after
         `initialize`), all on one state dir: the first sample, on an empty one, is
         printed apart.

Prints medians, p90 and ratios of medians to the floor (and to agent-browser where it has
the same call); asserts nothing about time. agent-browser is looked for as
--agent-browser, $AGENT_BROWSER_BIN, then `agent-browser` on PATH (npm's `bin/` holds the
native binaries: give `bin/agent-browser-linux-x64`); it runs the same Chromium.

    .venv/bin/python bench/cli_latency.py [-n 30] [--cold 5] [--agent-browser PATH]
        [--cli PATH] [--versus PATH]

What importing the CLI's modules costs, beside another build's: bench/import_cost.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from steadyhand import processes, rpc_client
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import find_chromium
from steadyhand.engine.engine import Engine
from steadyhand.errors import SteadyhandError
from steadyhand.execute.run import execute
from steadyhand.runtime import Runtime
from steadyhand.snapshot import page_model
from steadyhand.snapshot.lookup import find_ref
from steadyhand.store.sqlite import Store

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "site"
FLOOR = "python -I -S -c pass"
Samples = dict[str, list[float]]
# agent-browser's snapshot lines: `- checkbox "Gift wrap" [ref=e20]`
AB_REF = re.compile(r'- (?P<role>[\w-]+) "(?P<name>[^"]*)"[^\n]*?\bref=(?P<ref>e\d+)')


async def timed(samples: list[float], action: Callable[[], Awaitable[Any]]) -> Any:
    started = time.perf_counter()
    result = await action()
    samples.append((time.perf_counter() - started) * 1000)
    return result


async def run_process(env: dict[str, str], *argv: str) -> str:
    """Run a process to its end; its stdout. Fails on a non-zero exit."""
    process = await asyncio.create_subprocess_exec(
        *argv, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"{argv} failed ({process.returncode}): {err.decode()}{out.decode()}")
    return out.decode()


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.9 * (len(ordered) - 1))]


CLI: list[str] = []  # --cli, else the `steadyhand` beside this interpreter
VERSUS: list[str] = []  # --versus: another build's `steadyhand`, measured beside ours


def cli_argv() -> list[str]:
    if CLI:
        return CLI
    script = Path(sys.executable).with_name("steadyhand")  # what users run
    return [str(script)] if script.exists() else [sys.executable, "-m", "steadyhand"]


FLOOR_ARGV = [sys.executable, "-I", "-S", "-c", "pass"]
REFERENCE_ARGV = [sys.executable, "-m", "steadyhand.fronts.cli.main"]


# ---------------------------------------------------------------- agent-browser


def find_agent_browser(given: str | None) -> Path | None:
    for candidate in (given, os.environ.get("AGENT_BROWSER_BIN"), "agent-browser"):
        if candidate:
            found = shutil.which(candidate)
            if found:
                return Path(found)
    return None


def agent_browser_env(home: Path) -> dict[str, str]:
    """agent-browser on its own HOME (its sockets live there), on the system Chromium."""
    home.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(home), AGENT_BROWSER_EXECUTABLE_PATH=str(find_chromium()))
    if os.geteuid() == 0:
        env["AGENT_BROWSER_ARGS"] = "--no-sandbox"
    return env


async def agent_browser_open(ab: Path, env: dict[str, str], url: str) -> str:
    """Open `url` in agent-browser; the ref of the checkbox the hot loop clicks."""
    await run_process(env, str(ab), "open", url)
    return ab_ref(await run_process(env, str(ab), "snapshot"), "checkbox", "Gift wrap")


def ab_ref(snapshot: str, role: str, name: str) -> str:
    for match in AB_REF.finditer(snapshot):
        if match["role"] == role and match["name"] == name:
            return "@" + match["ref"]
    raise KeyError(f"agent-browser's snapshot has no {role} {name!r}")


# ---------------------------------------------------------------- hot: a daemon serving

Rpc = Callable[..., Awaitable[Any]]


async def stale_refusal(rpc: Rpc, url: str) -> Callable[[], Awaitable[None]]:
    """A click on a ref whose element re-rendered, which must fail with stale_ref."""
    stale_url = url.rsplit("/", 1)[0] + "/rerender.html"
    await rpc("open", session="stale", url=stale_url)
    stale_page = (await rpc("snapshot", session="stale"))["snapshot"]
    await rpc("click", session="stale", ref=find_ref(stale_page, "button", "Double Alpha"))
    stale_ref = find_ref(stale_page, "button", "Alpha")

    async def refused() -> None:  # the command must fail with stale_ref, nothing else
        try:
            await rpc("click", session="stale", ref=stale_ref)
        except SteadyhandError as exc:
            if exc.code != "stale_ref":
                raise
        else:
            raise RuntimeError("a stale ref was accepted")

    return refused


async def measure_hot(n: int, url: str, root: Path, ab: Path | None) -> Samples:
    """Interleaved samples of every per-call measurement, keyed by name."""
    daemon_settings = Settings.load(state_dir=root / "daemon")
    env = dict(os.environ, STEADYHAND_STATE_DIR=str(daemon_settings.state_dir))
    cli = cli_argv()

    def rpc(method: str, **params: Any) -> Awaitable[Any]:
        return asyncio.to_thread(rpc_client.call, daemon_settings, method, params, False)

    rpc_client.start_daemon(daemon_settings)
    local_settings = Settings.load(state_dir=root / "inproc")
    local_settings.state_dir.mkdir(mode=0o700)
    store = Store(local_settings.store_path)
    engine = Engine(local_settings, store, page_model.install)
    runtime = Runtime(local_settings, engine, store)
    ab_env = agent_browser_env(root / "ab-hot")
    samples: Samples = defaultdict(list)
    try:
        await rpc("open", url=url)
        await execute(runtime, "open", {"url": url})
        daemon_ref = find_ref((await rpc("snapshot"))["snapshot"], "checkbox", "Gift wrap")
        local_page = (await execute(runtime, "snapshot", {}))["snapshot"]
        local_ref = find_ref(local_page, "checkbox", "Gift wrap")

        refused = await stale_refusal(rpc, url)
        ab_click = "" if ab is None else await agent_browser_open(ab, ab_env, url)

        def proc(label: str, *argv: str, run_env: dict[str, str] = env) -> Awaitable[Any]:
            return timed(samples[label], lambda: run_process(run_env, *argv))

        for _ in range(n):
            await proc(FLOOR, *FLOOR_ARGV)
            await proc("python -c pass", sys.executable, "-c", "pass")
            await proc("cli daemon status", *cli, "daemon", "status")
            await proc("reference daemon status", *REFERENCE_ARGV, "daemon", "status")
            await proc("cli snapshot", *cli, "snapshot")
            await proc("cli click", *cli, "click", daemon_ref)
            if VERSUS:
                await proc("versus daemon status", *VERSUS, "daemon", "status")
                await proc("versus snapshot", *VERSUS, "snapshot")
                await proc("versus click", *VERSUS, "click", daemon_ref)
            await timed(samples["rpc snapshot"], lambda: rpc("snapshot"))
            await timed(samples["rpc click"], lambda: rpc("click", ref=daemon_ref))
            await timed(samples["inproc snapshot"], lambda: execute(runtime, "snapshot", {}))
            await timed(
                samples["inproc click"], lambda: execute(runtime, "click", {"ref": local_ref})
            )
            await timed(samples["rpc stale ref"], refused)
            if ab is not None:
                await proc("agent-browser get url", str(ab), "get", "url", run_env=ab_env)
                await proc("agent-browser snapshot", str(ab), "snapshot", run_env=ab_env)
                await proc("agent-browser click", str(ab), "click", ab_click, run_env=ab_env)
    finally:
        if ab is not None:
            await run_process(ab_env, str(ab), "close", "--all")
        await runtime.engine.shutdown()
        runtime.store.close()
        rpc_client.request(daemon_settings, "daemon.stop", {}, 30)
    return samples


# ---------------------------------------------------------------- cold: no daemon yet


async def steadyhand_cold(
    url: str, state_dir: Path, samples: Samples, cli: list[str], who: str = "steadyhand"
) -> None:
    """`open URL` then `snapshot` from no daemon; the daemon is stopped after, untimed."""
    env = dict(os.environ, STEADYHAND_STATE_DIR=str(state_dir))
    started = time.perf_counter()
    await run_process(env, *cli, "open", url)
    opened = time.perf_counter()
    page = await run_process(env, *cli, "snapshot")
    done = time.perf_counter()
    if "Gift wrap" not in page:
        raise RuntimeError(f"the first snapshot misses the page: {page[:200]}")
    samples[f"{who} cold: open"].append((opened - started) * 1000)
    samples[f"{who} cold: then snapshot"].append((done - opened) * 1000)
    samples[f"{who} cold start to snapshot"].append((done - started) * 1000)
    settings = Settings.load(state_dir=state_dir)
    pid = rpc_client.daemon_pid(settings)
    rpc_client.request(settings, "daemon.stop", {}, 30)
    if pid is not None:
        processes.wait_exit(pid)


async def agent_browser_cold(ab: Path, url: str, home: Path, samples: Samples) -> None:
    env = agent_browser_env(home)
    started = time.perf_counter()
    await run_process(env, str(ab), "open", url)
    page = await run_process(env, str(ab), "snapshot")
    samples["agent-browser cold start to snapshot"].append((time.perf_counter() - started) * 1000)
    if "Gift wrap" not in page:
        raise RuntimeError(f"agent-browser's first snapshot misses the page: {page[:200]}")
    await run_process(env, str(ab), "close", "--all")


async def mcp_list_tools(state_dir: Path, cli: list[str]) -> tuple[float, int]:
    """Spawn `steadyhand mcp` (stdio) and time it to the tools/list answer; (ms, tools)."""
    env = dict(os.environ, STEADYHAND_STATE_DIR=str(state_dir))
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *cli,
        "mcp",
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=1 << 24,  # the tool list is one line of ~100 KB
    )
    assert process.stdin is not None and process.stdout is not None
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "cli_latency", "version": "1"},
    }
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ):
        process.stdin.write(json.dumps(message).encode() + b"\n")
    await process.stdin.drain()
    while True:
        line = await process.stdout.readline()
        if not line:
            raise RuntimeError("steadyhand mcp closed its stdout before listing its tools")
        reply = json.loads(line)
        if reply.get("id") == 2:
            break
    elapsed = (time.perf_counter() - started) * 1000
    process.stdin.close()
    await process.wait()
    return elapsed, len(reply["result"]["tools"])


async def measure_cold(rounds: int, url: str, root: Path, ab: Path | None) -> Samples:
    samples: Samples = defaultdict(list)
    mcp_dir = root / "mcp"
    for i in range(rounds):
        await timed(samples[FLOOR], lambda: run_process(dict(os.environ), *FLOOR_ARGV))
        await steadyhand_cold(url, root / f"cold-{i}", samples, cli_argv())
        if VERSUS:
            await steadyhand_cold(url, root / f"versus-cold-{i}", samples, VERSUS, "versus")
        if ab is not None:
            await agent_browser_cold(ab, url, root / f"ab-cold-{i}", samples)
        ms, count = await mcp_list_tools(mcp_dir, cli_argv())
        samples["mcp list-tools" if i else "mcp list-tools, first"].append(ms)
        samples["mcp tools listed"].append(count)
        if VERSUS:
            ms, _ = await mcp_list_tools(root / "versus-mcp", VERSUS)
            samples["versus mcp list-tools" if i else "versus mcp list-tools, first"].append(ms)
    return samples


# ---------------------------------------------------------------- report


def table(title: str, samples: Samples, versus: dict[str, str]) -> None:
    floor = summary(samples[FLOOR])[0]
    print(f"\n{title}")
    print(f"{'what':<38}{'median':>9}{'p90':>9}{'x floor':>9}  vs agent-browser")
    for name, values in samples.items():
        if name == "mcp tools listed":
            continue
        median, p90 = summary(values)
        line = f"{name:<38}{median:>9.1f}{p90:>9.1f}{median / floor:>9.2f}"
        other = versus.get(name)
        if other and samples.get(other):
            line += f"  {median / summary(samples[other])[0]:.2f}x {other}"
        print(line)


def report(hot: Samples, cold: Samples, n: int, rounds: int, ab: Path | None) -> None:
    print(f"cli_latency: form fixture; hot n={n}, cold and mcp rounds={rounds}; times in ms")
    print(f"floor: `{FLOOR}` ({sys.executable}); steadyhand: {' '.join(cli_argv())}")
    if VERSUS:
        print(f"versus: {VERSUS[0]} (another build, measured beside it)")
    print(f"agent-browser: {ab or 'not installed (--agent-browser PATH)'}")
    table(
        "hot: a daemon running, interleaved",
        hot,
        {
            "cli daemon status": "agent-browser get url",
            "cli snapshot": "agent-browser snapshot",
            "cli click": "agent-browser click",
        },
    )
    print("\nratios of medians (whole CLI process / in-process engine):")
    for op in ("snapshot", "click"):
        cli_ms = summary(hot[f"cli {op}"])[0]
        rpc_ms = summary(hot[f"rpc {op}"])[0]
        local_ms = summary(hot[f"inproc {op}"])[0]
        print(
            f"  {op:<9} cli/inproc {cli_ms / local_ms:5.2f}x   rpc/inproc {rpc_ms / local_ms:5.2f}x"
            f"   CLI overhead {cli_ms - rpc_ms:6.1f} ms over the RPC round trip"
        )
    table(
        "cold: from no daemon, and MCP from spawn to tools/list, interleaved",
        cold,
        {"steadyhand cold start to snapshot": "agent-browser cold start to snapshot"},
    )
    floor_hot, floor_cold = summary(hot[FLOOR])[0], summary(cold[FLOOR])[0]
    mcp = "mcp list-tools" if cold.get("mcp list-tools") else "mcp list-tools, first"
    print("\ntargets (issue 17, item 4), medians; x: ratio to the floor")
    target(
        "CLI per-call (daemon status)",
        hot,
        ["cli daemon status", "versus daemon status", "agent-browser get url"],
        floor_hot,
        2 * floor_hot,
    )
    target(
        "cold start to first snapshot",
        cold,
        [
            "steadyhand cold start to snapshot",
            "versus cold start to snapshot",
            "agent-browser cold start to snapshot",
        ],
        floor_cold,
        800,
    )
    target("MCP list-tools", cold, [mcp, "versus " + mcp], floor_cold, 500)
    print(f"  (MCP: {int(cold['mcp tools listed'][0])} tools; agent-browser has no MCP server)")


def target(title: str, samples: Samples, names: list[str], floor: float, limit: float) -> None:
    """One target's line: ours against the limit, then the others measured beside it."""
    ours = summary(samples[names[0]])[0]
    line = f"  {title:<30}{ours:8.1f} ms {ours / floor:6.2f}x  (<= {limit:.0f} ms: "
    line += "met)" if ours <= limit else "missed)"
    for other in names[1:]:
        if samples.get(other):
            theirs = summary(samples[other])[0]
            line += f"   {other.split(' ')[0]}: {theirs:.1f} ms {theirs / floor:.2f}x"
    print(line)


async def main(n: int, rounds: int, ab: Path | None) -> None:
    server = serve_directory(FIXTURES)
    url = f"{base_url(server)}/form.html"
    root = Path(tempfile.mkdtemp(prefix="sh-bench-"))
    try:
        hot = await measure_hot(n, url, root, ab)
        cold = await measure_cold(rounds, url, root, ab)
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    report(hot, cold, n, rounds, ab)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", type=int, default=30, help="hot samples per measurement (>= 20)")
    parser.add_argument("--cold", type=int, default=5, help="cold and MCP rounds (>= 3)")
    parser.add_argument("--agent-browser", help="agent-browser's native binary")
    parser.add_argument("--cli", help="the steadyhand command to measure (another build's)")
    parser.add_argument("--versus", help="another build's steadyhand, measured beside it")
    args = parser.parse_args()
    if args.cli:
        CLI.append(args.cli)
    if args.versus:
        VERSUS.append(args.versus)
    asyncio.run(main(max(20, args.n), max(3, args.cold), find_agent_browser(args.agent_browser)))
