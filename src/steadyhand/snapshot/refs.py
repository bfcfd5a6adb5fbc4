"""Per-tab refs: which element each ref handed to the agent names, and how to find it again.

steadyhand hands out its own refs, numbered per tab and never reused (a ref whose element
or document is gone stays dead: tombstoned). Each names one element of the page model —
its key is (document, the model's element id), tied to the DOM node — and remembers its
identity: role, the name the agent was last shown, context (the named containers, table
row or list item around it), and its position (nth) among elements with that same
identity. Identity is what lets an action re-find an element the page replaced with an
identical one, and the name is what stops an action on a control renamed behind the
agent's back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.lookup import is_ref
from steadyhand.snapshot.tree import Node

# Roles an agent acts on: they always get a ref.
ACTIONABLE = frozenset(
    {
        "button",
        "link",
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "option",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "tab",
        "switch",
        "slider",
        "spinbutton",
        "treeitem",
    }
)
# Containers worth pointing at (a subtree snapshot, a scroll, an extract): they get one too.
CONTAINERS = frozenset(
    {
        "table",
        "grid",
        "treegrid",
        "list",
        "dialog",
        "alertdialog",
        "form",
        "navigation",
        "main",
        "banner",
        "contentinfo",
        "complementary",
        "search",
        "region",
        "menu",
        "menubar",
        "tablist",
        "tree",
        "tabpanel",
        "article",
        "iframe",
    }
)
LABEL_CHARS = 60
MAX_ENTRIES = 20_000  # per tab; beyond it, refs absent from the last snapshot are dropped


# Blocks of prose an agent may need to select text in or click into (`select-text REF`,
# `click REF --count 3`, a paragraph of an editor): every one that holds text gets a ref.
TEXT_BLOCKS = frozenset({"paragraph", "blockquote"})


def deserves_ref(node: Node) -> bool:
    """Whether the default views hand this node a ref: a person can act on it."""
    if node.key is None:
        return False
    if node.role == "option" and node.parent is not None and node.parent.role == "combobox":
        return False  # a native select's choice: `select REF VALUE` picks it, not a click
    if node.role in TEXT_BLOCKS and not node.how:  # text of its own, not only controls'
        return _own_text(node)
    if node.role == "listitem" and not node.how:  # text whose only controls are toggles:
        return _own_text(node) and _only_toggles(node)  # opened through the item (a todo)
    if node.role == "row":  # a row of an interactive grid: a person clicks it to open it
        headers = all(c.role == "columnheader" for c in node.children if c.role != "text")
        return bool(node.how) or (_in_grid(node) and not headers)
    return node.role in ACTIONABLE or node.role in CONTAINERS or bool(node.how)


def _own_text(node: Node) -> bool:
    return bool((node.text or "").strip()) or any(
        c.role == "text" and (c.text or "").strip() for c in node.children
    )


TOGGLES = frozenset({"checkbox", "radio", "switch"})


def _only_toggles(node: Node) -> bool:
    """Whether the item holds controls and all of them are toggles: its text then has no
    control of its own (a todo's title is double-clicked to edit it); an item with a
    button or link (`Open`) is acted on through that."""
    controls = [n for n in node.walk() if n is not node and (n.role in ACTIONABLE or n.how)]
    return bool(controls) and all(n.role in TOGGLES for n in controls)


def _in_grid(row: Node) -> bool:
    for above in row.ancestors():
        if above.role in ("table", "grid", "treegrid"):
            return above.role != "table" or "clickable" in above.how
    return False


@dataclass(frozen=True)
class Identity:
    """What names an element independently of Playwright: enough to re-find its twin."""

    role: str
    name: str
    context: tuple[str, ...]
    nth: int  # position among elements of the same document with the same role/name/context
    group: int  # how many there were


@dataclass(frozen=True)
class RefEntry:
    ref: str
    key: str
    doc: str  # the document (of its frame) the element lives in
    main_doc: str  # the tab's main document when the ref was handed out
    frame: int  # 0 for the main frame
    identity: Identity
    url: str = ""  # a link's /url as the snapshot showed it: the approval gate reads it
    downloads: bool = False  # a link with `download`: what it starts is a download

    def label(self) -> str:
        name = self.identity.name
        return f'{self.identity.role} "{name}"' if name else self.identity.role

    def described(self) -> dict[str, Any]:
        """Its identity as data (what the action log keeps of an act's target)."""
        found = self.identity
        shown: dict[str, Any] = {"role": found.role, "name": found.name}
        shown |= {"context": list(found.context), "nth": found.nth, "group": found.group}
        return shown | ({"url": self.url} if self.url else {})


def row_label(row: Node) -> str:
    """A row's first non-empty cell text: how a person names a table row."""
    for cell in row.children:
        text = cell.all_text(200).strip()
        if text:
            return text[:LABEL_CHARS]
    return ""


def item_label(item: Node) -> str:
    """A list item's own text (not that of the links or buttons in it, nor the text of a
    label that only names one of its controls)."""
    names = {c.name for c in item.children if c.role in ACTIONABLE and c.name}
    texts = (c.text for c in item.children if c.role == "text")
    own = " ".join(t for t in texts if t and t not in names) or item.text or ""
    return " ".join(own.split())[:LABEL_CHARS]


def container_label(node: Node) -> str | None:
    """The part of an element's context this ancestor contributes, if any."""
    if node.role == "row":
        label = row_label(node)
        return f"row {label}" if label else None
    if node.role in ("listitem", "group") and not node.name:
        label = item_label(node)
        return f"{node.role} {label}" if label else None
    if node.role == "iframe":
        return "iframe"
    if node.name and node.role not in ACTIONABLE:
        return f"{node.role} {node.name[:LABEL_CHARS]}"
    return None


def identities(capture: Capture) -> dict[Node, Identity]:
    """The identity of every node that has a Playwright ref (computed once per capture)."""
    found = capture.cache.get("identities")
    if found is None:
        found = capture.cache["identities"] = _identities(capture)
    assert isinstance(found, dict)
    return found


def _identities(capture: Capture) -> dict[Node, Identity]:
    counts: dict[tuple[int, str, str, tuple[str, ...]], int] = {}
    ordered: list[tuple[Node, tuple[int, str, str, tuple[str, ...]], int]] = []
    stack: list[tuple[Node, tuple[str, ...]]] = [(capture.root, ())]
    while stack:
        node, context = stack.pop()
        if node.key is not None:
            key = (node.frame, node.role, node.name, context)
            nth = counts.get(key, 0)
            counts[key] = nth + 1
            ordered.append((node, key, nth))
        label = container_label(node)
        inner = (*context, label) if label else context
        stack.extend((child, inner) for child in reversed(node.children))
    return {
        node: Identity(node.role, node.name, key[3], nth, counts[key]) for node, key, nth in ordered
    }


class RefRegistry:
    """Refs of one tab: handed out by snapshots, looked up by actions."""

    def __init__(self) -> None:
        self._next = 1
        self._entries: dict[str, RefEntry] = {}
        self._by_key: dict[tuple[str, str], str] = {}  # (doc, Playwright ref) -> our ref
        self.main_doc = ""

    def issue(self, capture: Capture, nodes: Iterable[Node]) -> None:
        """Give each node a ref: its old one if the element had one, else a new one."""
        if capture.main_doc != self.main_doc:
            # A new main document: every element of the old one is gone with it.
            self._entries.clear()
            self._by_key.clear()
            self.main_doc = capture.main_doc
        fresh: list[tuple[Node, str]] = []
        for node in nodes:
            if node.key is None or node.ref is not None:
                continue
            doc = capture.docs.get(node.frame, "")
            known = self._by_key.get((doc, node.key)) if doc else None
            if known is not None and known in self._entries:
                node.ref = known  # the same element: its ref, and the identity it had then
            else:
                fresh.append((node, doc))
        if not fresh:
            return
        found = identities(capture)  # one pass over the tree, only when refs are new
        for node, doc in fresh:
            if node not in found:
                continue  # no longer in the tree (a later patch of the same read replaced it)
            assert node.key is not None
            ref = f"e{self._next}"
            self._next += 1
            if doc:  # a frame whose document could not be identified gets no reuse
                self._by_key[(doc, node.key)] = ref
            self._entries[ref] = RefEntry(
                ref=ref,
                key=node.key,
                doc=doc,
                main_doc=capture.main_doc,
                frame=node.frame,
                identity=found[node],
                url=node.props.get("url", ""),
                downloads="download" in node.attrs,
            )
            node.ref = ref
        if len(self._entries) > MAX_ENTRIES:
            self._prune(capture)

    def reattach(self, capture: Capture, nodes: Iterable[Node] | None = None) -> None:
        """Put refs handed out earlier (by `find`, say) on the nodes that carry them now."""
        if capture.main_doc != self.main_doc:
            return
        for node in capture.root.walk() if nodes is None else nodes:
            if node.key is not None and node.ref is None:
                ref = self._by_key.get((capture.docs.get(node.frame, ""), node.key))
                if ref is not None:
                    node.ref = ref

    def saw(self, nodes: Iterable[Node]) -> None:
        """The agent was shown these nodes (a snapshot, an act's changes, find's matches):
        an element renamed since its ref was handed out is now known under its new name,
        and acting on it is what the agent asks for. Names only ever change here."""
        for node in nodes:
            entry = self._entries.get(node.ref) if node.ref is not None else None
            if entry is not None and entry.identity.name != node.name:
                identity = replace(entry.identity, name=node.name)
                self._entries[entry.ref] = replace(entry, identity=identity)

    def lookup(self, ref: str) -> RefEntry | None:
        return self._entries.get(ref)

    def was_issued(self, ref: str) -> bool:
        """True for any ref this tab ever handed out, dead or alive."""
        # By length first: int() refuses strings of over 4300 digits.
        digits = ref[1:]
        return is_ref(ref) and len(digits) <= len(str(self._next)) and int(digits) < self._next

    def _prune(self, capture: Capture) -> None:
        live = {n.ref for n in capture.root.walk() if n.ref is not None}
        for ref in [r for r in self._entries if r not in live]:
            entry = self._entries.pop(ref)
            self._by_key.pop((entry.doc, entry.key), None)

    def __len__(self) -> int:
        return len(self._entries)
