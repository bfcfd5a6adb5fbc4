"""Read a tab's whole accessibility tree (every frame) and the documents it came from.

Always the whole page: Playwright resolves its refs only against the last snapshot of each
frame, so a partial snapshot would silently invalidate refs outside it. Views, subtrees
and diffs are cut from this one capture.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.tree import Node, parse

if TYPE_CHECKING:
    from steadyhand.engine.session import Tab

MASK = "••••••"
# The document an element lives in (its frame's), as `Tab.document_id` names the main one.
ELEMENT_DOCUMENT_JS = "e => String(e.ownerDocument.defaultView.performance.timeOrigin)"
# Values of every password field, open shadow roots included.
PASSWORD_VALUES_JS = """() => {
  const out = [];
  const walk = root => {
    for (const e of root.querySelectorAll('*')) {
      if (e instanceof HTMLInputElement && e.type === 'password' && e.value) out.push(e.value);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(document);
  return out;
}"""
CAPTURE_TRIES = 3


@dataclass(eq=False)
class Capture:
    """One reading of a tab: the tree, and the document of each frame in it."""

    root: Node
    main_doc: str
    docs: dict[int, str]  # frame index -> document id ("" when it could not be read)
    url: str
    taken_at: float = field(default_factory=time.time)
    cache: dict[str, Any] = field(default_factory=dict)  # derived data, computed once

    def nodes_with_ref(self) -> list[Node]:
        return [n for n in self.root.walk() if n.ref is not None]


async def capture(tab: Tab, timeout_ms: float, boxes: bool = False) -> Capture:
    """The tab's tree now, with every frame's document identified and passwords masked."""
    for _attempt in range(CAPTURE_TRIES):
        main_doc = await tab.document_id()
        text = await tab.page.aria_snapshot(mode="ai", boxes=boxes, timeout=timeout_ms)
        # A navigation between the reads would tie the refs to the wrong document.
        if await tab.document_id() == main_doc:
            break
    else:
        raise SteadyhandError(
            ErrorCode.NAVIGATION_FAILED,
            "the page kept navigating while it was being read",
            "wait for the page to settle, then snapshot again",
        )
    root = parse(text)
    docs = {0: main_doc}
    docs.update(await _frame_documents(tab, root))
    mask_passwords(root, await password_values(tab))
    return Capture(root=root, main_doc=main_doc, docs=docs, url=tab.page.url)


async def _frame_documents(tab: Tab, root: Node) -> dict[int, str]:
    """Each child frame's document, read through one of its elements."""
    first: dict[int, str] = {}
    for node in root.walk():
        if node.frame and node.pw_ref is not None and node.frame not in first:
            first[node.frame] = node.pw_ref
    frames = list(first)
    found = await asyncio.gather(*(_document_of(tab, first[f]) for f in frames))
    return dict(zip(frames, found, strict=True))


async def _document_of(tab: Tab, pw_ref: str) -> str:
    """The document of the element a fresh Playwright ref names ("" if it is gone already)."""
    try:
        handles = await tab.page.locator(f"aria-ref={pw_ref}").element_handles()
    except PlaywrightError:
        return ""
    try:
        if len(handles) != 1:
            return ""
        return str(await handles[0].evaluate(ELEMENT_DOCUMENT_JS))
    except PlaywrightError:
        return ""
    finally:
        for handle in handles:
            await _dispose(handle)


async def _dispose(handle: Any) -> None:
    with contextlib.suppress(PlaywrightError):
        await handle.dispose()


async def password_values(tab: Tab) -> set[str]:
    """Values of password fields in every frame, so snapshots never show them."""
    values: set[str] = set()
    for frame in tab.page.frames:
        try:
            values.update(await frame.evaluate(PASSWORD_VALUES_JS))
        except PlaywrightError:
            continue  # a frame that navigated away or is cross-process and gone
    return values


def _squash(text: str) -> str:
    """Whitespace collapsed and trimmed, as the snapshot shows values."""
    return " ".join(text.split())


def mask_passwords(root: Node, secrets: set[str]) -> None:
    """Replace the shown value of any textbox whose value is one of `secrets`."""
    hidden = {_squash(s) for s in secrets} - {""}
    if not hidden:
        return
    for node in root.walk():
        if node.role == "textbox" and node.text is not None and _squash(node.text) in hidden:
            node.text = MASK
