"""Read a tab's accessibility tree (every frame) from its page model, and what it came from.

The model sends only what changed since its last read, so a capture costs what changed;
the tree it returns shares every unchanged subtree with the capture before it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from steadyhand.engine import playwright_errors
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.tree import Node

if TYPE_CHECKING:
    from steadyhand.engine.session import Tab

CAPTURE_TRIES = 3


@dataclass(eq=False)
class Capture:
    """One reading of a tab: the tree, and the document of each frame in it."""

    root: Node
    main_doc: str
    docs: dict[int, str]  # frame index -> document id ("" when it could not be read)
    url: str
    fresh: list[Node] = field(default_factory=list)  # nodes this reading built anew
    taken_at: float = field(default_factory=time.time)
    cache: dict[str, Any] = field(default_factory=dict)  # derived data, computed once


async def capture(tab: Tab, whole: bool = False) -> Capture:
    """The tab's tree now, with every frame's document identified (`whole`: read it all)."""
    for _attempt in range(CAPTURE_TRIES):
        try:
            root, docs = await tab.model.read(tab.page, force=whole)
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
    taken.fresh = tab.model.fresh
    return taken
