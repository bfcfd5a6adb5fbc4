"""Refs in iframes (same- and cross-origin) and shadow DOM, through SPA routes and re-renders."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon

pytestmark = pytest.mark.integration

PATIENT_MS = 60_000


def test_iframes_and_shadow_dom_are_typed_into_and_clicked(
    daemon: Daemon, site: str, cross_site: str
) -> None:
    s = "frames"
    cross = quote(f"{cross_site}/frame-inner.html?who=cross")
    daemon.call("open", session=s, url=f"{site}/frames.html?cross={cross}")
    page = daemon.snapshot(s)
    assert page.count('textbox "Inner name"') == 2, page
    same_box, cross_box = (find_ref(page, "textbox", "Inner name", n) for n in (0, 1))
    same_go, cross_go = (find_ref(page, "button", "Inner go", n) for n in (0, 1))
    daemon.call("type", session=s, ref=same_box, text="left")
    daemon.call("click", session=s, ref=same_go)
    daemon.call("type", session=s, ref=cross_box, text="right")
    done = daemon.call("click", session=s, ref=cross_go)
    assert "inner cross: right" in done["changes"], "changes come from inside frames too"
    daemon.call("type", session=s, ref=find_ref(page, "textbox", "Shadow name"), text="deep")
    daemon.call("click", session=s, ref=find_ref(page, "button", "Shadow go"))
    after = daemon.snapshot(s)
    assert "inner same: left" in after
    assert "inner cross: right" in after, "the cross-origin frame got its own text"
    assert "main: shadow deep" in after
    # Each frame's refs are its own: the same refs still name the same elements.
    assert find_ref(after, "button", "Inner go", 1) == cross_go


def test_a_frame_that_navigates_makes_its_refs_stale_but_not_the_pages(
    daemon: Daemon, site: str
) -> None:
    s = "frame-nav"
    daemon.call("open", session=s, url=f"{site}/frames.html")
    page = daemon.snapshot(s)
    inner_go = find_ref(page, "button", "Inner go")
    shadow_go = find_ref(page, "button", "Shadow go")
    frame = daemon.call("snapshot", session=s, frame="same-frame")["snapshot"]
    assert "Inner go" in frame and "Shadow go" not in frame
    by_ref = daemon.call("snapshot", session=s, frame=find_ref(page, "iframe", ""))["snapshot"]
    assert by_ref == frame
    not_a_frame = daemon.fail("snapshot", session=s, frame=shadow_go)
    assert not_a_frame.code == "bad_request" and "not an iframe" in not_a_frame.message
    loaded = daemon.call("click", session=s, ref=find_ref(page, "link", "Load again"))
    assert not loaded["navigated"], "the page stayed; only the frame loaded a new document"
    err = daemon.fail("click", session=s, ref=inner_go, timeout=PATIENT_MS)
    assert err.code == "stale_ref" and "frame" in err.message, err.message
    assert "inner same: " not in daemon.snapshot(s)
    daemon.call("click", session=s, ref=shadow_go)  # the main document's refs live on
    assert "main: shadow" in daemon.snapshot(s)


def test_spa_route_change_keeps_live_refs_and_refuses_gone_ones(daemon: Daemon, site: str) -> None:
    s = "spa"
    daemon.call("open", session=s, url=f"{site}/spa.html")
    page = daemon.snapshot(s)
    home, settings = find_ref(page, "link", "Home"), find_ref(page, "link", "Settings")
    save = find_ref(page, "button", "Save home")
    moved = daemon.call("click", session=s, ref=settings)
    assert moved["navigated"] and moved["url"].endswith("?settings")
    assert "Nickname" in moved["changes"] and "Save home" in moved["changes"]
    err = daemon.fail("click", session=s, ref=save, timeout=PATIENT_MS)
    assert err.code == "stale_ref" and "no longer on the page" in err.message
    assert "saves: 0" in daemon.snapshot(s), "the stale click did nothing"
    back_home = daemon.call("click", session=s, ref=home)  # same document: the ref lives
    assert back_home["reresolved"] == {}
    # The home view was drawn anew: its button is a new element, found by its identity.
    again = daemon.call("click", session=s, ref=save)
    assert list(again["reresolved"]) == [save]
    assert "saves: 1" in daemon.snapshot(s)


def test_duplicate_names_are_told_apart_by_row_and_nth(daemon: Daemon, site: str) -> None:
    s = "people"
    daemon.call("open", session=s, url=f"{site}/people.html")
    page = daemon.snapshot(s)
    deletes = [find_ref(page, "button", "Delete", n) for n in range(3)]
    assert len(set(deletes)) == 3
    assert f'row: Bob | bob@example.com | button "Delete" [ref={deletes[1]}]' in page
    daemon.call("click", session=s, ref=deletes[1])
    after = daemon.snapshot(s)
    assert "Bob" not in after and "Alice" in after and "Carol" in after
    # Every row was redrawn; Carol's old ref still means Carol's button (row context).
    done = daemon.call("click", session=s, ref=deletes[2])
    assert list(done["reresolved"]) == [deletes[2]]
    final = daemon.snapshot(s)
    assert "Carol" not in final and "Alice" in final and "1 people" in final


def test_find_returns_refs_with_context(daemon: Daemon, site: str) -> None:
    s = "find"
    daemon.call("open", session=s, url=f"{site}/people.html")
    found = daemon.call("find", session=s, role="button", name="delete")
    assert found["total"] == 3
    carol = found["matches"][2]
    assert carol["near"] == 'row "Carol"' and carol["name"] == "Delete"
    assert "table" in carol["context"] and "People" in carol["context"]
    daemon.call("click", session=s, ref=carol["ref"])
    assert "2 people" in daemon.snapshot(s)
    text = daemon.call("find", session=s, text="bob@example")
    assert text["total"] == 1 and text["matches"][0]["role"] == "cell"
    limited = daemon.call("find", session=s, role="button", limit=1)
    assert len(limited["matches"]) == 1 and "more" in limited["text"]
    assert daemon.call("find", session=s, text="no such thing")["total"] == 0
    bad = daemon.fail("find", session=s)
    assert bad.code == "bad_request" and "--role" in bad.message
