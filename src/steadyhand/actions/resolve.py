"""Turn a ref from a snapshot into a Playwright locator, or refuse at once.

Playwright's `aria-ref=` locator waits for its whole timeout when the ref names nothing;
we check first, so an unknown or stale ref costs milliseconds and never lands on another
element.
"""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.aria import is_ref

SNAPSHOT_HINT = "take a new snapshot and use a ref from it"


async def resolve_ref(tab: Tab, ref: str) -> Locator:
    """The one element `ref` names in `tab` now; `stale_ref`/`not_found` otherwise."""
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
        count = await locator.count()
    except PlaywrightError:
        count = 0
    if count != 1:
        node = info.node
        label = f'{node.role} "{node.name}"' if node.name else node.role
        raise _stale(tab, ref, f"the {label} it named is no longer on the page")
    return locator


def _stale(tab: Tab, ref: str, why: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.STALE_REF,
        f"ref {ref} in tab {tab.id} is stale: {why}",
        SNAPSHOT_HINT,
        {"ref": ref, "tab": tab.id},
    )
