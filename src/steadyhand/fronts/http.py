"""The HTTP API: every command of the table as `POST /v1/<name>`, behind the Guard.

    steadyhand serve --http [--host 127.0.0.1] [--port 8787] [--local]

The body is the command's params as a JSON object (empty = {}); the answer is
`{"ok": true, "result": ...}` or `{"ok": false, "error": {code, message, hint, data}}` with
the code's HTTP status (errors.py). `GET /v1/health` is the daemon's status and
`GET /openapi.json` the OpenAPI document (fronts/openapi.py). Every route needs the bearer
token from `http.token` in the state dir (fronts/http_security.py). Commands run on the
daemon (started when none runs), or with `--local` on an engine inside this process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import math
import signal
import socket
import sys
from collections.abc import Iterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from steadyhand.client import Backend, DaemonBackend, LocalBackend
from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts import openapi
from steadyhand.fronts.cli import report_error
from steadyhand.fronts.http_security import (
    ASGIApp,
    BodyTooLarge,
    Guard,
    check_bind,
    load_or_create_token,
)

log = logging.getLogger("steadyhand.http")

JSON = "application/json"
LISTEN_HINT = "choose another --port (0 picks a free one) or --host"


def build_app(
    backend: Backend,
    settings: Settings,
    token: str,
    allowed_hosts: frozenset[str] = frozenset(),
) -> ASGIApp:
    """The API as an ASGI app: routes from the command table, wrapped in the Guard."""
    document = _dumps(openapi.document())

    async def run_command(request: Request) -> Response:
        try:
            params = await read_params(request)
            return ok(await backend.call(request.path_params["name"], params))
        except SteadyhandError as exc:
            return failed(exc.error_class.http_status, exc.to_dict())
        except BodyTooLarge:
            return too_large(settings.http_max_body_bytes)
        except RecursionError:  # params the decoder took but the backend cannot re-encode
            return failed(400, _bad("the params nest too deep").to_dict())
        except Exception as exc:
            return internal(request, exc)

    async def health(request: Request) -> Response:
        try:
            return ok(await backend.call(openapi.HEALTH, {}))
        except SteadyhandError as exc:
            return failed(exc.error_class.http_status, exc.to_dict())
        except Exception as exc:
            return internal(request, exc)

    async def openapi_json(request: Request) -> Response:
        return Response(document, media_type=JSON)

    app = Starlette(
        routes=[
            Route(openapi.PREFIX + "health", health, methods=["GET"]),
            Route("/openapi.json", openapi_json, methods=["GET"]),
            Route(openapi.PREFIX + "{name:path}", run_command, methods=["POST"]),
        ],
        exception_handlers={HTTPException: no_route},  # type: ignore[dict-item]
    )
    return Guard(app, token, settings.http_max_body_bytes, allowed_hosts)


async def read_params(request: Request) -> dict[str, Any]:
    """The body as a params object; an empty body is {}. (BodyTooLarge from the Guard's
    cap on a chunked body passes through.)"""
    try:
        body = await request.body()
    except ClientDisconnect as exc:
        raise _bad("the client went away before sending its whole body") from exc
    if not body.strip():
        return {}
    try:
        params = json.loads(body, parse_constant=_no_constant)
    except RecursionError as exc:
        raise _bad("the params nest too deep") from exc
    except ValueError as exc:
        raise _bad(f"the body is not JSON: {exc}") from exc
    if not isinstance(params, dict):
        raise _bad(f"the body is a JSON {type(params).__name__}, not an object of params")
    return params


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _bad(message: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.BAD_REQUEST,
        message,
        'send the command\'s params as a JSON object, e.g. {"session": "me"} '
        "(see GET /openapi.json)",
    )


def ok(result: Any) -> Response:
    return Response(_dumps({"ok": True, "result": result}), media_type=JSON)


def failed(status: int, error: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return Response(_dumps({"ok": False, "error": error}), status, headers, media_type=JSON)


def too_large(limit: int) -> Response:
    return failed(
        413,
        {
            "code": "body_too_large",
            "message": f"the request body is over {limit} bytes",
            "hint": "send smaller params (put long text in a file)",
        },
    )


def internal(request: Request, exc: Exception) -> Response:
    log.exception("%s %s failed", request.method, request.url.path, exc_info=exc)
    error = SteadyhandError(
        ErrorCode.INTERNAL,
        f"{type(exc).__name__}: {exc}",
        "see the log of `steadyhand serve`; please report",
    )
    return failed(500, error.to_dict())


async def no_route(request: Request, exc: HTTPException) -> Response:
    """404 and 405 from the router, in the error envelope."""
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        return failed(
            405,
            {
                "code": str(ErrorCode.BAD_REQUEST),
                "message": f"{request.method} is not allowed on {request.url.path}",
                "hint": f"use {allowed}" if allowed else "commands are POST /v1/<name>",
            },
            {"Allow": allowed} if allowed else None,
        )
    return failed(
        exc.status_code,
        {
            "code": str(ErrorCode.UNKNOWN_COMMAND),
            "message": f"no route {request.method} {request.url.path}",
            "hint": "commands are POST /v1/<name>; GET /openapi.json lists them",
        },
    )


def _dumps(payload: Any) -> bytes:
    """Strict JSON in UTF-8: a float JSON cannot carry (NaN, infinities) becomes null, and
    text with a lone surrogate (a page may hold one) is sent \\u-escaped."""
    try:
        text = json.dumps(payload, ensure_ascii=False, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(payload), ensure_ascii=False, allow_nan=False)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return json.dumps(json.loads(text)).encode()


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


# ---------------------------------------------------------------- the server process


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="steadyhand serve",
        description="Serve the command table as an HTTP API on loopback, behind a bearer "
        "token (http.token in the state dir). The MCP front is `steadyhand mcp`.",
    )
    parser.add_argument("--http", action="store_true", help="serve the HTTP API (required)")
    parser.add_argument("--host", help="address to listen on (default: http_host, 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default: http_port, 8787; 0: any free)")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback address (put TLS in front; the API drives your browser)",
    )
    parser.add_argument(
        "--local", action="store_true", help="run the engine in this process, not the daemon"
    )
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
    print(f"steadyhand HTTP API on {url_of(sock)} (token: {settings.http_token_path})", flush=True)
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
