"""The record commands: a tab's screencast saved as a video file (engine/recording.py)."""

from __future__ import annotations

import asyncio

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.recordings import finish
from steadyhand.commands.table import Result, TabParams, command, file_path
from steadyhand.engine.recording import TabRecording
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.observe.avi import VideoInfo
from steadyhand.store.base import ArtifactFile


class RecordStartParams(TabParams):
    path: str | None = file_path("where to write the video, an MJPEG AVI (default: artifacts)")
    fps: int = Field(10, ge=1, le=30, description="frames a second in the file")
    quality: int = Field(70, ge=1, le=100, description="JPEG quality of its frames")


class RecordStarted(Result):
    tab: str
    path: str = Field(description="where the video is written when the recording stops")
    fps: int


class RecordStopped(Result):
    tab: str
    path: str
    frames: int
    seconds: float = Field(description="how long it plays: frames / fps")
    fps: int
    width: int
    height: int
    bytes: int
    full: bool = Field(False, description="it reached 1 GiB and took no more frames")


def saved_result(tab: str, info: VideoInfo) -> RecordStopped:
    return RecordStopped(
        tab=tab,
        path=info.path,
        frames=info.frames,
        seconds=round(info.seconds, 3),
        fps=info.fps,
        width=info.width,
        height=info.height,
        bytes=info.bytes,
        full=info.full,
    )


@command("record.start", reads_only=True, caps="observe")
async def record_start(call: Call, params: RecordStartParams) -> RecordStarted:
    """Start recording the tab as a video (its screencast); `record stop` saves it."""
    tab = await call.tab(params.tab)
    session = await call.session()
    refuse_a_second(session, tab.id)
    path = await call.output_path(params.path, "record", label=tab.id, ext="avi")
    taken = [r.tab_id for r in session.recordings.values() if r.path == path and not r.finished]
    folder = await asyncio.to_thread(path.is_dir)
    if taken or folder:
        what = f"tab {taken[0]} is recording to it" if taken else "it is a directory"
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"cannot record to {path}: {what}",
            "give another file path, or none for one in the artifacts dir",
        )
    store = call.runtime.store

    async def index_orphan(recording: TabRecording, info: VideoInfo) -> None:
        """A video no command finished (its tab closed by itself, its session under it):
        into the artifact index, where the session's report finds it."""
        file = ArtifactFile("video", recording.tab_id, info.path, info.bytes)
        await asyncio.to_thread(store.index_file, session.name, file)

    recording = TabRecording(
        tab.page, tab.id, path, params.fps, params.quality, on_orphan=index_orphan
    )
    await begin(session, recording)
    return RecordStarted(tab=tab.id, path=str(path), fps=params.fps)


async def begin(session: Session, recording: TabRecording) -> None:
    """Start `recording` as its tab's one recording; a start that fails leaves none."""
    tab_id = recording.tab_id
    refuse_a_second(session, tab_id)  # a start that ran meanwhile
    session.recordings[tab_id] = recording  # taken now: a second start is refused
    try:
        await recording.start()
    except BaseException as exc:
        if session.recordings.get(tab_id) is recording:
            del session.recordings[tab_id]
        if isinstance(exc, OSError):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"cannot write {recording.path}: {exc.strerror or exc}",
                "give a path in a directory the daemon's user can write",
            ) from exc
        if isinstance(exc, TimeoutError):
            raise SteadyhandError(
                ErrorCode.TIMEOUT,
                f"tab {tab_id} did not start its screencast",
                "the page may be hung; `snapshot` to see it, then try again",
            ) from exc
        raise


def refuse_a_second(session: Session, tab_id: str) -> None:
    """One recording per tab: `bad_request` while the tab records."""
    running = session.recordings.get(tab_id)
    if running is not None and not running.finished:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"tab {tab_id} is already recording to {running.path}",
            f"one recording per tab: `record stop --tab {tab_id}` saves it; then start again",
        )


class RecordStopParams(TabParams):
    pass


@command("record.stop", reads_only=True, timeout="long", caps="observe")
async def record_stop(call: Call, params: RecordStopParams) -> RecordStopped:
    """Stop the tab's recording and save the video; returns its path, frames and length."""
    session = await call.session()
    tab_id = recording_tab(session, params.tab)
    call.tab_id = tab_id
    recording = session.recordings[tab_id]
    info = await finish(call, recording)
    del session.recordings[tab_id]
    return saved_result(tab_id, info)


def recording_tab(session: Session, given: str | None) -> str:
    """The tab whose recording `record stop` saves: the one named, else the current tab's,
    else the session's only one. `bad_request` when that tab records nothing."""
    recording = sorted(session.recordings)
    listed = ", ".join(recording)
    if given is not None:
        if given in session.recordings:
            return given
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"tab {given} is not recording",
            f"tabs recording: {listed} (`record stop --tab ID`)"
            if recording
            else "`record start` first",
        )
    current = session.current_tab_id
    if current in session.recordings:
        return current
    if len(recording) == 1:
        return recording[0]
    if not recording:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"session {session.name!r} is not recording",
            "`record start` first",
        )
    raise SteadyhandError(
        ErrorCode.BAD_REQUEST,
        f"tabs {listed} are recording, not the current tab {current}",
        "say which: `record stop --tab ID`",
    )
