"""JSON-RPC 2.0 over a Unix socket, one JSON document per line: the daemon's main door.

Methods are the command table's names (`snapshot`, `tab.new`, ...); params are the
command's params object. Errors carry the taxonomy code and hint in `error.data`.

`cli.run` is the CLI's own request: argv in, what the CLI prints out (fronts/cli/host.py).

An array of requests (a JSON-RPC batch) runs its requests in order, one after another,
and is answered with one array. The `batch` command runs commands in order too, and stops
at the first failure.

Progress: a request with `"progress": true` (beside `params`) may be answered by
notifications `{"method": "progress", "params": {"id", "done", "total", "message"}}` on
the same connection before its reply, while long work (a big report) goes on. Such a
request, or one with `"notices": true`, is also sent notices, progress notes that say
`"notice": true` (no done/total): one line the caller should show at once, e.g. the
approval a gated call waits on and how to decide it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.execute import live
from steadyhand.execute.run import execute
from steadyhand.fronts.approver import check_peer
from steadyhand.fronts.cli import host as cli_host
from steadyhand.runtime import Runtime
from steadyhand.vault import mask_error

log = logging.getLogger("steadyhand.rpc")

MAX_REQUEST_BYTES = 8 * 1024 * 1024
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class RpcServer:
    """The listening socket, and the requests in flight so that shutdown can answer them."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._server: asyncio.AbstractServer | None = None
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def start(self, socket_path: Path) -> None:
        """Listen on `socket_path` (created 0600: the daemon runs with umask 077)."""
        await asyncio.to_thread(socket_path.unlink, missing_ok=True)
        self._server = await asyncio.start_unix_server(
            self._connection, path=str(socket_path), limit=MAX_REQUEST_BYTES
        )
        await asyncio.to_thread(socket_path.chmod, 0o600)

    async def close(self, grace_s: float = 5.0) -> None:
        """Stop accepting, then give requests in flight (`daemon.stop` itself) their reply."""
        if self._server is not None:
            self._server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), grace_s)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    line = await reader.readline()
                except (asyncio.LimitOverrunError, ValueError):
                    await _send(writer, _error(None, INVALID_REQUEST, "request too large"))
                    break
                if not line:
                    break
                if not line.strip():
                    continue
                self._in_flight += 1
                self._idle.clear()
                try:
                    reply = await handle_line(
                        self.runtime,
                        line,
                        lambda m: _send(writer, m),
                        writer.get_extra_info("socket"),
                    )
                    if reply is not None:
                        await _send(writer, reply)
                finally:
                    self._in_flight -= 1
                    if not self._in_flight:
                        self._idle.set()
        except ConnectionError:
            pass
        except asyncio.CancelledError:
            # The daemon stops with this connection open: end as closed. (Python 3.11's
            # stream callback logs a handler that ended cancelled as an error.)
            pass
        finally:
            writer.close()


Notify = Callable[[dict[str, Any]], Awaitable[None]]


async def handle_line(
    runtime: Runtime, line: bytes, notify: Notify | None = None, peer: socket.socket | None = None
) -> Any:
    """The reply to one request line (or batch); None when all were notifications.

    `notify` sends a message ahead of the reply (progress, when a request asks for it)."""
    try:
        message = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        return _error(None, PARSE_ERROR, f"parse error: {exc}")
    if isinstance(message, list):
        if not message:
            return _error(None, INVALID_REQUEST, "empty batch")
        # One after another, in the array's order (JSON-RPC allows any): a later request
        # sees what an earlier one did, as an agent's steps expect. Concurrency comes from
        # separate requests or connections; `batch` also stops at the first failure.
        replies = [await handle_request(runtime, m, notify, peer) for m in message]
        return [r for r in replies if r is not None] or None
    return await handle_request(runtime, message, notify, peer)


async def handle_request(
    runtime: Runtime, message: Any, notify: Notify | None = None, peer: socket.socket | None = None
) -> dict[str, Any] | None:
    if (
        not isinstance(message, dict)
        or message.get("jsonrpc") != "2.0"
        or not isinstance(message.get("method"), str)
    ):
        request_id = message.get("id") if isinstance(message, dict) else None
        return _error(request_id, INVALID_REQUEST, "not a JSON-RPC 2.0 request")
    request_id = message.get("id")
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return _error(request_id, INVALID_REQUEST, "params must be an object")
    progress = notice = None
    if notify is not None and "id" in message:
        send = notify

        async def note(params: dict[str, Any]) -> None:
            with contextlib.suppress(ConnectionError):
                await send({"jsonrpc": "2.0", "method": "progress", "params": params})

        if message.get("progress") is True:

            async def progress(done: int, total: int | None, text: str) -> None:
                await note({"id": request_id, "done": done, "total": total, "message": text})

        if message.get("progress") is True or message.get("notices") is True:

            async def notice(text: str) -> None:
                await note({"id": request_id, "message": text, "notice": True})

    try:
        if message["method"] == cli_host.METHOD:  # the CLI's fast path: argv in, output out
            result = await cli_host.run(runtime, params or {}, notify, handle_request)
        elif live.is_live(message["method"]):  # the live view's (execute/live.py)
            result = await _live(runtime, message["method"], params or {}, request_id, notify)
        else:
            if peer is not None:  # the socket's (None: in-process, the caller's own)
                check_peer(runtime.settings, message["method"], peer)
            cwd = cli_cwd(message)
            result = await execute(runtime, message["method"], params, progress, cwd, notice=notice)
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "result": result}
    except SteadyhandError as exc:
        reply = {"jsonrpc": "2.0", "id": request_id, "error": exc.to_rpc_error()}
    except Exception as exc:
        log.exception("request failed outside the command")
        error = mask_error(  # a bug's message may quote anything, a secret's value too
            SteadyhandError(ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}", "see daemon.log")
        )
        reply = {"jsonrpc": "2.0", "id": request_id, "error": error.to_rpc_error()}
    return None if "id" not in message else reply


async def _live(
    runtime: Runtime, method: str, params: dict[str, Any], request_id: Any, notify: Notify | None
) -> Any:
    """A live request; a stream's events go out as `live` notifications until the
    connection closes (the result is sent only if the stream ends by itself)."""
    if method not in live.STREAMS:
        return await live.call(runtime, method, params)
    if notify is None or request_id is None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{method} is a stream: it needs a request id and a connection of its own",
            "send it alone (not in a batch) on a new connection",
        )
    stopping = asyncio.ensure_future(runtime.stop_requested.wait())
    try:
        async with contextlib.aclosing(await live.stream(runtime, method, params)) as events:
            while True:
                following = asyncio.ensure_future(anext(events))
                await asyncio.wait({following, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if not following.done():  # the daemon stops: so does the stream
                    following.cancel()
                    with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                        await following  # before the generator is closed
                    return {"ended": "the daemon stopped"}
                try:
                    event = following.result()
                except StopAsyncIteration:
                    return {"ended": "the stream ended"}
                note = {"id": request_id, "event": event}
                try:
                    await notify({"jsonrpc": "2.0", "method": "live", "params": note})
                except ConnectionError:  # the watcher left: how a stream normally ends
                    return {"ended": "the client left"}
    finally:
        stopping.cancel()


def cli_cwd(message: dict[str, Any]) -> str | None:
    """The CLI's working directory, which the CLI (and only it: the other fronts build
    their requests themselves) sends beside the params; files_policy.py uses it."""
    cwd = message.get("cli_cwd")
    if cwd is None:
        return None
    if not isinstance(cwd, str) or "\0" in cwd or not os.path.isabs(cwd):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "cli_cwd must be an absolute path",
            "it is the CLI's working directory; other clients leave it out",
        )
    return cwd


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


async def _send(writer: asyncio.StreamWriter, reply: Any) -> None:
    writer.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
    await writer.drain()
