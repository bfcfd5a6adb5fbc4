"""The HTTP API as an ASGI app: every command of the table as `POST /v1/<name>`.

The body is the command's params as a JSON object (empty = {}); the answer is
`{"ok": true, "result": ...}` or `{"ok": false, "error": {code, message, hint, data}}` with
the code's HTTP status (errors.py). `GET /v1/health` is the daemon's status and
`GET /openapi.json` the OpenAPI document (fronts/http/openapi.py), `GET /metrics` the daemon's
metrics in Prometheus' text format (observe/metrics.py); `/` is the live view, a page
for people (fronts/http/live_app.py). Every route is behind the Guard
(fronts/http/security.py): the bearer token (or the live view's login), CSRF and Host
checks, the body cap.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from steadyhand.client import Backend
from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.approver import HEADER as APPROVER_HEADER
from steadyhand.fronts.approver import check_http
from steadyhand.fronts.approver import token_path as approver_token_path
from steadyhand.fronts.http import openapi
from steadyhand.fronts.http.live_app import live_routes
from steadyhand.fronts.http.live_auth import Logins
from steadyhand.fronts.http.security import (
    ASGIApp,
    BodyTooLarge,
    Guard,
    load_or_create_token,
    too_large,
)
from steadyhand.observe.metrics import prometheus_text

log = logging.getLogger("steadyhand.http")

JSON = "application/json"


def build_app(
    backend: Backend,
    settings: Settings,
    token: str,
    allowed_hosts: frozenset[str] = frozenset(),
) -> ASGIApp:
    """The API as an ASGI app: routes from the command table, wrapped in the Guard."""
    document = _dumps(openapi.document())
    approver = (
        load_or_create_token(settings, approver_token_path(settings))
        if settings.approver_token
        else ""
    )

    async def run_command(request: Request) -> Response:
        async def run() -> Any:
            name = request.path_params["name"]
            check_http(settings, name, request.headers.get(APPROVER_HEADER), approver)
            return await backend.call(name, await read_params(request))

        return await respond(request, run(), settings.http_max_body_bytes)

    async def health(request: Request) -> Response:
        return await respond(
            request, backend.call(openapi.HEALTH, {}), settings.http_max_body_bytes
        )

    async def openapi_json(request: Request) -> Response:
        return Response(document, media_type=JSON)

    async def metrics(request: Request) -> Response:
        try:
            data = await backend.call(openapi.METRICS, {})
        except SteadyhandError as exc:
            return failed(exc.code.http_status, exc.to_dict())
        return Response(prometheus_text(data), media_type=openapi.PROMETHEUS)

    async def live_respond(request: Request, result: Awaitable[Any]) -> Response:
        return await respond(request, result, settings.http_max_body_bytes)

    logins = Logins(token, approver)
    app = Starlette(
        routes=[
            Route(openapi.PREFIX + "health", health, methods=["GET"]),
            Route("/openapi.json", openapi_json, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
            Route(openapi.PREFIX + "{name:path}", run_command, methods=["POST"]),
            *live_routes(backend, settings, logins, live_respond),
        ],
        exception_handlers={HTTPException: no_route},  # type: ignore[dict-item]
    )
    return Guard(app, token, settings.http_max_body_bytes, allowed_hosts, logins)


async def respond(request: Request, result: Awaitable[Any], limit: int) -> Response:
    """The result in the ok envelope, or the error it raised in the error envelope."""
    try:
        return ok(await result)
    except SteadyhandError as exc:
        return failed(exc.code.http_status, exc.to_dict())
    except BodyTooLarge:
        return body_too_large(limit)
    except RecursionError:  # params the decoder took but the backend cannot re-encode
        return failed(400, _bad("the params nest too deep").to_dict())
    except Exception as exc:
        return internal(request, exc)


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


def body_too_large(limit: int) -> Response:
    status, code, message, hint = too_large(limit)
    return failed(status, {"code": code, "message": message, "hint": hint})


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
