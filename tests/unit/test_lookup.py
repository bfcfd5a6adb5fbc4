"""Reading refs back out of rendered snapshots: is_ref, refs_in, find_ref."""

from __future__ import annotations

import pytest

from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.lookup import find_ref, is_ref, refs_in, split_field
from steadyhand.snapshot.refs import RefRegistry, deserves_ref
from steadyhand.snapshot.render import View, render
from steadyhand.snapshot.tree import parse

RENDERED = "\n".join(
    [
        "- banner [ref=e1]:",
        '  - link "Home" [ref=e2]',
        '  - heading "People" [level=1]',
        '  - textbox "Search" [active] [ref=e3] [placeholder="Type here"]',
        '  - table "Team" [ref=e4] (3 rows):',
        "    - header: Name | Email | Actions",
        '    - row: Alice | a@x | button "Edit" [ref=e20]',
        '    - row: Bob | b@x | checkbox "Pick" [checked] [ref=e21] button "Edit" [ref=e22]',
        '    - row: Carol | textbox "Email" [ref=e23] = "c@x" | button "Edit" [ref=e24]',
        '  - button "say \\"hi\\" caf\u00e9" [ref=e30]',
        "  - generic [ref=e31] [cursor=pointer]: Click me",
    ]
)


@pytest.mark.parametrize("ref", ["e1", "e9", "e12", "e100200"])
def test_is_ref_accepts_our_refs(ref: str) -> None:
    assert is_ref(ref)


@pytest.mark.parametrize("text", ["", "e", "e0", "e01", "E1", "1", "ref=e1", "e1 ", "f1e2", "e-1"])
def test_is_ref_rejects_anything_else(text: str) -> None:
    assert not is_ref(text)


def test_refs_in_finds_tree_lines_and_inline_row_elements_in_order() -> None:
    assert refs_in(RENDERED) == [
        ("e1", "banner", ""),
        ("e2", "link", "Home"),
        ("e3", "textbox", "Search"),
        ("e4", "table", "Team"),
        ("e20", "button", "Edit"),
        ("e21", "checkbox", "Pick"),
        ("e22", "button", "Edit"),
        ("e23", "textbox", "Email"),
        ("e24", "button", "Edit"),
        ("e30", "button", 'say "hi" café'),
        ("e31", "generic", ""),
    ]


def test_refs_in_skips_elements_without_a_ref() -> None:
    found = refs_in('- heading "People" [level=1]\n- paragraph: 3 people\n- text: e5')
    assert found == []


def test_find_ref_by_role_name_and_position() -> None:
    assert find_ref(RENDERED, "button", "Edit") == "e20"
    assert find_ref(RENDERED, "button", "Edit", nth=2) == "e24"
    assert find_ref(RENDERED, "textbox", "Email") == "e23"
    assert find_ref(RENDERED, "generic", "") == "e31"
    assert find_ref(RENDERED, "button", 'say "hi" café') == "e30"


@pytest.mark.parametrize(
    ("role", "name", "nth"),
    [
        ("button", "Edit", 3),  # only three of them
        ("button", "Edi", 0),  # names match exactly
        ("link", "Edit", 0),  # and so do roles
        ("heading", "People", 0),  # shown, but without a ref
    ],
)
def test_find_ref_raises_key_error_when_absent(role: str, name: str, nth: int) -> None:
    with pytest.raises(KeyError):
        find_ref(RENDERED, role, name, nth)


def test_refs_in_reads_back_every_ref_every_view_hands_out() -> None:
    snapshot = "\n".join(
        [
            "- main [ref=e1]:",
            '  - heading "People" [level=1] [ref=e2]',
            '  - table "Team" [ref=e3]:',
            '    - row "Alice a@x Edit" [ref=e4]:',
            '      - cell "Alice" [ref=e5]',
            '      - cell "a@x" [ref=e6]',
            '      - cell "Edit" [ref=e7]:',
            '        - checkbox "Pick" [ref=e8]',
            '        - button "Edit" [ref=e9] [cursor=pointer]',
            "  - list [ref=e10]:",
            "    - listitem [ref=e11]:",
            "      - text: first item",
            '      - link "Open" [ref=e12]:',
            "        - /url: /open",
        ]
    )
    taken = Capture(root=parse(snapshot), main_doc="d1", docs={0: "d1"}, url="http://x/")
    RefRegistry().issue(taken, [n for n in taken.root.walk() if deserves_ref(n)])
    issued = {(n.ref, n.role, n.name) for n in taken.root.walk() if n.ref is not None}
    actionable = {item for item in issued if item[1] in ("checkbox", "button", "link")}
    assert len(issued) == 6  # main, table, Pick, Edit, list, Open
    for view in (View(), View(mode="compact"), View(urls=True), View(cells=True)):
        assert set(refs_in(render([taken.root], view))) == issued, view
    assert set(refs_in(render([taken.root], View(mode="interactive")))) == actionable


@pytest.mark.parametrize(
    ("item", "pair"),
    [
        ("e5=alice", ("e5", "alice")),
        ("e5=a=b", ("e5", "a=b")),
        ("label=Email=a@b.c", ("label=Email", "a@b.c")),
        ('role=textbox[name="Q=1"]=x', ('role=textbox[name="Q=1"]', "x")),
        ("css=input[name=q]=hello", ("css=input[name=q]", "hello")),
        ('text="a=b"=v', ('text="a=b"', "v")),
        ("label=Don't=x", ("label=Don't", "x")),
        ("e5=", ("e5", "")),
        ("label=Email", None),
        ("=x", None),
        ("e5", None),
    ],
)
def test_split_field_splits_where_the_target_ends(item: str, pair: tuple[str, str] | None) -> None:
    assert split_field(item) == pair
