"""diff() and report(): what changed between two captures of a tab."""

from __future__ import annotations

from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.diff import diff, report
from steadyhand.snapshot.refs import RefRegistry, deserves_ref
from steadyhand.snapshot.render import View, render
from steadyhand.snapshot.tree import parse

BEFORE = "\n".join(
    [
        "- main [ref=e1]:",
        '  - heading "People" [level=1] [ref=e2]',
        '  - table "Team" [ref=e3]:',
        "    - rowgroup [ref=e4]:",
        '      - row "Alice a@x" [ref=e5]:',
        '        - cell "Alice" [ref=e6]',
        '        - cell "a@x" [ref=e7]',
        '      - row "Bob b@x" [ref=e8]:',
        '        - cell "Bob" [ref=e9]',
        '        - cell "b@x" [ref=e10]',
        '  - textbox "Email" [active] [ref=e11]: old@x',
        '  - button "Save" [ref=e12]',
        '  - link "Help" [ref=e13]:',
        "    - /url: /help",
        "  - generic [ref=e14]: 2 people",
    ]
)
# Refs the registry hands out for BEFORE: main e1, table e2, Email e3, Save e4, Help e5.


class Tab:
    """One tab's registry: refs carry over between its captures as they do in a snapshot."""

    def __init__(self) -> None:
        self.registry = RefRegistry()

    def snap(self, text: str, main_doc: str = "d1", url: str = "http://x/") -> Capture:
        taken = Capture(root=parse(text), main_doc=main_doc, docs={0: main_doc}, url=url)
        self.registry.issue(taken, [n for n in taken.root.walk() if deserves_ref(n)])
        return taken


def edit(text: str, *replacements: tuple[str, str]) -> str:
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    return text


def test_identical_captures_have_no_changes() -> None:
    tab = Tab()
    old, new = tab.snap(BEFORE), tab.snap(BEFORE)
    changes = diff(old.root, new.root, View())
    assert (changes.count, changes.lines) == (0, [])
    assert changes.summary() == "0 changed, 0 added, 0 removed"
    assert report(old, new, View()) == "# no changes since the last snapshot"


def test_no_baseline_is_the_whole_page() -> None:
    new = Tab().snap(BEFORE)
    shown = report(None, new, View())
    head, body = shown.split("\n", 1)
    assert head == "# no earlier snapshot of this tab: the whole page"
    assert body == render([new.root], View(focus=False))
    assert '- table "Team" [ref=e2] (2 rows):' in body and "[active]" not in body


def test_new_document_is_the_whole_page_with_new_refs() -> None:
    tab = Tab()
    old = tab.snap(BEFORE)
    new = tab.snap(BEFORE, main_doc="d2", url="http://x/next")
    shown = report(old, new, View())
    head, body = shown.split("\n", 1)
    assert head == "# a new document since the last snapshot (http://x/next): the whole page"
    assert body == render([new.root], View(focus=False))
    assert "[ref=e6]" in body and "[ref=e1]" not in body, "old refs died with the old document"


def test_a_changed_value_is_changed_under_its_ref() -> None:
    tab = Tab()
    old = tab.snap(BEFORE)
    new = tab.snap(edit(BEFORE, ("[active] [ref=e11]: old@x", "[active] [ref=e11]: new@x")))
    changes = diff(old.root, new.root, View())
    assert changes.changed == ['- textbox "Email" [active] [ref=e3]: new@x   (was: old@x)']
    assert (changes.added, changes.removed) == ([], [])
    assert report(old, new, View()) == "\n".join(
        [
            "# 1 changed, 0 added, 0 removed since the last snapshot",
            '~ textbox "Email" [ref=e3]: new@x   (was: old@x)   in: main [ref=e1]',
        ]
    )


def test_added_and_removed_elements() -> None:
    tab = Tab()
    old = tab.snap(BEFORE)
    new = tab.snap(
        edit(
            BEFORE,
            ('  - button "Save" [ref=e12]\n', ""),
            (
                "  - generic [ref=e14]: 2 people",
                '  - button "Undo" [ref=e20]\n  - generic [ref=e14]: 2 people',
            ),
        )
    )
    changes = diff(old.root, new.root, View())
    assert changes.removed == ['- button "Save" [ref=e4]']
    assert changes.added == ['- button "Undo" [ref=e6]']
    assert changes.changed == []
    assert report(old, new, View()).splitlines() == [
        "# 0 changed, 1 added, 1 removed since the last snapshot",
        '- button "Save" [ref=e4]   in: main [ref=e1]',
        '+ button "Undo" [ref=e6]   in: main [ref=e1]',
    ]


def test_an_added_subtree_comes_whole_and_indented() -> None:
    tab = Tab()
    old = tab.snap(BEFORE)
    dialog = "\n".join(
        [
            '  - dialog "Sure?" [ref=e30]:',
            "    - paragraph [ref=e31]: This deletes Bob.",
            '    - button "Delete" [ref=e32]',
        ]
    )
    new = tab.snap(BEFORE + "\n" + dialog)
    assert report(old, new, View()).splitlines() == [
        "# 0 changed, 1 added, 0 removed since the last snapshot",
        '+ dialog "Sure?" [ref=e6]:   in: main [ref=e1]',
        "      - paragraph [ref=e7]: This deletes Bob.",
        '      - button "Delete" [ref=e8]',
    ]


def test_look_alikes_are_told_apart_by_ref() -> None:
    tab = Tab()
    two = '- button "Delete" [ref=e1]\n- button "Delete" [ref=e2]\n- button "Delete" [ref=e3]'
    old = tab.snap(two)
    new = tab.snap('- button "Delete" [ref=e1]\n- button "Delete" [ref=e3]')
    changes = diff(old.root, new.root, View())
    assert changes.removed == ['- button "Delete" [ref=e2]'], "the middle one, not the last"
    assert changes.count == 1


def test_text_without_a_ref_that_changes_in_place_is_changed() -> None:
    tab = Tab()
    old = tab.snap(BEFORE)
    new = tab.snap(edit(BEFORE, ("2 people", "3 people")))
    changes = diff(old.root, new.root, View())
    assert changes.changed == ["- generic: 3 people   (was: 2)"]
    assert changes.count == 1
    loose = tab.snap("- text: Loading")
    done = tab.snap("- text: Done")
    assert diff(loose.root, done.root, View()).changed == ["- text: Done   (was: Loading)"]


def test_table_rows_change_and_go_as_whole_lines() -> None:
    tab = Tab()
    old = tab.snap(BEFORE)
    new = tab.snap(
        edit(
            BEFORE,
            ('cell "a@x" [ref=e7]', 'cell "alice@x" [ref=e7]'),
            (
                '      - row "Bob b@x" [ref=e8]:\n        - cell "Bob" [ref=e9]\n'
                '        - cell "b@x" [ref=e10]\n',
                "",
            ),
        )
    )
    assert report(old, new, View()).splitlines() == [
        "# 1 changed, 0 added, 1 removed since the last snapshot",
        '~ row: Alice | alice@x   (was: a@x)   in: table "Team" [ref=e2]',
        '- row: Bob | b@x   in: table "Team" [ref=e2]',
    ]


def test_report_leaves_focus_moves_out_but_diff_can_see_them() -> None:
    tab = Tab()
    old = tab.snap(BEFORE)
    new = tab.snap(
        edit(
            BEFORE,
            ('"Email" [active] [ref=e11]', '"Email" [ref=e11]'),
            ('"Save" [ref=e12]', '"Save" [active] [ref=e12]'),
        )
    )
    assert report(old, new, View()) == "# no changes since the last snapshot"
    assert diff(old.root, new.root, View()).count == 2


def test_report_shows_urls_only_when_asked() -> None:
    tab = Tab()
    old = tab.snap(BEFORE)
    new = tab.snap(edit(BEFORE, ("/url: /help", "/url: /help/v2")))
    assert report(old, new, View()) == "# no changes since the last snapshot"
    assert report(old, new, View(urls=True)).splitlines()[1:] == [
        '~ link "Help" [ref=e5] [url=/help/v2]   (was: [url=/help])   in: main [ref=e1]'
    ]


def test_text_change_after_an_insertion_is_still_changed() -> None:
    tab = Tab()
    old = tab.snap(BEFORE)
    new = tab.snap(
        edit(
            BEFORE,
            (
                "  - generic [ref=e14]: 2 people",
                '  - button "Undo" [ref=e20]\n  - generic [ref=e14]: 1 person',
            ),
        )
    )
    changes = diff(old.root, new.root, View())
    assert changes.added == ['- button "Undo" [ref=e6]']
    assert changes.changed == ["- generic: 1 person   (was: 2 people)"]
    assert changes.removed == []
