"""Desktop events as they happen: focus, windows, names, values, text, states, applications.

AT-SPI listeners run on the AT-SPI thread (worker.py: libatspi delivers events only to the
thread whose GLib main loop runs). Each event becomes a small `DesktopEvent` in a ring
buffer of the last RING_SIZE, numbered by `seq`; waiters in the daemon's loop are woken with
`call_soon_threadsafe`. The listeners start on first use (`start`): a daemon that never
touches the desktop never registers them.

An event's callback reads what the event carries (type, details, any_data) and the fields
libatspi has already cached on its source (path, role, name): no D-Bus round trip per
event, so a flood of events or a hung application cannot stall the thread. An application's
name and pid are read once (when it starts, or at its first event), and an application
that starts is looked at a few times more to report its first windows (toolkits announce
them before anyone listens).

Generations: every event of an application (structure, state, name, text) bumps its pid's
generation, so a cached walk of the application is reusable while `generation(pid)` is
unchanged. Until the listeners run, nothing is known: each read returns a new number.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from steadyhand.config import DESKTOP_EVENT_KINDS, event_kinds
from steadyhand.desktop.atspi import atspi, attempt, glib
from steadyhand.desktop.deadline import Deadline
from steadyhand.desktop.tree import applications
from steadyhand.desktop.worker import AtspiWorker
from steadyhand.webhook import Webhook

log = logging.getLogger("steadyhand.desktop.events")

KINDS = DESKTOP_EVENT_KINDS
RING_SIZE = 10_000
ROOT = "/org/a11y/atspi/accessible/root"  # an application's root object (and the desktop's)
# Registered with the registry: applications emit only the events someone listens to.
LISTENED = (
    "object:state-changed",
    "object:property-change",
    "object:value-changed",
    "object:text-changed",
    "object:children-changed",
    "object:text-selection-changed",
    "object:text-caret-moved",
    "object:selection-changed",
    "window:",
)
# States whose change is reported (state.changed); the others (showing, visible, defunct
# ...) only bump the generation: they come in floods when windows map or apps quit.
REPORTED_STATES = frozenset(
    {"checked", "selected", "expanded", "pressed", "sensitive", "indeterminate", "busy"}
)
WINDOW_ROLES = frozenset({"frame", "window", "dialog", "alert", "file chooser"})
MAX_WINDOWS = 50  # top-level children looked at per application
MAX_TEXT = 200  # characters of text kept in an event's detail
REDACTED = "(redacted)"
# After an application starts: when to look again for windows it announced before anyone
# listened (seconds after its start).
LOOKS_S = (0.0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2)
ADDED, REMOVED = "object:children-changed:add", "object:children-changed:remove"
KEPT_GONE = 64  # exited applications remembered, for their late (synthesized) events


@dataclass(frozen=True, slots=True)
class DesktopEvent:
    seq: int
    ts: float  # time.time() when the daemon received it
    kind: str  # one of KINDS
    app: str
    pid: int
    role: str  # "" when libatspi had not cached it
    name: str
    path: str  # the object's path on the a11y bus: desktop refs are keyed (pid, path)
    detail: str
    atspi: str  # the AT-SPI event type, e.g. object:text-changed:insert

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


def matches(event: DesktopEvent, kinds: frozenset[str] | None, app: str | None) -> bool:
    """Whether a watch for `kinds` (None: all) of `app` (its name or pid) wants `event`."""
    return (kinds is None or event.kind in kinds) and (
        app is None or event.app == app or str(event.pid) == app
    )


class EventLog:
    """The ring of recent events and the generations; thread-safe.

    Events are added on the AT-SPI thread and read in the daemon's loop; `bind` names the
    loop whose waiters `add` wakes.
    """

    def __init__(self, size: int = RING_SIZE) -> None:
        self._ring: deque[DesktopEvent] = deque(maxlen=size)
        self._lock = threading.Lock()
        self._seq = 0
        self._generations: dict[int, int] = {}
        self._generation_any = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiters: set[asyncio.Event] = set()
        self._wake_pending = False

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    @property
    def last_seq(self) -> int:
        return self._seq

    def add(
        self,
        kind: str,
        *,
        app: str,
        pid: int,
        role: str = "",
        name: str = "",
        path: str = "",
        detail: str = "",
        atspi: str = "",
    ) -> DesktopEvent:
        """Record an event (any thread), bump its application's generation, wake waiters."""
        with self._lock:
            self._seq += 1
            event = DesktopEvent(
                self._seq,
                round(time.time(), 4),
                kind,
                app,
                pid,
                role,
                name,
                path,
                detail,
                atspi,
            )
            self._ring.append(event)
            self._bump(pid)
            wake = self._loop is not None and not self._wake_pending
            self._wake_pending = self._wake_pending or wake
        if wake and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits
                self._loop.call_soon_threadsafe(self._wake)
        return event

    def bump(self, pid: int) -> None:
        """Something of `pid` changed that is not reported as an event."""
        with self._lock:
            self._bump(pid)

    def _bump(self, pid: int) -> None:
        self._generations[pid] = self._generations.get(pid, 0) + 1
        self._generation_any += 1

    def generation(self, pid: int) -> int:
        return self._generations.get(pid, 0)

    def generation_any(self) -> int:
        return self._generation_any

    def since(
        self,
        seq: int,
        kinds: frozenset[str] | None = None,
        app: str | None = None,
        limit: int | None = None,
    ) -> tuple[list[DesktopEvent], int, int]:
        """Events after `seq` that match (at most `limit`); how many after `seq` had already
        left the ring (missed); and the seq read up to (the last event looked at)."""
        with self._lock:
            if seq >= self._seq or not self._ring:
                return [], 0, seq
            oldest = self._ring[0].seq
            missed = max(0, oldest - seq - 1)
            newer = list(itertools.islice(self._ring, max(0, seq + 1 - oldest), None))
        found: list[DesktopEvent] = []
        read_to = seq + missed
        for event in newer:
            read_to = event.seq
            if matches(event, kinds, app):
                found.append(event)
                if limit is not None and len(found) >= limit:
                    break
        return found, missed, read_to

    async def wait(self, seq: int, timeout_s: float | None) -> bool:
        """Wait until an event after `seq` is in the ring; False when the time ran out."""
        if self._seq > seq:
            return True
        woken = asyncio.Event()
        self._waiters.add(woken)
        try:
            while self._seq <= seq:
                woken.clear()
                try:
                    await asyncio.wait_for(woken.wait(), timeout_s)
                except TimeoutError:
                    return self._seq > seq
            return True
        finally:
            self._waiters.discard(woken)

    def _wake(self) -> None:
        with self._lock:
            self._wake_pending = False
        for waiter in self._waiters:
            waiter.set()


@dataclass
class _App:
    name: str
    pid: int
    windows: dict[str, tuple[str, str]] = field(default_factory=dict)  # path: role, title


class DesktopEvents:
    """The desktop's event bus: AT-SPI listeners feeding an EventLog, started on first use.

    Public: `start(deadline)`, `listening`, `generation(pid)`, `generation_any()`, `log`
    (since, wait, last_seq), and `forward(webhook, kinds)` for the wake webhook.
    """

    def __init__(self, worker: AtspiWorker, size: int = RING_SIZE) -> None:
        self.worker = worker
        self.log = EventLog(size)
        self.listening = False
        self._starting: asyncio.Lock | None = None
        self._unknown = itertools.count(1)
        self._listener: Any = None  # Atspi.EventListener, kept alive while registered
        self._atspi: Any = None
        self._apps: dict[str, _App] = {}  # by the application's bus name
        self._gone: dict[str, _App] = {}
        self._forwarding: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ in the daemon's loop

    async def start(self, deadline: float) -> None:
        """Register the listeners (once); raise the worker's error without a desktop."""
        if self.listening:
            return
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self.listening:
                return
            self.log.bind(asyncio.get_running_loop())
            await self.worker.run(self._register, deadline, "starting desktop event listeners")
            self.listening = True

    async def caught_up(self, deadline: float) -> None:
        """Return once the events that reached the daemon so far are in the log: a turn of
        the AT-SPI thread, whose queued event dispatches run before it."""
        await self.worker.run(lambda _: None, deadline, "reading desktop events")

    def generation(self, pid: int) -> int:
        """A number that changes whenever application `pid` may have changed (events of it
        received so far); a new number on each read until the listeners run."""
        return self.log.generation(pid) if self.listening else -next(self._unknown)

    def generation_any(self) -> int:
        """As `generation`, for any application (and applications starting or exiting)."""
        return self.log.generation_any() if self.listening else -next(self._unknown)

    def forward_soon(self, webhook: Webhook, kinds: frozenset[str]) -> None:
        """Start posting events of `kinds` to `webhook` in the background (once; again
        after a failed start)."""
        if self._forwarding is not None and not self._forwarding.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a library caller): nothing to post from
        self._forwarding = loop.create_task(self.forward(webhook, kinds))

    async def forward(self, webhook: Webhook, kinds: frozenset[str]) -> None:
        try:
            await self.start(time.monotonic() + 30)
        except Exception as exc:
            log.warning("%s: the desktop event listeners did not start: %s", webhook.name, exc)
            return
        log.info("%s %s posts desktop events: %s", webhook.name, webhook.label, sorted(kinds))
        seq = self.log.last_seq
        while True:
            events, missed, seq = self.log.since(seq, kinds)
            if missed:
                log.warning("%s missed %d desktop event(s) (buffer overrun)", webhook.name, missed)
            for event in events:
                webhook.send(event.as_dict(), f"desktop event {event.seq} ({event.kind})")
            await self.log.wait(seq, None)

    # ------------------------------------------------------------ on the AT-SPI thread

    def _register(self, _deadline: Deadline) -> None:
        self._atspi = Atspi = atspi()  # once: atspi() checks the gi import on each call
        for name, pid, obj in applications():
            app = _App(name, pid)
            self._apps[_bus(obj)] = app
            self._windows(obj, app, report=False)
        self._listener = Atspi.EventListener.new(self._on_event)
        for kind in LISTENED:
            self._listener.register(kind)

    def _on_event(self, event: Any) -> None:
        try:
            self._handle(event)
        except Exception:  # a bad event must not cost the next ones
            log.exception("desktop event %s could not be read", getattr(event, "type", "?"))

    def _handle(self, event: Any) -> None:
        Atspi = self._atspi
        kind_of: str = event.type
        source = event.source
        path = str(source.path)
        bus = _bus(source)
        data = event.any_data
        if kind_of.startswith("object:children-changed"):
            child = data if isinstance(data, Atspi.Accessible) else None
            # The desktop's own children are applications (on buses of their own).
            if (
                path == ROOT
                and child is not None
                and str(child.path) == ROOT
                and _bus(child) != bus
            ):
                if ":add" in kind_of:
                    self._app_started(child)
                else:
                    self._app_exited(_bus(child))
                return
            app = self._app(source, bus)
            if app is not None and path == ROOT and child is not None:  # a top-level window
                if ":remove" in kind_of:
                    self._window_gone(app, str(child.path), kind_of)
                else:
                    self._windows(source, app, report=True)
            if app is not None and path != ROOT:  # the tree changed: a child came or went
                role, name = _cached(Atspi, source)
                minor = "add" if ":add" in kind_of else "remove"
                self._say("children.changed", app, path, role, name, detail=minor, atspi=kind_of)
            elif app is not None:
                self.log.bump(app.pid)
            return
        app = self._app(source, bus)
        if app is None:
            return
        role, name = _cached(Atspi, source)
        kind, detail = classify(kind_of, event.detail1, data, role)
        if kind == "window.created":
            if path in app.windows:
                self.log.bump(app.pid)
                return
            # Rare, and from an application that answers: worth a call for what it is.
            role = role or str(attempt(source.get_role_name, "") or "")
            name = detail or name
            app.windows[path] = (role, name)
        elif kind == "window.destroyed":
            self._window_gone(app, path, kind_of)
            return
        if kind is None:
            self.log.bump(app.pid)
            return
        self._say(kind, app, path, role, name, detail=detail, atspi=kind_of)

    def _say(
        self, kind: str, app: _App, path: str, role: str = "", name: str = "", **more: str
    ) -> None:
        self.log.add(kind, app=app.name, pid=app.pid, role=role, name=name, path=path, **more)

    def _app(self, source: Any, bus: str) -> _App | None:
        """The application an event came from: known, or read once now (None: it exited;
        libatspi's late events for its objects are of no one's interest)."""
        app = self._apps.get(bus)
        if app is not None:
            return app
        if bus in self._gone:
            return None
        root = attempt(source.get_application)
        app = _App(_words(attempt(root.get_name)) if root else "", _pid(source))
        self._apps[bus] = app
        return app

    def _app_started(self, root: Any) -> None:
        """Report the application now (its name and pid: two calls, once), and its windows
        over the next seconds."""
        bus = _bus(root)
        self._gone.pop(bus, None)
        app = self._apps.get(bus) or _App(_words(attempt(root.get_name)), _pid(root))
        self._apps[bus] = app
        self._say("app.started", app, ROOT, "application", app.name, atspi=ADDED)
        started = time.monotonic()
        looks = iter(LOOKS_S)

        def look() -> bool:
            if self._apps.get(bus) is not app:
                return False  # it exited meanwhile
            self._windows(root, app, report=True)
            after = next(looks, None)
            if after is not None:
                delay = max(0, int((started + after - time.monotonic()) * 1000))
                glib().timeout_add(delay, look)
            return False

        look()

    def _app_exited(self, bus: str) -> None:
        app = self._apps.pop(bus, None)
        if app is None:
            return
        for path in list(app.windows):
            self._window_gone(app, path, REMOVED)
        self._say("app.exited", app, ROOT, "application", app.name, atspi=REMOVED)
        self._gone[bus] = app
        while len(self._gone) > KEPT_GONE:
            self._gone.pop(next(iter(self._gone)))

    def _windows(self, root: Any, app: _App, report: bool) -> None:
        """Note the application's top-level windows; report those not known yet."""
        count = int(attempt(root.get_child_count, 0) or 0)
        for i in range(min(count, MAX_WINDOWS)):
            window = attempt(lambda i=i: root.get_child_at_index(i))
            if window is None:
                continue
            path = str(window.path)
            if path in app.windows:
                continue
            role = str(attempt(window.get_role_name, "") or "")
            if role not in WINDOW_ROLES:
                continue
            title = _words(attempt(window.get_name))
            app.windows[path] = (role, title)
            if report:  # found by looking, not told: no AT-SPI event type
                self._say("window.created", app, path, role, title)

    def _window_gone(self, app: _App, path: str, kind_of: str) -> None:
        known = app.windows.pop(path, None)
        if known is None:
            self.log.bump(app.pid)
            return
        role, title = known
        self._say("window.destroyed", app, path, role, title, atspi=kind_of)


def _bus(obj: Any) -> str:
    """The bus name of an object's application (a field: no call)."""
    app = obj.app
    return str(app.bus_name) if app is not None and app.bus_name else ""


def _words(text: Any) -> str:
    """A name with its white space folded (GTK pads some)."""
    return " ".join(str(text or "").split())


def _pid(obj: Any) -> int:
    """The process of an object's application: one call to the bus daemon, not the app."""
    return int(attempt(obj.get_process_id, 0) or 0)


def _cached(Atspi: Any, source: Any) -> tuple[str, str]:
    """The role and name libatspi has cached for an object ("" where it has not)."""
    cached = int(source.cached_properties)
    role = str(Atspi.role_get_name(source.role) or "") if cached & int(Atspi.Cache.ROLE) else ""
    name = _words(source.name) if cached & int(Atspi.Cache.NAME) else ""
    return role, name


def classify(kind_of: str, detail1: int, data: Any, role: str) -> tuple[str | None, str]:
    """(kind, detail) of an AT-SPI event; kind None: not reported (it only bumps the
    generation)."""
    parts = kind_of.split(":")
    group, minor = ":".join(parts[:2]), parts[2] if len(parts) > 2 else ""
    if group == "object:state-changed":
        if minor == "focused":
            return ("focus", "") if detail1 else (None, "")
        if minor in REPORTED_STATES:
            return "state.changed", f"{minor}={'true' if detail1 else 'false'}"
        return None, ""
    if group == "object:property-change":
        if minor == "accessible-name":
            return "name.changed", _text(data)
        if minor == "accessible-value":
            return "value.changed", _text(data)
        return None, ""
    if group == "object:value-changed":
        return "value.changed", _text(data)
    if group == "object:text-changed" and minor in ("insert", "delete"):
        text = REDACTED if role == "password text" else _text(data)
        return "text.changed", f"{minor} at {detail1}: {text!r}"
    if group in ("object:text-selection-changed", "object:selection-changed"):
        return "selection.changed", ""
    if group == "object:text-caret-moved":
        return "caret.moved", f"at {detail1}"
    if kind_of.startswith("window:create"):
        return "window.created", _text(data)
    if kind_of.startswith("window:destroy"):
        return "window.destroyed", _text(data)
    return None, ""


def _text(data: Any) -> str:
    if data is None or not isinstance(data, str | int | float):
        return ""
    text = " ".join(str(data).split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def kinds_of(text: str | None) -> frozenset[str] | None:
    """`--events focus,window` as kinds; None: all."""
    return event_kinds(text) if text else None
