"""Commands that load pages: open, navigate, back, forward, reload."""

from __future__ import annotations

import contextlib
from typing import Any, Literal

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, Field

from steadyhand.act.results import NavigationResult, navigation_result
from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, TabParams, command, positional
from steadyhand.engine import playwright_errors
from steadyhand.engine.emulation import given as emulation_given
from steadyhand.engine.endpoints import cdp_url
from steadyhand.engine.history import RestoredHistory, ours, where
from steadyhand.engine.nav_policy import NavPolicy
from steadyhand.engine.nav_proxy import url_refusal
from steadyhand.engine.session import Session, Tab
from steadyhand.engine.urls import normalize_url
from steadyhand.errors import ErrorCode, SteadyhandError

OLDEST_NAMED = 3  # tabs a refusal at the tab cap names, oldest first


class InlineSnapshot(BaseModel):
    """A command that loads a page can hand back what is on it, saving a round trip."""

    snapshot: bool | None = Field(
        None,
        description="also return the loaded page's interactive view (what can be acted "
        "on, with refs); default: on for MCP and LLM tools, off elsewhere",
    )


class LoadParams(TabParams, InlineSnapshot):
    pass


class OpenParams(Params, InlineSnapshot):
    url: str = positional("URL to open")
    profile: str | None = Field(
        None, description="open the session on this persistent profile (`profile create`)"
    )
    block_private: bool = Field(
        False, description="a new session: never loads private or loopback addresses"
    )
    allow_hosts: str | None = Field(
        None, description="a new session: loads only these hosts (comma-separated)"
    )
    block_hosts: str | None = Field(
        None, description="a new session: never loads these hosts (comma-separated)"
    )
    browser: str | None = Field(
        None,
        description="where a new session runs: local, auto, a browser_endpoints name, or an "
        "endpoint URL (http://HOST:PORT DevTools, ws://HOST:PORT/ Playwright server)",
    )
    cdp: str | None = Field(
        None,
        description="a new session runs on the Chromium at this DevTools endpoint (a local "
        "port, HOST:PORT or a URL)",
    )
    device: str | None = Field(
        None, description="a new session emulates this device: 'iPhone 13', 'Pixel 7'..."
    )
    user_agent: str | None = Field(None, description="a new session's user agent")
    locale: str | None = Field(None, description="a new session's locale (fr-FR)")
    timezone: str | None = Field(None, description="a new session's IANA timezone (Europe/Paris)")
    geolocation: str | None = Field(
        None, description="a new session is at LAT,LON[,ACCURACY] (permission granted)"
    )
    color_scheme: Literal["light", "dark", "no-preference"] | None = Field(
        None, description="a new session's colour scheme"
    )

    def place(self) -> str | None:
        """--browser, or --cdp as the DevTools URL it names."""
        if self.cdp and self.browser:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "--browser and --cdp both say where the session runs",
                "give one of them",
            )
        return cdp_url(self.cdp) if self.cdp else self.browser

    def emulation(self) -> dict[str, Any]:
        """What a session this starts emulates, as given (engine/emulation.py's spec)."""
        return emulation_given(
            device=self.device,
            user_agent=self.user_agent,
            locale=self.locale,
            timezone=self.timezone,
            geolocation=self.geolocation,
            color_scheme=self.color_scheme,
        )

    def rules(self) -> dict[str, Any]:
        """The session's own navigation rules (on top of the settings'), as given."""
        given = {"block_private": self.block_private, "allow": self.allow_hosts}
        return {k: v for k, v in (given | {"block": self.block_hosts}).items() if v}


def nav_policy(call: Call) -> NavPolicy:
    """The navigation policy of the command's session (the settings' without one)."""
    session = call.session_used
    if session is not None and session.proxy is not None:
        return session.proxy.policy
    return NavPolicy.from_settings(call.runtime.settings)


async def refuse_blocked(call: Call, url: str) -> None:
    """`policy_denied` when the session's navigation policy refuses the URL (before a tab
    is opened for it)."""
    refusal = await url_refusal(nav_policy(call), url)
    if refusal is not None:
        raise refusal.error(f"loading {url}")


async def goto(call: Call, tab: Tab, url: str) -> NavigationResult:
    """Load an already normalized (and policy-checked) URL in the tab and wait for its
    load event."""
    try:
        response = await tab.page.goto(url, wait_until="load", timeout=call.remaining_ms())
    except PlaywrightError as exc:
        if playwright_errors.load_failed(str(exc)):
            # Chromium commits its error page right after a failed load; let it land so
            # the next navigation of this tab is not interrupted by it.
            with contextlib.suppress(PlaywrightError):
                await tab.page.wait_for_url(
                    lambda u: u.startswith("chrome-error:"), timeout=min(1000, call.remaining_ms())
                )
        raise
    return await navigation_result(tab, response)


async def open_tab(call: Call, session: Session) -> Tab:
    """A new tab in the session, within the `max_tabs` setting."""
    cap = call.runtime.settings.max_tabs
    if len(session.tabs) >= cap:
        oldest = list(session.tabs.values())[:OLDEST_NAMED]
        named = ", ".join(f"{t.id} {t.page.url}" for t in oldest)
        raise SteadyhandError(
            ErrorCode.POLICY_DENIED,
            f"session {session.name!r} has {len(session.tabs)} tabs open, the most the "
            f"max_tabs setting allows ({cap}); oldest: {named}",
            f"close one (`tab close {oldest[0].id}`), load the page in a tab you have "
            "(`navigate URL --tab ID`), or raise max_tabs",
            {"max_tabs": cap, "oldest": [t.id for t in oldest]},
        )
    return await session.new_tab()


@command("open", creates_session=True, timeout="long", navigates=True)
async def open_(call: Call, params: OpenParams) -> NavigationResult:
    """Open a URL in a new tab (starting the session if needed)."""
    url = normalize_url(params.url)
    session = await call.session(
        create=True,
        profile=params.profile,
        rules=params.rules(),
        browser=params.place(),
        emulation=params.emulation(),
    )
    await refuse_blocked(call, url)
    blank = [t for t in session.tabs.values() if t.page.url == "about:blank"]
    tab = blank[0] if len(session.tabs) == 1 and blank else await open_tab(call, session)
    call.tab_id = session.tab(tab.id).id
    return await with_snapshot(call, params, await goto(call, tab, url))


class NavigateParams(LoadParams):
    url: str = positional("URL to load in the tab")


@command("navigate", creates_session=True, timeout="long", navigates=True)
async def navigate(call: Call, params: NavigateParams) -> NavigationResult:
    """Load a URL in the current tab (opening a tab if the session has none)."""
    url = normalize_url(params.url)
    session = await call.session(create=True)
    await refuse_blocked(call, url)
    if params.tab is None and not session.has_tabs():
        await open_tab(call, session)
    return await with_snapshot(call, params, await goto(call, await call.tab(params.tab), url))


async def _complete(tab: Tab) -> bool:
    """Whether the tab's document has loaded (False while it cannot tell: still moving)."""
    try:
        return bool(await tab.page.evaluate("document.readyState === 'complete'"))
    except PlaywrightError:
        return False


async def history_step(call: Call, tab: Tab, step: Literal["back", "forward"]) -> NavigationResult:
    if step == "back":
        now = await where(tab.page)
        if now is not None and tab.restored is not None and now.index <= tab.restored.floor:
            return await back_past_restore(call, tab, tab.restored)
        if now is not None and not any(ours(url) for url in now.urls[: now.index]):
            # Only the tab's blank start (or a restore's seed page) is behind: no page.
            return await navigation_result(tab, None, navigated=False)
    before = tab.page.url
    move = tab.page.go_back if step == "back" else tab.page.go_forward
    # Committed, then the document complete: a page restored from the back-forward cache
    # (a browser we did not launch keeps it on) fires no load event to wait for.
    response = await move(wait_until="commit", timeout=call.remaining_ms())
    if not await _complete(tab):  # a page still loading: its load event comes
        await tab.page.wait_for_load_state("load", timeout=call.remaining_ms())
    return await navigation_result(tab, response, tab.page.url != before or response is not None)


async def back_past_restore(call: Call, tab: Tab, restored: RestoredHistory) -> NavigationResult:
    """`back` from the page a crash recovery restored: the browser's history before it is
    gone (only the blank and seed pages are behind it), so the checkpoint's is used."""
    if not restored.back:
        done = await navigation_result(tab, None, navigated=False)
        done.history = "restored after a crash: no page before this one was saved"
        return done
    url = restored.back[-1]
    response = await tab.page.goto(url, wait_until="load", timeout=call.remaining_ms())
    now = await where(tab.page)
    if now is not None:  # the page loaded is the new floor; what is left is behind it
        tab.restored = RestoredHistory(now.index, restored.back[:-1])
    done = await navigation_result(tab, response)
    done.history = "restored after a crash: back loaded the page saved before this one"
    return done


@command("back", timeout="long", changes_page=True)
async def back(call: Call, params: LoadParams) -> NavigationResult:
    """Go back one page in the tab's history (navigated=false when there is none)."""
    done = await history_step(call, await call.tab(params.tab), "back")
    return await with_snapshot(call, params, done)


@command("forward", timeout="long", changes_page=True)
async def forward(call: Call, params: LoadParams) -> NavigationResult:
    """Go forward one page in the tab's history (navigated=false when there is none)."""
    done = await history_step(call, await call.tab(params.tab), "forward")
    return await with_snapshot(call, params, done)


@command("reload", timeout="long")
async def reload(call: Call, params: LoadParams) -> NavigationResult:
    """Reload the tab's page."""
    tab = await call.tab(params.tab)
    response = await tab.page.reload(wait_until="load", timeout=call.remaining_ms())
    return await with_snapshot(call, params, await navigation_result(tab, response))


async def with_snapshot(
    call: Call, params: InlineSnapshot, done: NavigationResult
) -> NavigationResult:
    """The result, with the page's interactive view when `snapshot` asks for it: read as
    `snapshot --interactive` reads it (its refs, its baseline for diffs, its parts)."""
    if not params.snapshot:
        return done
    # Here, not at the top: the table lists commands in the order their modules load.
    from steadyhand.commands.snapshots import SnapshotParams, snapshot

    view = await snapshot(
        call, SnapshotParams(session=call.session_name, tab=done.tab, interactive=True)
    )
    return done.model_copy(update={"snapshot": view.snapshot, "title": view.title})


class PolicyResult(Result):
    session: str | None = Field(None, description="the session the rules are of")
    rules: list[str] = Field(description="what may be loaded (the navigation policy)")
    own_rules: dict[str, Any] = Field(
        default_factory=dict, description="the session's tightening, given when it started"
    )
    blocked: list[dict[str, str]] = Field(
        default_factory=list, description="the session's latest refused connections"
    )


@command(
    "policy",
    reads_only=True,
    touches_page=False,
    needs_session=False,
    timeout="short",
    caps="observe",
)
async def policy(call: Call, params: Params) -> PolicyResult:
    """Show the navigation policy of a session (or the daemon's) and what it refused."""
    session = call.engine.pool.get(call.session_name)
    if session is None or session.proxy is None:
        rules = NavPolicy.from_settings(call.runtime.settings)
        return PolicyResult(rules=rules.describe())
    return PolicyResult(
        session=session.name,
        rules=session.proxy.policy.describe(),
        own_rules=session.own_rules,
        blocked=[b.shown() for b in session.proxy.refusals],
    )
