"""Commands that read a tab's logs: console (messages and uncaught errors) and network."""

from __future__ import annotations

import time
from typing import ClassVar, Literal

from pydantic import Field

from steadyhand.act.results import PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.table import Result, TabParams, command
from steadyhand.engine.page_log import LEVELS, ConsoleEntry, NetworkEntry
from steadyhand.redact import redact_url

Level = Literal["error", "warning", "info", "log", "debug"]
RouteMark = Literal["mocked", "blocked"]
ROUTE_MARKS: dict[str | None, RouteMark] = {"mocked": "mocked", "blocked": "blocked"}


def _when(seconds: float) -> str:
    """UTC, to the millisecond: 2025-01-31T12:00:00.123Z."""
    whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{whole}.{int(seconds * 1000) % 1000:03d}Z"


class LogParams(TabParams):
    clear: bool = Field(False, description="empty this tab's log after reading it")
    limit: int = Field(50, ge=1, le=500, description="at most this many entries, the latest")


# ---------------------------------------------------------------- console


class ConsoleParams(LogParams):
    level: Level | None = Field(None, description="only this level and more severe ones")


class ConsoleMessage(Result):
    level: str
    type: str = Field(description="the console method, or pageerror for an uncaught exception")
    text: str
    location: str = Field(description="url:line it came from, when the page said")
    time: str


class ConsoleResult(PageResult):
    REPLY: ClassVar[str] = "text"
    messages: list[ConsoleMessage] = Field(description="oldest first")
    total: int = Field(description="how many matched before --limit")
    dropped: int = Field(description="older entries the log let go of (it keeps the last 500)")
    text: str = Field(description="the messages, one line each")


def _console_message(entry: ConsoleEntry) -> ConsoleMessage:
    location = entry.location
    url, colon, line = location.rpartition(":")
    if colon and line.isdigit():
        location = f"{redact_url(url)}:{line}"  # a script URL may carry a token too
    return ConsoleMessage(
        level=entry.level,
        type=entry.type,
        text=entry.text,
        location=location,
        time=_when(entry.time),
    )


@command("console", reads_only=True, caps="observe")
async def console(call: Call, params: ConsoleParams) -> ConsoleResult:
    """The tab's console messages and uncaught errors, latest last; --clear empties the log."""
    tab = await call.tab(params.tab)
    log = tab.log
    least = LEVELS.index(params.level) if params.level else 0
    found = [e for e in log.console if LEVELS.index(e.level) >= least]
    shown = [_console_message(e) for e in found[-params.limit :]]
    dropped = log.console_dropped
    if params.clear:
        log.clear_console()
    lines = [f"[{m.level}] {m.text}" + (f"  ({m.location})" if m.location else "") for m in shown]
    if len(found) > len(shown):
        lines.insert(0, f"[… {len(found) - len(shown)} earlier; raise --limit to see them]")
    return ConsoleResult(
        **await page_result(tab),
        messages=shown,
        total=len(found),
        dropped=dropped,
        text="\n".join(lines) if lines else "no console messages",
    )


# ---------------------------------------------------------------- network


class NetworkParams(LogParams):
    filter: str | None = Field(None, description="only requests whose URL contains this")
    failed: bool = Field(False, description="only failed requests (no response, or status >= 400)")


class NetworkRequest(Result):
    method: str
    url: str = Field(description="secret-looking query values redacted")
    resource_type: str
    status: int | None = Field(None, description="null: no response (yet)")
    failure: str | None = Field(None, description="why it failed, when it did without a response")
    duration_ms: float | None = Field(None, description="null: still in flight")
    time: str
    route: RouteMark | None = Field(
        None,
        description="a session's `route` answered it (left out when none did)",
        exclude_if=lambda value: value is None,
    )


class NetworkResult(PageResult):
    REPLY: ClassVar[str] = "text"
    requests: list[NetworkRequest] = Field(description="oldest first")
    total: int = Field(description="how many matched before --limit")
    dropped: int = Field(description="older entries the log let go of (it keeps the last 500)")
    text: str = Field(description="the requests, one line each")


def _network_request(entry: NetworkEntry) -> NetworkRequest:
    return NetworkRequest(
        method=entry.method,
        url=redact_url(entry.url),
        resource_type=entry.resource_type,
        status=entry.status,
        failure=entry.failure,
        duration_ms=entry.duration_ms,
        time=_when(entry.time),
        route=ROUTE_MARKS.get(entry.route),
    )


def _request_line(r: NetworkRequest) -> str:
    outcome = str(r.status) if r.status is not None else r.failure or "pending"
    if r.route == "blocked":
        outcome = "blocked by route"
    elif r.route == "mocked":
        outcome += " mocked"
    took = f" {r.duration_ms:.0f}ms" if r.duration_ms is not None else ""
    return f"{r.method} {r.url} -> {outcome}{took} ({r.resource_type})"


@command("network", reads_only=True, caps="observe")
async def network(call: Call, params: NetworkParams) -> NetworkResult:
    """The tab's network requests with status and timing, latest last; --clear empties it."""
    tab = await call.tab(params.tab)
    log = tab.log
    found = [_network_request(e) for e in list(log.network) if e.failed or not params.failed]
    if params.filter:
        # On the URL as shown, so a filter cannot find out a redacted value.
        found = [r for r in found if params.filter in r.url]
    shown = found[-params.limit :]
    dropped = log.network_dropped
    if params.clear:
        log.clear_network()
    lines = [_request_line(r) for r in shown]
    if len(found) > len(shown):
        lines.insert(0, f"[… {len(found) - len(shown)} earlier; raise --limit to see them]")
    return NetworkResult(
        **await page_result(tab),
        requests=shown,
        total=len(found),
        dropped=dropped,
        text="\n".join(lines) if lines else "no requests",
    )
