"""Everything a person can act on gets a ref, on pages built with real widget libraries
(tests/fixtures/site/widgets, vendored from npm): acted on by ref through the daemon, and
checked through the page's own state (`pageState()`)."""

from __future__ import annotations

from typing import Any

import pytest

from steadyhand.snapshot.lookup import refs_in
from tests.conftest import WHOLE_SNAPSHOT as WHOLE
from tests.conftest import Daemon

pytestmark = pytest.mark.integration


def state(daemon: Daemon, session: str) -> Any:
    return daemon.call("evaluate", session=session, expression="pageState()")["value"]


def open_widget(daemon: Daemon, site: str, session: str, page: str) -> str:
    daemon.call("open", session=session, url=f"{site}/widgets/{page}")
    return daemon.snapshot(session)


def ref_of(snapshot: str, role: str, name: str) -> str:
    found = [ref for ref, r, n in refs_in(snapshot) if r == role and n == name]
    assert len(found) == 1, f"{role} {name!r}: {found}\n{snapshot}"
    return found[0]


def ref_by_text(snapshot: str, role: str, text: str) -> str:
    """The ref of the one `role` element whose line ends with `: text`."""
    found = [
        ref
        for line in snapshot.splitlines()
        if line.strip().startswith(f"- {role} ") and line.endswith(f": {text}")
        for ref, _, _ in refs_in(line)[:1]
    ]
    assert len(found) == 1, f"{role} {text!r}: {found}\n{snapshot}"
    return found[0]


def line_of(snapshot: str, needle: str) -> str:
    lines = [line for line in snapshot.splitlines() if needle in line]
    assert lines, f"{needle!r} not in\n{snapshot}"
    return lines[0]


def test_a_script_made_link_without_href_gets_a_ref(daemon: Daemon, site: str) -> None:
    s = "datepicker"
    shot = open_widget(daemon, site, s, "datepicker.html")
    before = state(daemon, s)
    nxt = ref_of(shot, "link", "Next")  # an <a> without href, made a link by its handler
    daemon.call("click", session=s, ref=nxt)
    assert state(daemon, s)["month"] != before["month"]


def test_icon_only_buttons_are_named_from_what_a_person_sees(daemon: Daemon, site: str) -> None:
    s = "icons"
    shot = open_widget(daemon, site, s, "icons.html")
    reply = ref_of(shot, "button", "reply")
    assert "[named-by=icon]" in line_of(shot, f"[ref={reply}]"), "a derived name is marked"
    archive = ref_of(shot, "button", "Archive")  # its title attribute
    daemon.call("click", session=s, ref=reply)
    daemon.call("click", session=s, ref=archive)
    log = state(daemon, s)["log"]
    assert len(log) == 2, log


def test_a_visually_hidden_checkbox_is_toggled_through_what_is_visible(
    daemon: Daemon, site: str
) -> None:
    s = "shadow"
    shot = open_widget(daemon, site, s, "shadow-checkbox.html")
    before = state(daemon, s)
    for name in ("Subscribe", "Dark mode"):
        daemon.call("click", session=s, ref=ref_of(shot, "checkbox", name))
    after = state(daemon, s)
    assert after != before
    assert all(v is True for v in after.values()), after


def test_plain_elements_with_handlers_and_states(daemon: Daemon, site: str) -> None:
    s = "listeners"
    shot = open_widget(daemon, site, s, "listeners.html")
    assert "[multiline]" in line_of(shot, 'textbox "Notes"'), "a <textarea> is multi-line"
    assert "[multiline]" not in line_of(shot, 'textbox "Title"'), "an <input> is not"
    assert "[checked=mixed]" in shot
    assert "[required]" in shot and "[invalid]" in shot
    assert "[expanded=false]" in shot
    clickable = [ref for ref, role, _ in refs_in(shot) if role == "generic"]
    assert len(clickable) >= 2, shot
    before = state(daemon, s)
    daemon.call("click", session=s, ref=clickable[0])
    assert state(daemon, s) != before


def test_sliders_show_value_min_and_max(daemon: Daemon, site: str) -> None:
    s = "sliders"
    shot = open_widget(daemon, site, s, "sliders.html")
    sliders = [line for line in shot.splitlines() if "- slider" in line]
    assert len(sliders) >= 3, shot
    for line in sliders:
        assert "[value=" in line and "[min=" in line and "[max=" in line, line


def test_contenteditable_and_a_script_written_iframe_are_textboxes(
    daemon: Daemon, site: str
) -> None:
    s = "editor"
    shot = open_widget(daemon, site, s, "editor.html")
    boxes = [ref for ref, role, _ in refs_in(shot) if role == "textbox"]
    assert len(boxes) >= 2, shot
    for ref, text in zip(boxes[:2], ("hello pell", "hello frame"), strict=True):
        daemon.call("click", session=s, ref=ref)
        daemon.call("type", session=s, ref=ref, text=text)
    texts = " ".join(str(v) for v in state(daemon, s).values())
    assert "hello pell" in texts and "hello frame" in texts, texts


def test_a_clickable_table_cell(daemon: Daemon, site: str) -> None:
    s = "cells"
    shot = open_widget(daemon, site, s, "table-cells.html")
    row = line_of(shot, "78 High Street, Hampton")
    cell = ref_of(row, "cell", "78 High Street, Hampton")
    assert f'cell "78 High Street, Hampton" [ref={cell}]' in row, "a ref: it is clicked"
    daemon.call("click", session=s, ref=cell)
    assert state(daemon, s)["address"] == "78 High Street, Hampton"


def test_a_sortable_list_item_is_dragged_before_another(daemon: Daemon, site: str) -> None:
    s = "sortable"
    shot = open_widget(daemon, site, s, "sortable.html")
    alpha, charlie = (ref_by_text(shot, "listitem", name) for name in ("Alpha", "Charlie"))
    assert "[draggable]" in line_of(shot, f"[ref={alpha}]")
    daemon.call("drag", session=s, source=alpha, target=charlie, to_position="bottom")
    assert state(daemon, s)["order"] == ["Bravo", "Charlie", "Alpha", "Delta"]


def test_boxes_are_dropped_on_targets_and_at_offsets(daemon: Daemon, site: str) -> None:
    s = "boxes"
    shot = open_widget(daemon, site, s, "drag-boxes.html")
    red = ref_by_text(shot, "generic", "Red")
    zone_b = ref_by_text(shot, "generic", "Zone B")
    assert "[drop-target]" in line_of(shot, f"[ref={zone_b}]")
    daemon.call("drag", session=s, source=red, target=zone_b)
    assert state(daemon, s)["red"] == "Zone B"
    puck = ref_by_text(shot, "generic", "Puck")
    before = state(daemon, s)["puck"]
    bad = daemon.fail("drag", session=s, source=puck, target=puck, offset="ten")
    assert bad.code == "bad_request" and "--offset" in bad.message
    assert state(daemon, s)["puck"] == before, "a bad request moves nothing"
    # Onto itself at an offset from its corner: a point relative to where it is.
    daemon.call("drag", session=s, source=puck, target=puck, offset="120,50")
    after = state(daemon, s)["puck"]
    assert after["x"] > before["x"] and after["y"] > before["y"], (before, after)


def test_text_is_selected_from_one_phrase_to_another(daemon: Daemon, site: str) -> None:
    s = "select"
    shot = open_widget(daemon, site, s, "select-text.html")
    first = next(ref for ref, role, _ in refs_in(shot) if role == "paragraph")
    done = daemon.call("select-text", session=s, ref=first, from_text="quick", to_text="brown")
    assert done["data"]["selected"] == "quick brown"
    assert state(daemon, s)["selection"] == "quick brown"
    missing = daemon.fail("select-text", session=s, ref=first, from_text="purple")
    assert missing.code == "not_found" and "purple" in missing.message


def test_a_field_that_consumes_each_key_is_typed_into(daemon: Daemon, site: str) -> None:
    s = "terminal"
    shot = open_widget(daemon, site, s, "terminal.html")
    command = ref_of(shot, "textbox", "Command")
    done = daemon.call("type", session=s, ref=command, text="ls", submit=True)
    page = state(daemon, s)
    assert "README.md" in page["output"] and page["input"] == ""
    assert done["ok"] and "README.md" in done["changes"]


def test_scroll_by_ref_scrolls_the_inner_box(daemon: Daemon, site: str) -> None:
    s = "scroller"
    shot = open_widget(daemon, site, s, "scroller.html")
    grid = refs_in(line_of(shot, "[scrollable]"))[0][0]
    daemon.call("scroll", session=s, ref=grid, dy=300)
    assert state(daemon, s) == {"inner": 300, "page": 0}


def test_a_slider_moved_by_keys_shows_its_new_value(daemon: Daemon, site: str) -> None:
    s = "slider-keys"
    shot = open_widget(daemon, site, s, "sliders.html")
    rating = ref_of(shot, "slider", "Minimum rating")
    done = daemon.call("press", session=s, ref=rating, key="ArrowRight")
    assert state(daemon, s)["rating"] == 6
    assert "[value=6]" in done["changes"]


def test_a_renamed_element_keeps_its_ref_but_is_not_acted_on_unseen(
    daemon: Daemon, site: str
) -> None:
    s = "renamed"
    daemon.call("open", session=s, url=f"{site}/people.html")
    shot = daemon.snapshot(s)
    add = ref_of(shot, "button", "Add person")
    rename = (
        "() => { [...document.querySelectorAll('button')]"
        ".find(b => b.textContent === 'Add person').textContent = 'Remove everyone'; }"
    )
    daemon.call("evaluate", session=s, expression=rename)
    refused = daemon.fail("click", session=s, ref=add, changes=False)
    assert refused.code == "stale_ref" and refused.data["reason"] == "renamed"
    assert "Remove everyone" in refused.message
    assert "3 people" in daemon.snapshot(s), "nothing was clicked"
    again = daemon.snapshot(s)
    assert ref_of(again, "button", "Remove everyone") == add, "the same element, the same ref"
    daemon.call("click", session=s, ref=add)  # seen under its new name: acted on
    assert "4 people" in daemon.snapshot(s)


def test_through_the_cli(daemon: Daemon, site: str) -> None:
    """The same acts as a person types them: refs from `snapshot`, then the act commands."""
    s = ["--session", "cli-widgets"]
    assert daemon.cli("open", f"{site}/widgets/select-text.html", *s).rc == 0
    shot = daemon.cli("snapshot", *s).out
    first = next(ref for ref, role, _ in refs_in(shot) if role == "paragraph")
    picked = daemon.cli("select-text", first, "--from", "quick", "--to", "fox", *s, "--json")
    assert picked.rc == 0, picked.err
    assert picked.json["result"]["data"]["selected"] == "quick brown fox"
    assert daemon.cli("open", f"{site}/widgets/sortable.html", *s).rc == 0
    shot = daemon.cli("snapshot", *s).out
    delta, alpha = (ref_by_text(shot, "listitem", name) for name in ("Delta", "Alpha"))
    moved = daemon.cli("drag", delta, alpha, "--to-position", "top", *s)
    assert moved.rc == 0, moved.err
    order = daemon.cli("evaluate", "pageState().order.join(',')", *s, "--json")
    assert order.json["result"]["value"] == "Delta,Alpha,Bravo,Charlie"


def test_through_the_python_client(daemon: Daemon, site: str) -> None:
    from steadyhand.client import SyncClient

    client = SyncClient(session="py-widgets", settings=daemon.settings)
    try:
        client.open(url=f"{site}/widgets/shadow-checkbox.html")
        shot = client.call("snapshot", max_chars=WHOLE)["snapshot"]
        client.click(ref=ref_of(shot, "checkbox", "Subscribe"))
        done = client.call("click", ref=ref_of(shot, "checkbox", "Dark mode"))
        assert done["ok"]
        page = client.call("evaluate", expression="pageState()")["value"]
        assert all(v is True for v in page.values()), page
        client.open(url=f"{site}/widgets/icons.html")
        shot = client.call("snapshot", max_chars=WHOLE)["snapshot"]
        client.click(ref=ref_of(shot, "button", "trash"))
        assert client.call("evaluate", expression="pageState().log.length")["value"] == 1
    finally:
        client.close()


def test_select_text_never_reads_a_password_field(daemon: Daemon, site: str) -> None:
    s = "select-secret"
    daemon.call("open", session=s, url=f"{site}/secrets.html")
    shot = daemon.snapshot(s)
    field = ref_of(shot, "textbox", "key icon Password")
    daemon.call("type", session=s, ref=field, text="hunter2")
    assert "hunter2" not in daemon.snapshot(s)
    for guess in (None, "hunter"):
        refused = daemon.fail("select-text", session=s, ref=field, from_text=guess)
        assert refused.code == "policy_denied" and "hunter" not in str(refused.data)
