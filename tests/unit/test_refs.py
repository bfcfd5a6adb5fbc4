"""RefRegistry and identities: steadyhand's own refs over Playwright's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from steadyhand.snapshot import refs as refs_module
from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.refs import (
    ACTIONABLE,
    LABEL_CHARS,
    Identity,
    RefRegistry,
    container_label,
    deserves_ref,
    identities,
    row_label,
)
from steadyhand.snapshot.tree import Node, parse


def capture(text: str, main_doc: str = "d1", docs: dict[int, str] | None = None) -> Capture:
    if docs is None:
        docs = {0: main_doc, 1: "d2"}
    return Capture(root=parse(text), main_doc=main_doc, docs=docs, url="http://x/")


def snap(
    registry: RefRegistry, text: str, main_doc: str = "d1", docs: dict[int, str] | None = None
) -> Capture:
    """A capture with refs issued as a snapshot issues them."""
    taken = capture(text, main_doc, docs)
    registry.issue(taken, [n for n in taken.root.walk() if deserves_ref(n)])
    return taken


def refs(taken: Capture) -> dict[str, str]:
    """Playwright ref -> steadyhand ref, for every node that got one."""
    return {n.key: n.ref for n in taken.root.walk() if n.key and n.ref}


def by_pw(taken: Capture, key: str) -> Node:
    return next(n for n in taken.root.walk() if n.key == key)


PAGE = "\n".join(
    [
        "- main [ref=e1]:",
        '  - heading "People" [level=1] [ref=e2]',
        '  - button "Save" [ref=e3]',
        '  - link "Help" [ref=e4] [cursor=pointer]',
        "  - generic [ref=e5]: 3 people",  # text: no ref
    ]
)


@pytest.mark.parametrize(
    ("line", "deserves"),
    [
        ('- button "OK" [ref=e1]', True),
        ('- textbox "Email" [ref=e1]: x', True),
        ('- table "T" [ref=e1]', True),
        ("- iframe [ref=e1]", True),
        ("- generic [ref=e1] [cursor=pointer]: click", True),
        ('- button "OK"', False),  # Playwright gave it no ref: nothing to act through
        ('- heading "T" [level=1] [ref=e1]', False),
        ("- paragraph [ref=e1]: words", True),  # text to select or click into
        ("- paragraph [ref=e1]", False),
        ('- listitem [ref=e1]:\n  - text: Buy milk\n  - checkbox "Done" [ref=e2]', True),
        ('- listitem [ref=e1]:\n  - text: Row 7\n  - button "Open" [ref=e2]', False),
        ('- cell "Alice" [ref=e1]', False),
        ("- generic [ref=e1]", False),
    ],
)
def test_deserves_ref(line: str, deserves: bool) -> None:
    assert deserves_ref(parse(line).children[0]) is deserves


def test_refs_are_numbered_per_registry_in_document_order() -> None:
    first, second = RefRegistry(), RefRegistry()
    taken = snap(first, PAGE)
    assert refs(taken) == {"e1": "e1", "e3": "e2", "e4": "e3"}
    assert by_pw(taken, "e2").ref is None, "a heading gets no ref"
    assert refs(snap(second, PAGE)) == refs(taken), "each registry counts on its own"
    assert len(first) == 3


def test_same_element_keeps_its_ref_across_captures() -> None:
    registry = RefRegistry()
    before = refs(snap(registry, PAGE))
    moved = "\n".join(
        [
            "- main [ref=e1]:",
            '  - button "New" [ref=e9]',  # inserted before the others
            '  - link "Help" [ref=e4] [cursor=pointer]',  # order swapped
            '  - button "Save" [ref=e3]',
        ]
    )
    after = refs(snap(registry, moved))
    assert after == {"e1": before["e1"], "e9": "e4", "e4": before["e4"], "e3": before["e3"]}


def test_refs_are_never_reused() -> None:
    registry = RefRegistry()
    snap(registry, '- button "A" [ref=e1]\n- button "B" [ref=e2]')
    snap(registry, '- button "A" [ref=e1]')  # B is gone
    # A new element carrying B's old Playwright ref in a new frame document is new to us.
    again = snap(registry, '- iframe [ref=e5]:\n  - button "B" [ref=e2]', docs={0: "d1", 1: "d9"})
    assert refs(again) == {"e5": "e3", "e2": "e4"}


def test_same_playwright_ref_in_another_document_gets_another_ref() -> None:
    registry = RefRegistry()
    text = '- iframe [ref=e1]:\n  - button "Go" [ref=f1e1]'
    first = refs(snap(registry, text, docs={0: "d1", 1: "frame-a"}))
    second = refs(snap(registry, text, docs={0: "d1", 1: "frame-b"}))  # the iframe navigated
    assert first["e1"] == second["e1"]
    assert first["f1e1"] != second["f1e1"]
    old = registry.lookup(first["f1e1"])
    assert old is not None and old.doc == "frame-a"


def test_entry_records_where_the_element_lives_and_what_it_is() -> None:
    registry = RefRegistry()
    taken = snap(
        registry,
        '- main [ref=e1]:\n  - iframe [ref=e2]:\n    - button "Go" [ref=f1e7]',
        docs={0: "d1", 1: "d2"},
    )
    entry = registry.lookup(by_pw(taken, "f1e7").ref or "")
    assert entry is not None
    assert (entry.key, entry.doc, entry.main_doc, entry.frame) == ("f1e7", "d2", "d1", 1)
    assert entry.identity == Identity("button", "Go", ("iframe",), nth=0, group=1)
    assert entry.label() == 'button "Go"'
    main = registry.lookup(by_pw(taken, "e1").ref or "")
    assert main is not None and main.label() == "main"


def test_new_main_document_forgets_old_refs_but_keeps_counting() -> None:
    registry = RefRegistry()
    old = refs(snap(registry, PAGE))
    new = refs(snap(registry, PAGE, main_doc="d7"))
    assert new == {"e1": "e4", "e3": "e5", "e4": "e6"}, "same Playwright refs, new document"
    for ref in old.values():
        assert registry.lookup(ref) is None
        assert registry.was_issued(ref)
    assert registry.lookup("e5") is not None
    assert len(registry) == 3
    assert registry.main_doc == "d7"


def test_was_issued_only_for_refs_handed_out() -> None:
    registry = RefRegistry()
    assert not registry.was_issued("e1")
    snap(registry, PAGE)
    assert registry.was_issued("e1") and registry.was_issued("e3")
    assert not registry.was_issued("e4")
    assert not registry.was_issued("e0")
    assert not registry.was_issued("x3")
    assert registry.lookup("e4") is None


@pytest.mark.parametrize("text", ["e01", "ee1", "e1e1", "e" + "9" * 5000])
def test_was_issued_rejects_strings_that_are_not_refs(text: str) -> None:
    registry = RefRegistry()
    snap(registry, PAGE)
    assert not registry.was_issued(text)


def test_frame_with_unknown_document_gets_fresh_refs_every_time() -> None:
    registry = RefRegistry()
    text = '- button "Top" [ref=e1]\n- iframe [ref=e2]:\n  - button "Inside" [ref=f1e1]'
    first = snap(registry, text, docs={0: "d1", 1: ""})
    second = snap(registry, text, docs={0: "d1", 1: ""})
    assert refs(first)["e1"] == refs(second)["e1"], "the main frame's elements keep theirs"
    assert refs(first)["f1e1"] != refs(second)["f1e1"]
    entry = registry.lookup(refs(second)["f1e1"])
    assert entry is not None and entry.doc == ""
    assert registry.lookup(refs(first)["f1e1"]) is not None, (
        "the old one is not reused, not dropped"
    )


def test_missing_frame_document_counts_as_unknown() -> None:
    registry = RefRegistry()
    text = '- iframe [ref=e2]:\n  - button "Inside" [ref=f1e1]'
    first = snap(registry, text, docs={0: "d1"})
    second = snap(registry, text, docs={0: "d1"})
    assert refs(first)["f1e1"] != refs(second)["f1e1"]


def test_issue_only_touches_the_nodes_it_is_given() -> None:
    registry = RefRegistry()
    taken = capture(PAGE)
    heading = by_pw(taken, "e2")
    registry.issue(taken, [heading])  # e.g. `find` handing out a ref to a heading
    assert heading.ref == "e1"
    assert [n.ref for n in taken.root.walk() if n.ref] == ["e1"]
    registry.issue(taken, [heading])
    assert heading.ref == "e1" and len(registry) == 1, "a node with a ref keeps it"


def test_reattach_puts_earlier_refs_back_on_the_same_elements() -> None:
    registry = RefRegistry()
    first = capture(PAGE)
    registry.issue(first, [by_pw(first, "e2")])  # a ref a default snapshot does not show
    later = snap(registry, PAGE)
    assert by_pw(later, "e2").ref is None
    registry.reattach(later)
    assert by_pw(later, "e2").ref == "e1"
    assert by_pw(later, "e5").ref is None, "reattach hands out nothing new"


def test_reattach_ignores_a_capture_of_another_document() -> None:
    registry = RefRegistry()
    first = capture(PAGE)
    registry.issue(first, [by_pw(first, "e2")])
    other = capture(PAGE, main_doc="d9")
    registry.reattach(other)
    assert all(n.ref is None for n in other.root.walk())


def test_prune_drops_refs_absent_from_the_latest_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refs_module, "MAX_ENTRIES", 3)
    registry = RefRegistry()
    snap(registry, '- button "A" [ref=e1]\n- button "B" [ref=e2]\n- button "C" [ref=e3]')
    assert len(registry) == 3
    taken = snap(registry, '- button "C" [ref=e3]\n- button "D" [ref=e4]')
    assert refs(taken) == {"e3": "e3", "e4": "e4"}
    assert len(registry) == 2
    assert registry.lookup("e1") is None and registry.was_issued("e1")
    back = snap(registry, '- button "A" [ref=e1]')
    assert refs(back) == {"e1": "e5"}, "a dropped ref is dead: its element gets a new one"


TABLE = "\n".join(
    [
        '- navigation "Main menu" [ref=e1]:',
        "  - list [ref=e2]:",
        "    - listitem [ref=e3]:",
        "      - text: Inbox",
        '      - link "Open" [ref=e4]',
        "    - listitem [ref=e5]:",
        '      - link "Open" [ref=e6]',
        '- region "Team" [ref=e7]:',
        '  - table "People" [ref=e8]:',
        '    - row "Name Actions" [ref=e9]:',
        '      - columnheader "Name" [ref=e10]',
        '    - row "Alice Edit" [ref=e11]:',
        "      - cell [ref=e12]",
        '      - cell "Alice" [ref=e13]',
        '      - cell "Edit" [ref=e14]:',
        '        - button "Edit" [ref=e15]',
        '        - button "Edit" [ref=e16]',
        '    - row "Bob Edit" [ref=e17]:',
        '      - cell "Bob" [ref=e18]',
        '      - cell "Edit" [ref=e19]:',
        '        - button "Edit" [ref=e20]',
        '- button "Menu" [ref=e21]:',
        '  - link "Inside a button" [ref=e22]',
        '- link "Open" [ref=e23]',
    ]
)


def identity_of(taken: Capture, key: str) -> Identity:
    return identities(taken)[by_pw(taken, key)]


def test_identity_context_names_containers_rows_and_list_items() -> None:
    taken = capture(TABLE)
    assert identity_of(taken, "e4").context == ("navigation Main menu", "listitem Inbox")
    # A list item with no text of its own (only a link's name) adds nothing.
    assert identity_of(taken, "e6").context == ("navigation Main menu",)
    # A row is named by its first non-empty cell; named cells name themselves.
    assert identity_of(taken, "e20").context == (
        "region Team",
        "table People",
        "row Bob",
        "cell Edit",
    )
    assert identity_of(taken, "e15").context[:3] == ("region Team", "table People", "row Alice")
    # Something one acts on is no container, even with a name.
    assert identity_of(taken, "e22").context == ()
    assert identity_of(taken, "e23").context == ()


def test_identity_nth_and_group_count_look_alikes_in_one_context() -> None:
    taken = capture(TABLE)
    first, second, bob = (identity_of(taken, r) for r in ("e15", "e16", "e20"))
    assert (first.role, first.name, first.nth, first.group) == ("button", "Edit", 0, 2)
    assert (second.nth, second.group) == (1, 2)
    assert (bob.nth, bob.group) == (0, 1), "another row is another context"
    assert [identity_of(taken, r).nth for r in ("e4", "e6", "e23")] == [0, 0, 0]


def test_identity_counts_per_frame() -> None:
    taken = capture(
        "\n".join(
            [
                "- iframe [ref=e1]:",
                '  - button "Go" [ref=f1e1]',
                "- iframe [ref=e2]:",
                '  - button "Go" [ref=f2e1]',
                '  - button "Go" [ref=f2e2]',
            ]
        ),
        docs={0: "d1", 1: "d2", 2: "d3"},
    )
    one, two_a, two_b = (identity_of(taken, r) for r in ("f1e1", "f2e1", "f2e2"))
    assert one == Identity("button", "Go", ("iframe",), 0, 1)
    assert (two_a.nth, two_a.group, two_b.nth, two_b.group) == (0, 2, 1, 2)
    assert [identity_of(taken, r).nth for r in ("e1", "e2")] == [0, 1]


def test_identities_cover_every_node_with_a_playwright_ref_once_per_capture() -> None:
    taken = capture(PAGE + '\n- button "No ref"')
    found = identities(taken)
    assert {n.key for n in found} == {"e1", "e2", "e3", "e4", "e5"}
    assert identities(taken) is found


def test_entry_keeps_the_identity_it_was_issued_with() -> None:
    registry = RefRegistry()
    row = "\n".join(
        [
            "- row [ref=e1]:",
            '  - cell "{}" [ref=e2]',
            '  - cell "Actions" [ref=e3]:',
            '    - button "Edit" [ref=e4]',
        ]
    )
    ref = refs(snap(registry, row.format("Alice")))["e4"]
    later = snap(registry, row.format("Alicia"))  # the same button, its row relabelled
    assert by_pw(later, "e4").ref == ref
    assert identity_of(later, "e4").context == ("row Alicia", "cell Actions")
    entry = registry.lookup(ref)
    assert entry is not None and entry.identity.context == ("row Alice", "cell Actions")


def test_row_label_is_the_first_non_empty_cell() -> None:
    root = parse(
        "\n".join(
            [
                "- row [ref=e1]:",
                "  - cell [ref=e2]",
                '  - cell "  " [ref=e3]',
                "  - cell [ref=e4]:",
                '    - link "Alice Smith" [ref=e5]',
                '  - cell "Second" [ref=e6]',
                "- row [ref=e7]:",
                "  - cell [ref=e8]",
                "- row [ref=e9]:",
                f'  - cell "{"x" * 100}" [ref=e10]',
            ]
        )
    )
    alice, empty, long = root.children
    assert row_label(alice) == "Alice Smith"
    assert container_label(alice) == "row Alice Smith"
    assert row_label(empty) == "" and container_label(empty) is None
    assert row_label(long) == "x" * LABEL_CHARS


def test_container_label() -> None:
    root = parse(
        "\n".join(
            [
                "- listitem [ref=e1]:",
                "  - text: first",
                '  - link "Not mine" [ref=e2]',
                "  - text: second",
                "- listitem [ref=e3]: whole item",
                "- listitem [ref=e4]",
                '- dialog "Confirm" [ref=e5]',
                "- iframe [ref=e6]",
                '- button "Save" [ref=e7]',
                "- group [ref=e8]",
                f'- region "{"r" * 80}" [ref=e9]',
            ]
        )
    )
    labels = [container_label(n) for n in root.children]
    assert labels == [
        "listitem first second",
        "listitem whole item",
        None,
        "dialog Confirm",
        "iframe",
        None,
        None,
        "region " + "r" * LABEL_CHARS,
    ]


def test_the_page_models_control_roles_are_the_roles_that_get_refs() -> None:
    """page_model.src.js counts controls (for groups, delegation) by the same roles that
    always get a ref here: the two lists are one list, written in two languages."""
    source = (Path(refs_module.__file__).parent / "js" / "page_model.src.js").read_text()
    listed = re.search(r"const CONTROL_ROLES = new Set\(\[(.*?)\]\);", source, re.S)
    assert listed is not None
    assert set(re.findall(r'"([a-z]+)"', listed.group(1))) == ACTIONABLE
