"""The HTTP fronts' guards as plain functions: token file, bind check, Guard's decisions."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import pytest

from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.http.security import (
    BodyTooLarge,
    Guard,
    Message,
    Receive,
    Scope,
    Send,
    check_bind,
    load_or_create_token,
)

TOKEN = "t" * 43
CAP = 100


def settings_in(tmp_path: Path) -> Settings:
    return Settings(state_dir=tmp_path / "state")


def test_token_is_created_private_random_and_kept(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    token = load_or_create_token(settings)
    path = settings.http_token_path
    assert path.stat().st_mode & 0o777 == 0o600
    assert settings.state_dir.stat().st_mode & 0o777 == 0o700
    assert path.read_text() == token + "\n"
    assert len(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))) == 32
    assert load_or_create_token(settings) == token, "the file is reused"
    assert sorted(p.name for p in settings.state_dir.iterdir()) == ["http.token"]
    other = settings_in(tmp_path / "other")
    assert load_or_create_token(other) != token, "each state dir draws its own"


def test_token_file_readable_by_others_or_short_is_refused(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    load_or_create_token(settings)
    path = settings.http_token_path
    path.chmod(0o640)
    with pytest.raises(SteadyhandError) as loose:
        load_or_create_token(settings)
    assert loose.value.code == ErrorCode.POLICY_DENIED and "chmod 600" in loose.value.hint
    path.chmod(0o600)
    path.write_text("short\n")
    with pytest.raises(SteadyhandError) as short:
        load_or_create_token(settings)
    assert short.value.code == ErrorCode.POLICY_DENIED and "remove the file" in short.value.hint
    path.unlink()
    assert len(load_or_create_token(settings)) >= 43, "a removed file is made again"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost"])
def test_loopback_binds_are_allowed(host: str) -> None:
    check_bind(host, allow_remote=False)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7", "10.0.0.1", "2001:db8::1"])
def test_other_binds_need_allow_remote(host: str) -> None:
    with pytest.raises(SteadyhandError) as refused:
        check_bind(host, allow_remote=False)
    assert refused.value.code == ErrorCode.POLICY_DENIED
    assert host in refused.value.message and "--allow-remote" in refused.value.hint
    check_bind(host, allow_remote=True)


def guard(allowed_hosts: frozenset[str] = frozenset()) -> Guard:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise AssertionError("not reached")

    return Guard(app, TOKEN, CAP, allowed_hosts)


GOOD = {"host": "127.0.0.1:8787", "authorization": f"Bearer {TOKEN}"}


@pytest.mark.parametrize(
    ("method", "headers", "status"),
    [
        ("POST", GOOD, None),
        ("GET", GOOD, None),
        ("POST", GOOD | {"authorization": f"bearer  {TOKEN}"}, None),
        ("POST", {"host": "127.0.0.1"}, 401),
        ("POST", GOOD | {"authorization": f"Basic {TOKEN}"}, 401),
        ("POST", GOOD | {"authorization": f"Bearer {TOKEN}x"}, 401),
        ("POST", GOOD | {"authorization": "Bearer "}, 401),
        ("GET", GOOD | {"authorization": TOKEN}, 401),
        ("POST", GOOD | {"sec-fetch-site": "cross-site"}, 403),
        ("POST", GOOD | {"sec-fetch-site": "same-origin"}, None),
        ("POST", GOOD | {"sec-fetch-site": "none"}, None),
        ("GET", GOOD | {"sec-fetch-site": "cross-site"}, None),  # reads change nothing
        ("POST", GOOD | {"origin": "https://evil.example"}, 403),
        ("POST", GOOD | {"origin": "null"}, 403),
        ("POST", GOOD | {"origin": "http://localhost.evil.example"}, 403),
        ("POST", GOOD | {"origin": "http://127.0.0.1:3000"}, None),
        ("POST", GOOD | {"origin": "http://[::1]:3000"}, None),
        ("POST", GOOD | {"host": "evil.example"}, 403),
        ("GET", GOOD | {"host": "evil.example:8787"}, 403),
        ("GET", GOOD | {"host": "localhost:8787"}, None),
        ("GET", GOOD | {"host": "[::1]:8787"}, None),
        ("GET", {"authorization": f"Bearer {TOKEN}"}, None),  # HTTP/1.0: no Host
    ],
)
def test_guard_decisions(method: str, headers: dict[str, str], status: int | None) -> None:
    refusal = guard().refusal(method, headers)
    assert (refusal[0] if refusal else None) == status, refusal


def test_guard_host_check_runs_before_the_token() -> None:
    refusal = guard().refusal("GET", {"host": "evil.example"})
    assert refusal is not None and refusal[:2] == (403, "forbidden")


def test_allowed_hosts_extend_the_host_check() -> None:
    headers = GOOD | {"host": "box.lan:8787"}
    assert guard().refusal("GET", headers) is not None
    assert guard(frozenset({"box.lan"})).refusal("GET", headers) is None


def run_guard(
    headers: dict[str, str], chunks: list[bytes]
) -> tuple[list[Message], list[Exception]]:
    """Send a request through a Guard around an app that reads the whole body."""
    sent: list[Message] = []
    raised: list[Exception] = []
    pending = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]

    async def receive() -> Message:
        return pending.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        more = True
        try:
            while more:
                more = (await receive()).get("more_body", False)
        except BodyTooLarge as exc:
            raised.append(exc)
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})

    scope: dict[str, Any] = {
        "type": "http",
        "method": "POST",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    asyncio.run(Guard(app, TOKEN, CAP)(scope, receive, send))
    return sent, raised


def test_guard_refuses_a_declared_length_over_the_cap_unread() -> None:
    sent, raised = run_guard(GOOD | {"content-length": str(CAP + 1)}, [b"x" * (CAP + 1)])
    assert sent[0]["status"] == 413 and not raised
    body = json.loads(sent[1]["body"])
    assert body == {"ok": False, "error": body["error"]}
    assert body["error"]["code"] == "body_too_large"
    sent, _ = run_guard(GOOD | {"content-length": "12abc"}, [b""])
    assert sent[0]["status"] == 413, "a Content-Length that is no number"


def test_guard_caps_a_chunked_body_while_it_is_read() -> None:
    sent, raised = run_guard(GOOD, [b"x" * 60, b"x" * 60])
    assert not sent and len(raised) == 1, "the app sees BodyTooLarge, not the body"
    sent, raised = run_guard(GOOD, [b"x" * 50, b"x" * 50])
    assert sent[0]["status"] == 200 and not raised, "exactly the cap is allowed"


def test_guard_refusals_answer_json_with_www_authenticate_on_401() -> None:
    sent, _ = run_guard({"host": "127.0.0.1"}, [b"{}"])
    assert sent[0]["status"] == 401
    headers = dict(sent[0]["headers"])
    assert headers[b"www-authenticate"].startswith(b"Bearer")
    assert headers[b"content-type"] == b"application/json"
    assert json.loads(sent[1]["body"])["error"]["code"] == "unauthorized"

    assert TOKEN.encode() not in sent[1]["body"]
