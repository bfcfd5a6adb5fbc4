"""render(): the default, compact and interactive views; page() and its marker."""

from __future__ import annotations

import random

import pytest

from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.refs import RefRegistry, deserves_ref
from steadyhand.snapshot.render import View, page, render, truncation_marker
from steadyhand.snapshot.tree import parse

PEOPLE = "\n".join(
    [
        "- generic [active] [ref=e1]:",
        "  - banner [ref=e2]:",
        '    - link "Home" [ref=e3] [cursor=pointer]:',
        "      - /url: /home",
        "  - main [ref=e4]:",
        '    - heading "People" [level=1] [ref=e5]',
        '    - table "Team" [ref=e6]:',
        "      - caption: Team",
        "      - rowgroup [ref=e7]:",
        '        - row "Name Email Actions" [ref=e8]:',
        '          - columnheader "Name" [ref=e9]',
        '          - columnheader "Email" [ref=e10]',
        '          - columnheader "Actions" [ref=e11]',
        "      - rowgroup [ref=e12]:",
        '        - row "Alice a@x Edit" [ref=e13]:',
        '          - cell "Alice" [ref=e14]',
        '          - cell "a@x" [ref=e15]',
        '          - cell "Edit" [ref=e16]:',
        '            - button "Edit" [ref=e17] [cursor=pointer]',
        '        - row "Bob b@x Edit" [ref=e18]:',
        '          - cell "Bob" [ref=e19]',
        '          - cell "b@x" [ref=e20]',
        '          - cell "Edit" [ref=e21]:',
        '            - button "Edit" [ref=e22] [cursor=pointer]',
        "    - list [ref=e23]:",
        "      - listitem [ref=e24]:",
        "        - text: first item",
        '        - button "Remove" [ref=e25]',
        "    - generic [ref=e26]:",
        "      - group [ref=e27]:",
        '        - textbox "Search" [ref=e28]:',
        "          - /placeholder: Type here",
        "    - paragraph [ref=e29]: 3 people",
    ]
)


def taken(text: str, docs: dict[int, str] | None = None) -> Capture:
    """A capture with refs on what a snapshot hands them to (numbered e1, e2, ...)."""
    capture = Capture(
        root=parse(text), main_doc="d1", docs=docs or {0: "d1", 1: "d2"}, url="http://x/"
    )
    RefRegistry().issue(capture, [n for n in capture.root.walk() if deserves_ref(n)])
    return capture


def view_of(text: str, view: View | None = None) -> str:
    return render([taken(text).root], view or View())


def line_with(text: str, needle: str) -> str:
    lines = [line for line in text.splitlines() if needle in line]
    assert len(lines) == 1, (needle, text)
    return lines[0]


def test_default_view() -> None:
    assert view_of(PEOPLE) == "\n".join(
        [
            "- generic:",
            "  - banner [ref=e1]:",
            '    - link "Home" [ref=e2]',
            "  - main [ref=e3]:",
            '    - heading "People" [level=1]',
            '    - table "Team" [ref=e4] (3 rows):',
            "      - header: Name | Email | Actions",
            '      - row: Alice | a@x | button "Edit" [ref=e5]',
            '      - row: Bob | b@x | button "Edit" [ref=e6]',
            "    - list [ref=e7]:",
            "      - listitem:",  # its button is how it is acted on: no ref of its own
            "        - text: first item",
            '        - button "Remove" [ref=e8]',
            "    - generic:",
            "      - group:",
            '        - textbox "Search" [ref=e9] [placeholder="Type here"]',
            "    - paragraph [ref=e10]: 3 people",
        ]
    )


def test_compact_view_drops_unnamed_wrappers_and_lifts_their_children() -> None:
    assert view_of(PEOPLE, View(mode="compact")) == "\n".join(
        [
            "- banner [ref=e1]:",
            '  - link "Home" [ref=e2]',
            "- main [ref=e3]:",
            '  - heading "People" [level=1]',
            '  - table "Team" [ref=e4] (3 rows):',
            "    - header: Name | Email | Actions",
            '    - row: Alice | a@x | button "Edit" [ref=e5]',
            '    - row: Bob | b@x | button "Edit" [ref=e6]',
            "  - list [ref=e7]:",
            "    - listitem:",
            "      - text: first item",
            '      - button "Remove" [ref=e8]',
            '  - textbox "Search" [ref=e9] [placeholder="Type here"]',
            "  - paragraph [ref=e10]: 3 people",
        ]
    )


def test_compact_keeps_wrappers_that_say_something() -> None:
    text = "\n".join(
        [
            "- generic [ref=e1]:",
            '  - group "Shipping" [ref=e2]:',
            '    - radio "Fast" [ref=e3]',
            "  - generic [ref=e4] [cursor=pointer]:",
            "    - text: Clickable card",
            "  - generic [ref=e5]: loose words",
            "  - group [disabled] [ref=e6]:",
            '    - button "Off" [disabled] [ref=e7]',
        ]
    )
    assert view_of(text, View(mode="compact")) == "\n".join(
        [
            '- group "Shipping":',
            '  - radio "Fast" [ref=e1]',
            "- generic [ref=e2]:",  # a ref on a generic: it is clicked
            "  - text: Clickable card",
            "- generic: loose words",
            "- group [disabled]:",
            '  - button "Off" [disabled] [ref=e3]',
        ]
    )


def test_cells_view_shows_tables_as_trees() -> None:
    shown = view_of(PEOPLE, View(cells=True))
    assert "- header:" not in shown and "- row:" not in shown
    assert "      - caption: Team" in shown
    assert '        - row "Alice a@x Edit":\n          - cell "Alice"\n' in shown
    assert '          - cell "Edit":\n            - button "Edit" [ref=e5]' in shown


def test_row_lines_inline_what_cells_hold() -> None:
    text = "\n".join(
        [
            '- table "Order" [ref=e1]:',
            "  - caption: Order 12 (draft)",
            '  - row "Widget" [ref=e2]:',
            '    - rowheader "Widget" [ref=e3]',
            "    - cell [ref=e4]:",
            '      - spinbutton "Qty" [ref=e5]: "3"',
            "    - cell [ref=e6]",
            "    - cell [ref=e7]:",
            '      - checkbox "Gift" [checked] [ref=e8]',
            '      - link "Details" [ref=e9]:',
            "        - /url: /widget",
            '  - row "Total" [ref=e10] [cursor=pointer]:',
            '    - cell "Total" [ref=e11]',
        ]
    )
    shown = view_of(text, View(urls=True))
    assert shown == "\n".join(
        [
            '- table "Order" [ref=e1] (2 rows):',
            "  - caption: Order 12 (draft)",  # kept: it says more than the table's name
            '  - row: Widget | spinbutton "Qty" [ref=e2] = "3" |  | checkbox "Gift" [checked]'
            ' [ref=e3] link "Details" [ref=e4] [url=/widget]',
            "  - row [ref=e5]: Total",
        ]
    )


def test_state_focus_values_and_urls() -> None:
    text = "\n".join(
        [
            "- generic [active] [ref=e1]:",
            '  - textbox "Email" [active] [ref=e2]: a@x',
            '  - button "OK" [pressed] [ref=e3]: OK',
            '  - link "Docs" [ref=e4]:',
            "    - /url: https://example.com/docs",
            "  - paragraph [ref=e5]: spread    over\twhite  space",
        ]
    )
    assert view_of(text) == "\n".join(
        [
            "- generic:",  # focus inside a wrapper is not news
            '  - textbox "Email" [active] [ref=e1]: a@x',
            '  - button "OK" [pressed] [ref=e2]',  # a value that repeats the name is dropped
            '  - link "Docs" [ref=e3]',
            "  - paragraph [ref=e4]: spread over white space",
        ]
    )
    with_urls = view_of(text, View(urls=True, focus=False))
    assert '- link "Docs" [ref=e3] [url=https://example.com/docs]' in with_urls
    assert "[active]" not in with_urls


def test_depth_folds_deeper_nodes_and_says_how_to_see_them() -> None:
    shown = view_of(PEOPLE, View(depth=2))
    assert shown == "\n".join(
        [
            "- generic:",
            "  - banner [ref=e1] …(1 nodes below; snapshot --ref e1 shows them)",
            "  - main [ref=e3] …(27 nodes below; snapshot --ref e3 shows them)",
        ]
    )
    top = view_of(PEOPLE, View(depth=1))
    assert top == "- generic …(30 nodes below)", "no ref to offer: no hint"
    table = view_of(PEOPLE, View(depth=3))
    assert '    - table "Team" [ref=e4] (3 rows) …(rows hidden; snapshot --ref e4 shows them)' in (
        table.splitlines()
    )
    assert "Alice" not in table


def test_render_of_subtrees_starts_at_each_root() -> None:
    capture = taken(PEOPLE)
    nodes = {n.ref: n for n in capture.root.walk() if n.ref}
    shown = render([nodes["e7"], nodes["e1"]], View())
    assert shown == "\n".join(
        [
            "- list [ref=e7]:",
            "  - listitem:",
            "    - text: first item",
            '    - button "Remove" [ref=e8]',
            "- banner [ref=e1]:",
            '  - link "Home" [ref=e2]',
        ]
    )


def test_interactive_lists_only_what_can_be_acted_on_under_its_landmarks() -> None:
    shown = view_of(PEOPLE, View(mode="interactive"))
    assert "[banner]" in shown.splitlines()
    assert '[main > "People" > table "Team"]' in shown.splitlines()
    for absent in ("heading", "paragraph", "3 people", "list [ref", "table [ref", "- text:"):
        assert absent not in shown
    found = [line for line in shown.splitlines() if "[ref=" in line]
    assert len(found) == 6 - 1, "Home, Edit, Edit, Remove, Search; not the containers"
    order = [shown.index(f"[ref=e{i}]") for i in (2, 5, 6, 8, 9)]
    assert order == sorted(order)
    # Each element comes with the row or list item it sits in, on its own line.
    alice = line_with(shown, "[ref=e5]")
    assert "Alice" in alice and "Bob" not in alice
    assert "Bob" in line_with(shown, "[ref=e6]")
    assert "first item" in line_with(shown, "[ref=e8]")
    assert "Alice" not in line_with(shown, "[ref=e9]")


def test_interactive_headers_follow_landmarks_headings_and_frames() -> None:
    text = "\n".join(
        [
            '- button "Skip" [ref=e1]',
            '- navigation "Site" [ref=e2]:',
            '  - link "Home" [ref=e3]',
            "- main [ref=e4]:",
            '  - heading "Billing" [level=1] [ref=e5]',
            '  - button "Pay" [ref=e6]',
            '  - dialog "Confirm" [ref=e7]:',
            '    - button "Yes" [ref=e8]',
            "  - iframe [ref=e9]:",
            '    - button "Inside" [ref=f1e1]',
            '    - generic "Card" [ref=f1e2] [cursor=pointer]',
            '    - generic "Plain" [ref=f1e3]',
        ]
    )
    lines = view_of(text, View(mode="interactive")).splitlines()
    # Refs: Skip e1, navigation e2, Home e3, main e4, Pay e5, dialog e6, Yes e7, iframe e8,
    # Inside e9, Card e10.
    header_of: dict[str, str] = {}
    header = ""
    for line in lines:
        if line.startswith("["):
            header = line
        else:
            header_of[line] = header
    assert lines[0] == "[page]", "the first run outside landmarks has its header too"
    assert header_of == {
        '- button "Skip" [ref=e1]': "[page]",
        '- link "Home" [ref=e3]': '[navigation "Site"]',
        '- button "Pay" [ref=e5]': '[main > "Billing"]',
        '- button "Yes" [ref=e7]': '[main > "Billing" > dialog "Confirm"]',
        '- button "Inside" [ref=e9]': '[main > "Billing" > iframe e8]',
        '- generic "Card" [ref=e10]': '[main > "Billing" > iframe e8]',
    }


def test_interactive_puts_a_rows_elements_on_one_line() -> None:
    text = "\n".join(
        [
            "- table [ref=e1]:",
            '  - row "Alice" [ref=e2]:',
            '    - cell "Alice" [ref=e3]',
            "    - cell [ref=e4]:",
            '      - checkbox "Pick" [ref=e5]',
            '      - button "Open" [ref=e6]',
            '  - row "Bob" [ref=e7]:',
            '    - cell "Bob" [ref=e8]',
            "    - cell [ref=e9]:",
            '      - button "Open" [ref=e10]',
        ]
    )
    shown = view_of(text, View(mode="interactive"))
    alice = line_with(shown, 'checkbox "Pick" [ref=e2]')
    assert "Alice" in alice and 'button "Open" [ref=e3]' in alice
    assert "Bob" in line_with(shown, "[ref=e4]")


# ---------------------------------------------------------------- paging


def pages(text: str, max_chars: int) -> list[str]:
    """Every part, following next_offset from 0 to the end."""
    parts: list[str] = []
    offset: int | None = 0
    while offset is not None:
        chunk = page(text, offset, max_chars)
        assert chunk.total == len(text) and chunk.offset == offset
        if chunk.next_offset is not None:
            assert chunk.next_offset > offset, "every part moves on"
        parts.append(chunk.text)
        offset = chunk.next_offset
    return parts


@pytest.mark.parametrize("max_chars", [1, 7, 40, 200, 5000])
def test_pages_rebuild_the_text_exactly(max_chars: int) -> None:
    text = view_of(PEOPLE) + "\n" + "- paragraph: " + "long " * 60
    parts = pages(text, max_chars)
    assert "".join(parts) == text
    assert all(len(p) <= max_chars for p in parts)
    # A part ends a line unless not even one line fitted in it.
    assert all(p.endswith("\n") or "\n" not in p for p in parts[:-1])


def test_pages_rebuild_random_texts() -> None:
    rng = random.Random(7)
    for _ in range(200):
        text = "".join(rng.choice("ab \n") for _ in range(rng.randrange(0, 300)))
        parts = pages(text, rng.randrange(1, 60))
        assert "".join(parts) == text
        assert all(p.endswith("\n") or "\n" not in p for p in parts[:-1])


def test_page_cuts_after_a_newline_when_a_line_fits() -> None:
    text = "one\ntwo\nthree\nfour\n"
    chunk = page(text, 0, 11)
    assert chunk.text == "one\ntwo\n"
    assert chunk.next_offset == 8
    assert page(text, 8, 11).text == "three\nfour\n"
    # A line longer than a part is cut where the part ends.
    long = page("abcdefghij\nk", 0, 4)
    assert (long.text, long.next_offset) == ("abcd", 4)


def test_page_offsets_are_clamped_and_the_last_part_has_no_next() -> None:
    text = "a\nb\n"
    assert page(text, -5, 100) == page(text, 0, 100)
    last = page(text, 99, 10)
    assert (last.text, last.offset, last.next_offset) == ("", 4, None)
    assert truncation_marker(page(text, 0, 100)) == ""


def test_truncation_marker_names_the_next_offset() -> None:
    text = "line\n" * 3000
    chunk = page(text, 5000, 2002)
    assert chunk.next_offset == 7000
    marker = truncation_marker(chunk)
    assert marker.startswith("\n[")
    assert "characters 5,000-7,000 of 15,000 shown, 8,000 more" in marker
    assert "snapshot --offset 7000 " in marker
