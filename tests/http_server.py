"""`steadyhand serve --http` as its own process, for tests and benchmarks."""

from __future__ import annotations

import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

BANNER = re.compile(r"^steadyhand HTTP API on (?P<url>http://\S+) \(token: (?P<token>.+)\)$")


@dataclass
class HttpServer:
    process: subprocess.Popen[str]
    url: str
    token_path: Path
    banner: str
    log: IO[str]  # the server's stderr, kept in final_log once it stopped
    final_log: str = ""

    @property
    def token(self) -> str:
        return self.token_path.read_text().strip()

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def client(self, **options: Any) -> httpx.Client:
        """A client with the token; `timeout` well past the longest command deadline."""
        options.setdefault("timeout", 120.0)
        return httpx.Client(base_url=self.url, headers=self.auth, **options)

    def stderr(self) -> str:
        if self.log.closed:
            return self.final_log
        self.log.seek(0)
        return self.log.read()

    def stop(self) -> int:
        """SIGTERM (to this server's pid only) and its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(30)
        finally:
            assert self.process.stdout is not None
            self.process.stdout.close()
            self.final_log = self.stderr()
            self.log.close()


def start_http(
    env: dict[str, str], *args: str, cwd: Path | None = None, wait_s: float = 30.0
) -> HttpServer:
    """Start the server on a free loopback port and wait for its banner line."""
    log = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by HttpServer.stop
    process = subprocess.Popen(
        [sys.executable, "-m", "steadyhand", "serve", "--http", "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env=env,
        cwd=cwd,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + wait_s
    line = ""
    while not line and time.monotonic() < deadline and process.poll() is None:
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            line = process.stdout.readline().strip()
    match = BANNER.match(line)
    if match is None:
        process.kill()
        process.wait()
        log.seek(0)
        raise AssertionError(f"no banner from serve (got {line!r}): {log.read()}")
    return HttpServer(process, match["url"], Path(match["token"]), line, log)
