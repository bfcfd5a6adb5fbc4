"""Desktop commands on X windows, the clipboard and programs: list, focus, move, resize,
close windows; get and set the clipboard; launch a program and wait until it shows.

Each action is read back from the X server (or the clipboard) before it answers, and says
so (`verified`) and what it read. X calls run on the desktop worker thread.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import ClassVar, Literal

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, command, positional, secret_field
from steadyhand.desktop import clipboard, launch
from steadyhand.desktop.windows import WindowActed, Windows
from steadyhand.desktop.xwindows import WindowFacts, parse_id, window_data
from steadyhand.errors import ErrorCode, SteadyhandError


class Window(Result):
    id: str = Field(description="the X window id (0x1a00003): give it to `desktop window ...`")
    title: str = Field(description="_NET_WM_NAME, else WM_NAME")
    pid: int | None = Field(description="_NET_WM_PID; null when the program does not set it")
    instance: str = Field(description="WM_CLASS instance (often the program's name)")
    wm_class: str = Field(description="WM_CLASS class")
    x: int = Field(description="root (screen) coordinates of the window's corner")
    y: int
    width: int
    height: int
    mapped: bool
    viewable: bool = Field(description="mapped, and its parents too: it can be on screen")
    focused: bool = Field(description="it (or a window inside it) has the X input focus")
    frame: list[int] | None = Field(
        None, description="the window manager's frame: left, right, top, bottom"
    )


def window_result(facts: WindowFacts) -> Window:
    return Window(**window_data(facts))


class WindowsParams(Params):
    app: str | None = Field(None, description="only this application's (name, WM_CLASS or pid)")
    all: bool = Field(
        False, description="also unmapped and override-redirect windows (without a WM)"
    )


class WindowsResult(Result):
    PAGE_TEXT: ClassVar[bool] = True
    windows: list[Window]
    wm: str | None = Field(
        description="the window manager's name; null: none runs (windows stay where put)"
    )


@command("desktop.windows", in_browser=False, reads_only=True, timeout="short", caps="desktop")
async def desktop_windows(call: Call, params: WindowsParams) -> WindowsResult:
    """List the top-level X windows: id, title, pid, class, geometry, focus."""
    found, wm = await Windows(call.runtime.desktop).list(params.app, params.all, call.deadline)
    if params.app is not None and not found:
        every, _ = await Windows(call.runtime.desktop).list(None, params.all, call.deadline)
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"no window of an application {params.app!r}",
            "windows: "
            + (
                ", ".join(f"{w.hex_id} {w.title!r} ({w.instance}, pid {w.pid})" for w in every)
                or "none"
            )
            + "; an application started just now may need a moment",
        )
    return WindowsResult(windows=[window_result(w) for w in found], wm=wm)


class WindowParams(Params):
    id: str = positional("the window's id, as `desktop windows` gives it (0x1a00003)")


class WindowActedResult(Result):
    PAGE_TEXT: ClassVar[bool] = True
    REPLY: ClassVar[str] = "window"
    id: str
    action: str
    transport: str = Field(
        description="x11 (plain X requests, no window manager), ewmh (asked the window "
        "manager), wm_delete_window (asked the application)"
    )
    verified: bool = Field(description="the X server showed the effect (read back)")
    wm: str | None = Field(description="the window manager's name; null: none runs")
    before: Window
    window: Window | None = Field(description="read back after the action; null: closed")
    gone: str | None = Field(
        None, description="close: destroyed, unmapped, or unmanaged (left the WM's list)"
    )


async def window_acted(call: Call, acting: Awaitable[WindowActed]) -> WindowActedResult:
    """The window action's result; desktop snapshots walk again afterwards (a window that
    moved or resized sends no AT-SPI event, so a reused walk would keep its old boxes)."""
    try:
        return acted_result(await acting)
    finally:
        call.runtime.desktop.changed()


def acted_result(done: WindowActed) -> WindowActedResult:
    return WindowActedResult(
        id=done.before.hex_id,
        action=done.action,
        transport=done.transport,
        verified=done.verified,
        wm=done.wm,
        before=window_result(done.before),
        window=window_result(done.after) if done.after is not None else None,
        gone=done.gone,
    )


@command("desktop.window.focus", in_browser=False, acts=True, caps="desktop")
async def desktop_window_focus(call: Call, params: WindowParams) -> WindowActedResult:
    """Give a window the input focus and raise it; verified by reading the focus back."""
    windows = Windows(call.runtime.desktop)
    return await window_acted(call, windows.focus(parse_id(params.id), call.deadline))


class WindowMoveParams(WindowParams):
    x: int = Field(ge=-32768, le=32767, description="where its left edge goes (screen pixels)")
    y: int = Field(ge=-32768, le=32767, description="where its top edge goes (screen pixels)")


@command("desktop.window.move", in_browser=False, acts=True, caps="desktop")
async def desktop_window_move(call: Call, params: WindowMoveParams) -> WindowActedResult:
    """Move a window to --x --y; verified by reading its position back."""
    windows = Windows(call.runtime.desktop)
    return await window_acted(
        call, windows.move(parse_id(params.id), params.x, params.y, call.deadline)
    )


class WindowResizeParams(WindowParams):
    width: int = Field(ge=1, le=32767, description="its new width (pixels, without a WM's frame)")
    height: int = Field(ge=1, le=32767, description="its new height (pixels, no WM frame)")


@command("desktop.window.resize", in_browser=False, acts=True, caps="desktop")
async def desktop_window_resize(call: Call, params: WindowResizeParams) -> WindowActedResult:
    """Resize a window to --width --height; verified by reading its size back."""
    windows = Windows(call.runtime.desktop)
    return await window_acted(
        call, windows.resize(parse_id(params.id), params.width, params.height, call.deadline)
    )


@command("desktop.window.close", in_browser=False, acts=True, caps="desktop")
async def desktop_window_close(call: Call, params: WindowParams) -> WindowActedResult:
    """Ask a window to close (as its close button would); verified: it is gone."""
    windows = Windows(call.runtime.desktop)
    return await window_acted(call, windows.close(parse_id(params.id), call.deadline))


Selection = Literal["clipboard", "primary"]


class ClipboardParams(Params):
    selection: Selection = Field(
        "clipboard", description="clipboard (ctrl+c/ctrl+v) or primary (selected text)"
    )


class ClipboardText(Result):
    PAGE_TEXT: ClassVar[bool] = True
    REPLY: ClassVar[str] = "text"
    selection: str
    text: str = secret_field("its text (kept out of the action log); empty when it holds none")
    has_text: bool = Field(description="false: nothing was copied, or what was is not text")


@command(
    "desktop.clipboard.get", in_browser=False, reads_only=True, timeout="short", caps="desktop"
)
async def desktop_clipboard_get(call: Call, params: ClipboardParams) -> ClipboardText:
    """The text on the X clipboard (or the primary selection), via xclip."""
    text = await clipboard.get(params.selection, call.deadline)
    return ClipboardText(selection=params.selection, text=text or "", has_text=text is not None)


class ClipboardSetParams(ClipboardParams):
    text: str = positional("the text to put on it (kept out of the action log)", sensitive=True)


class ClipboardSet(Result):
    selection: str
    verified: bool = Field(description="read back, equal to the text")
    chars: int = Field(description="how many characters it holds")


@command("desktop.clipboard.set", in_browser=False, acts=True, timeout="short", caps="desktop")
async def desktop_clipboard_set(call: Call, params: ClipboardSetParams) -> ClipboardSet:
    """Put text on the X clipboard (or the primary selection); verified by reading back."""
    back = await clipboard.set_text(params.selection, params.text, call.deadline)
    return ClipboardSet(selection=params.selection, verified=True, chars=len(back))


class LaunchParams(Params):
    argv: list[str] = positional(
        "the program and its arguments; put -- before them when they have options"
    )
    wait: bool = Field(
        True, description="wait until it shows a window or is on the accessibility bus"
    )


class LaunchResult(Result):
    PAGE_TEXT: ClassVar[bool] = True
    pid: int = Field(description="its process (and process group) id")
    app: str | None = Field(description="its name on the accessibility bus (`desktop apps`)")
    windows: list[Window] = Field(description="its mapped top-level windows")
    log: str = Field(description="the file its standard output and error go to")
    visible_ms: float | None = Field(description="from start until it showed; null: not waited")


@command(
    "desktop.launch", in_browser=False, acts=True, destructive=True, timeout="long", caps="desktop"
)
async def desktop_launch(call: Call, params: LaunchParams) -> LaunchResult:
    """Start a program on the desktop and wait until it shows a window or is on the bus."""
    name = params.argv[0] if params.argv else ""
    launch.program(params.argv)  # not_found before a log file is made
    # Nothing starts where there is no desktop to show it: this fails at once without one.
    await call.runtime.desktop.apps(call.deadline)
    log = await call.output_path(
        None, "desktop.launch", label=name.rsplit("/", 1)[-1], ext="log", folder="desktop"
    )
    process = await launch.start(params.argv, log)
    call.keep(log, "log", name)
    done = launch.Launched(process.pid, log)
    if params.wait:
        done = await launch.wait_shown(process, log, call.runtime.desktop, call.deadline)
    return LaunchResult(
        pid=done.pid,
        app=done.app,
        windows=[window_result(w) for w in done.windows],
        log=str(log),
        visible_ms=done.visible_ms,
    )
