"""Find and stop the processes a desktop session started, and nothing else.

A session starts each of its programs in a process group of its own and gives every one
an environment that carries the session's mark (a random token). Stopping the session
stops those groups and then any process that still carries the mark: the a11y bus that
at-spi-bus-launcher starts, services a bus activated, a daemon a command started in a new
session. Other processes, whoever owns them, are never looked at beyond /proc.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable, Iterator

MARK_VARIABLE = "STEADYHAND_DESKTOP_SESSION"
TERM_GRACE_S = 3.0  # SIGTERM first; SIGKILL what still runs after this
KILL_WAIT_S = 3.0


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat after the command name: state, ppid, pgrp, ...; None when gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _all_pids() -> Iterator[int]:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            yield int(entry)


def alive(pid: int) -> bool:
    """True while `pid` runs; a zombie (exited, not reaped) counts as gone."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def group_members(pgids: Iterable[int]) -> set[int]:
    """Live processes in any of these process groups."""
    wanted = {str(pgid) for pgid in pgids}
    if not wanted:
        return set()
    members: set[int] = set()
    for pid in _all_pids():
        fields = _stat_fields(pid)
        if fields is not None and fields[2] in wanted and fields[0] not in ("Z", "X"):
            members.add(pid)
    return members


def marked(mark: str) -> set[int]:
    """Live processes of this user whose environment carries MARK_VARIABLE=mark."""
    needle = f"{MARK_VARIABLE}={mark}".encode()
    uid = os.getuid()
    found: set[int] = set()
    for pid in _all_pids():
        if pid == os.getpid():
            continue
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            with open(f"/proc/{pid}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if needle in environ.split(b"\0") and alive(pid):
            found.add(pid)
    return found


def stop(pgids: Iterable[int], mark: str) -> set[int]:
    """Stop the groups and the marked processes: SIGTERM, then SIGKILL. What survived."""
    groups = set(pgids)

    def remaining() -> set[int]:
        return group_members(groups) | marked(mark)

    for sig, wait_s in ((signal.SIGTERM, TERM_GRACE_S), (signal.SIGKILL, KILL_WAIT_S)):
        targets = remaining()
        if not targets:
            return set()
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait_s
        while remaining() and time.monotonic() < deadline:
            time.sleep(0.02)
    return remaining()
