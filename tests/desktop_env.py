"""Helpers for tests on a private desktop: the fixture apps, and what the a11y bus shows.

The `desktop` and `desktop_daemon` fixtures are in conftest.py. The apps are in
tests/desktop_apps/: gtk3_form.py runs on Debian's Python (it has gi and Gtk 3),
qt6_form.py on ours (PySide6). A walk of the a11y tree runs in a child process in the
session's environment (atspi_probe.py), so this process never binds to a session's buses.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from steadyhand.desktop.gi_path import require
from steadyhand.desktop.session import DesktopSession, missing_programs
from steadyhand.errors import SteadyhandError

APPS = Path(__file__).parent / "desktop_apps"
DEBIAN_PYTHON = "/usr/bin/python3"


def skip_reason() -> str | None:
    """Why a desktop session cannot run here, or None."""
    missing = missing_programs()
    if missing:
        return (
            f"the desktop tests need {', '.join(missing)}: scripts/ensure-desktop installs "
            "them (as root)"
        )
    try:
        require("Atspi", "2.0")
    except SteadyhandError as exc:
        return f"{exc.message} ({exc.hint})"
    return None


def gtk3_form(*args: str) -> list[str]:
    """argv of the GTK 3 form (`--nodes N`, `--at X,Y`); skips without Debian's Gtk 3."""
    probe = [DEBIAN_PYTHON, "-c", "import gi; gi.require_version('Gtk', '3.0')"]
    if not os.access(DEBIAN_PYTHON, os.X_OK) or subprocess.run(probe, check=False).returncode:
        pytest.skip("the GTK 3 app needs python3-gi and gir1.2-gtk-3.0 (scripts/ensure-desktop)")
    return [DEBIAN_PYTHON, str(APPS / "gtk3_form.py"), *args]


def qt6_form(*args: str) -> list[str]:
    """argv of the Qt 6 form (`--nodes N`, `--at X,Y`); skips without PySide6."""
    if importlib.util.find_spec("PySide6") is None:
        pytest.skip("the Qt 6 app needs PySide6 (pip install -e '.[dev]')")
    return [sys.executable, str(APPS / "qt6_form.py"), *args]


@contextlib.contextmanager
def launched(session: DesktopSession, argv: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """An app on the session's desktop, stopped on the way out (the session lives on)."""
    app = session.launch(argv)
    try:
        yield app
    finally:
        app.terminate()
        app.wait(10)


def wait_on_bus(
    session: DesktopSession,
    pid: int,
    role: str,
    name: str,
    *,
    since: float | None = None,
    timeout_s: float = 30.0,
) -> dict[str, Any]:
    """Wait until process `pid` shows an element (role, name) on the a11y bus.

    Returns {"after_s": seconds since `since` (time.monotonic), "app": its name, "nodes":
    [[role, name, action names], ...]}; fails the test with the last tree seen otherwise.
    """
    argv = [sys.executable, str(APPS / "atspi_probe.py"), str(pid), role, name]
    argv += ["--since", str(time.monotonic() if since is None else since)]
    argv += ["--timeout", str(timeout_s)]
    done = subprocess.run(
        argv, env=session.env, capture_output=True, text=True, timeout=timeout_s + 30, check=False
    )
    assert done.returncode == 0, f"{role} {name!r} never showed: {done.stdout}{done.stderr}"
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def actions_by_element(found: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    """A probe's nodes as {(role, name): action names}."""
    return {(role, name): actions for role, name, actions in found["nodes"]}
