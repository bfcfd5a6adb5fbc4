"""Whether a process still runs, and waiting for one to exit.

Builtins only (posix, time, _io): the launcher (fronts/cli/relay.py) waits with these for
the daemon it stopped, as rpc_client does for the reference CLI.
"""

import _io
import posix
import time

POLL_S = 0.02


def process_alive(pid: int) -> bool:
    """True while `pid` runs; a zombie (exited, not yet reaped) counts as gone."""
    try:
        with _io.open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except (OSError, IndexError):
        try:
            posix.kill(pid, 0)
        except OSError:
            return False
        return True


def wait_exit(pid: int, timeout_s: float = 30.0) -> bool:
    """Wait for a process to exit; True if it did within the time."""
    deadline = time.monotonic() + timeout_s
    while process_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)
    return True
