"""Deadlines for desktop work: the time it must be done by, and the error when it is not.

Work that visits many objects on the AT-SPI thread (worker.py) gets a `Deadline` and
checks it between objects, so a walk over a hung or huge application stops at its
deadline instead of running on behind the command.
"""

from __future__ import annotations

import time

from steadyhand.errors import ErrorCode, SteadyhandError


class Deadline:
    """The time a piece of work must be done by (time.monotonic)."""

    def __init__(self, at: float) -> None:
        self.at = at

    def check(self, doing: str) -> None:
        if time.monotonic() > self.at:
            raise timed_out(f"{doing} did not finish within its deadline")


def timed_out(what: str) -> SteadyhandError:
    """A desktop command's `timeout`: most likely an application that does not answer."""
    return SteadyhandError(
        ErrorCode.TIMEOUT,
        what,
        "the application may be hung or busy; the daemon and other applications are "
        "unaffected: try again later, with a longer --timeout, or for one app (--app)",
    )
