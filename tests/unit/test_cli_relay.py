"""The CLI's fast path, client side: what it imports, and that each thing it does as the
reference CLI does (state dir, config file, request, progress line, lost reply)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import steadyhand
from steadyhand.config import Settings, default_config_file
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.cli import errors as cli_errors
from steadyhand.fronts.cli import main as cli
from steadyhand.fronts.cli import relay as cli_relay

SRC = str(Path(steadyhand.__file__).resolve().parent.parent)
IMPORT_PROBE = f"""
import sys
before = set(sys.modules)
sys.path.insert(0, {SRC!r})
import steadyhand.fronts.cli.relay
print(" ".join(sorted(set(sys.modules) - before)))
"""


def test_the_relay_imports_builtin_modules_only() -> None:
    done = subprocess.run(
        [sys.executable, "-S", "-c", IMPORT_PROBE], capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    ours = {
        "steadyhand",
        "steadyhand.fronts",
        "steadyhand.fronts.cli",
        "steadyhand.fronts.cli.relay",
        "steadyhand.fronts.cli.progress",  # the progress line, one class for both CLIs
        "steadyhand.processes",  # waiting for the daemon `daemon stop` stopped
    }
    assert loaded - ours <= {"_json", "_socket", "__future__", "time"}, loaded


def test_fronts_are_the_reference_clis() -> None:
    reference = {name: module for name, (module, _) in cli.FRONTS.items()}
    assert reference == cli_relay.FRONTS


def environment(monkeypatch: pytest.MonkeyPatch, **values: str | None) -> dict[str, str]:
    for name in ("STEADYHAND_STATE_DIR", "STEADYHAND_CONFIG", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    return dict(os.environ)


@pytest.mark.parametrize(
    "values",
    [
        {"STEADYHAND_STATE_DIR": "/srv/sh"},
        {"STEADYHAND_STATE_DIR": "rel/state"},
        {"STEADYHAND_STATE_DIR": "~/sh"},
        {"STEADYHAND_STATE_DIR": "", "XDG_STATE_HOME": "/var/state"},
        {"XDG_RUNTIME_DIR": "RUNTIME"},  # an existing runtime dir
        {"XDG_RUNTIME_DIR": "/nonexistent/run", "XDG_STATE_HOME": ""},
    ],
)
def test_the_state_dir_is_the_settings(
    values: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run").mkdir()
    values = {k: str(tmp_path / "run") if v == "RUNTIME" else v for k, v in values.items()}
    env = environment(monkeypatch, HOME=str(tmp_path / "home"), **values)
    expected = Settings.load(config_file=tmp_path / "none.toml").state_dir
    assert Path(cli_relay.state_dir_of(env, str(tmp_path))) == expected


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"XDG_CONFIG_HOME": "/etc/xdg"},
        {"STEADYHAND_CONFIG": "here.toml"},
        {"STEADYHAND_CONFIG": "/abs/there.toml"},
    ],
)
def test_the_config_file_is_the_settings(
    values: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    env = environment(monkeypatch, HOME="/home/someone", **values)
    expected = Path(os.environ.get("STEADYHAND_CONFIG") or default_config_file()).absolute()
    assert cli_relay.config_file_of(env, str(tmp_path)) == str(expected)


def test_a_config_file_naming_the_state_dir_sends_the_call_to_the_reference(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("timeout_long_ms = 60000\n")
    assert not cli_relay.names_state_dir(str(config))
    config.write_text('state_dir = "/srv/sh"\n')
    assert cli_relay.names_state_dir(str(config))
    assert not cli_relay.names_state_dir(str(tmp_path / "missing.toml"))
    assert not cli_relay.names_state_dir(str(tmp_path))  # a directory is no file


def test_the_request_is_json_rpc() -> None:
    line = cli_relay.encode_request(
        ["fill", 'e5=a "quoted" café'],
        "/work",
        {"STEADYHAND_TIMEOUT_LONG_MS": "60000"},
        "/cfg/steadyhand/config.toml",
        "/run/steadyhand",
        width=120,
        tty=True,
    )
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "cli.run",
        "progress": True,
        "params": {
            "argv": ["fill", 'e5=a "quoted" café'],
            "cwd": "/work",
            "env": {"STEADYHAND_TIMEOUT_LONG_MS": "60000"},
            "config": "/cfg/steadyhand/config.toml",
            "state_dir": "/run/steadyhand",
            "columns": 120,
            "tty": True,
        },
    }


def test_without_a_terminal_the_request_asks_for_notices_only() -> None:
    line = cli_relay.encode_request(["click", "e1"], "/w", {}, "/c", "/s", width=80, tty=False)
    message = json.loads(line)
    assert message["notices"] is True and "progress" not in message
    assert message["params"]["tty"] is False


def test_replies_decode_as_json_does() -> None:
    line = json.dumps({"id": 1, "result": {"stdout": "é\n", "n": [1, 2.5, None, True]}})
    assert cli_relay.decode(line.encode()) == json.loads(line)
    with pytest.raises(ValueError):
        cli_relay.decode(b"not json")
    with pytest.raises(ValueError):
        cli_relay.decode(b"[1]")


@pytest.mark.parametrize("as_json", [False, True])
def test_a_lost_reply_is_reported_as_the_reference_does(
    as_json: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    message = "the daemon did not answer snapshot: timed out"
    error = SteadyhandError(
        ErrorCode.DAEMON_UNAVAILABLE,
        message,
        "see daemon.log in the state dir; `steadyhand daemon status`",
        {"sent": True},
    )
    code = cli_errors.report_error(error, as_json)
    theirs = capsys.readouterr()
    assert cli_relay.show(cli_relay.no_answer(message, as_json)) == code == 6
    assert capsys.readouterr() == theirs


@pytest.mark.parametrize(
    ("argv", "to_reference"),
    [
        (["daemon", "start"], True),
        (["--json", "daemon", "stop"], True),
        (["click", "e3"], False),  # it may have run: never sent twice
        (["daemon", "status"], False),
    ],
)
def test_a_daemon_dying_as_it_is_asked_leaves_start_and_stop_to_the_reference(
    argv: list[str], to_reference: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    ours, theirs = socket.socketpair()
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    theirs.close()  # a reset, as a listener closing under a queued connection gives
    try:
        if to_reference:
            with pytest.raises(cli_relay.Fallback):
                cli_relay.answer(ours, b"{}\n", False, False, cli_relay.lifecycle(argv))
        else:
            output = cli_relay.answer(ours, b"{}\n", False, False, cli_relay.lifecycle(argv))
            assert cli_relay.show(output) == 6
            assert "daemon_unavailable" in capsys.readouterr().err
    finally:
        ours.close()


def test_the_launcher_runs_the_relay_without_site(tmp_path: Path) -> None:
    launcher = tmp_path / "steadyhand"
    assert cli_relay.write_launcher(str(launcher))
    first = launcher.read_text().splitlines()[0]
    assert first == f"#!{sys.executable} -S"
    env = dict(os.environ, STEADYHAND_STATE_DIR=str(tmp_path / "state"))
    relayed = subprocess.run(
        [str(launcher), "daemon", "status"], capture_output=True, text=True, env=env, check=False
    )
    reference = subprocess.run(
        [sys.executable, "-m", "steadyhand.fronts.cli.main", "daemon", "status"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert relayed.returncode == reference.returncode == 6  # no daemon: the reference runs
    assert (relayed.stdout, relayed.stderr) == (reference.stdout, reference.stderr)
    helped = subprocess.run(
        [str(launcher), "mcp", "--help"], capture_output=True, text=True, check=False
    )
    assert helped.returncode == 0 and "usage: steadyhand mcp" in helped.stdout


def test_a_call_handed_back_finds_standard_input_as_the_launcher_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A daemon without `cli.run` (an older one) hands the call back after the launcher
    has read --stdin's text: the reference must find that text on standard input."""
    import io
    import posix
    import socket
    import threading

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "daemon.sock"))
    server.listen()
    asked: list[bytes] = []

    def answer_once() -> None:
        connection, _ = server.accept()
        with connection, connection.makefile("rb") as lines:
            asked.append(lines.readline())
            connection.sendall(
                b'{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}\n'
            )

    thread = threading.Thread(target=answer_once)
    thread.start()
    environ = {**posix.environ, b"STEADYHAND_STATE_DIR": str(tmp_path).encode()}
    monkeypatch.setattr(posix, "environ", environ)
    monkeypatch.setattr(sys, "stdin", io.StringIO("secret\n"))
    try:
        with pytest.raises(cli_relay.Fallback):
            cli_relay.relay(["type", "e1", "--stdin"])
    finally:
        thread.join(10)
        server.close()
    assert json.loads(asked[0])["params"]["stdin"] == "secret\n"
    assert sys.stdin.read() == "secret\n"
