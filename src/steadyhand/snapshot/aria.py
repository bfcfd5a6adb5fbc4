"""Read Playwright's AI-mode ARIA snapshot: which refs it hands out, and for what.

A snapshot line looks like `- button "Send" [disabled] [ref=e12] [cursor=pointer]:`.
We only need, per ref, the role, the accessible name and the position among elements
with the same role and name (nth), so a later issue can re-resolve a re-rendered ref.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE = re.compile(
    r"""^(?P<indent>\s*)-\s
        (?P<role>[a-zA-Z][\w-]*)
        (?:\s"(?P<name>(?:[^"\\]|\\.)*)")?
        (?P<attrs>(?:\s\[[^\]]*\])*)
    """,
    re.VERBOSE,
)
# A ref: `e12` in the main frame, `f1e3` inside a frame (Playwright's frame prefix).
_REF_GRAMMAR = r"(?P<frame>f\d+)?e\d+"
_REF = re.compile(rf"\[ref=(?P<ref>{_REF_GRAMMAR})\]")
_BARE_REF = re.compile(_REF_GRAMMAR)


@dataclass(frozen=True)
class RefNode:
    """One element a snapshot gave a ref to."""

    ref: str
    role: str
    name: str
    nth: int
    frame: str  # "" for the main frame, else Playwright's frame prefix ("f1")


def parse_refs(snapshot: str) -> list[RefNode]:
    """Every ref in a snapshot, in document order, with role, name and nth."""
    nodes: list[RefNode] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line in snapshot.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        ref_match = _REF.search(match.group("attrs") or "")
        if not ref_match:
            continue
        ref = ref_match.group("ref")
        role = match.group("role")
        name = _unescape(match.group("name") or "")
        frame = ref_match.group("frame") or ""
        key = (frame, role, name)
        nth = seen.get(key, 0)
        seen[key] = nth + 1
        nodes.append(RefNode(ref=ref, role=role, name=name, nth=nth, frame=frame))
    return nodes


def _unescape(name: str) -> str:
    return re.sub(r"\\(.)", r"\1", name)


def is_ref(text: str) -> bool:
    """True for strings shaped like a snapshot ref (`e12`, `f1e3`)."""
    return bool(_BARE_REF.fullmatch(text))


MASK = "••••••"
# Values of every password field, open shadow roots included.
PASSWORD_VALUES_JS = """() => {
  const out = [];
  const walk = root => {
    for (const e of root.querySelectorAll('*')) {
      if (e instanceof HTMLInputElement && e.type === 'password' && e.value) out.push(e.value);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(document);
  return out;
}"""


def _squash(text: str) -> str:
    """Whitespace collapsed and trimmed, as the snapshot shows values."""
    return " ".join(text.split())


def mask_values(snapshot: str, secrets: set[str]) -> str:
    """Replace the shown value of any textbox whose value is one of `secrets`."""
    hidden = {_squash(s) for s in secrets} - {""}
    if not hidden:
        return snapshot
    out = []
    for line in snapshot.splitlines():
        match = _LINE.match(line)
        rest = line[match.end() :] if match else ""
        if match and match.group("role") == "textbox" and rest.startswith(": "):
            shown = rest[2:]
            if len(shown) >= 2 and shown[0] == shown[-1] == '"':
                shown = _unescape(shown[1:-1])
            if _squash(shown) in hidden:
                line = line[: match.end()] + ": " + MASK  # noqa: PLW2901
        out.append(line)
    return "\n".join(out)


def find_ref(snapshot: str, role: str, name: str, nth: int = 0) -> str:
    """The ref of the nth element with this role and accessible name; KeyError if none."""
    for node in parse_refs(snapshot):
        if node.role == role and node.name == name and node.nth == nth:
            return node.ref
    raise KeyError(f"no {role} {name!r} (nth={nth}) in the snapshot")
