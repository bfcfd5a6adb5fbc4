"""The human approval gate against real daemons, real Chromium and pages on 127.0.0.1.

A gated call blocks in a worker thread while the test, as the person, lists approvals and
decides through the CLI; what the page shows proves whether anything was done.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from steadyhand import processes, rpc_client
from steadyhand.errors import SteadyhandError
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings, wait_until
from tests.webhook_receiver import Hook as Receiver

pytestmark = pytest.mark.integration

NAMES = "place order|delete"
PAGE = "approvals.html"
SECRET = "tok3n-s3cret-9271"


class Hook(Receiver):
    def body_for(self, approval_id: str) -> dict[str, Any]:
        assert wait_until(lambda: any(b["id"] == approval_id for b in self.bodies)), self.bodies
        return next(b for b in self.bodies if b["id"] == approval_id)


@pytest.fixture(scope="module")
def hook() -> Iterator[Hook]:
    receiver = Hook()
    yield receiver
    receiver.close()


def start(tmp_path_factory: pytest.TempPathFactory, **settings: Any) -> Daemon:
    handle = Daemon(make_settings(tmp_path_factory.mktemp("state"), **settings))
    rpc_client.start_daemon(handle.settings)
    return handle


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory, hook: Hook) -> Iterator[Daemon]:
    """Names, domains and uploads gated; a person has a minute to decide."""
    handle = start(
        tmp_path_factory,
        approval_names=NAMES,
        approval_domains="localhost",
        approval_uploads=True,
        approval_timeout_s=60,
        approval_webhook=hook.url,
    )
    yield handle
    handle.stop()


@pytest.fixture(scope="module")
def hasty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """Nobody decides within 1.5 s; its webhook points where nothing listens."""
    handle = start(
        tmp_path_factory,
        approval_names=NAMES,
        approval_timeout_s=1.5,
        approval_webhook="http://127.0.0.1:9/hook",
    )
    yield handle
    handle.stop()


# ---------------------------------------------------------------------- helpers


def in_background(d: Daemon, method: str, **params: Any) -> Future[Any]:
    """Start a call that will block on an approval; its future holds the result or error."""
    pool = ThreadPoolExecutor(1)
    future = pool.submit(d.call, method, **params)
    pool.shutdown(wait=False)
    return future


def pending_for(d: Daemon, session: str, command: str) -> dict[str, Any]:
    """The approval a call of `session` waits for, once `approvals` lists it."""
    found: list[dict[str, Any]] = []

    def listed() -> bool:
        found[:] = [
            a
            for a in d.call("approvals")["approvals"]
            if a["status"] == "pending" and a["session"] == session and a["command"] == command
        ]
        return bool(found)

    assert wait_until(listed, 30), f"no pending {command} approval for {session}"
    assert len(found) == 1, found
    return found[0]


def denial(future: Future[Any]) -> SteadyhandError:
    error = future.exception(timeout=60)
    assert isinstance(error, SteadyhandError), f"expected a denial, got {future.result()}"
    assert error.code == "approval_denied"
    return error


def done_text(d: Daemon, session: str, **tab: str) -> str:
    """What the fixture page says it has done (its buttons, checkbox, select and file input)."""
    match = re.search(r"Done so far: (.*)", d.snapshot(session, **tab))
    assert match, "the fixture page shows what it has done"
    return match.group(1)


def open_page(d: Daemon, session: str, site: str, query: str = "") -> str:
    d.call("open", session=session, url=f"{site}/{PAGE}{query}")
    page = d.snapshot(session)
    assert done_text(d, session) == "nothing"
    return page


def stored(d: Daemon, approval_id: str) -> dict[str, Any]:
    """The approval's row as the SQLite file holds it."""
    with sqlite3.connect(d.settings.store_path) as db:
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT * FROM approvals WHERE id = ?", (approval_id,)).fetchone()
    assert row is not None, f"approval {approval_id} is not stored"
    return dict(row)


# ---------------------------------------------------------------------- clicks


def test_gated_click_waits_for_approve_then_clicks(gated: Daemon, hook: Hook, site: str) -> None:
    s = "approve-click"
    order = find_ref(open_page(gated, s, site), "button", "Place order")
    clicking = in_background(gated, "click", session=s, ref=order)
    pending = pending_for(gated, s, "click")
    assert pending["target"] == f'{order} (button "Place order")'
    assert "approval_names" in pending["reason"] and pending["params"] == {"ref": order}
    assert not clicking.done() and done_text(gated, s) == "nothing", "nothing happens yet"

    sent = hook.body_for(pending["id"])
    assert sent["approve"] == f"steadyhand approve {pending['id']}"
    assert sent["deny"] == f"steadyhand deny {pending['id']}"
    assert (sent["session"], sent["command"], sent["target"]) == (s, "click", pending["target"])

    approved = gated.cli("approve", pending["id"], "--note", "go ahead")
    assert approved.rc == 0, approved.err
    assert "status: approved" in approved.out
    result = clicking.result(timeout=60)
    assert result["approval"]["id"] == pending["id"] and result["action"] == "click"
    assert done_text(gated, s) == "ordered"
    row = stored(gated, pending["id"])
    assert (row["status"], row["note"]) == ("approved", "go ahead")
    assert row["decided_at"] >= row["requested_at"]


def test_an_approved_click_acts_in_the_tab_it_was_approved_for(gated: Daemon, site: str) -> None:
    s = "pinned"
    order = find_ref(open_page(gated, s, site), "button", "Place order")
    clicking = in_background(gated, "click", session=s, ref=order)
    pending = pending_for(gated, s, "click")
    # Meanwhile another tab becomes current, where the same ref names another element.
    second = gated.call("tab.new", session=s, url=f"{site}/{PAGE}")["tab"]
    assert find_ref(gated.snapshot(s, tab=second), "button", "Delete") != order
    assert gated.cli("approve", pending["id"]).rc == 0
    assert clicking.result(timeout=60)["tab"] == "t1"
    assert done_text(gated, s, tab="t1") == "ordered"
    assert done_text(gated, s, tab=second) == "nothing"


def test_denied_click_does_nothing_and_is_logged(gated: Daemon, site: str) -> None:
    s = "deny-click"
    delete = find_ref(open_page(gated, s, site), "button", "Delete")
    clicking = in_background(gated, "click", session=s, ref=delete)
    pending = pending_for(gated, s, "click")
    refused = gated.cli("deny", pending["id"], "--note", "not that one")
    assert refused.rc == 0, refused.err

    error = denial(clicking)
    assert error.data["approval"] == pending["id"] and error.data["decision"] == "denied"
    assert error.data["note"] == "not that one" and "approval_names" in error.data["reason"]
    assert error.hint
    assert done_text(gated, s) == "nothing"
    logged = [
        row for row in gated.call("approvals", all=True)["approvals"] if row["id"] == pending["id"]
    ]
    assert [r["status"] for r in logged] == ["denied"]
    with sqlite3.connect(gated.settings.store_path) as db:
        codes = db.execute(
            "SELECT command, error_code FROM action_log WHERE session = ? AND command = 'click'",
            (s,),
        ).fetchall()
    assert codes == [("click", "approval_denied")]


def test_nobody_deciding_expires_within_its_bound(hasty: Daemon, site: str) -> None:
    s = "expire"
    order = find_ref(open_page(hasty, s, site), "button", "Place order")
    started = time.monotonic()
    error = hasty.fail("click", session=s, ref=order)
    took = time.monotonic() - started
    assert error.code == "approval_denied" and error.data["decision"] == "expired"
    assert 1.4 <= took < 1.5 + 8, took
    assert done_text(hasty, s) == "nothing"
    assert stored(hasty, error.data["approval"])["status"] == "expired"
    # Its webhook had nowhere to go: logged, and the gate worked all the same.
    assert wait_until(lambda: "approval webhook" in hasty.settings.log_path.read_text())


def test_ungated_click_is_not_delayed(gated: Daemon, site: str) -> None:
    s = "ungated"
    note = find_ref(open_page(gated, s, site), "button", "Add note")
    before = {a["id"] for a in gated.call("approvals", all=True)["approvals"]}
    started = time.monotonic()
    result = gated.call("click", session=s, ref=note)
    assert time.monotonic() - started < 10, "no wait anywhere near approval_timeout_s (60 s)"
    assert "approval" not in result and done_text(gated, s) == "noted"
    after = {a["id"] for a in gated.call("approvals", all=True)["approvals"]}
    assert after == before, "nobody was asked"


def test_locators_are_gated_by_their_elements_name(gated: Daemon, site: str) -> None:
    s = "locators"
    open_page(gated, s, site)
    # css=#order says nothing of the name: the gate reads it from the page.
    by_css = in_background(gated, "click", session=s, ref="css=#order")
    pending = pending_for(gated, s, "click")
    assert pending["target"] == 'css=#order (button "Place order")'
    assert gated.cli("deny", pending["id"]).rc == 0
    assert denial(by_css).data["decision"] == "denied"
    # A locator naming it is gated by its own text.
    by_role = in_background(gated, "click", session=s, ref='role=button[name="Delete"]')
    pending = pending_for(gated, s, "click")
    assert pending["target"] == 'role=button[name="Delete"]'
    assert gated.cli("deny", pending["id"]).rc == 0
    denial(by_role)
    assert done_text(gated, s) == "nothing"
    gated.call("click", session=s, ref="css=#note")  # not gated
    assert done_text(gated, s) == "noted"


def test_check_and_select_are_gated_by_name(gated: Daemon, site: str) -> None:
    s = "choices"
    page = open_page(gated, s, site)
    box = find_ref(page, "checkbox", "Delete my account")
    checking = in_background(gated, "check", session=s, ref=box)
    assert gated.cli("deny", pending_for(gated, s, "check")["id"]).rc == 0
    denial(checking)
    # The menu's name ("Action") is harmless; the option picked is not.
    menu = find_ref(page, "combobox", "Action")
    picking = in_background(gated, "select", session=s, ref=menu, values=["Delete everything"])
    pending = pending_for(gated, s, "select")
    assert "'Delete everything'" in pending["reason"]
    assert gated.cli("deny", pending["id"]).rc == 0
    denial(picking)
    assert done_text(gated, s) == "nothing"
    gated.call("select", session=s, ref=menu, values=["Keep"])  # not gated
    assert done_text(gated, s) == "picked keep"


def test_upload_is_gated_when_approval_uploads(gated: Daemon, site: str) -> None:
    s = "upload"
    attach = find_ref(open_page(gated, s, site), "button", "Attachment")
    uploads = gated.settings.state_dir / "uploads"
    uploads.mkdir(exist_ok=True)
    (uploads / "cv.txt").write_text("curriculum")
    sending = in_background(gated, "upload", session=s, ref=attach, files=[str(uploads / "cv.txt")])
    pending = pending_for(gated, s, "upload")
    assert pending["target"] == f'{attach} (button "Attachment") <- cv.txt'
    assert gated.cli("deny", pending["id"]).rc == 0
    denial(sending)
    assert done_text(gated, s) == "nothing"
    # A file outside the file roots is refused at once: nobody is asked about it.
    refused = gated.fail("upload", session=s, ref=attach, files=["/etc/hostname"])
    assert refused.code == "policy_denied"
    assert not [a for a in gated.call("approvals")["approvals"] if a["status"] == "pending"]


# ---------------------------------------------------------------------- navigation


def test_navigation_to_a_listed_domain_is_gated(
    gated: Daemon, hook: Hook, site: str, cross_site: str
) -> None:
    s = "domains"
    open_page(gated, s, site)  # 127.0.0.1 is not listed: not gated
    away = f"{cross_site}/nav-a.html?token={SECRET}"
    going = in_background(gated, "navigate", session=s, url=away)
    pending = pending_for(gated, s, "navigate")
    assert "localhost" in pending["reason"] and SECRET not in json.dumps(pending)
    assert gated.cli("deny", pending["id"]).rc == 0
    denial(going)
    assert gated.call("tabs", session=s)["tabs"][0]["url"].startswith(site)

    opening = in_background(gated, "tab.new", session=s, url=f"{cross_site}/nav-a.html")
    assert gated.cli("approve", pending_for(gated, s, "tab.new")["id"]).rc == 0
    assert opening.result(timeout=60)["url"].startswith(cross_site)
    # The secret in the denied URL reached neither the store, the webhook nor the log.
    assert hook.body_for(pending["id"])
    assert not any(SECRET.encode() in body for body in hook.raw)
    with sqlite3.connect(gated.settings.store_path) as db:
        rows = db.execute("SELECT * FROM approvals").fetchall()
    assert rows and SECRET not in json.dumps(rows)
    assert SECRET not in gated.settings.log_path.read_text()


def test_click_on_a_link_to_a_listed_domain_is_gated(
    gated: Daemon, site: str, cross_site: str
) -> None:
    s = "partner"
    page = open_page(gated, s, site, f"?partner={cross_site}")
    link = find_ref(page, "link", "Partner shop")
    following = in_background(gated, "click", session=s, ref=link)
    pending = pending_for(gated, s, "click")
    assert "leads to localhost" in pending["reason"]
    assert gated.cli("approve", pending["id"]).rc == 0
    result = following.result(timeout=60)
    assert result["navigated"] and result["url"].startswith(cross_site)


# ---------------------------------------------------------------------- asking explicitly


def test_request_approval_approved_and_denied(gated: Daemon) -> None:
    s = "explicit"
    asking = in_background(gated, "request_approval", session=s, reason="wire 500 EUR to Bob")
    pending = pending_for(gated, s, "request_approval")
    assert pending["reason"] == "wire 500 EUR to Bob"
    assert gated.cli("approve", pending["id"]).rc == 0
    granted = asking.result(timeout=60)
    assert (granted["approved"], granted["id"]) == (True, pending["id"])
    assert 0 < granted["approval"]["waited_ms"] < 60_000
    # Through the CLI, which waits past its deadline for the person; denied: exit code 7.
    pool = ThreadPoolExecutor(1)
    cli = pool.submit(gated.cli, "request_approval", "--session", s, "--reason", "delete repo")
    pool.shutdown(wait=False)
    pending = pending_for(gated, s, "request_approval")
    assert gated.cli("deny", pending["id"], "--note", "no way").rc == 0
    refused = cli.result(timeout=60)
    assert refused.rc == 7 and "approval_denied" in refused.err and "no way" in refused.err


def test_deciding_an_unknown_or_decided_id_is_a_clear_error(gated: Daemon) -> None:
    unknown = gated.cli("approve", "abc123")
    assert unknown.rc == 3 and "no approval 'abc123'" in unknown.err and "approvals" in unknown.err
    s = "twice"
    asking = in_background(gated, "request_approval", session=s, reason="twice")
    pending = pending_for(gated, s, "request_approval")
    assert gated.cli("deny", pending["id"]).rc == 0
    denial(asking)
    again = gated.fail("approve", id=pending["id"])
    assert again.code == "bad_request" and "already decided: denied" in again.message
    assert again.hint


def test_stopping_the_daemon_cancels_what_waits(tmp_path_factory: pytest.TempPathFactory) -> None:
    d = start(tmp_path_factory)  # nothing gated by settings; request_approval always is
    try:
        asking = in_background(d, "request_approval", session="bye", reason="before stop")
        pending = pending_for(d, "bye", "request_approval")
        assert d.cli("daemon", "stop").rc == 0
        assert denial(asking).data["decision"] == "cancelled"
    finally:
        d.stop()
    assert stored(d, pending["id"])["status"] == "cancelled"


def test_a_killed_daemons_pending_approvals_are_cancelled_by_the_next(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    d = start(tmp_path_factory)
    try:
        asking = in_background(d, "request_approval", session="killed", reason="before kill")
        pending = pending_for(d, "killed", "request_approval")
        pid = d.pid()
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert processes.wait_exit(pid)
        assert isinstance(asking.exception(timeout=60), SteadyhandError)
        assert stored(d, pending["id"])["status"] == "pending"
        rpc_client.start_daemon(d.settings)
        assert stored(d, pending["id"])["status"] == "cancelled"
        late = d.fail("approve", id=pending["id"])
        assert late.code == "bad_request" and "cancelled" in late.message
    finally:
        d.stop()
