"""The page model's tree on the Python side: built from the script's JSON, patched
copy-on-write, so an earlier capture stays as it was and a diff skips what both share."""

from __future__ import annotations

from typing import Any

from steadyhand.snapshot.diff import diff
from steadyhand.snapshot.page_model import FrameModel, _apply, _build, _replace, _shallow
from steadyhand.snapshot.render import View, render


def tree() -> dict[str, Any]:
    items = [
        {
            "i": 10 + k,
            "r": "listitem",
            "c": [f"Item {k}", {"i": 100 + k, "r": "button", "n": "Open"}],
        }
        for k in range(3)
    ]
    return {
        "i": 0,
        "r": "document",
        "c": [
            {"i": 1, "r": "main", "c": [
                {"i": 2, "r": "paragraph", "t": "Nothing opened"},
                {"i": 3, "r": "list", "c": items},
            ]},
        ],
    }  # fmt: skip


def built() -> FrameModel:
    model = FrameModel(index=0, doc="d1")
    fresh: list[Any] = []
    model.root = _build(tree(), model, fresh)
    return model


def test_build_gives_roles_names_text_and_keys() -> None:
    model = built()
    assert model.root is not None
    text = render([model.root], View())
    assert "- paragraph: Nothing opened" in text
    assert text.count('button "Open"') == 3
    assert set(model.nodes) == {"1", "2", "3", "10", "11", "12", "100", "101", "102"}
    assert model.nodes["101"].parent is model.nodes["11"]


def test_a_patch_replaces_one_subtree_and_leaves_the_earlier_tree_alone() -> None:
    model = built()
    before = model.root
    assert before is not None
    fresh: list[Any] = []
    assert _apply(model, "2", {"i": 2, "r": "paragraph", "t": "Opened item 1"}, fresh)
    after = model.root
    assert after is not None and after is not before
    assert "Nothing opened" in render([before], View()), "the old capture is unchanged"
    assert "Opened item 1" in render([after], View())
    assert [n.key for n in fresh] == ["2"], "only the patched node was built"
    # The list was not touched: the same objects in both trees.
    assert model.nodes["3"] is before.children[0].children[1]
    assert model.nodes["2"].parent is model.nodes["1"]
    changes = diff(before, after, View())
    assert changes.changed == ["- paragraph: Opened item 1   (was: Nothing opened)"]
    assert not changes.added and not changes.removed


def test_a_removal_and_an_unknown_target() -> None:
    model = built()
    before = model.root
    assert _apply(model, "11", None, [])
    assert model.root is not None
    assert "Item 1" not in render([model.root], View())
    assert "101" not in model.nodes and "11" not in model.nodes
    assert before is not None and "Item 1" in render([before], View())
    assert not _apply(model, "999", {"i": 999, "r": "button"}, []), "unknown: read it whole"


def test_a_patch_inside_a_grafted_frame_stays_in_that_frame() -> None:
    parent = built()
    frame_tree = {"i": 0, "r": "document", "c": [{"i": 5, "r": "button", "n": "One"}]}
    child = FrameModel(index=1, doc="d2")
    child.root = _build(frame_tree, child, [])
    # Graft the frame under an iframe node of the parent's tree, as PageModel._graft does.
    assert _apply(parent, "2", {"i": 2, "r": "iframe", "f": 1}, [])
    iframe = parent.nodes["2"]
    grafted = _shallow(iframe)
    grafted.children = child.root.children
    for kid in grafted.children:
        kid.parent = grafted
    _replace(parent, iframe, grafted)
    before = parent.root
    for n, name in enumerate(("Two", "Three")):
        assert _apply(child, "5", {"i": 5, "r": "button", "n": name}, [])
        assert child.root is not None and child.root.role == "document"
        assert [c.name for c in child.root.children] == [name], f"patch {n}"
        assert child.root.parent is None and set(child.nodes) == {"5"}
    assert parent.root is before, "the parent frame's tree is not touched by the child's"
    assert before is not None and render([before], View()).count("main") == 1


def test_patches_of_one_read_copy_each_ancestor_once_and_keep_the_earlier_tree() -> None:
    model = built()
    before = model.root
    assert before is not None
    fresh: list[Any] = []
    for k in range(3):
        assert _apply(model, str(100 + k), {"i": 100 + k, "r": "button", "n": f"Go {k}"}, fresh)
    after = model.root
    assert after is not None
    assert render([before], View()).count('button "Open"') == 3, "the earlier tree is intact"
    assert [f'button "Go {k}"' in render([after], View()) for k in range(3)] == [True] * 3
    # Each of the three items once, and their shared list, main and document once.
    assert len(model.copied) == 6
