"""Playwright's driver (a node process), started as early as a daemon can.

Booting the driver is the longest step of a cold start that no Python import can overlap
unless it starts first: on a warm start the daemon starts it before anything else it
imports (only Playwright's own modules before it), and the engine's first use of
Playwright takes the one already booting.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Playwright, async_playwright

_early: list[asyncio.Task[Playwright]] = []  # the one started early, until it is taken


def start_early() -> None:
    """Start the driver now, on the running loop (once per process)."""
    if not _early:
        _early.append(asyncio.get_running_loop().create_task(async_playwright().start()))


async def started() -> Playwright:
    """The driver started early, if one was, else a new one."""
    if _early:
        return await _early.pop()
    return await async_playwright().start()
