"""`approver_token`: over HTTP an approval is decided only with the approver token (not the
API token the agent holds); the CLI, as the daemon's own user, still decides; MCP never.
A real daemon, a real `serve --http` process and real Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from steadyhand.fronts.approver import token_path
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon
from tests.http_server import HttpServer, start_http
from tests.integration.test_approvals import in_background, pending_for, start

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    handle = start(
        tmp_path_factory, approval_names="place order", approver_token=True, approval_timeout_s=60
    )
    yield handle
    handle.stop()


@pytest.fixture(scope="module")
def http(guarded: Daemon) -> Iterator[HttpServer]:
    env = guarded.env | {"STEADYHAND_APPROVER_TOKEN": "1"}
    server = start_http(env)
    yield server
    server.stop()


def test_only_the_approver_token_decides_over_http(
    guarded: Daemon, http: HttpServer, site: str
) -> None:
    s = "approver-http"
    guarded.call("open", session=s, url=f"{site}/approvals.html")
    order = find_ref(guarded.snapshot(s), "button", "Place order")
    clicking = in_background(guarded, "click", session=s, ref=order)
    pending = pending_for(guarded, s, "click")
    path = token_path(guarded.settings)
    assert path.stat().st_mode & 0o777 == 0o600
    approver = path.read_text().strip()
    assert approver != http.token

    with http.client() as client:
        url = f"{http.url}/v1/approve"
        agent = client.post(url, json={"id": pending["id"]})  # the API token only
        assert agent.status_code == 403
        assert agent.json()["error"]["code"] == "policy_denied"
        assert "approver token" in agent.json()["error"]["message"]
        wrong = client.post(url, json={"id": pending["id"]}, headers={"X-Steadyhand-Approver": "x"})
        assert wrong.status_code == 403
        assert not clicking.done(), "still waiting for a person"
        person = client.post(
            url, json={"id": pending["id"]}, headers={"X-Steadyhand-Approver": approver}
        )
        assert person.status_code == 200, person.text
    assert clicking.result(timeout=60)["approval"]["id"] == pending["id"]


def test_the_socket_owner_decides_with_the_cli(guarded: Daemon, site: str) -> None:
    s = "approver-cli"
    guarded.call("open", session=s, url=f"{site}/approvals.html")
    order = find_ref(guarded.snapshot(s), "button", "Place order")
    clicking = in_background(guarded, "click", session=s, ref=order)
    pending = pending_for(guarded, s, "click")
    denied = guarded.cli("deny", pending["id"])
    assert denied.rc == 0, denied.err
    assert clicking.exception(timeout=60) is not None
