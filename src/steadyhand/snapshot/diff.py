"""What changed between two captures of one document: added, removed and changed nodes.

Children are matched by ref where they have one (a ref names one element for its life) and
by their own line otherwise; a node whose line differs but whose place is the same is
"changed". Each change is one line, with the container it sits in, so the agent can read
it without the rest of the page.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.render import TABLES, View, node_line, one_line, render
from steadyhand.snapshot.tree import Node


@dataclass
class Changes:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    shown: list[Node] = field(default_factory=list)  # the nodes the lines show (new side)

    @property
    def count(self) -> int:
        return len(self.added) + len(self.removed) + len(self.changed)

    def summary(self) -> str:
        return f"{len(self.changed)} changed, {len(self.added)} added, {len(self.removed)} removed"


def report(
    old: Capture | None,
    new: Capture,
    view: View,
    shown: list[Node] | None = None,
    counts: bool = True,
) -> str:
    """What the agent needs to know of `new`, given that it last saw `old`.

    Only the changes when both are the same document; the whole page otherwise.
    `shown` gets the nodes the text shows; `counts`: head the changes with how many of
    each kind there are (an act's reply leaves it out: its lines say it).
    """
    view = View(mode="default", urls=view.urls, cells=view.cells, focus=False)
    shown = [] if shown is None else shown
    if old is None or old.main_doc != new.main_doc:
        shown.extend(new.root.walk())
        if old is None:
            head = "# no earlier snapshot of this tab: the whole page\n"
        else:
            head = f"# a new document since the last snapshot ({new.url}): the whole page\n"
        return head + render([new.root], view)
    changes = diff(old.root, new.root, view)
    shown.extend(changes.shown)
    if not changes.count:
        return "# no changes since the last snapshot"
    head = f"# {changes.summary()} since the last snapshot\n" if counts else ""
    return head + "\n".join(changes.lines)


def diff(old: Node, new: Node, view: View) -> Changes:
    """Changes from tree `old` to tree `new` (both roots of one document)."""
    changes = Changes()
    _children(old, new, view, changes)
    return changes


def _key(node: Node, view: View) -> tuple[str, ...]:
    if node.ref is not None:
        return ("ref", node.ref)
    return ("line", node_line(node, view))


def _children(old: Node, new: Node, view: View, changes: Changes) -> None:
    if old is new or old.children is new.children:
        return  # a subtree both captures share: nothing in it changed
    a, b = _visible_children(old, view), _visible_children(new, view)

    def same(x: Node, y: Node) -> bool:
        return x is y or _key(x, view) == _key(y, view)

    # Equal runs at both ends are paired without difflib: it is quadratic on long runs of
    # look-alike siblings (3 000 unnamed list items), and most changes are small. Shared
    # nodes compare by identity, so a long list with one changed item costs little.
    head = 0
    while head < min(len(a), len(b)) and same(a[head], b[head]):
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and same(a[-1 - tail], b[-1 - tail]):
        tail += 1
    for x, y in zip(a[:head], b[:head], strict=True):
        _pair(x, y, view, changes)
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    if mid_a or mid_b:
        _middle(
            mid_a,
            mid_b,
            [_key(n, view) for n in mid_a],
            [_key(n, view) for n in mid_b],
            parent=new,
            view=view,
            changes=changes,
        )
    for x, y in zip(a[len(a) - tail :], b[len(b) - tail :], strict=True):
        _pair(x, y, view, changes)


def _middle(
    a: list[Node],
    b: list[Node],
    keys_a: list[tuple[str, ...]],
    keys_b: list[tuple[str, ...]],
    *,
    parent: Node,
    view: View,
    changes: Changes,
) -> None:
    matcher = SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for x, y in zip(a[i1:i2], b[j1:j2], strict=True):
                _pair(x, y, view, changes)
            continue
        olds, news = a[i1:i2], b[j1:j2]
        partners = _slot_partners(olds, news)
        # Lines come out in document order: the olds before a pair are reported before it.
        position = {id(x): i for i, x in enumerate(olds)}
        done = 0
        for k, born in enumerate(news):
            if k not in partners:
                _note(changes.added, changes, "+", _subtree(born, view), parent)
                changes.shown.extend(born.walk())
                continue
            until = position[id(partners[k])]
            for gone in olds[done:until]:
                _note(changes.removed, changes, "-", node_line(gone, view), parent)
            done = until + 1
            _pair(partners[k], born, view, changes)
        for gone in olds[done:]:
            _note(changes.removed, changes, "-", node_line(gone, view), parent)


def _slot_partners(olds: list[Node], news: list[Node]) -> dict[int, Node]:
    """Old nodes that are the same node as a new one, by index in `news`.

    Neither pinned by a ref, same role, in the same order: one node whose content changed,
    even when something was inserted or removed next to it. Greedy in document order.
    """
    free: dict[str, list[int]] = {}
    for k, born in enumerate(news):
        if born.ref is None:
            free.setdefault(born.role, []).append(k)
    partners: dict[int, Node] = {}
    start = 0
    for gone in olds:
        if gone.ref is not None:
            continue
        candidates = free.get(gone.role, [])
        at = bisect_left(candidates, start)
        if at < len(candidates):
            partners[candidates[at]] = gone
            start = candidates[at] + 1
    return partners


def _visible_children(node: Node, view: View) -> list[Node]:
    """Children as the view shows them: a table's rows come out of their row groups."""
    if node.role in TABLES and not view.cells:
        rows: list[Node] = []
        stack = list(reversed(node.children))
        while stack:
            child = stack.pop()
            if child.role in ("rowgroup", "generic") and child.ref is None:
                stack.extend(reversed(child.children))
            else:
                rows.append(child)
        return rows
    return node.children


def _pair(x: Node, y: Node, view: View, changes: Changes) -> None:
    if x is y:
        return
    before, after = node_line(x, view), node_line(y, view)
    if before != after:
        changes.shown.append(y)
        _note(changes.changed, changes, "~", f"{after}   {was(before, after)}", y.parent)
    if one_line(y, view):
        return  # a row is one line: its cells changed with it
    _children(x, y, view, changes)


_TOKENS = re.compile(r"(\s+|: )")


def was(before: str, after: str) -> str:
    """What a changed line was, said by the part that differs: `(was: Small)` for
    `combobox "Size": Large`, `(was: no [checked])` for a line that only gained a state,
    `(was: empty)` for a field that only gained a value."""
    old, new = _TOKENS.split(before.removeprefix("- ")), _TOKENS.split(after.removeprefix("- "))
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    gone = "".join(old[head : len(old) - tail]).strip()
    came = "".join(new[head : len(new) - tail]).strip()
    if gone.removeprefix(":").strip():
        return f"(was: {gone.removeprefix(':').strip()})"
    if came.startswith(":"):
        return "(was: empty)"
    return f"(was: no {came})"


def _subtree(node: Node, view: View) -> str:
    text = render([node], view)
    lines = text.splitlines()
    if len(lines) > 1:
        return lines[0] + "\n" + "\n".join("    " + line for line in lines[1:])
    return text


def _note(bucket: list[str], changes: Changes, mark: str, text: str, where: Node | None) -> None:
    bucket.append(text)
    container = _container(where)
    suffix = f"   in: {container}" if container else ""
    first, *rest = text.split("\n")
    changes.lines.append(f"{mark} {first.removeprefix('- ')}{suffix}")
    changes.lines.extend(rest)


def _container(node: Node | None) -> str:
    """The nearest ancestor-or-self with a ref or a name, to say where a change happened."""
    while node is not None and node.role != "document":
        if node.ref is not None or node.name:
            name = f' "{node.name[:40]}"' if node.name else ""
            ref = f" [ref={node.ref}]" if node.ref else ""
            return f"{node.role}{name}{ref}"
        node = node.parent
    return ""
