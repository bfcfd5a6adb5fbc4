"""Per-tab memory of the refs handed to the agent and the document they belong to.

Playwright numbers refs per document, so after a navigation `e5` can name a different
element on the new page. The registry remembers which document each ref came from; a ref
used after its document went away is rejected as stale instead of hitting a stranger.
"""

from __future__ import annotations

from dataclasses import dataclass

from steadyhand.snapshot.aria import RefNode, parse_refs


@dataclass(frozen=True)
class RefInfo:
    node: RefNode
    document: str  # identity of the main-frame document the ref was handed out in


class RefRegistry:
    """Refs of one tab: issued by snapshots, looked up by actions."""

    def __init__(self) -> None:
        self._refs: dict[str, RefInfo] = {}
        self._retired: dict[str, RefInfo] = {}
        self._document = ""

    @property
    def document(self) -> str:
        return self._document

    def record(self, snapshot: str, document: str) -> list[RefNode]:
        """Remember the refs of a fresh snapshot of `document`."""
        if document != self._document:
            # A new document: refs of the old one can never be valid again.
            self._retired = self._refs
            self._refs = {}
            self._document = document
        nodes = parse_refs(snapshot)
        for node in nodes:
            self._refs[node.ref] = RefInfo(node, document)
        return nodes

    def lookup(self, ref: str) -> RefInfo | None:
        """The ref as issued for the current document, if it was."""
        return self._refs.get(ref)

    def retired(self, ref: str) -> RefInfo | None:
        """The ref as issued for the previous document, if it was and was not reissued."""
        return None if ref in self._refs else self._retired.get(ref)

    def __len__(self) -> int:
        return len(self._refs)
