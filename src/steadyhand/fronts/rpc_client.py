"""Talk to the daemon, starting it when it is not running. Standard library only.

This is the thin CLI's hot path: it must not import Playwright, pydantic or anything
heavy, so that a call costs milliseconds on top of the command itself.
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import sys
import time

from steadyhand.config import ENV_PREFIX, Settings, ensure_private_dir
from steadyhand.errors import ErrorCode, SteadyhandError

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    OnProgress = Callable[[int, int | None, str], None]  # done, total (None: unknown), message

_ids = itertools.count(1)
# Time the client waits past a command's own deadline before giving up on the daemon.
REPLY_GRACE_S = 10.0


def call(
    settings: Settings,
    method: str,
    params: dict[str, Any] | None = None,
    autostart: bool = True,
    on_progress: OnProgress | None = None,
    *,
    cli_cwd: str | None = None,
) -> Any:
    """Run one command in the daemon and return its result; raise SteadyhandError.

    `on_progress` is given the daemon's progress notes (done, total, message) on long work.
    `cli_cwd`: the CLI's working directory, sent only by the CLI (files_policy.py).
    """
    params = dict(params or {})
    wait_s = reply_wait_s(settings, params)
    try:
        return request(settings, method, params, wait_s, on_progress, cli_cwd=cli_cwd)
    except SteadyhandError as exc:
        if exc.code != ErrorCode.DAEMON_UNAVAILABLE or not autostart or exc.data.get("sent"):
            raise
    # A command of the browser's starts it with the daemon, while the daemon loads.
    start_daemon(settings, warm=not method.startswith("desktop."))
    return request(settings, method, params, wait_s, on_progress, cli_cwd=cli_cwd)


def reply_wait_s(settings: Settings, params: dict[str, Any]) -> float:
    """How long a client waits for a reply: the longest deadline the command may run under
    (the daemon enforces it), plus an approval's wait (it comes before the deadline
    starts), plus a grace period.

    A timeout that is no valid deadline gets the long tier's wait: refusing it here would
    keep the refusal out of the daemon's action log; the daemon refuses it, and logs it."""
    try:
        deadline_s = settings.timeout_ms(params.get("timeout"), "long") / 1000
    except SteadyhandError:
        deadline_s = settings.timeout_ms(None, "long") / 1000
    return deadline_s + settings.approval_timeout_s + REPLY_GRACE_S


def request(
    settings: Settings,
    method: str,
    params: dict[str, Any],
    timeout_s: float,
    on_progress: OnProgress | None = None,
    *,
    cli_cwd: str | None = None,
) -> Any:
    """One JSON-RPC round trip on the daemon's socket."""
    message = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
    if on_progress is not None:
        message["progress"] = True
    if cli_cwd is not None:
        message["cli_cwd"] = cli_cwd
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout_s)
    try:
        try:
            sock.connect(str(settings.socket_path))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise SteadyhandError(
                ErrorCode.DAEMON_UNAVAILABLE,
                f"no daemon listening on {settings.socket_path}",
                "start it with `steadyhand daemon start` (any command starts it too)",
            ) from exc
        except OSError as exc:
            check_socket_path(settings)
            raise SteadyhandError(
                ErrorCode.DAEMON_UNAVAILABLE,
                f"cannot connect to {settings.socket_path}: {exc}",
                "check the state dir's permissions; `steadyhand daemon status`",
            ) from exc
        try:
            sock.sendall(json.dumps(message).encode() + b"\n")
            reply = _read_reply(sock, on_progress)
        except (OSError, ValueError) as exc:
            raise SteadyhandError(
                ErrorCode.DAEMON_UNAVAILABLE,
                f"the daemon did not answer {method}: {exc}",
                "see daemon.log in the state dir; `steadyhand daemon status`",
                {"sent": True},
            ) from exc
    finally:
        sock.close()
    if "error" in reply:
        raise SteadyhandError.from_rpc_error(reply["error"])
    return reply.get("result")


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


def _read_reply(sock: socket.socket, on_progress: OnProgress | None) -> dict[str, Any]:
    """The reply line; progress notifications before it go to `on_progress`."""
    pending = b""
    while True:
        chunks = [pending]
        while b"\n" not in chunks[-1]:
            chunk = sock.recv(1 << 16)
            if not chunk:
                raise ValueError("connection closed before a reply")
            chunks.append(chunk)
        line, _, pending = b"".join(chunks).partition(b"\n")
        message = json.loads(line)
        if not isinstance(message, dict):
            raise ValueError("reply is not an object")
        if message.get("method") != "progress" or "id" in message:
            return message
        note = message.get("params")
        if on_progress is not None and isinstance(note, dict):
            on_progress(int(note.get("done") or 0), note.get("total"), str(note.get("message")))


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


def process_alive(pid: int) -> bool:
    """True while `pid` runs; a zombie (exited, not yet reaped) counts as gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def wait_exit(pid: int, timeout_s: float = 30.0) -> bool:
    """Wait for a process to exit; True if it did within the time."""
    deadline = time.monotonic() + timeout_s
    while process_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


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
