"""Find a flow step's element on the page as it is now, by what it is, or say why not.

In order, the first rule that finds exactly one element wins:
1. the same role, name and containers: the same slot among equals (nth) when there are as
   many as when recorded;
2. the same role and name elsewhere: the one whose surroundings (containers, the cells of
   its row, its list item) still hold most of what they held; it `moved`;
3. a name alike within the flow's tolerance (case, spacing and punctuation aside, then by
   similarity), never one whose numbers differ ("Delete 2" is not "Delete 3") nor its
   opposite ("Unsubscribe" is not "Subscribe"): it was `renamed`.
Rules 2 and 3 never take an element whose row or list item lost what named it when
recorded (the Delete of another invoice's row), nor an unnamed one nothing recorded
around it still surrounds. Rules 1-3 look at the recorded role first; only when none of
it is left, at its sibling (textbox/searchbox, button/link), said as adapted. Two or more
equally good is `ambiguous`, none `missing`: a flow never guesses.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

from steadyhand.flows.model import FlowTarget
from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.refs import Identity, identities
from steadyhand.snapshot.tree import Node

SIBLINGS = (
    frozenset({"textbox", "searchbox"}),
    frozenset({"button", "link"}),
    frozenset({"checkbox", "switch", "menuitemcheckbox"}),
)
# Containers that tell equals apart: the row or item a control belongs to.
IDENTIFYING = ("row", "listitem", "group")
# A word and the same word with one of these before it mean opposite things.
NEGATIONS = ("un", "dis", "de", "non", "in", "im", "il", "ir")
_CONTAINER_ROLE = re.compile(r"^[a-z]+ ")
CANDIDATES_SHOWN = 5
Found = list[tuple[Node, Identity]]


@dataclass
class Match:
    node: Node | None
    adapted: str = ""  # what differed from the recording ("" : nothing)
    problem: str = ""  # "missing" or "ambiguous", with `why`
    why: str = ""
    candidates: list[str] | None = None


def find(capture: Capture, want: FlowTarget, tolerance: float) -> Match:
    """The one element of `capture` that `want` names, or the reason there is none."""
    assert want.role is not None, "a locator-only target is found by the act itself"
    known = identities(capture)
    exact_role = [(n, i) for n, i in known.items() if i.role == want.role]
    found = _by_rules(exact_role, want, tolerance)
    if found.problem == "missing":
        siblings = [(n, i) for n, i in known.items() if _sibling(i.role, want.role)]
        if siblings:
            found = _by_rules(siblings, want, tolerance)
            if found.node is not None:
                ident = known[found.node]
                note = f"role {want.role} is {ident.role} now"
                found.adapted = "; ".join(filter(None, [found.adapted, note]))
    return found


def _sibling(role: str, wanted: str | None) -> bool:
    return role != wanted and any(role in s and wanted in s for s in SIBLINGS)


def _by_rules(found: Found, want: FlowTarget, tolerance: float) -> Match:
    fits = _name_pattern(want.name or "")
    exact = [(n, i) for n, i in found if fits(i.name)]
    here = [(n, i) for n, i in exact if list(i.context) == want.context]
    if here:
        if len(here) == want.group and want.nth < len(here):
            return Match(here[want.nth][0])
        return _ambiguous(want, here, f"{len(here)} match where {want.group} did")
    if exact:
        return _by_surroundings(want, exact, "moved")
    alike = _alike(found, want, tolerance)
    if alike:
        return _by_surroundings(want, alike, "renamed")
    return _missing(want)


def _name_pattern(name: str) -> Callable[[str], bool]:
    """The test of a name: equal, or for a name edited to hold `*` (`Cart (*)`, a count
    that changes), matching it with `*` standing for any text."""
    if "*" not in name:
        return lambda seen: seen == name
    pattern = re.compile(".*".join(map(re.escape, name.split("*"))), re.S)
    return lambda seen: pattern.fullmatch(seen) is not None


def _missing(want: FlowTarget, why: str = "") -> Match:
    where = f" in {' > '.join(want.context)}" if want.context else ""
    return Match(None, problem="missing", why=why or f"no {want.label()}{where} on the page")


def _by_surroundings(want: FlowTarget, found: Found, how: str) -> Match:
    """The one candidate whose surroundings kept most of what was recorded around it."""
    kept = [(n, i) for n, i in found if _still_itself(want, n, i)]
    if not kept:
        lost = ", ".join(_bare(c) for c in want.context if _identifying(c)) or "its containers"
        return _missing(want, f"{want.label()} is on the page, but none where it was ({lost} gone)")
    scored = sorted(((_kept(want, n, i), n, i) for n, i in kept), key=lambda s: -s[0])
    best = scored[0][0]
    top = [(n, i) for score, n, i in scored if score == best]
    if len(top) > 1:
        return _ambiguous(want, top, f"{len(top)} {how} candidates are equally likely")
    node, ident = top[0]
    notes = []
    if not _name_pattern(want.name or "")(ident.name):
        notes.append(f'renamed "{want.name}" -> "{ident.name}"')
    if list(ident.context) != want.context:
        was = " > ".join(want.context) or "the page"
        now = " > ".join(ident.context) or "the page"
        notes.append(f"moved from {was} to {now}")
    return Match(node, "; ".join(notes))


def _still_itself(want: FlowTarget, node: Node, ident: Identity) -> bool:
    """Whether the candidate could be the recorded element: what told it apart from its
    equals (its row's or item's label) is still around it, and an unnamed one still has
    something of what surrounded it."""
    around = _around(node, ident)
    if not all(_bare(c) in around for c in want.context if _identifying(c)):
        return False
    return bool(want.name) or not want.context or _kept(want, node, ident) > 0


def _identifying(label: str) -> bool:
    return label.split(" ", 1)[0] in IDENTIFYING


def _kept(want: FlowTarget, node: Node, ident: Identity) -> int:
    """How many of the recorded containers' labels its surroundings still show."""
    around = _around(node, ident)
    return sum(1 for label in want.context if _bare(label) in around)


def _around(node: Node, ident: Identity) -> set[str]:
    return {_bare(label) for label in ident.context} | _near_texts(node)


def _bare(label: str) -> str:
    """A context label without its role: `row Desk lamp` -> `Desk lamp`."""
    return _CONTAINER_ROLE.sub("", label, count=1).strip()


def _near_texts(node: Node) -> set[str]:
    """The texts of the cells of its row, or of its list item, and their names."""
    for above in node.ancestors():
        if above.role in ("row", "listitem"):
            texts = {c.all_text(200).strip() for c in above.children}
            texts |= {c.name for c in above.walk() if c.name}
            return {t for t in texts if t}
    return set()


def _normal(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _opposite(a: str, b: str) -> bool:
    """Whether the names differ by a negation: Subscribe/Unsubscribe, Mark as (un)read."""
    one, two = re.findall(r"[a-z]+", a.casefold()), re.findall(r"[a-z]+", b.casefold())
    if {"not", "no", "non"} & (set(one) ^ set(two)):
        return True
    for x, y in ((one, two), (two, one)):
        for word in x:
            if any(neg + word in y for neg in NEGATIONS):
                return True
    return False


def _alike(found: Found, want: FlowTarget, tolerance: float) -> Found:
    """Those whose name is alike: the same letters first, else the most similar above the
    tolerance; numbers must be the same, and neither the negation of the other."""
    name = want.name or ""
    if not name or "*" in name:  # a pattern is matched as written, never as alike
        return []
    digits = re.findall(r"\d+", name)
    fair = [
        (n, i)
        for n, i in found
        if i.name and re.findall(r"\d+", i.name) == digits and not _opposite(i.name, name)
    ]
    same = [(n, i) for n, i in fair if _normal(i.name) == _normal(name)]
    if same:
        return same
    ratios = [
        (difflib.SequenceMatcher(None, _normal(i.name), _normal(name)).ratio(), n, i)
        for n, i in fair
    ]
    good = [r for r in ratios if r[0] >= tolerance]
    if not good:
        return []
    best = max(r[0] for r in good)
    return [(n, i) for ratio, n, i in good if ratio == best]


def _ambiguous(want: FlowTarget, found: Found, why: str) -> Match:
    shown = [_candidate(n, i) for n, i in found[:CANDIDATES_SHOWN]]
    return Match(None, problem="ambiguous", why=f"{want.label()}: {why}", candidates=shown)


def _candidate(node: Node, ident: Identity) -> str:
    where = " > ".join(ident.context)
    label = f'{ident.role} "{ident.name}"' if ident.name else ident.role
    ref = f" [ref={node.ref}]" if node.ref else ""
    return f"{label}{ref}" + (f" in {where}" if where else "")
