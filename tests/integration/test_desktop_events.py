"""Desktop events (`desktop watch`, the wake webhook) from real GTK apps on a private Xvfb
desktop, through a daemon running inside that desktop session."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from steadyhand import rpc_client
from steadyhand.desktop.session import DesktopSession
from steadyhand.fronts.cli import relay as cli_relay
from tests.conftest import Daemon, make_settings, run_cli, running_daemon, wait_until
from tests.desktop_env import gtk3_form, launched, wait_on_bus
from tests.integration.test_desktop import ref_of, snap
from tests.webhook_receiver import Hook

pytestmark = pytest.mark.integration

FORM = "gtk3_form.py"
# The tree as the daemon keys refs: (role, name) -> the object's path, read in the session.
PATHS = """
import json, sys, time
from steadyhand.desktop.tree import applications, walk
from steadyhand.desktop.deadline import Deadline
pid = int(sys.argv[1])
root = next(obj for _name, p, obj in applications() if p == pid)
nodes, stack = {}, [walk(root, pid, Deadline(time.monotonic() + 20))]
while stack:
    node = stack.pop()
    nodes[node.facts.role + "|" + node.facts.name] = node.facts.path
    stack.extend(node.children)
print(json.dumps(nodes))
"""


@pytest.fixture(scope="module")
def hook() -> Iterator[Hook]:
    receiver = Hook()
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def watcher(
    desktop: DesktopSession, hook: Hook, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Daemon]:
    """A daemon in the desktop whose wake webhook posts window and app events to `hook`."""
    settings = make_settings(
        tmp_path_factory.mktemp("state"),
        desktop_webhook=hook.url,
        desktop_webhook_events="window,app",
    )
    with running_daemon(settings, desktop.env) as handle:
        yield handle


def watch(
    d: Daemon, streamed: list[dict[str, Any]] | None = None, **params: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """`desktop.watch` over JSON-RPC asking for progress: its result and the events it
    streamed (into `streamed` as they come), each parsed from its progress note."""
    streamed = [] if streamed is None else streamed

    def note(_done: int, _total: int | None, message: str) -> None:
        streamed.append(json.loads(message))

    result = rpc_client.request(d.settings, "desktop.watch", params, 120.0, note)
    return result, streamed


def in_background(
    d: Daemon, **params: Any
) -> tuple[Future[tuple[dict[str, Any], list[Any]]], list[dict[str, Any]]]:
    """A watch running in a thread, and the list its events stream into."""
    streamed: list[dict[str, Any]] = []
    return ThreadPoolExecutor(1).submit(watch, d, streamed, **params), streamed


def mark(d: Daemon) -> int:
    """The last seq now (starts the listeners if they are not running)."""
    seq: int = d.call("desktop.watch", duration="0s")["last_seq"]
    return seq


def paths(desktop: DesktopSession, pid: int) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", PATHS, str(pid)],
        env=desktop.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found: dict[str, str] = json.loads(done.stdout)
    return found


@pytest.fixture
def form(desktop: DesktopSession, watcher: Daemon) -> Iterator[int]:
    with launched(desktop, gtk3_form()) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        yield app.pid


def test_an_app_starting_and_ending_is_streamed_over_json_rpc(
    desktop: DesktopSession, watcher: Daemon, hook: Hook
) -> None:
    since = mark(watcher)
    watching, so_far = in_background(
        watcher, since=since, app=FORM, events="app,window", count=4, timeout="60s"
    )
    with launched(desktop, gtk3_form()) as app:
        assert wait_until(lambda: len(so_far) >= 2, 20), so_far  # the app and its window
    result, streamed = watching.result(timeout=60)
    kinds = [e["kind"] for e in result["events"]]
    assert kinds == ["app.started", "window.created", "window.destroyed", "app.exited"]
    assert all(e["pid"] == app.pid and e["app"] == FORM for e in result["events"])
    window = result["events"][1]
    assert (window["role"], window["name"]) == ("frame", "GTK form")
    assert result["events"][2]["path"] == window["path"]  # the same window went
    assert streamed == result["events"]  # each streamed as it came, in order
    assert result["ended"] == "count" and result["last_seq"] == result["events"][-1]["seq"]
    # The wake webhook posted the same app and window events (its kinds: window, app).
    assert wait_until(lambda: len([b for b in hook.bodies if b["pid"] == app.pid]) >= 4)
    posted = [b for b in hook.bodies if b["pid"] == app.pid]
    assert posted == result["events"]


def acting_on(
    desktop: DesktopSession, d: Daemon, form: int, *elements: tuple[str, str]
) -> tuple[list[str], dict[str, str], int]:
    """The refs of the form's (role, name) elements, its objects' paths, and a watch mark
    to read the events of what follows from."""
    page = snap(d, form)
    return [ref_of(page, role, name) for role, name in elements], paths(desktop, form), mark(d)


def test_acting_on_refs_gives_events_on_their_objects(
    desktop: DesktopSession, watcher: Daemon, form: int
) -> None:
    d = watcher
    (name, subscribe), where, since = acting_on(
        desktop, d, form, ("text", "Name"), ("check box", "Subscribe")
    )
    d.call("desktop.type", ref=name, text="Ada")
    d.call("desktop.click", ref=subscribe)
    result, _ = watch(d, since=since, app=str(form), duration="0s")
    events = result["events"]
    typed = [e for e in events if e["kind"] == "text.changed" and e["path"] == where["text|Name"]]
    assert typed and typed[-1]["detail"] == "insert at 0: 'Ada'", events
    assert (typed[-1]["role"], typed[-1]["name"], typed[-1]["pid"]) == ("text", "Name", form)
    checked = [e for e in events if e["kind"] == "state.changed"]
    assert [(e["path"], e["detail"]) for e in checked] == [
        (where["check box|Subscribe"], "checked=true")
    ]
    # The app's status label said so too: its name changed.
    assert any(e["kind"] == "name.changed" and e["detail"] == "subscribed" for e in events)

    # --events keeps only the kinds asked for (a family names all of its kinds).
    only = watch(d, since=since, events="state", duration="0s")[0]["events"]
    assert [e["kind"] for e in only] == ["state.changed"]
    texts = watch(d, since=since, events="text.changed,name.changed", duration="0s")[0]
    assert {e["kind"] for e in texts["events"]} == {"text.changed", "name.changed"}
    assert d.fail("desktop.watch", events="window.moved").code == "bad_request"


def test_the_cli_streams_a_watch_as_the_reference_does(
    desktop: DesktopSession, watcher: Daemon, form: int, tmp_path: Path
) -> None:
    """`desktop watch` through the launcher (its lines streamed from the daemon) prints what
    the reference prints, with the event times in the caller's time zone."""
    d = watcher
    (name,), _, since = acting_on(desktop, d, form, ("text", "Name"))
    d.call("desktop.type", ref=name, text="Ada")
    launcher = tmp_path / "steadyhand"
    assert cli_relay.write_launcher(str(launcher))
    watch_argv = ["desktop", "watch", "--since", str(since), "--app", str(form), "--for", "0s"]
    watch_argv += ["--events", "text.changed"]
    env = dict(d.env, TZ="Asia/Tokyo")
    for argv in (watch_argv, [*watch_argv, "--json"]):
        reference, relayed = (
            run_cli(*argv, env=env, cwd=tmp_path, program=program)
            for program in ([sys.executable, "-m", "steadyhand.fronts.cli.main"], [str(launcher)])
        )
        assert relayed == reference
        assert relayed.rc == 0 and "insert at 0: 'Ada'" in relayed.out


def test_focus_moving_is_a_focus_event_on_the_object(
    desktop: DesktopSession, watcher: Daemon, form: int
) -> None:
    d = watcher
    (name, greet), where, since = acting_on(
        desktop, d, form, ("text", "Name"), ("push button", "Greet")
    )
    assert d.call("desktop.focus", ref=greet)["verified"]
    assert d.call("desktop.focus", ref=name)["verified"]
    focus = watch(d, since=since, events="focus", app=str(form), duration="0s")[0]["events"]
    moved = [e["path"] for e in focus]  # GTK may say one focus twice: keep each change once
    moved = [p for i, p in enumerate(moved) if i == 0 or p != moved[i - 1]]
    assert moved[-2:] == [where["push button|Greet"], where["text|Name"]], focus
    assert {(e["role"], e["name"]) for e in focus} >= {("push button", "Greet"), ("text", "Name")}


def test_since_continues_without_loss_or_repeats(watcher: Daemon, form: int) -> None:
    d = watcher
    page = snap(d, form)
    name = ref_of(page, "text", "Name")
    since = mark(d)
    for word in ("one", "two", "three", "four"):
        d.call("desktop.type", ref=name, text=word)
    # The app's events reach the daemon over D-Bus after the typing returns: read them
    # once they have all come (the same count twice, 0.3 s apart).
    seen: list[int] = []

    def all_came() -> bool:
        seen.append(len(watch(d, since=since, app=str(form), duration="0s")[0]["events"]))
        time.sleep(0.3)
        return len(seen) > 1 and seen[-1] == seen[-2] >= 7

    wait_until(all_came, 10)
    whole = watch(d, since=since, app=str(form), duration="0s")[0]
    assert len(whole["events"]) >= 7  # each: the old text deleted (but the first), the new in
    pieces: list[dict[str, Any]] = []
    at = since
    while True:
        part = watch(d, since=at, app=str(form), count=3, duration="0s")[0]
        pieces += part["events"]
        at = part["last_seq"]
        if part["ended"] == "for":
            break
        assert part["ended"] == "count" and part["count"] == 3
    assert [e["seq"] for e in pieces] == [e["seq"] for e in whole["events"]]
    assert at == whole["last_seq"]
    late = d.fail("desktop.watch", since=whole["last_seq"] + 1000, duration="0s")
    assert late.code == "bad_request" and "restarted" in late.message


def test_count_for_and_deadline_end_a_watch_as_success(watcher: Daemon, form: int) -> None:
    d = watcher
    started = time.monotonic()
    quiet = d.call("desktop.watch", app="no such app", duration="400ms")
    took = time.monotonic() - started
    assert quiet["ended"] == "for" and quiet["count"] == 0 and 0.4 <= took < 3
    started = time.monotonic()
    timed = d.call("desktop.watch", app="no such app", timeout="1500ms")
    assert timed["ended"] == "deadline" and time.monotonic() - started < 3
    too_long = d.fail("desktop.watch", duration="10s", timeout="2s")
    assert too_long.code == "bad_request" and "--timeout" in (too_long.hint or "")

    name = ref_of(snap(d, form), "text", "Name")
    waiting, _ = in_background(d, app=str(form), events="text.changed", count=1)
    time.sleep(0.5)  # the watch is waiting (it takes events from when it starts)
    d.call("desktop.type", ref=name, text="counted")
    result, streamed = waiting.result(timeout=30)
    assert result["ended"] == "count" and result["count"] == 1 and len(streamed) == 1


def test_the_cli_prints_each_event_as_it_comes(watcher: Daemon, form: int) -> None:
    d = watcher
    name = ref_of(snap(d, form), "text", "Name")
    since = mark(d)
    argv = ["desktop", "watch", "--json", "--for", "30s", "--timeout", "40s"]
    cli = subprocess.Popen(
        [sys.executable, "-m", "steadyhand", *argv, "--since", str(since), "--app", str(form)],
        env=d.env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        d.call("desktop.type", ref=name, text="streamed")
        assert cli.stdout is not None
        first = json.loads(cli.stdout.readline())  # before the watch ends, through a pipe
        assert cli.poll() is None
        assert first["pid"] == form and first["seq"] > since
    finally:
        cli.terminate()
        cli.wait(10)
    # Readable lines, then the summary without the events again.
    shown = d.cli("desktop", "watch", "--since", str(since), "--for", "0s", "--app", str(form))
    assert shown.rc == 0, shown.err
    lines = shown.out.splitlines()
    assert any(" text.changed gtk3_form.py[" in line and "'streamed'" in line for line in lines)
    assert lines[0].startswith("#") and "ended: for" in lines


def test_a_bad_webhook_url_is_refused_at_start(watcher: Daemon) -> None:
    bad = dict(watcher.env, STEADYHAND_DESKTOP_WEBHOOK="ftp://hooks.example/x?token=s3cret")
    done = watcher.cli("desktop", "watch", "--for", "0s", env=bad)
    assert done.rc == 2 and "desktop_webhook" in done.err and "http(s)" in done.err
    assert "s3cret" not in done.err
    kinds = dict(watcher.env, STEADYHAND_DESKTOP_WEBHOOK_EVENTS="window,nope")
    done = watcher.cli("desktop", "apps", env=kinds)
    assert done.rc == 2 and "'nope' is not a desktop event kind" in done.err


def test_a_dead_webhook_costs_nothing(
    desktop: DesktopSession, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A webhook where nothing listens: logged, and the daemon's desktop works on."""
    settings = make_settings(
        tmp_path_factory.mktemp("dead"), desktop_webhook="http://127.0.0.1:9/hook"
    )
    with running_daemon(settings, desktop.env) as d, launched(desktop, gtk3_form()) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        assert wait_until(lambda: "desktop webhook" in settings.log_path.read_text())
        log = settings.log_path.read_text()
        assert "http://127.0.0.1:9/…" in log and "/hook" not in log
        assert ref_of(snap(d, app.pid), "push button", "Greet")


def test_action_to_event_latency(watcher: Daemon, form: int) -> None:
    """Not asserted: prints how long after an action's request its event arrives."""
    d = watcher
    name = ref_of(snap(d, form), "text", "Name")
    since = mark(d)
    sent: dict[str, float] = {}
    for i in range(20):
        word = f"latency{i}"
        sent[word] = time.time()
        d.call("desktop.type", ref=name, text=word)
    events = watch(d, since=since, app=str(form), events="text.changed", duration="0s")[0]
    delays = []
    for event in events["events"]:
        word = event["detail"].rpartition(": ")[2].strip("'")
        if event["detail"].startswith("insert") and word in sent:
            delays.append((event["ts"] - sent.pop(word)) * 1000)
    assert delays
    print(
        f"\naction request -> its text.changed event: median {statistics.median(delays):.1f} ms "
        f"(min {min(delays):.1f}, max {max(delays):.1f}, n={len(delays)})"
    )
