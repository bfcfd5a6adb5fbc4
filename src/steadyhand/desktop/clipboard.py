"""The X clipboard (and the primary selection) through `xclip`.

Owning a selection means answering every program that asks for it for as long as it is
owned, which needs a process with its own event loop: xclip is that process (it stays,
serving the text, until another program takes the selection). The text goes to it on
standard input, never on its command line, where `ps` would show it.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import time

from steadyhand.desktop import display
from steadyhand.errors import ErrorCode, SteadyhandError

SELECTIONS = ("clipboard", "primary")
TARGET = "UTF8_STRING"
VERIFY_WAIT_S = 1.0  # how long xclip may take to own the selection once started
NO_TEXT = "not available"  # xclip -o: no owner, or an owner with no text to give


def _xclip() -> str:
    display.x11_only("the desktop clipboard (xclip)")
    found = shutil.which("xclip")
    if found is None:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            "the desktop clipboard commands need xclip, which is not installed",
            "install it: apt-get install xclip (scripts/ensure-desktop does, as root)",
        )
    return found


async def _run(
    args: list[str], deadline: float, stdin: bytes | None = None
) -> tuple[int, bytes, str]:
    """Run xclip with `args`: its exit code, output and error text. An `-i` xclip forks a
    child that keeps serving the selection: its output goes to a file, not a pipe, so
    that waiting for the parent does not wait for that child too."""
    with tempfile.TemporaryFile() as errors:
        process = await asyncio.create_subprocess_exec(
            _xclip(),
            *args,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL if stdin is not None else asyncio.subprocess.PIPE,
            stderr=errors,
            start_new_session=True,  # the serving child outlives this call, not the daemon's group
        )
        try:
            out, _ = await asyncio.wait_for(
                process.communicate(stdin), max(0.05, deadline - time.monotonic())
            )
        except TimeoutError as exc:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            raise SteadyhandError(
                ErrorCode.TIMEOUT,
                f"xclip {' '.join(args)} did not finish within the deadline",
                "the program that owns the selection may be hung; try again later",
            ) from exc
        errors.seek(0)
        text = errors.read().decode(errors="replace").strip()
    return int(process.returncode or 0), out or b"", text


async def get(selection: str, deadline: float) -> str | None:
    """The selection's text; None when it holds none (no owner, or no text in it)."""
    code, out, errors = await _run(["-selection", selection, "-o", "-t", TARGET], deadline)
    if code != 0:
        if NO_TEXT in errors:
            return None
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            f"xclip could not read the {selection} selection: {errors}",
            "the daemon must run on the desktop (its DISPLAY)",
        )
    return out.decode(errors="replace")


async def set_text(selection: str, text: str, deadline: float) -> str:
    """Own the selection with `text`; returns the text read back from it."""
    code, _out, errors = await _run(
        ["-selection", selection, "-i", "-t", TARGET], deadline, stdin=text.encode()
    )
    if code != 0:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            f"xclip could not take the {selection} selection: {errors}",
            "the daemon must run on the desktop (its DISPLAY)",
        )
    until = min(deadline, time.monotonic() + VERIFY_WAIT_S)
    while True:
        back = await get(selection, deadline)
        if back == text or time.monotonic() > until:
            break
        await asyncio.sleep(0.02)
    if back != text:
        raise SteadyhandError(
            ErrorCode.VERIFICATION_FAILED,
            f"the {selection} selection does not hold the text after setting it "
            f"({'no text' if back is None else f'{len(back)} other characters'})",
            "another program may have taken the selection at once (a clipboard manager)",
        )
    return back
