"""Finding a process's CDP endpoint: its loopback listeners, asked /json/version."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from steadyhand.desktop.cdp_ports import endpoint_of, loopback_listeners, probe


def listening(host: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.bind((host, 0))
    sock.listen()
    return sock


def test_loopback_listeners_are_this_process_s_own_on_loopback_only() -> None:
    local, anywhere, v6 = listening("127.0.0.1"), listening("0.0.0.0"), None
    try:
        with contextlib.suppress(OSError):  # no IPv6 here
            v6 = listening("::1")
        ports = loopback_listeners(os.getpid())
        assert ("127.0.0.1", local.getsockname()[1]) in ports
        assert anywhere.getsockname()[1] not in {p for _h, p in ports}  # open to the network
        if v6 is not None:
            assert ("[::1]", v6.getsockname()[1]) in ports
        assert loopback_listeners(2**22 + 7) == []  # no such process
    finally:
        for sock in (local, anywhere, v6):
            if sock is not None:
                sock.close()


def serving(answer: bytes) -> Iterator[int]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/json/version" else 404)
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def cdp_like() -> Iterator[int]:
    version = {"Browser": "Chrome/1", "webSocketDebuggerUrl": "ws://127.0.0.1/devtools/x"}
    yield from serving(json.dumps(version).encode())


@pytest.fixture
def not_cdp() -> Iterator[int]:
    yield from serving(b"<html>hello</html>")


@pytest.fixture
def cdp_elsewhere() -> Iterator[int]:
    """An endpoint on loopback whose websocket is on another machine."""
    version = {"Browser": "Chrome/1", "webSocketDebuggerUrl": "ws://10.1.2.3:9222/devtools/x"}
    yield from serving(json.dumps(version).encode())


def test_probe_tells_a_debugging_port_from_another_server(
    cdp_like: int, not_cdp: int, cdp_elsewhere: int
) -> None:
    assert probe(cdp_like) == f"http://127.0.0.1:{cdp_like}"
    assert probe(not_cdp) is None
    assert probe(cdp_elsewhere) is None  # its websocket is not on this machine
    closed = listening("127.0.0.1")
    port = closed.getsockname()[1]
    closed.close()
    assert probe(port) is None  # nothing listens


def test_probe_goes_direct_whatever_proxy_the_environment_names(cdp_like: int) -> None:
    """In a fresh process (urllib reads the proxy settings once) with a proxy that
    answers nothing set, the probe still reaches the endpoint on loopback."""
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", "http_proxy")}
    env["http_proxy"] = "http://127.0.0.1:9"
    code = f"from steadyhand.desktop.cdp_ports import probe; print(probe({cdp_like}))"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == f"http://127.0.0.1:{cdp_like}", done.stderr


def test_endpoint_of_this_process_finds_its_debugging_port(cdp_like: int) -> None:
    assert endpoint_of(os.getpid()) == f"http://127.0.0.1:{cdp_like}"
