"""The `live.*` requests: what the live view (fronts/http/live_app.py) asks of the runtime.

They are not commands of the table: they are a person's view of the agent's work, not
tools for the agent, and they write no action-log rows (the takeover and hand-back that
frame a person's input are commands, and logged). Over the socket, a stream is a request
answered by `{"method": "live", "params": {"id", "event"}}` notifications until the
client closes the connection.

- `live.screen {session, tab?}` (stream): frames of the session's current tab (or the
  named one), following the session to its new current tab; `session: "desktop"` is
  the X screen. A ping every PING_S while nothing changes.
- `live.feed {desktop?}` (stream): action-log rows, approvals and takeovers as they
  happen; with `desktop`, the desktop's bus events too.
- `live.actions {session?, after?, limit?}`: the log so far (params as stored: redacted).
- `live.boxes {session}`: the ref boxes of the current tab, to draw over the screen.
- `live.input {session, events}`: the person's input, only on a session taken over.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import asdict
from typing import Any

from steadyhand.engine.session import Session, Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.live.desktop_input import play
from steadyhand.live.remote_input import forward, parse_events
from steadyhand.live.takeover import DESKTOP as DESKTOP_HELD
from steadyhand.runtime import Runtime
from steadyhand.snapshot.labels import labels_for
from steadyhand.snapshot.take import take
from steadyhand.vault import mask_data

DESKTOP = "desktop"  # the live view's name for the X screen and its events
PING_S = 5.0
INPUT_S = 15.0  # how long a person's batch of desktop input may take
FOLLOW_S = 0.5  # how often a screen stream looks for the session's current tab
Event = dict[str, Any]


STREAMS = frozenset({"live.screen", "live.feed"})


def is_live(method: str) -> bool:
    return method.startswith("live.")


async def call(runtime: Runtime, method: str, params: dict[str, Any]) -> Any:
    """The answer to a one-shot `live.*` request."""
    handler = _CALLS.get(method)
    if handler is None:
        raise _unknown(method)
    return await handler(runtime, params)


async def stream(
    runtime: Runtime, method: str, params: dict[str, Any]
) -> AsyncGenerator[Event, None]:
    """The events of a streaming `live.*` request, until the caller stops reading."""
    if method == "live.screen":
        session = _text(params, "session")
        if session == DESKTOP:
            return _desktop_frames(runtime)
        return _frames(runtime, _session(runtime, session), params.get("tab"))
    if method == "live.feed":
        return _feed(runtime, bool(params.get("desktop")))
    raise _unknown(method)


async def _frames(runtime: Runtime, session: Session, tab_id: Any) -> AsyncGenerator[Event, None]:
    state = runtime.live
    while True:
        tab = _tab(session, tab_id)
        if tab is None:
            yield {"kind": "end", "why": f"session {session.name} has no tab open"}
            return
        if tab.page.is_closed():  # closing: the session forgets it in a moment
            await asyncio.sleep(FOLLOW_S)
            continue
        screen = state.screen_of(session.name, tab)
        async with screen.watch() as frames:
            yield {"kind": "tab", "tab": tab.id, "url": tab.page.url}
            quiet_since = time.monotonic()
            while not tab.page.is_closed():
                try:
                    yield await asyncio.wait_for(frames.get(), FOLLOW_S)
                    quiet_since = time.monotonic()
                except TimeoutError:
                    if time.monotonic() - quiet_since >= PING_S:
                        quiet_since = time.monotonic()
                        yield {"kind": "ping"}
                if tab_id is None and _tab(session, None) is not tab:
                    break  # the agent moved to another tab: follow it
                if runtime.engine.pool.get(session.name) is not session:
                    break  # closed, or recovered into a new context
        now = runtime.engine.pool.get(session.name)
        if now is None and session.name in runtime.engine.recovering():
            now = await runtime.engine.session(session.name)  # back from its checkpoint
        if now is None:
            yield {"kind": "end", "why": f"session {session.name} closed"}
            return
        session = now  # the same, or the one a recovery put in its place


async def _desktop_frames(runtime: Runtime) -> AsyncGenerator[Event, None]:
    async with runtime.live.desktop_screen().watch() as frames:
        while True:
            try:
                yield await asyncio.wait_for(frames.get(), PING_S)
            except TimeoutError:
                yield {"kind": "ping"}


async def _feed(runtime: Runtime, desktop: bool) -> AsyncGenerator[Event, None]:
    bus = None
    if desktop:
        bus = runtime.desktop_events
        await bus.start(time.monotonic() + 10)
    seq = bus.log.last_seq if bus is not None else 0
    async with runtime.live.feed.listen() as queue:
        yield {"kind": "ready"}
        while True:
            if bus is not None:
                events, _missed, seq = bus.log.since(seq)
                for event in events:
                    shown = mask_data(event.as_dict())
                    yield {**shown, "kind": "desktop", "event": shown["kind"]}
            try:
                yield await asyncio.wait_for(queue.get(), 1.0 if bus is not None else PING_S)
            except TimeoutError:
                if bus is None:
                    yield {"kind": "ping"}


async def _actions(runtime: Runtime, params: dict[str, Any]) -> Any:
    session = params.get("session")
    if session is not None and not isinstance(session, str):
        raise _bad("session must be a name")
    after = _number(params, "after", 0)
    limit = min(_number(params, "limit", 100), 1000)
    if session == DESKTOP:
        rows = await asyncio.to_thread(runtime.store.actions, None, 5000, after)
        rows = [r for r in rows if r.command.startswith("desktop.")][-limit:]
        held = runtime.live.takeovers.get(DESKTOP_HELD) is not None
        return {"actions": [action_event(asdict(row)) for row in rows], "taken_over": held}
    rows = await asyncio.to_thread(runtime.store.actions, session, limit, after)
    return {"actions": [action_event(asdict(row)) for row in rows]}


def action_event(row: dict[str, Any]) -> Event:
    """An action-log row as the timeline shows it (params as stored: redacted)."""
    result = row.get("result") or {}
    error = result if not row.get("ok") else {}
    return {
        "kind": "action",
        "id": row["id"],
        "ts": row["ts"],
        "session": row["session"],
        "tab": row["tab"],
        "command": row["command"],
        "params": row["params"],
        "ok": row["ok"],
        "error_code": row["error_code"],
        "error_message": row["error_message"],
        "hint": error.get("hint"),
        "duration_ms": row["duration_ms"],
        "retries": row["retries"],
        "artifacts": list(row["artifacts"]),
        "part_of": result.get("part_of"),
    }


async def _boxes(runtime: Runtime, params: dict[str, Any]) -> Any:
    session = _session(runtime, _text(params, "session"))
    tab = _tab(session, params.get("tab"))
    if tab is None:
        return {"boxes": []}
    taken = await take(tab, 10_000, boxes=True)
    size = tab.page.viewport_size
    viewport = None if size is None else (size["width"], size["height"])
    found = await labels_for(tab, taken, viewport)
    return {
        "tab": tab.id,
        "boxes": [
            {"ref": f.ref, "role": f.role, "name": f.name, "box": list(f.box)} for f in found
        ],
    }


async def _input(runtime: Runtime, params: dict[str, Any]) -> Any:
    if params.get("desktop") is True:
        return await _desktop_input(runtime, params)
    name = _text(params, "session")
    events = parse_events(params.get("events"))
    held = runtime.live.takeovers.get(name)
    if held is None:
        raise SteadyhandError(
            ErrorCode.POLICY_DENIED,
            f"session {name!r} is not taken over: the agent may be acting on it",
            "take it over first (the live view's Take over button, or "
            f"`steadyhand takeover --session {name}`)",
        )
    tab = _tab(_session(runtime, name), params.get("tab"))
    if tab is None:
        raise SteadyhandError(ErrorCode.UNKNOWN_TAB, f"session {name!r} has no tab", "open one")
    await forward(tab.page, events, held)
    return {"tab": tab.id, "clicks": held.clicks, "keys": held.keys}


async def _desktop_input(runtime: Runtime, params: dict[str, Any]) -> Any:
    """A person's input on the X screen, while they drive the desktop."""
    events = parse_events(params.get("events"))
    held = runtime.live.takeovers.get(DESKTOP_HELD)
    if held is None:
        raise SteadyhandError(
            ErrorCode.POLICY_DENIED,
            "the desktop is not taken over: the agent may be acting on it",
            "take it over first (the live view's Take over button, or "
            "`steadyhand desktop takeover`)",
        )
    worker = runtime.desktop.worker
    await worker.run(
        lambda limit: play(events, held, limit), time.monotonic() + INPUT_S, "desktop input"
    )
    runtime.desktop.changed()  # what the person did is not in the last walk
    return {"desktop": True, "clicks": held.clicks, "keys": held.keys}


_CALLS: dict[str, Callable[[Runtime, dict[str, Any]], Awaitable[Any]]] = {
    "live.actions": _actions,
    "live.boxes": _boxes,
    "live.input": _input,
}


def _session(runtime: Runtime, name: str) -> Session:
    session = runtime.engine.pool.get(name)
    if session is None:
        raise SteadyhandError(
            ErrorCode.UNKNOWN_SESSION,
            f"session {name!r} is not running",
            "`steadyhand sessions` lists them; a suspended one runs again on its next command",
        )
    return session


def _tab(session: Session, tab_id: Any) -> Tab | None:
    if tab_id is not None and not isinstance(tab_id, str):
        raise _bad("tab must be a tab id such as t1")
    if not session.tabs:
        return None
    if tab_id is not None and tab_id not in session.tabs:
        raise SteadyhandError(
            ErrorCode.UNKNOWN_TAB,
            f"session {session.name!r} has no tab {tab_id!r}",
            "tabs: " + ", ".join(session.tabs),
        )
    return session.tabs[tab_id] if tab_id is not None else session.current_tab()


def _text(params: dict[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise _bad(f"{key} must be a non-empty string")
    return value


def _number(params: dict[str, Any], key: str, default: int) -> int:
    value = params.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _bad(f"{key} must be a whole number ≥ 0")
    return value


def _bad(message: str) -> SteadyhandError:
    return SteadyhandError(ErrorCode.BAD_REQUEST, message, "see steadyhand/execute/live.py")


def _unknown(method: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.UNKNOWN_COMMAND,
        f"unknown live request {method!r}",
        "live requests: " + ", ".join(sorted({*_CALLS, *STREAMS})),
    )
