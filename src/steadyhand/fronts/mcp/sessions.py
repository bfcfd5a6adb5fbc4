"""Each MCP client gets a session of its own unless it names one.

A tool call without `session` acts in a session owned by the MCP connection it came on,
named `mcp-<8 random hex>`: made on first use, closed when the connection ends (its
tabs, cookies and storage go with it; a client that wants to keep them names a session).

- stdio: the connection is the process, so one name for the process, closed on exit.
  A client that starts a server per call (a one-shot CLI) passes `session`, or starts
  the server with `--session NAME`: calls naming none act there, and it stays open.
- streamable HTTP: one name per MCP session (`Mcp-Session-Id`), closed when that session
  ends (the client's DELETE, the idle timeout, or the server's shutdown).
- stateless HTTP (protocol 2026-07-28 over HTTP has no session id): nothing tells two
  clients apart, so a call must name its session; the error says so. The HTTP server
  answers `server/discover` as a stateful server does (handshake versions only), so a
  client in the SDK's default `auto` mode takes the handshake and gets a session id.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from typing import Any

from mcp import types
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS

from steadyhand.client import Backend
from steadyhand.errors import ErrorCode, SteadyhandError

log = logging.getLogger("steadyhand.mcp")
STATE_KEY = "steadyhand.session"
CLOSE_TIMEOUT = "4000"  # ms: the SDK gives a connection's cleanup 5 s, the stdio client 2 s+


def new_name() -> str:
    return f"mcp-{secrets.token_hex(4)}"


class Owner:
    """Hands out the session a call acts in when it names none, and closes them at the end."""

    def __init__(self, closer: Backend, per_process: bool, named: str | None = None) -> None:
        # `closer` must not start a daemon: closing a session of a daemon that is gone
        # is done already.
        self.closer = closer
        self.per_process = per_process
        self.named = named  # `mcp --session NAME`: every connection's, never closed here
        self._process_name: str | None = None

    def session_for(self, ctx: ServerRequestContext[Any, Any]) -> str:
        if self.named is not None:
            return self.named
        if self.per_process:
            if self._process_name is None:
                self._process_name = new_name()
            return self._process_name
        connection = connection_of(ctx)
        if connection is None or connection.session_id is None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "this MCP request came without a session id (stateless HTTP), so it has no "
                "browser session of its own",
                "pass `session` with a name of your own, the same in every call (e.g. "
                "'agent-7'); or connect with the initialize handshake to get one made for you",
            )
        name: str | None = connection.state.get(STATE_KEY)
        if name is None:
            name = connection.state[STATE_KEY] = new_name()
            connection.exit_stack.push_async_callback(self.close, name)
        return name

    async def aclose(self) -> None:
        """Close the process's own session, if it made one (stdio, on exit)."""
        if self._process_name is not None:
            name, self._process_name = self._process_name, None
            await self.close(name)

    async def close(self, name: str) -> None:
        with contextlib.suppress(SteadyhandError):  # never opened, or already closed
            await self.closer.call("close", {"session": name, "timeout": CLOSE_TIMEOUT})
            log.info("closed session %s: its MCP connection ended", name)


def connection_of(ctx: ServerRequestContext[Any, Any]) -> Connection | None:
    """The connection a request came on (the low-level context does not expose it yet)."""
    connection = getattr(ctx.session, "_connection", None)
    return connection if isinstance(connection, Connection) else None


def prefer_handshake(server: Server[Any]) -> None:
    """Advertise the handshake protocol versions only, as a stateful HTTP server does: a
    client that probes with `server/discover` then opens with `initialize`, and its MCP
    session gets a browser session of its own."""

    async def discover(
        ctx: ServerRequestContext[Any, Any], params: types.RequestParams | None
    ) -> types.DiscoverResult:
        return types.DiscoverResult(
            supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
            capabilities=server.get_capabilities(),
            instructions=server.instructions,
        )

    server.add_request_handler("server/discover", types.RequestParams, discover)
