"""The Engine owns the Playwright driver, the shared Chromium, the pool and recovery.

Session lifecycle (statuses as the store keeps them):

    active ──suspend / daemon stop──> suspended ──restore──> active
    active ──close──> closed (checkpoints deleted)
    active ──browser crash, hung page──> (recovering) ──> active, or lost when no checkpoint

A recovered session's next command reports `recovered`: the checkpoint it came from, what
was restored and what was lost. Nothing is silently replaced by a blank page.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Browser, BrowserContext, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from steadyhand.config import Settings, check_session_name
from steadyhand.engine.checkpoint import capture, restore_tabs, seed_profile, storage_state
from steadyhand.engine.chromium import find_chromium, launch_args
from steadyhand.engine.emulation import (
    AT_START,
    FLAGS,
    check,
    conflicts,
    context_options,
    describe,
    flag,
)
from steadyhand.engine.endpoints import (
    AUTO,
    LOCAL,
    Endpoint,
    address_towards,
    adhoc,
    least_loaded,
    parse_endpoints,
)
from steadyhand.engine.health import HealthMonitor
from steadyhand.engine.nav_policy import NavPolicy
from steadyhand.engine.nav_proxy import NavProxy
from steadyhand.engine.page_events import named_as_artifacts, named_in
from steadyhand.engine.pool import Pool
from steadyhand.engine.profiles import Profiles
from steadyhand.engine.remote import RemoteBrowsers
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError, first_line
from steadyhand.redact import redact_url
from steadyhand.store.artifacts import artifact_path
from steadyhand.store.base import Checkpoint, Store

# Chromium's proxy bypass: loopback reached directly. Chromium bypasses link-local
# addresses too unless told `<-loopback>` (which also takes loopback away from the
# implicit rules): so that, then loopback named again.
LOOPBACK_BYPASS = "<-loopback>,localhost,*.localhost,127.0.0.1/8,[::1]"
log = logging.getLogger("steadyhand.engine")

CHECKPOINT_TIMEOUT_S = 5.0
RESTORE_TAB_TIMEOUT_MS = 15_000.0


class Engine:
    """Browsers and sessions for one process. Launches Chromium on first use."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        prepare_context: Callable[[BrowserContext], Awaitable[None]],
    ) -> None:
        self.settings = settings
        self.store = store
        self.profiles = Profiles(settings.profiles_dir)
        self.pool = Pool(self._open_session, settings.max_sessions, settings.pool_wait_ms)
        self.health = HealthMonitor(self)
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._closing = False
        self._lock = asyncio.Lock()  # one browser launch at a time
        self._suspended: set[str] = set()
        self._restoring_on_use: dict[str, asyncio.Task[dict[str, Any]]] = {}
        self._lost: dict[str, str] = {}  # session -> why it could not be recovered
        # Asked (session, host) before a session's browser connects to an allowed host:
        # None to go on, else why not. The runtime sets it to the approval gate's.
        self.connection_gate: Callable[[str, str], Awaitable[str | None]] | None = None
        # Run on every context the engine opens, before its first page: the page model's
        # install (snapshot/page_model.py, given by runtime.open_engine), so that its script
        # runs in every document before the page's own. The engine does not import it: the
        # snapshot layer sits above the engine.
        self.prepare_context = prepare_context
        self._recovering: dict[str, asyncio.Task[Any]] = {}  # recoveries and restores
        self.recoveries = 0
        self.chromium_path = ""
        self.chromium_version = ""
        # Browsers we connect to rather than launch (engine/endpoints.py).
        self.endpoints = parse_endpoints(settings.browser_endpoints)
        self._adhoc: dict[str, Endpoint] = {}  # `open --browser URL` / `--cdp`
        self.remote = RemoteBrowsers(self._on_endpoint_lost)
        self.check_browser(settings.default_browser, "setting default_browser")

    # ----------------------------------------------------------------- browsers

    @property
    def browser_running(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    async def playwright(self) -> Playwright:
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        return self._playwright

    def _check_display(self) -> None:
        if not self.settings.headless and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        ):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "a headed browser needs a display and this daemon has none",
                "set DISPLAY (for example run Xvfb :99 and export DISPLAY=:99) before "
                "`steadyhand daemon start --headed`, or run headless",
            )

    async def browser(self) -> Browser:
        """The shared browser of throwaway sessions, launched (again) when needed."""
        async with self._lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            path = find_chromium(self.settings.chromium)
            self._check_display()
            playwright = await self.playwright()
            try:
                self._browser = await playwright.chromium.launch(
                    executable_path=str(path),
                    headless=self.settings.headless,
                    args=launch_args(self.settings.state_dir),
                )
            except Exception as exc:
                raise _launch_failed(path, exc) from exc
            self._browser.on("disconnected", self._on_disconnect)
            self.chromium_path = str(path)
            self.chromium_version = self._browser.version
            log.info("launched Chromium %s from %s", self.chromium_version, path)
            return self._browser

    def _on_disconnect(self, browser: Browser) -> None:
        if browser is self._browser:
            self._browser = None
            if not self._closing:
                log.warning("the browser disconnected (crash or kill)")

    # ----------------------------------------------------------------- endpoints

    def check_browser(self, where: str, what: str = "--browser") -> None:
        """bad_request unless `where` is local, auto, a configured endpoint or a URL."""
        if where in (LOCAL, AUTO) or where in self.endpoints or "://" in where:
            if "://" in where:
                adhoc(where)  # bad_request for a URL that is no endpoint
            return
        known = ", ".join([LOCAL, AUTO, *self.endpoints])
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{what}: no browser endpoint named {where!r}",
            f"known: {known} (setting browser_endpoints), or a URL (http://HOST:PORT for a "
            "DevTools endpoint, ws://HOST:PORT/ for a Playwright server)",
        )

    def endpoint(self, where: str) -> Endpoint | None:
        """The endpoint a session placed at `where` (a place's name, or a URL) runs on; None
        for the local Chromium."""
        if where == LOCAL:
            return None
        known = self.endpoints.get(where) or self._adhoc.get(where)
        if known is not None:
            return known
        made = adhoc(where)
        return self._adhoc.setdefault(made.name, made)

    def place_of(self, where: str) -> str:
        """The name a session placed at `where` is listed under."""
        endpoint = self.endpoint(where)
        return LOCAL if endpoint is None else endpoint.name

    def load(self) -> dict[str, int]:
        """Live sessions per place (local, endpoint name or URL)."""
        counts: dict[str, int] = {}
        for session in self.pool.sessions():
            counts[session.browser_name] = counts.get(session.browser_name, 0) + 1
        return counts

    def endpoint_lines(self) -> list[str]:
        """One line per endpoint (configured, or used by URL): where, and how it is now."""
        load = self.load()
        lines = []
        for name, endpoint in (self.endpoints | self._adhoc).items():
            linked = "connected" if self.remote.connected(name) else "not connected"
            where = "" if name == endpoint.where else f" {endpoint.where}"
            lines.append(f"{name} ({endpoint.kind}){where}: {linked}, {load.get(name, 0)} live")
        return lines

    def _places(self, state: dict[str, Any] | None, profile: str | None) -> list[str]:
        """Where to open a session, in the order to try.

        A new session goes where it was asked (`browser`), else by default_browser ("auto":
        the least loaded of local and every endpoint). A session coming back from a
        checkpoint tries where it ran last, and fails over to the others: the other
        endpoints, least loaded first, then the local Chromium; when it comes back because
        its endpoint died, or when this daemon does not know it (another daemon's endpoint,
        a URL of another life), that one is tried last. A profile lives on this disk: local.
        """
        state = state or {}
        if profile is not None:  # `--browser ENDPOINT --profile` is refused by _open_at
            asked = state.get("browser")
            return [asked] if asked not in (None, AUTO, LOCAL) and "tabs" not in state else [LOCAL]
        load = self.load()
        if "tabs" not in state:  # a new session
            asked = state.get("browser") or self.settings.default_browser
            return least_loaded([LOCAL, *self.endpoints], load) if asked == AUTO else [asked]
        asked = state.get("browser") or LOCAL  # a checkpoint names only an endpoint
        others = [p for p in least_loaded([*self.endpoints], load) if p != asked]
        others += [LOCAL] if asked != LOCAL else []
        unknown = asked != LOCAL and asked not in self.endpoints and asked not in self._adhoc
        if unknown and "://" not in asked:
            return others  # a name this daemon's settings do not give
        last = state.get("lost_endpoint") == asked or unknown
        return [*others, asked] if last else [asked, *others]

    def _on_endpoint_lost(self, endpoint: Endpoint, browser: Browser) -> None:
        if self._closing:
            return
        log.warning("browser endpoint %s disconnected", endpoint.name)
        for session in self.pool.sessions():
            if session.context.browser is browser:
                self._on_context_close(session)

    async def _open_session(
        self, name: str, profile: str | None, state: dict[str, Any] | None
    ) -> Session:
        """The pool's opener: a context of the shared browser, or a browser on a profile,
        or a context on a browser endpoint (failing over to the next place in `_places`
        when one cannot be reached)."""
        places = self._places(state, profile)
        for i, where in enumerate(places):
            try:
                return await self._open_at(where, name, profile, state)
            except SteadyhandError as exc:
                if exc.code != ErrorCode.BROWSER_NOT_FOUND or i == len(places) - 1:
                    raise
                log.warning("session %s: %s; trying %s", name, exc.message, places[i + 1])
        raise AssertionError("unreachable: _places is never empty")

    async def _open_at(
        self, where: str, name: str, profile: str | None, state: dict[str, Any] | None
    ) -> Session:
        """A session at one place. `state`: a checkpoint's; a throwaway context starts with
        its cookies and storage (a profile keeps its own), both with its viewport and what
        it emulates (a new session's state holds only its rules, place and emulation)."""
        endpoint = self.endpoint(where)
        if endpoint is not None and profile is not None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"profile {profile!r} lives on this machine's disk; a session on browser "
                f"endpoint {endpoint.name!r} cannot use it",
                "open it with `--browser local`, or without --profile on the endpoint",
            )
        emulation: dict[str, Any] = (state or {}).get("emulation") or {}
        emulated = context_options(emulation, (await self.playwright()).devices)
        device_viewport = emulated.pop("viewport", None)
        viewport = (state or {}).get("viewport") or device_viewport or self._viewport()
        own_rules: dict[str, Any] = (state or {}).get("nav") or {}
        proxy = NavProxy(NavPolicy.from_settings(self.settings).tightened(**own_rules))
        if self.connection_gate is not None:
            proxy.gate = functools.partial(self.connection_gate, name)
        # A browser on another machine reaches the proxy at this machine's address towards
        # it (with the session's own credentials), not at loopback.
        host = "127.0.0.1"
        if endpoint is not None and not endpoint.on_this_machine:
            host = await address_towards(endpoint)
        route = await proxy.start(host)
        # Loopback through the proxy only when it is checked or gated.
        checked = proxy.policy.checks_loopback or proxy.gate is not None
        route["bypass"] = "<-loopback>" if checked else LOOPBACK_BYPASS
        context: BrowserContext
        try:
            if endpoint is not None:
                remote = await self.remote.browser(endpoint, await self.playwright())
                try:
                    context = await remote.new_context(
                        viewport=viewport,  # type: ignore[arg-type]
                        storage_state=storage_state(state) if state else None,  # type: ignore[arg-type]
                        proxy=route,  # type: ignore[arg-type]
                        accept_downloads=True,
                        **emulated,
                    )
                except PlaywrightError as exc:  # a link that died before anyone noticed
                    self.remote.forget(endpoint.name, remote)
                    raise SteadyhandError(
                        ErrorCode.BROWSER_NOT_FOUND,
                        f"browser endpoint {endpoint.name!r} did not open a context: "
                        f"{redact_url(first_line(exc))}",
                        "is its browser still running? `daemon status` lists the endpoints",
                        {"endpoint": endpoint.shown()},
                    ) from exc
            elif profile is None:
                browser = await self.browser()
                storage = storage_state(state) if state else None
                context = await browser.new_context(
                    viewport=viewport,  # type: ignore[arg-type]
                    storage_state=storage,  # type: ignore[arg-type]
                    proxy=route,  # type: ignore[arg-type]
                    **emulated,
                )
            else:
                self.profiles.lock(profile, name)
                try:
                    context = await self._launch_profile(profile, viewport, route, emulated)
                except BaseException:
                    self.profiles.unlock(profile)
                    raise
        except BaseException:
            await proxy.close()
            raise
        await self.prepare_context(context)
        session = Session(
            name,
            context,
            download_path=(
                named_in(self.settings.downloads_root / name)
                if self.settings.downloads_root
                else named_as_artifacts(self.settings.artifacts_dir, name)
            ),
            dialog_policy=self.settings.dialogs,
            profile=profile,
            proxy=proxy,
            own_rules=own_rules,
            emulation=dict(emulation),  # `emulate` changes it: not the state it came from
        )
        session.browser_name = LOCAL if endpoint is None else endpoint.name
        root = self.settings.artifacts_dir
        session.unsaved_trace_path = lambda: artifact_path(root, name, "trace", "at-close", "zip")
        for page in context.pages:  # a persistent context opens with a blank page
            session.adopt(page)
        context.on("close", lambda _ctx: self._on_context_close(session))
        self.health.watch(session)
        return session

    async def attach(
        self, name: str, endpoint: str, deadline: float, headers: dict[str, str] | None = None
    ) -> Session:
        """A session on a running Chromium or Electron application's own browser, through
        its debugging port: its pages are the session's tabs. No checkpoints (the app keeps
        its state, and its cookies are not ours to store), no recovery, and closing the
        session leaves the application running. `headers`: sent when connecting (the
        extension relay's secret), kept out of the endpoint shown and stored."""
        check_session_name(name)
        if name in self._suspended and self.store.latest_checkpoint(name) is None:
            # An attached session a killed daemon left (it keeps no checkpoints): nothing
            # to restore, so the name is free again.
            self._suspended.discard(name)
        if (
            self.pool.get(name) is not None
            or self.pool.opening(name)
            or name in self._suspended
            or name in self._recovering
        ):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} already exists",
                "attach under another name (--session NAME), or close that session first",
            )

        async def opener(name: str, _profile: str | None, _state: Any) -> Session:
            playwright = await self.playwright()
            timeout = max(1.0, (deadline - time.monotonic()) * 1000)
            try:
                # no_defaults: leave the app's own download, focus and viewport settings.
                browser = await playwright.chromium.connect_over_cdp(
                    endpoint, timeout=timeout, no_defaults=True, headers=headers
                )
            except Exception as exc:
                raise SteadyhandError(
                    ErrorCode.ACTION_FAILED,
                    f"cannot attach to {endpoint}: {first_line(exc)}",
                    "is the application still running with its --remote-debugging-port?",
                ) from exc
            context = browser.contexts[0]
            session = Session(
                name,
                context,
                download_path=named_as_artifacts(self.settings.artifacts_dir, name),
                dialog_policy=self.settings.dialogs,
                attached=endpoint,
            )
            for page in context.pages:
                session.adopt(page)
            context.on("close", lambda _ctx: self._on_context_close(session))
            return session

        session = await self.pool.acquire(name, opener=opener)
        self._lost.pop(name, None)
        await asyncio.to_thread(self.store.set_session_status, name, "active", "")
        return session

    async def _launch_profile(
        self,
        profile: str,
        viewport: dict[str, int],
        proxy: dict[str, str] | None = None,
        emulated: dict[str, Any] | None = None,
    ) -> BrowserContext:
        """A browser on the profile's user-data dir (`proxy`: a session's; profile export
        and import load no page from the network, their seed pages are fulfilled;
        `emulated`: a session's emulation as context options)."""
        path = find_chromium(self.settings.chromium)
        self._check_display()
        playwright = await self.playwright()
        try:
            return await playwright.chromium.launch_persistent_context(
                self.profiles.user_data_dir(profile),
                executable_path=str(path),
                headless=self.settings.headless,
                args=launch_args(self.settings.state_dir),
                viewport=viewport,  # type: ignore[arg-type]
                proxy=proxy,  # type: ignore[arg-type]
                **(emulated or {}),
            )
        except Exception as exc:
            raise _launch_failed(path, exc) from exc

    # ----------------------------------------------------------------- sessions

    async def session(
        self,
        name: str,
        create: bool = False,
        profile: str | None = None,
        rules: dict[str, Any] | None = None,
        browser: str | None = None,
        *,
        emulation: dict[str, Any] | None = None,
    ) -> Session:
        """The named session; opened on demand when `create`, else `unknown_session`.

        `rules`: the navigation policy's tightening for a session this call starts
        (NavPolicy.tightened's arguments); a live session keeps the rules it started with.
        `browser`: where a session this call starts runs (`_places`); a live one stays.
        `emulation`: what a session this call starts emulates (engine/emulation.py); a live
        one must emulate the same already.
        """
        if browser is not None:
            self.check_browser(browser)
        if emulation:
            check(emulation, (await self.playwright()).devices)
        recovering = self._recovering.get(name)
        if recovering is not None:
            await asyncio.shield(recovering)
        live = self.pool.get(name)
        if live is not None and rules and rules != live.own_rules:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} is running with navigation rules {live.own_rules or 'none'} "
                "of its own; they are set when a session starts",
                f"close it first (`close --session {name}`), or use another session name",
            )
        if (
            live is not None
            and browser not in (None, AUTO)
            and (self.place_of(browser) != live.browser_name)
        ):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} is running on browser {live.browser_name}; a session's "
                "browser is chosen when it starts",
                f"close it first (`close --session {name}`), or use another session name",
            )
        if live is not None and emulation:
            self._check_emulation(live, emulation)
        if live is not None and (profile is None or live.profile == profile):
            return live
        if live is None and name in self._lost and not create:
            raise SteadyhandError(
                ErrorCode.BROWSER_CRASHED,
                f"session {name!r} was lost: {self._lost[name]}",
                f"open the page again (`open URL --session {name}`): a new session starts",
            )
        if live is None and name in self._suspended:
            raise self._suspended_error(name)
        if live is None and not create:
            known = ", ".join(s.name for s in self.pool.sessions()) or "none"
            check_session_name(name)
            mine = " (an MCP connection's own: closed when its connection ended)"
            raise SteadyhandError(
                ErrorCode.UNKNOWN_SESSION,
                f"no session named {name!r}" + (mine if name.startswith("mcp-") else ""),
                f"live sessions: {known}; `open` a URL in session {name!r} to start it",
            )
        state = ({"nav": rules} if rules else {}) | ({"browser": browser} if browser else {})
        state |= {"emulation": emulation} if emulation else {}
        session = await self.pool.acquire(name, profile, state=state or None)
        self._lost.pop(name, None)
        if live is None:  # "" (not NULL): a session on no profile, so restore uses none
            await asyncio.to_thread(self.store.set_session_status, name, "active", profile or "")
        return session

    def _check_emulation(self, live: Session, given: dict[str, Any]) -> None:
        """`bad_request` unless the live session emulates what `given` asks already."""
        differ = conflicts(given, live.emulation)
        if not differ:
            return
        flags = ", ".join(FLAGS[k] for k in differ)
        fixed = [k for k in differ if k in AT_START]
        hint = (
            f"a session's {', '.join(FLAGS[k] for k in fixed)} is set when it starts: close "
            f"it first (`close --session {live.name}`), or open another session name with it"
            if fixed
            else f"`emulate {' '.join(flag(k, given[k]) for k in differ)} --session "
            f"{live.name}` changes it on the live session"
        )
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"session {live.name!r} runs with another {flags} (it emulates: "
            f"{describe(live.emulation) or 'nothing'})",
            hint,
        )

    def _suspended_error(self, name: str) -> SteadyhandError:
        checkpoint = self.store.latest_checkpoint(name)
        saved = ""
        if checkpoint is not None:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(checkpoint.ts))
            urls = ", ".join(t["url"] for t in checkpoint.state.get("tabs", [])) or "no tabs"
            saved = f" (checkpoint of {when}: {urls})"
        return SteadyhandError(
            ErrorCode.SESSION_SUSPENDED,
            f"session {name!r} is suspended{saved}",
            f"restore it with `session restore {name}`, or discard it with "
            f"`close --session {name}`",
            {"session": name},
        )

    def sessions(self) -> list[Session]:
        return self.pool.sessions()

    def context_count(self) -> int:
        """Browser contexts open: the shared browser's, plus one per profile session."""
        shared = len(self._browser.contexts) if self.browser_running and self._browser else 0
        return shared + sum(1 for s in self.pool.sessions() if s.profile is not None)

    def suspended(self) -> set[str]:
        return set(self._suspended)

    def lost(self) -> dict[str, str]:
        return dict(self._lost)

    def recovering(self) -> set[str]:
        return set(self._recovering)

    def load_suspended(self, names: set[str]) -> None:
        """Sessions a previous daemon left: listed, and restorable with `restore`."""
        self._suspended |= names

    async def checkpoint(self, session: Session, reason: str) -> Checkpoint | None:
        """Store the session's state now; None (logged) when the page does not answer, and
        for an attached session (the application keeps its own state)."""
        if session.attached is not None:
            return None
        viewport = self._viewport()
        current = session.current_tab_id
        if current is not None:
            size = session.tabs[current].page.viewport_size
            if size:
                viewport = {"width": size["width"], "height": size["height"]}
        # Cleared before the capture: a route changed while it runs is saved next time.
        session.net.unsaved = False
        try:
            state = await asyncio.wait_for(capture(session, viewport), CHECKPOINT_TIMEOUT_S)
        except Exception as exc:
            session.net.unsaved = True
            log.warning("checkpoint of %s (%s) failed: %r", session.name, reason, exc)
            return None
        try:
            saved = await asyncio.to_thread(self.store.save_checkpoint, session.name, reason, state)
        except BaseException:
            session.net.unsaved = True
            raise
        session.checkpointed_urls = session.urls()
        session.actions_since_checkpoint = 0
        return saved

    async def after_command(self, session: Session, acted: bool) -> None:
        """Checkpoint when the session navigated (or opened/closed a tab) or every N acts."""
        if self.pool.get(session.name) is not session:
            return
        session.actions_since_checkpoint += int(acted)
        every = self.settings.checkpoint_every
        if session.urls() != session.checkpointed_urls:
            await self.checkpoint(session, "navigation")
        elif session.net.unsaved:  # a recovery must not lose routes or offline mode
            await self.checkpoint(session, "network control")
        elif every > 0 and session.actions_since_checkpoint >= every:
            await self.checkpoint(session, f"{every} actions")

    async def suspend(self, name: str) -> Checkpoint:
        """Checkpoint a live session, close it and free its slot; `restore` brings it back."""
        session = await self.session(name)
        if session.attached is not None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} is attached to a running application, which keeps its own "
                "state: there is nothing to suspend",
                f"`close --session {name}` detaches (the application keeps running)",
            )
        saved = await self.checkpoint(session, "suspend")
        if saved is None:  # closing now would lose the state: keep the session as it is
            raise SteadyhandError(
                ErrorCode.TIMEOUT,
                f"session {name!r} could not be checkpointed (a page did not answer); "
                "it stays active",
                "see `sessions` for its health; `close --session NAME` discards it",
            )
        await self._release(session)
        self._suspended.add(name)
        await asyncio.to_thread(self.store.set_session_status, name, "suspended")
        return saved

    async def close_session(self, name: str) -> bool:
        """Close a session for good: tabs, cookies, storage and its checkpoints are gone.
        False when it was closed already (a second `close` is done, not an error)."""
        live = self.pool.get(name)
        if live is None and name not in self._suspended and name not in self._lost:
            if (await asyncio.to_thread(self.store.sessions)).get(name) == "closed":
                return False
            await self.session(name)  # unknown_session
        if live is not None:
            await self._release(live)
        self._suspended.discard(name)
        self._lost.pop(name, None)
        await asyncio.to_thread(self.store.forget_checkpoints, name)
        await asyncio.to_thread(self.store.set_session_status, name, "closed")
        return True

    async def release(self, name: str) -> None:
        """Close a live session here without touching its records (another daemon took it
        over): its context, its profile's lock."""
        session = self.pool.get(name)
        if session is not None:
            await self._release(session)

    async def _release(self, session: Session) -> None:
        await self.pool.release(session.name)
        if session.profile is not None:
            self.profiles.unlock(session.profile)
        place = session.browser_name
        if place != LOCAL and not self.load().get(place):
            # Its last session left: a Playwright server's browser (billed, often) or a
            # user's Chrome is not held open for nothing.
            # (An ad-hoc URL stays known: a restore goes back to it first.)
            await self.remote.disconnect(place)

    async def restore_on_use(self, name: str) -> dict[str, Any] | None:
        """Restore `name` if it is suspended, for a command that names it; the report for
        the command that started the restore, None for one that found it live or waited."""
        if name not in self._suspended or self.pool.get(name) is not None:
            return None
        running = self._restoring_on_use.get(name)
        if running is not None:  # another command on it got there first: wait for it
            await asyncio.shield(running)
            return None
        task = asyncio.get_running_loop().create_task(self.restore(name))
        self._restoring_on_use[name] = task
        task.add_done_callback(lambda _t: self._restoring_on_use.pop(name, None))
        return await asyncio.shield(task)

    async def restore(self, name: str) -> dict[str, Any]:
        """Recreate a suspended (or lost) session from its last checkpoint."""
        check_session_name(name)
        if self.pool.get(name) is not None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"session {name!r} is active; there is nothing to restore",
                "suspend it first (`session suspend NAME`) to restore its checkpoint",
            )
        checkpoint = await asyncio.to_thread(self.store.latest_checkpoint, name)
        if checkpoint is None:
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                f"session {name!r} has no checkpoint to restore",
                "`sessions` lists what can be restored; `open URL --session NAME` starts anew",
            )
        opening = asyncio.get_running_loop().create_task(self._reopen(name, checkpoint, "restore"))
        self._recovering[name] = opening  # commands on it wait, `sessions` says so
        try:
            report = await asyncio.shield(opening)
        finally:
            if self._recovering.get(name) is opening:
                del self._recovering[name]
        self._suspended.discard(name)
        return report

    async def _reopen(
        self, name: str, checkpoint: Checkpoint, why: str, previous: Session | None = None
    ) -> dict[str, Any]:
        """Open the session from `checkpoint`; what was restored and lost."""
        profile = self._profile_of(name)
        state = checkpoint.state
        if previous is not None:  # where it ran last (a failover since may postdate `state`)
            state = state | {"browser": previous.browser_name}
            if previous.browser_name != LOCAL and not self.remote.connected(previous.browser_name):
                state["lost_endpoint"] = previous.browser_name
        was = state.get("browser") or LOCAL
        session = await self.pool.acquire(name, profile, state, wait_ms=self.pool.wait_ms)
        net = state.get("network") or {}
        try:
            unrouted = await session.net.load_routes(net)  # first: the tabs meet the mocks
            restored, lost = await restore_tabs(
                session, state, RESTORE_TAB_TIMEOUT_MS, with_local=profile is None
            )
            lost += unrouted
            if net.get("offline"):  # after: offline, no tab would load again
                await session.net.set_offline(True)
                session.net.unsaved = False
        except Exception:
            await self._release(session)
            raise
        if previous is not None:
            # Refs handed out before name nothing in the reloaded pages: keep them known,
            # so they are refused as stale rather than as never issued.
            states = previous.tab_states()
            for tab_id, tab in session.tabs.items():
                if tab_id in states:
                    tab.state = states[tab_id].reloaded()
        session.checkpointed_urls = session.urls()
        self._lost.pop(name, None)
        await asyncio.to_thread(self.store.set_session_status, name, "active", profile)
        moved = {"browser": session.browser_name, "was_browser": was}
        return {
            "from": checkpoint.ts,
            "reason": why,
            "restored": restored,
            "lost": lost,
            "last_action": checkpoint.last_action,
        } | (moved if session.browser_name != was else {})

    def _profile_of(self, name: str) -> str | None:
        for row in self.store.session_rows():
            if row.name == name:
                return row.profile or None
        return None

    # ----------------------------------------------------------------- profiles

    async def export_profile(self, name: str) -> dict[str, Any]:
        """The profile's cookies and localStorage as a Playwright storage state."""
        live = next((s for s in self.pool.sessions() if s.profile == name), None)
        if live is not None:
            return dict(await live.context.storage_state())
        with self.profiles.locked(name, "profile export"):
            context = await self._launch_profile(name, self._viewport())
            try:
                return dict(await context.storage_state())
            finally:
                await context.close()

    async def import_profile(self, name: str, state: dict[str, Any]) -> None:
        """Add a storage state's cookies and localStorage to a profile (created if new)."""
        if not self.profiles.exists(name):
            self.profiles.create(name)
        with self.profiles.locked(name, "profile import"):
            context = await self._launch_profile(name, self._viewport())
            try:
                await seed_profile(context, state, CHECKPOINT_TIMEOUT_S)
            finally:
                await context.close()

    def _viewport(self) -> dict[str, int]:
        return {"width": self.settings.viewport_width, "height": self.settings.viewport_height}

    # ----------------------------------------------------------------- recovery

    def _on_context_close(self, session: Session) -> None:
        if session.closing or self._closing or self.pool.get(session.name) is not session:
            return
        self.pool.drop(session.name)
        if session.attached is not None:  # the application quit: not ours to restart
            self._lost[session.name] = (
                f"the application attached at {session.attached} quit or closed its debugging port"
            )
            log.warning("session %s lost: %s", session.name, self._lost[session.name])
            asyncio.get_running_loop().create_task(
                asyncio.to_thread(self.store.set_session_status, session.name, "lost")
            )
            return
        why = "the browser exited unexpectedly"
        if session.profile is not None:
            self.profiles.unlock(session.profile)
        elif session.browser_name != LOCAL:
            browser = session.context.browser
            if browser is not None and not browser.is_connected():  # the endpoint is gone
                self.remote.forget(session.browser_name, browser)
                asyncio.get_running_loop().create_task(_close_quietly(browser))
            # (Still connected: only this context closed, or the news is on its way; the
            # recovery finds out when it opens the session again.)
            why = f"the browser at endpoint {session.browser_name} went away"
        elif self._browser is not None and session.context.browser is self._browser:
            # Only the browser's death closes a context we did not close. Its "disconnected"
            # event may come later: do not hand the dead browser to the recovery.
            dead, self._browser = self._browser, None
            asyncio.get_running_loop().create_task(_close_quietly(dead))
        self.start_recovery(session.name, why, session)

    async def lost_under(self, session: Session, wait_s: float = 2.0) -> bool:
        """Whether `session` died unexpectedly (and is recovered or recovering).

        A call that saw its page close may hear before the engine does: wait for the news.
        """
        deadline = time.monotonic() + wait_s
        while self.pool.get(session.name) is session:
            if session.closing or time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        return not session.closing and (
            session.name in self._recovering or self.pool.get(session.name) is not None
        )

    def start_recovery(
        self, name: str, why: str, previous: Session | None = None, close_first: bool = False
    ) -> asyncio.Task[Any]:
        """Recreate the session from its checkpoint in the background (once at a time)."""
        running = self._recovering.get(name)
        if running is not None:
            return running
        log.warning("recovering session %s: %s", name, why)
        task = asyncio.get_running_loop().create_task(
            self._recover(name, why, previous, close_first)
        )
        self._recovering[name] = task
        task.add_done_callback(lambda _t: self._recovering.pop(name, None))
        return task

    async def recover(self, name: str, why: str) -> None:
        """Close a live but unhealthy session and recreate it from its checkpoint."""
        session = self.pool.get(name)
        await self.start_recovery(name, why, session, close_first=session is not None)

    async def _recover(
        self, name: str, why: str, previous: Session | None, close_first: bool
    ) -> None:
        started = time.monotonic()
        if close_first and previous is not None:
            await self._release(previous)
        try:
            if previous is not None and previous.attached is not None:
                raise RuntimeError("steadyhand does not restart an application it attached to")
            checkpoint = await asyncio.to_thread(self.store.latest_checkpoint, name)
            if checkpoint is None:
                raise RuntimeError("it had no checkpoint")
            report = await self._reopen(name, checkpoint, why, previous)
        except Exception as exc:
            self._lost[name] = f"{why}; it could not be restored: {exc}"
            log.error("session %s lost: %s", name, self._lost[name])
            await asyncio.to_thread(self.store.set_session_status, name, "lost")
            return
        self.recoveries += 1
        report["recovery_ms"] = round((time.monotonic() - started) * 1000, 1)
        session = self.pool.get(name)
        if session is not None:
            session.recovered = report
        log.warning("session %s recovered in %.0f ms", name, report["recovery_ms"])

    # ----------------------------------------------------------------- shutdown

    async def shutdown(self) -> None:
        """Checkpoint and close every session (suspended, restorable), the browser, the driver.

        Safe to call twice.
        """
        self._closing = True
        await self.health.stop()
        for task in list(self._recovering.values()):
            task.cancel()
        sessions = self.pool.sessions()
        await asyncio.gather(*(self.checkpoint(s, "shutdown") for s in sessions))
        await self.pool.shutdown()
        for session in sessions:
            if session.profile is not None:
                self.profiles.unlock(session.profile)
            status = "closed" if session.attached is not None else "suspended"
            await asyncio.to_thread(self.store.set_session_status, session.name, status)
        if self._browser is not None:
            try:
                await asyncio.wait_for(self._browser.close(), 10)
            except Exception:
                log.exception("closing the browser failed")
            self._browser = None
        await self.remote.close()
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None


async def _close_quietly(browser: Browser) -> None:
    try:
        await asyncio.wait_for(browser.close(), 5)
    except Exception as exc:
        log.info("closing a dead browser: %r", exc)


def _launch_failed(path: object, exc: BaseException) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.BROWSER_CRASHED,
        f"Chromium at {path} failed to start: {first_line(exc)}",
        "run `chromium --headless --version` to check the binary; see daemon.log",
    )
