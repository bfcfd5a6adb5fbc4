"""Snapshot views, paging, diffs, changes after actions and the labelled screenshot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from steadyhand.snapshot.lookup import find_ref, refs_in
from tests.conftest import WHOLE_SNAPSHOT, Daemon
from tests.png import pixel, read_png

pytestmark = pytest.mark.integration


def test_views_of_one_page(daemon: Daemon, site: str) -> None:
    s = "views"
    daemon.call("open", session=s, url=f"{site}/people.html")
    default = daemon.snapshot(s)
    # Text stays readable; refs only on what can be acted on (and a few containers).
    assert "- paragraph [ref=e8]: 3 people" in default and "first item" in default
    assert (
        'heading "People" [level=1]' in default and 'heading "People" [level=1] [ref' not in default
    )
    assert {role for _ref, role, _name in refs_in(default)} <= {
        "button",
        "table",
        "list",
        "paragraph",
    }
    # A table is one line per row; the caption repeats the table's name, so it is dropped.
    assert "- header: Name | Email | Actions" in default
    assert re.search(r'- row: Alice \| alice@example.com \| button "Delete" \[ref=e\d+\]', default)
    assert "caption" not in default

    interactive = daemon.snapshot(s, interactive=True)
    assert '[table "Team" > "People"]' not in interactive
    assert re.search(
        r'\[.*table "Team".*\]\n- row "Alice": button "Delete" \[ref=e\d+\]\n', interactive
    )
    assert "3 people" not in interactive, "interactive lists only what can be acted on"
    assert set(refs_in(interactive)) <= set(refs_in(default))

    assert re.search(r'cell "[^"]*" \[ref=e\d+\]', default) is None, "no ref per cell by default"
    cells = daemon.snapshot(s, cells=True)
    email = find_ref(cells, "cell", "alice@example.com")
    assert re.search(rf'- cell "alice@example.com" \[ref={email}\]', cells)
    assert daemon.call("hover", session=s, ref=email)["ref"] == email

    compact = daemon.snapshot(s, compact=True)
    assert len(compact) <= len(default)
    shallow = daemon.snapshot(s, depth=1)
    assert "Alice" not in shallow and "snapshot --ref" in shallow

    table_ref = find_ref(default, "table", "Team")
    sub = daemon.snapshot(s, ref=table_ref)
    assert sub.startswith('- table "Team"') and "first item" not in sub and "Carol" in sub
    by_css = daemon.snapshot(s, selector="#items")
    assert "first item" in by_css and "Alice" not in by_css
    missing = daemon.fail("snapshot", session=s, selector="#nope")
    assert missing.code == "not_found"
    both = daemon.fail("snapshot", session=s, interactive=True, compact=True)
    assert both.code == "bad_request"


def test_urls_only_when_asked(daemon: Daemon, site: str) -> None:
    s = "urls"
    daemon.call("open", session=s, url=f"{site}/spa.html")
    assert "/spa.html?settings" not in daemon.snapshot(s)
    assert "[url=/spa.html?settings]" in daemon.snapshot(s, urls=True)


def test_max_chars_marker_and_offset_paging_rebuild_the_whole_snapshot(
    daemon: Daemon, site: str
) -> None:
    s = "paging"
    daemon.call("open", session=s, url=f"{site}/big-table.html")
    whole = daemon.call("snapshot", session=s, max_chars=WHOLE_SNAPSHOT)
    assert whole["next_offset"] is None and whole["chars"] == len(whole["snapshot"])
    assert whole["snapshot"].count("- row: #") == 300
    parts, offset = [], 0
    while True:
        part = daemon.call("snapshot", session=s, max_chars=4000, offset=offset)
        body, _, marker = part["snapshot"].partition("\n[… truncated")
        parts.append(body if part["next_offset"] is not None else part["snapshot"])
        if part["next_offset"] is None:
            break
        assert f"snapshot --offset {part['next_offset']}" in marker
        assert len(body) <= 4000 and body.endswith("\n"), "cut after a whole line"
        offset = part["next_offset"]
    assert len(parts) > 3
    assert "".join(parts) == whole["snapshot"]


def test_diff_and_changes_show_exactly_what_the_click_changed(daemon: Daemon, site: str) -> None:
    s = "diff"
    daemon.call("open", session=s, url=f"{site}/people.html")
    page = daemon.snapshot(s)
    add = find_ref(page, "button", "Add person")
    quiet = daemon.call("click", session=s, ref=add, changes=False)
    assert quiet["changes"] is None
    diff = daemon.snapshot(s, diff=True)
    assert diff.startswith("# 1 changed, 2 added, 0 removed since the last snapshot"), diff
    lines = diff.splitlines()[1:]
    assert len(lines) == 3, diff
    assert any(line.startswith("+ listitem: Dan added") for line in lines)
    assert any(line.startswith('+ row: Dan | dan@example.com | button "Delete"') for line in lines)
    assert any(line.startswith("~ paragraph [ref=e8]: 4 people   (was: 3)") for line in lines)
    assert daemon.snapshot(s, diff=True) == "# no changes since the last snapshot"

    done = daemon.call("click", session=s, ref=add)  # changes on by default
    act_lines = done["changes"].splitlines()  # the same lines, without the counts
    assert len(act_lines) == 3 and "~ paragraph [ref=e8]: 5 people   (was: 4)" in act_lines
    moved = daemon.call("navigate", session=s, url=f"{site}/spa.html")
    assert moved["navigated"]
    new_doc = daemon.snapshot(s, diff=True)
    assert new_doc.startswith("# a new document since the last snapshot") and "Save home" in new_doc


def test_labelled_screenshot_draws_labels_only_for_the_capture(daemon: Daemon, site: str) -> None:
    s = "labels"
    daemon.call("open", session=s, url=f"{site}/form.html")
    page = daemon.snapshot(s)
    mine = daemon.settings.artifacts_dir / "mine"  # in a file root
    before = mine / "before.png"
    daemon.call("screenshot", session=s, path=str(before))
    shot = daemon.call("screenshot", session=s, labels=True, path=str(mine / "labels.png"))
    after = mine / "after.png"
    daemon.call("screenshot", session=s, path=str(after))

    labels = {label["ref"]: label for label in shot["labels"]}
    name_ref = find_ref(page, "textbox", "Name")
    assert name_ref in labels and labels[name_ref]["role"] == "textbox"
    assert find_ref(page, "button", "Place order") in labels
    assert set(labels) <= {ref for ref, _role, _name in refs_in(page)}
    assert before.read_bytes() == after.read_bytes(), "the overlay is gone after the capture"
    assert Path(shot["path"]).read_bytes() != before.read_bytes()
    # The first label's tag is drawn in its colour just above its box.
    first = shot["labels"][0]
    x, y = first["box"][0], first["box"][1]
    _, _, rows = read_png(Path(shot["path"]))
    assert pixel(rows, x + 1, max(0, y - 14) + 1) == (0xD7, 0x26, 0x3D)
    _, _, plain = read_png(before)
    assert pixel(plain, x + 1, max(0, y - 14) + 1) != (0xD7, 0x26, 0x3D)


def test_the_first_act_on_a_page_never_snapshotted_reports_its_changes_not_the_page(
    daemon: Daemon, site: str
) -> None:
    """No snapshot before it: the act reads the page before acting and reports what it
    changed (issue 22, item 12), never the whole page as if all of it were new."""
    s = "never-snapshotted"
    daemon.call("open", session=s, url=f"{site}/form.html")
    found = daemon.call("find", session=s, role="button", name="Place order")
    (match,) = found["matches"]
    done = daemon.call("click", session=s, ref=match["ref"])
    changes = done["changes"]
    assert "whole page" not in changes and "no earlier snapshot" not in changes, changes
    assert "ordered" in changes and "nothing ordered" in changes, changes
    assert len(changes.splitlines()) <= 3, changes
    whole = daemon.snapshot(s)
    assert len(changes) < len(whole) / 4


def test_a_page_that_shims_built_ins_is_still_read(daemon: Daemon, site: str) -> None:
    """The page model keeps the built-ins it found before the page's scripts ran: a page
    that replaces Object.getOwnPropertyDescriptor, JSON.stringify or getComputedStyle (an
    old ES5 shim) is read and acted on as any other."""
    s = "shimmed"
    daemon.call("open", session=s, url=f"{site}/shimmed.html")
    shot = daemon.snapshot(s)
    assert 'textbox "Name"' in shot, shot
    done = daemon.call("click", session=s, ref=find_ref(shot, "button", "Save"))
    assert "saved" in done["changes"], done
