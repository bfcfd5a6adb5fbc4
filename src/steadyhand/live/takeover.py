"""Sessions a person took over: the agent's acts on them are refused until hand back.

While a session is taken over, commands that change it (every command the table does not
mark `reads_only`, except `takeover` and `handback`) fail at once with `session_paused`; reads
(snapshot, screenshot, tabs, ...) still answer. The person's own input reaches the page
through the live view (remote_input.py), counted here for the hand-back's record.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from steadyhand.errors import ErrorCode, SteadyhandError

# The desktop's takeover is kept with the sessions' under a name no session can have.
DESKTOP = "@desktop"


@dataclass
class Takeover:
    session: str
    reason: str
    since: float = field(default_factory=time.time)
    clicks: int = 0
    keys: int = 0

    def info(self) -> dict[str, object]:
        """What `sessions` shows: the reason and counts only when there are some."""
        facts = (("reason", self.reason), ("clicks", self.clicks), ("keys", self.keys))
        return {"since": self.since} | {key: value for key, value in facts if value}


class Takeovers:
    """Which sessions a person drives now."""

    def __init__(self) -> None:
        self._held: dict[str, Takeover] = {}

    def get(self, session: str) -> Takeover | None:
        return self._held.get(session)

    def start(self, session: str, reason: str) -> Takeover:
        """Take `session` over (again: the running takeover stays, reason updated)."""
        held = self._held.get(session)
        if held is None:
            held = self._held[session] = Takeover(session, reason)
        elif reason:
            held.reason = reason
        return held

    def end(self, session: str) -> Takeover:
        held = self._held.pop(session, None)
        if held is None and session == DESKTOP:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "the desktop is not taken over",
                "`steadyhand desktop takeover` (or the live view's Take over) pauses the agent",
            )
        if held is None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {session!r} is not taken over",
                "`steadyhand takeover --session NAME` pauses the agent on it first",
            )
        return held

    def forget(self, session: str) -> None:
        """The session closed: its takeover ends with it."""
        self._held.pop(session, None)

    def check(self, session: str, command: str) -> None:
        """`session_paused` when a person drives `session`: `command` would change it and is
        not one that runs during a takeover (the table's `during_takeover`)."""
        held = self._held.get(session)
        if held is None:
            return
        why = f" ({held.reason})" if held.reason else ""
        if session == DESKTOP:
            what, about = "the desktop", dict[str, object](desktop=True)
            hint = "try again once they hand back (the live view shows it); reads such as "
            hint += "`desktop snapshot` still answer meanwhile"
        else:
            what, about = f"session {session!r}", {"session": session}
            hint = "`wait --handback --timeout 600000` returns when they do (or after 10 min); "
            hint += "reads such as snapshot still answer meanwhile"
        raise SteadyhandError(
            ErrorCode.SESSION_PAUSED,
            f"a person drives {what}{why}: {command} is refused until they hand back",
            hint,
            {**about, "since": held.since, "reason": held.reason},
        )
