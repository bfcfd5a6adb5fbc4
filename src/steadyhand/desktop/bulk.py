"""An application's accessibility tree read in bulk: pipelined D-Bus calls, not a walk.

The walk (tree.walk) asks libatspi one property at a time and waits for each answer: about
eight round trips per object, 1 to 2.5 s for a 1 000-object window. Here the same questions
go straight onto the accessibility bus (dbus-fast), up to WINDOW at once, each answer
sending the next questions (an object's children as soon as its `GetChildren` answers),
so the application answers back to back instead of waiting on us. An application that
offers a peer-to-peer socket (GTK's atk-bridge) is read over it, past the bus daemon.

Only reads happen here, on the daemon's event loop; the facts are libatspi's own (the same
`Facts` as atspi.read, tested side by side), and each node's libatspi object is found when
an action needs it (Node.obj). An application whose root does not answer these calls is
walked instead (`BulkUnsupported`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from steadyhand.desktop.atspi import STATES, Box, Facts, atspi
from steadyhand.desktop.deadline import timed_out
from steadyhand.desktop.tree import MAX_NODES, Node

WINDOW = 128  # calls in flight per connection: dbus-fast does not wait on a full socket
CHECK_S = 0.25  # how often a wait looks whether the connection is still there
ANSWER_S = 1.0  # how long an application may take to say its name or offer its socket
ROOT = "/org/a11y/atspi/accessible/root"
REGISTRY = "org.a11y.atspi.Registry"
NULL = "/org/a11y/atspi/null"
P = "org.a11y.atspi."
PROPS = "org.freedesktop.DBus.Properties"
DBUS, DBUS_PATH = "org.freedesktop.DBus", "/org/freedesktop/DBus"
Reply = list[Any] | None  # a reply's body, None for an error
WINDOWS = ("frame", "window", "dialog")


class BulkUnsupported(Exception):
    """The application does not answer the calls a bulk read makes: walk it."""


@functools.cache
def role_names() -> dict[int, str]:
    Atspi = atspi()
    return {int(r): Atspi.role_get_name(r) for r in Atspi.Role.__enum_values__.values()}


@functools.cache
def state_bits() -> dict[str, int]:
    Atspi = atspi()
    return {name: int(getattr(Atspi.StateType, name.upper())) for name in STATES}


def states_of(words: list[int]) -> frozenset[str]:
    bits = sum(int(w) << (32 * i) for i, w in enumerate(words))
    return frozenset(name for name, bit in state_bits().items() if bits >> bit & 1)


class Pipe:
    """Calls to one peer over one connection; each answer goes to the call's callback, which
    may make more calls. At most WINDOW calls are in flight on the connection, counted in
    `budget`, which every Pipe on it shares (dbus-fast does not wait on a full socket)."""

    def __init__(self, bus: Any, dest: str | None, budget: list[int]) -> None:
        from dbus_fast import Message

        self._message = Message
        self.bus = bus
        self.dest = dest
        self.calls = 0
        self._budget = budget
        self._waiting: list[tuple[Any, Callable[[Reply], None]]] = []
        self._sent: dict[int, Callable[[Reply], None]] = {}
        self._idle: asyncio.Future[None] | None = None
        bus.add_message_handler(self._on_message)

    def close(self) -> None:
        """Stop listening; answers still to come are dropped (their budget given back)."""
        self.bus.remove_message_handler(self._on_message)
        self._budget[0] -= len(self._sent)
        self._sent.clear()
        self._waiting.clear()

    def call(
        self,
        path: str,
        iface: str,
        member: str,
        then: Callable[[Reply], None],
        signature: str = "",
        *args: Any,
    ) -> None:
        message = self._message(
            destination=self.dest,
            path=path,
            interface=iface,
            member=member,
            signature=signature,
            body=list(args),
        )
        self._waiting.append((message, then))
        self.calls += 1
        self._pump()

    def _pump(self) -> None:
        while self._waiting and self._budget[0] < WINDOW:
            message, then = self._waiting.pop()
            message.serial = self.bus.next_serial()
            self._sent[message.serial] = then
            self._budget[0] += 1
            self.bus.send(message)

    def _on_message(self, message: Any) -> bool:
        then = self._sent.pop(message.reply_serial, None) if message.reply_serial else None
        if then is None:
            return False
        self._budget[0] -= 1
        then(None if message.message_type.name == "ERROR" else list(message.body))
        self._pump()
        if not self._sent and not self._waiting and self._idle and not self._idle.done():
            self._idle.set_result(None)
        return True

    async def drained(self, deadline: float, doing: str, *, quiet: bool = False) -> bool:
        """Wait until every call made (and every call their answers made) has answered:
        True. At `deadline`, `timeout` (`quiet`: False, the rest dropped); the connection
        closing (the application exited) is `BulkUnsupported`."""
        if not self._sent and not self._waiting:
            return True
        idle = self._idle = asyncio.get_running_loop().create_future()
        while not idle.done():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            # Looked at between waits: dbus-fast drops our handler when the peer goes away
            # and says nothing (awaiting its disconnect future would cancel it for good).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(idle), min(left, CHECK_S))
            if not idle.done() and not self.bus.connected:
                self.close()
                raise BulkUnsupported(f"{doing}: the connection closed (the application exited?)")
        if idle.done():
            return True
        self.close()
        if quiet:
            return False
        raise timed_out(f"{doing} did not finish within its deadline")


@dataclass(eq=False)
class _Object:
    """One object's answers as they arrive."""

    path: str
    parent: _Object | None
    index: int
    role: str = ""
    name: str = ""
    states: frozenset[str] = frozenset()
    interfaces: frozenset[str] = frozenset()
    box: Box | None = None
    actions: tuple[str, ...] = ()
    text: str | None = None
    kids: list[_Object] = field(default_factory=list)
    answers: int = 0
    selected: str | None = None  # a Selection's first chosen child's path
    count: int = 0  # its ChildCount


# Answers every object waits for before the calls that depend on them (role, states,
# interfaces, GetAll); one more where Name and GetChildren are asked one by one.
FIRST = 4


class Reading:
    """One application's tree, read over a Pipe.

    An object's action names are asked only where they decide whether it gets a ref
    (tree.actable): a focusable or named, boxed object gets one anyway, and an action reads
    its object afresh. That spares a call per button."""

    def __init__(self, pipe: Pipe, pid: int, limit: int = MAX_NODES) -> None:
        self.pipe = pipe
        self.pid = pid
        self.limit = limit
        self.count = 0
        self.get_all: bool | None = None  # whether the application answers GetAll
        self.by_path: dict[str, _Object] = {}

    async def read(self, deadline: float) -> Node:
        root = self._visit(ROOT, None, 0)
        await self.pipe.drained(deadline, "reading the accessibility tree")
        if not root.role:
            raise BulkUnsupported(f"pid {self.pid} did not answer GetRole on its root")
        await self._choices(deadline)
        return self._node(root, None)

    def _visit(self, path: str, parent: _Object | None, index: int) -> _Object:
        obj = _Object(path, parent, index)
        self.by_path[path] = obj
        self.count += 1
        call = self.pipe.call
        acc = P + "Accessible"
        call(path, acc, "GetRole", lambda r: self._role(obj, r))
        call(path, acc, "GetState", lambda r: self._states(obj, r))
        call(path, acc, "GetInterfaces", lambda r: self._interfaces(obj, r))
        if self.get_all is False:
            call(path, PROPS, "Get", lambda r: self._name(obj, r), "ss", acc, "Name")
            call(path, acc, "GetChildren", lambda r: self._children(obj, r, answered=True))
        else:
            call(path, PROPS, "GetAll", lambda r: self._properties(obj, r), "s", acc)
        return obj

    def _role(self, obj: _Object, reply: Reply) -> None:
        if reply:
            obj.role = role_names().get(int(reply[0]), "unknown")
        self._answered(obj)

    def _states(self, obj: _Object, reply: Reply) -> None:
        if reply:
            obj.states = states_of(reply[0])
        self._answered(obj)

    def _interfaces(self, obj: _Object, reply: Reply) -> None:
        if reply:
            obj.interfaces = frozenset(str(i).removeprefix(P) for i in reply[0])
        self._answered(obj)

    def _properties(self, obj: _Object, reply: Reply) -> None:
        """GetAll's answer: the name, and whether to ask for children at all (most
        objects are leaves). Qt does not answer it: then its root is asked again the long
        way, and so is every object after it."""
        if reply is None and obj.parent is None and self.get_all is None:
            self.get_all = False
            acc = P + "Accessible"
            self.pipe.call(obj.path, PROPS, "Get", lambda r: self._name(obj, r), "ss", acc, "Name")
            self.pipe.call(obj.path, acc, "GetChildren", lambda r: self._children(obj, r, True))
            return
        self.get_all = self.get_all or reply is not None
        found = reply[0] if reply else {}
        if "Name" in found:
            obj.name = " ".join(str(found["Name"].value).split())
        obj.count = int(found["ChildCount"].value) if "ChildCount" in found else 0
        self._answered(obj)

    def _name(self, obj: _Object, reply: Reply) -> None:
        if reply:
            obj.name = " ".join(str(reply[0].value).split())
        self._answered(obj)

    def _children(self, obj: _Object, reply: Reply, answered: bool = False) -> None:
        for index, (bus, path) in enumerate(reply[0] if reply else []):
            if self.count >= self.limit:
                break
            if path != NULL and (self.pipe.dest is None or bus == self.pipe.dest):
                obj.kids.append(self._visit(path, obj, index))
        if answered:
            self._answered(obj)

    def _answered(self, obj: _Object) -> None:
        """After an object's first answers, ask what its interfaces say there is to know."""
        obj.answers += 1
        if obj.answers != (FIRST if self.get_all else FIRST + 1):
            return
        call, path, have = self.pipe.call, obj.path, obj.interfaces
        if obj.count and self.get_all:
            call(path, P + "Accessible", "GetChildren", lambda r: self._children(obj, r))
        if "Component" in have:
            call(path, P + "Component", "GetExtents", lambda r: _box(obj, r), "u", 0)
        if "Action" in have and not (
            have & {"EditableText", "Selection"}
            or "focusable" in obj.states
            or obj.role in WINDOWS
            or (obj.name and "Component" in have)
        ):
            call(path, P + "Action", "GetActions", lambda r: _actions(obj, r))
        if _editable(obj):
            # Chromium's web fields are editable Text without EditableText.
            call(path, P + "Text", "GetText", lambda r: _text(obj, r), "ii", 0, -1)

    async def _choices(self, deadline: float) -> None:
        """Each combo box's choice, as atspi.choice reads it: GTK's through the combo's own
        selection; Qt's is its name when that names one of its options, else its list's
        selection."""
        holders: dict[_Object, _Object] = {}
        for obj in list(self.by_path.values()):
            if obj.role != "combo box" or _editable(obj):
                continue  # an editable combo's text is what was typed (atspi.read)
            if "Selection" in obj.interfaces:
                holders[obj] = obj
            elif len(obj.kids) == 1:
                items = obj.kids[0]
                if obj.name in {k.name for k in items.kids}:
                    obj.text = obj.name
                elif "Selection" in items.interfaces:
                    holders[obj] = items
        for holder in set(holders.values()):
            then = functools.partial(_chosen, holder)
            self.pipe.call(holder.path, P + "Selection", "GetSelectedChild", then, "i", 0)
        await self.pipe.drained(deadline, "reading the combo boxes' choices")
        unknown = {h.selected for h in holders.values() if h.selected}
        names = {p: self.by_path[p].name for p in unknown if p in self.by_path}
        for path in unknown - names.keys():
            then = functools.partial(_keep, names, path, _named)
            self.pipe.call(path, PROPS, "Get", then, "ss", P + "Accessible", "Name")
        await self.pipe.drained(deadline, "reading the combo boxes' choices")
        for combo, holder in holders.items():
            if holder.selected:
                combo.text = names.get(holder.selected)

    def _node(self, obj: _Object, parent: Node | None) -> Node:
        facts = Facts(
            pid=self.pid,
            path=obj.path,
            role=obj.role,
            name=obj.name,
            states=obj.states,
            box=obj.box,
            actions=obj.actions,
            interfaces=obj.interfaces,
            text=obj.text,
            children=len(obj.kids),
        )
        node = Node(facts, None, parent=parent, index=obj.index)
        node.children = [self._node(kid, node) for kid in obj.kids]
        return node


def _editable(obj: _Object) -> bool:
    have = obj.interfaces
    return "Text" in have and ("EditableText" in have or "editable" in obj.states)


def _box(obj: _Object, reply: Reply) -> None:
    if reply:
        x, y, width, height = reply[0]
        obj.box = Box(x, y, width, height)


def _actions(obj: _Object, reply: Reply) -> None:
    if reply:
        obj.actions = tuple(str(name) for name, _description, _keys in reply[0])


def _text(obj: _Object, reply: Reply) -> None:
    if reply:
        obj.text = str(reply[0])


def _chosen(holder: _Object, reply: Reply) -> None:
    if reply and reply[0][1] != NULL:
        holder.selected = str(reply[0][1])


def _named(reply: Reply) -> str:
    return " ".join(str(reply[0].value).split()) if reply else ""


def _extend(into: list[Any], reply: Reply) -> None:
    into.extend(reply[0] if reply else [])


def _pid(reply: Reply) -> int:
    return int(reply[0]) if reply else 0


def _keep(into: dict[str, Any], key: str, read: Callable[[Reply], Any], reply: Reply) -> None:
    into[key] = read(reply)


class BulkReader:
    """The daemon's connections for bulk reads: the accessibility bus, and a peer-to-peer
    socket per application that offers one (dropped once the application is gone)."""

    def __init__(self) -> None:
        self._bus: Any = None
        self._peers: dict[str, Any] = {}  # bus name -> its own connection, or None
        self._budgets: dict[int, list[int]] = {}  # calls in flight, by connection
        self._connecting: asyncio.Lock | None = None

    @staticmethod
    def available() -> bool:
        try:
            import dbus_fast  # noqa: F401
        except ImportError:
            return False
        return True

    def _pipe(self, bus: Any, dest: str | None) -> Pipe:
        return Pipe(bus, dest, self._budgets.setdefault(id(bus), [0]))

    async def _a11y_bus(self) -> Any:
        """The accessibility bus; `BulkUnsupported` when it cannot be reached (no desktop:
        the walk's worker says why in its own words)."""
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:  # two commands at once connect once
            if self._bus is None or not self._bus.connected:
                from dbus_fast.aio import MessageBus

                self._drop_peers(set())
                try:
                    address = os.environ.get("AT_SPI_BUS_ADDRESS") or await _a11y_address()
                    connecting = MessageBus(bus_address=address).connect()
                    self._bus = await asyncio.wait_for(connecting, 5)
                except Exception as exc:  # no session bus, no a11y bus, refused
                    raise BulkUnsupported(f"the accessibility bus is not reachable: {exc}") from exc
                self._budgets = {id(self._bus): [0]}
            return self._bus

    def _drop_peers(self, keep: set[str]) -> None:
        """Close the own sockets of applications not in `keep` (gone, or all)."""
        for name in [n for n in self._peers if n not in keep]:
            peer = self._peers.pop(name)
            if peer is not None:
                self._budgets.pop(id(peer), None)
                peer.disconnect()

    async def read(self, bus_name: str, pid: int, deadline: float) -> tuple[Node, str]:
        """The application's tree, and how it was read: `bulk` over the bus, `bulk p2p`
        over its own socket."""
        bus = await self._a11y_bus()
        peer = await self._peer(bus, bus_name)
        pipe = self._pipe(peer or bus, None if peer else bus_name)
        try:
            root = await Reading(pipe, pid).read(deadline)
        finally:
            pipe.close()
        return root, "bulk p2p" if peer else "bulk"

    async def _peer(self, bus: Any, bus_name: str) -> Any:
        known = self._peers.get(bus_name, False)
        if known is None or (known is not False and known.connected):
            return known
        if known is not False:  # its socket closed: the application may have restarted
            self._budgets.pop(id(known), None)
        from dbus_fast import Message, MessageType
        from dbus_fast.aio import MessageBus

        self._peers[bus_name] = None
        asked = Message(
            destination=bus_name,
            path=ROOT,
            interface=P + "Application",
            member="GetApplicationBusAddress",
        )
        try:
            reply = await asyncio.wait_for(bus.call(asked), ANSWER_S)
            if reply.message_type == MessageType.METHOD_RETURN and reply.body[0]:
                connecting = MessageBus(bus_address=reply.body[0]).connect()
                self._peers[bus_name] = await asyncio.wait_for(connecting, ANSWER_S)
        except Exception:  # no socket of its own (or it does not answer): the bus serves
            self._peers[bus_name] = None
        return self._peers[bus_name]

    async def applications(self, deadline: float) -> list[tuple[str, int, str]]:
        """(name, pid, bus name) of every application on the accessibility bus; one that
        does not answer within ANSWER_S (hung) has the name "", as the walk says it."""
        bus = await self._a11y_bus()
        found: list[tuple[str, str]] = []
        pipe = self._pipe(bus, REGISTRY)
        try:
            pipe.call(ROOT, P + "Accessible", "GetChildren", functools.partial(_extend, found))
            await pipe.drained(deadline, "listing applications")
        finally:
            pipe.close()
        names: dict[str, str] = {}
        pids: dict[str, int] = {}
        pipes: list[Pipe] = []
        soon = min(deadline, time.monotonic() + ANSWER_S)
        try:
            pipes.append(self._pipe(bus, DBUS))
            for bus_name, path in found:
                pipes.append(self._pipe(bus, bus_name))
                then = functools.partial(_keep, names, bus_name, _named)
                pipes[-1].call(path, PROPS, "Get", then, "ss", P + "Accessible", "Name")
                then = functools.partial(_keep, pids, bus_name, _pid)
                pipes[0].call(DBUS_PATH, DBUS, "GetConnectionUnixProcessID", then, "s", bus_name)
            for each in pipes:
                await each.drained(soon, "listing applications", quiet=True)
        finally:
            for each in pipes:
                each.close()
        self._drop_peers({b for b, _path in found})
        return [(names.get(b, ""), pids.get(b, 0), b) for b, _path in found]

    async def close(self) -> None:
        self._drop_peers(set())
        if self._bus is not None:
            self._bus.disconnect()
        self._bus = None


async def _a11y_address() -> str:
    """The accessibility bus's address, from the session bus (as libatspi finds it)."""
    from dbus_fast import Message
    from dbus_fast.aio import MessageBus

    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):  # never autolaunch a stray bus
        raise BulkUnsupported("no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
    session = await asyncio.wait_for(MessageBus().connect(), 5)
    try:
        reply = await session.call(
            Message(
                destination="org.a11y.Bus",
                path="/org/a11y/bus",
                interface="org.a11y.Bus",
                member="GetAddress",
            )
        )
        return str(reply.body[0])
    finally:
        session.disconnect()
