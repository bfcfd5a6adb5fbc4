from __future__ import annotations

from steadyhand.snapshot.refs import RefRegistry

PAGE_A = '- button "One" [ref=e1]\n- button "Two" [ref=e2]\n'
PAGE_B = '- link "Other" [ref=e1]\n'


def test_refs_are_tied_to_their_document() -> None:
    refs = RefRegistry()
    refs.record(PAGE_A, "doc-a")
    info = refs.lookup("e2")
    assert info is not None and info.document == "doc-a" and info.node.name == "Two"
    assert refs.lookup("e9") is None and refs.retired("e9") is None

    refs.record(PAGE_B, "doc-b")
    reissued = refs.lookup("e1")
    assert reissued is not None and reissued.node.role == "link", "the new page's e1"
    assert refs.lookup("e2") is None
    retired = refs.retired("e2")
    assert retired is not None and retired.document == "doc-a"
    assert refs.retired("e1") is None, "a reissued ref is not retired"
    assert len(refs) == 1


def test_same_document_snapshots_accumulate() -> None:
    refs = RefRegistry()
    refs.record(PAGE_A, "doc")
    refs.record('- button "Three" [ref=e3]\n', "doc")
    assert {r for r in ("e1", "e2", "e3") if refs.lookup(r)} == {"e1", "e2", "e3"}
