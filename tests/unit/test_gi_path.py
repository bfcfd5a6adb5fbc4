"""ensure_gi: Debian's PyGObject from steadyhand's Python, or a clear error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from steadyhand.desktop.gi_path import DEBIAN_DIST_PACKAGES

# Each check runs in a fresh interpreter: ensure_gi changes sys.path for good.
PROGRAM = """
import importlib.util, json, sys
had = importlib.util.find_spec("gi") is not None
from steadyhand.desktop.gi_path import ensure_gi
from steadyhand.errors import SteadyhandError
try:
    ensure_gi(*sys.argv[1:])
    import gi
    print(json.dumps({"had": had, "ok": True, "path": sys.path, "gi": gi.__file__}))
except SteadyhandError as exc:
    print(json.dumps({"had": had, "ok": False, "code": exc.code, "hint": exc.hint}))
"""


def run(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *args], capture_output=True, text=True, check=True
    )
    answer: dict[str, object] = json.loads(done.stdout)
    if answer["had"]:
        pytest.skip("this Python has a gi of its own")
    return answer


def test_gi_comes_from_debian_appended_last() -> None:
    if not os.path.isdir(os.path.join(DEBIAN_DIST_PACKAGES, "gi")):
        pytest.skip("python3-gi is not installed (scripts/ensure-desktop)")
    answer = run()
    assert answer["ok"] is True
    assert answer["path"][-1] == DEBIAN_DIST_PACKAGES  # type: ignore[index]
    assert str(answer["gi"]).startswith(DEBIAN_DIST_PACKAGES)


def test_no_gi_is_a_clear_error() -> None:
    answer = run("/nonexistent/dist-packages")
    assert answer["ok"] is False
    assert answer["code"] == "bad_request"
    assert "scripts/ensure-desktop" in str(answer["hint"])
