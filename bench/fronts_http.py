"""What the HTTP API costs on top of the daemon's own JSON-RPC socket.

For the form fixture on a warm daemon, measures `snapshot` and `click` (on the Gift wrap
checkbox, which toggles and never navigates) two ways, interleaved in one run so machine
noise hits them alike:
  http   POST /v1/<command> to `steadyhand serve --http` (its own process, which relays
         to the daemon), from one keep-alive httpx client
  rpc    the same command through client.DaemonBackend straight to the daemon's socket
and `daemon.status` both ways, as the floor of each path. Each front acts in its own
session. Prints median and p95 side by side; asserts nothing about time.

    .venv/bin/python bench/fronts_http.py [-n 30]
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
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import httpx

from steadyhand import processes, rpc_client
from steadyhand.client import DaemonBackend
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.snapshot.lookup import find_ref

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.http_server: `serve --http` as a process
from tests.http_server import start_http  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "site"
WARMUP = 3


async def timed(samples: list[float], call: Awaitable[Any]) -> None:
    """Await a call not started yet (a coroutine), timing it."""
    started = time.perf_counter()
    await call
    samples.append((time.perf_counter() - started) * 1000)


def median_p95(samples: list[float]) -> tuple[float, float]:
    return statistics.median(samples), statistics.quantiles(samples, n=20)[-1]


async def measure(n: int) -> dict[str, list[float]]:
    """Interleaved samples of every measurement, keyed by name."""
    site = serve_directory(FIXTURES)
    url = f"{base_url(site)}/form.html"
    root = Path(tempfile.mkdtemp(prefix="sh-bench-http-"))
    settings = Settings.load(state_dir=root / "state")
    rpc_client.start_daemon(settings)
    server = start_http(dict(os.environ, STEADYHAND_STATE_DIR=str(settings.state_dir)))
    backend = DaemonBackend(settings, autostart=False)
    api = httpx.AsyncClient(base_url=server.url, headers=server.auth, timeout=120)
    samples: dict[str, list[float]] = defaultdict(list)

    async def http(command: str, **params: Any) -> Any:
        response = await api.post(f"/v1/{command}", json=params)
        body = response.json()
        if response.status_code != 200:
            raise RuntimeError(f"{command} over HTTP: {response.status_code} {body}")
        return body["result"]

    async def rpc(command: str, **params: Any) -> Any:
        return await backend.call(command, params)

    try:
        refs = {}
        for name, front in (("http", http), ("rpc", rpc)):
            await front("open", session=name, url=url)
            page = (await front("snapshot", session=name))["snapshot"]
            refs[name] = find_ref(page, "checkbox", "Gift wrap")
        for i in range(WARMUP + n):
            round_samples: dict[str, list[float]] = defaultdict(list)
            for name, front in (("http", http), ("rpc", rpc)):
                await timed(round_samples[f"{name} daemon.status"], front("daemon.status"))
                await timed(round_samples[f"{name} snapshot"], front("snapshot", session=name))
                click = front("click", session=name, ref=refs[name])
                await timed(round_samples[f"{name} click"], click)
            if i >= WARMUP:
                for key, values in round_samples.items():
                    samples[key].extend(values)
    finally:
        await api.aclose()
        await backend.aclose()
        server.stop()
        rpc_client.request(settings, "daemon.stop", {}, 30)
        processes.wait_exit(int(rpc_client.daemon_pid(settings) or 0), 30)
        site.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    return samples


def report(samples: dict[str, list[float]], n: int) -> None:
    print(f"fronts_http: form fixture, warm daemon, n={n} each, interleaved; times in ms")
    print(
        f"{'command':<15}{'http median':>12}{'http p95':>10}{'rpc median':>12}{'rpc p95':>10}"
        f"{'http - rpc':>12}"
    )
    for command in ("daemon.status", "snapshot", "click"):
        h_med, h_p95 = median_p95(samples[f"http {command}"])
        r_med, r_p95 = median_p95(samples[f"rpc {command}"])
        print(
            f"{command:<15}{h_med:>12.1f}{h_p95:>10.1f}{r_med:>12.1f}{r_p95:>10.1f}"
            f"{h_med - r_med:>12.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", type=int, default=30, help="samples per measurement (>= 20)")
    n = max(20, parser.parse_args().n)
    report(asyncio.run(measure(n)), n)


if __name__ == "__main__":
    main()
