"""Where files a command writes go: a path the caller gave, or one under the artifacts dir.

A path the caller gives is resolved and confined to the call's file roots first
(steadyhand/files_policy.py). Under the artifacts dir a file is
`<session>/<time>-<action>-<label>.<ext>`, indexed in the store with the action that wrote
it (see Call.keep), and subject to retention (observe/retention.py).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.files_policy import FileRoots, confine

UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def artifact_path(root: Path, session: str, action: str, label: str, ext: str) -> Path:
    """`root/<session>/<time>-<action>-<label>.<ext>`, the folders private to the user.

    The time has microseconds, so two files of one session never share a name.
    """
    folder = root / safe_name(session)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    now_ns = time.time_ns()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now_ns / 1e9))
    name = f"{stamp}-{now_ns // 1000 % 1_000_000:06d}-{safe_name(action)}-{safe_name(label)}"
    return folder / (f"{name}.{safe_name(ext)}" if ext else name)


def safe_name(text: str) -> str:
    """`text` as one harmless file-name part: no separators, no leading dots, not empty."""
    return UNSAFE.sub("_", text).lstrip(".")[:80] or "_"


def output_path(
    given: str | None,
    command: str,
    root: Path,
    session: str,
    *,
    label: str,
    ext: str,
    roots: FileRoots,
) -> Path:
    """Where a command writes its file: the caller's path, resolved and confined to the
    call's file roots (files_policy.py), its folder made; or the session's artifact
    `<time>-<command>-<label>.<ext>`. Blocking: run it in a thread."""
    if given is None:
        return artifact_path(root, session, command.replace(".", "-"), label, ext)
    path = confine(given, roots, write=True, command=command.replace(".", " "))
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:  # a file where a folder must be, no permission, a read-only disk
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"cannot make the folder of {path}: {exc.strerror or exc}",
            "give a path in a directory the daemon's user can write",
        ) from exc
    return path
