"""Each action's postcondition, made to fail on purpose: the right code, nothing hidden;
and locators: one element or a clear refusal."""

from __future__ import annotations

import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon

pytestmark = pytest.mark.integration

PAGE = "gauntlet/inputs.html"


@pytest.fixture
def page(daemon: Daemon, site: str, request: pytest.FixtureRequest) -> tuple[str, str]:
    session = request.node.name.replace("[", "-").replace("]", "")[:60]
    daemon.call("open", session=session, url=f"{site}/{PAGE}")
    return session, daemon.snapshot(session)


def test_check_that_the_page_refuses(daemon: Daemon, page: tuple[str, str]) -> None:
    s, snap = page
    err = daemon.fail("check", session=s, ref=find_ref(snap, "checkbox", "Locked off"))
    assert err.code == "verification_failed" and "still unchecked" in err.message
    err = daemon.fail("uncheck", session=s, ref=find_ref(snap, "checkbox", "Stuck on"))
    assert err.code == "verification_failed" and "still checked" in err.message


def test_select_that_the_page_changes_back(daemon: Daemon, page: tuple[str, str]) -> None:
    s, snap = page
    err = daemon.fail("select", session=s, ref=find_ref(snap, "combobox", "Plan"), values=["Pro"])
    assert err.code == "verification_failed"
    assert '"Pro" is not selected after selecting it (selected now: "Basic")' in err.message


def test_hover_on_an_element_that_runs_away(daemon: Daemon, page: tuple[str, str]) -> None:
    # It jumps aside whenever the mouse arrives: Playwright never sees it hold still under
    # the pointer, so every try fails its precondition and the error says so.
    s, snap = page
    err = daemon.fail("hover", session=s, ref=find_ref(snap, "button", "Shy"), timeout="3s")
    assert err.code == "not_actionable" and "kept moving" in err.message, err.message


def test_click_expectations(daemon: Daemon, page: tuple[str, str]) -> None:
    s, snap = page
    found = daemon.call("find", session=s, role="note", name="Unsaved changes")
    notice = found["matches"][0]["ref"]
    done = daemon.call(
        "click",
        session=s,
        ref=find_ref(snap, "button", "Save"),
        expect_text="Saved",
        expect_ref_gone=notice,
        expect_url="inputs.html",
    )
    assert done["ok"] and done["dom_changed"] is True
    # The effect came 400 ms later, awaited by the expectations: it is among the changes.
    assert "Saved" in done["changes"] and "Unsaved changes" in done["changes"], done["changes"]
    err = daemon.fail(
        "click",
        session=s,
        ref=find_ref(snap, "button", "Does nothing"),
        expect_text="Welcome",
        timeout="2s",
    )
    assert err.code == "verification_failed" and "text='Welcome'" in err.message
    assert err.data["result"]["dom_changed"] is False, "the click ran and changed nothing"
    assert err.data.get("retries", 0) == 0, "an action that ran is never run again"


def test_locators_name_one_element_or_say_why_not(daemon: Daemon, page: tuple[str, str]) -> None:
    s, _snap = page
    done = daemon.call("type", session=s, ref="label=Phone", text="5550001111")
    assert done["data"]["reformatted"]["value"] == "(555) 000-1111"
    # Alternatives are tried in turn: the first that matches anything is used.
    done = daemon.call("check", session=s, ref='css=#nope || role=checkbox[name="Stuck on"]')
    assert done["ok"]
    err = daemon.fail("click", session=s, ref="role=button")
    assert err.code == "ambiguous" and err.data["count"] >= 4
    assert any('"Shy"' in c for c in err.data["candidates"])
    err = daemon.fail("click", session=s, ref="css=#nope", timeout="1500")
    assert err.code == "not_found" and "#nope" in err.message
    for bad in ("foo=bar", "role=button[bogus]", "e0"):
        assert daemon.fail("click", session=s, ref=bad).code == "bad_request", bad
    assert daemon.call("snapshot", session=s)["refs"] > 0, "the session is still fine"


def test_ambiguous_candidates_come_with_refs_and_their_rows(daemon: Daemon, site: str) -> None:
    # Identical buttons, one per row: never snapshotted, the agent can still pick one.
    s = "ambiguous-rows"
    daemon.call("open", session=s, url=f"{site}/people.html")
    err = daemon.fail("click", session=s, ref='role=button[name="Delete"]')
    assert err.code == "ambiguous" and err.data["count"] == 3, err.message
    listed = err.data["candidates"]
    assert [c.split(" (")[-1] for c in listed] == [
        'row "Alice")',
        'row "Bob")',
        'row "Carol")',
    ], listed
    refs = [c.split()[0] for c in listed]
    assert len(set(refs)) == 3 and all(r.startswith("e") for r in refs), listed
    assert all(' button "Delete" in "People" > table "Team" (row ' in c for c in listed), listed
    assert "'role=button[name=\"Delete\"]' matches 3 elements: " + listed[0] in err.message
    assert "ref" in err.hint and "artifacts" not in err.data
    # Each candidate's ref is in the registry: acting on Bob's deletes Bob's row only.
    daemon.call("click", session=s, ref=refs[1])
    page = daemon.snapshot(s)
    assert "2 people" in page and "Bob" not in page and "Alice" in page, page


def test_dom_changed_agrees_with_the_changes_shown(daemon: Daemon, site: str) -> None:
    # Typing sets a field's value: no DOM mutation, yet the changes show the new value.
    s = "dom-changed"
    daemon.call("open", session=s, url=f"{site}/form.html")
    name = find_ref(daemon.snapshot(s), "textbox", "Name")
    typed = daemon.call("type", session=s, ref=name, text="Ann")
    assert f"[ref={name}]: Ann" in typed["changes"] and typed["dom_changed"] is True, typed
    same = daemon.call("type", session=s, ref=name, text="Ann")  # the same text again
    assert same["changes"].startswith("# no changes") and same["dom_changed"] is False, same
