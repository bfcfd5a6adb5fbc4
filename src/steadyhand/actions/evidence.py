"""Evidence of a failed action: a screenshot of the tab as the action left it."""

from __future__ import annotations

import os
import time
from pathlib import Path

from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.session import Tab

SCREENSHOT_TIMEOUT_MS = 2_000  # a hung page must not hold the error back for long


def artifact_path(root: Path, session: str, action: str, label: str, ext: str) -> Path:
    """`root/<session>/<time>-<action>-<label>.<ext>`, folders private to the user."""
    folder = root / session
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    now = time.time()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + f"{int(now * 1000) % 1000:03d}"
    return folder / f"{stamp}-{action}-{label}.{ext}"


async def failure_screenshot(root: Path, session: str, tab: Tab, action: str) -> str | None:
    """The tab's screenshot saved as an artifact; None when the tab cannot show one."""
    if tab.page.is_closed() or tab.events.pending is not None:
        return None  # closed, or stopped by a dialog (a screenshot would wait for it)
    path = artifact_path(root, session, action, "failure", "png")
    try:
        await tab.page.screenshot(path=path, timeout=SCREENSHOT_TIMEOUT_MS)
    except PlaywrightError:
        return None
    os.chmod(path, 0o600)
    return str(path)
