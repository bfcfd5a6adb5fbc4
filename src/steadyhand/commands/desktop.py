"""Desktop commands: the same snapshot → ref → act for Linux applications, over AT-SPI.

The daemon must run inside a desktop session (DISPLAY and the session bus with the
accessibility bus: `steadyhand desktop session -- CMD` makes one on a headless machine).
Refs look like `d7` and belong to the desktop, not to a browser tab.
"""

from __future__ import annotations

from typing import ClassVar
from urllib.parse import urlsplit

from pydantic import Field, JsonValue

from steadyhand.act.results import TabInfo, tab_infos
from steadyhand.call import Call
from steadyhand.commands.pdf import save_private
from steadyhand.commands.table import Params, Result, command, file_path, positional
from steadyhand.desktop.router import Acted
from steadyhand.desktop.transport import Want
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.vault import only_references


class App(Result):
    name: str = Field(description='"" when the application does not answer (hung)')
    pid: int


class AppsResult(Result):
    apps: list[App]


@command("desktop.apps", in_browser=False, reads_only=True, timeout="short", caps="desktop")
async def desktop_apps(call: Call, params: Params) -> AppsResult:
    """List the applications on the accessibility bus (name and pid)."""
    found = await call.runtime.desktop.apps(call.deadline)
    return AppsResult(apps=[App(**a) for a in found])


class TransportHealth(Result):
    name: str = Field(description="atspi, cdp or xinput, in the order they are tried")
    ok: bool
    detail: dict[str, JsonValue] = Field(
        default_factory=dict, description="what it is connected to, or its error"
    )


class TransportsResult(Result):
    transports: list[TransportHealth]


@command("desktop.transports", in_browser=False, reads_only=True, timeout="short", caps="desktop")
async def desktop_transports(call: Call, params: Params) -> TransportsResult:
    """Each desktop transport's health, in the order the router tries them."""
    found = await call.runtime.desktop.health()
    return TransportsResult(
        transports=[
            TransportHealth(name=h.pop("name"), ok=bool(h.pop("ok")), detail=h) for h in found
        ]
    )


class DesktopSnapshotParams(Params):
    app: str | None = Field(None, description="only this application (its name or pid)")
    all: bool = Field(False, description="also what is not on screen (closed menus, hidden)")
    fresh: bool = Field(
        False, description="walk every application again, even one whose last walk is fresh"
    )
    window: str | None = Field(
        None, description="only this top-level window (its id, from `desktop windows`)"
    )
    walk: bool = Field(False, description="read object by object (slower; to compare)")


class DesktopSnapshotResult(Result):
    PAGE_TEXT: ClassVar[bool] = True
    NOT_FOR_THE_MODEL: ClassVar[frozenset[str]] = frozenset({"read"})
    REPLY: ClassVar[str] = "snapshot"
    snapshot: str = Field(description="the tree as text; act on elements by their [ref=dN]")
    cached: list[int] = Field(
        default_factory=list,
        description="pids of applications whose last walk was reused: no AT-SPI event of "
        "them and no desktop action since, within desktop_cache_ms",
    )
    read: dict[str, str] = Field(
        default_factory=dict,
        description="how each application's tree was had, by pid: cache, bulk (pipelined "
        "D-Bus calls), bulk p2p (over the application's own socket) or walk",
    )


@command("desktop.snapshot", in_browser=False, reads_only=True, caps="desktop")
async def desktop_snapshot(call: Call, params: DesktopSnapshotParams) -> DesktopSnapshotResult:
    """The desktop applications' accessibility tree as text; act by their [ref=dN]."""
    text, how = await call.runtime.desktop.snapshot(
        params.app,
        params.all,
        call.deadline,
        fresh=params.fresh,
        window=params.window,
        walk_only=params.walk,
    )
    return DesktopSnapshotResult(
        snapshot=text,
        cached=[pid for pid, had in how.items() if had == "cache"],
        read={str(pid): had for pid, had in how.items()},
    )


class DesktopRefParams(Params):
    ref: str = positional("a desktop ref from `desktop snapshot` (d7)")


class NoopParams(Params):
    allow_noop: bool = Field(False, description="succeed even if nothing changes")


class DesktopActParams(DesktopRefParams, NoopParams):
    pass


EFFECT = (
    "how it is known to have worked: confirmed (read back, or the app's tree changed), "
    "partial (something changed, not as asked), unverifiable, suspected_noop (nothing "
    "changed; only with --allow-noop)"
)


class DesktopActed(Result):
    PAGE_TEXT: ClassVar[bool] = True
    REPLY: ClassVar[str] = "desktop_act"
    ref: str
    transport: str = Field(
        description="the route: atspi (the element's own interfaces), cdp (a Chromium or "
        "Electron app's page, through its debugging port) or xinput (real pointer and keys)"
    )
    action: str
    effect: str = Field(description=EFFECT)
    evidence: str = Field(description="what showed the effect")
    verified: bool = Field(description="the effect is confirmed")
    tried: list[str] = Field(
        default_factory=list, description="transports tried before it, and what they said"
    )
    role: str
    name: str
    states: list[str] = Field(description="after the action")
    value: str | None = Field(None, description="a field's text (or a list's choice) after")


def acted_result(done: Acted) -> DesktopActed:
    after = done.after
    return DesktopActed(
        ref=done.ref,
        transport=done.transport,
        action=done.action,
        effect=done.effect,
        evidence=done.evidence,
        verified=done.verified,
        role=after.role,
        name=after.name,
        states=sorted(after.states),
        value=after.text,
        tried=done.tried,
    )


@command("desktop.click", in_browser=False, acts=True, caps="desktop")
async def desktop_click(call: Call, params: DesktopActParams) -> DesktopActed:
    """Click (press, toggle) a desktop element: its accessible action, else a real click."""
    return acted_result(await _act(call, params, Want("click")))


async def _act(call: Call, params: DesktopActParams, want: Want) -> Acted:
    return await call.runtime.desktop.act(
        params.ref, want, call.deadline, allow_noop=params.allow_noop
    )


class DesktopTypeParams(DesktopActParams):
    text: str = positional(
        "the text the field should hold; {{secret:NAME}} in it types the secret NAME (one "
        "without domains: a desktop field has no host)",
        sensitive=True,
    )


@command("desktop.type", in_browser=False, acts=True, caps="desktop")
async def desktop_type(call: Call, params: DesktopTypeParams) -> DesktopActed:
    """Set a desktop text field's text; verified by reading it back."""
    text = call.runtime.secrets.expand(params.text, None, f"desktop field {params.ref}")
    done = await _act(call, params, Want("type", text=text))
    roles = {done.before.role, done.after.role}
    if ("" not in roles and "password text" not in roles) or only_references(params.text):
        call.reveal("text")  # an ordinary field, read as such (or only secrets' names)
    return acted_result(done)


class DesktopSelectParams(DesktopActParams):
    value: str = positional("the option's name")


@command("desktop.select", in_browser=False, acts=True, caps="desktop")
async def desktop_select(call: Call, params: DesktopSelectParams) -> DesktopActed:
    """Select an option of a desktop combo box or list by name; verified."""
    return acted_result(await _act(call, params, Want("select", value=params.value)))


@command("desktop.focus", in_browser=False, acts=True, caps="desktop")
async def desktop_focus(call: Call, params: DesktopActParams) -> DesktopActed:
    """Give a desktop element the keyboard focus; verified by its focused state."""
    return acted_result(await _act(call, params, Want("focus")))


class DesktopScrollParams(DesktopActParams):
    dy: int = Field(3, description="wheel steps down (negative: up)")
    dx: int = Field(0, description="wheel steps right (negative: left)")


@command("desktop.scroll", in_browser=False, acts=True, caps="desktop")
async def desktop_scroll(call: Call, params: DesktopScrollParams) -> DesktopActed:
    """Scroll the pane that holds a desktop element; verified by its scroll bars moving."""
    if not params.dx and not params.dy:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, "scroll by 0 steps", "give --dy N (down) or --dx N (right)"
        )
    return acted_result(await _act(call, params, Want("scroll", dx=params.dx, dy=params.dy)))


class DesktopDragParams(DesktopActParams):
    to: str = positional("where to drop: a desktop ref, a screen point 400,300, or +DX,+DY")


@command("desktop.drag", in_browser=False, acts=True, caps="desktop")
async def desktop_drag(call: Call, params: DesktopDragParams) -> DesktopActed:
    """Drag a desktop element (press, move, release: X input) to a ref, point or offset."""
    done = await call.runtime.desktop.drag(
        params.ref, params.to, call.deadline, allow_noop=params.allow_noop
    )
    return acted_result(done)


class DesktopMenuParams(NoopParams):
    path: str = positional("the menu item's path, levels separated by >: 'File > Save'")
    app: str | None = Field(None, description="the application (its name or pid)")


@command("desktop.menu", in_browser=False, acts=True, caps="desktop")
async def desktop_menu(call: Call, params: DesktopMenuParams) -> DesktopActed:
    """Choose a menu item by its path in an application's menu bar ('File > Save')."""
    done = await call.runtime.desktop.menu(
        params.path, params.app, call.deadline, allow_noop=params.allow_noop
    )
    return acted_result(done)


class DesktopPressParams(NoopParams):
    keys: str = positional("a key or combination: Return, ctrl+s, alt+F4, shift+Tab")
    ref: str | None = Field(None, description="focus this desktop element first")


class DesktopPressed(Result):
    keys: str
    transport: str = Field(description="xinput: keys are pressed on the X display")
    effect: str = Field(description=EFFECT)
    evidence: str = Field(description="what showed the effect")


@command("desktop.press", in_browser=False, acts=True, caps="desktop")
async def desktop_press(call: Call, params: DesktopPressParams) -> DesktopPressed:
    """Press a key combination on the desktop (X input), on an element when given."""
    route, effect, evidence = await call.runtime.desktop.press(
        params.keys, params.ref, call.deadline, allow_noop=params.allow_noop
    )
    return DesktopPressed(keys=params.keys, transport=route, effect=effect, evidence=evidence)


class DesktopSeeParams(Params):
    annotate: bool = Field(False, description="box and label every visible ref")
    app: str | None = Field(None, description="with --annotate: only this application's refs")
    path: str | None = file_path("where to write the PNG (default: the artifacts dir)")


class Boxed(Result):
    ref: str
    x: int
    y: int
    width: int
    height: int


class DesktopSeen(Result):
    path: str
    bytes: int
    boxes: list[Boxed] = Field(description="the refs drawn, with their boxes (screen pixels)")


@command("desktop.see", in_browser=False, reads_only=True, caps="desktop")
async def desktop_see(call: Call, params: DesktopSeeParams) -> DesktopSeen:
    """Save a PNG of the X screen; --annotate boxes and labels every visible ref."""
    png, boxes = await call.runtime.desktop.see(params.annotate, params.app, call.deadline)
    label = "annotated" if params.annotate else "screen"
    path = await call.output_path(
        params.path, "desktop.see", label=label, ext="png", folder="desktop"
    )
    await save_private(path, png)
    call.keep(path, "screenshot", label)
    return DesktopSeen(
        path=str(path),
        bytes=len(png),
        boxes=[Boxed(ref=r, x=b.x, y=b.y, width=b.width, height=b.height) for r, b in boxes],
    )


LOOPBACK = ("127.0.0.1", "localhost", "::1")


class DesktopAttachParams(Params):
    app: str = positional(
        "the application: its name or pid on the accessibility bus, or its CDP endpoint "
        "http://127.0.0.1:PORT"
    )


class DesktopAttached(Result):
    PAGE_TEXT: ClassVar[bool] = True
    session: str = Field(description="use it with the browser commands: --session NAME")
    endpoint: str
    pid: int | None = Field(description="the application's process, when found on the bus")
    tabs: list[TabInfo] = Field(description="its pages, as the session's tabs")


@command("desktop.attach", in_browser=False, timeout="medium", caps="desktop")
async def desktop_attach(call: Call, params: DesktopAttachParams) -> DesktopAttached:
    """Attach a Chromium or Electron app (its debugging port) as a browser session."""
    pid, endpoint = await _endpoint_of(call, params.app)
    session = await call.runtime.engine.attach(call.session_name, endpoint, call.deadline)
    return DesktopAttached(
        session=session.name, endpoint=endpoint, pid=pid, tabs=await tab_infos(session)
    )


async def _endpoint_of(call: Call, app: str) -> tuple[int | None, str]:
    """(pid, CDP endpoint) of an application named on the bus, or of an endpoint given."""
    if "://" in app:
        url = urlsplit(app)
        try:
            port = url.port
        except ValueError:  # not a number, or out of range
            port = None
        if url.scheme not in ("http", "ws") or url.hostname not in LOOPBACK or not port:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"{app!r} is not a debugging endpoint on this machine's loopback",
                "give http://127.0.0.1:PORT (a debugging port open to the network is not used)",
            )
        return None, f"http://{url.netloc}"
    found = [
        a
        for a in await call.runtime.desktop.apps(call.deadline)
        if app in (a["name"], str(a["pid"]))
    ]
    if not found:
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"no application {app!r} on the accessibility bus",
            "`desktop apps` lists them; or give its endpoint http://127.0.0.1:PORT",
        )
    for candidate in found:
        endpoint = await call.runtime.desktop.cdp.endpoint(candidate["pid"])
        if endpoint is not None:
            return int(candidate["pid"]), endpoint
    raise SteadyhandError(
        ErrorCode.NOT_ACTIONABLE,
        f"{app!r} (pid {', '.join(str(a['pid']) for a in found)}) has no debugging port on "
        "loopback",
        "start it with --remote-debugging-port=0 (Chromium, Electron) to attach to it",
    )
