"""The daemon's JSON-RPC protocol, client side, and its two transports.

The protocol is written once: a request's framing (`encode`), its reply and the progress
notes before it (`take_reply`, `result_of`), the errors a lost daemon gives
(`connect_failed`, `no_answer`), whether starting the daemon and asking again may help
(`start_may_help`), the socket path's check and how long to wait for a reply. Two
transports carry it: a blocking socket (`call`, `request`), the thin CLI's hot path, and
asyncio (`AsyncLink`: pooled connections and live streams), under the Python client.

Standard library only, and asyncio only once the async transport is used: the CLI imports
this module, and a call must cost milliseconds on top of the command itself.
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import sys
import time

from steadyhand.config import ENV_PREFIX, Settings
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.private_files import ensure_private_dir
from steadyhand.processes import process_alive

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    import asyncio
    from collections.abc import AsyncGenerator, Callable, Mapping
    from typing import Any

    OnProgress = Callable[[int, int | None, str], None]  # done, total (None: unknown), message
    OnNotice = Callable[[str], Any]  # a line to show at once (an approval waited on)

_ids = itertools.count(1)
# Time the client waits past a command's own deadline before giving up on the daemon.
REPLY_GRACE_S = 10.0
# The longest reply line the async transport reads (a screenshot's data, a big extract).
MAX_REPLY_BYTES = 64 * 1024 * 1024


# ---------------------------------------------------------------- the protocol


def encode(
    method: str,
    params: dict[str, Any],
    request_id: int,
    *,
    progress: bool = False,
    notices: bool = False,
    cli_cwd: str | None = None,
) -> bytes:
    """One request, as the line sent on the socket.

    `progress`: the daemon sends progress notes before the reply, and notices. `notices`:
    only the notices (what the call waits on, e.g. an approval). `cli_cwd`: the CLI's
    working directory, sent only by the CLI (files_policy.py)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    message["params"] = params
    if progress:
        message["progress"] = True
    elif notices:
        message["notices"] = True
    if cli_cwd is not None:
        message["cli_cwd"] = cli_cwd
    return json.dumps(message).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """One line from the daemon; ValueError when it is no JSON object."""
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("reply is not an object")
    return message


def take_reply(
    line: bytes, on_progress: OnProgress | None, on_notice: OnNotice | None = None
) -> dict[str, Any] | None:
    """The reply the line holds, or None when it was a progress note (given to
    `on_progress`) or a notice (to `on_notice`): the daemon sends those before the reply."""
    message = decode(line)
    if message.get("method") != "progress" or "id" in message:
        return message
    note = message.get("params")
    if not isinstance(note, dict):
        return None
    if note.get("notice"):
        if on_notice is not None:
            on_notice(str(note.get("message")))
    elif on_progress is not None:
        on_progress(int(note.get("done") or 0), note.get("total"), str(note.get("message")))
    return None


def result_of(reply: dict[str, Any]) -> Any:
    """The reply's result; its error raised as the code's own SteadyhandError class."""
    if "error" in reply:
        raise SteadyhandError.from_rpc_error(reply["error"])
    return reply.get("result")


def connect_failed(settings: Settings, exc: OSError) -> SteadyhandError:
    """The error for a connection the daemon's socket refused (a socket path too long for
    Unix sockets raises its own)."""
    if isinstance(exc, FileNotFoundError | ConnectionRefusedError):
        return SteadyhandError(
            ErrorCode.DAEMON_UNAVAILABLE,
            f"no daemon listening on {settings.socket_path}",
            "start it with `steadyhand daemon start` (any command starts it too)",
        )
    check_socket_path(settings)
    return SteadyhandError(
        ErrorCode.DAEMON_UNAVAILABLE,
        f"cannot connect to {settings.socket_path}: {exc}",
        "check the state dir's permissions; `steadyhand daemon status`",
    )


def no_answer(method: str, exc: BaseException, sent: bool = True) -> SteadyhandError:
    """The error for a request that got no reply. `sent`: the daemon may have run it, so it
    is never sent again (not even to a daemon started anew)."""
    return SteadyhandError(
        ErrorCode.DAEMON_UNAVAILABLE,
        f"the daemon did not answer {method}: {str(exc) or type(exc).__name__}",
        "see daemon.log in the state dir; `steadyhand daemon status`",
        {"sent": True} if sent else {},
    )


def never_sent(exc: SteadyhandError) -> bool:
    """The daemon was not there to ask: the request did not reach one."""
    return exc.code == ErrorCode.DAEMON_UNAVAILABLE and not exc.data.get("sent")


def start_may_help(exc: SteadyhandError, autostart: bool) -> bool:
    """Whether to start the daemon and send the request once more: no daemon was there to
    ask, and the caller lets this request start one."""
    return autostart and never_sent(exc)


def reply_wait_s(settings: Settings, params: dict[str, Any]) -> float:
    """How long a client waits for a reply: the longest deadline the command may run under
    (the daemon enforces it), plus an approval's wait (it comes before the deadline
    starts), plus a grace period.

    A timeout that is no valid deadline gets the long tier's wait: refusing it here would
    keep the refusal out of the daemon's action log; the daemon refuses it, and logs it.

    A batch without a timeout of its own (`steps`) runs each step within its deadline, one
    after another, each after its own approval if it needs one: the wait is theirs added
    up. (A batch's --timeout bounds its steps' approvals too.)"""
    steps = params.get("steps")
    approval_s = settings.approval_timeout_s
    if params.get("timeout") is None and isinstance(steps, list) and steps:
        each = (_deadline_s(settings, _params_of(step)) + approval_s for step in steps)
        return sum(each) + REPLY_GRACE_S
    return _deadline_s(settings, params) + approval_s + REPLY_GRACE_S


def _deadline_s(settings: Settings, params: dict[str, Any]) -> float:
    try:
        return settings.timeout_ms(params.get("timeout"), "long") / 1000
    except SteadyhandError:
        return settings.timeout_ms(None, "long") / 1000


def _params_of(step: Any) -> dict[str, Any]:
    params = step.get("params") if isinstance(step, dict) else None
    return params if isinstance(params, dict) else {}


# sockaddr_un holds 108 bytes including the terminating NUL.
MAX_SOCKET_PATH = 107


def check_socket_path(settings: Settings) -> None:
    """A state dir too deep for a Unix socket gets a clear error instead of an OSError."""
    length = len(os.fsencode(settings.socket_path))
    if length > MAX_SOCKET_PATH:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"the socket path {settings.socket_path} is {length} bytes; Unix sockets allow "
            f"{MAX_SOCKET_PATH}",
            "set STEADYHAND_STATE_DIR to a shorter directory",
        )


# ---------------------------------------------------------------- blocking transport


def call(
    settings: Settings,
    method: str,
    params: dict[str, Any] | None = None,
    autostart: bool = True,
    on_progress: OnProgress | None = None,
    *,
    cli_cwd: str | None = None,
    warm: bool = True,
    on_notice: OnNotice | None = None,
) -> Any:
    """Run one command in the daemon and return its result; raise SteadyhandError.

    `on_progress` is given the daemon's progress notes (done, total, message) on long work;
    `on_notice` its notices (a line to show at once: the approval the call waits on).
    `cli_cwd`: the CLI's working directory, sent only by the CLI (files_policy.py).
    `warm`: a daemon this call starts launches the browser as it starts (the command acts
    in a browser: the table's `in_browser`).
    """
    params = dict(params or {})
    wait_s = reply_wait_s(settings, params)
    try:
        return request(
            settings, method, params, wait_s, on_progress, cli_cwd=cli_cwd, on_notice=on_notice
        )
    except SteadyhandError as exc:
        if not start_may_help(exc, autostart):
            raise
    start_daemon(settings, warm=warm)
    return request(
        settings, method, params, wait_s, on_progress, cli_cwd=cli_cwd, on_notice=on_notice
    )


def request(
    settings: Settings,
    method: str,
    params: dict[str, Any],
    timeout_s: float,
    on_progress: OnProgress | None = None,
    *,
    cli_cwd: str | None = None,
    on_notice: OnNotice | None = None,
) -> Any:
    """One JSON-RPC round trip on the daemon's socket."""
    line = encode(
        method,
        params,
        next(_ids),
        progress=on_progress is not None,
        notices=on_notice is not None,
        cli_cwd=cli_cwd,
    )
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout_s)
    try:
        try:
            sock.connect(str(settings.socket_path))
        except OSError as exc:
            raise connect_failed(settings, exc) from exc
        try:
            sock.sendall(line)
            reply = _read_reply(sock, on_progress, on_notice)
        except (OSError, ValueError) as exc:
            raise no_answer(method, exc) from exc
    finally:
        sock.close()
    return result_of(reply)


def _read_reply(
    sock: socket.socket, on_progress: OnProgress | None, on_notice: OnNotice | None
) -> dict[str, Any]:
    """The reply line; progress notes before it go to `on_progress`, notices to `on_notice`."""
    pending = b""
    while True:
        chunks = [pending]
        while b"\n" not in chunks[-1]:
            chunk = sock.recv(1 << 16)
            if not chunk:
                raise ValueError("connection closed before a reply")
            chunks.append(chunk)
        line, _, pending = b"".join(chunks).partition(b"\n")
        reply = take_reply(line, on_progress, on_notice)
        if reply is not None:
            return reply


# ---------------------------------------------------------------- asyncio transport


class AsyncLink:
    """The same requests over asyncio; starts the daemon when none answers.

    Connections are pooled: the daemon answers one request per connection at a time, so
    concurrent calls each take their own.
    """

    def __init__(self, settings: Settings | None = None, autostart: bool = True) -> None:
        self.settings = settings or Settings.load()
        self.autostart = autostart
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def call(
        self,
        method: str,
        params: dict[str, Any],
        *,
        warm: bool = True,
        on_notice: OnNotice | None = None,
    ) -> Any:
        """As `call` does: `warm`, a daemon this call starts launches the browser with it;
        `on_notice` is given the daemon's notices (and awaited if it returns an awaitable)."""
        import asyncio

        try:
            return await self.request(method, params, on_notice=on_notice)
        except SteadyhandError as exc:
            if not start_may_help(exc, self.autostart):
                raise
        await asyncio.to_thread(start_daemon, self.settings, None, warm)
        return await self.request(method, params, on_notice=on_notice)

    async def request(
        self, method: str, params: dict[str, Any], *, on_notice: OnNotice | None = None
    ) -> Any:
        """One round trip on a pooled connection, as `request` makes it."""
        import asyncio
        import inspect

        reader, writer, reused = await self._connection()
        wait_s = reply_wait_s(self.settings, params)
        notices: list[str] = []
        try:
            writer.write(encode(method, params, next(_ids), notices=on_notice is not None))
            await writer.drain()
            reply = None
            while reply is None:
                line = await asyncio.wait_for(reader.readline(), wait_s)
                if not line:
                    raise ConnectionError("connection closed before a reply")
                reply = take_reply(line, None, notices.append)
                while notices and on_notice is not None:
                    told = on_notice(notices.pop(0))
                    if inspect.isawaitable(told):
                        await told
        except (OSError, ValueError, TimeoutError) as exc:
            writer.close()
            # A pooled connection the daemon closed since (it stopped or restarted) fails
            # at once: that request was never run, so it may go again on a new one.
            stale = reused and isinstance(exc, ConnectionError)
            if stale:
                await self.aclose()
            raise no_answer(method, exc, sent=not stale) from exc
        except BaseException:
            writer.close()  # cancelled mid-call: the reply would reach the next caller
            raise
        self._idle.append((reader, writer))
        return result_of(reply)

    async def stream(
        self, method: str, params: dict[str, Any], *, warm: bool = True
    ) -> AsyncGenerator[Any, None]:
        """A live stream on a connection of its own, closed when the caller stops reading
        (the daemon then stops the stream: a screencast nobody watches ends)."""
        await self.call("daemon.status", {}, warm=warm)  # started (or found) like any call
        reader, writer, _ = await self._connection(pooled=False)
        request_id = next(_ids)
        try:
            writer.write(encode(method, params, request_id))
            await writer.drain()
            while line := await reader.readline():
                message = decode(line)
                if message.get("method") == "live":
                    yield message["params"]["event"]
                elif message.get("id") == request_id:
                    result_of(message)
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
        import asyncio

        while pooled and self._idle:
            reader, writer = self._idle.pop()
            if not writer.is_closing() and not reader.at_eof():
                return reader, writer, True
            writer.close()
        try:
            reader, writer = await asyncio.open_unix_connection(
                str(self.settings.socket_path), limit=MAX_REPLY_BYTES
            )
        except OSError as exc:
            raise connect_failed(self.settings, exc) from exc
        return reader, writer, False

    async def aclose(self) -> None:
        """Close the pooled connections (a stream closes its own)."""
        import contextlib

        while self._idle:
            _, writer = self._idle.pop()
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


# ---------------------------------------------------------------- the daemon's process


def daemon_pid(settings: Settings) -> int | None:
    """The running daemon's pid, or None.

    The pid file alone can lie (it survives a SIGKILL and the pid may be reused); a
    daemon holds the state dir's lock for its whole life, so the lock decides.
    """
    import fcntl

    try:
        pid = int(settings.pid_path.read_text().strip())
        with open(settings.lock_path) as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return pid if process_alive(pid) else None
            return None  # nobody holds the lock: no daemon, whatever the pid file says
    except (OSError, ValueError):
        return None


def start_daemon(
    settings: Settings, environ: Mapping[str, str] | None = None, warm: bool = False
) -> int:
    """Start the daemon in the background and wait until it answers; return its pid.

    The daemon gets this process's environment, or `environ` (a desktop session's, say).
    `warm`: it launches the browser as it starts, not at the first command that needs it.
    """
    import subprocess  # only when starting: it costs the hot path milliseconds

    check_socket_path(settings)
    ensure_private_dir(settings.state_dir)
    deadline = time.monotonic() + settings.daemon_start_timeout_s
    while daemon_pid(settings) is not None:
        # A daemon holds the lock: one still starting answers soon; one on its way out
        # (killed, or closing its browser) lets go soon. Spawning now would only lose.
        try:
            return int(request(settings, "daemon.status", {}, 2.0)["pid"])
        except SteadyhandError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.05)
    # The daemon runs on exactly these settings (the caller's file and environment, and
    # anything a library caller or a test set on the object).
    env = dict(os.environ if environ is None else environ)
    for name, value in settings.as_dict().items():
        env[ENV_PREFIX + name.upper()] = str(int(value) if isinstance(value, bool) else value)
    log_fd = os.open(settings.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "steadyhand.daemon", *(["--warm-browser"] if warm else [])],
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=log_fd,
            env=env,
            cwd=settings.state_dir,
            start_new_session=True,  # survives the CLI and its terminal
        )
    finally:
        os.close(log_fd)
    deadline = time.monotonic() + settings.daemon_start_timeout_s
    while time.monotonic() < deadline:
        try:
            status = request(settings, "daemon.status", {}, 5.0)
            pid = int(status["pid"])
            if pid != process.pid and process.poll() is None:
                # A racing caller's daemon answered first. Ours never got the lock; left
                # alone it could take it once that daemon stops, and run on unasked.
                process.kill()
                process.wait()
            return pid
        except SteadyhandError as exc:
            if exc.code != ErrorCode.DAEMON_UNAVAILABLE:
                raise
        if process.poll() is not None and daemon_pid(settings) is None:
            raise SteadyhandError(
                ErrorCode.DAEMON_UNAVAILABLE,
                f"the daemon exited at start (status {process.returncode}): " + _log_tail(settings),
                f"see {settings.log_path}",
            )
        time.sleep(0.02)
    raise SteadyhandError(
        ErrorCode.DAEMON_UNAVAILABLE,
        f"the daemon did not answer within {settings.daemon_start_timeout_s} s",
        f"see {settings.log_path}",
    )


def _log_tail(settings: Settings, lines: int = 5) -> str:
    try:
        return " | ".join(settings.log_path.read_text().strip().splitlines()[-lines:])
    except OSError:
        return "(no log)"
