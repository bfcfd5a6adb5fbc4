"""What a tab's page said and fetched: console messages, uncaught errors, network requests.

Bounded: each log keeps its last `limit` entries and counts what it dropped, so a chatty
page costs a fixed amount of memory. Entries hold what the page sent as is; whoever
reports them redacts (URLs may carry tokens).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from time import monotonic

from playwright.async_api import ConsoleMessage, Page, Request, Response
from playwright.async_api import Error as PlaywrightError

from steadyhand.redact import redact_headers

LIMIT = 500
TEXT_LIMIT = 2_000  # one console.log of a huge string must not hold megabytes
URL_LIMIT = 2_000  # data: URLs can be whole files

# Levels, least severe first. Console methods not named here (dir, table, trace, ...) are
# "log"; a failed console.assert is an error.
LEVELS = ("debug", "log", "info", "warning", "error")
_LEVEL_OF_TYPE = {
    "debug": "debug",
    "info": "info",
    "warning": "warning",
    "error": "error",
    "assert": "error",
}
_STACK_PLACE = re.compile(r"^\s*at (?:.*\()?(\S+?):(\d+):\d+\)?$", re.M)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more chars]"


@dataclass
class ConsoleEntry:
    level: str  # one of LEVELS
    type: str  # the console method, or "pageerror" for an uncaught exception
    text: str
    location: str  # url:line, 1-based; "" when the page did not say
    time: float  # wall clock, seconds since the epoch


@dataclass
class NetworkEntry:
    method: str
    url: str
    resource_type: str
    time: float  # wall clock when the request was sent
    status: int | None = None
    failure: str | None = None
    duration_ms: float | None = None  # request sent -> finished or failed, seen from here
    route: str | None = None  # "mocked" or "blocked" when a session's route answered it
    started: float = field(default_factory=monotonic, repr=False)
    # For a HAR export: as sent and received, credentials redacted (redact_headers).
    request_headers: list[tuple[str, str]] = field(default_factory=list, repr=False)
    response_headers: list[tuple[str, str]] = field(default_factory=list, repr=False)
    status_text: str = ""

    @property
    def failed(self) -> bool:
        return self.failure is not None or (self.status is not None and self.status >= 400)

    @property
    def done(self) -> bool:
        return self.duration_ms is not None


class PageLog:
    """The last `limit` console messages and network requests of one page."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self.console: deque[ConsoleEntry] = deque(maxlen=limit)
        self.network: deque[NetworkEntry] = deque(maxlen=limit)
        self.console_dropped = 0
        self.network_dropped = 0
        self._pending: dict[Request, NetworkEntry] = {}
        # The requests a route of the session answered, and how (engine/net_control.py).
        self.marks: Mapping[Request, str] = {}
        self._ended = asyncio.Event()  # set whenever a request ends

    def add_console(self, entry: ConsoleEntry) -> None:
        if len(self.console) == self.limit:
            self.console_dropped += 1
        self.console.append(entry)

    def clear_console(self) -> None:
        self.console.clear()
        self.console_dropped = 0

    def clear_network(self) -> None:
        self.network.clear()
        self._pending.clear()
        self.network_dropped = 0

    def on_console(self, message: ConsoleMessage) -> None:
        where = message.location
        url, line = where.get("url") or "", where.get("lineNumber")
        location = f"{url}:{line + 1}" if url and isinstance(line, int) else url
        self.add_console(
            ConsoleEntry(
                level=_LEVEL_OF_TYPE.get(message.type, "log"),
                type=message.type,
                text=_cut(message.text, TEXT_LIMIT),
                location=_cut(location, URL_LIMIT),
                time=time.time(),
            )
        )

    def on_page_error(self, error: PlaywrightError) -> None:
        name = error.name or "Error"
        # The first stack frame with a place says where it was thrown: "at f (url:line:col)".
        where = _STACK_PLACE.search(error.stack or "")
        self.add_console(
            ConsoleEntry(
                level="error",
                type="pageerror",
                text=_cut(f"{name}: {error.message}", TEXT_LIMIT),
                location=_cut(f"{where[1]}:{where[2]}" if where else "", URL_LIMIT),
                time=time.time(),
            )
        )

    def on_request(self, request: Request) -> None:
        entry = NetworkEntry(
            method=request.method,
            url=_cut(request.url, URL_LIMIT),
            resource_type=request.resource_type,
            time=time.time(),
            request_headers=redact_headers(request.headers),
        )
        if len(self.network) == self.limit:
            self.network_dropped += 1
            evicted = self.network[0]
            if not evicted.done:  # a request that never ends (long poll) must not pin it
                self._pending = {r: e for r, e in self._pending.items() if e is not evicted}
        self.network.append(entry)
        self._pending[request] = entry

    def pending_since(self, started: float) -> int:
        """How many requests sent since `started` (monotonic) have not ended yet."""
        return sum(1 for e in self._pending.values() if e.started >= started)

    def aborted_navigations_since(self, started: float) -> int:
        """Page loads sent since `started` that ended without a page (a download's do)."""
        return sum(
            1
            for e in self.network
            if e.started >= started and e.resource_type == "document" and e.failure is not None
        )

    async def quiet_since(self, started: float, timeout_s: float) -> None:
        """Wait until every request sent since `started` has ended, at most `timeout_s`."""
        deadline = monotonic() + timeout_s
        while self.pending_since(started):
            left = deadline - monotonic()
            if left <= 0:
                return
            self._ended.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ended.wait(), left)

    def on_response(self, response: Response) -> None:
        entry = self._pending.get(response.request)
        if entry is not None:
            entry.status = response.status
            entry.status_text = response.status_text
            entry.response_headers = redact_headers(response.headers)
            entry.route = self.marks.get(response.request)

    def on_request_finished(self, request: Request) -> None:
        self._ended.set()
        entry = self._pending.pop(request, None)
        if entry is not None:
            entry.duration_ms = round((time.monotonic() - entry.started) * 1000, 1)
            entry.route = self.marks.get(request)

    def on_request_failed(self, request: Request) -> None:
        self._ended.set()
        entry = self._pending.pop(request, None)
        if entry is not None:
            entry.failure = request.failure or "failed"
            entry.duration_ms = round((time.monotonic() - entry.started) * 1000, 1)
            entry.route = self.marks.get(request)


def attach_page_log(log: PageLog, page: Page) -> None:
    """Feed `log` from `page`'s events for as long as the page lives."""
    page.on("console", log.on_console)
    page.on("pageerror", log.on_page_error)
    page.on("request", log.on_request)
    page.on("response", log.on_response)
    page.on("requestfinished", log.on_request_finished)
    page.on("requestfailed", log.on_request_failed)
