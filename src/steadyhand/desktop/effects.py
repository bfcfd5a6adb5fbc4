"""How a desktop action knows it worked: its effect, watched without acting.

- `confirmed`: the tree reads back what the action was for (the field's text, the choice,
  the check box's state, the focus, the scroll bars); for an action with nothing of its own
  to read back (a push button, a menu item, a drag, keys), the application's tree changed
  after it: an AT-SPI event of the application other than the target's own focus or press.
- `partial`: something changed, not what was asked: the target reads back something else
  (a field that reformats what it is given), or only the screen changed.
- `unverifiable`: what the action was for cannot be read (a password field shows dots)
  or could not be watched (no event listeners, no screen), though it was sent.
- `suspected_noop`: watched, and nothing changed at all: no event, the same pixels, the same
  target. An error (verification_failed) unless the caller allows it (--allow-noop).
- `refused`: nothing was sent (the target is disabled or gone, or no transport can act).

Watching reads only: the event log (events.py) and the pixels of the target's window, with
the target's own box left out (its focus ring and pressed look are not an effect).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from steadyhand.desktop import display
from steadyhand.desktop.atspi import Box, Facts
from steadyhand.desktop.deadline import Deadline
from steadyhand.desktop.events import DesktopEvent, DesktopEvents
from steadyhand.desktop.tree import Node
from steadyhand.desktop.worker import AtspiWorker
from steadyhand.errors import SteadyhandError

CONFIRMED, PARTIAL, UNVERIFIABLE = "confirmed", "partial", "unverifiable"
NOOP, REFUSED = "suspected_noop", "refused"
EFFECTS = (CONFIRMED, PARTIAL, UNVERIFIABLE, NOOP, REFUSED)
NOOP_S = 1.0  # how long nothing must change to call it a no-op (Qt: events ~100 ms late;
# Chromium under load: seen past 0.5 s)
TREE_S = 0.25  # once only the screen changed: how long the tree may take to say why
POLL_S = 0.02
MARGIN = 4  # pixels around the target's box left out: its focus ring
CARET = 3  # changes within a band this wide are a text caret blinking, not an effect
BUSY_S = 1.0  # objects with events this recent may still be animating: left out
CARET = 3  # changes within a band this wide are a text caret blinking, not an effect
# The target's own changes that come from being acted on, not from what it does.
OWN = frozenset({"focus", "pressed=true", "pressed=false", "armed=true", "armed=false"})


@dataclass
class Watch:
    """What was seen just before an action."""

    pid: int | None  # the application watched (None: any)
    path: str  # the target's own object (its own focus or press is not an effect)
    seq: int  # the event log's last event before the action
    region: Box | None  # the window (or screen) whose pixels are compared
    # Left out: the target's own box, and those of objects that changed just before (their
    # animation, a check mark drawing itself, is not this action's effect).
    skips: tuple[Box, ...]
    pixels: bytes | None
    listening: bool
    began: float = field(default_factory=time.monotonic)


@dataclass
class Seen:
    events: list[DesktopEvent]
    screen: bool  # the region's pixels changed

    @property
    def anything(self) -> bool:
        return bool(self.events) or self.screen

    def summary(self) -> str:
        if self.events:
            return "the application changed: " + ", ".join(sorted({e.kind for e in self.events}))
        return "the screen changed" if self.screen else "nothing changed"


Boxes = Callable[[int, set[str]], list[Box]]  # the boxes of an app's objects, as last read


class Watcher:
    def __init__(self, events: DesktopEvents, worker: AtspiWorker, boxes: Boxes) -> None:
        self.events = events
        self.worker = worker
        self.boxes = boxes

    async def begin(
        self,
        pid: int | None,
        path: str,
        region: Box | None,
        skip: Box | None,
        deadline: float,
    ) -> Watch:
        """What is there before an action; `region` None: events only (no pixels)."""
        try:
            await self.events.start(deadline)
            await self.events.caught_up(deadline)
            listening = True
        except SteadyhandError:
            listening = False
        seq = self.events.log.last_seq
        skips = [skip] if skip is not None else []
        if region is not None and pid is not None:
            skips += self.boxes(pid, self._recent(pid))
        pixels = await self._pixels(region, tuple(skips), deadline)
        return Watch(pid, path, seq, region, tuple(skips), pixels, listening)

    def _recent(self, pid: int) -> set[str]:
        """The objects of the application with events within BUSY_S (they may animate)."""
        found, _missed, _to = self.events.log.since(max(0, self.events.log.last_seq - 200))
        now = time.time()
        return {e.path for e in found if e.pid == pid and now - e.ts < BUSY_S}

    def can_watch(self, watch: Watch) -> bool:
        return watch.listening or watch.pixels is not None

    async def seen(self, watch: Watch, deadline: float) -> Seen:
        """What changed since the watch began (events in so far; pixels now)."""
        if watch.listening:
            await self.events.caught_up(deadline)
        found, _missed, _to = self.events.log.since(watch.seq)
        events = [e for e in found if _counts(e, watch)]
        screen = False
        if watch.pixels is not None and watch.region is not None:
            now = await self._pixels(watch.region, watch.skips, deadline)
            screen = now is not None and changed(watch.pixels, now, watch.region.width)
        return Seen(events, screen)

    async def settle(self, watch: Watch, deadline: float, *, tree_only: bool = False) -> Seen:
        """Watch until the application's tree changes, or NOOP_S of nothing; once only the
        screen changed, TREE_S more for the tree to say so. `tree_only`: the first event
        ends it (a caller that will read the target back itself)."""
        started = time.monotonic()
        screen_at: float | None = None
        while True:
            seen = await self.seen(watch, deadline)
            now = time.monotonic()
            if seen.events:
                return seen
            if seen.screen and screen_at is None:
                screen_at = now
                if tree_only:
                    return seen
            waited = now - started
            if screen_at is not None and now - screen_at >= TREE_S:
                return seen
            if screen_at is None and waited >= NOOP_S:
                return seen
            if now + POLL_S > deadline:
                return seen
            await asyncio.sleep(POLL_S)

    async def _pixels(
        self, region: Box | None, skips: tuple[Box, ...], deadline: float
    ) -> bytes | None:
        if region is None:
            return None

        def grab(_: Deadline) -> bytes | None:
            try:
                return display.region_pixels(region, skips, MARGIN)
            except Exception:  # no screen to read: the effect is judged by the tree alone
                return None

        return await self.worker.run(grab, deadline, "reading the screen")


def _first_difference(a: bytes, b: bytes) -> int:
    """The first index where `a` and `b` (same length, not equal) differ: halves compared."""
    low, high = 0, len(a)
    while high - low > 1:
        middle = (low + high) // 2
        if a[low:middle] != b[low:middle]:
            high = middle
        else:
            low = middle
    return low


def changed(before: bytes, after: bytes, width: int) -> bool:
    """Whether two grabs of a region (4 bytes a pixel, `width` pixels a row) differ by more
    than a text caret's blink (changes within a column band CARET pixels wide)."""
    if before == after:
        return False
    if len(before) != len(after) or width <= 0:
        return True
    stride = width * 4
    left, right = width, -1
    for start in range(0, len(before), stride):
        old, new = before[start : start + stride], after[start : start + stride]
        if old == new:
            continue
        first = _first_difference(old, new)
        last = len(old) - 1 - _first_difference(old[::-1], new[::-1])
        left, right = min(left, first // 4), max(right, last // 4)
        if right - left >= CARET:
            return True
    return False


def _counts(event: DesktopEvent, watch: Watch) -> bool:
    """An event of the watched application that is not the target's own flicker."""
    if watch.pid is not None and event.pid != watch.pid:
        return False
    own = event.path == watch.path and (event.kind == "focus" or event.detail in OWN)
    return not own


def top_level(node: Node) -> Node:
    """The application's top-level object `node` is in (its window: GTK says frame, Qt
    filler); `node` itself when it is one, or the application."""
    while node.parent is not None and node.parent.facts.role != "application":
        node = node.parent
    return node


def window_of(node: Node) -> Box | None:
    """The box of the window `node` is in, as last read."""
    return top_level(node).facts.box


def read_back(before: Facts, after: Facts) -> bool:
    """Whether the target itself reads back differently (its text, name or checked state)."""
    return (
        before.text != after.text
        or before.name != after.name
        or ("checked" in before.states) != ("checked" in after.states)
    )
