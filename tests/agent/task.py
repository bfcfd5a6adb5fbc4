"""A task of the agent's-eye suite: a page, an instruction, a solver, and the page's own check."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tests.agent.agent import Agent, Stuck
from tests.agent.text import Element, Snapshot, squash


@dataclass(frozen=True)
class Task:
    id: str
    page: str  # path under the served site (tests/fixtures/site)
    instruction: str
    solve: Callable[[Agent], None]
    # A JavaScript expression on the page's own state, true once the task is done (the
    # check only: solvers never run page script).
    check: str
    source: str  # where the page comes from: "npm PACKAGE@VERSION ..." or "fixture"
    pattern: str = ""  # the issue-29 pattern it exercises, if one


def cell(snapshot: Snapshot, text: str, roles: tuple[str, ...] = ()) -> Element | None:
    """An element with a ref whose label is `text`, or a row whose cells include it (a row
    line reads `a | b | c`): how a reader spots a row or cell by one of its values."""
    want = squash(text)
    for e in snapshot.elements:
        if not e.ref or (roles and e.role not in roles):
            continue
        if squash(e.label) == want or want in (squash(c) for c in re.split(r" \| ", e.label)):
            return e
    return None


def stepper(agent: Agent, target: Element, goal: float, up: str = "ArrowRight") -> None:
    """Move a slider or spinner to `goal` by keys, reading its value from the snapshot
    after each press (as an agent would check the widget's value)."""
    down = {"ArrowRight": "ArrowLeft", "ArrowUp": "ArrowDown"}[up]
    for _ in range(200):
        now = _number(target.attrs.get("value") or target.attrs.get("valuetext") or target.text)
        if now is None:
            raise Stuck(f"{target} shows no value to move from")
        if now == goal:
            return
        agent.press(up if now < goal else down, target)
        seen = agent.look()
        same = [e for e in seen.elements if e.ref == target.ref]
        if not same:
            raise Stuck(f"{target} is gone after a key")
        target = same[0]
    raise Stuck(f"{target} never reached {goal}")


def _number(text: str) -> float | None:
    found = re.search(r"-?\d+(?:\.\d+)?", text or "")
    return float(found.group(0)) if found else None
