"""A session's browser reaches the network through this proxy, which applies the navigation
policy to every connection: top-level loads, redirects, popups, iframes, subresources and
websockets alike, whoever caused them.

The proxy resolves each host itself, checks every address of the answer, and connects to
the address it checked, so a DNS answer cannot change between the check and the
connection (no rebinding around the rules). Chromium sends https and websockets as
`CONNECT host:port` (the tunnel carries TLS untouched) and plain http as absolute-form
requests, each answered on its own upstream connection (`Connection: close`).

One proxy per session (its own loopback port), so a refusal is known to be that session's.
A session on a browser endpoint of another machine has its proxy listen on this machine's
address towards that endpoint instead, and every request must then carry the session's
own random credentials (Basic proxy authentication, which Playwright answers for the
browser): a host on the network that finds the port cannot use it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import secrets
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from steadyhand.engine.nav_policy import NavPolicy, Refusal, literal

log = logging.getLogger("steadyhand.proxy")

HEAD_LIMIT = 64 * 1024
HEAD_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 15.0
CHUNK = 64 * 1024
KEPT = 50  # refusals remembered per session
HOP_HEADERS = (b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive")


@dataclass(frozen=True)
class Blocked:
    """A connection the policy refused."""

    at: float  # monotonic
    host: str
    refusal: Refusal

    def shown(self) -> dict[str, str]:
        return {"host": self.host, "rule": self.refusal.rule, "subject": self.refusal.subject}


class NavProxy:
    def __init__(self, policy: NavPolicy) -> None:
        self.policy = policy  # the session's: read at each connection
        # Asked before connecting to a host the policy allows: None to go on, else why
        # not (the approval gate holds connections to approval_domains hosts).
        self.gate: Callable[[str], Awaitable[str | None]] | None = None
        self.refusals: deque[Blocked] = deque(maxlen=KEPT)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._authorization: bytes | None = None  # the Basic credentials asked for

    async def start(self, host: str = "127.0.0.1") -> dict[str, str]:
        """Listen on a free port of `host`; the browser's proxy settings (Playwright's).

        On any address but loopback, requests must carry random credentials of its own.
        """
        self._server = await asyncio.start_server(self._client, host, 0, limit=HEAD_LIMIT)
        port = self._server.sockets[0].getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        settings = {"server": f"http://{shown}:{port}"}
        if not host.startswith("127."):
            user, password = "steadyhand", secrets.token_urlsafe(24)
            token = base64.b64encode(f"{user}:{password}".encode()).decode()
            self._authorization = token.encode()
            settings |= {"username": user, "password": password}
        return settings

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()

    def note_refusal(self, host: str, refusal: Refusal, what: str) -> None:
        """Remember (and log) a refusal: `policy` and the next result list it."""
        self.refusals.append(Blocked(time.monotonic(), host, refusal))
        log.warning("blocked %s %s (%s: %s)", what, host, refusal.rule, refusal.subject)

    def refused_since(self, since: float) -> list[Blocked]:
        return [b for b in self.refusals if b.at >= since]

    async def refusal_for(
        self, host: str, port: int, what: str
    ) -> tuple[Refusal | None, list[str]]:
        """The policy's and the approval gate's answer for a connection to `host`: the
        refusal (noted), or the addresses it may be reached at."""
        refusal, addresses = await self.check(host, port)
        if refusal is None and self.gate is not None:
            why = await self.gate(host)
            refusal = None if why is None else Refusal("approval", f"{host}: {why}")
        if refusal is not None:
            self.note_refusal(host, refusal, what)
        return refusal, addresses

    async def check(self, host: str, port: int) -> tuple[Refusal | None, list[str]]:
        """The host's refusal, or the addresses it may be reached at (all checked)."""
        policy = self.policy
        refusal = policy.host(host)
        if refusal is not None:
            return refusal, []
        return await resolve_checked(policy, host, port)

    # ------------------------------------------------------------------ serving

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        except ValueError:  # a malformed request line or header
            await _answer(writer, 400, "bad proxy request")
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
        line, _, rest = head.partition(b"\r\n")
        if self._authorization is not None and not self._authorized(rest):
            await _answer(writer, 407, "proxy credentials needed")
            return
        method, target, version = line.decode("latin-1").split(" ", 2)
        tunnel = method.upper() == "CONNECT"
        host, port, path = _target(target, tunnel)
        refusal, addresses = await self.refusal_for(host, port, f"connection to port {port} of")
        if refusal is not None:
            await _answer(writer, 403, refused_text(refusal))
            return
        upstream = await _connect(addresses, port)
        if upstream is None:  # the browser sees a failed connection, as it would directly
            if tunnel:  # (a page of the proxy's own would load as if the site answered)
                await _answer(writer, 502, f"cannot connect to {host}:{port}")
            return
        up_reader, up_writer = upstream
        try:
            if tunnel:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            else:
                first = f"{method} {path} {version}".encode("latin-1")
                up_writer.write(first + b"\r\n" + _without_hop_headers(rest))
            await writer.drain()
            await _pipe_both(reader, writer, up_reader, up_writer)
        finally:
            up_writer.close()

    def _authorized(self, headers: bytes) -> bool:
        for line in headers.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"proxy-authorization":
                scheme, _, token = value.strip().partition(b" ")
                wanted = self._authorization or b""
                return scheme.lower() == b"basic" and secrets.compare_digest(token.strip(), wanted)
        return False


async def resolve_checked(
    policy: NavPolicy, host: str, port: int
) -> tuple[Refusal | None, list[str]]:
    """Resolve `host`; refused when any address of the answer is (an answer that mixes a
    public and a private address is how rebinding tries to slip through)."""
    name = host.strip("[]")
    if literal(name) is not None:
        return None, [name]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(name, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None, []  # does not resolve: the connection fails on its own
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    for address in addresses:
        parsed = literal(address)
        refusal = policy.address(parsed) if parsed is not None else None
        if refusal is not None:
            return Refusal(refusal.rule, f"{host} -> {refusal.subject}"), []
    return None, addresses


def _target(target: str, tunnel: bool) -> tuple[str, int, str]:
    """(host, port, origin-form path) of a proxy request's target."""
    if tunnel:
        host, _, port = target.rpartition(":")
        return host.strip("[]"), int(port), ""
    parts = urlsplit(target)
    if parts.scheme not in ("http", "ws") or not parts.hostname:
        raise ValueError(f"not an absolute http URL: {target[:200]!r}")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.hostname, parts.port or 80, path


def _without_hop_headers(rest: bytes) -> bytes:
    """The request's headers without the proxy's own, asking the origin to close after
    answering (each proxied request gets its own connection)."""
    kept = [
        h
        for h in rest.split(b"\r\n")
        if h and h.split(b":", 1)[0].strip().lower() not in HOP_HEADERS
    ]
    return b"\r\n".join([*kept, b"Connection: close", b"", b""])


async def _connect(
    addresses: list[str], port: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    for address in addresses:
        with contextlib.suppress(OSError, TimeoutError):
            return await asyncio.wait_for(
                asyncio.open_connection(address, port, limit=CHUNK), CONNECT_TIMEOUT_S
            )
    return None


async def _pipe_both(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    """Copy both ways until the origin is done (the browser's side may stay open)."""
    sending = asyncio.ensure_future(_copy(reader, up_writer))
    try:
        await _copy(up_reader, writer)
    finally:
        sending.cancel()
        with contextlib.suppress(asyncio.CancelledError, OSError):
            await sending


async def _copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    while True:
        data = await source.read(CHUNK)
        if not data:
            with contextlib.suppress(OSError):
                if sink.can_write_eof():
                    sink.write_eof()
            return
        sink.write(data)
        await sink.drain()


def refused_text(refusal: Refusal) -> str:
    """What a refused page shows (and `policy_denied` is told apart by)."""
    return f"blocked by steadyhand: rule {refusal.rule}"


def page_of(status: int, text: str) -> bytes:
    """The small HTML page the proxy (or the guard) answers with instead of the site's."""
    return f"<!doctype html><title>{REASONS[status]}</title><p>{text}</p>\n".encode()


REASONS = {
    400: "Bad Request",
    403: "Forbidden",
    407: "Proxy Authentication Required",
    502: "Bad Gateway",
}


async def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    reason = REASONS[status]
    body = page_of(status, text)
    challenge = 'Proxy-Authenticate: Basic realm="steadyhand"\r\n' if status == 407 else ""
    head = (
        f"HTTP/1.1 {status} {reason}\r\n{challenge}Content-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    with contextlib.suppress(OSError):
        writer.write(head.encode() + body)
        await writer.drain()


async def url_refusal(policy: NavPolicy, url: str) -> Refusal | None:
    """A URL's refusal before anything loads it: its scheme, its host, and what the host
    resolves to now (the proxy checks the answer again at each connection)."""
    refusal = policy.url(url)
    if refusal is not None:
        return refusal
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return (await resolve_checked(policy, parts.hostname, port))[0]
