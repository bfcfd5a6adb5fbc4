"""Take a tab's snapshot: read its page model and hand out refs, one reader at a time."""

from __future__ import annotations

import asyncio

from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.capture import Capture, capture
from steadyhand.snapshot.refs import deserves_ref
from steadyhand.snapshot.render import CELLS


async def take(
    tab: Tab,
    timeout_ms: float,
    boxes: bool = False,
    cells: bool = False,
    whole: bool = False,
) -> Capture:
    """The tab now, with refs on everything that deserves one (and table cells if asked).

    Only the nodes this reading built are looked at (the rest kept their refs), unless
    `cells` asks for refs the last readings did not hand out. Serialized per tab: the
    model's changes are read once.
    """
    async with tab.snapshot_lock:
        try:
            taken = await asyncio.wait_for(capture(tab, whole=whole), timeout_ms / 1000)
        except BaseException as exc:
            # Cut short (a timeout, a cancelled call, an error), the read may have been
            # half applied while the page's script forgot what it sent: start again whole.
            tab.model.forget()
            if not isinstance(exc, TimeoutError):
                raise
            raise SteadyhandError(
                ErrorCode.TIMEOUT,
                f"the page did not let itself be read within {timeout_ms / 1000:.1f} s",
                "the page may be busy or hung; the daemon and other tabs are unaffected: "
                "wait, then snapshot again, or close the tab",
            ) from None
        nodes = list(taken.root.walk()) if cells else taken.fresh
        wanted = [n for n in nodes if deserves_ref(n) or (cells and n.role in CELLS)]
        tab.refs.issue(taken, wanted)
        tab.refs.reattach(taken, nodes)
        if boxes:
            await tab.model.boxes(tab.page, taken)
    return taken
