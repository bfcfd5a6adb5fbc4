"""The live view's parts that need no browser: the feed, takeovers, logins, input events."""

from __future__ import annotations

import asyncio
import base64
import time

import pytest

from steadyhand.commands import COMMANDS
from steadyhand.desktop import see
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.http import live_auth
from steadyhand.fronts.http.live_auth import COOKIE, Logins
from steadyhand.live import feed as feed_module
from steadyhand.live.feed import Feed
from steadyhand.live.remote_input import Click, Key, Pointer, Text, parse_events
from steadyhand.live.screen import DesktopScreen, TabScreen
from steadyhand.live.takeover import Takeovers


def test_a_listener_gets_events_in_order_and_a_slow_one_a_gap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feed_module, "QUEUE_LIMIT", 3)

    async def run() -> tuple[list[str], list[str]]:
        feed = Feed()
        feed.publish("action", id=0)  # nobody listens: dropped
        async with feed.listen() as queue:
            feed.publish("action", id=1)
            feed.publish("approval", id="abc")
            first = [queue.get_nowait()["kind"] for _ in range(2)]
            for i in range(5):  # more than the queue holds: the missed ones become a gap
                feed.publish("action", id=i)
            later = []
            while not queue.empty():
                later.append(queue.get_nowait()["kind"])
        assert feed.listeners == 0
        return first, later

    first, later = asyncio.run(run())
    assert first == ["action", "approval"]
    assert later[0] == "gap" and len(later) <= 3


def test_a_takeover_refuses_changes_but_not_the_handover() -> None:
    held = Takeovers()
    held.check("shop", "click")  # nobody drives it
    started = held.start("shop", "captcha")
    with pytest.raises(SteadyhandError) as refused:
        held.check("shop", "click")
    assert refused.value.code == ErrorCode.SESSION_PAUSED
    assert "captcha" in refused.value.message and refused.value.hint
    assert refused.value.data["since"] == started.since
    # The handover's own commands are not checked (execute/run.py reads the table's trait).
    held_up = {n for n, c in COMMANDS.items() if c.during_takeover}
    assert held_up == {"takeover", "handback", "desktop.takeover", "desktop.handback"}
    held.check("other", "click")
    assert held.start("shop", "") is started, "a second takeover keeps the first"
    assert started.info() == {"since": started.since, "reason": "captcha"}
    started.clicks = 2
    assert held.end("shop").info()["clicks"] == 2
    with pytest.raises(SteadyhandError) as again:
        held.end("shop")
    assert again.value.code == ErrorCode.BAD_REQUEST


def test_logins_take_the_right_token_and_name_it_by_cookie() -> None:
    now = [1000.0]
    logins = Logins("a" * 43, "b" * 43, clock=lambda: now[0])
    assert logins.log_in("wrong") is None
    viewer = logins.log_in("a" * 43)
    approver = logins.log_in(" " + "b" * 43 + "\n")
    assert viewer is not None and approver is not None
    assert (viewer.approver, approver.approver) == (False, True)
    assert logins.of(f"other=1; {COOKIE}={viewer.sid}") is viewer
    assert logins.of(f"{COOKIE}=forged") is None
    assert logins.of('bad"cookie') is None
    assert logins.csrf_ok(viewer, viewer.csrf) and not logins.csrf_ok(viewer, approver.csrf)
    assert not logins.csrf_ok(viewer, None)
    header = live_auth.set_cookie(viewer)
    assert "HttpOnly" in header and "SameSite=Strict" in header and "a" * 43 not in header
    now[0] += 13 * 3600
    assert logins.of(f"{COOKIE}={viewer.sid}") is None, "idle for 13 h: forgotten"
    logins.log_out(approver)
    assert logins.of(f"{COOKIE}={approver.sid}") is None


def test_without_an_approver_token_only_the_api_token_logs_in() -> None:
    logins = Logins("a" * 43)
    assert logins.log_in("") is None
    login = logins.log_in("a" * 43)
    assert login is not None and not login.approver


def test_input_events_are_checked_and_typed() -> None:
    events = parse_events(
        [
            {"type": "click", "x": 10, "y": 20.5},
            {"type": "down", "x": 10, "y": 20, "count": 2},
            {"type": "move", "x": 30, "y": 20},
            {"type": "key", "key": "Enter", "modifiers": ["Shift"]},
            {"type": "key", "key": "+"},
            {"type": "text", "text": "hi"},
        ]
    )
    assert [type(e) for e in events] == [Click, Pointer, Pointer, Key, Key, Text]
    for bad, where in (
        ([{"type": "click", "x": -1, "y": 0}], "events[0].x"),
        ([{"type": "key", "key": "Control+a"}], "events[0].key"),
        ([{"type": "scroll"}], "events[0]"),
        ([{"type": "text", "text": "x", "extra": 1}], "events[0].extra"),
    ):
        with pytest.raises(SteadyhandError) as refused:
            parse_events(bad)
        assert refused.value.code == ErrorCode.BAD_REQUEST and where in refused.value.message
    not_lists: list[object] = [[], "click", [{}] * 201]
    for not_a_list in not_lists:
        with pytest.raises(SteadyhandError):
            parse_events(not_a_list)


class _Cdp:
    """Stands in for the CDP session: counts acknowledgements."""

    def __init__(self) -> None:
        self.acks = 0

    async def send(self, method: str, params: dict[str, object]) -> None:
        self.acks += 1


def test_a_tab_screen_sends_at_most_max_fps_and_ends_on_the_newest_frame() -> None:
    """Chromium may send frames faster than they are acknowledged (it keeps several in
    flight): watchers still get at most max_fps a second, and the last frame sent."""

    async def run() -> tuple[list[int], float, int]:
        screen = TabScreen(page=None, tab_id="t1", max_fps=5, quality=60, label="s/t1")  # type: ignore[arg-type]
        cdp = _Cdp()
        screen._cdp = cdp  # type: ignore[assignment]
        got: list[int] = []
        queue: asyncio.Queue[dict[str, object]] = asyncio.Queue(1)
        screen._watchers.add(queue)
        started = time.monotonic()
        for i in range(60):  # 60 frames in about 0.6 s
            screen._frame({"data": str(i), "metadata": {}, "sessionId": i})
            await asyncio.sleep(0.01)
            while not queue.empty():
                got.append(int(str(queue.get_nowait()["data"])))
        elapsed = time.monotonic() - started
        await asyncio.sleep(0.3)  # the newest one's turn comes
        while not queue.empty():
            got.append(int(str(queue.get_nowait()["data"])))
        return got, elapsed + 0.3, cdp.acks

    got, elapsed, acks = asyncio.run(run())
    assert got[-1] == 59, "the newest frame is the last one sent"
    assert got == sorted(got)
    assert len(got) <= 1 + elapsed * 5 + 1, (len(got), elapsed)
    assert acks >= 1


def test_the_desktop_screen_sends_changes_only_and_says_once_that_x_is_gone(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Frames only when the pixels changed; a failing X read is logged once, not per read."""
    reads = iter([OSError("no display")] * 5 + [b"\x00" * 12] * 3 + [b"\xff" * 12] * 40)

    def grab() -> see.Canvas:
        read = next(reads)
        if isinstance(read, Exception):
            raise read
        return see.Canvas(2, 2, bytearray(read))

    async def run() -> list[bytes]:
        screen = DesktopScreen(max_fps=100, grab=grab)
        shown: list[bytes] = []
        async with screen.watch() as queue:
            while len(shown) < 2:
                frame = await asyncio.wait_for(queue.get(), 5)
                shown.append(base64.b64decode(str(frame["data"])))
        return shown

    with caplog.at_level("WARNING", logger="steadyhand.live"):
        shown = asyncio.run(run())
    assert [png[:8] for png in shown] == [b"\x89PNG\r\n\x1a\n"] * 2 and shown[0] != shown[1]
    assert [r.message for r in caplog.records] == ["desktop screen: no display"]
