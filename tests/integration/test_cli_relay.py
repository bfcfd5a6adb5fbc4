"""The CLI's fast path against a daemon: a relayed call prints what the reference CLI
(`python -m steadyhand.fronts.cli.main`) prints, byte for byte, with the same exit code."""

from __future__ import annotations

import io
import json
import os
import posix
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from steadyhand.fronts.cli import relay as cli_relay
from steadyhand.processes import process_alive
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import CliRun, Daemon, run_cli

pytestmark = pytest.mark.integration
REFERENCE = [sys.executable, "-m", "steadyhand.fronts.cli.main"]
TABS = '{"command": "tabs"}'
CLICK_NOWHERE = '{"command": "click", "params": {"ref": "e99999"}}'


@pytest.fixture(scope="module")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `steadyhand` command as `make` installs it (python -S, the relay)."""
    path = tmp_path_factory.mktemp("bin") / "steadyhand"
    assert cli_relay.write_launcher(str(path))
    return path


@pytest.fixture(scope="module")
def page(daemon: Daemon, site: str) -> Iterator[str]:
    """A session `relay` on the form fixture; the snapshot's text."""
    daemon.call("open", session="relay", url=f"{site}/form.html")
    yield daemon.snapshot("relay")


def both(
    daemon: Daemon, launcher: Path, argv: list[str], cwd: Path, stdin: str | None, **env: str
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    environ = dict(daemon.env, **env)
    runs = [
        subprocess.run(
            [*command, *argv],
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=environ,
            cwd=cwd,
            timeout=120,
            check=False,
        )
        for command in (REFERENCE, [str(launcher)])
    ]
    return runs[0], runs[1]


def steady(text: str) -> str:
    """Output with what differs from one run of a command to the next (its time, the
    time in an artifact's name) masked."""
    text = re.sub(r"\d{8}-\d{6}-\d{6}", "<when>", text)
    return re.sub(r'"duration_ms": [\d.]+', '"duration_ms": <ms>', text)


def same(
    daemon: Daemon, launcher: Path, argv: list[str], cwd: Path, stdin: str | None = None, **env: str
) -> int:
    reference, relayed = both(daemon, launcher, argv, cwd, stdin, **env)
    assert (relayed.returncode, steady(relayed.stdout), steady(relayed.stderr)) == (
        reference.returncode,
        steady(reference.stdout),
        steady(reference.stderr),
    ), argv
    return reference.returncode


@pytest.mark.parametrize(
    "argv",
    [
        ["snapshot", "--session", "relay"],
        ["snapshot", "--session", "relay", "--json"],
        ["--session", "relay", "snapshot", "-i"],
        ["tabs", "--session", "relay"],
        ["find", "--role", "checkbox", "--session", "relay"],
        ["click", "e99999", "--session", "relay"],  # not_found: exit 3
        ["click", "e99999", "--session", "relay", "--json"],
        ["snapshot", "--session", "ghost"],  # unknown_session: exit 2
        ["snapshot", "--session", "relay", "--timeout", "0"],  # refused before the call
        ["fill", "e1", "--session", "relay"],  # not REF=VALUE
        ["clack"],  # argparse's invalid choice, with the usage as hint
        ["click", "--json"],  # a missing argument
        ["snapshot", "--bogus"],
        [],  # no command
        ["snapshot", "--help"],  # help, printed by the daemon as the reference prints it
        ["--help"],
        ["daemon", "stop", "--help"],
        ["batch", "--help"],
        # A batch: a line a step, the failed step's exit code (3); its steps as JSON or as
        # command lines.
        ["batch", f"[{TABS}, {CLICK_NOWHERE}]", "--session", "relay"],
        ["batch", f"[{CLICK_NOWHERE}]", "--json"],
        ["batch", "tabs\nfind --role checkbox", "--session", "relay"],
        ["batch", '[{"command": "clik"}]', "--session", "relay"],
    ],
)
def test_relayed_calls_print_what_the_reference_prints(
    daemon: Daemon, launcher: Path, page: str, argv: list[str], tmp_path: Path
) -> None:
    same(daemon, launcher, argv, tmp_path)


def test_the_callers_settings_and_terminal_are_honoured(
    daemon: Daemon, launcher: Path, page: str, tmp_path: Path
) -> None:
    assert same(daemon, launcher, ["tabs"], tmp_path, STEADYHAND_DIALOGS="bogus") == 2
    config = tmp_path / "steadyhand" / "config.toml"
    config.parent.mkdir()
    config.write_text("timeout_long_ms = [\n")  # not TOML
    assert same(daemon, launcher, ["tabs"], tmp_path, XDG_CONFIG_HOME=str(tmp_path)) == 2
    config.write_text("timeout_long_ms = 'soon'\n")
    assert (
        same(daemon, launcher, ["tabs"], tmp_path, STEADYHAND_CONFIG="steadyhand/config.toml") == 2
    )
    # Usage and help are wrapped to the caller's terminal; times shown in its time zone
    # (test_desktop_events has event lines, which show them).
    assert same(daemon, launcher, ["clack"], tmp_path, COLUMNS="40") == 2
    assert same(daemon, launcher, ["--help"], tmp_path, COLUMNS="50") == 0
    assert same(daemon, launcher, ["type", "--help"], tmp_path, COLUMNS="200") == 0
    assert same(daemon, launcher, ["tabs", "--session", "relay"], tmp_path, TZ="Asia/Tokyo") == 0


def test_file_paths_are_the_callers(
    daemon: Daemon, launcher: Path, page: str, tmp_path: Path
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    for cwd in (first, second):
        run = subprocess.run(
            [str(launcher), "screenshot", "--path", "shot.png", "--session", "relay"],
            capture_output=True,
            text=True,
            env=daemon.env,
            cwd=cwd,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        assert (cwd / "shot.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "steps",
    [
        "tabs\n# a comment\nfind --role checkbox\n",
        f"[{TABS}, {CLICK_NOWHERE}]",
        "click e99999\ntabs\n",  # the failed step's exit code
        "clik e3\n",  # an unknown command, with the close match
        "",  # no steps at all
    ],
)
def test_a_batch_on_standard_input_is_relayed_as_the_reference_reads_it(
    daemon: Daemon, launcher: Path, page: str, steps: str, tmp_path: Path
) -> None:
    same(daemon, launcher, ["batch", "--session", "relay"], tmp_path, stdin=steps)
    same(daemon, launcher, ["batch", "-", "--session", "relay", "--json"], tmp_path, stdin=steps)


def test_calls_are_relayed_not_fallen_back(
    daemon: Daemon,
    page: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """relay() answers them itself (a Fallback would mean the reference ran them)."""
    monkeypatch.setenv("STEADYHAND_STATE_DIR", str(daemon.settings.state_dir))
    monkeypatch.chdir(tmp_path)
    ref = find_ref(page, "checkbox", "Gift wrap")
    assert cli_relay.relay(["check", ref, "--session", "relay"]) == 0
    assert capsys.readouterr().out.startswith(f"ok check {ref}")
    assert cli_relay.relay(["click", "e99999", "--session", "relay"]) == 3
    assert "error [not_found]" in capsys.readouterr().err
    steps = '[{"command": "click", "params": {"ref": "e99999"}}]'
    assert cli_relay.relay(["batch", steps, "--session", "relay"]) == 3
    assert capsys.readouterr().out.startswith("1 failed click: [not_found]")
    # Help, a batch's command lines or its steps on standard input, no command at all.
    assert cli_relay.relay(["snapshot", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: steadyhand snapshot")
    assert cli_relay.relay(["batch", "tabs", "--session", "relay"]) == 0
    assert capsys.readouterr().out.startswith("1 ok tabs")
    monkeypatch.setattr(sys, "stdin", io.StringIO("tabs\n"))
    assert cli_relay.relay(["batch", "--session", "relay"]) == 0
    assert capsys.readouterr().out.startswith("1 ok tabs")
    assert cli_relay.relay([]) == 2
    assert "no command given" in capsys.readouterr().err
    # The fronts are programs of their own.
    with pytest.raises(cli_relay.Fallback):
        cli_relay.relay(["mcp"])


def test_stdin_goes_with_the_relayed_call_in_any_time_zone(
    daemon: Daemon,
    page: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--stdin's text (a secret, kept out of argv) is read by the launcher and answered by
    the daemon, whatever the caller's time zone. (A call the daemon hands back after the
    launcher read the text: test_cli_relay's unit test with a daemon without cli.run.)"""
    monkeypatch.setenv("STEADYHAND_STATE_DIR", str(daemon.settings.state_dir))
    monkeypatch.chdir(tmp_path)
    ref = find_ref(page, "textbox", "Name")
    monkeypatch.setattr(sys, "stdin", io.StringIO("Ada Relayed\n"))
    assert cli_relay.relay(["type", ref, "--stdin", "--session", "relay"]) == 0
    assert capsys.readouterr().out.startswith(f"ok type {ref}")
    shown = daemon.call("evaluate", session="relay", expression="document.activeElement.value")
    assert shown["value"] == "Ada Relayed"

    # Another time zone than the daemon's: still relayed (times are printed in the
    # caller's zone); the text is read once.
    monkeypatch.setattr(sys, "stdin", io.StringIO("Ada Again\n"))
    monkeypatch.setattr(posix, "environ", {**posix.environ, b"TZ": b"UTC+5"})
    assert cli_relay.relay(["type", ref, "--stdin", "--session", "relay"]) == 0
    assert sys.stdin.read() == ""
    shown = daemon.call("evaluate", session="relay", expression="document.activeElement.value")
    assert "Ada Again" in shown["value"]


def test_without_a_daemon_the_reference_starts_one(
    fresh_daemon: Daemon, launcher: Path, tmp_path: Path
) -> None:
    """No daemon: the reference starts one, as it always has; --stdin is the reference's."""
    opened = subprocess.run(
        [str(launcher), "sessions", "--json"],
        capture_output=True,
        text=True,
        env=fresh_daemon.env,
        cwd=tmp_path,
        check=False,
    )
    assert opened.returncode == 0, opened.stderr
    assert fresh_daemon.pid() is not None
    typed = subprocess.run(
        [str(launcher), "type", "e1", "--stdin", "--session", "none"],
        input="secret\n",
        capture_output=True,
        text=True,
        env=dict(os.environ, **fresh_daemon.env),
        cwd=tmp_path,
        check=False,
    )
    assert typed.returncode == 2 and "error [unknown_session]" in typed.stderr

    # A daemon runs: `daemon start` and `daemon stop` are the daemon's to answer; stop
    # returns once the daemon's process has exited.
    pid = fresh_daemon.pid()
    assert pid is not None
    started = run_launcher(launcher, ["daemon", "start", "--json"], fresh_daemon, tmp_path)
    assert started.rc == 0 and json.loads(started.out)["result"]["pid"] == pid
    headed = run_launcher(launcher, ["daemon", "start", "--headed"], fresh_daemon, tmp_path)
    assert headed.rc == 2, headed
    assert f"the daemon (pid {pid}) is already running headless" in headed.err
    stopped = run_launcher(launcher, ["daemon", "stop"], fresh_daemon, tmp_path)
    assert stopped.rc == 0, stopped.err
    assert not process_alive(pid), "the launcher returned before the daemon exited"
    again = run_launcher(launcher, ["daemon", "stop"], fresh_daemon, tmp_path)
    assert again.rc == 0 and "no daemon was running" in again.out


def run_launcher(launcher: Path, argv: list[str], daemon: Daemon, cwd: Path) -> CliRun:
    return run_cli(*argv, env=daemon.env, cwd=cwd, program=[str(launcher)])


# Paragraphs enough for a snapshot far longer than a pipe holds (64 KiB): the CLI is
# still writing when its reader has gone.
LONG_PAGE = (
    "() => { for (let i = 0; i < 6000; i++) {"
    " const p = document.createElement('p'); p.textContent = 'paragraph ' + i;"
    " document.body.append(p); } }"
)


@pytest.fixture(scope="module")
def long_page(daemon: Daemon, site: str) -> str:
    """A session `pipe` on a page whose snapshot is some 100 KiB."""
    daemon.call("open", session="pipe", url=f"{site}/form.html")
    daemon.call("evaluate", session="pipe", expression=LONG_PAGE)
    return "pipe"


def first_line_then_close(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run `argv` as `... | head -1` does: read one line of its stdout, close the pipe.
    Its exit code and stderr."""
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline()
        process.stdout.close()
        stderr = process.stderr.read().decode()
        return process.wait(timeout=120), stderr


@pytest.mark.parametrize("relayed", [True, False], ids=["relayed", "reference"])
def test_a_reader_closing_early_ends_the_call_quietly(
    daemon: Daemon, launcher: Path, long_page: str, relayed: bool, tmp_path: Path
) -> None:
    """`steadyhand ... | head -1`: no BrokenPipeError traceback; a relayed call exits 141
    as a program SIGPIPE ends (git, cat) does. The reference prints with print(), whose
    write, cut short by the reader, may end without an error (exit 0, as it was). (The
    launcher leaves a call to the reference when the state dir is named in TOML.)"""
    env = daemon.env
    if not relayed:
        config = tmp_path / "config" / "steadyhand" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(f"state_dir = {str(daemon.settings.state_dir)!r}\n")
        del env["STEADYHAND_STATE_DIR"]
        env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    argv = [str(launcher), "snapshot", "--max-chars", "10000000", "--session", long_page]
    code, stderr = first_line_then_close(argv, env, tmp_path)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert stderr == ""
    assert code == cli_relay.CLOSED_PIPE_EXIT if relayed else code in (0, 141)
