"""A tab restored from a checkpoint (a crash recovery, `session restore`) keeps its history:
`back` goes to the pages it was on before, loaded from the checkpoint's record, and says so;
past the oldest saved page it says there is none, instead of landing on a blank page."""

from __future__ import annotations

import pytest

from tests.conftest import Daemon

pytestmark = pytest.mark.integration


def test_back_after_a_restore_walks_the_saved_history(daemon: Daemon, site: str) -> None:
    s = "history"
    daemon.call("open", session=s, url=f"{site}/nav-a.html")
    daemon.call("navigate", session=s, url=f"{site}/nav-b.html")
    daemon.call("navigate", session=s, url=f"{site}/chaos.html")
    daemon.call("session.suspend", session=s)
    daemon.call("session.restore", session=s)

    first = daemon.call("back", session=s, snapshot=False)
    assert first["url"] == f"{site}/nav-b.html" and first["navigated"] is True
    assert "restored after a crash" in first["history"]
    second = daemon.call("back", session=s, snapshot=False)
    assert second["url"] == f"{site}/nav-a.html"
    last = daemon.call("back", session=s, snapshot=False)
    assert last["navigated"] is False and last["url"] == f"{site}/nav-a.html"
    assert "no page before this one" in last["history"]

    # Pages visited after the restore are the browser's own history again.
    daemon.call("navigate", session=s, url=f"{site}/chaos-b.html")
    native = daemon.call("back", session=s, snapshot=False)
    assert native["url"] == f"{site}/nav-a.html" and native.get("history") is None

    # A second restore keeps what the first one had, and what came after.
    daemon.call("navigate", session=s, url=f"{site}/chaos-b.html")
    daemon.call("session.suspend", session=s)
    daemon.call("session.restore", session=s)
    walked = [daemon.call("back", session=s, snapshot=False)["url"] for _ in range(2)]
    assert walked == [f"{site}/nav-a.html", f"{site}/nav-a.html"]
    daemon.call("close", session=s)


def test_back_from_a_tab_s_first_page_stays_there(daemon: Daemon, site: str) -> None:
    """A new tab starts blank; `back` from its first page says there is no page before
    (as the command's doc has it) instead of showing the blank start page."""
    s = "first-page"
    daemon.call("open", session=s, url=f"{site}/nav-a.html")
    stayed = daemon.call("back", session=s, snapshot=False)
    assert stayed["navigated"] is False and stayed["url"] == f"{site}/nav-a.html"
    daemon.call("navigate", session=s, url=f"{site}/nav-b.html")
    assert daemon.call("back", session=s, snapshot=False)["url"] == f"{site}/nav-a.html"
    daemon.call("close", session=s)
