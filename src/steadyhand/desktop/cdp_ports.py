"""Find the remote-debugging (CDP) endpoint of a Chromium or Electron application by its
process: the TCP ports it listens on at loopback, asked `/json/version`.

Such an app is started with `--remote-debugging-port=N` (0: a free port, announced in its
profile's DevToolsActivePort). Only loopback listeners are considered: a debugging port
open to the network is not something to use, or to encourage.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

LISTEN = "0A"  # the TCP state in /proc/net/tcp
LOOPBACK = {"0100007F": "127.0.0.1", "00000000000000000000000001000000": "[::1]"}
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")
# No proxy: the environment's http_proxy would otherwise get even 127.0.0.1 requests.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
PROBE_TIMEOUT_S = 0.5


def socket_inodes(pid: int) -> set[str]:
    """The inodes of the sockets `pid` holds open (none when it is gone or not ours)."""
    found: set[str] = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return found
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            found.add(link[len("socket:[") : -1])
    return found


def loopback_listeners(pid: int) -> list[tuple[str, int]]:
    """(host, port) of each TCP socket `pid` listens on at 127.0.0.1 or ::1."""
    inodes = socket_inodes(pid)
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != LISTEN or fields[9] not in inodes:
                continue
            address, port = fields[1].split(":")
            if address in LOOPBACK:
                ports.append((LOOPBACK[address], int(port, 16)))
    return sorted(set(ports))


def probe(port: int, host: str = "127.0.0.1") -> str | None:
    """`http://HOST:PORT` when a CDP endpoint answers there, its websocket on loopback too
    (Playwright connects to the websocket URL the endpoint gives)."""
    url = f"http://{host}:{port}"
    try:
        with DIRECT.open(f"{url}/json/version", timeout=PROBE_TIMEOUT_S) as answer:
            version = json.loads(answer.read(65536))
    except (OSError, ValueError):
        return None
    socket_url = version.get("webSocketDebuggerUrl") if isinstance(version, dict) else None
    if not isinstance(socket_url, str) or urlsplit(socket_url).hostname not in LOOPBACK_HOSTS:
        return None
    return url


def endpoint_of(pid: int) -> str | None:
    """The CDP endpoint of the application `pid`, or None (runs blocking probes)."""
    for host, port in loopback_listeners(pid):
        found = probe(port, host)
        if found is not None:
            return found
    return None


def running(pid: int) -> bool:
    """Whether process `pid` exists (a look in /proc: no system call that could block)."""
    return Path(f"/proc/{pid}").exists()
