"""The thin CLI as a whole process: output, --json, exit codes, a light hot path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon

pytestmark = pytest.mark.integration


def test_human_and_json_output(daemon: Daemon, site: str) -> None:
    opened = daemon.cli("open", f"{site}/form.html", "--session", "cli")
    assert opened.rc == 0 and opened.out == f"# t1 · Form fixture · {site}/form.html\n"
    human = daemon.cli("--session", "cli", "snapshot")
    assert human.rc == 0
    assert human.out.startswith(f"# t1 · Form fixture · {site}/form.html\n- ")
    machine = daemon.cli("snapshot", "--session", "cli", "--json")
    payload = machine.json
    assert payload["ok"] is True and payload["result"]["refs"] > 5
    assert payload["result"]["snapshot"] in human.out


def test_exit_codes_by_error_class(daemon: Daemon, site: str) -> None:
    assert daemon.cli("open", f"{site}/rerender.html", "--session", "codes").rc == 0
    page = daemon.cli("snapshot", "--session", "codes", "--json").json["result"]["snapshot"]
    alpha = find_ref(page, "button", "Alpha")
    double = find_ref(page, "button", "Double Alpha")
    assert daemon.cli("click", double, "--session", "codes").rc == 0

    stale = daemon.cli("click", alpha, "--session", "codes")
    assert stale.rc == 3
    assert (
        stale.err.startswith("error [stale_ref]: ") and "\nhint: take a new snapshot" in stale.err
    )
    stale_json = daemon.cli("click", alpha, "--session", "codes", "--json")
    assert stale_json.rc == 3 and stale_json.json["error"]["code"] == "stale_ref"

    assert daemon.cli("snapshot", "--session", "ghost").rc == 2
    assert daemon.cli("open", "javascript:void(0)", "--session", "codes").rc == 2
    missing = daemon.cli("click", "--json")
    assert missing.rc == 2 and missing.json["error"]["code"] == "bad_request"
    assert "usage: steadyhand click" in missing.json["error"]["hint"]
    unknown = daemon.cli("clack")
    assert unknown.rc == 2 and "invalid choice" in unknown.err
    bad_pair = daemon.cli("fill", "e1", "--session", "codes")
    assert bad_pair.rc == 2 and "REF=VALUE" in bad_pair.err
    timeout = daemon.cli("snapshot", "--session", "codes", "--timeout", "0")
    assert timeout.rc == 2, "a zero deadline is refused as bad input"


def test_fill_pairs_and_relative_screenshot_path(daemon: Daemon, site: str, tmp_path: Path) -> None:
    assert daemon.cli("open", f"{site}/form.html", "--session", "pairs").rc == 0
    page = daemon.cli("snapshot", "--session", "pairs", "--json").json["result"]["snapshot"]
    name = find_ref(page, "textbox", "Name")
    filled = daemon.cli("fill", f"{name}=Ann = Lee", "--session", "pairs", "--json")
    assert filled.rc == 0 and filled.json["result"]["data"]["filled"] == [name]
    after = daemon.cli("snapshot", "--session", "pairs").out
    assert f"[ref={name}]: Ann = Lee" in after
    # Like every act, fill takes locators: the pair splits after the locator, not inside it.
    by_label = daemon.cli(
        "fill", "label=Name=Bo=Li", 'css=input[id="pw"]=x=1', "--session", "pairs"
    )
    assert by_label.rc == 0, by_label.err
    after = daemon.cli("snapshot", "--session", "pairs").out
    assert f"[ref={name}]: Bo=Li" in after
    shot = daemon.cli("screenshot", "--path", "s.png", "--session", "pairs", cwd=tmp_path)
    assert shot.rc == 0, shot.err
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"


HOT_PATH_PROBE = """
import sys, json
from steadyhand.fronts.cli import main as cli
code = cli.main(["daemon", "status", "--json"])
heavy = sorted(m for m in sys.modules if m.split(".")[0] in (
    "playwright", "pydantic", "greenlet",  # the engine's
    "dataclasses", "typing", "subprocess", "tomllib", "asyncio",  # each costs ms per call
))
own = sorted(m for m in sys.modules if m.startswith("steadyhand"))
print(json.dumps({"code": code, "heavy": heavy, "own": own}))
"""


def test_cli_hot_path_imports_nothing_heavy(daemon: Daemon) -> None:
    done = subprocess.run(
        [sys.executable, "-c", HOT_PATH_PROBE],
        env=daemon.env,
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0
    assert report["heavy"] == []
    assert "steadyhand.commands" not in report["own"]
    assert "steadyhand.engine.engine" not in report["own"]
