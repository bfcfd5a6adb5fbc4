"""The HTTP API as a whole process: token, CSRF and Host guards, statuses, a real scenario."""

from __future__ import annotations

import base64
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from steadyhand.commands import COMMANDS
from steadyhand.engine.chromium import find_owned_browsers
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings, run_cli
from tests.http_server import HttpServer, start_http

pytestmark = pytest.mark.integration

MAX_BODY = 64 * 1024


@pytest.fixture(scope="module")
def server(daemon: Daemon) -> Iterator[HttpServer]:
    """`serve --http` on the module's daemon, with a small body cap."""
    handle = start_http(daemon.env | {"STEADYHAND_HTTP_MAX_BODY_BYTES": str(MAX_BODY)})
    yield handle
    assert handle.stop() == 0, handle.stderr()
    log = handle.stderr()
    assert "Traceback" not in log, log
    assert handle.token not in log + handle.banner, "the token is never printed"


@pytest.fixture
def api(server: HttpServer) -> Iterator[httpx.Client]:
    with server.client() as client:
        yield client


def post(api: httpx.Client, command: str, **params: Any) -> httpx.Response:
    return api.post(f"/v1/{command}", json=params)


def result(api: httpx.Client, command: str, **params: Any) -> Any:
    response = post(api, command, **params)
    assert response.status_code == 200, response.text[:1000]
    body = response.json()
    assert body["ok"] is True
    return body["result"]


def error_of(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The error of an envelope that must have this status and code."""
    assert response.status_code == status, response.text[:1000]
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["ok"] is False and body["error"]["code"] == code, body
    error: dict[str, Any] = body["error"]
    assert error["message"] and error["hint"]
    return error


def test_form_scenario_over_http(api: httpx.Client, site: str, server: HttpServer) -> None:
    s = "http-form"
    opened = result(api, "open", session=s, url=f"{site}/form.html")
    assert opened["title"] == "Form fixture"
    page = result(api, "snapshot", session=s)["snapshot"]
    name = find_ref(page, "textbox", "Name")
    filled = result(api, "fill", session=s, fields={name: "Ann Lee"})
    assert filled["data"]["filled"] == [name]
    typed = result(api, "type", session=s, ref=find_ref(page, "textbox", "Password"), text="pw1")
    assert typed["action"] == "type"
    clicked = result(api, "click", session=s, ref=find_ref(page, "button", "Place order"))
    assert clicked["ok"] is True
    text = result(api, "extract", session=s, kind="text", selector="#out")
    assert text["text"] == "ordered s for Ann Lee with none gift=false news=true pwlen=3"
    # The results match the OpenAPI document's 200 schemas.
    document = api.get("/openapi.json").json()
    for command, body in (("open", opened), ("click", clicked), ("extract", text)):
        schema = document["paths"][f"/v1/{command}"]["post"]["responses"]["200"]
        envelope = schema["content"]["application/json"]["schema"]
        jsonschema.validate({"ok": True, "result": body}, envelope)


def test_token_is_required(server: HttpServer) -> None:
    for token in (None, "wrong", server.token[:-1], server.token + "x"):
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=server.url, headers=headers) as client:
            for response in (
                client.get("/v1/health"),
                client.get("/openapi.json"),
                client.post("/v1/daemon.status", json={}),
            ):
                error_of(response, 401, "unauthorized")
                assert response.headers["www-authenticate"].startswith("Bearer")
    with httpx.Client(base_url=server.url, headers={"Authorization": server.token}) as client:
        error_of(client.get("/v1/health"), 401, "unauthorized")  # no "Bearer " scheme


def test_cross_site_and_foreign_origins_are_refused(api: httpx.Client, daemon: Daemon) -> None:
    for headers in (
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "https://evil.example"},
        {"Origin": "http://127.0.0.1.evil.example"},
        {"Origin": "null"},
    ):
        refused = api.post("/v1/daemon.status", json={}, headers=headers)
        assert "refused" in error_of(refused, 403, "forbidden")["message"], headers
    for headers in ({"Origin": "http://127.0.0.1:3000"}, {"Sec-Fetch-Site": "same-origin"}):
        allowed = api.post("/v1/daemon.status", json={}, headers=headers)
        assert allowed.status_code == 200, (headers, allowed.text)
    assert result(api, "daemon.status")["pid"] == daemon.pid()


def test_foreign_host_header_is_refused(api: httpx.Client) -> None:
    for host in ("evil.example", "evil.example:8787", "127.0.0.1.nip.io"):
        refused = api.get("/v1/health", headers={"Host": host})
        assert "DNS-rebinding" in error_of(refused, 403, "forbidden")["hint"], host
    for host in ("localhost", "127.0.0.1:1", "[::1]:8787"):
        assert api.get("/v1/health", headers={"Host": host}).status_code == 200, host


def test_bad_input_is_400_and_leaves_daemon_and_session_alive(
    api: httpx.Client, site: str, daemon: Daemon
) -> None:
    s = "http-bad"
    result(api, "open", session=s, url=f"{site}/form.html")
    missing = error_of(post(api, "click", session=s), 400, "bad_request")
    assert "ref" in missing["message"]
    extra = error_of(post(api, "snapshot", session=s, colour="blue"), 400, "bad_request")
    assert "colour" in extra["message"] and "takes:" in extra["hint"]
    error_of(post(api, "snapshot", session=s, depth="deep"), 400, "bad_request")
    error_of(post(api, "snapshot", session=s, timeout="soon"), 400, "bad_request")
    for body in (b"{not json", b"[1, 2]", b'"text"', b"null", b'{"a": NaN}', b"\xff\xfe{"):
        sent = api.post("/v1/snapshot", content=body, headers={"Content-Type": "application/json"})
        error_of(sent, 400, "bad_request")
    deep = b"[" * 100_000 + b"]" * 100_000
    assert len(deep) > MAX_BODY
    error_of(api.post("/v1/snapshot", content=deep[: MAX_BODY - 1]), 400, "bad_request")
    error_of(post(api, "open", session=s, url="javascript:alert(1)"), 400, "invalid_url")
    # Empty body: the params are {} (the default session here has no page: 404, not 400).
    assert api.post("/v1/daemon.status").status_code == 200
    error_of(api.post("/v1/snapshot", content=b""), 404, "unknown_session")
    # Nothing above hurt the daemon or the session.
    assert daemon.call("daemon.status")["pid"] == daemon.pid()
    assert result(api, "snapshot", session=s)["title"] == "Form fixture"


def test_inputs_that_once_were_500s_are_400s(
    api: httpx.Client, site: str, daemon: Daemon, tmp_path: Path
) -> None:
    """Each of these reached an exception no layer mapped (found by probing every param)."""
    s = "http-nasty"
    result(api, "open", session=s, url=f"{site}/form.html")
    result(api, "snapshot", session=s)
    sent = {"Content-Type": "application/json"}
    surrogate = b'{"session": "\\ud800"}'  # valid JSON, not valid Unicode
    for body in (surrogate, b'{"session": "%s", "text": "\\udfff"}' % s.encode()):
        error = error_of(api.post("/v1/wait", content=body, headers=sent), 400, "bad_request")
        assert "not valid Unicode" in error["message"]
    for depth in (40, 900, 965, 975):  # under and around the JSON decoder's own limit
        nested = b'{"session": "%s", "fields": %s}' % (s.encode(), b"[" * depth + b"]" * depth)
        error = error_of(api.post("/v1/fill", content=nested, headers=sent), 400, "bad_request")
        assert "deep" in error["message"], error
    error_of(post(api, "click", session=s, ref="e" + "9" * 5000), 404, "not_found")
    error_of(post(api, "open", session=s, url="http://[::1"), 400, "invalid_url")
    error_of(post(api, "open", session=s, url="http://a:99999/"), 400, "invalid_url")
    nul = str(tmp_path / "a\0b.pdf")
    error_of(post(api, "pdf", session=s, path=nul), 400, "bad_request")
    error_of(post(api, "upload", session=s, ref="e1", files=[nul]), 400, "bad_request")
    assert list(tmp_path.iterdir()) == []
    assert result(api, "snapshot", session=s)["title"] == "Form fixture"
    assert daemon.call("daemon.status")["pid"] == daemon.pid()


def test_unknown_command_and_route(api: httpx.Client) -> None:
    unknown = error_of(post(api, "clack"), 404, "unknown_command")
    assert "did you mean 'click'" in unknown["hint"]
    error_of(api.post("/v1/a/b", json={}), 404, "unknown_command")
    error_of(api.get("/nowhere"), 404, "unknown_command")
    wrong_method = api.get("/v1/snapshot")
    error_of(wrong_method, 405, "bad_request")
    assert wrong_method.headers["allow"] == "POST"


def test_body_over_the_cap_is_413(api: httpx.Client) -> None:
    big = {"session": "x" * (MAX_BODY + 1)}
    error_of(post(api, "snapshot", **big), 413, "body_too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap applies while reading
        yield b'{"session": "'
        for _ in range(MAX_BODY // 1024 + 1):
            yield b"x" * 1024
        yield b'"}'

    error_of(api.post("/v1/snapshot", content=chunks()), 413, "body_too_large")
    # Just under the cap is read and judged on its merits.
    under = post(api, "snapshot", session="http-nobody", selector="y" * (MAX_BODY - 100))
    error_of(under, 404, "unknown_session")


def test_errors_map_to_their_status(api: httpx.Client, site: str) -> None:
    s = "http-statuses"
    result(api, "open", session=s, url=f"{site}/rerender.html")
    page = result(api, "snapshot", session=s)["snapshot"]
    alpha = find_ref(page, "button", "Alpha")
    result(api, "click", session=s, ref=find_ref(page, "button", "Double Alpha"))
    stale = error_of(post(api, "click", session=s, ref=alpha), 409, "stale_ref")
    assert "snapshot" in stale["hint"] and stale["data"]["ref"] == alpha
    error_of(post(api, "click", session=s, ref="e999"), 404, "not_found")
    error_of(post(api, "snapshot", session="http-nobody"), 404, "unknown_session")
    error_of(post(api, "snapshot", session=s, tab="t9"), 404, "unknown_tab")
    late = post(api, "wait", session=s, text="never shown", timeout="300")
    error_of(late, 504, "timeout")
    # After all that the session still works.
    assert "clicks: 0" in result(api, "snapshot", session=s)["snapshot"], (
        "the stale click did nothing"
    )


def test_health_and_openapi(api: httpx.Client, daemon: Daemon) -> None:
    health = api.get("/v1/health")
    assert health.status_code == 200 and health.json()["result"]["pid"] == daemon.pid()
    document = api.get("/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    assert document["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    operations = {
        op["operationId"]: op
        for path, item in document["paths"].items()
        if path.startswith("/v1/") and path != "/v1/health"
        for op in item.values()
    }
    assert set(operations) == set(COMMANDS)
    for name, op in operations.items():
        assert op["summary"] == COMMANDS[name].doc
        body = op["requestBody"]["content"]["application/json"]["schema"]
        jsonschema.Draft202012Validator.check_schema(body)
        assert {"400", "401", "403", "500", "default"} <= set(op["responses"]), name


def test_token_file_is_private_and_random(server: HttpServer, daemon: Daemon) -> None:
    path = daemon.settings.http_token_path
    assert server.token_path == path
    assert path.stat().st_mode & 0o777 == 0o600
    raw = base64.urlsafe_b64decode(server.token + "=" * (-len(server.token) % 4))
    assert len(raw) >= 32
    # A second server on the same state dir uses the same token.
    again = start_http(daemon.env)
    try:
        assert again.token == server.token
        with again.client() as client:
            assert client.get("/v1/health").status_code == 200
    finally:
        assert again.stop() == 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_non_loopback_bind_is_refused(daemon: Daemon) -> None:
    port = free_port()
    for host in ("0.0.0.0", "::"):
        refused = run_cli("serve", "--http", "--host", host, "--port", str(port), env=daemon.env)
        assert refused.rc == 7, refused
        assert refused.err.startswith(f"error [policy_denied]: refusing to listen on {host}")
        assert "--allow-remote" in refused.err and refused.out == ""
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0, "nothing listens"


def test_busy_port_is_a_clear_error(daemon: Daemon) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        busy = run_cli("serve", "--http", "--port", port, env=daemon.env)
    assert busy.rc == 2 and f"cannot listen on 127.0.0.1:{port}" in busy.err, busy
    assert "--port (0 picks a free one)" in busy.err and busy.out == ""


def test_serve_needs_http(daemon: Daemon) -> None:
    bare = run_cli("serve", env=daemon.env)
    assert bare.rc == 2 and "serve needs --http" in bare.err and "steadyhand mcp" in bare.err


def test_local_engine_and_clean_stop(site: str, tmp_path: Path) -> None:
    """--local: no daemon; SIGTERM closes the in-process browser and exits 0."""
    settings = make_settings(tmp_path / "state")
    env = {"STEADYHAND_STATE_DIR": str(settings.state_dir)}
    local = start_http(dict(os.environ) | env, "--local")
    try:
        with local.client() as api:
            result(api, "open", session="loc", url=f"{site}/form.html")
            assert "Place order" in result(api, "snapshot", session="loc")["snapshot"]
            error_of(post(api, "daemon.stop"), 400, "bad_request")
            assert find_owned_browsers(settings.state_dir), "the browser runs in serve"
    finally:
        code = local.stop()
    assert code == 0, local.stderr()
    assert "stopped" in local.stderr()
    assert not settings.socket_path.exists(), "no daemon was started"
    assert not find_owned_browsers(settings.state_dir), "the browser closed with the server"
