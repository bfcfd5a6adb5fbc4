"""The live view: a web page where a person watches sessions, approves and takes over.

Served by the HTTP front beside the API (fronts/http/app.py), behind the same Guard:
- `GET /login`, `POST /login` (form field `token`): the login page; a right token sets
  the login cookie (fronts/http/live_auth.py) and goes to `/`; `POST /logout` ends it;
- `GET /`: the page (static/index.html, with live.js and live.css from /live/static/);
- `GET /live/api/me`: the login's CSRF token and what it may do;
- `GET /live/api/sessions | approvals | actions | boxes`: the state the page shows;
- `GET /live/api/screen?session=S` and `/live/api/feed`: server-sent events (frames of
  the session's screen; action rows, approvals, takeovers as they happen);
- `POST /live/api/approve | deny | takeover | handback | input`: a person's decisions
  and input (with the CSRF token when authorised by the cookie);
- `GET /live/api/artifact?path=P`: a screenshot the action log names (artifacts only).

Every request becomes a command of the table or a `live.*` request (execute/live.py) on
the same backend as the API: the daemon, or the engine of `serve --local`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from steadyhand.client import Backend
from steadyhand.commands import COMMANDS
from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.approver import DECIDING, HOW, refused
from steadyhand.fronts.http.live_auth import Login, Logins, clear_cookie, set_cookie
from steadyhand.fronts.http.security import LOGIN_PATH, STATIC_PREFIX

log = logging.getLogger("steadyhand.live")

STATIC = Path(__file__).with_name("live_static")
IMAGES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
MAX_LOGIN_BODY = 4096
Respond = Callable[[Request, Awaitable[Any]], Awaitable[Response]]


def live_routes(
    backend: Backend, settings: Settings, logins: Logins, respond: Respond
) -> list[BaseRoute]:
    """The live view's routes; `respond` wraps a result or error in the API's envelope."""
    deciding = settings.approver_token  # deciding needs a login made with that token

    def login_of(request: Request) -> Login | None:
        login: Login | None = request.scope.get("state", {}).get("login")
        return login

    def may_decide(request: Request, what: str) -> None:
        login = login_of(request)
        if deciding and (login is None or not login.approver):
            raise refused(f"{what} from the live view needs a login with the approver token", HOW)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=NO_STORE)

    async def login_page(request: Request) -> Response:
        return HTMLResponse(_login_html(""), headers=NO_STORE)

    async def log_in(request: Request) -> Response:
        body = await request.body()
        fields = parse_qs(body[:MAX_LOGIN_BODY].decode("utf-8", "replace"))
        login = logins.log_in((fields.get("token") or [""])[0])
        if login is None:
            log.warning("live view: a login with a wrong token from %s", _client(request))
            return HTMLResponse(_login_html("That is not the token."), 401, headers=NO_STORE)
        response = RedirectResponse("/", 303)
        response.headers["set-cookie"] = set_cookie(login)
        return response

    async def log_out(request: Request) -> Response:
        login = login_of(request)
        if login is not None:
            logins.log_out(login)
        response = RedirectResponse(LOGIN_PATH, 303)
        response.headers["set-cookie"] = clear_cookie()
        return response

    async def me(request: Request) -> Response:
        login = login_of(request)

        async def answer() -> Any:
            return {
                "csrf": login.csrf if login else None,
                "can_decide": not deciding or bool(login and login.approver),
                "approver_token": deciding,
                "max_fps": settings.live_max_fps,
            }

        return await respond(request, answer())

    def command(name: str) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            return await respond(request, backend.call(name, _query(request)))

        return run

    def decision(name: str, method: str) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            async def decided() -> Any:
                if name in DECIDING:
                    may_decide(request, name)
                return await backend.call(method, await _json(request))

            return await respond(request, decided())

        return run

    def stream(method: str) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            params = _query(request)
            events = backend.stream(method, params)
            try:  # the first event, or the error that stops the stream before it starts
                first = await anext(events)
            except StopAsyncIteration:
                first = {"kind": "end", "why": "nothing to stream"}
            except SteadyhandError as exc:
                await events.aclose()
                return await respond(request, _raise(exc))
            return StreamingResponse(
                _sse(first, events), media_type="text/event-stream", headers=NO_STORE
            )

        return run

    async def artifact(request: Request) -> Response:
        try:
            path = _artifact(settings, request.query_params.get("path", ""))
        except SteadyhandError as exc:
            return await respond(request, _raise(exc))
        return FileResponse(path, media_type=IMAGES[path.suffix.lower()], headers=NO_STORE)

    api = "/live/api/"
    return [
        Route("/", page, methods=["GET"]),
        Route(LOGIN_PATH, login_page, methods=["GET"]),
        Route(LOGIN_PATH, log_in, methods=["POST"]),
        Route("/logout", log_out, methods=["POST"]),
        Route(api + "me", me, methods=["GET"]),
        Route(api + "sessions", command("sessions"), methods=["GET"]),
        Route(api + "approvals", command("approvals"), methods=["GET"]),
        Route(api + "actions", command("live.actions"), methods=["GET"]),
        Route(api + "boxes", command("live.boxes"), methods=["GET"]),
        Route(api + "screen", stream("live.screen"), methods=["GET"]),
        Route(api + "feed", stream("live.feed"), methods=["GET"]),
        Route(api + "artifact", artifact, methods=["GET"]),
        *(  # the page's buttons: a person's decisions, and taking over
            Route(api + name, decision(name, name), methods=["POST"])
            for name, spec in COMMANDS.items()
            if spec.decides or spec.during_takeover
        ),
        Route(api + "input", decision("input", "live.input"), methods=["POST"]),
        Mount(STATIC_PREFIX.rstrip("/"), StaticFiles(directory=STATIC), name="static"),
    ]


NO_STORE = {"cache-control": "no-store"}


async def _sse(first: Any, events: AsyncIterator[Any]) -> AsyncIterator[bytes]:
    """Server-sent events: one `data:` line of JSON per event. Leaving (the watcher
    closed the page) closes the backend's stream, which stops the screencast."""
    async with aclosing(events):  # type: ignore[type-var]
        yield _event(first)
        try:
            async for event in events:
                yield _event(event)
        except SteadyhandError as exc:
            yield _event({"kind": "error", **exc.to_dict()})


def _event(event: Any) -> bytes:
    return b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n"


def _query(request: Request) -> dict[str, Any]:
    """Query parameters as command params: whole numbers become ints, `1`/`true` flags."""
    params: dict[str, Any] = {}
    for key, value in request.query_params.items():
        params[key] = int(value) if value.isdigit() and key in ("after", "limit") else value
    if "desktop" in params:
        params["desktop"] = params["desktop"] in ("1", "true")
    return params


async def _json(request: Request) -> dict[str, Any]:
    body = await request.body()
    try:
        params = json.loads(body or b"{}")
    except ValueError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, f"the body is not JSON: {exc}", "send a JSON object"
        ) from exc
    if not isinstance(params, dict):
        raise SteadyhandError(ErrorCode.BAD_REQUEST, "the body is not a JSON object", "send one")
    return params


def _artifact(settings: Settings, given: str) -> Path:
    """An image file inside the artifacts folder (screenshots the action log names)."""
    root = settings.artifacts_dir.resolve()
    try:
        path = Path(given).resolve()
    except (OSError, ValueError):
        path = root
    if not path.is_relative_to(root) or path.suffix.lower() not in IMAGES or not path.is_file():
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"no screenshot {given!r} in the artifacts folder",
            "the timeline links the screenshots the action log names",
        )
    return path


async def _raise(exc: SteadyhandError) -> Any:
    raise exc


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def _login_html(error: str) -> str:
    page = (STATIC / "login.html").read_text()
    shown = f'<p class="error" role="alert">{error}</p>' if error else ""
    return page.replace("<!--error-->", shown)
