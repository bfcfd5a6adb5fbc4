"""Daemon lifecycle: auto-start, private files, one instance, no Chromium left behind."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import threading
import time
from pathlib import Path

import pytest

from steadyhand.engine.chromium import (
    find_chromium,
    find_owned_browsers,
    is_headless_shell,
    owned_processes,
)
from steadyhand.processes import process_alive
from steadyhand.snapshot.lookup import find_ref
from steadyhand.store.sqlite import Store
from tests.conftest import Daemon, run_cli, wait_until

pytestmark = pytest.mark.integration
OWN_DAEMON = "its tests stop, kill and restart the daemon"  # conftest.daemon

CHROMIUM_NAMES = {"chromium", "chrome", "chromium-browser", "chrome_crashpad_handler"}


def chromium_pids() -> set[int]:
    """Live (non-zombie) Chromium processes of any kind on the machine."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv0 = (entry / "cmdline").read_bytes().split(b"\0", 1)[0].decode()
        except OSError:
            continue
        if os.path.basename(argv0) in CHROMIUM_NAMES and process_alive(int(entry.name)):
            found.add(int(entry.name))
    return found


def test_first_call_starts_the_daemon_with_private_files(fresh_daemon: Daemon, site: str) -> None:
    d = fresh_daemon
    assert d.pid() is None
    run = d.cli("open", f"{site}/form.html")
    assert run.rc == 0, run.err
    pid = d.pid()
    assert pid is not None
    state = d.settings.state_dir
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_ISSOCK(d.settings.socket_path.stat().st_mode)
    assert stat.S_IMODE(d.settings.socket_path.stat().st_mode) == 0o600
    for private in (d.settings.store_path, d.settings.pid_path, d.settings.log_path):
        assert stat.S_IMODE(private.stat().st_mode) == 0o600, private
    status = d.cli("daemon", "status", "--json").json["result"]
    assert status["pid"] == pid and status["sessions"] == ["default"]
    again = d.cli("daemon", "start", "--json")
    assert again.json["result"]["pid"] == pid, "a running daemon is reused"


def test_concurrent_first_calls_share_one_daemon(fresh_daemon: Daemon) -> None:
    d = fresh_daemon
    results: list[int] = []

    def start() -> None:
        run = d.cli("daemon", "start", "--json")
        results.append(run.json["result"]["pid"])

    threads = [threading.Thread(target=start) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 3 and len(set(results)) == 1
    assert d.pid() == results[0]
    # A daemon spawned by a losing caller must not take over once the winner stops.
    d.stop()
    time.sleep(2.0)
    left = [
        pid
        for pid in os.listdir("/proc")
        if pid.isdigit() and _cwd(pid) == str(d.settings.state_dir)
    ]
    assert left == [] and d.pid() is None, left


def _cwd(pid: str) -> str:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""


def test_sigterm_closes_every_browser(fresh_daemon: Daemon, site: str) -> None:
    d = fresh_daemon
    assert d.cli("open", f"{site}/nav-a.html").rc == 0
    assert d.cli("tab", "new", f"{site}/form.html").rc == 0
    ours = owned_processes(d.settings.state_dir)
    assert ours, "the daemon runs a Chromium"
    pid = d.pid()
    assert pid is not None
    os.kill(pid, signal.SIGTERM)
    assert wait_until(lambda: not process_alive(pid)), "daemon exits on SIGTERM"
    assert wait_until(lambda: not (ours & chromium_pids()), 10), "no Chromium left behind"
    assert not d.settings.socket_path.exists() and not d.settings.pid_path.exists()
    with sqlite3.connect(d.settings.store_path) as db:
        # Checkpointed and suspended: `session restore default` brings it back.
        assert db.execute("SELECT status FROM sessions").fetchall() == [("suspended",)]
    assert d.cli("daemon", "status").rc == 6


def test_next_start_reaps_chromium_left_by_a_killed_daemon(fresh_daemon: Daemon, site: str) -> None:
    d = fresh_daemon
    assert d.cli("open", f"{site}/nav-a.html").rc == 0
    ours = owned_processes(d.settings.state_dir)
    (browser,) = find_owned_browsers(d.settings.state_dir)
    # A hung browser does not exit when its pipe to the driver closes; SIGSTOP makes
    # it one, so the daemon's death really leaves an orphan behind.
    os.kill(browser.pid, signal.SIGSTOP)
    pid = d.pid()
    assert pid is not None
    os.killpg(os.getpgid(pid), signal.SIGKILL)  # the daemon and its Playwright driver
    assert wait_until(lambda: not process_alive(pid))
    time.sleep(1.0)
    assert process_alive(browser.pid), "precondition: the killed daemon left its Chromium behind"

    assert d.cli("daemon", "start").rc == 0
    assert wait_until(lambda: not (ours & chromium_pids()), 10), "the new daemon reaped it"
    assert session_status(d, "default") == "suspended", "listed, and restorable"
    assert find_owned_browsers(d.settings.state_dir) == []
    assert "reaped 1 Chromium process group" in d.settings.log_path.read_text()
    restored = d.cli("session", "restore", "default", "--json").json["result"]
    assert restored["restored"] == [f"t1 {site}/nav-a.html"]
    reopened = d.cli("open", f"{site}/nav-b.html", "--json")
    assert reopened.json["result"]["title"] == "Page B"


def test_daemon_stop_closes_browser_and_exits(fresh_daemon: Daemon, site: str) -> None:
    d = fresh_daemon
    assert d.cli("open", f"{site}/nav-a.html").rc == 0
    ours = owned_processes(d.settings.state_dir)
    pid = d.pid()
    stopped = d.cli("daemon", "stop")
    assert stopped.rc == 0 and stopped.out == "stopping: true\n"
    assert pid is not None and not process_alive(pid), (
        "`daemon stop` returns once the daemon is gone"
    )
    assert wait_until(lambda: not (ours & chromium_pids()), 10)
    not_running = d.cli("daemon", "status")
    assert not_running.rc == 6 and "daemon_unavailable" in not_running.err


def test_headed_needs_a_display_and_is_reported(fresh_daemon: Daemon, site: str) -> None:
    d = fresh_daemon
    env = {k: v for k, v in d.env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    started = d.cli("daemon", "start", "--headed", "--json", env=env)
    assert started.rc == 0, started.err
    assert started.json["result"]["headless"] is False
    no_display = d.cli("open", f"{site}/nav-a.html", "--json")
    assert no_display.rc == 2 and "needs a display" in no_display.json["error"]["message"]
    assert d.cli("daemon", "status").rc == 0, "the daemon lives on"
    other_way = d.cli("daemon", "start")
    assert other_way.rc == 2 and "already running headed" in other_way.err


def test_headed_browser_on_a_virtual_display(
    fresh_daemon: Daemon, site: str, virtual_display: str
) -> None:
    env = dict(fresh_daemon.env, DISPLAY=virtual_display)
    try:
        started = fresh_daemon.cli("daemon", "start", "--headed", env=env)
        assert started.rc == 0, started.err
        opened = fresh_daemon.cli("open", f"{site}/nav-a.html", "--json")
        assert opened.rc == 0, opened.out
        (browser,) = find_owned_browsers(fresh_daemon.settings.state_dir)
        cmdline = Path(f"/proc/{browser.pid}/cmdline").read_bytes().split(b"\0")
        assert b"--headless" not in cmdline and not any(
            a.startswith(b"--headless=") for a in cmdline
        )
        # A window needs the full browser, never the headless shell headless sessions use.
        assert not is_headless_shell(Path(os.readlink(f"/proc/{browser.pid}/exe")))
        status = fresh_daemon.cli("daemon", "status", "--json").json["result"]
        assert status["chromium"].split()[0] == str(find_chromium(headless=False)), status
        shot_run = fresh_daemon.cli("screenshot", "--json")
        assert shot_run.rc == 0, shot_run.out
        shot = shot_run.json["result"]
        assert Path(shot["path"]).stat().st_size > 1000
    finally:
        fresh_daemon.stop()


def session_status(daemon: Daemon, name: str) -> str:
    with sqlite3.connect(daemon.settings.store_path) as db:
        row = db.execute("SELECT status FROM sessions WHERE name = ?", (name,)).fetchone()
    return str(row[0])


def test_a_crashed_browser_is_replaced_and_the_session_restored(daemon: Daemon, site: str) -> None:
    assert daemon.call("open", session="doomed", url=f"{site}/nav-a.html")["title"] == "Page A"
    assert session_status(daemon, "doomed") == "active"
    (browser,) = find_owned_browsers(daemon.settings.state_dir)
    os.killpg(browser.pgid, signal.SIGKILL)
    assert wait_until(lambda: not process_alive(browser.pid))

    back = daemon.call("snapshot", session="doomed")
    assert "Page A" in back["snapshot"]
    recovered = back["recovered"]
    assert recovered["restored"] == [f"t1 {site}/nav-a.html"] and recovered["lost"] == []
    assert "browser exited" in recovered["reason"]
    assert "recovered" not in daemon.call("snapshot", session="doomed"), "reported once"
    # The text output says it too: under a result, and under a failed command's error
    # (a click on a ref from before the crash: the crash is what fails it).
    said = None
    for step in ("snapshot", "click"):
        (browser,) = find_owned_browsers(daemon.settings.state_dir)
        os.killpg(browser.pgid, signal.SIGKILL)
        assert wait_until(lambda: not process_alive(browser.pid))  # noqa: B023
        argv = ["click", find_ref(said.out, "button", "Count")] if said else ["snapshot"]
        said = daemon.cli(*argv, "--session", "doomed")
        assert (said.rc == 0) == (step == "snapshot"), said
        text = said.out if said.rc == 0 else said.err
        assert "recovered (the browser exited unexpectedly) from the checkpoint of" in text, said
        assert f": t1 {site}/nav-a.html" in text, said
    assert daemon.call("daemon.status")["browser_running"] is True
    assert session_status(daemon, "doomed") == "active"
    store = Store(daemon.settings.store_path)
    outcomes = [(r.command, r.error_code) for r in store.actions("doomed")]
    store.close()
    assert outcomes == [
        ("open", None),
        ("snapshot", None),
        ("snapshot", None),
        ("snapshot", None),
        ("click", "stale_ref"),
    ]


def state_env(state_dir: Path) -> dict[str, str]:
    return dict(os.environ, STEADYHAND_STATE_DIR=str(state_dir))


def test_a_state_dir_too_deep_for_a_socket_is_a_clear_error(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    done = run_cli("daemon", "status", "--json", env=state_env(deep))
    error = done.json["error"]
    assert done.rc == 2 and error["code"] == "bad_request"
    assert "STEADYHAND_STATE_DIR" in error["hint"]


def test_a_stale_pid_file_does_not_block_a_start(fresh_daemon: Daemon) -> None:
    d = fresh_daemon
    d.settings.pid_path.write_text("1\n")  # a live pid that is not our daemon
    assert d.pid() is None, "no daemon holds the lock, whatever the pid file says"
    started = d.cli("daemon", "start", "--json")
    assert started.rc == 0, started.err
    assert started.json["result"]["pid"] == d.pid() != 1
    stopped = d.cli("daemon", "stop")
    assert stopped.rc == 0
    again = d.cli("daemon", "stop", "--json")
    assert again.rc == 0 and again.json["result"]["stopping"] is False, "stop is idempotent"


def test_a_state_dir_open_to_others_is_refused_and_left_alone(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    done = run_cli("daemon", "start", "--json", env=state_env(shared))
    assert done.rc == 2 and "open to other users" in done.json["error"]["message"]
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777, "the mode was not changed"
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    done = run_cli("daemon", "start", "--json", env=state_env(not_a_dir))
    assert done.rc == 2 and "not a directory" in done.json["error"]["message"]


def test_secrets_typed_from_stdin_stay_out_of_argv_and_the_log(daemon: Daemon, site: str) -> None:
    assert daemon.cli("open", f"{site}/form.html", "--session", "stdin").rc == 0
    page = daemon.cli("snapshot", "--session", "stdin", "--json").json["result"]["snapshot"]
    pw = find_ref(page, "textbox", "Password")
    done = daemon.cli("type", pw, "--stdin", "--session", "stdin", stdin="from-stdin-secret\n")
    assert done.rc == 0, done.err
    daemon.cli("click", find_ref(page, "button", "Place order"), "--session", "stdin")
    assert "pwlen=17" in daemon.cli("snapshot", "--session", "stdin").out
    store = Store(daemon.settings.store_path)
    typed = [r.params for r in store.actions("stdin") if r.command == "type"]
    store.close()
    assert typed == [{"ref": pw, "text": "[redacted]"}]


def test_killing_only_the_daemon_leaves_no_chromium(fresh_daemon: Daemon, site: str) -> None:
    d = fresh_daemon
    assert d.cli("open", f"{site}/nav-a.html").rc == 0
    ours = owned_processes(d.settings.state_dir)
    pid = d.pid()
    assert pid is not None and ours
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: not process_alive(pid))
    # Its driver sees the pipe close and takes Chromium down; a start reaps any straggler.
    assert d.cli("daemon", "start").rc == 0
    assert wait_until(lambda: not (ours & chromium_pids()), 10)
    reopened = d.cli("open", f"{site}/nav-b.html", "--json")
    assert reopened.rc == 0, reopened.err
    restored = reopened.json["result"]["restored"]
    assert restored["tabs"] == [f"t1 {site}/nav-a.html"], "nothing is lost"
