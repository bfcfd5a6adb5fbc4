"""`desktop watch`: desktop events (focus, windows, names, values, text, states, apps) as
they happen.

Events are numbered (`seq`); a watch returns the seq it read up to, and `--since SEQ`
continues from there without losing or repeating one, while the daemon's buffer (the last
10 000 events) still holds them. Each event is also streamed as it comes: a JSON-RPC
progress notification when the request asks for progress, a line on the CLI's stdout.

A watch writes no action_log row: it changes nothing, its result can hold thousands of
events (each stored row would too), and the actions that cause the events are logged.
"""

from __future__ import annotations

import json
import time
from typing import ClassVar, Literal

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, command
from steadyhand.desktop.events import DesktopEvent, kinds_of
from steadyhand.errors import ErrorCode, SteadyhandError

MARGIN_S = 0.25  # a watch ends this long before its deadline, so it answers in time
UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0}


class DesktopWatchParams(Params):
    events: str | None = Field(
        None,
        description="only these kinds, comma-separated: focus, window.created, "
        "window.destroyed, name.changed, value.changed, text.changed, state.changed, "
        "app.started, app.exited (a family, window or app, names both of its kinds)",
    )
    app: str | None = Field(None, description="only this application's (its name or pid)")
    duration: str | None = Field(
        None,
        description="watch this long, then answer (10s, 500ms, 2m); the default and the "
        "limit: the command's deadline (--timeout, tier long)",
        pattern=r"^[0-9]+(\.[0-9]+)?(ms|s|m)$",
        json_schema_extra={"flag": "for"},
    )
    count: int | None = Field(None, ge=1, description="answer after this many events")
    since: int | None = Field(
        None,
        ge=0,
        description="start after this seq (a watch's last_seq): buffered events after it "
        "come first, none lost or repeated; default: only events from now on",
    )


class WatchedEvent(Result):
    seq: int = Field(description="the event's number, rising by one per event received")
    ts: float = Field(description="when the daemon received it (Unix time, seconds)")
    kind: str
    app: str
    pid: int
    role: str = Field(description='"" when not known without asking the application')
    name: str
    path: str = Field(description="the object's path on the a11y bus; with pid, its identity")
    detail: str = Field(description="what changed: the text, the state, the new name")
    atspi: str = Field(description="the AT-SPI event type")


class DesktopWatchResult(Result):
    PAGE_TEXT: ClassVar[bool] = True
    events: list[WatchedEvent]
    count: int
    last_seq: int = Field(description="continue with --since LAST_SEQ: nothing lost, no repeats")
    ended: Literal["count", "for", "deadline"] = Field(
        description="what ended the watch: --count reached, --for over, or the deadline"
    )
    missed: int = Field(
        0, description="events after --since that had left the buffer (10 000) already"
    )


@command(
    "desktop.watch",
    in_browser=False,
    reads_only=True,
    touches_page=False,
    streams=True,
    timeout="long",
    caps="desktop",
)
async def desktop_watch(call: Call, params: DesktopWatchParams) -> DesktopWatchResult:
    """Stream desktop events (focus, windows, text, states, apps) as they happen."""
    kinds = kinds_of(params.events)
    bus = call.runtime.desktop_events
    await bus.start(call.deadline)
    await bus.caught_up(call.deadline)  # an action's events, reported before its reply
    ends = call.deadline - MARGIN_S
    ended: Literal["count", "for", "deadline"] = "deadline"
    if params.duration is not None:
        wanted = seconds(params.duration)
        if time.monotonic() + wanted > ends:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"--for {params.duration} runs past the command's deadline "
                f"({max(0.0, ends - call.started):.1f} s from its start)",
                f"give a longer --timeout too, e.g. --timeout {int(wanted) + 5}s",
            )
        ends, ended = time.monotonic() + wanted, "for"
    last = bus.log.last_seq
    seq = last if params.since is None else params.since
    if seq > last:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"--since {seq}: no such event yet (the last is {last}); the daemon may have "
            "restarted since that seq was handed out",
            "watch without --since (or --since 0 for everything still buffered)",
        )
    found: list[DesktopEvent] = []
    missed = 0
    while True:
        left = None if params.count is None else params.count - len(found)
        events, lost, seq = bus.log.since(seq, kinds, params.app, left)
        missed += lost
        for event in events:
            found.append(event)
            await call.report_progress(len(found), params.count, json.dumps(event.as_dict()))
        if params.count is not None and len(found) >= params.count:
            ended = "count"
            break
        remaining = ends - time.monotonic()
        if remaining <= 0 or not await bus.log.wait(seq, remaining):
            break
    return DesktopWatchResult(
        events=[WatchedEvent(**e.as_dict()) for e in found],
        count=len(found),
        last_seq=seq,
        ended=ended,
        missed=missed,
    )


def seconds(text: str) -> float:
    """`10s`, `500ms`, `2m` in seconds."""
    unit = next(u for u in ("ms", "s", "m") if text.endswith(u))
    return float(text[: -len(unit)]) * UNITS[unit]
