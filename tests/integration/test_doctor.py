"""`steadyhand doctor`: one command says whether this machine is ready; --fix repairs what
is safe to repair (permissions, a stale socket)."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Daemon

pytestmark = pytest.mark.integration
OWN_DAEMON = "doctor looks at the daemon as a whole"  # conftest.daemon


def doctor(env: dict[str, str], *flags: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "steadyhand", "doctor", "--json", *flags],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    report = json.loads(done.stdout)
    return done.returncode, {check["name"]: check for check in report["checks"]}


def test_a_ready_machine_is_reported_ready(daemon: Daemon) -> None:
    code, checks = doctor(daemon.env)
    assert code == 0, checks
    assert checks["chromium"]["status"] == "ok" and "Chromium" in checks["chromium"]["saw"]
    assert checks["launch"]["status"] == "ok" and "loaded a page" in checks["launch"]["saw"]
    assert checks["state dir"]["status"] == "ok"
    pid = daemon.call("daemon.status")["pid"]
    assert checks["daemon"]["status"] == "ok" and f"pid {pid}" in checks["daemon"]["saw"]
    assert checks["store"]["status"] == "ok" and "quick_check ok" in checks["store"]["saw"]


def test_loose_permissions_and_a_stale_socket_are_found_then_fixed(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    replies = state / "mcp-replies.json"
    replies.write_text("{}")
    replies.chmod(0o644)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(state / "daemon.sock"))
    stale.close()  # the file stays, nothing listens: a daemon that died
    env = dict(os.environ, STEADYHAND_STATE_DIR=str(state))

    code, checks = doctor(env, "--no-launch")
    assert code == 1 and "launch" not in checks
    assert checks["state dir"]["status"] == "fail"
    assert "mcp-replies.json (644)" in checks["state dir"]["saw"]
    assert checks["daemon"]["status"] == "warn" and "--fix" in checks["daemon"]["hint"]

    code, checks = doctor(env, "--no-launch", "--fix")
    assert code == 0, checks
    assert stat.S_IMODE(replies.stat().st_mode) == 0o600
    assert "mcp-replies.json" in checks["state dir"]["fixed"][0]
    assert not (state / "daemon.sock").exists() and checks["daemon"]["fixed"]

    code, checks = doctor(env, "--no-launch")
    assert code == 0 and checks["state dir"]["status"] == "ok" and not checks["daemon"]["fixed"]
