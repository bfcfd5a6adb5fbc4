"""Finishing a tab's recordings for the commands that end them: `record stop`, and the
closes (`tab close`, `close`) that save them first. No command of its own: importing it
leaves the table's order alone."""

from __future__ import annotations

import contextlib

from steadyhand.call import Call
from steadyhand.engine.recording import TabRecording
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.observe.avi import VideoInfo


async def finish(call: Call, recording: TabRecording) -> VideoInfo:
    """Finish a recording's file and index it with the call's action (unless a close no
    command asked for indexed it already)."""
    try:
        info = await recording.finish()
    except OSError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"the recording of tab {recording.tab_id} could not be saved: {exc}",
            "check the disk has room and the folder is writable; `record start` again",
        ) from exc
    if not recording.orphaned:
        call.keep(info.path, "video", recording.tab_id)
    return info


async def save_recordings(call: Call, session: Session, tab_id: str | None = None) -> list[str]:
    """Finish the recordings of the tab `tab_id` (None: of every tab) before a close, each
    indexed with the call's action; their paths."""
    chosen = [r for i, r in session.recordings.items() if tab_id is None or i == tab_id]
    paths = []
    for recording in chosen:
        with contextlib.suppress(SteadyhandError):  # the close goes on; the log says why
            paths.append((await finish(call, recording)).path)
        session.recordings.pop(recording.tab_id, None)
    return paths
