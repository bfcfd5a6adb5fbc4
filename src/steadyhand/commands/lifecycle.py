"""Commands about the daemon and its sessions."""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

from pydantic import Field

from steadyhand.act.results import TabInfo, tab_infos
from steadyhand.call import Call
from steadyhand.commands.recordings import save_recordings
from steadyhand.commands.table import Params, Result, command, positional
from steadyhand.engine.emulation import describe
from steadyhand.store.open import daemon_owner, shown_owner
from steadyhand.version import __version__


class DaemonStatus(Result):
    version: str
    pid: int
    uptime_s: float
    state_dir: str
    browser_running: bool
    headless: bool
    chromium: str
    sessions: list[str]
    contexts: int = Field(description="browser contexts open (one per live session)")
    cap: int = Field(description="the max_sessions setting")
    recoveries: int = Field(description="sessions recovered since the daemon started")
    endpoints: list[str] = Field(
        [], description="browser endpoints: name, kind, URL, connected or not, live sessions"
    )
    screens_watched: list[str] = Field(
        [], description="screens the live view streams now (session/tab, or desktop)"
    )


@command(
    "daemon.status",
    reads_only=True,
    touches_page=False,
    autostart=False,
    timeout="short",
    caps="sessions",
)
async def daemon_status(call: Call, params: Params) -> DaemonStatus:
    """Report the daemon's pid, uptime, browser and sessions."""
    rt = call.runtime
    return DaemonStatus(
        version=__version__,
        pid=rt.pid,
        uptime_s=round(time.time() - rt.started_at, 3),
        state_dir=str(rt.settings.state_dir),
        browser_running=rt.engine.browser_running,
        headless=rt.settings.headless,
        chromium=f"{rt.engine.chromium_path} {rt.engine.chromium_version}".strip(),
        sessions=[s.name for s in rt.engine.sessions()],
        contexts=rt.engine.context_count(),
        cap=rt.engine.pool.cap,
        recoveries=rt.engine.recoveries,
        endpoints=rt.engine.endpoint_lines(),
        screens_watched=rt.live.watched_names(),
    )


class Stopping(Result):
    stopping: bool


@command(
    "daemon.stop",
    touches_page=False,
    autostart=False,
    timeout="long",
    for_agents=False,
    daemon_only=True,
    caps="sessions",
)
async def daemon_stop(call: Call, params: Params) -> Stopping:
    """Stop the daemon: close every session and the browser, then exit."""
    call.runtime.stop_requested.set()
    return Stopping(stopping=True)


class LastAction(Result):
    command: str
    ok: bool
    error_code: str | None
    at: float


class TakenOver(Result):
    since: float = Field(description="when a person took the session over (Unix time)")
    reason: str | None = None
    clicks: int | None = Field(None, description="clicks the person made so far")
    keys: int | None = Field(None, description="keys the person typed so far")


class SessionInfo(Result):
    name: str
    status: str = Field(description="active, restoring, recovering, suspended, lost or closed")
    profile: str | None
    browser: str | None = Field(
        None, description="the browser endpoint (name or URL) it runs on; none: local Chromium"
    )
    emulation: str | None = Field(
        None, description="what a live session emulates: device, locale, timezone, geo, scheme"
    )
    tabs: list[TabInfo]
    created_at: float | None
    last_action: LastAction | None
    checkpoint_at: float | None
    health: dict[str, Any] | None
    owner: str | None = Field(
        None,
        description="with a shared store (store_url): the daemon that runs it (its "
        "daemon_name, else host:pid); none while no daemon does (suspended, closed, or its "
        "daemon died and its lease ran out)",
    )
    taken_over: TakenOver | None = Field(
        None, description="a person drives it (live view): the agent's changes are paused"
    )


class SessionList(Result):
    PAGE_TEXT: ClassVar[bool] = True
    sessions: list[SessionInfo]
    live: int
    cap: int


@command("sessions", reads_only=True, touches_page=False, timeout="short", caps="sessions")
async def sessions(call: Call, params: Params) -> SessionList:
    """List every session: status, profile, tabs, last action, checkpoint and health."""
    engine, store = call.engine, call.runtime.store
    rows = {row.name: row for row in await asyncio.to_thread(store.session_rows)}
    last = await asyncio.to_thread(store.last_actions)
    checkpoints = await asyncio.to_thread(store.checkpoint_times)
    live = {s.name: s for s in engine.sessions()}
    recovering = engine.recovering()
    me = shown_owner(daemon_owner(call.runtime.settings))
    shared = call.runtime.leases is not None
    leases = await asyncio.to_thread(store.leases) if shared else {}
    infos = []
    for name in sorted(set(rows) | set(live) | recovering):
        row, session, action = rows.get(name), live.get(name), last.get(name)
        status = (
            (engine.status_of(name) or "recovering")
            if name in recovering
            else "active"
            if session is not None
            else (row.status if row else "closed")
        )
        lease = leases.get(name)
        # The embedded store is this daemon's alone: no owner to tell (nor to print).
        owner = me if shared and (session is not None or name in recovering) else None
        if lease is not None:
            owner = shown_owner(lease.owner)
        elif shared and status in ("active", "live") and owner is None:
            status = "suspended"  # its daemon died: any daemon restores it on use
        infos.append(
            SessionInfo(
                name=name,
                status=status,
                profile=session.profile if session else (row.profile or None) if row else None,
                browser=session.browser_name
                if session and session.browser_name != "local"
                else None,
                emulation=describe(session.emulation) or None if session else None,
                tabs=await tab_infos(session) if session else [],
                created_at=session.created_at if session else row.created_at if row else None,
                last_action=None
                if action is None
                else LastAction(
                    command=action.command, ok=action.ok, error_code=action.error_code, at=action.ts
                ),
                checkpoint_at=checkpoints.get(name),
                health=engine.health.of(name).as_dict() if session else None,
                owner=owner,
                taken_over=_taken_over(call, name),
            )
        )
    pool = engine.pool.status()
    return SessionList(sessions=infos, live=pool.live, cap=pool.cap)


def _taken_over(call: Call, name: str) -> TakenOver | None:
    held = call.runtime.live.takeovers.get(name)
    return None if held is None else TakenOver.model_validate(held.info())


class Closed(Result):
    closed: str
    videos: list[str] = Field(default_factory=list, description="its tabs' recordings, saved")
    already: bool = Field(
        False,
        description="it was closed before: nothing was left to close",
        exclude_if=lambda value: not value,
    )


@command("close", destructive=True, needs_session=False)
async def close(call: Call, params: Params) -> Closed:
    """Close the session for good: its tabs, cookies, storage and checkpoints are gone."""
    await call.claim()
    live = call.engine.pool.get(call.session_name)
    videos = [] if live is None else await save_recordings(call, live)
    closed_now = await call.engine.close_session(call.session_name)
    call.runtime.live.takeovers.forget(call.session_name)
    return Closed(closed=call.session_name, videos=videos, already=not closed_now)


class NameParams(Params):
    name: str | None = positional(
        "session name: the same as --session (kept as an alias)", None, session_alias=True
    )


class Suspended(Result):
    PAGE_TEXT: ClassVar[bool] = True  # its tabs' URLs
    suspended: str
    checkpoint_at: float = Field(description="when the state it restores from was saved")
    tabs: list[str]


@command("session.suspend", touches_page=False, caps="sessions")
async def session_suspend(call: Call, params: NameParams) -> Suspended:
    """Checkpoint a session and close it, freeing its slot; `session restore` reopens it."""
    name = params.name or call.session_name
    await call.claim(name)
    saved = await call.engine.suspend(name)
    tabs = [f"{t['id']} {t['url']}" for t in saved.state["tabs"]]
    return Suspended(suspended=name, checkpoint_at=saved.ts, tabs=tabs)


class Restored(Result):
    PAGE_TEXT: ClassVar[bool] = True
    session: str
    checkpoint_at: float = Field(description="when the state restored was saved")
    restored: list[str] = Field(description="tabs reopened: id and URL")
    lost: list[str] = Field(description="what could not be brought back")


@command("session.restore", touches_page=False, timeout="long", caps="sessions")
async def session_restore(call: Call, params: NameParams) -> Restored:
    """Recreate a suspended session from its last checkpoint: tabs, cookies, storage."""
    name = params.name or call.session_name
    await call.claim(name)
    report = await call.engine.restore(name)
    return Restored(
        session=name,
        checkpoint_at=report["from"],
        restored=report["restored"],
        lost=report["lost"],
    )
