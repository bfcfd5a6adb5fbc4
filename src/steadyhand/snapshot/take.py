"""Take a tab's snapshot: capture it whole and hand out refs, one reader at a time."""

from __future__ import annotations

from steadyhand.engine.session import Tab
from steadyhand.snapshot.capture import Capture, capture
from steadyhand.snapshot.refs import deserves_ref
from steadyhand.snapshot.render import CELLS


async def take(tab: Tab, timeout_ms: float, boxes: bool = False, cells: bool = False) -> Capture:
    """A fresh capture with refs on everything that deserves one (and table cells if asked).

    Serialized per tab: two readers interleaving would each leave Playwright's refs tied
    to the other's snapshot.
    """
    async with tab.snapshot_lock:
        taken = await capture(tab, timeout_ms, boxes=boxes)
        wanted = (n for n in taken.root.walk() if deserves_ref(n) or (cells and n.role in CELLS))
        tab.refs.issue(taken, wanted)
        tab.refs.reattach(taken)
    return taken
