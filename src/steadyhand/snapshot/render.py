"""Render a captured tree as the text an agent reads: default, compact or interactive view.

- default: the whole tree with its text; refs only on what an agent acts on (and on a few
  containers worth pointing at); tables one line per row, cells joined by ` | `.
- compact: the default minus unnamed structural wrappers (their children move up).
- interactive: only the elements an agent can act on, grouped under the landmark/heading
  path they sit in, each with its table row or list item when it has one.

Link targets are shown with `urls`; every cell gets its own line (and `take` a ref) with
`cells`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from steadyhand.snapshot.refs import (
    ACTIONABLE,
    CONTAINERS,
    LABEL_CHARS,
    TEXT_BLOCKS,
    item_label,
    row_label,
)
from steadyhand.snapshot.tree import STATE_ATTRS, VALUE_ROLES, Node
from steadyhand.vault import mask_text

Mode = Literal["default", "compact", "interactive"]

TABLES = frozenset({"table", "grid", "treegrid"})
ROW_GROUPS = frozenset({"rowgroup"})
CELLS = frozenset({"cell", "gridcell", "columnheader", "rowheader"})
WRAPPERS = frozenset({"generic", "group", "none", "presentation"})
LANDMARKS = frozenset(
    {
        "banner",
        "navigation",
        "main",
        "contentinfo",
        "complementary",
        "search",
        "region",
        "form",
        "dialog",
        "alertdialog",
        "table",
        "grid",
        "treegrid",
        "iframe",
        "tabpanel",
        "menu",
        "menubar",
        "tree",
        "article",
    }
)
MAX_DEPTH = 400  # guard against pathological nesting


@dataclass(frozen=True)
class View:
    mode: Mode = "default"
    depth: int | None = None
    urls: bool = False
    cells: bool = False
    focus: bool = True  # show [active] on the focused element (diffs leave focus moves out)


def actionable(node: Node) -> bool:
    return node.ref is not None and (node.role in ACTIONABLE or bool(node.how))


def line_key(node: Node, view: View) -> str:
    """`role "name" [state] [ref=eN]`: how one node is named in every view."""
    out = [node.role]
    if node.name:
        out.append(" " + json.dumps(node.name, ensure_ascii=False))
    for attr in STATE_ATTRS:
        if attr == "active" and (not view.focus or node.role in WRAPPERS):
            continue
        if attr in node.attrs:
            value = node.attrs[attr]
            out.append(f" [{attr}={value}]" if value else f" [{attr}]")
    if node.ref is not None:
        out.append(f" [ref={node.ref}]" + ways(node))
    if "placeholder" in node.props and node.props["placeholder"] != node.name:
        out.append(
            " [placeholder=" + json.dumps(node.props["placeholder"], ensure_ascii=False) + "]"
        )
    if view.urls and "url" in node.props:
        out.append(" [url=" + node.props["url"] + "]")
    return "".join(out)


def ways(node: Node) -> str:
    """How a person acts on it, where its role does not say: ` [draggable] [focusable]`.

    A ref says the element is acted on: one whose role says nothing of how (a `generic`, a
    `listitem`, a row) is clicked, so `[clickable]` is left out but on the containers and
    text blocks that carry a ref for another reason (a table to scroll, a paragraph to
    select text in)."""
    said: tuple[str, ...] = (
        ("clickable", "focusable") if node.role in ACTIONABLE else ("clickable",)
    )
    if node.role in CONTAINERS or node.role in TEXT_BLOCKS:
        said = ()
    return "".join(f" [{way}]" for way in node.how if way not in said)


def own_text(node: Node) -> str | None:
    """The value shown after the key, unless it only repeats the name (a field's value is
    always shown; other text whose every word is in the name is not: `"May 24, 2026": 24`)."""
    text = node.text
    if text is None or text == node.name:
        return None
    text = " ".join(text.split())
    if node.name and node.role not in VALUE_ROLES and _words(text) <= _words(node.name):
        return None
    return text


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def render(roots: Iterable[Node], view: View) -> str:
    """The text of a view over these subtrees."""
    lines: list[str] = []
    if view.mode == "interactive":
        _interactive(roots, lines)
    else:
        for root in roots:
            nodes = root.children if root.role == "document" else [root]
            for node in nodes:
                _tree(node, 0, view, lines)
    return "\n".join(lines)


def node_line(node: Node, view: View) -> str:
    """A node's own line (no indent, no children), as the default view shows it."""
    if node.role == "text":
        return "- text: " + " ".join((node.text or "").split())
    if view.mode != "interactive" and one_line(node, view):
        return _row_line(node, view)
    text = own_text(node)
    return "- " + line_key(node, view) + (f": {text}" if text else "")


def _tree(node: Node, depth: int, view: View, lines: list[str]) -> None:
    if depth > MAX_DEPTH:
        return
    if node.role == "text":
        text = " ".join((node.text or "").split())
        if text:
            lines.append("  " * depth + "- text: " + text)
        return
    if view.mode == "compact" and _is_wrapper(node):
        for child in node.children:
            _tree(child, depth, view, lines)
        return
    if not view.cells and node.role in TABLES:
        _table(node, depth, view, lines)
        return
    children = node.children
    line = "  " * depth + node_line(node, view)
    if one_line(node, view):
        lines.append(line)  # a row is one line (met alone, e.g. in a diff)
        return
    if children and view.depth is not None and depth + 1 >= view.depth:
        hidden = sum(1 for _ in node.walk()) - 1
        where = f"; snapshot --ref {node.ref} shows them" if node.ref else ""
        lines.append(f"{line} …({hidden} nodes below{where})")
        return
    lines.append(line + (":" if children and own_text(node) is None else ""))
    for child in children:
        _tree(child, depth + 1, view, lines)


def _is_wrapper(node: Node) -> bool:
    return (
        node.role in WRAPPERS
        # An unnamed group that holds text beside its controls says which goes with which.
        and not (node.role == "group" and any(c.role == "text" for c in node.children))
        and not node.name
        and node.ref is None
        and not node.text
        and not node.attrs.keys() - {"active"}
    )


def _table(table: Node, depth: int, view: View, lines: list[str]) -> None:
    """A table: its key, its caption when it adds anything, then one line per row."""
    pad = "  " * depth
    rows = list(_rows(table))
    lines.append(pad + "- " + line_key(table, view) + (f" ({len(rows)} rows):" if rows else ""))
    for child in table.children:
        if child.role == "caption" and child.all_text(500).strip() not in ("", table.name):
            lines.append(pad + "  - caption: " + child.all_text(500).strip())
    shown = rows
    if view.depth is not None and depth + 1 >= view.depth:
        where = f"; snapshot --ref {table.ref} shows them" if table.ref else ""
        lines[-1] = lines[-1].rstrip(":") + f" …(rows hidden{where})"
        return
    for row in shown:
        if one_line(row, view):
            lines.append(pad + "  " + _row_line(row, view))
        else:
            _tree(row, depth + 1, view, lines)


# What a table cell holds that does not fit on its row's line: a block of its own (a list,
# a heading, another table: a layout table holding a page's parts).
BLOCKS = frozenset(
    {"list", "table", "grid", "treegrid", "heading", "paragraph", "group", "region", "form"}
    | {"navigation", "article", "main", "dialog", "tabpanel", "menu", "tree", "iframe"}
)


def one_line(row: Node, view: View) -> bool:
    """Whether a row is written on one line (`- row: a | b | button "x" [ref=e5]`): unless
    `--cells`, and unless a cell holds a block or an element with a ref that holds more
    than text (a layout table's grid), which the one line would cut off."""
    if row.role != "row" or view.cells:
        return False
    for cell in row.children:
        for node in cell.walk():
            if node is cell:
                continue
            if node.role in BLOCKS:
                return False
            if node.ref is not None and any(
                c.role not in ("text", "option") for c in node.children
            ):
                return False
    return True


def _rows(table: Node) -> Iterable[Node]:
    for child in table.children:
        if child.role == "row":
            yield child
        elif child.role in ROW_GROUPS or child.role in WRAPPERS:
            yield from _rows(child)


def _row_line(row: Node, view: View) -> str:
    cells = [c for c in row.children if c.role != "text" or (c.text or "").strip()]
    header = bool(cells) and all(c.role == "columnheader" for c in cells)
    key = "header" if header else "row"
    extra = "".join(
        f" [{a}={v}]" if v else f" [{a}]" for a, v in row.attrs.items() if a in STATE_ATTRS
    )
    if row.ref is not None:
        extra += f" [ref={row.ref}]" + ways(row)
    return f"- {key}{extra}: " + " | ".join(_cell(c, view) for c in cells)


def _cell(cell: Node, view: View) -> str:
    """A cell in its row's line; one a person can act on (a clickable cell) with its ref."""
    text = _inline(cell, view, top=True)
    if cell.ref is not None and cell.how and "[ref=" not in text:
        return line_key(cell, view) if cell.name == text else f"{text} {line_key(cell, view)}"
    return text


def _inline(node: Node, view: View, top: bool = False) -> str:
    """A cell's content on one line: its text, with refs of what can be acted on."""
    if node.role == "text":
        return " ".join((node.text or "").split())
    if node.ref is not None and not top:
        text = own_text(node)
        return line_key(node, view) + (f" = {json.dumps(text, ensure_ascii=False)}" if text else "")
    parts = [p for p in (_inline(c, view) for c in node.children) if p]
    if parts:
        return " ".join(parts)
    return " ".join((node.name or node.text or "").split())


def _interactive(roots: Iterable[Node], lines: list[str]) -> None:
    """Actionable elements under `[landmark > heading > container]` headers.

    Elements of one table row or list item share a line, named by the row or item:
    `- row "Alice": checkbox "Pick" [ref=e2], button "Open" [ref=e3]`.
    """
    view = View(mode="interactive")
    header: str | None = None  # every run of elements gets its header, "[page]" included
    group = ""
    items: list[str] = []

    def flush() -> None:
        if items:
            lines.append(f"- {group}: " + ", ".join(items) if group else "- " + items[0])
            items.clear()

    for root in roots:
        for node, path, near in with_context(root):
            if not actionable(node):
                continue
            if path != header or near != group or not near:
                flush()
            if path != header:
                header = path
                lines.append(f"[{path}]" if path else "[page]")
            group = near
            text = own_text(node)
            items.append(line_key(node, view) + (f": {text}" if text else ""))
    flush()


def with_context(root: Node) -> Iterable[tuple[Node, str, str]]:
    """Each node with its header path and its row/list-item context, in document order."""
    stack: list[tuple[Node, tuple[Node, ...], str]] = [(root, (), "")]
    heading: tuple[str, tuple[Node, ...]] | None = None  # text, the containers it sits in
    last: tuple[tuple[Node, ...], tuple[str, tuple[Node, ...]] | None] | None = None
    path = ""
    while stack:
        node, containers, near = stack.pop()
        if heading is not None and containers[: len(heading[1])] != heading[1]:
            heading = None  # the container the heading titled has ended
        if node.role == "heading" and node.name:
            heading = (f'"{node.name[:LABEL_CHARS]}"', containers)
        if (containers, heading) != last:  # most nodes share their parent's path
            last = (containers, heading)
            parts = [_landmark_label(c) for c in containers]
            if heading is not None:
                parts.insert(len(heading[1]), heading[0])
            path = " > ".join(parts)
        yield node, path, near
        inner = (*containers, node) if node.role in LANDMARKS else containers
        label = row_label(node) if node.role == "row" else ""
        label = item_label(node) if node.role in ("listitem", "group") else label
        if label:
            near = f"{node.role} {json.dumps(label, ensure_ascii=False)}"
        stack.extend((c, inner, near) for c in reversed(node.children))


def _landmark_label(node: Node) -> str:
    if node.name:
        return f'{node.role} "{node.name[:LABEL_CHARS]}"'
    return f"{node.role} {node.ref}" if node.role == "iframe" and node.ref else node.role


# ---------------------------------------------------------------- paging


@dataclass(frozen=True)
class Page:
    text: str
    offset: int
    total: int
    next_offset: int | None


def page(text: str, offset: int, max_chars: int) -> Page:
    """Characters [offset, offset + max_chars) of `text`, cut after a whole line if one fits.

    Secret values are masked first (steadyhand/vault.py), so a cut never leaves half of one.
    """
    text = mask_text(text)
    total = len(text)
    offset = min(max(0, offset), total)
    end = offset + max_chars
    if end >= total:
        return Page(text[offset:], offset, total, None)
    cut = text.rfind("\n", offset, end)
    end = cut + 1 if cut >= offset else end
    return Page(text[offset:end], offset, total, end)


def truncation_marker(chunk: Page) -> str:
    if chunk.next_offset is None:
        return ""
    left = chunk.total - chunk.next_offset
    return (
        f"\n[… truncated: characters {chunk.offset:,}-{chunk.next_offset:,} of {chunk.total:,} "
        f"shown, {left:,} more. Next part: snapshot --offset {chunk.next_offset} (same "
        "options), or narrow it with --interactive, --compact, --depth N or --ref REF]"
    )
