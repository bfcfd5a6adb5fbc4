"""What a page does on its own during an action: dialogs, downloads, popups.

A JavaScript dialog stops the page until it is answered. Under the "report" policy it is
held open and shown in every result until `dialog accept|dismiss` answers it; under
"accept"/"dismiss" it is answered at once and the answer is reported. Downloads are saved
to the session's download folder as they finish; popups become tabs of the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Dialog, Download, Page
from playwright.async_api import Error as PlaywrightError

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.files_policy import inside_folder
from steadyhand.store.artifacts import artifact_path

MAX_KEPT = 200  # answered dialogs and downloads remembered per tab
EXPECTED_DOWNLOAD_S = 2.0  # wait for a download a navigation turned into, at most


@dataclass
class Mark:
    """Counters at the start of an action: what happened since is the action's doing."""

    answered: int
    downloads: int
    popups: int


@dataclass
class PageEvents:
    page: Page
    download_path: Callable[[str], Path]  # where a download with this suggested name goes
    dialog_policy: str  # report | accept | dismiss
    pending: Dialog | None = None
    opened_at: float = 0.0
    answered: list[dict[str, Any]] = field(default_factory=list)
    saved: list[asyncio.Task[dict[str, Any]]] = field(default_factory=list)
    popups: list[Page] = field(default_factory=list)
    # Actions stopped by a dialog: they finish once it is answered.
    parked: set[asyncio.Task[Any]] = field(default_factory=set)
    dialog_opened: asyncio.Event = field(default_factory=asyncio.Event)
    _download_seen: asyncio.Event = field(default_factory=asyncio.Event)
    _popup_seen: asyncio.Event = field(default_factory=asyncio.Event)

    def attach(self) -> None:
        self.page.on("dialog", self._on_dialog)
        self.page.on("download", self._on_download)
        self.page.on("popup", self._on_popup)

    def _on_popup(self, page: Page) -> None:
        self.popups.append(page)
        self._popup_seen.set()

    # ------------------------------------------------------------------ dialogs

    async def _on_dialog(self, dialog: Dialog) -> None:
        if self.dialog_policy == "report":
            self.pending = dialog
            self.opened_at = time.time()
            self.dialog_opened.set()
            return
        accept = self.dialog_policy == "accept"
        with contextlib.suppress(PlaywrightError):
            await (dialog.accept() if accept else dialog.dismiss())
        self._remember(dialog, "accepted" if accept else "dismissed", by="policy")

    def dialog_info(self) -> dict[str, Any] | None:
        """The open dialog, as results show it; None when there is none."""
        dialog = self.pending
        if dialog is None:
            return None
        info: dict[str, Any] = {"type": dialog.type, "message": dialog.message, "open": True}
        if dialog.type == "prompt":
            info["default"] = dialog.default_value
        return info

    async def answer(self, accept: bool, text: str | None) -> dict[str, Any]:
        dialog = self.pending
        if dialog is None:
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                "no dialog is open in this tab",
                "dialogs show in an action's result (`dialog`) while they wait for an answer",
            )
        if text is not None and (dialog.type != "prompt" or not accept):
            why = "dismissing sends no text" if accept is False else f"a {dialog.type} takes none"
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"--text goes with accepting a prompt; {why}",
                "answer it with `dialog accept --text T` (a prompt), `dialog accept` or "
                "`dialog dismiss`",
            )
        self.pending = None
        self.dialog_opened.clear()
        with contextlib.suppress(PlaywrightError):  # the page may have closed it already
            if accept:
                await (dialog.accept(text) if text is not None else dialog.accept())
            else:
                await dialog.dismiss()
        return self._remember(dialog, "accepted" if accept else "dismissed", by="agent")

    def _remember(self, dialog: Dialog, answer: str, by: str) -> dict[str, Any]:
        record = {"type": dialog.type, "message": dialog.message, "answer": answer, "by": by}
        self.answered.append(record)
        del self.answered[:-MAX_KEPT]
        return record

    def park(self, task: asyncio.Task[Any]) -> None:
        """Keep an action the dialog stopped until it ends (its outcome is the dialog's)."""
        self.parked.add(task)
        task.add_done_callback(self._unpark)

    def _unpark(self, task: asyncio.Task[Any]) -> None:
        self.parked.discard(task)
        if not task.cancelled():
            task.exception()  # seen: the result already told the agent about the dialog

    # ------------------------------------------------------------------ downloads

    def _on_download(self, download: Download) -> None:
        self.saved.append(asyncio.ensure_future(self._save(download)))
        del self.saved[:-MAX_KEPT]
        self._download_seen.set()

    async def _save(self, download: Download) -> dict[str, Any]:
        record: dict[str, Any] = {"filename": download.suggested_filename, "url": download.url}
        try:
            path = self.download_path(download.suggested_filename)
            await download.save_as(path)
            os.chmod(path, 0o600)
            record |= {"path": str(path), "bytes": path.stat().st_size}
        except SteadyhandError as exc:  # files_policy: a link in the folder points out
            record["error"] = exc.message
        except (PlaywrightError, OSError) as exc:
            record["error"] = str(exc).splitlines()[0]
        return record

    # ------------------------------------------------------------------ marks

    def mark(self) -> Mark:
        return Mark(len(self.answered), len(self.saved), len(self.popups))

    def answered_since(self, mark: Mark) -> list[dict[str, Any]]:
        return self.answered[mark.answered :]

    def popups_since(self, mark: Mark) -> list[Page]:
        return self.popups[mark.popups :]

    async def popup_after(self, mark: Mark, timeout_s: float) -> list[Page]:
        """The popups since `mark`, waiting up to `timeout_s` for one: Playwright announces
        a new tab only once it is set up, which can be after the click that opened it
        has returned (the first popup of a browser needs a new renderer process)."""
        await _wait_for(self._popup_seen, lambda: len(self.popups) > mark.popups, timeout_s)
        return self.popups_since(mark)

    async def downloads_since(
        self, mark: Mark, timeout_s: float, expect: bool = False
    ) -> list[dict[str, Any]]:
        """Downloads the action started, once saved (or as far as they got in time).

        `expect`: a navigation the action started ended without a page (a download's
        does), so a download that has not been announced yet is waited for, briefly.
        """
        if expect:
            await _wait_for(
                self._download_seen,
                lambda: len(self.saved) > mark.downloads,
                min(timeout_s, EXPECTED_DOWNLOAD_S),
            )
        tasks = self.saved[mark.downloads :]
        if not tasks:
            return []
        done, _ = await asyncio.wait(tasks, timeout=max(0.1, timeout_s))
        return [
            t.result() if t in done else {"error": "still downloading when the command ended"}
            for t in tasks
        ]


async def _wait_for(seen: asyncio.Event, done: Callable[[], bool], timeout_s: float) -> None:
    """Until `done()` holds, waking each time `seen` is set, at most `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not done():
        left = deadline - time.monotonic()
        if left <= 0:
            return
        seen.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(seen.wait(), left)


def named_in(folder: Path) -> Callable[[str], Path]:
    """Downloads saved in `folder` under the names the site gave (made unique)."""

    def path_for(suggested: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        return inside_folder(_unique(folder / _safe_name(suggested)), folder)

    return path_for


def named_as_artifacts(root: Path, session: str) -> Callable[[str], Path]:
    """Downloads saved as the session's artifacts: `<time>-download-<name>.<ext>`."""

    def path_for(suggested: str) -> Path:
        name = Path(_safe_name(suggested))
        path = artifact_path(root, session, "download", name.stem, name.suffix[1:])
        return inside_folder(path, path.parent)

    return path_for


def _safe_name(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "._- " else "_" for c in name).strip(" .")
    return cleaned[:150] or "download"


def _unique(path: Path) -> Path:
    """`path`, or the first `stem-N.ext` free; a symlink (even dangling) is not free."""
    if not os.path.lexists(path):
        return path
    for n in range(2, 10_000):
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        if not os.path.lexists(candidate):
            return candidate
    raise OSError(f"too many files named like {path.name}")
