"""The desktop event log (ring, filters, generations, waking), the kinds, the webhook sender
and the CLI's event lines: no desktop needed."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
from pathlib import Path

import pytest

from steadyhand.config import Settings, event_kinds
from steadyhand.desktop.events import DesktopEvents, EventLog, classify, kinds_of, matches
from steadyhand.desktop.worker import AtspiWorker
from steadyhand.errors import SteadyhandError
from steadyhand.fronts.cli.main import StreamLines
from steadyhand.fronts.reply import event_line
from steadyhand.webhook import Webhook
from tests.webhook_receiver import Hook


def fill(log: EventLog, count: int, pid: int = 10, kind: str = "text.changed") -> None:
    for i in range(count):
        log.add(kind, app="form", pid=pid, path=f"/p/{i}")


def test_the_ring_keeps_the_last_events_and_counts_the_missed() -> None:
    log = EventLog(size=5)
    fill(log, 8)
    assert log.last_seq == 8
    events, missed, read_to = log.since(0)
    assert [e.seq for e in events] == [4, 5, 6, 7, 8] and missed == 3 and read_to == 8
    events, missed, read_to = log.since(5)
    assert [e.seq for e in events] == [6, 7, 8] and missed == 0 and read_to == 8
    assert log.since(8) == ([], 0, 8)


def test_since_with_a_limit_reads_up_to_the_last_match_only() -> None:
    log = EventLog()
    for pid in (1, 2, 1, 2, 1):
        log.add("focus", app=f"app{pid}", pid=pid)
    events, _, read_to = log.since(0, app="2", limit=1)
    assert [e.seq for e in events] == [2] and read_to == 2  # seq 3.. still to read
    events, _, read_to = log.since(read_to, app="app2")
    assert [e.seq for e in events] == [4] and read_to == 5  # all looked at
    kinds = frozenset({"window.created"})
    assert log.since(0, kinds) == ([], 0, 5)


def test_matching_by_kind_and_app_name_or_pid() -> None:
    log = EventLog()
    event = log.add("state.changed", app="gtk3_form.py", pid=42, detail="checked=true")
    assert matches(event, None, None)
    assert matches(event, frozenset({"state.changed"}), "42")
    assert matches(event, None, "gtk3_form.py")
    assert not matches(event, frozenset({"focus"}), None)
    assert not matches(event, None, "43")


def test_generations_count_per_pid_and_overall() -> None:
    log = EventLog()
    assert (log.generation(1), log.generation_any()) == (0, 0)
    fill(log, 3, pid=1)
    log.bump(2)
    assert (log.generation(1), log.generation(2), log.generation(3)) == (3, 1, 0)
    assert log.generation_any() == 4


def test_generations_before_the_listeners_run_never_repeat() -> None:
    """A cache asking before anything is listened to must never see the same number."""
    bus = DesktopEvents(AtspiWorker())
    assert not bus.listening
    firsts = [bus.generation(1) for _ in range(3)] + [bus.generation_any()]
    assert len(set(firsts)) == 4


def test_a_waiter_is_woken_by_an_event_from_another_thread() -> None:
    async def main() -> tuple[bool, bool, float]:
        log = EventLog()
        log.bind(asyncio.get_running_loop())
        late = await log.wait(0, 0.05)  # nothing comes
        adder = threading.Timer(0.1, lambda: fill(log, 1))
        started = time.monotonic()
        adder.start()
        woken = await log.wait(0, 5)
        return late, woken, time.monotonic() - started

    late, woken, took = asyncio.run(main())
    assert not late and woken and took < 2


def test_many_events_from_a_thread_wake_once_per_batch() -> None:
    async def main() -> int:
        log = EventLog()
        log.bind(asyncio.get_running_loop())
        thread = threading.Thread(target=fill, args=(log, 5000))
        thread.start()
        seen, seq = 0, 0
        while seen < 5000:
            await log.wait(seq, 5)
            events, _, seq = log.since(seq)
            seen += len(events)
        thread.join()
        return seen

    assert asyncio.run(main()) == 5000


def test_kinds_take_families_and_refuse_unknown_words() -> None:
    assert event_kinds("window, app.started") == {
        "window.created",
        "window.destroyed",
        "app.started",
    }
    assert kinds_of(None) is None and kinds_of("") is None
    with pytest.raises(SteadyhandError) as refused:
        kinds_of("focus,windows")
    assert refused.value.code == "bad_request" and "'windows'" in refused.value.message


def test_classify_reads_what_the_event_carries() -> None:
    assert classify("object:state-changed:focused", 1, 0, "text") == ("focus", "")
    assert classify("object:state-changed:focused", 0, 0, "text") == (None, "")
    assert classify("object:state-changed:checked", 0, 0, "") == ("state.changed", "checked=false")
    assert classify("object:state-changed:showing", 1, 0, "") == (None, "")
    assert classify("object:text-changed:insert", 3, "Ada", "text") == (
        "text.changed",
        "insert at 3: 'Ada'",
    )
    assert classify("object:text-changed:insert", 0, "hunter2", "password text") == (
        "text.changed",
        "insert at 0: '(redacted)'",
    )
    assert classify("object:property-change:accessible-name", 0, "Saved", "") == (
        "name.changed",
        "Saved",
    )
    assert classify("object:property-change:accessible-value", 0, 0.5, "") == (
        "value.changed",
        "0.5",
    )
    assert classify("window:create", 0, "Second", "") == ("window.created", "Second")
    assert classify("object:property-change:accessible-parent", 0, None, "") == (None, "")
    long = classify("object:text-changed:insert", 0, "x" * 500, "text")[1]
    assert len(long) < 220 and long.endswith("…'")


def test_webhook_settings_are_checked_when_they_load(tmp_path: Path) -> None:
    for bad in ("ftp://example.com/x", "example.com/hook", "http://", "https:///x"):
        with pytest.raises(SteadyhandError) as refused:
            Settings(state_dir=tmp_path, desktop_webhook=bad)
        assert refused.value.code == "bad_request" and "desktop_webhook" in refused.value.message
    with pytest.raises(SteadyhandError, match="approval_webhook"):
        Settings(state_dir=tmp_path, approval_webhook="file:///etc/passwd")
    with pytest.raises(SteadyhandError, match="'nope'"):
        Settings(state_dir=tmp_path, desktop_webhook_events="app,nope")
    ok = Settings(state_dir=tmp_path, desktop_webhook="HTTPS://hooks.example/x?token=1")
    assert ok.desktop_webhook_events == "window.created,app.started,app.exited"


def test_the_webhook_posts_in_order_and_drops_past_its_queue() -> None:
    receiver = Hook()

    async def main() -> Webhook:
        hook = Webhook(receiver.url, "test webhook", "desktop_webhook", queue_size=3)
        for i in range(5):  # the sender starts after this loop yields: two overflow
            hook.send({"n": i}, f"payload {i}")
        await hook.drain(10)
        return hook

    try:
        hook = asyncio.run(main())
    finally:
        receiver.close()
    assert [b["n"] for b in receiver.bodies] == [0, 1, 2]
    assert (hook.sent, hook.dropped, hook.failed) == (3, 2, 0)
    assert hook.label == f"http://{receiver.url.split('/')[2]}/…"


def test_a_dead_webhook_is_logged_without_its_path(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> Webhook:
        hook = Webhook("http://user:pw@127.0.0.1:9/secret-path?k=v", "x webhook", "s", 1.0)
        hook.send({}, "payload 1")
        await hook.drain(10)
        return hook

    hook = asyncio.run(main())
    assert hook.failed == 1
    assert "x webhook http://127.0.0.1:9/… failed for payload 1" in caplog.text
    assert "secret-path" not in caplog.text and "pw" not in caplog.text


def test_the_cli_prints_streamed_events_one_line_each() -> None:
    event = {
        "seq": 12,
        "ts": 1_700_000_000.25,
        "kind": "text.changed",
        "app": "gtk3_form.py",
        "pid": 2193,
        "role": "text",
        "name": "Name",
        "path": "/org/a11y/atspi/accessible/19",
        "detail": "insert at 0: 'Ada'",
        "atspi": "object:text-changed:insert",
    }
    line = event_line(event)
    assert line.startswith("#12 ") and line.endswith(
        " text.changed gtk3_form.py[2193] text \"Name\": insert at 0: 'Ada'"
    )
    assert ".250 " in line
    for as_json in (True, False):
        out = io.StringIO()
        lines = StreamLines(out, as_json)
        lines(1, None, json.dumps(event))
        lines(2, None, json.dumps(event | {"seq": 13}))
        printed = out.getvalue().splitlines()
        assert len(printed) == 2 and lines.printed == 2
        if as_json:
            assert json.loads(printed[1])["seq"] == 13
        else:
            assert printed[1].startswith("#13 ")
