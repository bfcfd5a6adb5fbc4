"""Sessions that survive: pool, isolation, checkpoints, restore, crash and hang recovery,
persistent profiles. Real Chromium, real SQLite, pages served on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from steadyhand import rpc_client
from steadyhand.engine.chromium import find_owned_browsers, owned_processes
from steadyhand.processes import process_alive
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings, wait_until

ACCOUNT = "account"


def start(tmp_path_factory: pytest.TempPathFactory, **settings: Any) -> Daemon:
    handle = Daemon(make_settings(tmp_path_factory.mktemp("state"), **settings))
    rpc_client.start_daemon(handle.settings)
    return handle


@pytest.fixture
def daemon_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Daemon]]:
    started: list[Daemon] = []

    def make(**settings: Any) -> Daemon:
        started.append(start(tmp_path_factory, **settings))
        return started[-1]

    yield make
    for handle in started:
        handle.stop()


def log_in(d: Daemon, session: str, site: str, name: str, **open_params: Any) -> None:
    d.call("open", session=session, url=f"{site}/{ACCOUNT}/login.html", **open_params)
    page = d.snapshot(session)
    d.call("type", session=session, ref=find_ref(page, "textbox", "Name"), text=name)
    done = d.call("click", session=session, ref=find_ref(page, "button", "Log in"))
    assert done["navigated"], done


def account(d: Daemon, session: str) -> str:
    return d.snapshot(session)


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


# ----------------------------------------------------------------------------- pool


def test_acquire_release_cycles_leak_no_process_fd_or_context(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory()
    d.call("open", session="warm", url=f"{site}/nav-a.html")
    d.call("close", session="warm")
    pid = d.pid()
    assert pid is not None
    fds, procs = open_fds(pid), len(owned_processes(d.settings.state_dir))
    for n in range(20):
        d.call("open", session=f"cycle{n}", url=f"{site}/nav-a.html")
        assert d.call("daemon.status")["contexts"] == 1
        d.call("close", session=f"cycle{n}")
    status = d.call("daemon.status")
    assert status["contexts"] == 0 and status["sessions"] == []
    # Renderer processes exit a moment after their context closes.
    assert wait_until(lambda: len(owned_processes(d.settings.state_dir)) <= procs, 10), (
        procs,
        owned_processes(d.settings.state_dir),
    )
    assert open_fds(pid) <= fds + 2, (fds, open_fds(pid))  # the log file may rotate in
    assert set(d.statuses().values()) == {"closed"}


def test_the_pool_cap_refuses_clearly_and_a_bounded_wait_gets_the_freed_slot(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory(max_sessions=4)
    for n in range(4):
        d.call("open", session=f"s{n}", url=f"{site}/nav-a.html")
    full = d.fail("open", session="s4", url=f"{site}/nav-a.html")
    assert full.code == "pool_exhausted" and "4 of 4" in full.message
    assert "max_sessions" in full.hint and "s0" in full.hint
    assert d.call("snapshot", session="s0")["snapshot"], "the live sessions are untouched"
    d.call("session.suspend", name="s0")
    d.call("open", session="s4", url=f"{site}/nav-b.html")
    assert d.call("daemon.status")["contexts"] == 4

    waiting = daemon_factory(max_sessions=1, pool_wait_ms=10_000)
    waiting.call("open", session="first", url=f"{site}/nav-a.html")
    got: list[Any] = []
    worker = threading.Thread(
        target=lambda: got.append(waiting.call("open", session="second", url=f"{site}/nav-b.html"))
    )
    worker.start()
    time.sleep(0.5)
    assert not got, "the second session waits for a slot"
    waiting.call("close", session="first")
    worker.join(20)
    assert got and got[0]["title"] == "Page B"


@pytest.mark.parametrize("parallel", [4, 16])
def test_parallel_sessions_are_isolated_and_each_action_lands_in_its_own(
    daemon_factory: Callable[..., Daemon], site: str, parallel: int
) -> None:
    d = daemon_factory(max_sessions=parallel)
    names = [f"agent{n}" for n in range(parallel)]

    def agent(name: str) -> tuple[str, str]:
        log_in(d, name, site, name)
        cookie = d.call("evaluate", session=name, expression="() => document.cookie")
        return account(d, name), cookie["value"]

    with ThreadPoolExecutor(parallel) as pool:
        seen = dict(zip(names, pool.map(agent, names), strict=True))
    for name, (page, cookie) in seen.items():
        assert f"Logged in as {name}" in page, page
        assert cookie == f"user={name}", "no other session's cookie"
    with sqlite3.connect(d.settings.store_path) as db:
        rows = db.execute("SELECT session, command FROM action_log ORDER BY id").fetchall()
    for name in names:
        mine = [command for session, command in rows if session == name]
        assert mine == ["open", "snapshot", "type", "click", "evaluate", "snapshot"], mine


# ----------------------------------------------------------------------------- checkpoints


def test_checkpoints_follow_navigation_and_suspend_then_restore_everything(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory()
    log_in(d, "shop", site, "Ada")
    d.call("tab.new", session="shop", url=f"{site}/nav-b.html")
    d.call("resize", session="shop", width=900, height=700)
    suspended = d.call("session.suspend", name="shop")
    assert suspended["tabs"] == [f"t1 {site}/{ACCOUNT}/home.html", f"t2 {site}/nav-b.html"]
    assert d.statuses()["shop"] == "suspended"
    restored = d.call("session.restore", name="shop")
    assert restored["restored"] == suspended["tabs"] and restored["lost"] == []
    tabs = d.call("tabs", session="shop")["tabs"]
    assert [(t["id"], t["current"]) for t in tabs] == [("t1", False), ("t2", True)]
    d.call("tab.focus", session="shop", tab="t1")
    page = account(d, "shop")
    assert "Logged in as Ada" in page and "theme: dark" in page and "draft: unsent note" in page
    size = d.call("evaluate", session="shop", expression="() => [innerWidth, innerHeight]")
    assert size["value"] == [900, 700]
    mode = os.stat(d.settings.store_path).st_mode & 0o777
    assert mode == 0o600, "checkpoints hold cookies: the database is private"


def test_a_killed_browser_is_relaunched_and_every_session_restored(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory()
    log_in(d, "one", site, "Ada")
    log_in(d, "two", site, "Bob")
    page = d.snapshot("two")
    d.call("evaluate", session="two", expression="() => localStorage.setItem('late', '1')")
    (browser,) = find_owned_browsers(d.settings.state_dir)
    killed = time.monotonic()
    os.killpg(browser.pgid, signal.SIGKILL)
    first = d.call("snapshot", session="one")
    recovery_s = time.monotonic() - killed
    print(f"\nkill -9 of Chromium to the next successful action: {recovery_s * 1000:.0f} ms")
    assert "Logged in as Ada" in first["snapshot"]
    assert first["recovered"]["restored"] == [f"t1 {site}/{ACCOUNT}/home.html"]
    second = d.call("snapshot", session="two")
    assert "Logged in as Bob" in second["snapshot"] and "draft: unsent note" in second["snapshot"]
    lost = second["recovered"]["lost"]
    assert len(lost) == 1 and "evaluate" in lost[0] and "after the checkpoint" in lost[0], lost
    stale = d.fail("click", session="two", ref=find_ref(page, "button", "Log out"))
    assert stale.code == "stale_ref", "refs from before the crash name nothing now"
    assert d.call("daemon.status")["recoveries"] == 2


def test_a_killed_daemon_leaves_no_chromium_and_its_sessions_restore_logged_in(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory()
    log_in(d, "keep", site, "Ada")
    tree = owned_processes(d.settings.state_dir)
    pid = d.pid()
    assert pid is not None and tree
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: not process_alive(pid))
    rpc_client.start_daemon(d.settings)
    assert wait_until(lambda: not (tree & owned_processes(d.settings.state_dir)), 10), "reaped"
    assert d.statuses()["keep"] == "suspended"
    restored = d.call("session.restore", name="keep")
    assert restored["lost"] == []
    page = account(d, "keep")
    assert "Logged in as Ada" in page and "theme: dark" in page and "draft: unsent note" in page


def test_restore_sessions_setting_brings_sessions_back_on_start(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory(restore_sessions="at_start")
    log_in(d, "auto", site, "Ada")
    d.stop()
    rpc_client.start_daemon(d.settings)
    assert wait_until(lambda: d.statuses().get("auto") == "active")
    assert "Logged in as Ada" in account(d, "auto")


# ----------------------------------------------------------------------------- profiles


def test_a_persistent_profile_keeps_a_login_across_a_daemon_restart(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory()
    created = d.call("profile.create", name="work")
    assert Path(created["path"]).stat().st_mode & 0o777 == 0o700
    log_in(d, "p1", site, "Ada", profile="work")
    busy = d.fail("open", session="p2", url=f"{site}/nav-a.html", profile="work")
    assert busy.code == "profile_in_use" and "p1" in busy.message
    assert d.call("profile.list")["profiles"][0]["in_use_by"] == "p1"
    d.stop()
    rpc_client.start_daemon(d.settings)
    d.call("open", session="p3", url=f"{site}/{ACCOUNT}/home.html", profile="work")
    page = account(d, "p3")
    assert "Logged in as Ada" in page and "theme: dark" in page

    out = d.settings.artifacts_dir / "work.json"  # in a file root
    exported = d.call("profile.export", name="work", out=str(out))
    assert exported["cookies"] == 1 and out.stat().st_mode & 0o777 == 0o600
    assert exported["sealed"] and json.loads(out.read_text())["steadyhand"] == "storage state"
    d.call("close", session="p3")
    imported = d.call("profile.import", name="copy", file=str(out))
    assert imported == {"name": "copy", "cookies": 1, "origins": 1}
    d.call("open", session="p4", url=f"{site}/{ACCOUNT}/home.html", profile="copy")
    page = account(d, "p4")
    assert "Logged in as Ada" in page and "theme: dark" in page
    refused = d.fail("profile.delete", name="copy")
    assert refused.code == "profile_in_use"
    d.call("close", session="p4")
    d.call("profile.delete", name="copy")
    assert [p["name"] for p in d.call("profile.list")["profiles"]] == ["work"]


# ----------------------------------------------------------------------------- health


def test_a_hung_page_is_detected_and_its_session_recovered(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory(health_interval_s=0.5, health_probe_ms=1000, health_failures=3)
    log_in(d, "stuck", site, "Ada")
    d.call("tab.new", session="stuck", url=f"{site}/{ACCOUNT}/hang.html")
    freeze = find_ref(d.snapshot("stuck"), "button", "Freeze")
    d.call("click", session="stuck", ref=freeze, changes=False)

    def recovered() -> bool:
        (me,) = [s for s in d.call("sessions")["sessions"] if s["name"] == "stuck"]
        return bool(me["health"] and me["health"]["recoveries"] == 1 and me["status"] == "active")

    assert wait_until(recovered, 30)
    back = d.call("snapshot", session="stuck", tab="t1")
    assert "Logged in as Ada" in back["snapshot"]
    assert "health probes failed 3 times" in back["recovered"]["reason"]
    assert "did not answer" in back["recovered"]["reason"]
    assert "click" in " ".join(back["recovered"]["lost"]), "the freezing click was after it"


def test_a_crashed_tab_is_noticed_at_once_and_its_session_recovered(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    # Probes are 30 s apart here: the renderer's crash event alone must start the recovery.
    d = daemon_factory()
    log_in(d, "tab-crash", site, "Ada")
    renderers = [
        pid
        for pid in owned_processes(d.settings.state_dir)
        if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    assert renderers, "the logged-in tab has a renderer process"
    for pid in renderers:
        os.kill(pid, signal.SIGKILL)

    def recovered() -> bool:
        (me,) = [s for s in d.call("sessions")["sessions"] if s["name"] == "tab-crash"]
        return bool(me["health"] and me["health"]["recoveries"] == 1 and me["status"] == "active")

    assert wait_until(recovered, 20)
    back = d.call("snapshot", session="tab-crash")
    assert "Logged in as Ada" in back["snapshot"]
    assert "tab t1 crashed" in back["recovered"]["reason"], back["recovered"]


def test_suspend_keeps_a_session_whose_state_cannot_be_saved(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory(health_interval_s=0)  # no breaker: the hung page stays hung
    d.call("open", session="frozen", url=f"{site}/{ACCOUNT}/hang.html")
    d.call("click", session="frozen", ref=find_ref(d.snapshot("frozen"), "button", "Freeze"))
    time.sleep(2.0)  # the loop starts 1.5 s after the click
    refused = d.fail("session.suspend", name="frozen")
    assert refused.code == "timeout" and "stays active" in refused.message, refused
    assert d.statuses()["frozen"] == "active", "not closed with its state unsaved"
