"""THE command table. Each command is defined once, here: name, params, result, handler, doc.

Every front (CLI, JSON-RPC, and later HTTP, MCP and tool schemas) is generated from
COMMANDS. A handler's params and result models are read from its annotations and its
doc is the first line of its docstring, so adding a command means writing one function.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, get_type_hints

from playwright.async_api import ElementHandle, Response
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from steadyhand import __version__
from steadyhand.actions.resolve import element
from steadyhand.call import Call
from steadyhand.engine.session import Session, Tab
from steadyhand.engine.urls import normalize_url
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.aria import PASSWORD_VALUES_JS, mask_values

# ---------------------------------------------------------------- the table's machinery


class Params(BaseModel):
    """Fields every command takes."""

    model_config = ConfigDict(extra="forbid")

    session: str = Field("default", description="session to act in")
    timeout_ms: int | None = Field(
        None,
        ge=1,
        le=600_000,
        description="deadline for the whole command, in milliseconds",
        json_schema_extra={"flag": "timeout"},
    )


class TabParams(Params):
    tab: str | None = Field(None, description="tab id (default: the last tab used)")


class Result(BaseModel):
    model_config = ConfigDict(extra="forbid")


P = TypeVar("P", bound=Params)
R = TypeVar("R", bound=Result)
Handler = Callable[[Call, Any], Awaitable[Result]]


@dataclass(frozen=True)
class Command:
    name: str  # dotted: "tab.new" is `steadyhand tab new` and JSON-RPC method "tab.new"
    params: type[Params]
    result: type[Result]
    handler: Handler
    doc: str
    touches_page: bool  # writes an action_log row
    creates_session: bool  # may start the session it names
    autostart: bool  # calling it from the CLI starts the daemon when none runs
    sensitive: tuple[str, ...]  # params redacted unless the handler proves them harmless


COMMANDS: dict[str, Command] = {}


def command(
    name: str, *, touches_page: bool = True, creates_session: bool = False, autostart: bool = True
) -> Callable[[Callable[[Call, P], Awaitable[R]]], Callable[[Call, P], Awaitable[R]]]:
    """Register a handler; its annotations give the params and result models."""

    def register(handler: Callable[[Call, P], Awaitable[R]]) -> Callable[[Call, P], Awaitable[R]]:
        hints = get_type_hints(handler)
        doc = (inspect.getdoc(handler) or "").splitlines()
        if not doc:
            raise TypeError(f"command {name} needs a docstring")
        params: type[Params] = hints["params"]
        COMMANDS[name] = Command(
            name=name,
            params=params,
            result=hints["return"],
            handler=handler,
            doc=doc[0],
            touches_page=touches_page,
            creates_session=creates_session,
            autostart=autostart,
            sensitive=sensitive_fields(params),
        )
        return handler

    return register


def positional(description: str, default: Any = ..., sensitive: bool = False) -> Any:
    """A field given on the CLI without a flag, in declaration order.

    `sensitive`: it may carry a secret (text typed into a field), so it is redacted from
    the log and the store unless the handler shows it went somewhere harmless.
    """
    extra: dict[str, JsonValue] = {"positional": True, "sensitive": sensitive}
    return Field(default, description=description, json_schema_extra=extra)


def sensitive_fields(params: type[Params]) -> tuple[str, ...]:
    """Params declared `sensitive`: redacted whole until a handler reveals them."""
    return tuple(
        name
        for name, field in params.model_fields.items()
        if isinstance(field.json_schema_extra, dict) and field.json_schema_extra.get("sensitive")
    )


def file_path(description: str) -> Any:
    """A filesystem path: the CLI makes it absolute before sending it to the daemon."""
    return Field(None, description=description, json_schema_extra={"file_path": True})


# ---------------------------------------------------------------- shared results


class TabInfo(Result):
    id: str
    url: str
    title: str
    current: bool


class PageResult(Result):
    """Where a tab is after a command."""

    tab: str
    url: str
    title: str


class NavigationResult(PageResult):
    status: int | None = Field(None, description="HTTP status of the main document")
    navigated: bool = True


class ActionResult(PageResult):
    action: str
    ref: str | None = None
    navigated: bool = Field(False, description="the action changed the tab's URL")
    detail: dict[str, Any] = Field(default_factory=dict)


async def page_result(tab: Tab) -> dict[str, str]:
    return {"tab": tab.id, "url": tab.page.url, "title": await tab.page.title()}


async def navigation_result(
    tab: Tab, response: Response | None, navigated: bool = True
) -> NavigationResult:
    status = response.status if response else None
    return NavigationResult(**await page_result(tab), status=status, navigated=navigated)


async def action_result(
    tab: Tab, action: str, ref: str | None, url_before: str, **detail: Any
) -> ActionResult:
    where = await page_result(tab)
    return ActionResult(
        **where, action=action, ref=ref, navigated=where["url"] != url_before, detail=detail
    )


TITLE_WAIT_S = 1.0
NOT_RESPONDING = "(not responding)"


async def title_or_busy(tab: Tab) -> str:
    """The tab's title, without letting one hung page stall a listing of many."""
    try:
        return await asyncio.wait_for(tab.page.title(), TITLE_WAIT_S)
    except (TimeoutError, PlaywrightError):
        return NOT_RESPONDING


async def tab_infos(session: Session) -> list[TabInfo]:
    current = session.current_tab_id
    tabs = list(session.tabs.values())  # a popup may be adopted while we await titles
    titles = await asyncio.gather(*(title_or_busy(t) for t in tabs))
    return [
        TabInfo(id=t.id, url=t.page.url, title=title, current=t.id == current)
        for t, title in zip(tabs, titles, strict=True)
    ]


# ---------------------------------------------------------------- daemon and sessions


class DaemonStatus(Result):
    version: str
    pid: int
    uptime_s: float
    state_dir: str
    browser_running: bool
    headless: bool
    chromium: str
    sessions: list[str]


@command("daemon.status", touches_page=False, autostart=False)
async def daemon_status(call: Call, params: Params) -> DaemonStatus:
    """Report the daemon's pid, uptime, browser and sessions."""
    rt = call.runtime
    return DaemonStatus(
        version=__version__,
        pid=rt.pid,
        uptime_s=round(time.time() - rt.started_at, 3),
        state_dir=str(rt.settings.state_dir),
        browser_running=rt.engine.browser_running,
        headless=rt.settings.headless,
        chromium=f"{rt.engine.chromium_path} {rt.engine.chromium_version}".strip(),
        sessions=[s.name for s in rt.engine.sessions()],
    )


class Stopping(Result):
    stopping: bool


@command("daemon.stop", touches_page=False, autostart=False)
async def daemon_stop(call: Call, params: Params) -> Stopping:
    """Stop the daemon: close every session and the browser, then exit."""
    call.runtime.stop_requested.set()
    return Stopping(stopping=True)


class SessionInfo(Result):
    name: str
    tabs: list[TabInfo]
    created_at: float


class SessionList(Result):
    sessions: list[SessionInfo]


@command("sessions", touches_page=False)
async def sessions(call: Call, params: Params) -> SessionList:
    """List live sessions and their tabs."""
    return SessionList(
        sessions=[
            SessionInfo(name=s.name, tabs=await tab_infos(s), created_at=s.created_at)
            for s in call.engine.sessions()
        ]
    )


class Closed(Result):
    closed: str


@command("close")
async def close(call: Call, params: Params) -> Closed:
    """Close the session: its tabs, cookies and storage are gone."""
    await call.engine.close_session(call.session_name)
    return Closed(closed=call.session_name)


# ---------------------------------------------------------------- navigation


class OpenParams(Params):
    url: str = positional("URL to open")


async def goto(call: Call, tab: Tab, url: str) -> NavigationResult:
    """Load an already normalized URL in the tab and wait for its load event."""
    try:
        response = await tab.page.goto(url, wait_until="load", timeout=call.remaining_ms())
    except PlaywrightError as exc:
        if "net::ERR_" in str(exc):
            # Chromium commits its error page right after a failed load; let it land so
            # the next navigation of this tab is not interrupted by it.
            with contextlib.suppress(PlaywrightError):
                await tab.page.wait_for_url(
                    lambda u: u.startswith("chrome-error:"), timeout=min(1000, call.remaining_ms())
                )
        raise
    return await navigation_result(tab, response)


@command("open", creates_session=True)
async def open_(call: Call, params: OpenParams) -> NavigationResult:
    """Open a URL in a new tab (starting the session if needed)."""
    url = normalize_url(params.url)
    session = await call.session(create=True)
    blank = [t for t in session.tabs.values() if t.page.url == "about:blank"]
    tab = blank[0] if len(session.tabs) == 1 and blank else await session.new_tab()
    call.tab_id = session.tab(tab.id).id
    return await goto(call, tab, url)


class NavigateParams(TabParams):
    url: str = positional("URL to load in the tab")


@command("navigate", creates_session=True)
async def navigate(call: Call, params: NavigateParams) -> NavigationResult:
    """Load a URL in the current tab (opening a tab if the session has none)."""
    url = normalize_url(params.url)
    session = await call.session(create=True)
    if params.tab is None and not session.has_tabs():
        await session.new_tab()
    return await goto(call, await call.tab(params.tab), url)


async def history_step(call: Call, tab: Tab, step: Literal["back", "forward"]) -> NavigationResult:
    before = tab.page.url
    move = tab.page.go_back if step == "back" else tab.page.go_forward
    response = await move(wait_until="load", timeout=call.remaining_ms())
    return await navigation_result(tab, response, tab.page.url != before or response is not None)


@command("back")
async def back(call: Call, params: TabParams) -> NavigationResult:
    """Go back one page in the tab's history (navigated=false when there is none)."""
    return await history_step(call, await call.tab(params.tab), "back")


@command("forward")
async def forward(call: Call, params: TabParams) -> NavigationResult:
    """Go forward one page in the tab's history (navigated=false when there is none)."""
    return await history_step(call, await call.tab(params.tab), "forward")


@command("reload")
async def reload(call: Call, params: TabParams) -> NavigationResult:
    """Reload the tab's page."""
    tab = await call.tab(params.tab)
    response = await tab.page.reload(wait_until="load", timeout=call.remaining_ms())
    return await navigation_result(tab, response)


# ---------------------------------------------------------------- snapshot


class SnapshotParams(TabParams):
    depth: int | None = Field(None, ge=1, description="only this many levels of the tree")


class SnapshotResult(PageResult):
    snapshot: str
    refs: int = Field(description="how many refs the snapshot hands out")


@command("snapshot")
async def snapshot(call: Call, params: SnapshotParams) -> SnapshotResult:
    """The tab's accessibility tree as text; act on elements by their [ref=eN]."""
    tab = await call.tab(params.tab)
    for _attempt in range(3):
        document = await tab.document_id()
        text = await tab.page.aria_snapshot(
            mode="ai", depth=params.depth, timeout=call.remaining_ms()
        )
        # A navigation between the two reads would tie refs to the wrong document.
        if await tab.document_id() == document:
            break
    else:
        raise SteadyhandError(
            ErrorCode.NAVIGATION_FAILED,
            "the page kept navigating while it was being read",
            "wait for the page to settle, then snapshot again",
        )
    nodes = tab.refs.record(text, document)
    text = mask_values(text, await password_values(tab))
    return SnapshotResult(**await page_result(tab), snapshot=text, refs=len(nodes))


async def password_values(tab: Tab) -> set[str]:
    """Values of password fields in every frame, so snapshots never show them."""
    values: set[str] = set()
    for frame in tab.page.frames:
        try:
            values.update(await frame.evaluate(PASSWORD_VALUES_JS))
        except PlaywrightError:
            continue  # a frame that navigated away or is cross-process and gone
    return values


# ---------------------------------------------------------------- acting on refs


class RefParams(TabParams):
    ref: str = positional("element ref from a snapshot, e.g. e12")


async def act_on_ref(
    call: Call,
    params: RefParams,
    action: str,
    do: Callable[[ElementHandle], Awaitable[dict[str, Any] | None]],
) -> ActionResult:
    """Resolve the ref, act on that very element, report where the tab is afterwards."""
    tab = await call.tab(params.tab)
    before = tab.page.url
    async with element(tab, params.ref) as target:
        detail = await do(target)
    return await action_result(tab, action, params.ref, before, **(detail or {}))


class ClickParams(RefParams):
    double: bool = Field(False, description="double-click")
    button: Literal["left", "right", "middle"] = Field("left", description="mouse button")


@command("click")
async def click(call: Call, params: ClickParams) -> ActionResult:
    """Click an element by ref."""

    async def do(target: ElementHandle) -> None:
        clicks = 2 if params.double else 1
        await target.click(button=params.button, click_count=clicks, timeout=call.remaining_ms())

    return await act_on_ref(call, params, "click", do)


# True unless the field Playwright will type into (the element, or the control of the
# <label> it sits in) is known to hold ordinary text. Unknown means "may be a secret".
MAY_BE_SECRET = """e => {
  let t = e;
  const editable = x => x instanceof HTMLInputElement || x instanceof HTMLTextAreaElement
    || x instanceof HTMLSelectElement || x.isContentEditable;
  if (!editable(t)) t = t.closest('label')?.control ?? t;
  const ac = (t.getAttribute('autocomplete') || '').toLowerCase();
  if (ac.includes('password') || ac.includes('one-time-code')) return true;
  if (t instanceof HTMLTextAreaElement || (t.isContentEditable && !(t instanceof HTMLInputElement)))
    return false;
  if (t instanceof HTMLInputElement)
    return !['text', 'search', 'email', 'url', 'tel', 'number'].includes(t.type);
  return true;
}"""


class TypeParams(RefParams):
    text: str = positional("text to put in the field (replaces what is there)", sensitive=True)
    submit: bool = Field(False, description="press Enter afterwards")
    slowly: bool = Field(False, description="type key by key instead of filling at once")


@command("type")
async def type_(call: Call, params: TypeParams) -> ActionResult:
    """Type text into a field by ref, replacing its value; --submit presses Enter."""

    async def do(target: ElementHandle) -> dict[str, Any]:
        if not await target.evaluate(MAY_BE_SECRET):
            call.reveal("text")
        if params.slowly:
            await target.fill("", timeout=call.remaining_ms())
            await target.type(params.text, delay=30, timeout=call.remaining_ms())
        else:
            await target.fill(params.text, timeout=call.remaining_ms())
        if params.submit:
            await target.press("Enter", timeout=call.remaining_ms())
        return {"submitted": params.submit}

    return await act_on_ref(call, params, "type", do)


class FillParams(TabParams):
    fields: dict[str, str] = positional("REF=VALUE pairs, one per field", sensitive=True)


@command("fill")
async def fill(call: Call, params: FillParams) -> ActionResult:
    """Fill several fields at once: REF=VALUE for each."""
    if not params.fields:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, "fill needs at least one field", "give REF=VALUE pairs"
        )
    call.reveal("fields")
    for ref in params.fields:
        call.redact("fields", ref)  # until its field is known to hold ordinary text
    tab = await call.tab(params.tab)
    before = tab.page.url
    async with contextlib.AsyncExitStack() as stack:
        # Resolve every ref before typing anything, so a bad ref changes nothing.
        targets = {ref: await stack.enter_async_context(element(tab, ref)) for ref in params.fields}
        for ref, target in targets.items():
            if not await target.evaluate(MAY_BE_SECRET):
                call.reveal("fields", ref)
            await target.fill(params.fields[ref], timeout=call.remaining_ms())
    return await action_result(tab, "fill", None, before, filled=list(params.fields))


class PressParams(TabParams):
    key: str = positional("key or combination, e.g. Enter, Control+a, ArrowDown")
    ref: str | None = Field(None, description="focus this element first")


@command("press")
async def press(call: Call, params: PressParams) -> ActionResult:
    """Press a key or key combination, on an element or the focused one."""
    tab = await call.tab(params.tab)
    before = tab.page.url
    try:
        if params.ref:
            async with element(tab, params.ref) as target:
                await target.press(params.key, timeout=call.remaining_ms())
        else:
            await tab.page.keyboard.press(params.key)
    except PlaywrightError as exc:
        if "Unknown key" in str(exc):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"unknown key {params.key!r}",
                "use names like Enter, Tab, Escape, ArrowDown, Control+a, Shift+Tab",
            ) from exc
        raise
    return await action_result(tab, "press", params.ref, before, key=params.key)


class SelectParams(RefParams):
    values: list[str] = positional("option value(s) or label(s) to select")


# For a <select>: which wanted values match no option's value or label, and the labels.
SELECT_CHECK = """(e, wanted) => {
  const s = e instanceof HTMLSelectElement ? e : e.closest('label')?.control;
  if (!(s instanceof HTMLSelectElement)) return null;
  const opts = Array.from(s.options, o => [o.value, o.label]);
  return {
    missing: wanted.filter(w => !opts.some(([v, l]) => v === w || l === w)),
    labels: opts.map(o => o[1]),
  };
}"""


@command("select")
async def select(call: Call, params: SelectParams) -> ActionResult:
    """Select option(s) in a <select> by value or label."""

    async def do(target: ElementHandle) -> dict[str, Any]:
        check = await target.evaluate(SELECT_CHECK, params.values)
        if check and check["missing"]:
            shown = ", ".join(repr(label) for label in check["labels"][:30])
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"no option {', '.join(map(repr, check['missing']))} in {params.ref}",
                f"options (by label): {shown}",
            )
        selected = await target.select_option(params.values, timeout=call.remaining_ms())
        return {"selected": selected}

    return await act_on_ref(call, params, "select", do)


@command("check")
async def check(call: Call, params: RefParams) -> ActionResult:
    """Check a checkbox or radio button by ref."""

    async def do(target: ElementHandle) -> dict[str, Any]:
        await target.check(timeout=call.remaining_ms())
        return {"checked": True}

    return await act_on_ref(call, params, "check", do)


@command("uncheck")
async def uncheck(call: Call, params: RefParams) -> ActionResult:
    """Uncheck a checkbox by ref."""

    async def do(target: ElementHandle) -> dict[str, Any]:
        await target.uncheck(timeout=call.remaining_ms())
        return {"checked": False}

    return await act_on_ref(call, params, "uncheck", do)


@command("hover")
async def hover(call: Call, params: RefParams) -> ActionResult:
    """Move the mouse over an element by ref."""

    async def do(target: ElementHandle) -> None:
        await target.hover(timeout=call.remaining_ms())

    return await act_on_ref(call, params, "hover", do)


# ---------------------------------------------------------------- screenshots


class ScreenshotParams(TabParams):
    ref: str | None = Field(None, description="only this element")
    full_page: bool = Field(False, description="the whole scrollable page, not the viewport")
    path: str | None = file_path("where to write the PNG (default: the artifacts dir)")


class ScreenshotResult(PageResult):
    path: str
    bytes: int


CAPTURE_TRIES = 4


async def capture_page(call: Call, tab: Tab, path: Path, full_page: bool) -> bytes:
    """A PNG of the page; retried briefly while a headed window has no frame to capture yet.

    A headed Chromium (on Xvfb, say) answers "Unable to capture screenshot" until its
    window has painted once; that clears within a few hundred milliseconds.
    """
    for attempt in range(1, CAPTURE_TRIES + 1):
        try:
            return await tab.page.screenshot(
                path=path, full_page=full_page, timeout=call.remaining_ms()
            )
        except PlaywrightError as exc:
            if "Unable to capture screenshot" not in str(exc) or attempt == CAPTURE_TRIES:
                raise
            await asyncio.sleep(0.15 * attempt)
    raise AssertionError("unreachable")


@command("screenshot")
async def screenshot(call: Call, params: ScreenshotParams) -> ScreenshotResult:
    """Save a PNG of the tab (or one element) and return its path."""
    tab = await call.tab(params.tab)
    if params.path is not None:
        path = Path(params.path)
        if not path.is_absolute():
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"screenshot path {params.path!r} is relative",
                "give an absolute path (the daemon's working directory is not yours)",
            )
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{time.time_ns() % 1_000_000:06d}"
        path = call.runtime.settings.artifacts_dir / call.session_name / f"{stamp}-{tab.id}.png"
    await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True, mode=0o700)
    if params.ref:
        async with element(tab, params.ref) as target:
            png = await target.screenshot(path=path, timeout=call.remaining_ms())
    else:
        png = await capture_page(call, tab, path, params.full_page)
    return ScreenshotResult(**await page_result(tab), path=str(path), bytes=len(png))


# ---------------------------------------------------------------- tabs


class TabList(Result):
    tabs: list[TabInfo]


@command("tabs", touches_page=False)
async def tabs(call: Call, params: Params) -> TabList:
    """List the session's tabs; the current one is marked."""
    return TabList(tabs=await tab_infos(await call.session()))


class TabNewParams(Params):
    url: str | None = positional("URL to open in the new tab", None)


@command("tab.new", creates_session=True)
async def tab_new(call: Call, params: TabNewParams) -> NavigationResult:
    """Open a new tab (blank, or at a URL) and make it current."""
    url = normalize_url(params.url) if params.url else None
    session = await call.session(create=True)
    tab = await session.new_tab()
    call.tab_id = tab.id
    if url is None:
        return await navigation_result(tab, None, navigated=False)
    return await goto(call, tab, url)


class TabIdParams(Params):
    tab: str = positional("tab id, e.g. t2")


@command("tab.focus")
async def tab_focus(call: Call, params: TabIdParams) -> PageResult:
    """Make a tab the current one and bring it to the front."""
    tab = await call.tab(params.tab)
    await tab.page.bring_to_front()
    return PageResult(**await page_result(tab))


class TabCloseParams(Params):
    tab: str | None = positional("tab id (default: the current tab)", None)


@command("tab.close")
async def tab_close(call: Call, params: TabCloseParams) -> TabList:
    """Close a tab; the most recent remaining tab becomes current."""
    tab = await call.tab(params.tab)
    session = await call.session()
    await tab.page.close()
    session.forget(tab.id)
    return TabList(tabs=await tab_infos(session))
