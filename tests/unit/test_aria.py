from __future__ import annotations

import pytest

from steadyhand.snapshot.aria import MASK, find_ref, is_ref, mask_values, parse_refs

SNAPSHOT = """\
- generic [active] [ref=e1]:
  - heading "Form" [level=1] [ref=e2]
  - textbox "Name" [ref=e5]: Ada
  - button "Send" [ref=e11]
  - button "Send" [disabled] [ref=e12] [cursor=pointer]
  - button "Say \\"hi\\"" [ref=e13]
  - text: Send
  - link "Link" [ref=e14]:
    - /url: /x
  - iframe [ref=e15]:
    - button "Send" [ref=f1e2]
  - paragraph: no ref here
"""


def test_parse_refs_reads_role_name_nth_and_frame() -> None:
    nodes = {n.ref: n for n in parse_refs(SNAPSHOT)}
    assert list(nodes) == ["e1", "e2", "e5", "e11", "e12", "e13", "e14", "e15", "f1e2"]
    assert (nodes["e1"].role, nodes["e1"].name) == ("generic", "")
    assert (nodes["e11"].nth, nodes["e12"].nth) == (0, 1)
    assert nodes["e13"].name == 'Say "hi"'
    assert (nodes["f1e2"].frame, nodes["f1e2"].nth) == ("f1", 0), "nth counts per frame"


def test_find_ref() -> None:
    assert find_ref(SNAPSHOT, "button", "Send", nth=1) == "e12"
    with pytest.raises(KeyError):
        find_ref(SNAPSHOT, "button", "Nope")


def test_is_ref() -> None:
    assert is_ref("e1") and is_ref("f12e345")
    assert not is_ref("e") and not is_ref("#id") and not is_ref("E1") and not is_ref("e1 ")


def test_mask_values_hides_only_textbox_values_that_are_secrets() -> None:
    text = '- textbox "Password" [ref=e3]: hunter2\n- paragraph [ref=e4]: hunter2\n'
    masked = mask_values(text, {"hunter2"})
    assert masked.splitlines() == [
        f'- textbox "Password" [ref=e3]: {MASK}',
        "- paragraph [ref=e4]: hunter2",
    ]
    quoted = mask_values('- textbox "P" [ref=e3]: "a: b"', {"a: b"})
    assert quoted.endswith(MASK)
    assert mask_values(text, set()) == text


def test_mask_values_matches_the_snapshots_whitespace_folding() -> None:
    text = '- textbox "P" [ref=e3]: a b\n- textbox "Q" [ref=e4]: "x: y"'
    masked = mask_values(text, {" a\tb  ", "x:   y"})
    assert masked.splitlines() == [
        f'- textbox "P" [ref=e3]: {MASK}',
        f'- textbox "Q" [ref=e4]: {MASK}',
    ]
