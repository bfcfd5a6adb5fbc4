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

LISTEN = "0A"  # the TCP state in /proc/net/tcp
LOOPBACK = {"0100007F", "00000000000000000000000001000000"}  # 127.0.0.1 and ::1
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


def loopback_listeners(pid: int) -> list[int]:
    """The TCP ports `pid` listens on at 127.0.0.1 or ::1."""
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
                ports.append(int(port, 16))
    return sorted(set(ports))


def probe(port: int) -> str | None:
    """`http://127.0.0.1:PORT` when a CDP endpoint answers there."""
    url = f"http://127.0.0.1:{port}"
    try:
        with urllib.request.urlopen(f"{url}/json/version", timeout=PROBE_TIMEOUT_S) as answer:
            version = json.loads(answer.read(65536))
    except (OSError, ValueError):
        return None
    return url if isinstance(version, dict) and "webSocketDebuggerUrl" in version else None


def endpoint_of(pid: int) -> str | None:
    """The CDP endpoint of the application `pid`, or None (runs blocking probes)."""
    for port in loopback_listeners(pid):
        found = probe(port)
        if found is not None:
            return found
    return None


def running(pid: int) -> bool:
    """Whether process `pid` exists (a look in /proc: no system call that could block)."""
    return Path(f"/proc/{pid}").exists()
