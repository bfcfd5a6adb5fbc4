"""The desktop's accessibility tree: applications, their windows, and refs that stay.

A ref (`d7`) names one accessible object for its whole life: its identity is the
application's process and the object's path on the accessibility bus, so the same button
keeps its ref across snapshots. An object that a full walk of its application no longer
finds is tombstoned: its ref answers `stale_ref`, never another object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from steadyhand.desktop.atspi import Box, Facts, atspi, attempt, read
from steadyhand.desktop.deadline import Deadline
from steadyhand.errors import ErrorCode, SteadyhandError

MAX_NODES = 20_000
# Roles that only group others: unnamed ones are left out of the text (children lifted).
GROUPS = {"filler", "panel", "scroll pane", "viewport", "layered pane", "section", "grouping"}
Key = tuple[int, str]  # (pid, object path)


@dataclass
class Node:
    facts: Facts
    handle: Any  # its libatspi object; None (a bulk read) until an action needs it
    children: list[Node] = field(default_factory=list)
    ref: str | None = None
    parent: Node | None = field(default=None, repr=False, compare=False)
    index: int = 0  # its place among its parent's children, when read

    @property
    def key(self) -> Key:
        return (self.facts.pid, self.facts.path)

    @property
    def obj(self) -> Any:
        """Its libatspi object (on the AT-SPI thread): found from its parent's by its place
        (or its path, when its siblings moved); `ObjectGone` when it is not there."""
        if self.handle is None:
            self.handle = _locate(self)
        return self.handle


class ObjectGone(Exception):
    """An object read earlier is not in its application's tree any more."""


def _locate(node: Node) -> Any:
    path = node.facts.path
    if node.parent is None:
        found = [obj for _name, pid, obj in applications() if pid == node.facts.pid]
        if not found:
            raise ObjectGone(path)
        return found[0]
    parent = node.parent.obj
    guess = attempt(lambda: parent.get_child_at_index(node.index))
    if guess is not None and attempt(lambda: guess.path) == path:
        return guess
    for i in range(int(attempt(parent.get_child_count, 0) or 0)):
        child = attempt(lambda i=i: parent.get_child_at_index(i))
        if child is not None and attempt(lambda c=child: c.path) == path:
            return child
    raise ObjectGone(path)


def applications() -> list[tuple[str, int, Any]]:
    """(name, pid, accessible) of every application on the accessibility bus; a hung one
    has the name "" (it does not answer)."""
    desktop = atspi().get_desktop(0)
    found = []
    for i in range(desktop.get_child_count()):
        app = attempt(lambda i=i: desktop.get_child_at_index(i))
        if app is None:
            continue  # quitting while we look
        name = attempt(app.get_name, "") or ""
        found.append((" ".join(name.split()), int(attempt(app.get_process_id, 0) or 0), app))
    return found


def walk(obj: Any, pid: int, deadline: Deadline, limit: int = MAX_NODES) -> Node:
    """The subtree under `obj`, read object by object until the deadline."""
    root = Node(read(obj, pid, deadline), obj)
    pending = [root]
    seen = 1
    while pending:
        deadline.check("reading the accessibility tree")
        node = pending.pop()
        for i in range(node.facts.children):
            if seen >= limit:
                return root
            try:
                child = node.obj.get_child_at_index(i)
            except Exception:
                continue
            if child is None:
                continue
            kid = Node(read(child, pid, deadline), child, parent=node, index=i)
            node.children.append(kid)
            pending.append(kid)
            seen += 1
    return root


def ancestor(node: Node, role: str) -> Node | None:
    """The nearest node above `node` (as last walked) with `role`."""
    above = node.parent
    while above is not None and above.facts.role != role:
        above = above.parent
    return above


def actable(facts: Facts) -> bool:
    """Whether an object gets a ref: something can be done to it, it is a window, or it
    has a name and a box (a label or a canvas can still take a real click)."""
    return facts.role != "application" and bool(
        facts.actions
        or "EditableText" in facts.interfaces
        or "Selection" in facts.interfaces
        or "focusable" in facts.states
        or facts.role in ("frame", "window", "dialog")
        or (facts.name and facts.box is not None)
    )


class DesktopRefs:
    """Refs handed out for desktop objects: stable per object, tombstoned when gone."""

    def __init__(self) -> None:
        self._by_key: dict[Key, str] = {}
        self._nodes: dict[str, Node] = {}
        self._gone: set[str] = set()
        self._next = 1

    def assign(self, root: Node, whole_app: bool) -> None:
        """Give refs to `root`'s actable objects; after a whole application's walk, its
        objects not found any more are tombstoned."""
        found: set[str] = set()
        stack = [root]
        while stack:  # in document order: refs read top to bottom
            node = stack.pop()
            stack.extend(reversed(node.children))
            if not actable(node.facts):
                continue
            ref = self._by_key.get(node.key)
            if ref is None:
                ref = f"d{self._next}"
                self._next += 1
                self._by_key[node.key] = ref
            node.ref = ref
            self._nodes[ref] = node
            found.add(ref)
        if whole_app:
            pid = root.facts.pid
            for ref, node in list(self._nodes.items()):
                if node.facts.pid == pid and ref not in found:
                    self._gone.add(ref)
                    del self._nodes[ref]
                    del self._by_key[node.key]

    def boxes(self, pid: int, paths: set[str]) -> list[Box]:
        """The boxes (as last read) of application `pid`'s objects at `paths` that have refs."""
        found = []
        for path in paths:
            ref = self._by_key.get((pid, path))
            node = self._nodes.get(ref) if ref is not None else None
            if node is not None and node.facts.box is not None:
                found.append(node.facts.box)
        return found

    def node(self, ref: str) -> Node:
        """The object behind a ref, as last read; refs of gone objects are refused."""
        if ref in self._gone:
            raise stale(ref)
        node = self._nodes.get(ref)
        if node is None:
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                f"no desktop ref {ref} was handed out",
                "take a `desktop snapshot` and use a ref from it (desktop refs look like d7)",
            )
        return node

    def forget(self, ref: str) -> SteadyhandError:
        """The object turned out gone when acted on: its ref answers stale_ref from now
        on; the error to raise."""
        node = self._nodes.pop(ref, None)
        if node is not None:
            self._by_key.pop(node.key, None)
        self._gone.add(ref)
        return stale(ref)


def stale(ref: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.STALE_REF,
        f"desktop ref {ref} is stale: its object is gone (window closed or rebuilt)",
        "take a new `desktop snapshot` and use a ref from it",
    )


def visible(facts: Facts, screen: tuple[int, int]) -> bool:
    """Shown on screen: toolkits differ (GTK4 never says `showing`; closed Qt popups do),
    so the states and the box must both agree."""
    shown = "showing" in facts.states or "visible" in facts.states
    return shown and (facts.box is None or facts.box.on_screen(*screen))


def render(root: Node, screen: tuple[int, int], everything: bool = False) -> str:
    """The tree as text in the browser snapshot's style: `- role "name" [ref=d3]`."""
    lines: list[str] = []

    def emit(node: Node, depth: int) -> None:
        facts = node.facts
        if not everything and not visible(facts, screen) and facts.role != "application":
            return
        skip = facts.role in GROUPS and not facts.name and node.ref is None
        if not skip:
            lines.append("  " * depth + "- " + line(node))
        for child in node.children:
            emit(child, depth if skip else depth + 1)

    emit(root, 0)
    return "\n".join(lines)


def line(node: Node) -> str:
    facts = node.facts
    text = facts.role + (f' "{facts.name}"' if facts.name else "")
    marks: list[str] = [
        s for s in ("checked", "selected", "expanded", "focused") if s in facts.states
    ]
    if "sensitive" not in facts.states and facts.role != "application":
        marks.append("disabled")
    text += "".join(f" [{m}]" for m in marks)
    if node.ref:
        text += f" [ref={node.ref}]"
    if facts.role == "application":
        text += f" [pid={facts.pid}]"
    if facts.text:
        text += f": {facts.text}"
    return text
