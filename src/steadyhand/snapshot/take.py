"""Take a tab's snapshot: read its page model and hand out refs, one reader at a time."""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError

from steadyhand.engine import playwright_errors
from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.page_model import PageModel
from steadyhand.snapshot.refs import deserves_ref
from steadyhand.snapshot.render import CELLS
from steadyhand.snapshot.state import state_of

CAPTURE_TRIES = 3


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
    state = state_of(tab)
    async with state.lock:
        try:
            taken = await asyncio.wait_for(capture(tab, state.model, whole), timeout_ms / 1000)
        except BaseException as exc:
            # Cut short (a timeout, a cancelled call, an error), the read may have been
            # half applied while the page's script forgot what it sent: start again whole.
            state.model.forget()
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
        state.refs.issue(taken, wanted)
        state.refs.reattach(taken, nodes)
        if boxes:
            await state.model.boxes(tab.page, taken)
    return taken


async def capture(tab: Tab, model: PageModel, whole: bool = False) -> Capture:
    """The tab's tree now, read from its `model`, with every frame's document identified
    (`whole`: read it all)."""
    for _attempt in range(CAPTURE_TRIES):
        try:
            root, docs = await model.read(tab.page, force=whole)
        except PlaywrightError as exc:
            if not playwright_errors.context_destroyed(str(exc)):
                raise
            continue  # it navigated while being read
        main_doc = docs.get(0, "")
        # The main frame is read first: with child frames read after it, it may have
        # navigated meanwhile, and their documents would be tied to the wrong page.
        if main_doc and (len(docs) == 1 or await tab.document_id() == main_doc):
            break
    else:
        raise SteadyhandError(
            ErrorCode.NAVIGATION_FAILED,
            "the page kept navigating while it was being read",
            "wait for the page to settle, then snapshot again",
        )
    taken = Capture(root=root, main_doc=main_doc, docs=docs, url=tab.page.url)
    taken.fresh = model.fresh
    return taken
