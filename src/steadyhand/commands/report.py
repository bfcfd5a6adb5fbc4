"""The report command: a session's actions as one HTML file a person opens in a browser."""

from __future__ import annotations

import asyncio

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.observe import HistoryParams, recorded_actions
from steadyhand.commands.pdf import save_private
from steadyhand.commands.table import Result, command, file_path
from steadyhand.observe.report import render
from steadyhand.observe.trace import videos


class ReportParams(HistoryParams):
    path: str | None = file_path("where to write the HTML file (default: the artifacts dir)")
    last: int = Field(0, ge=0, description="only the last N actions (0: all)")


class ReportResult(Result):
    session: str
    path: str
    bytes: int
    actions: int = Field(description="timeline entries in the report")
    failed: int = Field(description="of those, how many failed")
    images_inlined: int = Field(description="screenshots inside the file")
    images_left_out: int = Field(
        description="screenshots shown as a path instead: deleted, or over the size cap"
    )


@command("report", touches_page=False, reads_only=True, timeout="long", caps="observe")
async def report(call: Call, params: ReportParams) -> ReportResult:
    """Write the session's report: one self-contained HTML file of its actions and screenshots."""
    name = params.name or call.session_name
    found = await recorded_actions(call, name, params.every_life)
    chosen = found[-params.last :] if params.last else found
    statuses = await asyncio.to_thread(call.runtime.store.sessions)
    first = chosen[0][0] if chosen else None
    since = first.at - first.duration_ms / 1000 if first is not None else 0.0
    recorded = await asyncio.to_thread(videos, call.runtime.store, name, since)
    path = await call.output_path(params.path, "report", label="session", ext="html", folder=name)
    loop = asyncio.get_running_loop()

    def progress(done: int, total: int, message: str) -> None:
        # Called on the worker thread: hand it to the loop and wait, so reports stay in order.
        asyncio.run_coroutine_threadsafe(call.report_progress(done, total, message), loop).result()

    built = await asyncio.to_thread(
        render,
        name,
        [e for e, _ in chosen],
        results={e.id: result for e, result in chosen},
        status=statuses.get(name),
        total=len(found),
        progress=progress if call.progress is not None else None,
        videos=recorded,
    )
    data = built.html.encode("utf-8")
    await save_private(path, data)
    return ReportResult(
        session=name,
        path=str(path),
        bytes=len(data),
        actions=built.actions,
        failed=built.failed,
        images_inlined=built.images_inlined,
        images_left_out=built.images_left_out,
    )
