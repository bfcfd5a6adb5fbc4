"""Start a program on the daemon's desktop and wait until it shows up.

The program runs in the daemon's environment (its DISPLAY and session bus), in a process
group of its own, its output in a log file. It has shown up once a top-level window of
its process group is mapped and it is on the accessibility bus, or one of the two has been
there for APPEAR_GRACE_S (a program with no accessibility, or no window).
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from steadyhand.desktop import procs
from steadyhand.desktop.deadline import Deadline
from steadyhand.desktop.xwindows import WindowFacts, list_windows
from steadyhand.errors import ErrorCode, SteadyhandError

if TYPE_CHECKING:
    from steadyhand.desktop.desktop import Desktop

POLL_S = 0.05
APPEAR_GRACE_S = 1.0
LOG_TAIL_LINES = 8


@dataclass
class Launched:
    pid: int
    log: Path
    app: str | None = None  # its name on the accessibility bus
    windows: list[WindowFacts] = field(default_factory=list)
    visible_ms: float | None = None  # from start to shown; None when not waited for


def program(argv: list[str]) -> str:
    """The executable argv[0] names, as the daemon would run it; not_found otherwise."""
    if not argv or not argv[0]:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, "no program to launch", "give the program and its arguments"
        )
    name = argv[0]
    found = (
        (name if os.access(name, os.X_OK) and os.path.isfile(name) else None)
        if ("/" in name)
        else shutil.which(name)
    )
    if found is None:
        where = "no such executable file" if "/" in name else "not on the daemon's PATH"
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"cannot launch {name!r}: {where}",
            "give the program's full path, or install it; the daemon's PATH is "
            + os.environ.get("PATH", "(unset)"),
        )
    return found


def tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    return " | ".join(text.splitlines()[-lines:])


async def start(argv: list[str], log: Path) -> asyncio.subprocess.Process:
    """Start `argv` in its own process group, its output appended to `log` (mode 0600)."""
    executable = program(argv)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        # asyncio's child watcher reaps it whenever it exits, so no zombie is left.
        return await asyncio.create_subprocess_exec(
            *argv,
            executable=executable,  # argv[0] stays as given: some programs go by it
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=subprocess.STDOUT,
            process_group=0,
        )
    except OSError as exc:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            f"cannot launch {argv[0]!r}: {exc}",
            "check that it is an executable program for this machine",
        ) from exc
    finally:
        os.close(fd)


async def wait_shown(
    process: asyncio.subprocess.Process, log: Path, desktop: Desktop, deadline: float
) -> Launched:
    """Wait until the program shows a window or is on the accessibility bus; fails when it
    exits first or nothing shows by the deadline (it keeps running then)."""
    began = time.monotonic()
    pid = process.pid
    seen_at: float | None = None
    done = Launched(pid, log)
    while True:
        if process.returncode is not None:
            raise _exited(process.returncode, log, done)
        family = procs.group_members([pid]) | {pid}
        done.windows = await desktop.worker.run(
            functools.partial(_mapped_windows, family),
            deadline,
            "looking for the program's windows",
        )
        apps: list[dict[str, Any]] = await desktop.apps(deadline)
        done.app = next((a["name"] for a in apps if a["pid"] in family and a["name"]), None)
        now = time.monotonic()
        if done.windows or done.app:
            seen_at = seen_at or now
            if (done.windows and done.app) or now - seen_at >= APPEAR_GRACE_S:
                done.visible_ms = round((seen_at - began) * 1000, 1)
                return done
        if now + POLL_S > deadline - 0.3:
            break
        await asyncio.sleep(POLL_S)
    raise SteadyhandError(
        ErrorCode.TIMEOUT,
        f"{log.name}: the program (pid {pid}) showed no window and is not on the "
        f"accessibility bus after {now - began:.1f} s; it is still running",
        f"give it longer (--timeout), or --no-wait for a program with no window; its log: "
        f"{log}; stop it with `kill -- -{pid}`",
        {"pid": pid, "log": str(log)},
    )


def _mapped_windows(pids: set[int], _: Deadline) -> list[WindowFacts]:
    return [w for w in list_windows() if w.pid in pids and w.mapped]


def _exited(code: int, log: Path, done: Launched) -> SteadyhandError:
    said = tail(log)
    return SteadyhandError(
        ErrorCode.ACTION_FAILED,
        f"the program exited with code {code} before it showed a window"
        + (f": {said}" if said else " (its log is empty)"),
        f"its log: {log}"
        + (
            "; exit code 0 may mean it handed over to an instance already running "
            "(`desktop windows` and `desktop apps` show what is there)"
            if code == 0
            else ""
        ),
        {"pid": done.pid, "exit_code": code, "log": str(log)},
    )
