"""Observability against a real daemon: JSON logs, the trace timeline, metrics (and their
Prometheus text over HTTP), Playwright traces, step screenshots and artifact retention."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import socket
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from steadyhand.observe.log import ACTION_FIELDS, log_file
from steadyhand.observe.metrics import percentile
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings, running_daemon
from tests.http_server import start_http

pytestmark = pytest.mark.integration
OWN_DAEMON = "its tests count the daemon's metrics and read its whole log"  # conftest.daemon

PASSWORD = "hunter2-Zq9-not-for-logs"
URL_TOKEN = "tok3n-V4lue-not-for-logs"


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon that logs at debug and screenshots before and after every act."""
    settings = make_settings(
        tmp_path_factory.mktemp("observed"), step_screenshots=True, log_level="debug"
    )
    with running_daemon(settings) as handle:
        yield handle


def run_form_sequence(daemon: Daemon, site: str, s: str) -> list[tuple[str, str]]:
    """Open the form, fill it (a password too), order, then click a ref that never was.

    Returns the (command, outcome) of each action, in order."""
    daemon.call("open", session=s, url=f"{site}/form.html?token={URL_TOKEN}&x=1")
    page = daemon.snapshot(s)
    daemon.call("type", session=s, ref=find_ref(page, "textbox", "Name"), text="Ada")
    daemon.call("type", session=s, ref=find_ref(page, "textbox", "Password"), text=PASSWORD)
    daemon.call("click", session=s, ref=find_ref(page, "button", "Place order"))
    assert daemon.fail("click", session=s, ref="e999").code == "not_found"
    return [
        ("open", "ok"),
        ("snapshot", "ok"),
        ("type", "ok"),
        ("type", "ok"),
        ("click", "ok"),
        ("click", "not_found"),
    ]


def log_lines(daemon: Daemon) -> list[dict[str, Any]]:
    lines = log_file(daemon.settings).read_text().splitlines()
    parsed = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all(isinstance(p, dict) for p in parsed)
    return parsed


def test_log_lines_are_json_with_the_action_fields_and_no_secrets(
    observed: Daemon, site: str
) -> None:
    s = "obs-log"
    expected = run_form_sequence(observed, site, s)
    observed.call("open", session=s, url=f"{site}/gauntlet/flicker.html")
    save = find_ref(observed.snapshot(s), "button", "Save")
    retried = observed.call("click", session=s, ref=save)
    assert retried["retries"] >= 1
    expected += [("open", "ok"), ("snapshot", "ok"), ("click", "ok")]

    lines = log_lines(observed)
    for line in lines:
        assert {"ts", "level", "logger", "event"} <= line.keys(), line
    mine = [x for x in lines if x.get("session_id") == s and x["logger"] == "steadyhand.action"]
    outcomes = [x for x in mine if x["event"] != "action details"]
    details = [x for x in mine if x["event"] == "action details"]
    # One outcome line per action, in order, each with every field; details at debug.
    assert [(x["command"], x.get("error_code", "ok")) for x in outcomes] == expected
    for line in outcomes:
        assert set(ACTION_FIELDS) <= line.keys(), line
    assert [x["action_id"] for x in details] == [x["action_id"] for x in outcomes]
    assert all("params" in x and "result" in x for x in details)
    # Levels: info for an outcome, warning when it took retries, error when it failed.
    levels = [(x["command"], x["level"]) for x in outcomes]
    assert levels[5] == ("click", "error") and levels[-1] == ("click", "warning")
    assert {lvl for _, lvl in levels[:5]} == {"info"}
    failed = outcomes[5]
    assert failed["ok"] is False and failed["hint"] and "e999" in failed["error"]
    assert outcomes[-1]["retries"] == retried["retries"]
    # The same ids as the action log's rows and request ids.
    trace = observed.call("trace", name=s, last=0)["actions"]
    assert [x["action_id"] for x in outcomes] == [e["id"] for e in trace]
    assert [x["request_id"] for x in outcomes] == [e["request_id"] for e in trace]
    assert len({x["request_id"] for x in outcomes}) == len(outcomes)
    # No secret reaches a log: not the password typed, not the URL's token.
    for path in (log_file(observed.settings), observed.settings.log_path):
        text = path.read_text()
        assert PASSWORD not in text and URL_TOKEN not in text, path
    assert any("token=[redacted]" in json.dumps(x) for x in details)


def test_trace_is_the_timeline_of_the_actions_run(observed: Daemon, site: str) -> None:
    s = "obs-trace"
    expected = run_form_sequence(observed, site, s)
    trace = observed.call("trace", name=s)
    assert trace["total"] == len(expected) and trace["failed"] == 1
    # --session like every command; the session as first word is its alias; not both.
    assert observed.call("trace", session=s)["actions"] == trace["actions"]
    assert observed.call("trace", session=s, name=s)["total"] == trace["total"]
    # A front that fills --session itself (MCP, the client, a batch's steps): the name wins.
    assert observed.call("trace", session="elsewhere", name=s)["total"] == trace["total"]
    both = observed.cli("trace", "other", "--session", s)
    assert both.rc == 2 and "two sessions named: 'other' and --session" in both.err, both.err
    entries = trace["actions"]
    assert [(e["command"], e["outcome"]) for e in entries] == expected
    assert [e["id"] for e in entries] == sorted(e["id"] for e in entries)
    assert all(e["duration_ms"] > 0 for e in entries)
    typed = [e["params"] for e in entries if e["command"] == "type"]
    assert typed[1]["text"] == "[redacted]" and typed[0]["text"] == "Ada"
    failed = entries[-1]
    assert failed["error"] and failed["hint"]
    # A refusal that acted on nothing (not_found) has no failure screenshot: only the step
    # screenshot before it (test_refs_and_errors: an act that failed acting keeps one).
    assert [a["label"] for a in failed["artifacts"]] == ["before"], failed["artifacts"]
    # step_screenshots: an act has its tab before and after, indexed with the action.
    order = entries[4]
    labels = sorted(a["label"] for a in order["artifacts"])
    assert labels == ["after", "before"], order["artifacts"]
    for artifact in order["artifacts"]:
        path = Path(artifact["path"])
        assert path.parent == observed.settings.artifacts_dir / s
        assert path.name.endswith(f"-click-{artifact['label']}.png")
        assert artifact["bytes"] == path.stat().st_size > 0
    # Views: failures only, the last N (the totals stay), and as text.
    only_failed = observed.call("trace", name=s, failed=True)
    assert [e["id"] for e in only_failed["actions"]] == [failed["id"]]
    last_two = observed.call("trace", name=s, last=2)
    assert [e["id"] for e in last_two["actions"]] == [e["id"] for e in entries[-2:]]
    assert last_two["total"] == len(expected)
    text = observed.cli("trace", s)
    assert text.rc == 0, text.err
    assert text.out.startswith(f"session {s} · {len(expected)} actions · 1 failed")
    rows = [line for line in text.out.splitlines() if line.startswith("#")]
    assert [row.split()[2] for row in rows] == [c for c, _ in expected]
    assert "hint: " in text.out and "screenshot failure: " not in text.out
    as_json = observed.cli("trace", s, "--json").json
    assert as_json["result"]["total"] == len(expected)
    # Closed and opened again, the name is a new session: its timeline starts afresh.
    observed.call("close", session=s)
    assert observed.call("trace", name=s)["total"] == len(expected) + 1  # the close ends it
    observed.call("open", session=s, url=f"{site}/quiet.html")
    anew = observed.call("trace", name=s)
    assert [e["command"] for e in anew["actions"]] == ["open"] and anew["failed"] == 0
    every = observed.call("trace", name=s, every_life=True)
    assert every["total"] == len(expected) + 2 and every["failed"] == 1
    assert observed.cli("trace", s, "--every-life", "--json").json["result"]["total"] == 8
    # A session that never ran anything is an error that names the ones on record.
    err = observed.fail("trace", name="no-such-session")
    assert err.code == "unknown_session" and s in (err.hint or "")


def test_playwright_trace_zip_holds_the_actions(observed: Daemon, site: str) -> None:
    s = "obs-pw"
    observed.call("open", session=s, url=f"{site}/form.html")
    page = observed.snapshot(s)
    assert observed.fail("trace.stop", session=s).code == "bad_request"
    assert observed.call("trace.start", session=s)["tracing"] is True
    assert observed.fail("trace.start", session=s).code == "bad_request"
    observed.call("type", session=s, ref=find_ref(page, "textbox", "Name"), text="Ada")
    observed.call("click", session=s, ref=find_ref(page, "button", "Place order"))
    saved = observed.call("trace.stop", session=s)
    path = Path(saved["path"])
    assert path.is_file() and saved["bytes"] == path.stat().st_size
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent == observed.settings.artifacts_dir / s
    assert str(path) in saved["hint"]
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        assert "trace.trace" in names and any(n.startswith("screencast/") for n in names)
        events = [json.loads(line) for line in archive.read("trace.trace").splitlines()]
    calls = [e["method"] for e in events if e.get("type") == "before"]
    assert "fill" in calls and "click" in calls
    assert calls.index("fill") < calls.index("click")
    # The zip is the trace.stop action's artifact.
    last = observed.call("trace", name=s, last=1)["actions"][0]
    assert last["command"] == "trace.stop"
    assert [(a["kind"], a["path"]) for a in last["artifacts"]] == [("trace", str(path))]
    assert observed.fail("trace.stop", session=s).code == "bad_request"
    # A trace still recording when its session closes is saved, not lost.
    observed.call("trace.start", session=s)
    observed.call("snapshot", session=s)
    observed.call("close", session=s)
    (kept,) = (observed.settings.artifacts_dir / s).glob("*-trace-at-close.zip")
    assert kept.stat().st_mode & 0o777 == 0o600
    with zipfile.ZipFile(kept) as archive:
        assert "trace.trace" in archive.namelist()


def test_metrics_count_a_known_sequence_and_serve_prometheus_text(
    tmp_path_factory: pytest.TempPathFactory, site: str, tmp_path: Path
) -> None:
    with running_daemon(make_settings(tmp_path_factory.mktemp("metrics"))) as d:
        check_metrics(d, site, tmp_path)


def check_metrics(d: Daemon, site: str, tmp_path: Path) -> None:
    d.call("open", session="m1", url=f"{site}/form.html")
    for _ in range(3):
        d.snapshot("m1")
    for _ in range(2):
        assert d.fail("click", session="m1", ref="e999").code == "not_found"
    d.call("open", session="m2", url=f"{site}/form.html")
    d.call("close", session="m2")
    metrics = d.call("metrics")
    counted = {(r["command"], r["outcome"]): r["count"] for r in metrics["actions_total"]}
    assert counted == {
        ("open", "ok"): 2,
        ("snapshot", "ok"): 3,
        ("click", "not_found"): 2,
        ("close", "ok"): 1,
    }
    assert metrics["sessions_total"] == {"active": 2, "closed": 1}
    assert metrics["retries_total"] == {}
    # Latencies are the action log's durations, p50/p95 by nearest rank.
    durations: dict[str, list[float]] = {}
    for session in ("m1", "m2"):
        for e in d.call("trace", name=session, last=0)["actions"]:
            durations.setdefault(e["command"], []).append(e["duration_ms"])
    for command, values in durations.items():
        stats = metrics["latency"][command]
        assert stats["count"] == len(values)
        assert stats["p50_ms"] == pytest.approx(percentile(values, 0.5), abs=1e-3)
        assert stats["p95_ms"] == pytest.approx(percentile(values, 0.95), abs=1e-3)
        assert stats["sum_ms"] == pytest.approx(sum(values), abs=1e-2)

    server = start_http(d.env, cwd=tmp_path)
    try:
        assert httpx.get(server.url + "/metrics").status_code == 401
        with server.client() as client:
            answer = client.get("/metrics")
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
        families = {f.name: f for f in text_string_to_metric_families(answer.text)}
    finally:
        server.stop()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in families.values()
        for s in f.samples
    }
    key = ("steadyhand_actions_total", (("command", "click"), ("outcome", "not_found")))
    assert samples[key] == 2
    assert samples[("steadyhand_sessions_total", (("status", "closed"),))] == 1
    p95 = ("steadyhand_action_duration_ms", (("command", "snapshot"), ("quantile", "0.95")))
    assert samples[p95] == pytest.approx(metrics["latency"]["snapshot"]["p95_ms"], abs=1e-3)
    assert samples[("steadyhand_action_duration_ms_count", (("command", "snapshot"),))] == 3


def test_retention_on_start_keeps_the_newest_sessions_files_and_nothing_else(
    tmp_path_factory: pytest.TempPathFactory, site: str, tmp_path: Path
) -> None:
    settings = make_settings(
        tmp_path_factory.mktemp("retention"), artifacts_keep_sessions=1, file_roots=str(tmp_path)
    )
    mine = tmp_path / "mine.png"  # in a file root of the user's, not the artifacts dir
    with running_daemon(settings) as d:
        d.call("open", session="old", url=f"{site}/form.html")
        old_shot = Path(d.call("screenshot", session="old")["path"])
        d.call("screenshot", session="old", path=str(mine))  # the caller's own path
        d.call("open", session="new", url=f"{site}/form.html")
        os.utime(old_shot, (1, 1))  # "old" is the older session by its newest file...
        os.utime(mine, (1, 1))
        new_shot = Path(d.call("screenshot", session="new")["path"])
        before = {s: d.call("trace", name=s, last=0)["actions"] for s in ("old", "new")}
    with running_daemon(settings) as d:  # ...and retention runs as the daemon starts
        assert not old_shot.exists() and not old_shot.parent.exists()
        assert new_shot.is_file() and mine.is_file()
        after = {s: d.call("trace", name=s, last=0)["actions"] for s in ("old", "new")}
    # The action log is whole; the old session's files are marked gone, the rest are not.
    assert [e["id"] for e in after["old"]] == [e["id"] for e in before["old"]]
    files = {(a["path"], a["exists"]) for e in after["old"] for a in e["artifacts"]}
    assert files == {(str(old_shot), False), (str(mine), True)}
    assert all(a["exists"] for e in after["new"] for a in e["artifacts"])


def test_long_work_reports_progress_to_callers_that_ask(observed: Daemon, site: str) -> None:
    s = "obs-progress"
    observed.call("open", session=s, url=f"{site}/quiet.html")
    for _ in range(59):
        observed.call("snapshot", session=s)
    request = {"jsonrpc": "2.0", "id": 7, "method": "report", "params": {"name": s}}

    def lines_for(message: dict[str, Any]) -> list[dict[str, Any]]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(60)
            sock.connect(str(observed.settings.socket_path))
            sock.sendall(json.dumps(message).encode() + b"\n")
            with sock.makefile("rb") as stream:
                got: list[dict[str, Any]] = []
                while not got or "id" not in got[-1]:
                    got.append(json.loads(stream.readline()))
        return got

    *notes, reply = lines_for({**request, "progress": True})
    assert reply["id"] == 7 and reply["result"]["actions"] == 60
    assert notes and all(n["method"] == "progress" and "id" not in n for n in notes)
    done = [n["params"]["done"] for n in notes]
    assert done == sorted(done) and done[-1] == 60 and len(done) >= 3
    assert {n["params"]["id"] for n in notes} == {7}
    assert {n["params"]["total"] for n in notes} == {60}
    # Without asking, the reply is the only line; the CLI asks only on a terminal.
    (only,) = lines_for(request)
    assert only["id"] == 7 and "result" in only
    quiet = observed.cli("report", s)
    assert quiet.rc == 0 and quiet.err == "", quiet.err
    # On a terminal it shows the progress on one line, rewritten in place.
    leader, follower = pty.openpty()
    try:
        try:
            done_cli = subprocess.run(
                [sys.executable, "-m", "steadyhand", "report", s],
                stdout=subprocess.PIPE,
                stderr=follower,
                env=observed.env,
                timeout=120,
                check=False,
            )
        finally:
            os.close(follower)
        shown = b""
        with contextlib.suppress(OSError):  # EIO once everything written is read
            while chunk := os.read(leader, 4096):
                shown += chunk
    finally:
        os.close(leader)
    assert done_cli.returncode == 0 and b"path: " in done_cli.stdout
    assert shown.startswith(b"\rreport") and b"60/60 (100%)" in shown, shown
