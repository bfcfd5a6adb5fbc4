"""Read refs back out of a rendered snapshot: for scripts, the demo and tests.

Every view writes an element as `role "name" [state]... [ref=eN]`, on its own line or
inline in a table row, so one pattern finds them all.
"""

from __future__ import annotations

import json
import re

_REF_SHAPE = re.compile(r"e[1-9]\d*")
_ELEMENT = re.compile(
    r"""(?P<role>[a-z][\w-]*)
        (?:\s(?P<name>"(?:[^"\\]|\\.)*"))?
        (?:\s\[(?!ref=)[^\]]*\])*
        \s\[ref=(?P<ref>e\d+)\]""",
    re.VERBOSE,
)


def is_ref(text: str) -> bool:
    """True for strings shaped like a steadyhand ref (`e12`)."""
    return bool(_REF_SHAPE.fullmatch(text))


def refs_in(snapshot: str) -> list[tuple[str, str, str]]:
    """(ref, role, name) of every element in a rendered snapshot, in order."""
    found = []
    for match in _ELEMENT.finditer(snapshot):
        name = json.loads(match.group("name")) if match.group("name") else ""
        found.append((match.group("ref"), match.group("role"), name))
    return found


def find_ref(snapshot: str, role: str, name: str, nth: int = 0) -> str:
    """The ref of the nth element with this role and accessible name; KeyError if none."""
    matches = [ref for ref, r, n in refs_in(snapshot) if r == role and n == name]
    if len(matches) <= nth:
        raise KeyError(f"no {role} {name!r} (nth={nth}) in the snapshot")
    return matches[nth]
