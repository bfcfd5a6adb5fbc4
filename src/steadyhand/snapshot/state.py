"""What snapshot code keeps of a tab: its page model, its refs, and what the agent last saw.

The engine's `Tab` carries it without knowing its type (engine/session.py's `TabState`);
it is made on the tab's first snapshot, read or act.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import cast

from steadyhand.engine.session import Tab
from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.page_model import PageModel
from steadyhand.snapshot.refs import RefRegistry


@dataclass(frozen=True)
class TypedField:
    """A field the agent typed into and has not left yet."""

    target: str  # the ref or locator typed into, as the agent gave it
    doc: str  # its document's page-model id
    id: int  # its id in that document's page model
    typed: str
    value: str  # what it held right after typing
    secret: bool  # only lengths may be reported


@dataclass(eq=False)
class SnapshotState:
    """One tab's snapshot state."""

    refs: RefRegistry = field(default_factory=RefRegistry)
    model: PageModel = field(default_factory=PageModel)  # what the tab shows, kept current
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one reader at a time
    # What the agent last saw of this tab: the base of `snapshot --diff` and `--changes`.
    baseline: Capture | None = None
    acted_since_baseline: bool = False
    # The last long snapshot, kept so `--offset` pages through one and the same text.
    paged: tuple[tuple[object, ...], str] | None = None
    # The field typed into last, until an action leaves it: that action reports what the
    # page made of the value once left (checking never blurs a field to find out).
    typed: TypedField | None = None

    def seen(self, capture: Capture) -> None:
        """The agent now knows the page as `capture` read it: later changes diff from it."""
        self.baseline = capture
        self.acted_since_baseline = False

    def fresh_baseline(self) -> bool:
        """Whether the baseline is the page as it was after the last action."""
        return self.baseline is not None and not self.acted_since_baseline

    def reloaded(self) -> SnapshotState:
        """Once the page is gone (closed, or reloaded by a recovery): refs handed out before
        stay known (so they are refused as stale, not as never issued); the model and the
        baseline start afresh."""
        return SnapshotState(refs=self.refs)


def state_of(tab: Tab) -> SnapshotState:
    """The tab's snapshot state, made on first use."""
    state = tab.state
    if state is None:
        state = tab.state = SnapshotState()
    return cast(SnapshotState, state)
