"""A session's network control: routes that answer matching requests themselves (a mocked
answer, or a block) and offline mode, for every tab of the session (the browser context's).

Routes are Playwright globs on whole URLs (`**/api/users*`), one context route each with
its own handler, so adding or removing one never touches another handler of the context
(a restore's seed page is routed on its page, and page routes come first). When several
routes match a URL, the one added last answers it.

The navigation policy still wins: a mocked answer would put a page of the route's choosing
at the URL's origin (its cookies and storage), so a route fulfils only what the session's
policy would let the browser load, host by host, and a host listed in approval_domains
only once a person approved it, as a real connection would wait for. A refused one fails
(net::ERR_ACCESS_DENIED) and is listed among the proxy's refusals (`policy`). A block is
never refused: it loads nothing.

Requests a route answered are marked (`marks`: "mocked" or "blocked") for the tabs' page
logs, so `network` tells them from real answers.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Request, Route
from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.nav_policy import Refusal
from steadyhand.engine.nav_proxy import NavProxy
from steadyhand.errors import first_line

log = logging.getLogger("steadyhand.routes")

BODY_LIMIT = 1 << 20  # one mocked answer's body
TOTAL_LIMIT = 4 << 20  # every route's of a session (checkpoints keep them)
MOCKED, BLOCKED = "mocked", "blocked"

Handler = Callable[[Route], Awaitable[None]]


@dataclass
class Rule:
    """One route: block what matches, or answer it with `body`."""

    pattern: str
    block: bool
    status: int = 200
    body: bytes = b""
    content_type: str = ""
    source: str = ""  # "JSON", or the file the body was read from
    hits: int = 0  # requests it answered
    handler: Handler | None = field(default=None, repr=False, compare=False)

    def line(self) -> str:
        """`**/api -> 200 application/json, 27 bytes (JSON) · 2 hits`."""
        hits = f" · {self.hits} hit{'s' * (self.hits != 1)}"
        if self.block:
            return f"{self.pattern} -> blocked{hits}"
        kind = f" {self.content_type}" if self.content_type else ""
        source = f" ({self.source})" if self.source else ""
        return f"{self.pattern} -> {self.status}{kind}, {len(self.body)} bytes{source}{hits}"

    def saved(self) -> dict[str, Any]:
        """As a checkpoint keeps it (JSON): the body as text when it is UTF-8."""
        if self.block:
            return {"pattern": self.pattern, "block": True}
        out: dict[str, Any] = {"pattern": self.pattern, "status": self.status}
        try:
            out["body"] = self.body.decode()
        except UnicodeDecodeError:
            out["body_b64"] = base64.b64encode(self.body).decode()
        return out | {"content_type": self.content_type, "source": self.source}

    @classmethod
    def from_saved(cls, saved: dict[str, Any]) -> Rule:
        if saved.get("block"):
            return cls(str(saved["pattern"]), block=True)
        body = (
            base64.b64decode(saved["body_b64"])
            if "body_b64" in saved
            else str(saved.get("body", "")).encode()
        )
        return cls(
            str(saved["pattern"]),
            block=False,
            status=int(saved.get("status", 200)),
            body=body,
            content_type=str(saved.get("content_type", "")),
            source=str(saved.get("source", "")),
        )


class NetControl:
    """The routes and offline mode of one session's browser context."""

    def __init__(self, context: BrowserContext, proxy: NavProxy | None = None) -> None:
        self.context = context
        self.proxy = proxy  # the session's navigation policy (None: an attached app's)
        self.rules: dict[str, Rule] = {}  # by pattern, oldest first
        self.offline = False
        # The requests a route answered, for the page logs (weak: a request is let go of).
        self.marks: weakref.WeakKeyDictionary[Request, str] = weakref.WeakKeyDictionary()
        self.unsaved = False  # changed since the last checkpoint

    def body_bytes(self, but: str | None = None) -> int:
        """The bytes every route's body holds (but the route of pattern `but`)."""
        return sum(len(r.body) for p, r in self.rules.items() if p != but)

    async def add(self, rule: Rule) -> bool:
        """Route `rule.pattern` (replacing a route of the same pattern, which it returns
        True for); it answers before every route added earlier."""
        replaced = await self._drop(rule.pattern)

        async def handler(route: Route) -> None:
            await self._answer(rule, route)

        rule.handler = handler
        await self.context.route(rule.pattern, handler)
        self.rules[rule.pattern] = rule
        self.unsaved = True
        return replaced is not None

    async def remove(self, pattern: str | None = None) -> list[Rule]:
        """Unroute `pattern`, or every route; the routes removed."""
        patterns = list(self.rules) if pattern is None else [pattern]
        removed = [r for p in patterns if (r := await self._drop(p)) is not None]
        self.unsaved = self.unsaved or bool(removed)
        return removed

    async def set_offline(self, offline: bool) -> None:
        await self.context.set_offline(offline)
        self.unsaved = self.unsaved or offline != self.offline
        self.offline = offline

    async def _drop(self, pattern: str) -> Rule | None:
        rule = self.rules.pop(pattern, None)
        if rule is not None and rule.handler is not None:
            with contextlib.suppress(PlaywrightError):  # a context closing meanwhile
                await self.context.unroute(pattern, rule.handler)
        return rule

    def saved(self) -> dict[str, Any]:
        """What a checkpoint keeps: the routes and offline mode, when there are any."""
        routes = {"routes": [r.saved() for r in self.rules.values()]} if self.rules else {}
        return routes | ({"offline": True} if self.offline else {})

    async def load_routes(self, saved: dict[str, Any]) -> list[str]:
        """Route again what a checkpoint kept (before its tabs load, so they meet them);
        what could not be, described."""
        lost = []
        for item in saved.get("routes", []):
            try:
                await self.add(Rule.from_saved(item))
            except (PlaywrightError, KeyError, TypeError, ValueError) as exc:
                lost.append(f"route {item.get('pattern', '?')}: {first_line(exc)}")
        self.unsaved = False
        return lost

    # ------------------------------------------------------------------ answering

    async def _answer(self, rule: Rule, route: Route) -> None:
        request = route.request
        try:
            if rule.block:
                self.marks[request] = BLOCKED
                rule.hits += 1
                await route.abort("blockedbyclient")
                return
            if await self._refused(request.url):
                await route.abort("accessdenied")
                return
            self.marks[request] = MOCKED
            rule.hits += 1
            headers = await _cors(request)
            if request.method == "OPTIONS" and "access-control-request-method" in headers:
                await route.fulfill(status=204, headers=_preflight(headers))  # a CORS preflight
                return
            answer = {"content-type": rule.content_type} if rule.content_type else {}
            await route.fulfill(
                status=rule.status, headers=answer | _allowed(headers), body=rule.body
            )
        except PlaywrightError as exc:  # the page or the context went away meanwhile
            log.info("route %s: %s", rule.pattern, exc)

    async def _refused(self, url: str) -> bool:
        """Whether the navigation policy refuses loading `url` (noted with the proxy's
        refusals); the approval gate waits for a person as a connection would."""
        proxy = self.proxy
        if proxy is None:
            return False
        host = urlsplit(url).hostname or ""
        refusal = proxy.policy.url(url)
        if refusal is None and proxy.gate is not None and host:
            why = await proxy.gate(host)
            refusal = None if why is None else Refusal("approval", f"{host}: {why}")
        if refusal is None:
            return False
        proxy.note_refusal(host, refusal, "a mocked answer from")
        return True


async def _cors(request: Request) -> dict[str, str]:
    """The request's headers (lower-case names), for the CORS answer."""
    try:
        return await request.all_headers()
    except PlaywrightError:
        return {}


def _allowed(headers: dict[str, str]) -> dict[str, str]:
    """A mocked answer is readable from the page that asked, whatever its origin."""
    origin = headers.get("origin")
    if not origin:
        return {}
    return {
        "access-control-allow-origin": origin,
        "access-control-allow-credentials": "true",
        "vary": "Origin",
    }


def _preflight(headers: dict[str, str]) -> dict[str, str]:
    asked = headers.get("access-control-request-headers")
    return (
        _allowed(headers)
        | {"access-control-allow-methods": headers.get("access-control-request-method", "GET")}
        | ({"access-control-allow-headers": asked} if asked else {})
        | {"access-control-max-age": "600"}
    )
