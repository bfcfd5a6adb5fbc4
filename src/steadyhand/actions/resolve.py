"""Turn a ref from a snapshot into the one element it names, or refuse at once.

Playwright's `aria-ref=` locator waits for its whole timeout when the ref names nothing,
and re-queries on every retry. We check the ref first (an unknown or stale ref costs
milliseconds) and then pin the element with a handle: if the page replaces it while the
action waits, the action fails at once as stale instead of finding a stranger or waiting
out the deadline.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.aria import is_ref

SNAPSHOT_HINT = "take a new snapshot and use a ref from it"


async def resolve_ref(tab: Tab, ref: str) -> ElementHandle:
    """A handle on the one element `ref` names in `tab` now; `stale_ref`/`not_found` else.

    The caller owns the handle: dispose of it (or use `element()`).
    """
    if not is_ref(ref):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{ref!r} is not a ref",
            "refs look like e12 (or f1e3 inside an iframe); copy one from a snapshot",
        )
    info = tab.refs.lookup(ref)
    document = await tab.document_id()
    if info is None:
        if tab.refs.retired(ref) is not None:
            raise _stale(tab, ref, "it belonged to a page this tab has since left")
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"tab {tab.id} has handed out no ref {ref}",
            SNAPSHOT_HINT if len(tab.refs) else "take a snapshot first: refs come from it",
            {"ref": ref, "tab": tab.id},
        )
    if info.document != document:
        raise _stale(tab, ref, "the tab navigated to a new document since the snapshot")
    locator = tab.page.locator(f"aria-ref={ref}")
    try:
        handles = await locator.element_handles()
    except PlaywrightError:
        handles = []
    if len(handles) == 1:
        return handles[0]
    for extra in handles:
        await extra.dispose()
    node = info.node
    label = f'{node.role} "{node.name}"' if node.name else node.role
    raise _stale(tab, ref, f"the {label} it named is no longer on the page")


@asynccontextmanager
async def element(tab: Tab, ref: str) -> AsyncIterator[ElementHandle]:
    """The element a ref names, for the duration of one action."""
    handle = await resolve_ref(tab, ref)
    try:
        yield handle
    finally:
        # The page or its document may be gone already, and the handle with it.
        with suppress(PlaywrightError):
            await handle.dispose()


def _stale(tab: Tab, ref: str, why: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.STALE_REF,
        f"ref {ref} in tab {tab.id} is stale: {why}",
        SNAPSHOT_HINT,
        {"ref": ref, "tab": tab.id},
    )
