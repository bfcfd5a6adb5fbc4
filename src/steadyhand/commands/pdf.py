"""The pdf command: print the tab to a PDF file (headless Chromium only)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from pydantic import Field

from steadyhand.act.pixel_mask import as_discs, lifted
from steadyhand.act.results import PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.table import GateRule, TabParams, command, file_path
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.private_files import write_private as write_private_file


class PdfParams(TabParams):
    path: str | None = file_path(
        "where to write the PDF (default: the artifacts dir)", positional=True
    )
    unmasked: bool = Field(
        False,
        description="without the black boxes over fields a secret was typed into (a person "
        "must approve)",
    )


UNMASKED = "a PDF without the boxes that cover secrets"


class PdfResult(PageResult):
    path: str
    bytes: int


def make_private_dirs(directory: Path) -> None:
    """Create `directory` and any missing parents as 0700; existing ones are left alone."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # a concurrent call made it first
            path.mkdir(mode=0o700)
            path.chmod(0o700)  # mkdir's mode passed through the umask


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` as a 0600 file, whole or not at all, in 0700 directories
    made as needed."""
    make_private_dirs(path.parent)
    write_private_file(path, data)


async def save_private(path: Path, data: bytes) -> None:
    """`write_private` off the event loop; a path the daemon cannot write is bad_request."""
    try:
        await asyncio.to_thread(write_private, path, data)
    except OSError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"cannot write {path}: {exc.strerror or exc}",
            "give a path in a directory the daemon's user can write",
        ) from exc


@command(
    "pdf",
    reads_only=True,
    caps="files",
    gate_rule=GateRule(asks=lambda p: UNMASKED if p.unmasked else None),
)
async def pdf(call: Call, params: PdfParams) -> PdfResult:
    """Print the tab to a PDF file and return its path (headless browser only)."""
    if not call.runtime.settings.headless:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "pdf needs a headless browser, and this daemon runs Chromium headed",
            "Chromium prints PDFs only headless: `steadyhand daemon stop`, then start it "
            "without --headed",
        )
    tab = await call.tab(params.tab)
    path = await call.output_path(params.path, "pdf", label=tab.id, ext="pdf")
    async with lifted(tab.page) if params.unmasked else as_discs(tab.page):
        data = await tab.page.pdf(print_background=True)
    await save_private(path, data)
    call.keep(path, "pdf", tab.id)
    return PdfResult(**await page_result(tab), path=str(path), bytes=len(data))
