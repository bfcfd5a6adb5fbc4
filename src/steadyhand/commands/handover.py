"""Take over and hand back: a person drives a session while the agent waits.

`takeover` pauses the agent on a session: from then on its commands that change the
session fail at once with `session_paused` (reads still answer), and the live view
forwards the person's clicks and keys to the tab (steadyhand/live/remote_input.py).
`handback` ends it and records what the person did (clicks, keys, how long). Both are
in the action log, so the handover is part of the session's record. An agent may call
`takeover` itself to ask a person for help (a login, a captcha); with the setting
`approver_token` on, only a person can hand back (fronts/approver.py).
"""

from __future__ import annotations

import time

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, command
from steadyhand.live.takeover import DESKTOP


class TakeoverParams(Params):
    reason: str = Field(
        "", max_length=500, description="why (shown to the agent in session_paused)"
    )


class TakeoverResult(Result):
    session: str = Field(description="the session, or `desktop`")
    since: float = Field(description="when the person took over (Unix time)")
    reason: str = ""


@command("takeover", touches_page=True, timeout="short", during_takeover=True, caps="approvals")
async def takeover(call: Call, params: TakeoverParams) -> TakeoverResult:
    """Pause the agent on a session so a person can drive it (hand back with `handback`)."""
    return _take(call, call.session_name, call.session_name, params.reason)


class HandbackParams(Params):
    note: str | None = Field(
        None, max_length=500, description="what the person did, for the record"
    )


class HandbackResult(Result):
    session: str = Field(description="the session, or `desktop`")
    held_s: float = Field(description="how long the person drove it")
    clicks: int = Field(description="clicks the person made through the live view")
    keys: int = Field(description="keys the person typed through the live view")
    note: str | None = None


@command(
    "handback",
    touches_page=True,
    timeout="short",
    during_takeover=True,
    decides=True,
    caps="approvals",
)
async def handback(call: Call, params: HandbackParams) -> HandbackResult:
    """End a takeover: the agent may act on the session again."""
    return _give_back(call, call.session_name, call.session_name, params.note)


@command(
    "desktop.takeover",
    in_browser=False,
    timeout="short",
    during_takeover=True,
    caps="desktop",
    for_agents=False,
)
async def desktop_takeover(call: Call, params: TakeoverParams) -> TakeoverResult:
    """Pause the agent's desktop actions so a person can drive the desktop (live view)."""
    return _take(call, DESKTOP, "desktop", params.reason)


@command(
    "desktop.handback",
    in_browser=False,
    timeout="short",
    during_takeover=True,
    decides=True,
    caps="desktop",
    for_agents=False,
)
async def desktop_handback(call: Call, params: HandbackParams) -> HandbackResult:
    """End the desktop's takeover: the agent's desktop actions run again."""
    return _give_back(call, DESKTOP, "desktop", params.note)


def _take(call: Call, key: str, shown: str, reason: str) -> TakeoverResult:
    """Start (or keep) the takeover of `key` (a session, or the desktop), named `shown`."""
    held = call.runtime.live.takeovers.start(key, reason)
    call.runtime.live.feed.publish("takeover", session=shown, **held.info())
    return TakeoverResult(session=shown, since=held.since, reason=held.reason)


def _give_back(call: Call, key: str, shown: str, note: str | None) -> HandbackResult:
    """End the takeover of `key`: how long it lasted and what the person did."""
    held = call.runtime.live.takeovers.end(key)
    call.runtime.live.feed.publish("handback", session=shown)
    held_s = round(time.time() - held.since, 1)
    return HandbackResult(
        session=shown, held_s=held_s, clicks=held.clicks, keys=held.keys, note=note
    )
