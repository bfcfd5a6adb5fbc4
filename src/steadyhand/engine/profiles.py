"""Persistent profiles: named Chromium user-data dirs in the state dir, one user at a time.

A session opened on a profile keeps what Chromium keeps there (cookies, storage, cache)
across sessions and daemon restarts. A profile is locked (flock on a file in it) while a
session has it open, so two sessions, even of two daemons, never share one.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.private_files import ensure_private_dir

PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
LOCK_FILE = "steadyhand.lock"
USER_DATA = "user-data"


@dataclass(frozen=True)
class ProfileInfo:
    name: str
    path: str
    created_at: float
    size_bytes: int
    in_use_by: str | None  # the session that has it open in this daemon


class Profiles:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._held: dict[str, tuple[IO[str], str]] = {}  # name -> (lock file, session)

    def _dir(self, name: str) -> Path:
        if not PROFILE_NAME.match(name):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"invalid profile name {name!r}",
                "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
            )
        return self.root / name

    def exists(self, name: str) -> bool:
        return (self._dir(name) / USER_DATA).is_dir()

    def user_data_dir(self, name: str) -> Path:
        """The profile's Chromium user-data dir; `not_found` when there is no such profile."""
        if not self.exists(name):
            known = ", ".join(p.name for p in self.list()) or "none"
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                f"no profile named {name!r}",
                f"profiles: {known}; create it with `profile create {name}`",
            )
        return self._dir(name) / USER_DATA

    def create(self, name: str) -> ProfileInfo:
        where = self._dir(name)
        if self.exists(name):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"profile {name!r} already exists",
                "use it with `open URL --profile NAME`, or delete it first",
            )
        ensure_private_dir(self.root)
        ensure_private_dir(where)
        ensure_private_dir(where / USER_DATA)
        return self.info(name)

    def info(self, name: str) -> ProfileInfo:
        data = self.user_data_dir(name)
        size = 0
        for dirpath, _dirs, files in os.walk(data):
            for file in files:
                try:
                    size += (Path(dirpath) / file).lstat().st_size
                except OSError:
                    continue
        held = self._held.get(name)
        return ProfileInfo(
            name=name,
            path=str(data),
            created_at=self._dir(name).stat().st_mtime,
            size_bytes=size,
            in_use_by=held[1] if held else None,
        )

    def list(self) -> list[ProfileInfo]:
        if not self.root.is_dir():
            return []
        names = sorted(p.name for p in self.root.iterdir() if (p / USER_DATA).is_dir())
        return [self.info(name) for name in names if PROFILE_NAME.match(name)]

    def delete(self, name: str) -> None:
        self.user_data_dir(name)  # not_found first
        with self.locked(name, "delete"):
            shutil.rmtree(self._dir(name) / USER_DATA)
        shutil.rmtree(self._dir(name), ignore_errors=True)

    def lock(self, name: str, session: str) -> None:
        """Take the profile for `session`; `profile_in_use` when anyone else has it."""
        self.user_data_dir(name)
        held = self._held.get(name)
        if held is not None:
            raise SteadyhandError(
                ErrorCode.PROFILE_IN_USE,
                f"profile {name!r} is open in session {held[1]!r}",
                f"use that session, or close it first (`close --session {held[1]}`)",
                {"profile": name, "session": held[1]},
            )
        handle = open(self._dir(name) / LOCK_FILE, "a+")  # noqa: SIM115 - held until unlock
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise SteadyhandError(
                ErrorCode.PROFILE_IN_USE,
                f"profile {name!r} is open in another steadyhand daemon",
                "close the session there, or use another profile",
                {"profile": name},
            ) from None
        os.chmod(handle.name, 0o600)
        self._held[name] = (handle, session)

    def unlock(self, name: str) -> None:
        held = self._held.pop(name, None)
        if held is not None:
            held[0].close()  # closing the file releases the flock

    def locked(self, name: str, session: str) -> _Held:
        return _Held(self, name, session)


class _Held:
    """`with profiles.locked(name, who):` holds the profile for a short job."""

    def __init__(self, profiles: Profiles, name: str, session: str) -> None:
        self.profiles, self.name, self.session = profiles, name, session

    def __enter__(self) -> None:
        self.profiles.lock(self.name, self.session)

    def __exit__(self, *exc: object) -> None:
        self.profiles.unlock(self.name)
