"""Issue 29's ten patterns, each on its fixture (tests/fixtures/site/patterns): what the
snapshot shows, acted on by ref through the daemon, checked through the page's own state
(`pageState()`)."""

from __future__ import annotations

import re

import pytest

from steadyhand.snapshot.lookup import refs_in
from tests.conftest import Daemon
from tests.integration.test_widgets import ref_of, state

pytestmark = pytest.mark.integration
P = "patterns"


def opened(daemon: Daemon, site: str, session: str, page: str) -> str:
    daemon.call("open", session=session, url=f"{site}/{P}/{page}")
    return daemon.snapshot(session)


def ref_in(line: str) -> str:
    """The first ref written on a line."""
    found = re.search(r"\[ref=(e\d+)\]", line)
    assert found, line
    return found.group(1)


def line_of(snapshot: str, needle: str) -> str:
    lines = [line for line in snapshot.splitlines() if needle in line]
    assert len(lines) == 1, f"{needle!r}: {lines}\n{snapshot}"
    return lines[0]


# 1 ------------------------------------------------------------------ checking never acts


def test_type_leaves_a_suggestion_list_open_and_the_field_focused(
    daemon: Daemon, site: str
) -> None:
    s = "p1-suggest"
    shot = opened(daemon, site, s, "autocomplete.html")
    done = daemon.call("type", session=s, ref=ref_of(shot, "textbox", "City"), text="Ber")
    assert done["data"] == {"submitted": False}, "typed as asked, verified, nothing else"
    now = state(daemon, s)
    assert now["cityListOpen"] and now["cityFocused"], now
    # The agent sees the suggestions in the act's changes and picks one by ref.
    assert "Berlin" in done["changes"], done["changes"]
    berlin = ref_in(line_of(daemon.snapshot(s), ": Berlin"))
    daemon.call("click", session=s, ref=berlin)
    assert state(daemon, s)["pickedCity"] == "Berlin"


def test_type_leaves_jquery_ui_autocomplete_open(daemon: Daemon, site: str) -> None:
    s = "p1-jqui"
    shot = opened(daemon, site, s, "autocomplete.html")
    daemon.call("type", session=s, ref=ref_of(shot, "textbox", "Airport"), text="Ber")
    now = state(daemon, s)
    assert now["airportMenuOpen"] and now["airportFocused"], now


def test_a_field_reformatted_on_blur_is_reported_by_the_next_action(
    daemon: Daemon, site: str
) -> None:
    s = "p1-leave"
    shot = opened(daemon, site, s, "autocomplete.html")
    phone, note = ref_of(shot, "textbox", "Phone"), ref_of(shot, "textbox", "Note")
    done = daemon.call("type", session=s, ref=phone, text="5551234567")
    assert "left" not in done["data"] and state(daemon, s)["phone"] == "5551234567"
    done = daemon.call("type", session=s, ref=note, text="ring twice")
    assert done["data"]["left"] == {
        "ref": phone,
        "how": "reformatted",
        "typed": "5551234567",
        "value": "(555) 123-4567",
    }
    reply = daemon.cli("type", note, "ring once", "--session", s)
    assert reply.rc == 0 and "when left" not in reply.out, "said once, by the action that left"


# 2 ------------------------------------------------------------------ no false failures


def test_a_terminal_line_that_takes_keys_is_unverified_not_failed_nor_typed_twice(
    daemon: Daemon, site: str
) -> None:
    s = "p2-term"
    shot = opened(daemon, site, s, "keyfields.html")
    command = ref_of(shot, "textbox", "Command")
    done = daemon.call("type", session=s, ref=command, text="ls")
    assert done["retries"] == 0
    unverified = done["data"]["unverified"]
    assert unverified["typed"] == "ls" and unverified["value"] == "s", unverified
    assert unverified["page_changes"] >= 1
    assert state(daemon, s)["line"] == "ls", "typed once: no retry doubled it"
    daemon.call("press", session=s, key="Enter", ref=command)
    assert state(daemon, s)["ran"] == ["ls"]
    reply = daemon.cli("type", command, "pwd", "--session", s)
    assert reply.rc == 0 and 'unverified: typed "pwd", field shows "d"' in reply.out, reply.out


def test_a_spinner_takes_a_negative_number(daemon: Daemon, site: str) -> None:
    s = "p2-spin"
    shot = opened(daemon, site, s, "keyfields.html")
    done = daemon.call("type", session=s, ref=ref_of(shot, "spinbutton", "Offset (°C)"), text="-10")
    assert "unverified" not in done["data"] and state(daemon, s)["offset"] == -10


# 3 ------------------------------------------------------------------ author's names


def test_a_name_the_author_wrote_on_a_generic_element_is_shown(daemon: Daemon, site: str) -> None:
    s = "p3-names"
    shot = opened(daemon, site, s, "labels.html")
    day = line_of(shot, '"May 24, 2026"')
    assert day.startswith('- generic "May 24, 2026" [ref='), day
    assert not day.endswith(": 24"), "the text repeats the name: not shown twice"
    daemon.call("click", session=s, ref=ref_of(shot, "generic", "May 24, 2026"))
    speed = ref_of(shot, "generic", "Delivery speed")  # aria-labelledby
    daemon.call("click", session=s, ref=speed)
    returns = line_of(shot, "Free returns")
    assert "[named-by=title]" in returns, returns
    assert state(daemon, s)["chosen"] == "May 24, 2026"
    assert state(daemon, s)["speed"] == "Express"


# 4 ------------------------------------------------------------------ presentational roles


def test_a_button_inside_a_tab_keeps_its_role_and_ref(daemon: Daemon, site: str) -> None:
    s = "p4-tab"
    shot = opened(daemon, site, s, "accordion.html")
    assert line_of(shot, 'tab "Payment Submit"').strip().startswith('- tab "Payment Submit"')
    submit = ref_of(shot, "button", "Submit")
    daemon.call("click", session=s, ref=submit)
    assert state(daemon, s)["done"] == ["submit-payment"]


# 5 ------------------------------------------------------------------ grouping


def test_repeated_groups_keep_their_text_with_their_control(daemon: Daemon, site: str) -> None:
    s = "p5-groups"
    shot = opened(daemon, site, s, "groups.html")
    lines = shot.splitlines()
    book = next(i for i, line in enumerate(lines) if "Book for $1390" in line)
    above = lines[book - 3 : book]
    assert above[0].strip() == "- group:", above
    assert above[1].strip() == "- text: Departs 22:05", above
    daemon.call("click", session=s, ref=ref_of(shot, "button", "Book for $1390"))
    assert state(daemon, s)["booked"]["dep"] == "22:05"
    interactive = daemon.snapshot(s, interactive=True)
    assert '- group "Departs 22:05 Duration 11h 30m": button "Book for $1390"' in interactive


def test_unlabelled_fields_are_named_by_the_text_before_them(daemon: Daemon, site: str) -> None:
    s = "p5-fields"
    shot = opened(daemon, site, s, "groups.html")
    last = ref_of(shot, "textbox", "Last name")
    assert "[named-by=text]" in line_of(shot, f"[ref={last}]")
    assert "- text: Last name:" not in shot, "the text is shown once, as the name"
    daemon.call("type", session=s, ref=last, text="Hopper")
    daemon.call(
        "select", session=s, ref=ref_of(shot, "combobox", "Seat preference"), values=["Aisle"]
    )
    now = state(daemon, s)
    assert (now["last"], now["seat"]) == ("Hopper", "Aisle")
    # The text is the field's name: when it changes, the field is renamed (the ref rule).
    rename = "document.getElementById('last').previousSibling.data = 'Surname: '"
    daemon.call("evaluate", session=s, expression=rename)
    err = daemon.fail("type", session=s, ref=last, text="Lovelace")
    assert err.code == "stale_ref" and err.data["reason"] == "renamed", err
    renamed = line_of(daemon.snapshot(s), f"[ref={last}]")
    assert renamed.startswith('- textbox "Surname"') and "[named-by=text]" in renamed, renamed
    daemon.call("type", session=s, ref=last, text="Lovelace")
    assert state(daemon, s)["last"] == "Lovelace"


# 6 ------------------------------------------------------------------ icon names


def test_icons_are_named_by_action_class_words_and_picture_files(daemon: Daemon, site: str) -> None:
    s = "p6-icons"
    shot = opened(daemon, site, s, "class-icons.html")
    for name, by in (
        ("trash", "class"),
        ("reply", "class"),
        ("forward", "class"),
        ("star", "class"),
        ("send", "class"),
        ("delete", "image"),
        ("archive box", "image"),
    ):
        assert f"[named-by={by}]" in line_of(shot, f'"{name}"'), name
    hashed = [line for line in shot.splitlines() if "[ref=e8]" in line]
    assert hashed == ["- generic [ref=e8]"], "a generated class names nothing"
    daemon.call("click", session=s, ref=ref_of(shot, "generic", "delete"))
    daemon.call("click", session=s, ref=ref_of(shot, "generic", "trash"))
    assert state(daemon, s)["clicked"] == ["i-bgdelete", "i-trash"]


# 7 ------------------------------------------------------------------ sliders without ARIA


def test_slider_handles_without_aria_are_sliders_moved_by_keys(daemon: Daemon, site: str) -> None:
    s = "p7-slider"
    shot = opened(daemon, site, s, "slider.html")
    sliders = [line.strip() for line in shot.splitlines() if line.strip().startswith("- slider")]
    assert [re.sub(r" \[ref=e\d+\]", "", line) for line in sliders] == [
        "- slider [value=30] [min=0] [max=100]",
        "- slider [value=75] [min=0] [max=500]",
        "- slider [value=300] [min=0] [max=500]",
        "- slider [valuetext=50%]",
    ], sliders
    volume, _low, _high, bright = (ref_in(line) for line in sliders)
    done = daemon.call("press", session=s, key="ArrowRight", ref=volume)
    assert "[value=31]" in done["changes"], done["changes"]
    daemon.call("press", session=s, key="ArrowRight", ref=bright)
    now = state(daemon, s)
    assert (now["volume"], now["bright"]) == (31, 60)
    assert "[valuetext=60%]" in daemon.snapshot(s)


# 8 ------------------------------------------------------------------ text blocks


def test_every_paragraph_and_an_editors_paragraphs_can_be_selected(
    daemon: Daemon, site: str
) -> None:
    s = "p8-text"
    shot = opened(daemon, site, s, "text.html")
    line = line_of(shot, "Short line.")
    assert line.startswith("- paragraph [ref="), line
    second = line_of(shot, "Second point.")
    assert second.strip().startswith("- paragraph [ref="), second
    ref = ref_in(second)
    daemon.call("click", session=s, ref=ref, count=3)
    assert state(daemon, s)["selection"].strip() == "Second point."
    daemon.call("press", session=s, key="Control+b")
    assert state(daemon, s)["editor"][1] == "<b>Second point.</b>"
    err = daemon.fail("click", session=s, ref=ref, count=4)
    assert err.code == "bad_request"


# 9 ------------------------------------------------------------------ a virtual grid


def test_scroll_over_a_virtual_grid_brings_its_rows(daemon: Daemon, site: str) -> None:
    s = "p9-grid"
    shot = opened(daemon, site, s, "grid.html")
    grid = next(ref for ref, role, _name in refs_in(shot) if role == "grid")
    assert "Customer 250" not in shot
    seen = shot
    for _ in range(10):
        done = daemon.call("scroll", session=s, ref=grid, dy=1500)
        assert done["scroller"] == "container" and done["moved"], done
        seen = daemon.snapshot(s)
        if "Customer 250 |" in seen:
            break
    row = line_of(seen, "| Customer 250 |")
    daemon.call("click", session=s, ref=ref_in(row))
    assert state(daemon, s)["opened"] == 250


# 10 ----------------------------------------------------------------- noise


def test_a_delegating_wrapper_is_not_a_control(daemon: Daemon, site: str) -> None:
    s = "p10-wrap"
    shot = opened(daemon, site, s, "wrapper.html")
    assert shot.splitlines()[0] == '- heading "Tags" [level=1]', "no wrapper line, no ref"
    for tag in ("green", "blue"):
        daemon.call("click", session=s, ref=ref_in(line_of(shot, f": {tag}")))
    assert state(daemon, s)["chosen"] == ["green", "blue"]
