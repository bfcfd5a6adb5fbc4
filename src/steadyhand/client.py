"""The Python client: every command of the table as a method, on the daemon or in-process.

    async with steadyhand.Client() as browser:          # the daemon (started if needed)
        page = await browser.open(url="http://127.0.0.1:8000/form.html", session="me")
        snap = await browser.snapshot(session="me")
        await browser.click(ref="e3", session="me")

    with steadyhand.SyncClient(local=True) as browser:  # an engine inside this process
        ...

    async with steadyhand.LocalClient() as browser:     # the same, async
        ...

A method's name is the command's with `.` as `_` (`tab_new`, `session_restore`); its
keyword arguments are the command's params and it returns the command's result model.
Type checkers read each method's signature from client_methods.py (generated from the
table); at run time `__getattr__` makes the method.
Errors are raised as the code's own class (`StaleRefError`, `CommandTimeoutError`, ...),
all of them `SteadyhandError`. The HTTP and MCP fronts use the same backends.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
import threading
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from steadyhand import rpc_client
from steadyhand.client_methods import AsyncCommands, SyncCommands
from steadyhand.commands import COMMANDS, Command, Result
from steadyhand.commands.table import tool_name
from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError

if TYPE_CHECKING:
    from steadyhand.runtime import Runtime

T = TypeVar("T")


# Told a line the caller should see at once (the approval a call waits on, and how to
# decide it); awaited when it returns an awaitable.
OnNotice = Callable[[str], Any]


class Backend(Protocol):
    """Where commands run: `call` returns the command's JSON result or raises; `on_notice`
    is told what the call waits on (an approval)."""

    async def call(
        self, method: str, params: dict[str, Any], *, on_notice: OnNotice | None = None
    ) -> Any: ...

    def stream(self, method: str, params: dict[str, Any]) -> AsyncGenerator[Any, None]:
        """A live stream's events (steadyhand/execute/live.py) until the caller stops."""
        ...

    async def aclose(self) -> None: ...


class DaemonBackend(rpc_client.AsyncLink):
    """JSON-RPC to the daemon over its Unix socket (rpc_client.AsyncLink: pooled
    connections, live streams); starts the daemon when none answers."""

    async def call(
        self,
        method: str,
        params: dict[str, Any],
        *,
        warm: bool | None = None,
        on_notice: OnNotice | None = None,
    ) -> Any:
        # As the CLI does: a command of the browser's has the daemon launch it as it starts.
        warm = in_browser(method) if warm is None else warm
        return await super().call(method, params, warm=warm, on_notice=on_notice)


def in_browser(method: str) -> bool:
    """Whether the command acts in a browser (the table's `in_browser`); a method outside
    the table (the live view's `live.*`) counts as one."""
    command = COMMANDS.get(method)
    return command is None or command.in_browser


class LocalBackend:
    """An engine inside this process: no daemon, the same commands, store and checks."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings.load()
        self._runtime: Runtime | None = None
        self._lock = asyncio.Lock()

    async def _start(self) -> Runtime:
        async with self._lock:
            if self._runtime is None:
                from steadyhand.startup import open_runtime

                self._runtime = await open_runtime(self.settings)
            return self._runtime

    async def call(
        self, method: str, params: dict[str, Any], *, on_notice: OnNotice | None = None
    ) -> Any:
        from steadyhand.execute.run import execute

        spec = COMMANDS.get(method)
        if spec is not None and spec.daemon_only:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"there is no daemon to run {method}: this client runs its engine in-process",
                "close the client (or leave its `with` block) to stop the engine",
            )
        runtime = await self._start()
        if method.startswith("live."):  # the live view's, as the socket answers them
            from steadyhand.execute import live as service

            return json.loads(json.dumps(await service.call(runtime, method, params)))
        notice = None if on_notice is None else _awaiting(on_notice)
        result = await execute(runtime, method, params, notice=notice)
        # The result crosses the same JSON boundary as over the socket.
        return json.loads(json.dumps(result))

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


def method_name(command: str) -> str:
    """`tab.new` -> `tab_new`, `select-text` -> `select_text`: a command as a method (as
    its tool is named)."""
    return tool_name(command)


def command_for(attribute: str) -> Command:
    """`tab_new` -> the `tab.new` command (named as its LLM tool is, or as its method);
    AttributeError when there is none."""
    if attribute in COMMANDS:
        return COMMANDS[attribute]
    for command in COMMANDS.values():
        if attribute == tool_name(command.name):
            return command
    raise AttributeError(f"steadyhand has no command {attribute!r}")


class Client(AsyncCommands):
    """Every command as an async method. `session` sets the default session of each call;
    `on_notice` is told at once what a call waits on (an approval: its id, how to decide)."""

    def __init__(
        self,
        backend: Backend | None = None,
        *,
        session: str | None = None,
        settings: Settings | None = None,
        local: bool = False,
        on_notice: OnNotice | None = None,
    ) -> None:
        if backend is None:
            backend = LocalBackend(settings) if local else DaemonBackend(settings)
        self.backend = backend
        self.session = session
        self.on_notice = on_notice

    @property
    def settings(self) -> Settings | None:
        """The settings of the daemon link or the engine in this process."""
        return getattr(self.backend, "settings", None)

    async def call(self, command: str, **params: Any) -> Any:
        """Run `command` (its table name, e.g. "tab.new") and return its raw JSON result."""
        return await self.call_noticed(command, params, self.on_notice)

    async def call_noticed(
        self, command: str, params: dict[str, Any], on_notice: OnNotice | None
    ) -> Any:
        """`call`, its params a dict, its notices (what it waits on) told to `on_notice`."""
        spec = COMMANDS.get(command)
        params = dict(params)
        if self.session is not None and spec is not None:
            params.setdefault("session", self.session)
        if on_notice is None:
            return await self.backend.call(command, _plain(spec, params))
        return await self.backend.call(command, _plain(spec, params), on_notice=on_notice)

    async def run(self, command: str, **params: Any) -> Result:
        """Run `command` and return its result model."""
        spec = command_for(command)
        data = await self.call(spec.name, **params)
        return _loose(spec.result).model_validate(data)

    if not TYPE_CHECKING:  # type checkers know the methods from AsyncCommands

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


class SyncClient(SyncCommands):
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

    @property
    def settings(self) -> Settings | None:
        return self._client.settings

    def call(self, command: str, **params: Any) -> Any:
        return self._wait(self._client.call(command, **params))

    def run(self, command: str, **params: Any) -> Result:
        return self._wait(self._client.run(command, **params))

    if not TYPE_CHECKING:  # type checkers know the methods from SyncCommands

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


def _awaiting(on_notice: OnNotice) -> Callable[[str], Awaitable[None]]:
    async def notice(text: str) -> None:
        told = on_notice(text)
        if inspect.isawaitable(told):
            await told

    return notice


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
        elif isinstance(given, list):  # a batch's steps may be models (commands/batch.py Step)
            out[key] = [g.model_dump(mode="json") if isinstance(g, BaseModel) else g for g in given]
        elif isinstance(given, os.PathLike):
            out[key] = os.fspath(given)
        else:
            out[key] = given
    return out


class LocalClient(Client):
    """A client whose engine runs in this process (no daemon): `async with LocalClient() as c`."""

    def __init__(self, settings: Settings | None = None, *, session: str | None = None) -> None:
        super().__init__(LocalBackend(settings), session=session)


if TYPE_CHECKING:
    Engine = LocalClient  # deprecated: LocalClient
else:

    def __getattr__(name: str) -> object:
        if name == "Engine":
            return deprecated_engine()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def deprecated_engine(stacklevel: int = 3) -> type[LocalClient]:
    """`Engine`, LocalClient's old name: still LocalClient, with a DeprecationWarning."""
    warnings.warn(
        "steadyhand.Engine is renamed steadyhand.LocalClient; the old name will go",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
    return LocalClient
