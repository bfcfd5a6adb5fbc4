"""The HTTP API's OpenAPI 3.1 document, generated from the command table.

One operation per command (`POST /v1/<name>`, operationId = the name), its params as the
request body and its result in the ok envelope; the error envelope for the statuses the
command is known to return, plus `default` for the rest. Schemas are the flat ones every
front uses (fronts/schema.py), with `X | None` written as `type: [X, "null"]`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from steadyhand import __version__
from steadyhand.commands import COMMANDS, Command
from steadyhand.errors import ErrorCode
from steadyhand.fronts.schema import model_schema, params_schema

PREFIX = "/v1/"
HEALTH = "daemon.status"  # what GET /v1/health answers
METRICS = "metrics"  # what GET /metrics answers, as Prometheus text
PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8"

# Refusals the HTTP layer itself makes (fronts/http/security.py, fronts/http/server.py).
GUARD_CODES: dict[int, tuple[str, ...]] = {
    401: ("unauthorized",),
    403: ("forbidden",),
    413: ("body_too_large",),
}
# Codes by what a command does. Any command: bad input, the deadline, the daemon, a bug.
ANY_COMMAND = (
    ErrorCode.BAD_REQUEST,
    ErrorCode.TIMEOUT,
    ErrorCode.DAEMON_UNAVAILABLE,
    ErrorCode.INTERNAL,
)
# A command in a session that must exist, on one of its tabs.
ON_A_PAGE = (
    ErrorCode.UNKNOWN_SESSION,
    ErrorCode.UNKNOWN_TAB,
    ErrorCode.SESSION_SUSPENDED,
    ErrorCode.NOT_FOUND,
    ErrorCode.STALE_REF,
    ErrorCode.AMBIGUOUS,
    ErrorCode.DIALOG_OPEN,
    ErrorCode.ACTION_FAILED,
    ErrorCode.NAVIGATION_FAILED,
    ErrorCode.BROWSER_CRASHED,
)
# A command that may start a session (and its browser) or load a page.
STARTS_SESSION = (
    ErrorCode.INVALID_URL,
    ErrorCode.NAVIGATION_FAILED,
    ErrorCode.POOL_EXHAUSTED,
    ErrorCode.PROFILE_IN_USE,
    ErrorCode.BROWSER_NOT_FOUND,
    ErrorCode.BROWSER_CRASHED,
)
# A command that acts on an element: it may be refused, unverified, or gated.
ACTS = (
    ErrorCode.NOT_ACTIONABLE,
    ErrorCode.VERIFICATION_FAILED,
    ErrorCode.POLICY_DENIED,
    ErrorCode.APPROVAL_DENIED,
)

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"const": False},
        "error": {
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "description": "stable error code: "
                    + ", ".join([*(str(c) for c in ErrorCode), "unauthorized", "forbidden"]),
                },
                "message": {"type": "string"},
                "hint": {"type": "string", "description": "what to do next"},
                "data": {"type": "object", "additionalProperties": True},
            },
            "required": ["code", "message"],
        },
    },
    "required": ["ok", "error"],
}

ERROR_REF = {"$ref": "#/components/schemas/Error"}


def error_codes(command: Command) -> set[str]:
    """The error codes a command is known to return (others fall under `default`)."""
    codes: set[ErrorCode] = set(ANY_COMMAND)
    if command.touches_page:
        codes.update(ON_A_PAGE)
    if command.creates_session:
        codes.update(STARTS_SESSION)
    if command.acts:
        codes.update(ACTS)
    return {str(c) for c in codes}


def error_responses(codes: Iterable[str]) -> dict[str, Any]:
    """The error envelope under each status the codes map to, guard refusals included."""
    by_status: dict[int, list[str]] = {s: list(c) for s, c in GUARD_CODES.items()}
    for code in codes:
        by_status.setdefault(ErrorCode(code).http_status, []).append(code)
    out = {
        str(status): _envelope("error: " + ", ".join(sorted(names)), ERROR_REF)
        for status, names in sorted(by_status.items())
    }
    out["default"] = _envelope("any other error", ERROR_REF)
    return out


def ok_schema(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"ok": {"const": True}, "result": result},
        "required": ["ok", "result"],
    }


def result_schema(command: Command) -> dict[str, Any]:
    """The result as the daemon sends it: nulls included, and fields a newer daemon (or
    a recovery report) may add allowed."""
    schema = model_schema(command.result, nullable=True)
    schema.pop("additionalProperties", None)
    return schema


def operation(command: Command) -> dict[str, Any]:
    group = command.name.split(".")[0] if "." in command.name else "page"
    return {
        "operationId": command.name,
        "summary": command.doc,
        "tags": [group],
        "requestBody": {
            "required": False,
            "description": "the command's params (an empty body is {})",
            "content": {"application/json": {"schema": params_schema(command, nullable=True)}},
        },
        "responses": {
            "200": _envelope(command.doc, ok_schema(result_schema(command))),
            **error_responses(error_codes(command)),
        },
    }


def document() -> dict[str, Any]:
    """The whole OpenAPI document."""
    paths: dict[str, Any] = {PREFIX + name: {"post": operation(c)} for name, c in COMMANDS.items()}
    health = COMMANDS[HEALTH]
    paths[PREFIX + "health"] = {
        "get": {
            "operationId": "health",
            "summary": "The daemon's status (" + health.doc + ")",
            "responses": {
                "200": _envelope("the daemon answers", ok_schema(result_schema(health))),
                **error_responses(error_codes(health)),
            },
        }
    }
    paths["/metrics"] = {
        "get": {
            "operationId": "prometheus_metrics",
            "summary": "The daemon's metrics in Prometheus' text format ("
            + COMMANDS[METRICS].doc
            + ")",
            "responses": {
                "200": {
                    "description": "Prometheus text exposition format 0.0.4",
                    "content": {PROMETHEUS: {"schema": {"type": "string"}}},
                },
                **error_responses(error_codes(COMMANDS[METRICS])),
            },
        }
    }
    paths["/openapi.json"] = {
        "get": {
            "operationId": "openapi",
            "summary": "This document",
            "responses": {
                "200": _envelope("OpenAPI 3.1", {"type": "object"}),
                **error_responses(()),
            },
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "steadyhand",
            "version": __version__,
            "description": "Reliable hands for AI agents: snapshot -> ref -> act on Chromium. "
            "Every command of the table is `POST /v1/<name>` with its params as a JSON "
            "object; answers are {ok: true, result} or {ok: false, error: {code, message, "
            "hint, data}}. Send `Authorization: Bearer <token>` (the token is in http.token "
            "in the state dir).",
        },
        "paths": paths,
        "components": {
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": ERROR_SCHEMA},
        },
        "security": [{"bearerAuth": []}],
    }


def _envelope(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}
