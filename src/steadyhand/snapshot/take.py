"""Take a tab's snapshot: capture it whole and hand out refs, one reader at a time."""

from __future__ import annotations

from steadyhand.engine.session import Tab
from steadyhand.snapshot.capture import Capture, capture
from steadyhand.snapshot.refs import deserves_ref


async def take(tab: Tab, timeout_ms: float, boxes: bool = False) -> Capture:
    """A fresh capture with refs on everything that deserves one.

    Serialized per tab: two readers interleaving would each leave Playwright's refs tied
    to the other's snapshot.
    """
    async with tab.snapshot_lock:
        taken = await capture(tab, timeout_ms, boxes=boxes)
        tab.refs.issue(taken, (n for n in taken.root.walk() if deserves_ref(n)))
        tab.refs.reattach(taken)
    return taken
