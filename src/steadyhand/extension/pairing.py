"""The pairing token the extension presents to the relay, kept 0600 in the state dir."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

TOKEN_FILE = "extension.json"


@dataclass(frozen=True)
class Pairing:
    """The token the extension must present, and the session its tabs join."""

    token: str
    session: str

    def __repr__(self) -> str:  # the token never reaches a log line
        return f"Pairing(session={self.session!r})"


def _path(state_dir: Path) -> Path:
    return state_dir / TOKEN_FILE


def load_pairing(state_dir: Path) -> Pairing | None:
    """The pairing made by `extension pair`, or None before the first one."""
    try:
        data = json.loads(_path(state_dir).read_text())
        return Pairing(token=str(data["token"]), session=str(data["session"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def pair(state_dir: Path, session: str, new_token: bool) -> Pairing:
    """The pairing for `session`: the token kept (one pairing serves every daemon start)
    unless `new_token` or there is none yet, which makes a fresh one."""
    old = load_pairing(state_dir)
    token = old.token if old is not None and not new_token else secrets.token_urlsafe(32)
    pairing = Pairing(token=token, session=session)
    path = _path(state_dir)
    fd = os.open(path.with_suffix(".tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump({"token": pairing.token, "session": pairing.session}, out)
    os.replace(path.with_suffix(".tmp"), path)
    return pairing
