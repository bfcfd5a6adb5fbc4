"""`steadyhand serve --http`: the HTTP API (fronts/http/app.py) as its own process.

    steadyhand serve --http [--host 127.0.0.1] [--port 8787] [--allow-remote] [--local]

Listens on loopback only unless allowed otherwise, with the bearer token from `http.token`
in the state dir (made on first start, never printed). Prints one line with the URL and
the token file, then serves until SIGINT or SIGTERM. Commands run on the daemon (started
when none runs), or with `--local` on an engine inside this process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import socket
import sys
from collections.abc import Iterator

import uvicorn

from steadyhand.client import Backend, DaemonBackend, LocalBackend
from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.cli.errors import report_error
from steadyhand.fronts.http.app import build_app
from steadyhand.fronts.http.security import (
    ASGIApp,
    check_bind,
    load_or_create_token,
    network_options,
)

__all__ = ["build_app", "main"]

LISTEN_HINT = "choose another --port (0 picks a free one) or --host"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="steadyhand serve",
        description="Serve the command table as an HTTP API on loopback, behind a bearer "
        "token (http.token in the state dir). The MCP front is `steadyhand mcp`.",
    )
    parser.add_argument("--http", action="store_true", help="serve the HTTP API (required)")
    network_options(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    try:
        if not args.http:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "serve needs --http (the only front `serve` runs)",
                "run `steadyhand serve --http`; for MCP run `steadyhand mcp`\n"
                + parser.format_usage().strip(),
            )
        settings = Settings.load()
        host = args.host or settings.http_host
        remote = args.allow_remote or settings.http_allow_remote
        check_bind(host, remote)
        token = load_or_create_token(settings)
        sock = listen(host, settings.http_port if args.port is None else args.port)
    except SteadyhandError as exc:
        return report_error(exc, as_json=False)
    backend: Backend = LocalBackend(settings) if args.local else DaemonBackend(settings)
    allowed = frozenset({host, socket.gethostname()}) if remote else frozenset()
    app = build_app(backend, settings, token, allowed)
    url = url_of(sock)
    print(f"steadyhand HTTP API on {url} (token: {settings.http_token_path})", flush=True)
    print(f"live view: {url}/ (log in with the token)", file=sys.stderr, flush=True)
    asyncio.run(serve(app, sock, backend))
    return 0


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: a free one), ready before uvicorn runs."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(128)
        except BaseException:
            sock.close()
            raise
    except (OSError, OverflowError) as exc:
        why = f"cannot listen on {host}:{port}: {exc}"
        raise SteadyhandError(ErrorCode.BAD_REQUEST, why, LISTEN_HINT) from exc
    sock.set_inheritable(False)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class _Server(uvicorn.Server):
    """uvicorn, stopping on SIGINT/SIGTERM without re-raising the signal afterwards: the
    process closes its backend and exits 0."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.handle_exit, sig, None)
        try:
            yield
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)


async def serve(app: ASGIApp, sock: socket.socket, backend: Backend) -> None:
    config = uvicorn.Config(
        app,
        lifespan="off",
        log_level="warning",
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=5,
    )
    try:
        await _Server(config).serve(sockets=[sock])
    finally:
        await backend.aclose()
        print("steadyhand HTTP API stopped", file=sys.stderr, flush=True)
