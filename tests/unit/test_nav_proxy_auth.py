"""A proxy listening beyond loopback (for a browser endpoint on another machine) serves only
requests that carry the session's credentials."""

from __future__ import annotations

import asyncio
import base64

from steadyhand.config import Settings
from steadyhand.engine.nav_policy import NavPolicy
from steadyhand.engine.nav_proxy import NavProxy


async def _ask(server: str, authorization: str | None) -> bytes:
    host, port = server.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host.strip("[]"), int(port))
    head = "GET http://169.254.169.254/ HTTP/1.1\r\nHost: 169.254.169.254\r\n"
    if authorization is not None:
        head += f"Proxy-Authorization: {authorization}\r\n"
    writer.write((head + "\r\n").encode())
    await writer.drain()
    reply = await reader.read(4096)
    writer.close()
    return reply.split(b"\r\n", 1)[0]


def test_credentials_are_asked_for_beyond_loopback() -> None:
    async def run() -> None:
        proxy = NavProxy(NavPolicy.from_settings(Settings()))
        route = await proxy.start("0.0.0.0")
        try:
            assert set(route) == {"server", "username", "password"}
            good = base64.b64encode(f"{route['username']}:{route['password']}".encode()).decode()
            bad = base64.b64encode(f"{route['username']}:guess".encode()).decode()
            assert (
                await _ask(route["server"], None) == b"HTTP/1.1 407 Proxy Authentication Required"
            )
            assert await _ask(route["server"], f"Basic {bad}") == (
                b"HTTP/1.1 407 Proxy Authentication Required"
            )
            # With them, the request reaches the policy (which refuses the metadata address).
            assert await _ask(route["server"], f"basic {good}") == b"HTTP/1.1 403 Forbidden"
        finally:
            await proxy.close()

    asyncio.run(run())


def test_loopback_needs_no_credentials() -> None:
    async def run() -> None:
        proxy = NavProxy(NavPolicy.from_settings(Settings()))
        route = await proxy.start()
        try:
            assert set(route) == {"server"}
            assert await _ask(route["server"], None) == b"HTTP/1.1 403 Forbidden"
        finally:
            await proxy.close()

    asyncio.run(run())
