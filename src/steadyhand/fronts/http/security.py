"""What every HTTP front (the API, MCP over HTTP) puts in front of the command table.

- Bind: loopback only unless the caller explicitly allows a remote bind.
- Token: a random bearer token of 32 bytes in `http.token` (0600) in the state dir,
  compared in constant time; 401 without it.
- CSRF and DNS rebinding: a mutating request a browser marks `Sec-Fetch-Site: cross-site`,
  or one whose Origin is not a loopback origin, gets 403; a Host header that is not the
  address we listen on (or a loopback name) gets 403 too.
- Body cap: a request body over the limit gets 413 before it is read whole.
- The live view (fronts/http/live_app.py): its page and requests may carry a login's cookie
  instead of the token, and then a CSRF token on every request that changes anything.
"""

from __future__ import annotations

import argparse
import hmac
import ipaddress
import json
import os
import secrets
import socket
import tempfile
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.http.live_auth import CSRF_HEADER, Login, Logins
from steadyhand.private_files import ensure_private_dir

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_BYTES = 32
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost"})


def load_or_create_token(settings: Settings, path: Path | None = None) -> str:
    """The API token, created on first use: 32 random bytes, URL-safe, in a 0600 file.

    The file is written whole under another name and then linked into place, so a server
    starting at the same moment reads either no file or the whole token, never half of it.
    """
    ensure_private_dir(settings.state_dir)
    path = path or settings.http_token_path
    if path.exists():
        return _read_token(path)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(token + "\n")
        os.link(temp, path)
    except FileExistsError:
        return _read_token(path)  # another server made it first
    finally:
        os.unlink(temp)
    return token


def _read_token(path: Path) -> str:
    info = path.stat()
    if info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise SteadyhandError(
            ErrorCode.POLICY_DENIED,
            f"the token file {path} is readable by others (mode {info.st_mode & 0o777:o})",
            f"remove it (a new one is made) or `chmod 600 {path}`",
        )
    token = path.read_text().strip()
    if len(token) < 43:  # 32 bytes, base64url
        raise SteadyhandError(
            ErrorCode.POLICY_DENIED,
            f"the token in {path} is shorter than {TOKEN_BYTES} random bytes",
            "remove the file: a new token is made on the next start",
        )
    return token


def is_loopback_host(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and names that resolve only to them."""
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(name, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)


def check_bind(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback bind unless it is explicitly allowed."""
    if not allow_remote and not is_loopback_host(host):
        raise SteadyhandError(
            ErrorCode.POLICY_DENIED,
            f"refusing to listen on {host}: not a loopback address, and the API drives a "
            "browser with your cookies",
            "listen on 127.0.0.1 (the default); if you must, pass --allow-remote (or set "
            "http_allow_remote) and put TLS in front",
        )


def network_options(parser: argparse.ArgumentParser, when: str = "") -> None:
    """--host, --port, --allow-remote and --local, as every network front takes them."""
    only = f"with {when}: " if when else ""
    parser.add_argument("--host", help=only + "address to listen on (setting http_host, 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, help=only + "port (setting http_port, 8787; 0: any free one)"
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help=only + "allow a non-loopback --host (put TLS in front: it drives your browser)",
    )
    parser.add_argument(
        "--local", action="store_true", help="run the engine in this process, not the daemon"
    )


WELL_KNOWN = "/.well-known/"  # discovery documents (OAuth, ...): none here


class Guard:
    """ASGI middleware: token, CSRF/Origin and Host checks, body cap; then the app."""

    def __init__(
        self,
        app: ASGIApp,
        token: str,
        max_body_bytes: int,
        allowed_hosts: frozenset[str] = frozenset(),
        logins: Logins | None = None,
    ) -> None:
        self.app = app
        self._token = token.encode()
        self.max_body_bytes = max_body_bytes
        self.allowed_hosts = allowed_hosts
        self.logins = logins  # the live view's cookie logins (fronts/http/live_auth.py), if served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path = scope.get("path", "")
        login = self._login(path, headers)
        refusal = self.refusal(scope["method"], headers, path, login)
        if refusal is not None:
            if refusal[0] == 401 and path == "/" and scope["method"] in SAFE_METHODS:
                await _redirect(send, LOGIN_PATH)  # a person opening the live view
                return
            status, code, message, hint = refusal
            await _reply(send, status, code, message, hint)
            return
        scope.setdefault("state", {})["login"] = login
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body_bytes):
            await _reply(send, *too_large(self.max_body_bytes))
            return
        await self.app(scope, self._capped(receive, send), send)

    def refusal(
        self, method: str, headers: dict[str, str], path: str = "/v1/", login: Login | None = None
    ) -> tuple[int, str, str, str] | None:
        """(status, code, message, hint) for a request that must not reach the app.

        The live view's pages and requests (`/`, `/live/...`) may be authorised by a
        login's cookie instead of the bearer token; the login page and the live view's
        static files need neither."""
        host = headers.get("host", "")
        if not self._host_allowed(host):
            return (
                403,
                "forbidden",
                f"Host {host!r} is not this server's address",
                "call the API at the address it listens on (DNS-rebinding guard)",
            )
        if path.startswith(WELL_KNOWN):
            # Not 401: an MCP client takes a 401 here as "OAuth needed" and goes looking
            # for an authorization server, hiding the hint that a bearer token is all.
            return (
                404,
                "not_found",
                f"{path} is not served: this server has no OAuth metadata",
                "it takes a bearer token, not OAuth: `Authorization: Bearer <token>`, the "
                "token from http.token in the state dir",
            )
        given = headers.get("authorization", "")
        scheme, _, credential = given.partition(" ")
        bearer = scheme.lower() == "bearer" and hmac.compare_digest(
            credential.strip().encode(), self._token
        )
        open_path = self.logins is not None and is_open_path(path)
        if not bearer and login is None and not open_path:
            return (
                401,
                "unauthorized",
                "missing or wrong bearer token",
                "send `Authorization: Bearer <token>`; the token is in http.token in the state dir"
                + ("; a person logs into the live view at /login" if self.logins else ""),
            )
        if method.upper() not in SAFE_METHODS and not bearer and login is not None:
            assert self.logins is not None
            if not self.logins.csrf_ok(login, headers.get(CSRF_HEADER)):
                return (
                    403,
                    "forbidden",
                    "missing or wrong CSRF token",
                    "the live view's page sends it (X-Steadyhand-CSRF); reload the page",
                )
        if method.upper() not in SAFE_METHODS:
            if headers.get("sec-fetch-site", "").lower() == "cross-site":
                return (
                    403,
                    "forbidden",
                    "cross-site request refused",
                    "the API takes requests from local programs, not from web pages",
                )
            origin = headers.get("origin")
            if origin is not None and not _loopback_origin(origin):
                return (
                    403,
                    "forbidden",
                    f"request from origin {origin!r} refused",
                    "the API takes requests from local programs, not from web pages",
                )
        return None

    def _login(self, path: str, headers: dict[str, str]) -> Login | None:
        """The live view's login the cookie names, for the live view's paths only."""
        if self.logins is None or not is_live_path(path):
            return None
        return self.logins.of(headers.get("cookie", ""))

    def _host_allowed(self, host: str) -> bool:
        if not host:
            return True  # HTTP/1.0 clients may send none; the token still decides
        name = urlsplit("//" + host).hostname or ""
        return name in self.allowed_hosts or is_literal_loopback(name)

    def _capped(self, receive: Receive, send: Send) -> Receive:
        seen = 0
        limit = self.max_body_bytes

        async def capped() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        return capped


LOGIN_PATH = "/login"
LIVE_PREFIX = "/live/"
STATIC_PREFIX = "/live/static/"


def is_live_path(path: str) -> bool:
    """The live view's page and its requests (a login's cookie may authorise them)."""
    return path in ("/", "/logout") or path.startswith(LIVE_PREFIX)


def is_open_path(path: str) -> bool:
    """The login page and the live view's static files: no token needed, no data in them."""
    return path == LOGIN_PATH or path.startswith(STATIC_PREFIX)


class BodyTooLarge(Exception):
    """A chunked body went over the cap while the app read it."""


def is_literal_loopback(name: str) -> bool:
    """Loopback by its spelling alone (no DNS: a Host header is the attacker's to choose)."""
    name = name.strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _loopback_origin(origin: str) -> bool:
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and is_literal_loopback(parts.hostname or "")


def too_large(limit: int) -> tuple[int, str, str, str]:
    """(status, code, message, hint) for a body over the cap."""
    return (
        413,
        "body_too_large",
        f"the request body is over {limit} bytes",
        "send smaller params (put long text in a file)",
    )


def error_body(code: str, message: str, hint: str) -> bytes:
    return json.dumps(
        {"ok": False, "error": {"code": code, "message": message, "hint": hint}}
    ).encode()


async def _redirect(send: Send, location: str) -> None:
    headers = [(b"location", location.encode()), (b"content-length", b"0")]
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def _reply(send: Send, status: int, code: str, message: str, hint: str) -> None:
    body = error_body(code, message, hint)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="steadyhand"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
