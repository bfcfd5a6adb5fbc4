"""Find elements in a capture by text, role or name, each with the context it sits in."""

from __future__ import annotations

from dataclasses import dataclass

from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.render import with_context
from steadyhand.snapshot.tree import Node


@dataclass(frozen=True)
class Found:
    node: Node  # the element itself, or the nearest one above a matching run of text
    path: str  # landmark > heading > container
    near: str  # its table row or list item, if any


def _matches(value: str, wanted: str, exact: bool) -> bool:
    return value == wanted if exact else wanted.casefold() in value.casefold()


def find_nodes(
    capture: Capture, text: str | None, role: str | None, name: str | None, exact: bool
) -> list[Found]:
    """Every element matching all the given criteria, in document order, once each."""
    found: list[Found] = []
    seen: set[int] = set()
    for node, path, near in with_context(capture.root):
        if node.role == "document":
            continue
        if role is not None and node.role.casefold() != role.casefold():
            continue
        if name is not None and not _matches(node.name, name, exact):
            continue
        if text is not None:
            values = (node.name, node.text or "", node.props.get("placeholder", ""))
            if not any(v and _matches(v, text, exact) for v in values):
                continue
        target = _actionable_self_or_ancestor(node)
        if target is None or id(target) in seen:
            continue
        seen.add(id(target))
        found.append(Found(target, path, near))
    return found


def _actionable_self_or_ancestor(node: Node) -> Node | None:
    """The node if Playwright gave it a ref, else the nearest ancestor it gave one to."""
    current: Node | None = node
    while current is not None and current.key is None:
        current = current.parent
    return current
