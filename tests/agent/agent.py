"""A scripted agent: reads only the snapshot's text, acts only by the refs it read there.

A solver gets an `Agent` and does what a model would do with the same tools: look (take
a snapshot), find the element an instruction means by its role, its name or text and the
text around it, act on it by ref, and look again. It never sees a selector, runs no page
script and knows no ref in advance. The same solver runs on steadyhand and on raw
Playwright (tests/agent/drivers.py); only the driver differs.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from tests.agent.text import Element, Line, Snapshot, parse, squash


class Driver(Protocol):
    """The tools an agent has: one snapshot format, acts by ref."""

    name: str

    def open(self, url: str) -> None: ...
    def snapshot(self) -> str: ...
    def click(self, ref: str, count: int = 1) -> None: ...
    def type(self, ref: str, text: str, submit: bool = False) -> None: ...
    def press(self, key: str, ref: str | None = None) -> None: ...
    def select(self, ref: str, option: str) -> None: ...
    def check(self, ref: str, on: bool = True) -> None: ...
    def hover(self, ref: str) -> None: ...
    def drag(self, source: str, target: str) -> None: ...
    def scroll(self, ref: str, dy: int) -> None: ...
    def select_text(self, ref: str, start: str, end: str) -> None: ...
    def evaluate(self, expression: str) -> Any: ...


class Stuck(Exception):
    """The agent could not tell from the snapshot what to act on."""


@dataclass
class Record:
    """What one run of a task cost: snapshots read (and their characters), actions."""

    snapshots: int = 0
    chars: list[int] = field(default_factory=list)
    steps: int = 0
    failure: str = ""


# Roles an instruction's "the X button/link/option" may be written as, by a page.
PRESSABLE = ("button", "link", "menuitem", "tab", "option", "treeitem", "generic", "listitem")
FIELDS = ("textbox", "searchbox", "combobox", "spinbutton")


class Agent:
    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.record = Record()
        self.seen: Snapshot | None = None

    # ---------------------------------------------------------------- reading

    def look(self) -> Snapshot:
        text = self.driver.snapshot()
        self.record.snapshots += 1
        self.record.chars.append(len(text))
        self.seen = parse(text)
        return self.seen

    def until(self, text: str, tries: int = 20, pause_s: float = 0.15) -> Snapshot:
        """Look until the snapshot shows `text` (a page that answers late)."""
        for _ in range(tries):
            seen = self.look()
            if squash(text) in squash(seen.text):
                return seen
            time.sleep(pause_s)
        raise Stuck(f"the page never showed {text!r}")

    def find(
        self,
        label: str | None = None,
        roles: Iterable[str] | None = None,
        *,
        exact: bool = True,
        near: str | None = None,
        nth: int | None = None,
        attrs: Iterable[str] = (),
        seen: Snapshot | None = None,
    ) -> Element:
        """The one element with a ref that has this label (name, else text) and one of these
        roles; `near`: inside the smallest part of the page that shows that text and holds
        such an element (which text goes with which control). Several that fit equally:
        `nth` picks one in document order, else the agent is stuck."""
        snapshot = seen or self.seen or self.look()
        wanted = tuple(roles) if roles is not None else None

        def fits(e: Element) -> bool:
            if not e.ref or (wanted is not None and e.role not in wanted):
                return False
            if any(a not in e.attrs for a in attrs):
                return False
            if label is None:
                return True
            have, want = squash(e.label), squash(label)
            return have == want if exact else want in have

        candidates = [e for e in snapshot.elements if fits(e)]
        if near is not None:
            candidates = _nearest(snapshot, candidates, near)
        if not candidates:
            raise Stuck(f"no {wanted or 'element'} {label!r} near {near!r} in the snapshot")
        if len(candidates) > 1 and label is not None and not exact:
            # "andreas johnson" among "People : andreas johnson" and "andreas johnson":
            # a reader takes the one that says exactly that.
            exacts = [c for c in candidates if squash(c.label) == squash(label)]
            if len(exacts) == 1 and nth is None:
                return exacts[0]
        if nth is not None:
            if nth >= len(candidates):
                raise Stuck(f"only {len(candidates)} of {label!r}")
            return candidates[nth]
        if len(candidates) > 1:
            raise Stuck(f"{len(candidates)} elements fit {label!r} near {near!r}: {candidates}")
        return candidates[0]

    def value_of(self, label: str, roles: Iterable[str] = FIELDS) -> str:
        return self.find(label, roles).text

    # ---------------------------------------------------------------- acting

    def _step(self) -> None:
        self.record.steps += 1

    def click(self, target: Element, count: int = 1) -> None:
        self._step()
        self.driver.click(_ref(target), count)

    def type(self, target: Element, text: str, submit: bool = False) -> None:
        self._step()
        self.driver.type(_ref(target), text, submit)

    def press(self, key: str, target: Element | None = None) -> None:
        self._step()
        self.driver.press(key, _ref(target) if target is not None else None)

    def select(self, target: Element, option: str) -> None:
        self._step()
        self.driver.select(_ref(target), option)

    def check(self, target: Element, on: bool = True) -> None:
        self._step()
        self.driver.check(_ref(target), on)

    def hover(self, target: Element) -> None:
        self._step()
        self.driver.hover(_ref(target))

    def drag(self, source: Element, target: Element) -> None:
        self._step()
        self.driver.drag(_ref(source), _ref(target))

    def scroll(self, target: Element, dy: int) -> None:
        self._step()
        self.driver.scroll(_ref(target), dy)

    def select_text(self, target: Element, start: str, end: str) -> None:
        self._step()
        self.driver.select_text(_ref(target), start, end)


def _ref(target: Element) -> str:
    if target.ref is None:
        raise Stuck(f"{target} has no ref to act on")
    return target.ref


def _nearest(snapshot: Snapshot, candidates: list[Element], near: str) -> list[Element]:
    """The candidates inside the smallest subtree (a line and the lines under it) that
    shows `near` and holds at least one candidate; the first such subtree in the page."""
    want = squash(near)
    best: list[Element] | None = None
    best_size = 0
    for line in snapshot.lines:
        if want not in squash(line.raw):
            continue
        scope: Line | None = line
        while scope is not None:
            inside = {id(x) for x in scope.walk()}
            found = [c for c in candidates if id(c.line) in inside]
            if found:
                size = len(inside)
                if best is None or size < best_size:
                    best, best_size = found, size
                break
            scope = scope.parent
    return best or []
