"""Commands about the daemon and its sessions."""

from __future__ import annotations

import time

from steadyhand import __version__
from steadyhand.call import Call
from steadyhand.commands.results import TabInfo, tab_infos
from steadyhand.commands.table import Params, Result, command


class DaemonStatus(Result):
    version: str
    pid: int
    uptime_s: float
    state_dir: str
    browser_running: bool
    headless: bool
    chromium: str
    sessions: list[str]


@command("daemon.status", touches_page=False, autostart=False, timeout="short")
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
    )


class Stopping(Result):
    stopping: bool


@command("daemon.stop", touches_page=False, autostart=False, timeout="long")
async def daemon_stop(call: Call, params: Params) -> Stopping:
    """Stop the daemon: close every session and the browser, then exit."""
    call.runtime.stop_requested.set()
    return Stopping(stopping=True)


class SessionInfo(Result):
    name: str
    tabs: list[TabInfo]
    created_at: float


class SessionList(Result):
    sessions: list[SessionInfo]


@command("sessions", touches_page=False, timeout="short")
async def sessions(call: Call, params: Params) -> SessionList:
    """List live sessions and their tabs."""
    return SessionList(
        sessions=[
            SessionInfo(name=s.name, tabs=await tab_infos(s), created_at=s.created_at)
            for s in call.engine.sessions()
        ]
    )


class Closed(Result):
    closed: str


@command("close")
async def close(call: Call, params: Params) -> Closed:
    """Close the session: its tabs, cookies and storage are gone."""
    await call.engine.close_session(call.session_name)
    return Closed(closed=call.session_name)
