"""Reading a snapshot's text as an agent does: lines of `- role "name" [attr] [ref=eN]: text`.

One parser for both formats the suite reads: steadyhand's snapshot and Playwright's
`aria_snapshot(mode="ai")`. It knows the text format only (indentation, quoted names,
bracketed attributes, inline items on a table row's line), nothing of either tool's code,
and nothing of the page: solvers find what to act on by role, name and the text around
it, as a model reading the snapshot would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# One item: a role, an optional quoted name, then bracketed attributes. Items stand at the
# start of a line's key, and (on a table row's line) inline in its text.
_ITEM = re.compile(
    r'(?P<role>[a-z][a-z-]*)(?: (?P<name>"(?:[^"\\]|\\.)*"))?(?P<attrs>(?: \[[^\]]*\])*)'
)
_ATTR = re.compile(r"\[([a-z/-]+)(?:=([^\]]*))?\]")
_REF = re.compile(r"\[ref=([a-z]*\d+)\]")


@dataclass(eq=False)
class Element:
    """One item of the snapshot: what a line (or part of a row's line) says of an element."""

    role: str
    name: str
    attrs: dict[str, str]
    text: str  # the text after its key (a field's value, an element's own text)
    line: Line
    inline: bool = False  # an item written inside its line's text (a cell of a row)

    @property
    def ref(self) -> str | None:
        return self.attrs.get("ref")

    @property
    def label(self) -> str:
        """What a person reads on it: its name, else its own text, else the text lines
        written right under it (`- listitem [ref=e4]:` then `- text: Buy milk`)."""
        if self.name or self.text or self.inline:
            return self.name or self.text
        return " ".join(_text_of(child) for child in self.line.children if _text_of(child))

    def __repr__(self) -> str:
        return f'{self.role} "{self.label}" [ref={self.ref}]'


@dataclass(eq=False)
class Line:
    depth: int
    raw: str  # the line without its indent and "- "
    number: int
    parent: Line | None = None
    children: list[Line] = field(default_factory=list)
    items: list[Element] = field(default_factory=list)

    def walk(self) -> Iterator[Line]:
        yield self
        for child in self.children:
            yield from child.walk()

    def all_text(self) -> str:
        """Everything written on this line and the lines under it."""
        return " ".join(line.raw for line in self.walk())

    def ancestors(self) -> Iterator[Line]:
        line = self.parent
        while line is not None:
            yield line
            line = line.parent


@dataclass
class Snapshot:
    text: str
    root: Line
    lines: list[Line]

    @property
    def elements(self) -> list[Element]:
        return [item for line in self.lines for item in line.items]

    def refs(self) -> list[Element]:
        return [e for e in self.elements if e.ref]

    def has_text(self, text: str) -> bool:
        return text in self.text


def parse(text: str) -> Snapshot:
    root = Line(depth=-1, raw="", number=-1)
    stack = [root]
    lines: list[Line] = []
    for number, raw in enumerate(text.splitlines()):
        stripped = raw.lstrip(" ")
        if not stripped.startswith("- "):
            continue
        depth = (len(raw) - len(stripped)) // 2
        line = Line(depth=depth, raw=stripped[2:], number=number)
        while stack[-1].depth >= depth:
            stack.pop()
        line.parent = stack[-1]
        stack[-1].children.append(line)
        stack.append(line)
        lines.append(line)
        line.items = list(_items(line))
    return Snapshot(text, root, lines)


def _items(line: Line) -> Iterable[Element]:
    content = line.raw
    if content.startswith("/"):
        return  # a property line (/url, /placeholder) of its parent
    key, value = _split(content)
    head = _ITEM.match(key)
    if head is None:
        return
    role = head.group("role")
    if role == "text":
        return
    yield Element(role, _name(head.group("name")), _attrs(head.group("attrs")), value, line)
    # Items written inside the text: a table row's cells (`| button "Edit" [ref=e5] |`).
    if value and _REF.search(value):
        for found in _ITEM.finditer(value):
            attrs = _attrs(found.group("attrs"))
            if "ref" not in attrs:
                continue
            after = value[found.end() :]
            own = re.match(r' = "((?:[^"\\]|\\.)*)"', after)
            text = json.loads(f'"{own.group(1)}"') if own else ""
            name = _name(found.group("name"))
            yield Element(found.group("role"), name, attrs, text, line, inline=True)


def _split(content: str) -> tuple[str, str]:
    """KEY and TEXT of a line: the text after the first `: ` outside quotes and brackets.

    A key YAML needs to quote (a name holding `{` or `: `) is written in single quotes,
    `''` standing for one: `- 'button "GET /users/{id}" [ref=e8]': text`."""
    if content.startswith("'"):
        end = 1
        while True:
            end = content.find("'", end)
            if end == -1:
                return content, ""
            if content.startswith("''", end):
                end += 2
                continue
            break
        key, rest = content[1:end].replace("''", "'"), content[end + 1 :]
        value = rest[1:].strip() if rest.startswith(":") else ""
        if len(value) >= 2 and value[0] == value[-1] == '"':
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                value = value[1:-1]
        return key, value
    depth, quoted, escaped = 0, False, False
    for i, ch in enumerate(content):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif not quoted and ch == "[":
            depth += 1
        elif not quoted and ch == "]":
            depth -= 1
        elif not quoted and depth == 0 and ch == ":" and content[i + 1 : i + 2] in (" ", ""):
            value = content[i + 1 :].strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                try:
                    value = json.loads(value)
                except json.JSONDecodeError:
                    value = value[1:-1]
            return content[:i], value
    return content, ""


def _name(quoted: str | None) -> str:
    if not quoted:
        return ""
    try:
        return str(json.loads(quoted))
    except json.JSONDecodeError:
        return quoted[1:-1]


def _attrs(raw: str) -> dict[str, str]:
    return {key: value for key, value in _ATTR.findall(raw or "")}


def _text_of(line: Line) -> str:
    """A `- text: ...` line's text ('' for any other line)."""
    key, value = _split(line.raw)
    return value if key == "text" else ""


def squash(text: str) -> str:
    """Text as compared by a reader: case and runs of spaces ignored."""
    return " ".join(text.split()).casefold()
