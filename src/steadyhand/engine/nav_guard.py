"""The navigation policy for a session on a browser steadyhand cannot put behind its proxy:
an application attached over its debugging port (`desktop attach`), the user's Chrome
(the extension). Their contexts are the applications' own, made before steadyhand came,
so no proxy setting reaches them; instead every http(s) request and websocket of the
context goes through Playwright's routing (CDP's Fetch domain) and is checked as the proxy
checks a connection: the host's rules, every address its name resolves to, the approval
gate. A refused page load gets the proxy's refusal page (so `policy_denied` names the
rule the same way), a refused subresource or websocket fails, and each refusal is noted
with the session's (unstarted) NavProxy: `policy` and the next result list it.

Playwright's routing sees a redirect's first URL only, so a frame that commits a refused
URL anyway (a redirect led there) is loaded again at once, routed this time: it shows the
refusal page, and the command that led there fails with `policy_denied`.

Weaker than the proxy, and said so: a redirect's refused target is requested once (the
browser follows the redirect before the frame commits); the browser resolves a name again
after the check (a DNS answer that changes in between is not caught); a service worker's
own fetches, a subresource's redirects and requests the application makes outside its
pages (its main process) are not seen; the application's own pages (file:, app:) are left
alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Frame, Page, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.nav_policy import Refusal
from steadyhand.engine.nav_proxy import NavProxy, page_of, refused_text

CACHE_S = 2.0  # a host's answer is reused this long (an app loads many resources at once)
RELOAD_S = 30.0  # a frame sent to a refusal page commits it within this, or is rechecked
log = logging.getLogger("steadyhand.proxy")


class NavGuard:
    """Checks each request of one context against its session's policy."""

    def __init__(self, proxy: NavProxy) -> None:
        self.proxy = proxy
        self._answers: dict[tuple[str, int], tuple[float, Refusal | None]] = {}
        # Frames sent to a refusal page, until they commit it (or the entry runs out).
        self._reloading: dict[tuple[int, str], float] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def install(self, context: BrowserContext) -> None:
        # Registered first: handlers run newest first, so `route` mocks come before it.
        await context.route("**/*", self._request)
        await context.route_web_socket("**/*", self._websocket)
        for page in context.pages:
            self._watch(page)
        context.on("page", self._watch)

    def _watch(self, page: Page) -> None:
        page.on("framenavigated", self._committed)

    def _sent(self, frame: Frame, url: str) -> None:
        """Note that `frame` gets a refusal page at `url` (its commit is expected)."""
        now = time.monotonic()
        for key in [k for k, until in self._reloading.items() if until < now]:
            del self._reloading[key]
        self._reloading[(id(frame), url)] = now + RELOAD_S

    def _committed(self, frame: Frame) -> None:
        url = frame.url
        if self._reloading.pop((id(frame), url), 0.0) >= time.monotonic():
            return  # the refusal page it was sent to
        task = asyncio.ensure_future(self._recheck(frame, url))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _recheck(self, frame: Frame, url: str) -> None:
        """A frame that committed a refused URL (past a redirect) loads that URL again,
        routed this time: the refusal page."""
        try:
            if await self.refusal(url) is None or frame.is_detached() or frame.url != url:
                return
            self._sent(frame, url)
            await frame.goto(url, wait_until="commit")
        except PlaywrightError:
            pass  # the frame or the page went meanwhile
        except Exception:
            log.exception("the navigation guard could not recheck %s", url)

    async def refusal(self, url: str) -> Refusal | None:
        parts = urlsplit(url)
        secure = parts.scheme in ("https", "wss")
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
            return None
        port = parts.port or (443 if secure else 80)
        key = (parts.hostname, port)
        now = time.monotonic()
        kept = self._answers.get(key)
        if kept is not None and kept[0] > now:
            if kept[1] is not None:  # refused again: noted again
                self.proxy.note_refusal(parts.hostname, kept[1], f"request to port {port} of")
            return kept[1]
        found, _ = await self.proxy.refusal_for(parts.hostname, port, f"request to port {port} of")
        later = time.monotonic()  # (the approval gate may have waited for a person)
        self._answers = {k: v for k, v in self._answers.items() if v[0] > later}
        self._answers[key] = (later + CACHE_S, found)
        return found

    async def _request(self, route: Route) -> None:
        request = route.request
        try:
            refused = await self.refusal(request.url)
        except Exception:  # fail closed: a request the guard cannot judge does not go out
            log.exception("the navigation guard could not judge %s", request.url)
            refused = Refusal("guard", "the check failed")
        with contextlib.suppress(PlaywrightError):  # the page went meanwhile
            if refused is None:
                await route.fallback()
            elif request.is_navigation_request():
                # The frame commits the refusal page at that URL: nothing to load again.
                # (A popup's first request comes before Playwright knows its frame.)
                with contextlib.suppress(PlaywrightError):
                    self._sent(request.frame, request.url)
                body = page_of(403, refused_text(refused))
                await route.fulfill(status=403, content_type="text/html; charset=utf-8", body=body)
            else:
                await route.abort("blockedbyclient")

    async def _websocket(self, socket: WebSocketRoute) -> None:
        try:
            refused = await self.refusal(socket.url)
        except Exception:
            log.exception("the navigation guard could not judge %s", socket.url)
            refused = Refusal("guard", "the check failed")
        with contextlib.suppress(PlaywrightError):
            if refused is None:
                socket.connect_to_server()
            else:
                await socket.close(code=1008, reason=refused_text(refused))
