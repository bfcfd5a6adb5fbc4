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


# How a locator starts (act/locators.py reads the rest).
LOCATOR_PREFIXES = ("role", "text", "label", "placeholder", "testid", "css", "xpath")


def split_field(item: str) -> tuple[str, str] | None:
    """`TARGET=VALUE` split where the target ends: `e5=alice` -> (e5, alice), and for a
    locator after its own `=` and outside its brackets and quotes: `label=Email=a@b.c` ->
    (label=Email, a@b.c), `role=textbox[name="Q=1"]=x` -> (role=textbox[name="Q=1"], x).
    None when there is no `=` to split at."""
    prefix, sep, _ = item.partition("=")
    start = len(prefix) + 1 if sep and prefix in LOCATOR_PREFIXES else 0
    depth, quote = 0, ""
    for i in range(start, len(item)):
        char = item[i]
        if quote:
            quote = "" if char == quote and item[i - 1] != "\\" else quote
        elif char in "\"'" and (i == start or depth or item[i - 1] == "="):
            quote = char  # a quoted value (not an apostrophe in a word: label=Don't=x)
        elif char == "[":
            depth += 1
        elif char == "]":
            depth = max(0, depth - 1)
        elif char == "=" and depth == 0 and i > start:
            return item[:i], item[i + 1 :]
    return None


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
