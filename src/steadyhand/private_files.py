"""Files and folders only their owner can read: the state dir (0700) and what steadyhand
writes in it (0600), written whole or not at all.

Standard library only: the thin CLI's hot path reaches the state dir through here.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from steadyhand.errors import ErrorCode, SteadyhandError


def write_private(path: Path, data: bytes | str) -> None:
    """Write `path` whole or not at all, as a file only its owner can read (0600)."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:  # mkstemp makes it 0600
            out.write(data.encode() if isinstance(data, str) else data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def ensure_private_dir(path: Path) -> None:
    """Create `path` as 0700, or check that an existing one is the user's own and private.

    Never chmods a directory it did not create: pointed at /tmp or $HOME by mistake, it
    refuses instead of locking everyone else out.
    """
    try:
        path.mkdir(parents=True, mode=0o700)
    except FileExistsError:
        info = path.stat()
        problem = ""
        if not path.is_dir():
            problem = "is not a directory"
        elif info.st_uid != os.geteuid():
            problem = "belongs to another user"
        elif info.st_mode & 0o077:
            problem = f"is open to other users (mode {info.st_mode & 0o7777:o})"
        if problem:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"the state dir {path} {problem}",
                "point STEADYHAND_STATE_DIR at a directory of your own with mode 0700 "
                "(or one that does not exist yet)",
            ) from None
    else:
        path.chmod(0o700)  # mkdir's mode passed through the umask
