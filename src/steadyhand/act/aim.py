"""The element an act is about to act on, and letting go of its handle."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from playwright.async_api import ElementHandle

_LETTING_GO: set[asyncio.Future[None]] = set()  # held until done (the loop keeps weak refs)


def let_go(handle: ElementHandle) -> None:
    """Dispose of a handle without waiting for the answer: the call goes out after this
    act's own, and a page that took the element already makes it fail, unheard."""
    task = asyncio.ensure_future(handle.dispose())
    _LETTING_GO.add(task)
    task.add_done_callback(_let_go_done)


def _let_go_done(task: asyncio.Future[None]) -> None:
    _LETTING_GO.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: a page that took the element already


@dataclass
class Aim:
    """An element an action is about to act on, and how to name it in messages."""

    handle: ElementHandle
    what: str
    link: bool | None = None  # a link (as its ref was handed out); None: not known
