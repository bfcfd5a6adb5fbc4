"""What every desktop transport is: a way to act on an element, picked per action.

A transport says whether it can handle an action on a target (and why not), reports its
health, and executes the action. Executing only acts; the router verifies the effect
through the accessibility tree and falls back to the next transport when there is none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from steadyhand.desktop.atspi import Facts
from steadyhand.desktop.tree import Node

Kind = Literal["click", "type", "select", "focus", "scroll", "drag"]
# Roles whose click only focuses them (no command behind it): a real click may focus them.
# Not "terminal": text typed there with a newline would run in a shell.
TEXT_ROLES = frozenset({"text", "entry", "password text", "spin button"})


@dataclass(frozen=True)
class Want:
    """The action asked for, with its argument."""

    kind: Kind
    text: str | None = None  # type: what the field should hold
    value: str | None = None  # select: the option's name
    dx: int = 0  # scroll: wheel steps right (negative: left)
    dy: int = 0  # scroll: wheel steps down (negative: up)
    to: tuple[int, int] | None = None  # drag: where to drop, in screen pixels


@dataclass
class Target:
    """The element acted on, read just before the action."""

    ref: str
    node: Node
    facts: Facts
    web: str | None = None  # the title of the web document it is in (Chromium content)
    cdp: str | None = None  # its application's remote-debugging endpoint, when it has one
    # Read on the AT-SPI thread with the rest (the X display is that thread's).
    screen: tuple[int, int] = (0, 0)


class Transport(Protocol):
    name: str

    def can_handle(self, target: Target, want: Want) -> str | None:
        """None when this transport can try `want` on `target`; else why not."""
        ...

    async def health(self) -> dict[str, Any]:
        """Whether it works now, and what it is connected to."""
        ...

    async def execute(self, target: Target, want: Want, deadline: float) -> str:
        """Do it (by `deadline`, time.monotonic()); the name of what was done."""
        ...
