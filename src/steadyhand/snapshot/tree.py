"""Parse Playwright's AI-mode ARIA snapshot (YAML-like text) into a tree of nodes.

Playwright hands the snapshot out only as text. A line is `- KEY` or `- KEY: VALUE`, where
KEY is `role "name" [attr] [attr=value]...` (the whole key single-quoted when YAML needs
it), children are indented two spaces, `- text: ...` lines are text, and `- /url: ...` or
`- /placeholder: ...` lines are properties of their parent. Names are JSON strings;
values are YAML double-quoted strings when they need quoting.

Every view, diff and search steadyhand shows is rendered from this tree, never from
Playwright's text directly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

_ATTR = re.compile(r"\[([a-z-]+)(?:=([^\]]*))?\]")
_ROLE = re.compile(r"[a-zA-Z][\w-]*")
# YAML's `\xNN` is not JSON; an escaped backslash (`\\`) is matched too so that the `x`
# after it stays a letter.
_X_ESCAPE = re.compile(r"\\(\\|x[0-9a-fA-F]{2})")
_DECODER = json.JSONDecoder()

# Attributes Playwright renders that we keep as state; ref, cursor and box are read apart.
STATE_ATTRS: tuple[str, ...] = ("checked", "disabled", "expanded", "active", "invalid", "level")
STATE_ATTRS += ("pressed", "selected", "aria-hidden", "required", "multiline")
STATE_ATTRS += ("value", "min", "max", "valuetext", "named-by", "download")
# Roles whose `KEY: VALUE` is the value a person typed or picked.
VALUE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})


@dataclass(eq=False, slots=True)
class Node:
    """One element (or run of text, role "text") of the accessibility tree."""

    role: str
    name: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    # What names the element in its document: the page model's id (a Playwright ref for
    # trees parsed from Playwright's text). None for text.
    key: str | None = None
    # How a person acts on it when its role does not say so: clickable, draggable, focusable.
    how: tuple[str, ...] = ()
    box: tuple[int, int, int, int] | None = None  # x, y, width, height in its frame
    text: str | None = None  # the value after "KEY:" (a field's value, an element's text)
    props: dict[str, str] = field(default_factory=dict)  # /url, /placeholder
    children: list[Node] = field(default_factory=list)
    parent: Node | None = field(default=None, repr=False)
    frame: int = 0  # index of the document (main frame = 0) the node lives in
    ref: str | None = None  # steadyhand's ref, set when the registry hands one out

    @property
    def pointer(self) -> bool:
        """The page made it look or behave clickable (a pointer cursor or a click handler)."""
        return "clickable" in self.how

    def walk(self) -> Iterator[Node]:
        """This node and every node below it, in document order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def ancestors(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def all_text(self, limit: int = 10_000) -> str:
        """The node's name, value and descendant text, space-separated (capped)."""
        parts: list[str] = []
        size = 0
        for node in self.walk():
            for part in (node.name, node.text or ""):
                if part and size < limit and not (parts and parts[-1] == part):
                    parts.append(part)
                    size += len(part) + 1
        return " ".join(parts)[:limit]


def parse(snapshot: str) -> Node:
    """The snapshot as a tree under a synthetic `document` root; frames numbered in order.

    Nodes under an `iframe` node belong to a new document (frame index); everything else
    inherits its parent's frame.
    """
    root = Node(role="document")
    stack: list[tuple[int, Node]] = [(-1, root)]
    frame_of: dict[int, int] = {}  # id(iframe node) -> the frame index of its document

    def child_frame(parent: Node) -> int:
        if parent.role != "iframe":
            return parent.frame
        return frame_of.setdefault(id(parent), len(frame_of) + 1)

    for line in snapshot.splitlines():
        stripped = line.lstrip(" ")
        if not stripped.startswith("- "):
            continue
        depth = (len(line) - len(stripped)) // 2
        while stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1]
        key, value = _split(stripped[2:])
        if key.startswith("/"):
            parent.props[key[1:]] = value or ""
            continue
        if key == "text" and parent.role in VALUE_ROLES and not parent.children:
            # A field with props cannot carry its value on the key line: Playwright writes
            # it as a text line. It is still the field's value (and a password is masked).
            parent.text = value or ""
            continue
        if key == "text":
            node = Node(role="text", text=value or "", parent=parent, frame=child_frame(parent))
            parent.children.append(node)
            continue
        node = _node(key, value)
        node.parent = parent
        node.frame = child_frame(parent)
        parent.children.append(node)
        stack.append((depth, node))
    return root


def _split(content: str) -> tuple[str, str | None]:
    """KEY and VALUE of a line's content (VALUE None when there is none)."""
    if content.startswith("'"):
        end = 1
        while True:
            end = content.index("'", end)
            if content.startswith("''", end):
                end += 2
                continue
            break
        key = content[1:end].replace("''", "'")
        rest = content[end + 1 :]
    else:
        cut = content.find(": ")
        if cut == -1:
            key, rest = (content[:-1], ":") if content.endswith(":") else (content, "")
        else:
            key, rest = content[:cut], content[cut:]
    if not rest or rest == ":":
        return key, None
    return key, _value(rest[2:])


def _value(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        try:
            return str(json.loads(_X_ESCAPE.sub(_json_escape, raw)))
        except json.JSONDecodeError:
            return raw[1:-1]
    return raw


def _json_escape(match: re.Match[str]) -> str:
    escape = match.group(1)
    return "\\\\" if escape == "\\" else "\\u00" + escape[1:]


def _node(key: str, value: str | None) -> Node:
    match = _ROLE.match(key)
    role = match.group(0) if match else key
    rest = key[len(role) :].lstrip(" ")
    name = ""
    if rest.startswith('"'):
        try:
            decoded, end = _DECODER.raw_decode(rest)
            name, rest = str(decoded), rest[end:]
        except json.JSONDecodeError:
            pass
    node = Node(role=role, name=name, text=value)
    for attr, attr_value in _ATTR.findall(rest):
        if attr == "ref":
            node.key = attr_value
        elif attr == "cursor":
            node.how = ("clickable",) if attr_value == "pointer" else ()
        elif attr == "box":
            parts = attr_value.split(",")
            if len(parts) == 4:
                x, y, w, h = (int(float(p)) for p in parts)
                node.box = (x, y, w, h)
        else:
            node.attrs[attr] = attr_value
    return node
