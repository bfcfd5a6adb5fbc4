"""Evidence of an action: a screenshot of the tab as the action found or left it."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.session import Tab
from steadyhand.store.artifacts import artifact_path

SCREENSHOT_TIMEOUT_MS = 2_000  # a hung page must not hold the error back for long


async def evidence_screenshot(
    root: Path, session: str, tab: Tab, action: str, label: str
) -> str | None:
    """The tab's screenshot saved as an artifact (label: failure, before or after); None
    when the tab cannot show one."""
    if tab.page.is_closed() or tab.events.pending is not None:
        return None  # closed, or stopped by a dialog (a screenshot would wait for it)
    path = artifact_path(root, session, action, label, "png")
    try:
        await tab.page.screenshot(path=path, timeout=SCREENSHOT_TIMEOUT_MS)
    except PlaywrightError:
        return None
    os.chmod(path, 0o600)
    return str(path)
