"""`record start|stop`: a tab's screencast saved as an MJPEG AVI that a player can open.

The file is read back by tests/avi_file.py (a reader written apart from the writer), so
each test checks the container (sizes, headers, index) and the frames (JPEGs of the
viewport's size that change when the page does); ffprobe checks it too where installed.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from steadyhand.errors import SteadyhandError
from steadyhand.snapshot.lookup import find_ref
from tests.avi_file import Avi, jpeg_size, read_avi
from tests.conftest import Daemon, wait_until

pytestmark = pytest.mark.integration

CLICKS = 3
HOLD_S = 0.3  # three frames' intervals at 10 fps


def check_video(daemon: Daemon, path: Path, frames: int | None = None) -> Avi:
    """The file is a whole MJPEG AVI of the viewport: every count agrees, every frame is a
    JPEG of the viewport's size."""
    avi = read_avi(path)
    count = len(avi.frames)
    assert count >= 1
    assert avi.total_frames == avi.length == avi.index_entries == count
    if frames is not None:
        assert count == frames
    assert (avi.handler, avi.compression) == (b"MJPG", b"MJPG")
    size = (daemon.settings.viewport_width, daemon.settings.viewport_height)
    assert (avi.width, avi.height) == size
    for frame in avi.frames:
        assert frame[:2] == b"\xff\xd8" and frame.rstrip(b"\0")[-2:] == b"\xff\xd9"
        assert jpeg_size(frame) == size
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not list(path.parent.glob(f".{path.name}.*")), "no unfinished file left beside it"
    probed = ffprobe_frames(path)
    if probed is not None:
        assert probed == count
    return avi


def ffprobe_frames(path: Path) -> int | None:
    """The frames ffprobe decodes, when ffprobe is installed (it is not everywhere)."""
    ffprobe = shutil.which("ffprobe")
    if ffprobe is None:
        return None
    count = ["-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames"]
    done = subprocess.run(
        [ffprobe, "-v", "error", *count, "-of", "csv=p=0", str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return int(done.stdout.strip())


def click_through(daemon: Daemon, session: str, clicks: int = CLICKS, done: int = 0) -> None:
    """Click Next `clicks` times (`done`: clicked before): each click repaints the page
    (another colour, a label), which then holds for HOLD_S. A recording at 10 fps gets a
    frame of every state that lasts over a frame's interval; one that lasts less (a click
    answered in 50 ms, the next at once) may rightly be skipped."""
    button = find_ref(daemon.snapshot(session), "button", "Next")
    for n in range(done + 1, done + clicks + 1):
        daemon.call("click", session=session, ref=button, expect_text=f"step {n}")
        time.sleep(HOLD_S)


def test_a_recording_holds_the_page_as_it_changed(daemon: Daemon, site: str) -> None:
    s = "rec-basic"
    daemon.call("open", session=s, url=f"{site}/record.html")
    assert daemon.fail("record.stop", session=s).code == "bad_request"
    started = daemon.call("record.start", session=s, fps=10)
    assert started["tab"] == "t1" and started["fps"] == 10
    path = Path(started["path"])
    assert path.parent == daemon.settings.artifacts_dir / s and path.suffix == ".avi"
    again = daemon.fail("record.start", session=s)
    assert again.code == "bad_request" and "record stop" in (again.hint or "")
    click_through(daemon, s)
    saved = daemon.call("record.stop", session=s)

    assert saved["path"] == str(path) and saved["bytes"] == path.stat().st_size
    avi = check_video(daemon, path, frames=saved["frames"])
    assert (avi.fps, avi.micro_s_per_frame, saved["fps"]) == (10, 100_000, 10)
    assert saved["seconds"] == round(saved["frames"] / 10, 3)
    # The page before the clicks and after each: at least that many distinct frames, the
    # first unlike the last.
    assert len(set(avi.frames)) >= CLICKS + 1
    assert avi.frames[0] != avi.frames[-1]
    # Stopped: stopping again is an error that says how to start.
    stopped = daemon.fail("record.stop", session=s)
    assert stopped.code == "bad_request" and "record start" in (stopped.hint or "")

    # The video is the record.stop action's artifact, and the session's report links it.
    actions = daemon.call("trace", name=s, last=0)["actions"]
    (stop,) = [a for a in actions if a["command"] == "record.stop" and a["ok"]]
    assert [(a["kind"], a["path"], a["bytes"]) for a in stop["artifacts"]] == [
        ("video", str(path), saved["bytes"])
    ]
    report = Path(daemon.call("report", name=s)["path"]).read_text()
    assert report.count(f'href="{path.as_uri()}"') == 2  # the header's list, the action


def test_record_paths_obey_the_file_roots(daemon: Daemon, site: str, tmp_path: Path) -> None:
    s = "rec-paths"
    daemon.call("open", session=s, url=f"{site}/record.html")
    outside = daemon.fail("record.start", session=s, path=str(tmp_path / "out.avi"))
    assert outside.code == "policy_denied"
    root = daemon.settings.artifacts_dir
    (root / "a-folder").mkdir(parents=True)
    folder = daemon.fail("record.start", session=s, path=str(root / "a-folder"))
    assert folder.code == "bad_request"
    relative = daemon.call("record.start", session=s, path="clip.avi", fps=5)
    assert relative["path"] == str(root / s / "clip.avi")
    click_through(daemon, s, clicks=1)
    saved = daemon.call("record.stop", session=s)
    check_video(daemon, root / s / "clip.avi", frames=saved["frames"])
    assert read_avi(root / s / "clip.avi").fps == 5
    # From the CLI, a relative path starts at its working directory (a file root).
    assert daemon.cli("record", "start", "--path", "cli.avi", "--session", s, cwd=tmp_path).rc == 0
    click_through(daemon, s, clicks=1, done=1)
    stopped = daemon.cli("record", "stop", "--session", s)
    assert stopped.rc == 0, stopped.err
    assert f"path: {tmp_path / 'cli.avi'}" in stopped.out
    check_video(daemon, tmp_path / "cli.avi")


def test_one_recording_per_tab_and_stop_names_the_tab(daemon: Daemon, site: str) -> None:
    s = "rec-tabs"
    daemon.call("open", session=s, url=f"{site}/record.html")
    daemon.call("record.start", session=s)
    daemon.call("tab.new", session=s, url=f"{site}/record.html")
    daemon.call("record.start", session=s, tab="t2")
    assert daemon.fail("record.start", session=s, tab="t2").code == "bad_request"
    daemon.call("tab.focus", session=s, tab="t1")
    first = daemon.call("record.stop", session=s)  # the current tab's
    assert first["tab"] == "t1"
    # The only recording left is stopped even from a tab that records nothing.
    daemon.call("tab.new", session=s, url=f"{site}/record.html")
    second = daemon.call("record.stop", session=s)
    assert second["tab"] == "t2" and second["path"] != first["path"]
    wrong = daemon.fail("record.stop", session=s, tab="t1")
    assert wrong.code == "bad_request" and "not recording" in wrong.message
    for saved in (first, second):
        check_video(daemon, Path(saved["path"]), frames=saved["frames"])
    # Two starts at once on one tab: one records, the other is refused.
    with ThreadPoolExecutor(2) as pool:
        tries = list(pool.map(lambda _: started_or_error(daemon, s), range(2)))
    assert sorted(tries) == ["bad_request", "started"]
    check_video(daemon, Path(daemon.call("record.stop", session=s)["path"]))


def started_or_error(daemon: Daemon, session: str) -> str:
    try:
        daemon.call("record.start", session=session, tab="t3")
    except SteadyhandError as exc:
        return str(exc.code)
    return "started"


def test_closing_the_tab_or_the_session_saves_a_whole_file(daemon: Daemon, site: str) -> None:
    s = "rec-close"
    daemon.call("open", session=s, url=f"{site}/record.html")
    daemon.call("tab.new", session=s, url=f"{site}/record.html")
    daemon.call("record.start", session=s, tab="t1")
    daemon.call("record.start", session=s, tab="t2")
    click_through(daemon, s, clicks=1)  # on t2, the current tab
    closed_tab = daemon.call("tab.close", session=s, tab="t1")
    (tab_video,) = closed_tab["videos"]
    check_video(daemon, Path(tab_video))
    assert daemon.fail("record.stop", session=s, tab="t1").code == "bad_request"
    closed = daemon.call("close", session=s)
    (session_video,) = closed["videos"]
    avi = check_video(daemon, Path(session_video))
    assert len(set(avi.frames)) >= 2  # before and after the click
    actions = {a["command"]: a for a in daemon.call("trace", name=s, last=0)["actions"]}
    assert [a["path"] for a in actions["tab.close"]["artifacts"]] == [tab_video]
    assert [a["path"] for a in actions["close"]["artifacts"]] == [session_video]


def test_a_tab_the_page_closes_leaves_a_whole_indexed_file(daemon: Daemon, site: str) -> None:
    s = "rec-self-close"
    daemon.call("open", session=s, url=f"{site}/record.html")
    daemon.call("evaluate", session=s, expression="window.popup = window.open('/record.html'); 1")
    assert wait_until(lambda: "t2" in {t["id"] for t in daemon.call("tabs", session=s)["tabs"]})
    path = Path(daemon.call("record.start", session=s, tab="t2")["path"])
    click_through(daemon, s, clicks=1)
    daemon.call("evaluate", session=s, tab="t1", expression="window.popup.close(); 1")
    assert wait_until(path.exists)
    check_video(daemon, path)
    # No command saved it: `record stop` hands it over all the same, and the report lists it
    # (its index row belongs to no action).
    saved = daemon.call("record.stop", session=s, tab="t2")
    assert saved["path"] == str(path) and saved["frames"] >= 1
    stop = daemon.call("trace", name=s, last=1)["actions"][0]
    assert stop["command"] == "record.stop" and stop["artifacts"] == []
    report = Path(daemon.call("report", name=s)["path"]).read_text()
    assert report.count(f'href="{path.as_uri()}"') == 1


def test_a_daemon_stop_saves_the_recording_and_the_report_links_it(
    fresh_daemon: Daemon, site: str
) -> None:
    d = fresh_daemon
    s = "rec-stop"
    assert d.cli("open", f"{site}/record.html", "--session", s).rc == 0
    path = Path(d.call("record.start", session=s)["path"])
    click_through(d, s, clicks=2)
    assert d.cli("daemon", "stop").rc == 0
    assert d.pid() is None
    avi = check_video(d, path)
    assert len(set(avi.frames)) >= 3
    # No action saved it: the file is indexed all the same, and the report (a new daemon)
    # links it.
    assert d.cli("daemon", "start").rc == 0
    report = Path(d.call("report", name=s)["path"]).read_text()
    assert f'href="{path.as_uri()}"' in report
