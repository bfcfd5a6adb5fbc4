"""Artifact retention: the artifacts dir kept to the newest sessions and a byte budget.

Applied when the daemon starts and every hour (settings `artifacts_keep_sessions`,
`artifacts_max_bytes`):

1. the files of every session but the `artifacts_keep_sessions` most recent go (a session's
   age is its newest file), with their index rows;
2. then, while the files left weigh more than `artifacts_max_bytes`, the oldest files go.

Only files under the artifacts dir are ever deleted: a file a caller asked for at its own
path (`screenshot --path ~/x.png`) stays, and so does its index row. Sessions open in the
daemon keep their files. The action log is never touched: its rows keep naming the paths,
and `trace` marks the ones gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from steadyhand.config import Settings
from steadyhand.store.base import Store

log = logging.getLogger("steadyhand.retention")

INTERVAL_S = 3600.0


@dataclass
class Pruned:
    sessions: list[str] = field(default_factory=list)  # whose files all went
    files: int = 0
    bytes_freed: int = 0
    bytes_kept: int = 0


@dataclass
class _File:
    session: str
    path: Path
    mtime: float
    size: int


def apply(store: Store, settings: Settings, live: Collection[str] = ()) -> Pruned:
    """Prune the artifacts dir (see the module's doc); what went, and what is kept."""
    root = settings.artifacts_dir
    pruned = Pruned()
    if not root.is_dir():
        return pruned
    files = _files(root)
    newest: dict[str, float] = {}
    for f in files:
        newest[f.session] = max(newest.get(f.session, 0.0), f.mtime)
    by_age = sorted(newest, key=newest.__getitem__, reverse=True)
    keep = set(by_age[: max(0, settings.artifacts_keep_sessions)]) | set(live)
    doomed = [f for f in files if f.session not in keep]
    pruned.sessions = sorted({f.session for f in doomed})
    left = [f for f in files if f.session in keep]
    total = sum(f.size for f in left)
    if total > settings.artifacts_max_bytes:
        for f in sorted((f for f in left if f.session not in live), key=lambda f: f.mtime):
            if total <= settings.artifacts_max_bytes:
                break
            doomed.append(f)
            total -= f.size
    gone = {str(f.path) for f in doomed if _unlink(f.path)}
    pruned.files = len(gone)
    pruned.bytes_freed = sum(f.size for f in doomed if str(f.path) in gone)
    pruned.bytes_kept = sum(f.size for f in files) - pruned.bytes_freed
    store.forget_artifacts([row.id for row in store.artifacts() if row.path in gone])
    for session in pruned.sessions:
        with contextlib.suppress(OSError):
            (root / session).rmdir()  # only when nothing else is in it
    if pruned.files:
        log.info(
            "retention removed %d file(s), %d bytes (sessions: %s); %d bytes kept",
            pruned.files,
            pruned.bytes_freed,
            ", ".join(pruned.sessions) or "none whole",
            pruned.bytes_kept,
        )
    if pruned.bytes_kept > settings.artifacts_max_bytes:
        log.warning(
            "artifacts of open sessions alone weigh %d bytes, over artifacts_max_bytes (%d)",
            pruned.bytes_kept,
            settings.artifacts_max_bytes,
        )
    return pruned


def _files(root: Path) -> list[_File]:
    """Every file in a session folder of the artifacts dir (indexed or not)."""
    found: list[_File] = []
    for folder in root.iterdir():
        if not folder.is_dir() or folder.is_symlink():
            continue
        for path in folder.iterdir():
            try:
                st = path.lstat()
            except OSError:
                continue
            if os.path.isfile(path) and not path.is_symlink():
                found.append(_File(folder.name, path, st.st_mtime, st.st_size))
    return found


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return True
    except OSError as exc:
        log.warning("retention could not delete %s: %s", path, exc)
        return False
    return True


async def every_hour(store: Store, settings: Settings, live: Callable[[], set[str]]) -> None:
    """Apply retention every INTERVAL_S, until cancelled (the daemon applies it once itself
    before it answers anything: see daemon.serve)."""
    while True:
        await asyncio.sleep(INTERVAL_S)
        try:
            await asyncio.to_thread(apply, store, settings, live())
        except Exception:
            log.exception("artifact retention failed; trying again in an hour")
