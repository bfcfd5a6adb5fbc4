"""Commands that look back at what happened: the timeline, metrics, Playwright traces."""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.lifecycle import NameParams
from steadyhand.commands.table import COMMANDS, Params, Result, command, file_path
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.observe.trace import TraceEntry, entries_with_results, timeline_text
from steadyhand.vault import mask_zip

VIEWER_HINT = "open it with `playwright show-trace PATH` or at https://trace.playwright.dev"


class HistoryParams(NameParams):
    every_life: bool = Field(
        False,
        description="also the actions from before the session (its name) was last closed",
    )


class TraceParams(HistoryParams):
    last: int = Field(100, ge=0, description="only the last N actions (0: all)")
    failed: bool = Field(False, description="only the actions that failed")


class TraceResult(Result):
    PAGE_TEXT: ClassVar[bool] = True
    REPLY: ClassVar[str] = "text"
    session: str
    total: int = Field(description="actions the session ran")
    failed: int = Field(description="of those, how many failed")
    actions: list[TraceEntry] = Field(description="oldest first")
    text: str = Field(description="the timeline as text")


async def recorded_actions(
    call: Call, name: str, every_life: bool
) -> list[tuple[TraceEntry, dict[str, Any]]]:
    """Session `name`'s actions from the store, each with its stored result, oldest first
    (see entries_with_results for `every_life`).

    A session the store has never heard of is `unknown_session`; a known one may have none.
    """
    store = call.runtime.store
    navigations = frozenset(c.name for c in COMMANDS.values() if c.navigates)
    found = await asyncio.to_thread(entries_with_results, store, name, navigations, every_life)
    if not found:
        recorded = await asyncio.to_thread(store.sessions)
        if name not in recorded:
            raise SteadyhandError(
                ErrorCode.UNKNOWN_SESSION,
                f"no session named {name!r} has run any action",
                "sessions on record: " + (", ".join(sorted(recorded)) or "none"),
            )
    return found


@command(
    "trace", touches_page=False, reads_only=True, autostart=True, timeout="medium", caps="observe"
)
async def trace(call: Call, params: TraceParams) -> TraceResult:
    """The session's action timeline from the store: params, outcome, time, retries, files."""
    name = params.name or call.session_name
    everything = [e for e, _ in await recorded_actions(call, name, params.every_life)]
    chosen = [e for e in everything if not e.ok] if params.failed else everything
    if params.last:
        chosen = chosen[-params.last :]
    failed = sum(not e.ok for e in everything)
    return TraceResult(
        session=name,
        total=len(everything),
        failed=failed,
        actions=chosen,
        text=timeline_text(name, chosen, len(everything), failed),
    )


class TraceStartParams(Params):
    screenshots: bool = Field(True, description="record screencast frames")
    snapshots: bool = Field(True, description="record DOM snapshots of every action")
    title: str | None = Field(None, description="the trace's title in the viewer")


class TraceStarted(Result):
    session: str
    tracing: bool


@command("trace.start", timeout="medium", caps="observe")
async def trace_start(call: Call, params: TraceStartParams) -> TraceStarted:
    """Start recording a Playwright trace of the session (every tab); `trace stop` saves it."""
    session = await call.session()
    if session.tracing_since is not None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"session {session.name!r} is already recording a trace",
            "`trace stop` saves it; then start again",
        )
    await session.context.tracing.start(
        screenshots=params.screenshots, snapshots=params.snapshots, title=params.title
    )
    session.tracing_since = time.monotonic()
    return TraceStarted(session=session.name, tracing=True)


class TraceStopParams(Params):
    path: str | None = file_path("where to write the trace zip (default: the artifacts dir)")


class TraceSaved(Result):
    session: str
    path: str
    bytes: int
    seconds: float = Field(description="how long it recorded")
    hint: str


@command("trace.stop", timeout="long", caps="observe")
async def trace_stop(call: Call, params: TraceStopParams) -> TraceSaved:
    """Stop the session's Playwright trace and save it as a zip for Playwright's viewer."""
    session = await call.session()
    if session.tracing_since is None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"session {session.name!r} is not recording a trace",
            "`trace start` first",
        )
    path = await call.output_path(params.path, "trace", label="playwright", ext="zip")
    seconds = time.monotonic() - session.tracing_since
    session.tracing_since = None  # stopped even when saving fails: it cannot be resumed
    await session.context.tracing.stop(path=path)
    await asyncio.to_thread(path.chmod, 0o600)
    # Typed secrets are in its action params and snapshots: masked (not in its pixels).
    await asyncio.to_thread(mask_zip, path)
    call.keep(path, "trace", "playwright")
    size = (await asyncio.to_thread(path.stat)).st_size
    return TraceSaved(
        session=session.name,
        path=str(path),
        bytes=size,
        seconds=round(seconds, 3),
        hint=VIEWER_HINT.replace("PATH", str(path)),
    )


class Latency(Result):
    count: int = Field(description="actions since the daemon started")
    sum_ms: float
    p50_ms: float = Field(description="median of the last 2048 (nearest rank)")
    p95_ms: float


class MetricsResult(Result):
    since: float = Field(description="when this daemon started counting (Unix time)")
    actions_total: list[dict[str, Any]] = Field(description="command, outcome, count")
    retries_total: dict[str, int] = Field(description="per command")
    sessions_total: dict[str, int] = Field(description="sessions entering each status")
    latency: dict[str, Latency] = Field(description="per command")


@command("metrics", touches_page=False, reads_only=True, timeout="short", caps="observe")
async def metrics(call: Call, params: Params) -> MetricsResult:
    """Counters and latencies since the daemon started (Prometheus text: HTTP /metrics)."""
    return MetricsResult(**call.runtime.metrics.snapshot())
