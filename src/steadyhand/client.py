"""The Python client: every command of the table as a method, on the daemon or in-process.

    async with steadyhand.Client() as browser:          # the daemon (started if needed)
        page = await browser.open(url="http://127.0.0.1:8000/form.html", session="me")
        snap = await browser.snapshot(session="me")
        await browser.click(ref="e3", session="me")

    with steadyhand.SyncClient(local=True) as browser:  # an engine inside this process
        ...

A method's name is the command's with `.` as `_` (`tab_new`, `session_restore`); its
keyword arguments are the command's params and it returns the command's result model.
Errors are raised as the code's own class (`StaleRefError`, `CommandTimeoutError`, ...),
all of them `SteadyhandError`. The HTTP and MCP fronts use the same backends.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from steadyhand.commands import COMMANDS, Command, Result
from steadyhand.config import Settings, ensure_private_dir
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts import rpc_client
from steadyhand.fronts.tools import tool_name

T = TypeVar("T")
MAX_REPLY_BYTES = 64 * 1024 * 1024


class Backend(Protocol):
    """Where commands run: `call` returns the command's JSON result or raises."""

    async def call(self, method: str, params: dict[str, Any]) -> Any: ...

    def stream(self, method: str, params: dict[str, Any]) -> AsyncGenerator[Any, None]:
        """A live stream's events (steadyhand/execute/live.py) until the caller stops."""
        ...

    async def aclose(self) -> None: ...


class DaemonBackend:
    """JSON-RPC to the daemon over its Unix socket; starts the daemon when none answers.

    Connections are pooled: the daemon answers one request per connection at a time, so
    concurrent calls each take their own.
    """

    def __init__(self, settings: Settings | None = None, autostart: bool = True) -> None:
        self.settings = settings or Settings.load()
        self.autostart = autostart
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._ids = itertools.count(1)

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        try:
            return await self._request(method, params)
        except SteadyhandError as exc:
            if (
                exc.code != ErrorCode.DAEMON_UNAVAILABLE
                or not self.autostart
                or exc.data.get("sent")
            ):
                raise
        # As the CLI does: a command of the browser's has the daemon launch it as it starts.
        warm = not method.startswith("desktop.")
        await asyncio.to_thread(rpc_client.start_daemon, self.settings, None, warm)
        return await self._request(method, params)

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        reader, writer, reused = await self._connection()
        message = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}
        wait_s = reply_wait_s(self.settings, params)
        try:
            writer.write(json.dumps(message).encode() + b"\n")
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), wait_s)
            if not line:
                raise ConnectionError("connection closed before a reply")
            reply = json.loads(line)
        except (OSError, ValueError, TimeoutError) as exc:
            writer.close()
            # A pooled connection the daemon closed since (it stopped or restarted) fails
            # at once: that request was never run, so it may go again on a new one.
            stale = reused and isinstance(exc, ConnectionError)
            if stale:
                await self.aclose()
            raise SteadyhandError(
                ErrorCode.DAEMON_UNAVAILABLE,
                f"the daemon did not answer {method}: {type(exc).__name__}: {exc}",
                "see daemon.log in the state dir; `steadyhand daemon status`",
                {} if stale else {"sent": True},
            ) from exc
        except BaseException:
            writer.close()  # cancelled mid-call: the reply would reach the next caller
            raise
        self._idle.append((reader, writer))
        if "error" in reply:
            raise SteadyhandError.from_rpc_error(reply["error"])
        return reply.get("result")

    async def stream(self, method: str, params: dict[str, Any]) -> AsyncGenerator[Any, None]:
        """A live stream on a connection of its own, closed when the caller stops reading
        (the daemon then stops the stream: a screencast nobody watches ends)."""
        await self.call("daemon.status", {})  # started (or found) like any call
        reader, writer, _ = await self._connection(pooled=False)
        request_id = next(self._ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        try:
            writer.write(json.dumps(message).encode() + b"\n")
            await writer.drain()
            while line := await reader.readline():
                reply = json.loads(line)
                if reply.get("method") == "live":
                    yield reply["params"]["event"]
                elif reply.get("id") == request_id:
                    if "error" in reply:
                        raise SteadyhandError.from_rpc_error(reply["error"])
                    return
        except (OSError, ValueError) as exc:
            raise SteadyhandError(
                ErrorCode.DAEMON_UNAVAILABLE,
                f"the daemon's {method} stream broke: {type(exc).__name__}: {exc}",
                "see daemon.log in the state dir; `steadyhand daemon status`",
            ) from exc
        finally:
            writer.close()

    async def _connection(
        self, pooled: bool = True
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bool]:
        """A pooled connection (reused=True) or a new one."""
        while pooled and self._idle:
            reader, writer = self._idle.pop()
            if not writer.is_closing() and not reader.at_eof():
                return reader, writer, True
            writer.close()
        rpc_client.check_socket_path(self.settings)
        try:
            reader, writer = await asyncio.open_unix_connection(
                str(self.settings.socket_path), limit=MAX_REPLY_BYTES
            )
        except OSError as exc:
            raise SteadyhandError(
                ErrorCode.DAEMON_UNAVAILABLE,
                f"no daemon listening on {self.settings.socket_path}: {exc}",
                "start it with `steadyhand daemon start` (any command starts it too)",
            ) from exc
        return reader, writer, False

    async def aclose(self) -> None:
        while self._idle:
            _, writer = self._idle.pop()
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


reply_wait_s = rpc_client.reply_wait_s  # the CLI's client and this one wait alike


class LocalBackend:
    """An engine inside this process: no daemon, the same commands, store and checks."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings.load()
        self._runtime: Any = None
        self._lock = asyncio.Lock()

    async def _start(self) -> Any:
        async with self._lock:
            if self._runtime is None:
                from steadyhand.call import Runtime
                from steadyhand.daemon import open_engine
                from steadyhand.leasing import session_leases
                from steadyhand.store.open import open_store
                from steadyhand.vault import Vault

                ensure_private_dir(self.settings.state_dir)
                store = open_store(self.settings)
                vault = Vault(self.settings)
                engine = open_engine(self.settings, store, vault)
                leases = session_leases(self.settings, store, engine)  # a shared store's
                self._runtime = Runtime(self.settings, engine, store, vault=vault, leases=leases)
            return self._runtime

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        from steadyhand.execute.run import execute

        if method == "daemon.stop":
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "there is no daemon: this client runs its engine in-process",
                "close the client (or leave its `with` block) to stop the engine",
            )
        runtime = await self._start()
        if method.startswith("live."):  # the live view's, as the socket answers them
            from steadyhand.execute import live as service

            return json.loads(json.dumps(await service.call(runtime, method, params)))
        # The result crosses the same JSON boundary as over the socket.
        return json.loads(json.dumps(await execute(runtime, method, params)))

    async def stream(self, method: str, params: dict[str, Any]) -> AsyncGenerator[Any, None]:
        from steadyhand.execute import live as service

        runtime = await self._start()
        async with contextlib.aclosing(await service.stream(runtime, method, params)) as events:
            async for event in events:
                yield event

    async def aclose(self) -> None:
        async with self._lock:
            if self._runtime is not None:
                runtime, self._runtime = self._runtime, None
                runtime.stop_requested.set()  # approvals still waiting are cancelled
                await runtime.engine.shutdown()
                if runtime.leases is not None:
                    await runtime.leases.stop()
                runtime.store.close()


def _loose(result: type[Result]) -> type[Result]:
    """The result model, accepting fields a newer daemon adds (e.g. `recovered`)."""
    cached = _LOOSE.get(result)
    if cached is None:
        config = ConfigDict(extra="allow")
        cached = type(result.__name__, (result,), {"model_config": config})
        _LOOSE[result] = cached
    return cached


_LOOSE: dict[type[Result], type[Result]] = {}


def command_for(attribute: str) -> Command:
    """`tab_new` -> the `tab.new` command (named as its LLM tool is); AttributeError when
    there is none."""
    if attribute in COMMANDS:
        return COMMANDS[attribute]
    for command in COMMANDS.values():
        if tool_name(command.name) == attribute:
            return command
    raise AttributeError(f"steadyhand has no command {attribute!r}")


class Client:
    """Every command as an async method. `session` sets the default session of each call."""

    def __init__(
        self,
        backend: Backend | None = None,
        *,
        session: str | None = None,
        settings: Settings | None = None,
        local: bool = False,
    ) -> None:
        if backend is None:
            backend = LocalBackend(settings) if local else DaemonBackend(settings)
        self.backend = backend
        self.session = session

    async def call(self, command: str, **params: Any) -> Any:
        """Run `command` (its table name, e.g. "tab.new") and return its raw JSON result."""
        spec = COMMANDS.get(command)
        if self.session is not None and spec is not None:
            params.setdefault("session", self.session)
        return await self.backend.call(command, _plain(spec, params))

    async def run(self, command: str, **params: Any) -> Result:
        """Run `command` and return its result model."""
        spec = command_for(command)
        data = await self.call(spec.name, **params)
        return _loose(spec.result).model_validate(data)

    def __getattr__(self, attribute: str) -> Callable[..., Awaitable[Result]]:
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        name = command_for(attribute).name

        async def method(**params: Any) -> Result:
            return await self.run(name, **params)

        method.__name__ = attribute
        method.__doc__ = COMMANDS[name].doc
        return method

    async def aclose(self) -> None:
        await self.backend.aclose()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class SyncClient:
    """The same methods, blocking: an event loop runs them on a thread of its own."""

    def __init__(
        self,
        backend: Backend | None = None,
        *,
        session: str | None = None,
        settings: Settings | None = None,
        local: bool = False,
    ) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="steadyhand-client", daemon=True
        )
        self._thread.start()
        self._client = self._wait(_make(backend, session=session, settings=settings, local=local))

    def _wait(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    @property
    def session(self) -> str | None:
        return self._client.session

    def call(self, command: str, **params: Any) -> Any:
        return self._wait(self._client.call(command, **params))

    def run(self, command: str, **params: Any) -> Result:
        return self._wait(self._client.run(command, **params))

    def __getattr__(self, attribute: str) -> Callable[..., Result]:
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        name = command_for(attribute).name

        def method(**params: Any) -> Result:
            return self.run(name, **params)

        method.__name__ = attribute
        method.__doc__ = COMMANDS[name].doc
        return method

    def close(self) -> None:
        if self._loop.is_closed():
            return
        try:
            self._wait(self._client.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def _make(
    backend: Backend | None, *, session: str | None, settings: Settings | None, local: bool
) -> Client:
    # Built on the client's loop: the backends' locks and connections belong to it.
    return Client(backend, session=session, settings=settings, local=local)


def _plain(command: Command | None, params: dict[str, Any]) -> dict[str, Any]:
    """Params as JSON data. File paths go as given: the daemon resolves a relative one in
    the session's artifacts folder, as for every front but the CLI (files_policy.py); this
    client also serves the MCP front, whose working directory means nothing to its agent."""
    out: dict[str, Any] = {}
    for key, given in params.items():
        if given is None:
            continue
        if isinstance(given, BaseModel):
            out[key] = given.model_dump(mode="json")
        elif isinstance(given, os.PathLike):
            out[key] = os.fspath(given)
        else:
            out[key] = given
    return out


class Engine(Client):
    """A client whose engine runs in this process (no daemon): `async with Engine() as e`."""

    def __init__(self, settings: Settings | None = None, *, session: str | None = None) -> None:
        super().__init__(LocalBackend(settings), session=session)
