"""Commands that answer a session's requests themselves: route (mock or block what matches
a URL glob), unroute, routes, and offline mode. They hold for every tab of the session,
new ones too, and come back with it from a checkpoint (engine/net_control.py)."""

from __future__ import annotations

import asyncio
import json
import mimetypes
from pathlib import Path
from typing import Any, ClassVar, Literal

from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, command, positional
from steadyhand.engine.net_control import BODY_LIMIT, TOTAL_LIMIT, NetControl, Rule
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError, first_line

PATTERN_HELP = (
    "URL glob, matched against whole URLs: '**/api/users*' (* within a path segment, ** "
    "across them, {a,b} either), or a full URL"
)
USAGE = "route PATTERN --block, or route PATTERN --fulfill BODY [--status N] [--content-type T]"
URL_LIMIT = 2_000


def _bad(message: str, hint: str) -> SteadyhandError:
    return SteadyhandError(ErrorCode.BAD_REQUEST, message, hint)


class RouteShown(Result):
    pattern: str
    block: bool = Field(description="true: matching requests fail; false: they get the answer")
    status: int | None = Field(None, exclude_if=lambda v: v is None)
    content_type: str | None = Field(None, exclude_if=lambda v: v is None)
    bytes: int | None = Field(None, description="the answer's body", exclude_if=lambda v: v is None)
    source: str | None = Field(
        None, description="JSON, or the file the body was read from", exclude_if=lambda v: v is None
    )
    hits: int = Field(description="requests it answered")


class RoutesResult(Result):
    REPLY: ClassVar[str] = "text"
    routes: list[RouteShown] = Field(
        description="the session's routes, in the order they answer: the latest added first"
    )
    offline: bool = Field(description="the session's browser is offline")
    text: str = Field(description="what changed, then the routes, one line each")


def _shown(rule: Rule) -> RouteShown:
    if rule.block:
        return RouteShown(pattern=rule.pattern, block=True, hits=rule.hits)
    return RouteShown(
        pattern=rule.pattern,
        block=False,
        status=rule.status,
        content_type=rule.content_type or None,
        bytes=len(rule.body),
        source=rule.source or None,
        hits=rule.hits,
    )


def routes_result(net: NetControl, changed: str = "") -> RoutesResult:
    rules = list(reversed(net.rules.values()))  # the one that answers first, first
    lines = [changed] if changed else []
    lines += [r.line() for r in rules]
    if len(rules) > 1:
        lines.insert(int(bool(changed)), "(first match answers)")
    if net.offline:
        lines.append("offline: every request fails, navigator.onLine is false")
    if not rules and not net.offline:
        lines.append("no routes; online")
    return RoutesResult(
        routes=[_shown(r) for r in rules], offline=net.offline, text="\n".join(lines)
    )


# ---------------------------------------------------------------- route


class RouteParams(Params):
    pattern: str = positional(PATTERN_HELP)
    block: bool = Field(False, description="matching requests fail (as a blocker would)")
    fulfill: str | None = Field(
        None,
        description="answer matching requests with this body: a JSON value (sent as "
        "application/json), else a file's path (inside a file root); '' for an empty body",
    )
    status: int | None = Field(
        None, ge=200, le=599, description="the answer's HTTP status (with --fulfill; default 200)"
    )
    content_type: str | None = Field(
        None,
        description="the answer's Content-Type (with --fulfill; default: application/json for "
        "JSON, else by the file's extension)",
    )


def check_pattern(pattern: str) -> str:
    """`pattern` as routed, or `bad_request`: a glob that can match a URL of a page."""
    if not pattern.strip():
        raise _bad("route needs a URL pattern", f"{USAGE}; e.g. '**/api/users*'")
    if len(pattern) > URL_LIMIT or any(c.isspace() for c in pattern):
        raise _bad(
            f"{pattern[:80]!r} is no URL pattern (too long, or with spaces)",
            "give a URL glob such as '**/api/users*' (spaces in URLs are %20)",
        )
    if not pattern.startswith("*") and "://" not in pattern:
        raise _bad(
            f"the pattern {pattern!r} matches whole URLs, so it matches none",
            f"start it with ** ('**/{pattern.lstrip('/')}'), or give a full URL "
            "('http://host/path*')",
        )
    depth = 0
    for char in pattern.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth not in (0, 1):
            raise _bad(
                f"the pattern {pattern!r} has unbalanced or nested {{}}",
                "{a,b} matches a or b, one level deep; a literal brace is \\{",
            )
    if depth:
        raise _bad(
            f"the pattern {pattern!r} has an unclosed {{",
            "{a,b} matches a or b; close it, or escape a literal brace as \\{",
        )
    return pattern


def _json_body(given: str) -> bytes | None:
    """The JSON value's text, None when `given` is no JSON (a file path, then);
    `bad_request` when it starts as JSON and is none."""
    text = given.strip()

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        json.loads(text, parse_constant=no_constant)
    except ValueError as exc:
        if text[:1] in ("{", "[", '"'):
            raise _bad(
                f"--fulfill is not valid JSON: {exc}",
                "give a JSON value (quote it for the shell: '{\"ok\": true}'), or a file's path",
            ) from exc
        return None
    return text.encode()


def _read_body(path: Path, given: str) -> bytes:
    """The file's bytes, within the limit. Blocking."""
    shown = given if len(given) <= 200 else given[:200] + "…"
    try:
        if not path.is_file():
            raise _bad(
                f"--fulfill {shown!r} is neither JSON nor a file ({path} does not exist)",
                "give a JSON value ('{\"ok\": true}', '[1, 2]', '\"text\"') or an existing file",
            )
        size = path.stat().st_size
        if size > BODY_LIMIT:
            raise _bad(
                f"{path} holds {size} bytes, more than a route answers with ({BODY_LIMIT})",
                "serve a large answer from a local server instead, and route to it",
            )
        return path.read_bytes()
    except OSError as exc:  # a name too long, a file unreadable
        raise _bad(f"--fulfill {shown!r}: {exc.strerror or exc}", "give a readable file") from exc


async def _body(call: Call, params: RouteParams) -> tuple[bytes, str, str]:
    """(body, content type, source) of a --fulfill."""
    given = params.fulfill or ""
    if not given.strip():
        return b"", params.content_type or "", "empty"
    body = _json_body(given)
    if body is not None:
        return body, params.content_type or "application/json", "JSON"
    (path,) = await call.input_paths([given], "route")  # policy_denied outside the roots
    data = await asyncio.to_thread(_read_body, path, given)
    guessed = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return data, params.content_type or guessed, str(path)


def _rule(params: RouteParams) -> Rule | None:
    """The block rule, or None for a fulfil; `bad_request` for flags that do not go."""
    if params.block and params.fulfill is not None:
        raise _bad("route takes --block or --fulfill, not both", USAGE)
    if not params.block and params.fulfill is None:
        raise _bad("route needs --block or --fulfill BODY", USAGE)
    if params.block and (params.status is not None or params.content_type is not None):
        raise _bad(
            "--status and --content-type shape a --fulfill answer; a --block sends none",
            "drop them, or use --fulfill BODY",
        )
    return Rule(params.pattern, block=True) if params.block else None


@command("route", creates_session=True, caps="network")
async def route(call: Call, params: RouteParams) -> RoutesResult:
    """Answer requests whose URL matches a glob: --block them, or --fulfill with a body."""
    check_pattern(params.pattern)
    rule = _rule(params)
    if rule is None:
        body, content_type, source = await _body(call, params)
        rule = Rule(
            params.pattern,
            block=False,
            status=params.status or 200,
            body=body,
            content_type=content_type,
            source=source,
        )
    session = _own(await call.session(create=True))
    net = session.net
    if net.body_bytes(but=params.pattern) + len(rule.body) > TOTAL_LIMIT:
        raise _bad(
            f"the session's routes would hold more than {TOTAL_LIMIT} bytes of answers",
            "`unroute` some first, or serve large answers from a local server",
        )
    try:
        replaced = await net.add(rule)
    except PlaywrightError as exc:
        raise _bad(f"the pattern {params.pattern!r} was refused: {first_line(exc)}", USAGE) from exc
    verb = "replaced" if replaced else "added"
    return routes_result(net, f"{verb} route {params.pattern}")


def _own(session: Session) -> Session:
    """The session, unless it is attached to a running application: its requests are the
    application's (the navigation guard checks them), not steadyhand's to answer."""
    if session.attached is not None:
        raise _bad(
            f"session {session.name!r} is attached to a running application: its requests "
            "are not steadyhand's to answer",
            "route requests in a session of your own (`open URL --session NAME`)",
        )
    return session


# ---------------------------------------------------------------- unroute, routes


class UnrouteParams(Params):
    pattern: str | None = positional(
        "the pattern of the route to remove, as `routes` lists it (default: every route)", None
    )


@command("unroute", timeout="short", caps="network")
async def unroute(call: Call, params: UnrouteParams) -> RoutesResult:
    """Remove a route (or every route): its requests go to the network again."""
    session: Session = await call.session()
    net = session.net
    if params.pattern is not None and params.pattern not in net.rules:
        known = ", ".join(net.rules) or "none"
        raise _bad(
            f"session {session.name!r} has no route {params.pattern!r}",
            f"its routes: {known} (give the pattern as `routes` lists it, or none for all)",
        )
    removed = await net.remove(params.pattern)
    changed = f"removed {len(removed)} route{'s' * (len(removed) != 1)}"
    if len(removed) == 1:
        changed = f"removed route {removed[0].pattern}"
    return routes_result(net, changed)


@command("routes", reads_only=True, timeout="short", caps="network")
async def routes(call: Call, params: Params) -> RoutesResult:
    """The session's routes (with how many requests each answered) and offline mode."""
    session = await call.session()
    return routes_result(session.net)


# ---------------------------------------------------------------- offline


class OfflineParams(Params):
    state: Literal["on", "off"] = positional("on: every request fails; off: back online")


@command("offline", creates_session=True, caps="network")
async def offline(call: Call, params: OfflineParams) -> RoutesResult:
    """Take the session's browser offline (every tab's requests fail) or back online."""
    session = _own(await call.session(create=True))
    await session.net.set_offline(params.state == "on")
    return routes_result(session.net, f"offline {params.state}")
