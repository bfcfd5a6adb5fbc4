"""Where files a command writes go: a path the caller gave, or one under the artifacts dir."""

from __future__ import annotations

import time
from pathlib import Path

from steadyhand.errors import ErrorCode, SteadyhandError


def artifact_path(root: Path, session: str, label: str, ext: str) -> Path:
    """`root/<session>/<time>-<label>.<ext>`, the folders private to the user.

    The time has microseconds, so two files of one session never share a name.
    """
    folder = root / session
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    now_ns = time.time_ns()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now_ns / 1e9))
    return folder / f"{stamp}-{now_ns // 1000 % 1_000_000:06d}-{label}.{ext}"


def requested_path(given: str, command: str) -> Path:
    """A path the caller asked for: it must be absolute (the daemon has its own cwd)."""
    if "\0" in given:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{command} path {given!r} contains a NUL character",
            "give a path without NUL characters",
        )
    path = Path(given)
    if not path.is_absolute():
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{command} path {given!r} is relative",
            "give an absolute path (the daemon's working directory is not yours)",
        )
    return path
