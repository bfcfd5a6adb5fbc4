"""The desktop as the daemon sees it: applications, snapshots with refs, verified actions.

Each action says which transport acted (`atspi`: the object's own accessible action or
text interface; `xinput`: a real click at the centre of its box, for objects that offer
no action) and is verified through the tree where the tree can show the effect.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Playwright

from steadyhand.desktop import display, procs, see, xwindows
from steadyhand.desktop.atspi import OFFSCREEN, Box, Facts, atspi, attempt, read
from steadyhand.desktop.bulk import BulkReader, BulkUnsupported
from steadyhand.desktop.deadline import Deadline, timed_out
from steadyhand.desktop.effects import REFUSED, Watcher, top_level, window_of
from steadyhand.desktop.events import DesktopEvents
from steadyhand.desktop.router import Acted, Router, judge
from steadyhand.desktop.transport import Target, Want
from steadyhand.desktop.tree import (
    DesktopRefs,
    Node,
    ObjectGone,
    ancestor,
    applications,
    render,
    visible,
    walk,
)
from steadyhand.desktop.via_atspi import AtspiTransport
from steadyhand.desktop.via_cdp import CdpTransport
from steadyhand.desktop.via_xinput import XInputTransport
from steadyhand.desktop.worker import CALL_TIMEOUT_MS, MARGIN_S, AtspiWorker
from steadyhand.errors import ErrorCode, SteadyhandError

log = logging.getLogger(__name__)
Listed = tuple[str, int, Any]  # an application's name, pid, and its bus name or libatspi object
# Keys whose combination with another is a shortcut: its effect may lie where nothing is
# watched (the clipboard, a file), so nothing seen is `unverifiable`, not a no-op.
SHORTCUTS = frozenset({"ctrl", "control", "alt", "super", "meta", "win"})
FOCUS_S = 0.5  # how long `press --ref` waits for its element to say it has the focus
NO_ANSWER_S = CALL_TIMEOUT_MS / 1000 * 0.8  # an answer this late came from libatspi's timeout
WHOLE_WINDOWS = ("frame", "window", "dialog")  # not boxed: their box is the whole window
DESKTOP_REF = re.compile(r"d[0-9]+")
POINT_PART = re.compile(r"\s*[+-]?[0-9]+\s*")


@dataclass
class Walked:
    root: Node
    generation: int  # the event bus's generation of its application when walked
    at: float  # time.monotonic() when the walk ended (a walk of a big app takes seconds)


class Desktop:
    def __init__(self, playwright: Callable[[], Awaitable[Playwright]], cache_ms: int = 0) -> None:
        self.worker = AtspiWorker()
        self.refs = DesktopRefs()
        self.events = DesktopEvents(self.worker)
        self.cache_s = max(0, cache_ms) / 1000
        self._walks: dict[int, Walked] = {}  # pid -> its last walk
        self.bulk = BulkReader() if BulkReader.available() else None
        self.cdp = CdpTransport(playwright)
        self.watcher = Watcher(self.events, self.worker, self.refs.boxes)
        self.router = Router(
            self.worker,
            [AtspiTransport(self.worker), self.cdp, XInputTransport(self.worker)],
            self.watcher,
        )

    async def apps(self, deadline: float) -> list[dict[str, Any]]:
        def work(_: Deadline) -> list[dict[str, Any]]:
            return [{"name": n, "pid": p} for n, p, _obj in applications()]

        return await self.worker.run(work, deadline, "listing applications")

    async def snapshot(
        self,
        app: str | None,
        everything: bool,
        deadline: float,
        *,
        fresh: bool = False,
        window: str | None = None,
        walk_only: bool = False,
    ) -> tuple[str, dict[int, str]]:
        """The tree as text (of every app, one app, or one top-level window), and how each
        application's tree was had: `cache` (its last read reused), `bulk`, `bulk p2p` or
        `walk` (bulk.py, tree.walk)."""
        reuse = await self._cache_usable(deadline, fresh)
        shown: xwindows.WindowFacts | None = None
        if window is not None:
            shown = await self.worker.run(
                lambda _: xwindows.find(xwindows.parse_id(window))[1], deadline, "finding it"
            )
            app = _pid_of(shown)
        roots, how = await self._trees(app, deadline, reuse, walk_only)

        def work(_: Deadline) -> str:
            screen = display.size()
            chosen = roots if shown is None else [_frame_of(roots[0], shown)]
            return "\n".join(render(r, screen, everything) for r in chosen)

        return await self.worker.run(work, deadline, "desktop snapshot"), how

    async def _cache_usable(self, deadline: float, fresh: bool) -> bool:
        """Whether a walk may be reused: caching is on, and the event bus listens and has
        taken in every event that reached the daemon so far."""
        if fresh or not self.cache_s:
            return False
        await self.events.start(deadline)
        await self.events.caught_up(deadline)
        return True

    def changed(self, pid: int | None = None) -> None:
        """Something was done to application `pid` (None: to any): walk it again."""
        if pid is None:
            self._walks.clear()
        else:
            self._walks.pop(pid, None)

    async def health(self) -> list[dict[str, Any]]:
        """Each transport in the router's order: whether it works now, and its details."""
        found = []
        for transport in self.router.transports:
            try:
                found.append({"name": transport.name, **await transport.health()})
            except SteadyhandError as exc:
                found.append({"name": transport.name, "ok": False, "error": exc.message})
            except Exception as exc:  # the health of a transport is what is asked
                found.append({"name": transport.name, "ok": False, "error": str(exc)})
        return found

    async def act(
        self, ref: str, want: Want, deadline: float, *, allow_noop: bool = False
    ) -> Acted:
        """Do `want` to the ref's element through the best transport that can (router)."""
        target = await self.worker.run(lambda _: self._target(ref), deadline, f"finding {ref}")
        if target.web is not None:
            target.cdp = await self.cdp.endpoint(target.facts.pid)
        try:
            return await self.router.act(target, want, deadline, allow_noop=allow_noop)
        finally:  # a drop may land in another application
            self.changed(None if want.kind == "drag" else target.facts.pid)

    async def drag(self, ref: str, to: str, deadline: float, *, allow_noop: bool = False) -> Acted:
        """Drag the ref's element to another ref's centre, a screen point `X,Y`, or by an
        offset `+DX,-DY` (signed numbers: relative to where the drag starts)."""
        point = await self.worker.run(lambda _: self._point(ref, to), deadline, "drag target")
        return await self.act(ref, Want("drag", to=point), deadline, allow_noop=allow_noop)

    def _point(self, ref: str, to: str) -> tuple[int, int]:
        if DESKTOP_REF.fullmatch(to):
            _node, facts = self._live(to)
            if facts.box is None:
                raise SteadyhandError(
                    ErrorCode.NOT_ACTIONABLE,
                    f"{to} ({facts.role} {facts.name!r}) has no box to drop on",
                    "drop on a visible element's ref, or on a point X,Y",
                )
            return facts.box.centre
        parts = to.split(",")
        if len(parts) != 2 or not all(POINT_PART.fullmatch(p.strip()) for p in parts):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"drag target {to!r} is neither a desktop ref nor a point",
                "give a ref (d12), a screen point (400,300) or an offset (+120,+0)",
            )
        x, y = (int(p) for p in parts)
        if any(p.strip()[0] in "+-" for p in parts):
            _node, facts = self._live(ref)
            if facts.box is None:
                raise SteadyhandError(
                    ErrorCode.NOT_ACTIONABLE, f"{ref} has no box to start a drag from", ""
                )
            start = facts.box.centre
            x, y = start[0] + x, start[1] + y
        width, height = display.size()
        if not (0 <= x < width and 0 <= y < height):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"drag target {to!r} is at ({x}, {y}), off the {width}x{height} screen",
                "drop on a point of the screen, or on a visible element's ref",
            )
        return x, y

    def _target(self, ref: str) -> Target:
        node, facts = self._live(ref)
        document = ancestor(node, "document web")
        return Target(
            ref,
            node,
            facts,
            web=document.facts.name if document else None,
            screen=display.size(),
        )

    async def menu(
        self, path: str, app: str | None, deadline: float, *, allow_noop: bool = False
    ) -> Acted:
        """Choose a menu item by its path (`File > Save`) in an application's menu bar."""
        names = [" ".join(part.split()) for part in path.split(">") if part.strip()]

        roots = (await self._trees(app, deadline))[0]

        def work(_: Deadline) -> str:
            found: Node | None = None
            tops: list[str] = []
            for root in roots:
                for bar in _all(root, "menu bar"):
                    tops += [c.facts.name for c in bar.children]
                    found = found or _follow(bar, names)
            if found is None or found.ref is None:
                raise SteadyhandError(
                    ErrorCode.NOT_FOUND,
                    f"no menu item {path!r}",
                    "menus: "
                    + (", ".join(repr(t) for t in tops) or "none found")
                    + "; separate levels with >, e.g. 'File > Save'",
                )
            return found.ref

        ref = await self.worker.run(work, deadline, f"desktop menu {path}")
        return await self.act(ref, Want("click"), deadline, allow_noop=allow_noop)

    async def see(
        self, annotate: bool, app: str | None, deadline: float
    ) -> tuple[bytes, list[tuple[str, Box]]]:
        """The screen as PNG bytes, and the refs boxed on it (with `annotate`)."""

        roots = (await self._trees(app, deadline))[0] if annotate else []

        def work(_: Deadline) -> tuple[bytes, list[tuple[str, Box]]]:
            boxes: list[tuple[str, Box]] = []
            if annotate:
                screen = display.size()
                stack = [] if display.is_wayland() else xwindows.stacking()
                for root in roots:
                    boxes += [
                        (n.ref, n.facts.box)
                        for n in _shown(root, screen)
                        if n.ref
                        and n.facts.box
                        and n.facts.role not in WHOLE_WINDOWS
                        and not xwindows.covered(n.facts.pid, n.facts.box.centre, stack)
                    ]
            canvas = display.grab()
            see.annotate(canvas, boxes)
            return canvas.png(), boxes

        return await self.worker.run(work, deadline, "desktop see")

    async def press(
        self, keys: str, ref: str | None, deadline: float, *, allow_noop: bool = False
    ) -> tuple[str, str, str]:
        """Press a key combination (X input), on `ref` once it has the focus: the route,
        and the effect with its evidence (effects.py), watched in the ref's window (any
        application's events and the whole screen, without one: then a change is only
        `partial`, as the keys' own). The focus is given before the watch begins: the
        field's own focus is not what the keys did; an element that does not take it gets
        no keys (`not_actionable`, refused)."""
        facts: Facts | None = None
        window: Box | None = None
        if ref is not None:

            def focus(limit: Deadline) -> tuple[Node, Facts]:
                node, _facts = self._live(ref)
                _focus_window(node)  # X sends keys to the focused window, not the widget's
                atspi().Component.grab_focus(node.obj)
                until = min(limit.at, time.monotonic() + FOCUS_S)
                while True:
                    now = read(node.obj, node.facts.pid, limit)
                    if "focused" in now.states:
                        return node, now
                    if time.monotonic() > until:
                        raise unfocused(ref, now)
                    time.sleep(0.02)

            node, facts = await self.worker.run(focus, deadline, f"focusing {ref}")
            window = window_of(node)
        else:
            width, height = await self.worker.run(lambda _: display.size(), deadline, "screen")
            window = Box(0, 0, width, height)
        await self.worker.run(lambda _: display.prepare(), deadline, "preparing real input")
        watch = await self.watcher.begin(
            facts.pid if facts else None,
            facts.path if facts else "",
            window,
            facts.box if facts else None,  # its own focus ring; what keys do, its events say
            deadline,
        )

        def work(_: Deadline) -> str:
            display.press(keys)
            return display.route()

        try:
            route = await self.worker.run(work, deadline, f"desktop press {keys}")
        finally:
            self.changed()  # keys reach whichever application has the focus
        seen = await self.watcher.settle(watch, deadline)
        what = f"press {keys}" + (f" on {ref}" if ref else "")
        held = [part.strip().lower() for part in keys.split("+")][:-1]
        shortcut = any(part in SHORTCUTS for part in held)
        found, why = judge(
            seen,
            self.watcher.can_watch(watch),
            what,
            route,
            allow_noop=allow_noop,
            outside=shortcut,
            unaimed=ref is None,
        )
        return route, found, why

    async def _listed(self, app: str | None, deadline: float, bulk: bool) -> list[Listed]:
        """The applications (or the one named by name or pid), each with what reads it: its
        bus name for a bulk read, its libatspi object for a walk."""
        found: list[Listed] | None = None
        if bulk and self.bulk is not None:
            try:
                found = list(await self.bulk.applications(deadline - MARGIN_S))
            except BulkUnsupported as exc:  # the walk's worker says what is missing
                log.info("desktop: no bulk reads: %s", exc)
        if found is None:
            found = await self.worker.run(lambda _: applications(), deadline, "listing apps")
        chosen = [a for a in found if app is None or a[0] == app or str(a[1]) == app]
        if not chosen:
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                f"no application named {app!r} on the accessibility bus",
                "`desktop apps` lists them; an app started just now may need a moment",
            )
        return chosen

    async def _trees(
        self, app: str | None, deadline: float, reuse: bool = False, walk_only: bool = False
    ) -> tuple[list[Node], dict[int, str]]:
        """Each application's tree (or the one named), its refs handed out; with `reuse`,
        an application's last read while it is fresh. Also how each was had."""
        roots: list[Node] = []
        how: dict[int, str] = {}
        read: list[Node] = []
        for _name, pid, handle in await self._listed(app, deadline, not walk_only):
            last = self._walks.get(pid)
            if (
                reuse
                and last is not None
                and time.monotonic() - last.at < self.cache_s
                and self.events.generation(pid) == last.generation
            ):
                roots.append(last.root)
                how[pid] = "cache"
                continue
            generation = self.events.generation(pid)  # before: what changes during the read counts
            had = await self._read(handle, pid, deadline, alone=app is not None)
            if had is None:  # it exited since it was listed
                continue
            root, how[pid] = had
            self._walks[pid] = Walked(root, generation, time.monotonic())  # its age: from its end
            roots.append(root)
            read.append(root)

        def assign(_: Deadline) -> None:
            for root in read:
                if display.is_wayland():
                    _place(root)
                self.refs.assign(root, whole_app=True)

        await self.worker.run(assign, deadline, "handing out refs")
        return roots, how

    async def _read(
        self, handle: Any, pid: int, deadline: float, *, alone: bool
    ) -> tuple[Node, str] | None:
        """One application's tree: in bulk by its bus name, else walked (an application
        whose root does not answer the bulk calls, too). None: it exited meanwhile (when
        it is not the `alone` one asked for, whose absence is `not_found`)."""
        if isinstance(handle, str) and self.bulk is not None:
            try:
                return await self.bulk.read(handle, pid, deadline - MARGIN_S)
            except BulkUnsupported as exc:
                log.info("desktop: walking pid %d: %s", pid, exc)
                try:
                    listed = await self._listed(str(pid), deadline, bulk=False)
                except SteadyhandError as gone:
                    if alone or gone.code != ErrorCode.NOT_FOUND:
                        raise
                    return None
                handle = listed[0][2]
        root = await self.worker.run(
            lambda limit: walk(handle, pid, limit), deadline, "reading the accessibility tree"
        )
        return root, "walk"

    def _live(self, ref: str) -> tuple[Node, Facts]:
        """The ref's object, read now. A gone object's ref is tombstoned; a hung
        application's answers `timeout` (its objects may come back)."""
        node = self.refs.node(ref)
        started = time.monotonic()
        try:
            obj = node.obj
        except ObjectGone:
            raise self.refs.forget(ref) from None
        role = attempt(obj.get_role_name, "")
        if not role and time.monotonic() - started > NO_ANSWER_S:
            # libatspi gives up on a hung application with an empty answer, as it answers
            # for a gone object: only the wait tells them apart.
            raise timed_out(f"the application of {ref} does not answer")
        # libatspi answers a gone application's cached role for a while: its process
        # having ended settles it.
        ended = node.facts.pid > 0 and not procs.alive(node.facts.pid)
        if not role or role == "invalid" or ended:
            raise self.refs.forget(ref)
        facts = read(obj, node.facts.pid)
        if display.is_wayland() and facts.box is not None:
            dx, dy = display.origin(node.facts.pid, top_level(node).facts.name)
            facts = _moved(facts, dx, dy)
        return node, facts


def _shown(root: Node, screen: tuple[int, int]) -> list[Node]:
    """The nodes a snapshot shows: visible, under visible parents."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.facts.role != "application" and not visible(node.facts, screen):
            continue
        found.append(node)
        stack.extend(node.children)
    return found


def unfocused(ref: str, facts: Facts) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.NOT_ACTIONABLE,
        f"{ref} ({facts.role} {facts.name!r}) did not take the keyboard focus: no keys were sent",
        "press without --ref sends them wherever the focus is; or focus its window first "
        "(`desktop window focus ID`)",
        {"effect": REFUSED},
    )


def _place(root: Node) -> None:
    """Under Wayland, move the boxes of each of an application's windows (relative to the
    window there) by where the window is on the screen (sway's tree)."""
    for window in root.children:
        try:
            dx, dy = display.origin(root.facts.pid, window.facts.name)
        except SteadyhandError:  # not mapped (yet): its boxes stay as read
            continue
        stack = [window]
        while stack:
            node = stack.pop()
            node.facts = _moved(node.facts, dx, dy)
            stack.extend(node.children)


def _moved(facts: Facts, dx: int, dy: int) -> Facts:
    box = facts.box
    if box is None or box.x == OFFSCREEN or not (dx or dy):
        return facts
    return dataclasses.replace(facts, box=Box(box.x + dx, box.y + dy, box.width, box.height))


def _focus_window(node: Node) -> None:
    """Give the keyboard to the top-level window `node` is in, when another has it."""
    display.focus_window(node.facts.pid, top_level(node).facts.name)


def _pid_of(window: xwindows.WindowFacts) -> str:
    if window.pid is None:
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"window {window.summary()} names no process (_NET_WM_PID), so its application "
            "on the accessibility bus is unknown",
            "snapshot its application with --app NAME (`desktop apps` lists them)",
        )
    return str(window.pid)


def _frame_of(root: Node, window: xwindows.WindowFacts) -> Node:
    """The application's top-level accessible that is this X window: its title, and of
    several so titled, the one whose box is nearest the window's corner."""
    tops = [c for c in root.children if c.facts.role in (*WHOLE_WINDOWS, "alert")]
    titled = [c for c in tops if c.facts.name == " ".join(window.title.split())]

    def distance(node: Node) -> int:
        box = node.facts.box
        return abs(box.x - window.x) + abs(box.y - window.y) if box else 2**31

    if not titled:
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"no window titled {window.title!r} in {root.facts.name!r} on the accessibility bus",
            "its windows: "
            + (", ".join(repr(t.facts.name) for t in tops) or "none")
            + "; snapshot the whole application with --app",
        )
    return min(titled, key=distance)


def _all(root: Node, role: str) -> list[Node]:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.facts.role == role:
            found.append(node)
        stack.extend(node.children)
    return found


def _follow(bar: Node, names: list[str]) -> Node | None:
    """The item at the end of `names` under a menu bar (names compared without case)."""
    current = bar
    for name in names:
        nxt = next((c for c in current.children if c.facts.name.lower() == name.lower()), None)
        if nxt is None:
            return None
        current = nxt
    return current
