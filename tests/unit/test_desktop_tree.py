"""Desktop refs and text without a desktop: hand-made objects as AT-SPI would describe them."""

from __future__ import annotations

import pytest

from steadyhand.desktop.atspi import OFFSCREEN, Box, Facts
from steadyhand.desktop.tree import DesktopRefs, Node, render, visible
from steadyhand.errors import SteadyhandError

SCREEN = (1280, 800)


def facts(path: str, role: str, name: str = "", **extra: object) -> Facts:
    base: dict[str, object] = {
        "pid": 42,
        "path": path,
        "role": role,
        "name": name,
        "states": frozenset({"showing", "visible", "sensitive"}),
        "box": Box(10, 10, 100, 30),
        "actions": (),
        "interfaces": frozenset({"Accessible", "Component"}),
        "text": None,
        "children": 0,
    }
    return Facts(**(base | extra))  # type: ignore[arg-type]


def window(*children: Node) -> Node:
    app = Node(facts("/root", "application", "form.py", box=None), None)
    frame = Node(facts("/1", "frame", "GTK form"), None)
    filler = Node(facts("/2", "filler"), None, list(children))
    frame.children = [filler]
    app.children = [frame]
    return app


def button(path: str = "/3", name: str = "Greet") -> Node:
    return Node(facts(path, "push button", name, actions=("click",)), None)


def test_refs_stay_with_their_object_and_go_with_it() -> None:
    refs = DesktopRefs()
    first = window(button(), Node(facts("/4", "label", "ready"), None))
    refs.assign(first, whole_app=True)
    greet = first.children[0].children[0].children[0].ref
    assert greet is not None and refs.node(greet).facts.name == "Greet"
    label = first.children[0].children[0].children[1].ref  # a real click may still reach it
    assert label is not None and refs.node(label).facts.role == "label"
    assert first.ref is None  # the application itself
    again = window(Node(facts("/5", "check box", "Subscribe", actions=("click",)), None), button())
    refs.assign(again, whole_app=True)
    assert again.children[0].children[0].children[1].ref == greet  # same object, same ref
    new = again.children[0].children[0].children[0].ref
    assert new not in (None, greet)
    refs.assign(window(), whole_app=True)  # all gone
    for ref in (greet, new, label):
        with pytest.raises(SteadyhandError) as info:
            refs.node(str(ref))
        assert info.value.code == "stale_ref"
    with pytest.raises(SteadyhandError) as missing:
        refs.node("d999")
    assert missing.value.code == "not_found"


def test_text_lifts_unnamed_groups_and_hides_what_is_off_screen() -> None:
    refs = DesktopRefs()
    entry = Node(
        facts(
            "/6",
            "text",
            "Name",
            interfaces=frozenset({"Component", "EditableText", "Text"}),
            text="Ada",
            states=frozenset({"showing", "visible", "sensitive", "focused"}),
        ),
        None,
    )
    closed = Box(OFFSCREEN, OFFSCREEN, 1, 1)  # GTK: an item of a menu not open
    hidden = Node(facts("/7", "menu item", "Save", actions=("click",), box=closed), None)
    disabled = Node(
        facts("/8", "push button", "Later", actions=("click",), states=frozenset({"visible"})),
        None,
    )
    root = window(entry, button(), hidden, disabled)
    refs.assign(root, whole_app=True)
    text = render(root, SCREEN)
    assert text.splitlines() == [
        '- application "form.py" [pid=42]',
        '  - frame "GTK form" [ref=d1]',
        '    - text "Name" [focused] [ref=d2]: Ada',
        '    - push button "Greet" [ref=d3]',
        '    - push button "Later" [disabled] [ref=d5]',
    ]
    assert "Save" not in text and "Save" in render(root, SCREEN, everything=True)


def test_visibility_needs_states_and_a_box_on_screen() -> None:
    assert visible(facts("/1", "label"), SCREEN)
    assert not visible(facts("/1", "label", states=frozenset({"sensitive"})), SCREEN)
    assert not visible(facts("/1", "label", box=Box(OFFSCREEN, OFFSCREEN, 1, 1)), SCREEN)
    assert not visible(facts("/1", "label", box=Box(1300, 10, 50, 20)), SCREEN)
    assert not visible(facts("/1", "label", box=Box(10, 10, 0, 0)), SCREEN)
    assert visible(facts("/1", "label", box=None), SCREEN)  # no Component: states decide
    assert Box(10, 20, 100, 40).centre == (60, 40)
