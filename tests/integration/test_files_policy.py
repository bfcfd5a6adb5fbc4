"""Confined files over every front: a path outside the file roots is `policy_denied` by the
daemon (steadyhand/files_policy.py), whether it came over the CLI, JSON-RPC, HTTP or MCP;
the session goes on and the refusal is in the action log."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from steadyhand import rpc_client
from steadyhand.errors import SteadyhandError
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon
from tests.http_server import HttpServer, start_http
from tests.integration.test_mcp import stdio_mcp, text_of

pytestmark = pytest.mark.integration

G = "gauntlet"
REFERENCE = "import sys; from steadyhand.fronts.cli.main import main; sys.exit(main(sys.argv[1:]))"


@dataclass
class Places:
    """Paths outside every root, the files they must leave alone, and a project dir (the
    CLI's working directory)."""

    outside: list[Path]
    bashrc: Path
    escape: Path  # a link inside the artifacts dir to a directory outside
    project: Path


@pytest.fixture
def places(daemon: Daemon, tmp_path: Path) -> Iterator[Places]:
    home = tmp_path / "home"
    home.mkdir()
    bashrc = home / ".bashrc"
    bashrc.write_text("# mine\n")
    away = tmp_path / "away"
    away.mkdir()
    escape = daemon.settings.artifacts_dir / f"escape-{tmp_path.name}"
    escape.parent.mkdir(parents=True, exist_ok=True)
    escape.symlink_to(away)
    project = tmp_path / "project"
    project.mkdir()
    outside = [Path("/etc/steadyhand-x.png"), bashrc, away / "x.png", escape / "x.png"]
    yield Places(outside, bashrc, escape, project)
    escape.unlink()


def untouched(places: Places) -> None:
    assert places.bashrc.read_text() == "# mine\n"
    assert not Path("/etc/steadyhand-x.png").exists()
    assert not (places.escape / "x.png").exists()


def opened(daemon: Daemon, site: str, session: str) -> None:
    daemon.call("open", session=session, url=f"{site}/form.html")


def refusals_logged(daemon: Daemon, session: str, count: int) -> None:
    """The last `count` actions of the session are the refusals, and it still answers."""
    assert "Place order" in daemon.snapshot(session)
    rows = daemon.call("trace", name=session, last=0)["actions"]
    refused = [r for r in rows if r["outcome"] == "policy_denied"]
    assert len(refused) == count and all(r["command"] == "screenshot" for r in refused)
    assert "inside a file root" in (refused[0]["error"] or "")


def test_over_json_rpc(daemon: Daemon, site: str, places: Places) -> None:
    s = "fp-rpc"
    opened(daemon, site, s)
    for path in places.outside:
        error = daemon.fail("screenshot", session=s, path=str(path))
        assert error.code == "policy_denied", error
        assert "file_roots" in (error.hint or "") and str(daemon.settings.artifacts_dir) in (
            error.hint or ""
        )
    untouched(places)
    refusals_logged(daemon, s, len(places.outside))
    inside = daemon.settings.artifacts_dir / "fp" / "ok.png"
    assert daemon.call("screenshot", session=s, path=str(inside))["path"] == str(inside)
    assert inside.read_bytes()[:4] == b"\x89PNG"


def test_over_the_cli(daemon: Daemon, site: str, places: Places) -> None:
    s = "fp-cli"
    opened(daemon, site, s)
    for path in places.outside:
        run = daemon.cli("screenshot", "--path", str(path), "--session", s, "--json")
        assert run.rc == 7 and run.json["error"]["code"] == "policy_denied", run.out + run.err
    run = daemon.cli("screenshot", "--path", "../home/.bashrc", "--session", s, cwd=places.project)
    assert run.rc == 7 and "policy_denied" in run.err
    untouched(places)
    refusals_logged(daemon, s, len(places.outside) + 1)
    # Its working directory is a root (setting cli_cwd_files), but not its hidden names.
    shot = daemon.cli("screenshot", "--path", "shots/a.png", "--session", s, cwd=places.project)
    assert shot.rc == 0, shot.err
    assert (places.project / "shots" / "a.png").read_bytes()[:4] == b"\x89PNG"
    hidden = daemon.cli("screenshot", "--path", ".git/a.png", "--session", s, cwd=places.project)
    assert hidden.rc == 7 and "hidden" in hidden.err


def test_over_http(daemon: Daemon, site: str, places: Places) -> None:
    s = "fp-http"
    opened(daemon, site, s)
    server: HttpServer = start_http(daemon.env)
    try:
        with server.client() as api:
            for path in places.outside:
                response = api.post("/v1/screenshot", json={"session": s, "path": str(path)})
                assert response.status_code == 403, response.text
                assert response.json()["error"]["code"] == "policy_denied"
            relative = api.post("/v1/screenshot", json={"session": s, "path": "rel.png"})
            ok = relative.json()
    finally:
        assert server.stop() == 0, server.stderr()
    untouched(places)
    refusals_logged(daemon, s, len(places.outside))
    # A relative path is the session's artifacts folder's, not the server's directory.
    assert ok["ok"] and ok["result"]["path"] == str(daemon.settings.artifacts_dir / s / "rel.png")


def test_over_mcp(daemon: Daemon, site: str, places: Places) -> None:
    s = "fp-mcp"
    opened(daemon, site, s)

    async def scenario() -> list[tuple[bool, str]]:
        async with stdio_mcp(daemon.env) as client:
            found = []
            for path in [*places.outside, Path("rel.png")]:
                result = await client.call_tool("screenshot", {"session": s, "path": str(path)})
                found.append((result.is_error, text_of(result)))
            return found

    *refused, relative = asyncio.run(scenario())
    assert all(error and "error [policy_denied]" in text for error, text in refused), refused
    untouched(places)
    refusals_logged(daemon, s, len(places.outside))
    assert not relative[0] and str(daemon.settings.artifacts_dir / s / "rel.png") in relative[1]


def test_uploads_only_from_inside_the_roots(daemon: Daemon, site: str, places: Places) -> None:
    s = "fp-upload"
    daemon.call("open", session=s, url=f"{site}/{G}/inputs.html")
    attach = find_ref(daemon.snapshot(s), "button", "Attach")
    denied = daemon.fail("upload", session=s, ref=attach, files=[str(places.bashrc)])
    assert denied.code == "policy_denied" and "upload_dirs" in (denied.hint or "")
    cli = daemon.cli("upload", attach, str(places.bashrc), "--session", s, "--json")
    assert cli.rc == 7 and cli.json["error"]["code"] == "policy_denied"
    (places.project / ".env").write_text("TOKEN=1")
    (places.project / "cv.txt").write_text("my cv")
    hidden = daemon.cli("upload", attach, ".env", "--session", s, cwd=places.project)
    assert hidden.rc == 7 and "hidden" in hidden.err
    assert "files: none" in daemon.snapshot(s)
    # A file in the CLI's working directory, named relative to it.
    done = daemon.cli("upload", attach, "cv.txt", "--session", s, "--json", cwd=places.project)
    assert done.rc == 0, done.err
    assert json.loads(done.out)["result"]["data"]["files"] == ["cv.txt"]
    # The reference CLI (what runs when the daemon cannot answer for it) sends it too.
    reference = subprocess.run(
        [sys.executable, "-c", REFERENCE, "upload", attach, "cv.txt", "--session", s],
        capture_output=True,
        text=True,
        env=daemon.env,
        cwd=places.project,
        timeout=120,
        check=False,
    )
    assert reference.returncode == 0, reference.stderr
    # Over JSON-RPC (no working directory) a relative path is the artifacts folder's.
    (daemon.settings.artifacts_dir / s).mkdir(parents=True, exist_ok=True)
    (daemon.settings.artifacts_dir / s / "again.txt").write_text("again")
    again = daemon.call("upload", session=s, ref=attach, files=["again.txt"])
    assert again["data"]["files"] == ["again.txt"]


def test_profile_export_refused_outside_is_logged(daemon: Daemon, tmp_path: Path) -> None:
    daemon.call("profile.create", name="fp-prof")
    target = tmp_path / "state.json"
    error = daemon.fail("profile.export", name="fp-prof", out=str(target))
    assert error.code == "policy_denied" and not target.exists()
    imported = daemon.fail("profile.import", name="fp-prof", file="/etc/hostname")
    assert imported.code == "policy_denied"
    rows = daemon.call("trace", name="default", last=0)["actions"]
    assert [r["command"] for r in rows if r["outcome"] == "policy_denied"][-2:] == [
        "profile.export",
        "profile.import",
    ]
    inside = daemon.settings.artifacts_dir / "fp-prof.json"
    daemon.call("profile.export", name="fp-prof", out=str(inside), plain=True)
    assert json.loads(inside.read_text())["cookies"] == []
    daemon.call("profile.delete", name="fp-prof")


def test_only_the_cli_names_a_working_directory(daemon: Daemon) -> None:
    """A front cannot pass `cli_cwd` in params (they take no such field), and a request
    that carries a malformed one beside them is refused."""
    error = daemon.fail("screenshot", session="fp-rpc", cli_cwd="/")
    assert error.code == "bad_request"
    with pytest.raises(SteadyhandError) as info:
        rpc_client.request(daemon.settings, "screenshot", {"session": "fp-rpc"}, 30, cli_cwd="x")
    assert info.value.code == "bad_request" and "cli_cwd" in info.value.message
