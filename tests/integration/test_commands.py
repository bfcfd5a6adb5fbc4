"""Every command of the first slice against real Chromium and pages on 127.0.0.1."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from steadyhand.call import STAGES
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon

pytestmark = pytest.mark.integration


def value_of(snapshot: str, ref: str) -> str:
    """The value a snapshot shows for a ref's element (`- textbox "X" [ref=e5]: value`)."""
    match = re.search(rf"\[ref={ref}\][^\n]*?: (.*)$", snapshot, re.M)
    assert match, f"{ref} shows no value"
    return match.group(1)


def test_form_round_trip(daemon: Daemon, site: str) -> None:
    s = "form"
    opened = daemon.call("open", session=s, url=f"{site}/form.html")
    assert opened["tab"] == "t1" and opened["status"] == 200 and opened["title"] == "Form fixture"
    page = daemon.snapshot(s)
    assert 'heading "Order"' in page
    name, pw = find_ref(page, "textbox", "Name"), find_ref(page, "textbox", "Password")

    typed = daemon.call("type", session=s, ref=name, text="Grace")
    assert typed["action"] == "type" and typed["ref"] == name and not typed["navigated"]
    daemon.call("fill", session=s, fields={pw: "s3cret!"})
    chosen = daemon.call(
        "select", session=s, ref=find_ref(page, "combobox", "Size"), values=["Large"]
    )
    assert chosen["data"]["selected"] == ["l"]
    many = daemon.call(
        "select", session=s, ref=find_ref(page, "listbox", "Toppings"), values=["Cheese", "Basil"]
    )
    assert many["data"]["selected"] == ["Cheese", "Basil"]
    daemon.call("check", session=s, ref=find_ref(page, "checkbox", "Gift wrap"))
    daemon.call("uncheck", session=s, ref=find_ref(page, "checkbox", "Newsletter"))
    daemon.call("click", session=s, ref=find_ref(page, "button", "Place order"))

    after = daemon.snapshot(s)
    assert "ordered l for Grace with Cheese+Basil gift=true news=false pwlen=7" in after
    assert "s3cret!" not in after, "password values never appear in snapshots"
    assert value_of(after, name) == "Grace"


def test_type_submit_presses_enter(daemon: Daemon, site: str) -> None:
    s = "submit"
    daemon.call("open", session=s, url=f"{site}/form.html")
    page = daemon.snapshot(s)
    daemon.call("type", session=s, ref=find_ref(page, "textbox", "Name"), text="Lin", submit=True)
    assert "ordered s for Lin" in daemon.snapshot(s)


def test_type_slowly_replaces_value(daemon: Daemon, site: str) -> None:
    s = "slowly"
    daemon.call("open", session=s, url=f"{site}/form.html")
    ref = find_ref(daemon.snapshot(s), "textbox", "Name")
    daemon.call("type", session=s, ref=ref, text="first")
    daemon.call("type", session=s, ref=ref, text="second", slowly=True)
    assert value_of(daemon.snapshot(s), ref) == "second"


def test_hover_double_click_and_press(daemon: Daemon, site: str) -> None:
    s = "mouse"
    daemon.call("open", session=s, url=f"{site}/form.html")
    page = daemon.snapshot(s)
    daemon.call("hover", session=s, ref=find_ref(page, "button", "Hover target"))
    daemon.call("click", session=s, ref=find_ref(page, "button", "Double target"), double=True)
    daemon.call("press", session=s, key="Escape")
    after = daemon.snapshot(s)
    assert "hovered yes" in after
    assert "double clicked" in after and "not double clicked" not in after
    assert "escape pressed" in after
    bad = daemon.fail("press", session=s, key="NoSuchKey")
    assert bad.code == "bad_request" and "unknown key" in bad.message


def test_press_on_ref_submits(daemon: Daemon, site: str) -> None:
    s = "press-ref"
    daemon.call("open", session=s, url=f"{site}/form.html")
    ref = find_ref(daemon.snapshot(s), "textbox", "Name")
    daemon.call("type", session=s, ref=ref, text="Kay")
    daemon.call("press", session=s, key="Enter", ref=ref)
    assert "ordered s for Kay" in daemon.snapshot(s)


def test_navigate_back_forward_reload(daemon: Daemon, site: str) -> None:
    s = "history"
    daemon.call("navigate", session=s, url=f"{site}/nav-a.html")
    page = daemon.snapshot(s)
    went = daemon.call("click", session=s, ref=find_ref(page, "link", "Go to B"))
    assert went["navigated"] and went["url"].endswith("/nav-b.html") and went["title"] == "Page B"
    back = daemon.call("back", session=s)
    assert back["url"].endswith("/nav-a.html") and back["navigated"]
    fwd = daemon.call("forward", session=s)
    assert fwd["url"].endswith("/nav-b.html")
    stuck = daemon.call("forward", session=s)
    assert stuck["navigated"] is False and stuck["url"].endswith("/nav-b.html")
    page = daemon.snapshot(s)
    daemon.call("click", session=s, ref=find_ref(page, "button", "Count"))
    assert "count 1" in daemon.snapshot(s)
    reloaded = daemon.call("reload", session=s)
    assert reloaded["status"] == 200
    assert "count 0" in daemon.snapshot(s)


def test_screenshot_page_element_and_path(daemon: Daemon, site: str, tmp_path: Path) -> None:
    s = "shots"
    daemon.call("open", session=s, url=f"{site}/form.html")
    page = daemon.snapshot(s)
    default = daemon.call("screenshot", session=s)
    path = Path(default["path"])
    assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.is_relative_to(daemon.settings.artifacts_dir / s)
    assert default["bytes"] == path.stat().st_size
    target = daemon.settings.artifacts_dir / "mine" / "button.png"  # a path in a file root
    element = daemon.call(
        "screenshot", session=s, ref=find_ref(page, "button", "Place order"), path=str(target)
    )
    assert element["path"] == str(target) and target.read_bytes()[:4] == b"\x89PNG"
    assert target.stat().st_size < path.stat().st_size
    full = daemon.call("screenshot", session=s, full_page=True)
    assert Path(full["path"]).is_file()
    relative = daemon.call("screenshot", session=s, path="shot.png")  # in the session's folder
    assert relative["path"] == str(daemon.settings.artifacts_dir / s / "shot.png")
    outside = daemon.fail("screenshot", session=s, path=str(tmp_path / "shot.png"))
    assert outside.code == "policy_denied" and not (tmp_path / "shot.png").exists()


def test_tabs_new_focus_close_and_popups(daemon: Daemon, site: str) -> None:
    s = "tabs"
    daemon.call("open", session=s, url=f"{site}/nav-a.html")
    second = daemon.call("tab.new", session=s, url=f"{site}/form.html")
    assert second["tab"] == "t2"
    tabs = daemon.call("tabs", session=s)["tabs"]
    assert [(t["id"], t["current"]) for t in tabs] == [("t1", False), ("t2", True)]
    assert tabs[1]["title"] == "Form fixture"

    daemon.call("tab.focus", session=s, tab="t1")
    assert daemon.snapshot(s).count('heading "Page A"') == 1, "snapshot follows the current tab"
    page = daemon.snapshot(s)
    daemon.call("click", session=s, ref=find_ref(page, "link", "Open B in a new tab"))
    # The popup's page event arrives asynchronously after the click returns.
    for _ in range(50):
        ids = [t["id"] for t in daemon.call("tabs", session=s)["tabs"]]
        if len(ids) == 3:
            break
        time.sleep(0.05)
    assert ids == ["t1", "t2", "t3"], "a popup becomes a tab of the session"

    closed = daemon.call("tab.close", session=s, tab="t2")
    assert [t["id"] for t in closed["tabs"]] == ["t1", "t3"]
    blank = daemon.call("tab.new", session=s)
    assert blank["tab"] == "t4", "tab ids are never reused"
    assert blank["url"] == "about:blank" and blank["navigated"] is False
    missing = daemon.fail("tab.focus", session=s, tab="t2")
    assert missing.code == "unknown_tab" and "t1" in missing.hint
    assert daemon.call("snapshot", session=s, tab="t3")["title"] == "Page B"


def test_sessions_are_isolated_and_closable(daemon: Daemon, site: str) -> None:
    daemon.call("open", session="iso-a", url=f"{site}/nav-a.html")
    daemon.call("open", session="iso-b", url=f"{site}/form.html")
    names = {x["name"] for x in daemon.call("sessions")["sessions"]}
    assert {"iso-a", "iso-b"} <= names
    assert daemon.call("snapshot", session="iso-a")["title"] == "Page A"
    assert daemon.call("snapshot", session="iso-b")["title"] == "Form fixture"
    assert daemon.call("close", session="iso-a") == {"closed": "iso-a", "videos": []}
    # A second close is done already, not an error; a session never opened still is one.
    again = daemon.call("close", session="iso-a")
    assert again == {"closed": "iso-a", "videos": [], "already": True}
    assert daemon.fail("close", session="iso-never").code == "unknown_session"
    gone = daemon.fail("snapshot", session="iso-a")
    assert gone.code == "unknown_session"
    assert daemon.call("snapshot", session="iso-b")["title"] == "Form fixture"
    assert daemon.call("daemon.status")["browser_running"] is True


def test_snapshot_depth_limits_the_tree(daemon: Daemon, site: str) -> None:
    s = "depth"
    daemon.call("open", session=s, url=f"{site}/form.html")
    full = daemon.snapshot(s)
    shallow = daemon.snapshot(s, depth=1)
    assert len(shallow) < len(full)
    assert "Place order" in full and "Place order" not in shallow


def test_concurrent_first_calls_share_one_session(daemon: Daemon, site: str) -> None:
    results: list[str] = []

    def open_one() -> None:
        results.append(daemon.call("open", session="race", url=f"{site}/nav-a.html")["tab"])

    threads = [threading.Thread(target=open_one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tabs = [t["id"] for t in daemon.call("tabs", session="race")["tabs"]]
    assert sorted(results) == sorted(tabs) and len(set(tabs)) == 3, (results, tabs)
    assert [s["name"] for s in daemon.call("sessions")["sessions"]].count("race") == 1


def test_sessions_do_not_share_cookies_or_storage(daemon: Daemon, site: str) -> None:
    daemon.call("open", session="store-a", url=f"{site}/storage.html")
    page = daemon.snapshot("store-a")
    assert "cookie none local none session none" in page
    daemon.call("click", session="store-a", ref=find_ref(page, "button", "Remember"))
    assert "cookie alice local alice session alice" in daemon.snapshot("store-a")
    daemon.call("tab.new", session="store-a", url=f"{site}/storage.html")
    assert "cookie alice local alice" in daemon.snapshot("store-a"), "tabs of a session share"
    daemon.call("open", session="store-b", url=f"{site}/storage.html")
    assert "cookie none local none session none" in daemon.snapshot("store-b")


def test_an_act_says_where_its_time_went(daemon: Daemon, site: str) -> None:
    s = "timing"
    daemon.call("open", session=s, url=f"{site}/form.html")
    page = daemon.snapshot(s)
    order = find_ref(page, "button", "Place order")
    run = daemon.cli("click", order, "--session", s, "--json")
    assert run.rc == 0, run.err
    done = run.json["result"]
    timing = done["timing"]
    # The input went by steadyhand's own route: the button is in plain view.
    assert done["route"] == "cdp", done
    assert list(timing) == list(STAGES), done["timing"]
    assert all(spent >= 0 for spent in timing.values())
    # The record is written after the duration is taken; the rest happened within it.
    before_record = sum(v for stage, v in timing.items() if stage != "record")
    assert before_record <= done["duration_ms"], done
    typed = daemon.call("type", session=s, ref=find_ref(page, "textbox", "Name"), text="Kim")
    assert set(typed["timing"]) == set(STAGES) and typed["timing"]["input"] > 0
    assert typed["route"] == "cdp", typed
    # What a person or a model reads of an act stays one line and its changes.
    said = daemon.cli("click", order, "--session", s)
    assert said.rc == 0 and "timing" not in said.out and "resolve" not in said.out, said.out
