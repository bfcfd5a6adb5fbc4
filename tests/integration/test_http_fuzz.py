"""Fuzz every operation of the live OpenAPI document with schemathesis: no 500s, ever.

Each operation (but `daemon.stop`, and `desktop.launch`, which would start whatever program
a case names) gets a few positive and negative cases, sent with the token to a real
`serve --http` on a real daemon. Half of the cases act in a session with
the form page open, so they reach the page rather than stopping at `unknown_session`.
The daemon runs with short deadlines and approval waits so no case runs long, in a state
dir of its own (also its working directory); file paths a case asks to write are moved
into a temp dir first (the tests may run as root).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families
from schemathesis import GenerationMode
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from steadyhand.commands import COMMANDS
from steadyhand.config import Settings
from steadyhand.errors import SteadyhandError
from tests.conftest import Daemon, make_settings, running_daemon
from tests.http_server import HttpServer, start_http

pytestmark = pytest.mark.integration
OWN_DAEMON = "the fuzzer may call any operation on the daemon"  # conftest.daemon

EXAMPLES = 15  # per operation, positive and negative together
LIVE = "fuzz"
SKIP = {"daemon.stop", "desktop.launch"}  # it would end the run, or start programs
# A page's failure, not ours: a URL that does not load, a deadline the case chose.
GATEWAY = {(502, "navigation_failed"), (504, "timeout")}
MAX_CASE_MS = 2_000
# Every case carries the token: test_http.py covers requests without it.
CONFIG = schemathesis.Config.from_dict({"generation": {"with-security-parameters": False}})
# The answer is one the document describes: a listed status, JSON, the listed schema.
CHECKS = [status_code_conformance, content_type_conformance, response_schema_conformance]
FILE_FIELDS = {
    name: {
        field
        for field, info in command.params.model_fields.items()
        if isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("file_path")
    }
    for name, command in COMMANDS.items()
}


def fuzz_settings(state_dir: Path) -> Settings:
    return make_settings(
        state_dir,
        max_sessions=4,
        timeout_short_ms=2_000,
        timeout_medium_ms=MAX_CASE_MS,
        timeout_long_ms=MAX_CASE_MS,
        approval_timeout_s=1.0,
        failure_screenshots=False,
        health_interval_s=0,
    )


@pytest.fixture(scope="module")
def fuzz_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    with running_daemon(fuzz_settings(tmp_path_factory.mktemp("state"))) as handle:
        yield handle


@pytest.fixture(scope="module")
def server(fuzz_daemon: Daemon) -> Iterator[HttpServer]:
    env = dict(os.environ) | {
        "STEADYHAND_" + name.upper(): str(int(value) if isinstance(value, bool) else value)
        for name, value in fuzz_daemon.settings.as_dict().items()
    }
    handle = start_http(env)
    yield handle
    assert handle.stop() == 0
    assert "Traceback" not in handle.stderr(), handle.stderr()


class Tally:
    """What the fuzzing saw: status and code counts, and the cases that broke a rule."""

    def __init__(self) -> None:
        self.seen: Counter[tuple[int, str]] = Counter()
        self.broken: list[str] = []

    def record(self, name: str, body: Any, status: int, text: str) -> None:
        if name == "openapi" and status == 200:
            return  # the document, not an envelope
        if name == "prometheus_metrics" and status == 200:  # Prometheus text
            try:
                families = list(text_string_to_metric_families(text))
            except ValueError as exc:
                self.broken.append(f"{name}: not Prometheus text ({exc}): {text[:300]}")
                return
            self.seen[(status, "ok")] += bool(families)
            return
        try:
            payload = json.loads(text)
            code = str(payload["error"]["code"]) if not payload["ok"] else "ok"
        except (ValueError, KeyError, TypeError):
            self.broken.append(f"{name}: not the envelope: {status} {text[:300]}")
            return
        self.seen[(status, code)] += 1
        if status >= 500 and (status, code) not in GATEWAY:
            self.broken.append(f"{name} {str(body)[:300]}: {status} {payload['error']}")


def tame(name: str, body: Any, files: Path, live: bool) -> Any:
    """The case's body, made safe to run: bounded deadlines, files written under `files`."""
    if not isinstance(body, dict):
        return body
    body = dict(body)
    if live:
        body["session"] = LIVE
    timeout = body.get("timeout")
    if isinstance(timeout, str | int | float) and not isinstance(timeout, bool):
        try:
            if fuzz_settings(files).timeout_ms(str(timeout)) > MAX_CASE_MS:
                body["timeout"] = str(MAX_CASE_MS)
        except SteadyhandError:
            pass  # refused as bad input: sent as it is
    for field in FILE_FIELDS.get(name, ()):
        given_path = body.get(field)
        if isinstance(given_path, str) and given_path.startswith("/"):
            body[field] = str(files / given_path.lstrip("/").replace("..", "__"))
    return body


def ensure_live(daemon: Daemon, site: str) -> None:
    """The live session, with the form page open (a case may have closed or suspended it)."""
    status = {s["name"]: s["status"] for s in daemon.call("sessions")["sessions"]}.get(LIVE)
    patient = 30_000  # the daemon's tiers are short; starting Chromium under load is not
    if status == "suspended":
        daemon.call("session.restore", name=LIVE, timeout=patient)
    elif status != "active":
        daemon.call("open", session=LIVE, url=f"{site}/form.html", timeout=patient)


def fuzz(
    operation: schemathesis.APIOperation[Any, Any, Any, Any],
    name: str,
    server: HttpServer,
    tally: Tally,
    files: Path,
) -> None:
    """A few positive and negative cases of one operation, each recorded and checked."""
    strategy = st.one_of(
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    )

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy, live=st.booleans())
    def run(case: schemathesis.Case[Any], live: bool) -> None:
        case.body = tame(name, case.body, files, live)
        response = case.call(base_url=server.url, headers=server.auth, timeout=60)
        tally.record(name, case.body, response.status_code, response.text)
        try:
            case.validate_response(response, checks=CHECKS)
        except AssertionError as exc:  # a Failure, or a group of them
            tally.broken.append(f"{name} {str(case.body)[:300]}: {exc}"[:2000])

    run()


def test_fuzz_every_operation_finds_no_server_error(
    server: HttpServer, fuzz_daemon: Daemon, site: str, tmp_path: Path
) -> None:
    with server.client(timeout=60.0) as api:
        document = api.get("/openapi.json").json()
        schema = schemathesis.openapi.from_dict(document, config=CONFIG)
        tally = Tally()
        operations = []
        for result in schema.get_all_operations():
            assert isinstance(result, Ok), result
            operations.append(result.ok())
        names = [op.definition.raw.get("operationId") for op in operations]
        assert set(COMMANDS) - SKIP <= set(names), "every command is fuzzed"
        for operation, name in zip(operations, names, strict=True):
            if name in SKIP:
                continue
            ensure_live(fuzz_daemon, site)
            fuzz(operation, str(name), server, tally, tmp_path)
    print("fuzzing saw:", dict(sorted(tally.seen.items())))
    assert not tally.broken, "\n".join(tally.broken[:20])
    assert fuzz_daemon.call("daemon.status")["pid"] == fuzz_daemon.pid()
