"""Turn a ref into the one element it names now, re-find its twin, or refuse at once.

1. The ref must have been handed out by this tab, for the document now loaded.
2. If the page model still has the element (its document is loaded and the element is
   connected), it is pinned with a handle.
3. Otherwise the page is read again. The same element under the same ref (it was hidden,
   or another snapshot moved Playwright on) is used as is. An element the page replaced is
   re-found by its identity (role, name, context) only if the page now has exactly as many
   such elements as when the ref was handed out, so the nth one is the same slot; the
   result then says `reresolved`. Anything else is `stale_ref`: never a different element,
   never a success without acting.

The page model holds each element by its id in its own document, so an unknown or stale
ref costs milliseconds. The handle pins the element: if the page
replaces it while the action waits, the action fails at once instead of finding a stranger.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.lookup import is_ref
from steadyhand.snapshot.page_model import Renamed
from steadyhand.snapshot.refs import RefEntry, identities
from steadyhand.snapshot.state import state_of
from steadyhand.snapshot.take import take

SNAPSHOT_HINT = "take a new snapshot (or use find) and use a ref from it"


@dataclass
class Target:
    """The element an action will act on."""

    handle: ElementHandle
    ref: str  # the ref it has now (differs from the one asked for when re-resolved)
    asked: str

    @property
    def reresolved(self) -> bool:
        return self.ref != self.asked


async def resolve_ref(tab: Tab, ref: str, timeout_ms: float) -> Target:
    """The element `ref` names in `tab` now; `stale_ref`/`not_found`/`bad_request` else.

    The caller owns the handle: dispose of it (or use `element()`).
    """
    entry = resolve_entry(tab, ref)
    # Pinned in its own document, the element is the one the ref names (a new main
    # document would have taken the frames and their documents with it).
    handle = await _pin(tab, entry)
    if handle is not None:
        return Target(handle, ref, ref)
    if await tab.document_id() != entry.main_doc:
        raise _stale(tab, ref, "the tab navigated to a new document since the snapshot", NAVIGATED)
    taken = await take(tab, timeout_ms)
    if taken.main_doc != entry.main_doc:
        raise _stale(tab, ref, "the tab navigated to a new document since the snapshot")
    frames = [f for f, doc in taken.docs.items() if doc and doc == entry.doc]
    if not frames:
        raise _stale(tab, ref, "the frame it was in navigated or was removed")
    again = next((n for n in taken.root.walk() if n.ref == ref), None)
    if again is not None:
        handle = await _pin(tab, entry)
        if handle is not None:
            return Target(handle, ref, ref)
    twin, why = _twin(tab, taken, entry, frames)
    if twin is None:
        raise _stale(tab, ref, why, GONE if why == _gone(entry) else "")
    new_entry = state_of(tab).refs.lookup(twin)
    handle = await _pin(tab, new_entry) if new_entry else None
    if handle is None:
        raise _stale(tab, ref, f"the {entry.label()} it named was replaced and is going again")
    return Target(handle, twin, ref)


def resolve_entry(tab: Tab, ref: str) -> RefEntry:
    """What the tab handed `ref` out for; `bad_request`, `not_found` or `stale_ref` else."""
    if not is_ref(ref):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{ref!r} is not a ref",
            "refs look like e12; copy one from a snapshot",
        )
    refs = state_of(tab).refs
    entry = refs.lookup(ref)
    if entry is not None:
        return entry
    if refs.was_issued(ref):
        raise _stale(tab, ref, "it belonged to a page this tab has since left")
    raise SteadyhandError(
        ErrorCode.NOT_FOUND,
        f"tab {tab.id} has handed out no ref {ref}",
        SNAPSHOT_HINT if len(refs) else "take a snapshot first: refs come from it",
        {"ref": ref, "tab": tab.id},
    )


async def _pin(tab: Tab, entry: RefEntry) -> ElementHandle | None:
    """A handle on what a person would act on for the element, if its document still has it.

    Usually the element itself; for a visually hidden native input, its label or the
    custom control drawn in its place.
    """
    if not entry.doc:
        return None
    try:
        return await state_of(tab).model.element(
            tab.page, entry.doc, entry.key, act=True, name=entry.identity.name
        )
    except Renamed as exc:
        raise _stale(
            tab,
            entry.ref,
            f"the {entry.label()} it named is called {exc.now!r} now, which you have not "
            "seen: it may not do what you expect",
            RENAMED,
        ) from None


def _twin(tab: Tab, taken: Capture, entry: RefEntry, frames: list[int]) -> tuple[str | None, str]:
    """The ref of the one element now in the old one's slot, or None and why there is none."""
    want = entry.identity
    matches = [
        node
        for node, ident in identities(taken).items()
        if node.frame in frames
        and ident.role == want.role
        and ident.name == want.name
        and ident.context == want.context
    ]
    if len(matches) == want.group:
        twin = matches[want.nth]
        if twin.ref is None:
            state_of(tab).refs.issue(taken, [twin])
        return twin.ref, ""
    if not matches:
        return None, _gone(entry)
    return None, (
        f"the {entry.label()} it named was replaced and {len(matches)} elements now match it "
        f"where {want.group} did, so which one it was is not known"
    )


def _gone(entry: RefEntry) -> str:
    return f"the {entry.label()} it named is no longer on the page (or not visible)"


@asynccontextmanager
async def element(tab: Tab, ref: str, timeout_ms: float) -> AsyncIterator[Target]:
    """The element a ref names, for the duration of one action."""
    target = await resolve_ref(tab, ref, timeout_ms)
    try:
        yield target
    finally:
        # The page or its document may be gone already, and the handle with it.
        with suppress(PlaywrightError):
            await target.handle.dispose()


GONE = "gone"  # `stale_ref` data["reason"] when no element fills the ref's slot now
RENAMED = "renamed"  # the element is there, under a name the agent has not been shown
NAVIGATED = "navigated"  # the tab's main document is not the one the ref was handed out in


def _stale(tab: Tab, ref: str, why: str, reason: str = "") -> SteadyhandError:
    data = {"ref": ref, "tab": tab.id} | ({"reason": reason} if reason else {})
    return SteadyhandError(
        ErrorCode.STALE_REF, f"ref {ref} in tab {tab.id} is stale: {why}", SNAPSHOT_HINT, data
    )


def is_gone(exc: SteadyhandError) -> bool:
    """True for a stale ref whose element is simply not on the page (it may come back)."""
    return exc.code == ErrorCode.STALE_REF and exc.data.get("reason") == GONE
