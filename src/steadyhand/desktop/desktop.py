"""The desktop as the daemon sees it: applications, snapshots with refs, verified actions.

Each action says which transport acted (`atspi`: the object's own accessible action or
text interface; `xinput`: a real click at the centre of its box, for objects that offer
no action) and is verified through the tree where the tree can show the effect.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from steadyhand.desktop import see, xinput
from steadyhand.desktop.atspi import Box, Facts, atspi, attempt, read
from steadyhand.desktop.tree import DesktopRefs, Node, applications, render, visible, walk
from steadyhand.desktop.worker import CALL_TIMEOUT_MS, AtspiWorker, Deadline, timed_out
from steadyhand.errors import ErrorCode, SteadyhandError

# Tried in this order: GTK says click; Qt's check box has Toggle (its Press does not toggle).
PRESS_ACTIONS = ("click", "toggle", "press", "activate", "jump")
SETTLE_S = 0.25  # how long an effect may take to show in the tree (Qt: ~100 ms)
NO_ANSWER_S = CALL_TIMEOUT_MS / 1000 * 0.8  # an answer this late came from libatspi's timeout
WHOLE_WINDOWS = ("frame", "window", "dialog")  # not boxed: their box is the whole window


@dataclass
class Acted:
    ref: str
    transport: str  # atspi or xinput
    action: str
    verified: bool
    before: Facts
    after: Facts


class Desktop:
    def __init__(self) -> None:
        self.worker = AtspiWorker()
        self.refs = DesktopRefs()

    async def apps(self, deadline: float) -> list[dict[str, Any]]:
        def work(_: Deadline) -> list[dict[str, Any]]:
            return [{"name": n, "pid": p} for n, p, _obj in applications()]

        return await self.worker.run(work, deadline, "listing applications")

    async def snapshot(self, app: str | None, everything: bool, deadline: float) -> str:
        def work(limit: Deadline) -> str:
            screen = xinput.screen_size()
            return "\n".join(render(r, screen, everything) for r in self._walk(app, limit))

        return await self.worker.run(work, deadline, "desktop snapshot")

    async def click(self, ref: str, deadline: float) -> Acted:
        return await self.worker.run(lambda _: self._press(ref), deadline, f"desktop click {ref}")

    def _press(self, ref: str) -> Acted:
        """Its accessible press action, else a real click at its centre; a toggle verified."""
        node, before = self._live(ref)
        names = [a.lower() for a in before.actions]
        chosen = next((n for n in PRESS_ACTIONS if n in names), None)
        if chosen is not None:
            atspi().Action.do_action(node.obj, names.index(chosen))
            transport = "atspi"
        elif before.box is not None and before.box.on_screen(*xinput.screen_size()):
            xinput.click(*before.box.centre)
            transport, chosen = "xinput", "click"
        else:
            raise SteadyhandError(
                ErrorCode.NOT_ACTIONABLE,
                f"{ref} ({before.role} {before.name!r}) offers no action and is not on "
                "screen to click",
                "scroll it into view or open its window, then snapshot again",
            )
        toggles = before.role in ("check box", "radio button", "toggle button")
        was_checked = "checked" in before.states
        if toggles:  # its state shows the effect: wait for it (Qt's comes ~100 ms later)
            after = self._settled(node, before, lambda f: ("checked" in f.states) != was_checked)
        else:  # a button's effect is the application's business: nothing to wait for
            after = read(node.obj, before.pid)
        verified = ("checked" in after.states) != was_checked or not toggles
        if toggles and not verified:
            raise SteadyhandError(
                ErrorCode.VERIFICATION_FAILED,
                f"clicking {ref} ({before.role} {before.name!r}) did not change its state",
                "snapshot again: it may be disabled or handled elsewhere",
            )
        return Acted(ref, transport, chosen, toggles, before, after)

    async def type(self, ref: str, text: str, deadline: float) -> Acted:
        def work(_: Deadline) -> Acted:
            node, before = self._live(ref)
            if "EditableText" not in before.interfaces:
                raise SteadyhandError(
                    ErrorCode.NOT_ACTIONABLE,
                    f"{ref} ({before.role} {before.name!r}) is not an editable text",
                    "type into a text field's ref",
                )
            atspi().EditableText.set_text_contents(node.obj, text)
            after = self._settled(node, before, lambda f: f.text == text)
            if after.text != text:
                raise SteadyhandError(
                    ErrorCode.VERIFICATION_FAILED,
                    f"{ref} holds {after.text!r} after typing, not the text typed",
                    "the field may reformat or refuse input; snapshot to see it",
                )
            return Acted(ref, "atspi", "set text", True, before, after)

        return await self.worker.run(work, deadline, f"desktop type {ref}")

    async def select(self, ref: str, value: str, deadline: float) -> Acted:
        def work(_: Deadline) -> Acted:
            node, before = self._live(ref)
            holder, index, options = _option(node.obj, value)
            if index is None:
                raise SteadyhandError(
                    ErrorCode.NOT_FOUND,
                    f"{ref} ({before.role} {before.name!r}) has no option {value!r}",
                    "options: " + ", ".join(repr(o) for o in options),
                )
            transport = "atspi"
            atspi().Selection.select_child(holder, index)
            after = self._settled(node, before, lambda f: f.text == value)
            if after.text != value:  # Qt: its combo box ignores the accessible selection
                transport = "xinput"
                self._pick_by_pointer(node, before, index)
                after = self._settled(node, before, lambda f: f.text == value)
            if after.text != value:
                raise SteadyhandError(
                    ErrorCode.VERIFICATION_FAILED,
                    f"{value!r} is not chosen in {ref} after selecting it (it shows "
                    f"{after.text!r})",
                    "snapshot again: the list may have changed, or the control is disabled",
                )
            return Acted(ref, transport, "select", True, before, after)

        return await self.worker.run(work, deadline, f"desktop select {ref}")

    def _pick_by_pointer(self, node: Node, before: Facts, index: int) -> None:
        """Open a combo box's popup with a real click, then click the option in it."""
        screen = xinput.screen_size()
        if before.box is None or not before.box.on_screen(*screen):
            return
        xinput.click(*before.box.centre)
        items = node.obj.get_child_at_index(0)
        until = time.monotonic() + SETTLE_S * 4
        while time.monotonic() < until:
            option = read(items.get_child_at_index(index), before.pid)
            if option.box is not None and option.box.on_screen(*screen):
                xinput.click(*option.box.centre)
                return
            time.sleep(0.05)

    async def menu(self, path: str, app: str | None, deadline: float) -> Acted:
        """Choose a menu item by its path (`File > Save`) in an application's menu bar."""
        names = [" ".join(part.split()) for part in path.split(">") if part.strip()]

        def work(limit: Deadline) -> Acted:
            found: Node | None = None
            tops: list[str] = []
            for root in self._walk(app, limit):
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
            return self._press(found.ref)

        return await self.worker.run(work, deadline, f"desktop menu {path}")

    async def see(
        self, annotate: bool, app: str | None, deadline: float
    ) -> tuple[bytes, list[tuple[str, Box]]]:
        """The screen as PNG bytes, and the refs boxed on it (with `annotate`)."""

        def work(limit: Deadline) -> tuple[bytes, list[tuple[str, Box]]]:
            boxes: list[tuple[str, Box]] = []
            if annotate:
                screen = xinput.screen_size()
                for root in self._walk(app, limit):
                    boxes += [
                        (n.ref, n.facts.box)
                        for n in _shown(root, screen)
                        if n.ref and n.facts.box and n.facts.role not in WHOLE_WINDOWS
                    ]
            canvas = see.grab()
            see.annotate(canvas, boxes)
            return canvas.png(), boxes

        return await self.worker.run(work, deadline, "desktop see")

    async def press(self, keys: str, ref: str | None, deadline: float) -> str:
        """Press a key combination (X input), on `ref` once it has the focus."""

        def work(_: Deadline) -> str:
            if ref is not None:
                node, _facts = self._live(ref)
                atspi().Component.grab_focus(node.obj)
            xinput.press(keys)
            return "xinput"

        return await self.worker.run(work, deadline, f"desktop press {keys}")

    def _apps(self, app: str | None) -> list[tuple[str, int, Any]]:
        found = [a for a in applications() if app is None or a[0] == app or str(a[1]) == app]
        if not found:
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                f"no application named {app!r} on the accessibility bus",
                "`desktop apps` lists them; an app started just now may need a moment",
            )
        return found

    def _walk(self, app: str | None, limit: Deadline) -> list[Node]:
        """Each application's tree (or the one named), its refs handed out."""
        roots = []
        for _name, pid, obj in self._apps(app):
            root = walk(obj, pid, limit)
            self.refs.assign(root, whole_app=True)
            roots.append(root)
        return roots

    def _live(self, ref: str) -> tuple[Node, Facts]:
        """The ref's object, read now. A gone object's ref is tombstoned; a hung
        application's answers `timeout` (its objects may come back)."""
        node = self.refs.node(ref)
        started = time.monotonic()
        role = attempt(node.obj.get_role_name, "")
        if not role and time.monotonic() - started > NO_ANSWER_S:
            # libatspi gives up on a hung application with an empty answer, as it answers
            # for a gone object: only the wait tells them apart.
            raise timed_out(f"the application of {ref} does not answer")
        if not role or role == "invalid":
            raise self.refs.forget(ref)
        return node, read(node.obj, node.facts.pid)

    def _settled(self, node: Node, before: Facts, done: Any) -> Facts:
        """The object's facts once `done(facts)` holds, or after SETTLE_S."""
        until = time.monotonic() + SETTLE_S
        while True:
            after = read(node.obj, before.pid)
            if done(after) or time.monotonic() > until:
                node.facts = after
                return after
            time.sleep(0.02)


def _option(obj: Any, value: str) -> tuple[Any, int | None, list[str]]:
    """Where to select (GTK: the combo box itself; Qt: its list), the index of the option
    named `value` (None: no such option), and every option's name."""
    items = obj
    if obj.get_child_count() == 1 and "Selection" in obj.get_child_at_index(0).get_interfaces():
        items = obj.get_child_at_index(0)  # the popup menu or list that holds the options
    holder = obj if "Selection" in obj.get_interfaces() else items
    names = [
        " ".join((items.get_child_at_index(i).get_name() or "").split())
        for i in range(items.get_child_count())
    ]
    index = names.index(value) if value in names else None
    return holder, index, names


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
