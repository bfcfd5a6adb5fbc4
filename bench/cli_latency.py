"""How much the daemon + thin CLI cost on top of the work itself.

For the form fixture, measures `snapshot` and `click` three ways, interleaved in one run
so machine noise hits them alike:
  cli      a whole `python -m steadyhand ...` process talking to a running daemon
  rpc      one JSON-RPC round trip from this process to the same daemon (no process start)
  inproc   the command run in this process on its own engine (no socket, no process)
and, for reference, `daemon status` through the CLI, a bare `python -c pass`, and how long
a click on a stale ref (its element re-rendered) takes to be refused over RPC.
Prints medians, p90 and ratios; asserts nothing about time.

    .venv/bin/python bench/cli_latency.py [-n 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from steadyhand.call import Runtime
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.dispatch import execute
from steadyhand.engine.engine import Engine
from steadyhand.errors import SteadyhandError
from steadyhand.fronts import rpc_client
from steadyhand.snapshot.lookup import find_ref
from steadyhand.store.sqlite import Store

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "site"


async def timed(samples: list[float], action: Callable[[], Awaitable[Any]]) -> Any:
    started = time.perf_counter()
    result = await action()
    samples.append((time.perf_counter() - started) * 1000)
    return result


async def run_process(env: dict[str, str], *argv: str) -> None:
    process = await asyncio.create_subprocess_exec(
        *argv, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    _, err = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"{argv} failed: {err.decode()}")


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.9 * (len(ordered) - 1))]


async def measure(n: int) -> dict[str, list[float]]:
    """Interleaved samples of every measurement, keyed by name."""
    server = serve_directory(FIXTURES)
    url = f"{base_url(server)}/form.html"
    root = Path(tempfile.mkdtemp(prefix="sh-bench-"))
    daemon_settings = Settings.load(state_dir=root / "daemon")
    env = dict(os.environ, STEADYHAND_STATE_DIR=str(daemon_settings.state_dir))
    script = Path(sys.executable).with_name("steadyhand")  # what users run
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "steadyhand"]

    def rpc(method: str, **params: Any) -> Awaitable[Any]:
        return asyncio.to_thread(rpc_client.call, daemon_settings, method, params, False)

    rpc_client.start_daemon(daemon_settings)
    local_settings = Settings.load(state_dir=root / "inproc")
    local_settings.state_dir.mkdir(mode=0o700)
    store = Store(local_settings.store_path)
    runtime = Runtime(local_settings, Engine(local_settings, store), store)
    samples: dict[str, list[float]] = defaultdict(list)
    try:
        await rpc("open", url=url)
        await execute(runtime, "open", {"url": url})
        daemon_ref = find_ref((await rpc("snapshot"))["snapshot"], "checkbox", "Gift wrap")
        local_page = (await execute(runtime, "snapshot", {}))["snapshot"]
        local_ref = find_ref(local_page, "checkbox", "Gift wrap")

        await rpc("open", session="stale", url=f"{base_url(server)}/rerender.html")
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

        python = [sys.executable, "-c", "pass"]
        for _ in range(n):
            await timed(samples["python -c pass"], lambda: run_process(env, *python))
            await timed(
                samples["cli daemon status"], lambda: run_process(env, *cli, "daemon", "status")
            )
            await timed(samples["cli snapshot"], lambda: run_process(env, *cli, "snapshot"))
            await timed(samples["cli click"], lambda: run_process(env, *cli, "click", daemon_ref))
            await timed(samples["rpc snapshot"], lambda: rpc("snapshot"))
            await timed(samples["rpc click"], lambda: rpc("click", ref=daemon_ref))
            await timed(samples["inproc snapshot"], lambda: execute(runtime, "snapshot", {}))
            await timed(
                samples["inproc click"], lambda: execute(runtime, "click", {"ref": local_ref})
            )
            await timed(samples["rpc stale ref"], refused)
    finally:
        await runtime.engine.shutdown()
        runtime.store.close()
        rpc_client.request(daemon_settings, "daemon.stop", {}, 30)
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    return samples


def report(samples: dict[str, list[float]], n: int) -> None:
    print(f"cli_latency: form fixture, n={n} each, interleaved; times in ms")
    print(f"{'what':<20}{'median':>9}{'p90':>9}")
    for name, values in samples.items():
        median, p90 = summary(values)
        print(f"{name:<20}{median:>9.1f}{p90:>9.1f}")
    print("\nratios of medians (whole CLI process / in-process engine):")
    for op in ("snapshot", "click"):
        cli_ms = summary(samples[f"cli {op}"])[0]
        rpc_ms = summary(samples[f"rpc {op}"])[0]
        local_ms = summary(samples[f"inproc {op}"])[0]
        print(
            f"  {op:<9} cli/inproc {cli_ms / local_ms:5.2f}x   rpc/inproc {rpc_ms / local_ms:5.2f}x"
            f"   CLI overhead {cli_ms - rpc_ms:6.1f} ms over the RPC round trip"
        )
    status = summary(samples["cli daemon status"])[0]
    bare = summary(samples["python -c pass"])[0]
    print(
        f"  CLI's own cost (daemon status) {status:.1f} ms, of which {bare:.1f} ms is starting "
        f"the interpreter: {status - bare:.1f} ms for imports, parsing and the socket"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", type=int, default=30, help="samples per measurement (>= 20)")
    n = max(20, parser.parse_args().n)
    report(asyncio.run(measure(n)), n)
