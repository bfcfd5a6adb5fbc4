"""Opening a session: a context of the shared browser, a browser on a persistent
profile, a context on a browser endpoint (failing over to the next place), or an
application's own browser attached over CDP; each with its navigation proxy, viewport,
emulation and the page model's install, watched for its end."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import BrowserContext
from playwright.async_api import Error as PlaywrightError

from steadyhand.config import Settings
from steadyhand.engine.browsers import Browsers
from steadyhand.engine.checkpoint import storage_state
from steadyhand.engine.emulation import context_options
from steadyhand.engine.endpoints import LOCAL, address_towards
from steadyhand.engine.nav_guard import NavGuard
from steadyhand.engine.nav_policy import NavPolicy
from steadyhand.engine.nav_proxy import NavProxy
from steadyhand.engine.page_events import named_as_artifacts, named_in
from steadyhand.engine.pool import Opener
from steadyhand.engine.session import Session
from steadyhand.errors import ErrorCode, SteadyhandError, first_line
from steadyhand.redact import redact_url
from steadyhand.store.artifacts import artifact_path

# Chromium's proxy bypass: loopback reached directly. Chromium bypasses link-local
# addresses too unless told `<-loopback>` (which also takes loopback away from the
# implicit rules): so that, then loopback named again.
LOOPBACK_BYPASS = "<-loopback>,localhost,*.localhost,127.0.0.1/8,[::1]"
log = logging.getLogger("steadyhand.engine")


class SessionOpener:
    """Opens sessions for the pool. `prepare_context` runs on every context before its
    first page (the page model's install); `on_context_close` and `watch` are the engine's
    (recovery, health)."""

    def __init__(
        self,
        settings: Settings,
        browsers: Browsers,
        prepare_context: Callable[[BrowserContext], Awaitable[None]],
        on_context_close: Callable[[Session], None],
        watch: Callable[[Session], None],
    ) -> None:
        self.settings = settings
        self.browsers = browsers
        self.profiles = browsers.profiles
        self.prepare_context = prepare_context
        self.on_context_close = on_context_close
        self.watch = watch
        # Asked (session, host) before a session's browser connects to an allowed host:
        # None to go on, else why not. The runtime sets it to the approval gate's.
        self.connection_gate: Callable[[str, str], Awaitable[str | None]] | None = None

    async def open(self, name: str, profile: str | None, state: dict[str, Any] | None) -> Session:
        """The pool's opener: a context of the shared browser, or a browser on a profile,
        or a context on a browser endpoint (failing over to the next place in `Browsers.places`
        when one cannot be reached)."""
        places = self.browsers.places(state, profile)
        for i, where in enumerate(places):
            try:
                return await self._open_at(where, name, profile, state)
            except SteadyhandError as exc:
                if exc.code != ErrorCode.BROWSER_NOT_FOUND or i == len(places) - 1:
                    raise
                log.warning("session %s: %s; trying %s", name, exc.message, places[i + 1])
        raise AssertionError("unreachable: places is never empty")

    async def _open_at(
        self, where: str, name: str, profile: str | None, state: dict[str, Any] | None
    ) -> Session:
        """A session at one place. `state`: a checkpoint's; a throwaway context starts with
        its cookies and storage (a profile keeps its own), both with its viewport and what
        it emulates (a new session's state holds only its rules, place and emulation)."""
        endpoint = self.browsers.endpoint(where)
        if endpoint is not None and profile is not None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"profile {profile!r} lives on this machine's disk; a session on browser "
                f"endpoint {endpoint.name!r} cannot use it",
                "open it with `--browser local`, or without --profile on the endpoint",
            )
        emulation: dict[str, Any] = (state or {}).get("emulation") or {}
        emulated = context_options(emulation, (await self.browsers.playwright()).devices)
        device_viewport = emulated.pop("viewport", None)
        viewport = (state or {}).get("viewport") or device_viewport or self.browsers.viewport()
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
                remote = await self.browsers.remote.browser(
                    endpoint, await self.browsers.playwright()
                )
                try:
                    context = await remote.new_context(
                        viewport=viewport,  # type: ignore[arg-type]
                        storage_state=storage_state(state) if state else None,  # type: ignore[arg-type]
                        proxy=route,  # type: ignore[arg-type]
                        accept_downloads=True,
                        **emulated,
                    )
                except PlaywrightError as exc:  # a link that died before anyone noticed
                    self.browsers.remote.forget(endpoint.name, remote)
                    raise SteadyhandError(
                        ErrorCode.BROWSER_NOT_FOUND,
                        f"browser endpoint {endpoint.name!r} did not open a context: "
                        f"{redact_url(first_line(exc))}",
                        "is its browser still running? `daemon status` lists the endpoints",
                        {"endpoint": endpoint.shown()},
                    ) from exc
            elif profile is None:
                browser = await self.browsers.browser()
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
                    context = await self.browsers.launch_profile(profile, viewport, route, emulated)
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
        context.on("close", lambda _ctx: self.on_context_close(session))
        self.watch(session)
        return session

    def attached(self, endpoint: str, deadline: float, headers: dict[str, str] | None) -> Opener:
        """An opener for the pool: a session on a running application's own browser,
        through its debugging port (`Engine.attach`)."""

        async def opener(name: str, _profile: str | None, _state: Any) -> Session:
            playwright = await self.browsers.playwright()
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
            # No proxy reaches the app's own context: its requests are checked as routed.
            proxy = NavProxy(NavPolicy.from_settings(self.settings))
            if self.connection_gate is not None:
                proxy.gate = functools.partial(self.connection_gate, name)
            await NavGuard(proxy).install(context)
            session = Session(
                name,
                context,
                download_path=named_as_artifacts(self.settings.artifacts_dir, name),
                dialog_policy=self.settings.dialogs,
                attached=endpoint,
                proxy=proxy,
            )
            for page in context.pages:
                session.adopt(page)
            context.on("close", lambda _ctx: self.on_context_close(session))
            return session

        return opener
