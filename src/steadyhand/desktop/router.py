"""Per action, the transports in order of preference (AT-SPI, then CDP, then X input;
the wheel first for scrolling):
each that can handle the target tries within the command's deadline, the effect is
verified through the accessibility tree where it can show, and a transport that fails or
shows no effect hands over to the next. The result names the transport that acted and
what each before it said."""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from playwright.async_api import TimeoutError as PlaywrightTimeout

from steadyhand.desktop import display
from steadyhand.desktop.atspi import Facts, atspi, attempt, read
from steadyhand.desktop.deadline import Deadline, timed_out
from steadyhand.desktop.effects import (
    CONFIRMED,
    NOOP,
    NOOP_S,
    PARTIAL,
    REFUSED,
    UNVERIFIABLE,
    Seen,
    Watch,
    Watcher,
    read_back,
    top_level,
    window_of,
)
from steadyhand.desktop.transport import Target, Transport, Want
from steadyhand.desktop.via_atspi import scroll_bars
from steadyhand.desktop.worker import MARGIN_S, AtspiWorker
from steadyhand.errors import ErrorCode, SteadyhandError, first_line

SETTLE_S = 0.25  # how long an effect may take to show in the tree (Qt: ~100 ms)
LATE_S = 1.0  # ...and under load, after the last transport (a busy machine: seen > 0.25 s)
# Errors that are about the request or the deadline, not the transport: no fallback.
FINAL = {ErrorCode.NOT_FOUND, ErrorCode.BAD_REQUEST, ErrorCode.STALE_REF, ErrorCode.TIMEOUT}
TOGGLES = ("check box", "radio button", "toggle button", "switch")
# The wheel (real input: xinput, or wlinput on Wayland) first for scrolling: the toolkit
# keeps it within the content, where setting a scroll bar's accessible value goes past the
# end in GTK (its maximum ignores the page).
WHEEL_FIRST = ("scroll",)


@dataclass
class Acted:
    ref: str
    transport: str  # atspi, cdp or xinput: the route it went by
    action: str
    verified: bool  # the effect is `confirmed`
    before: Facts
    after: Facts
    tried: list[str] = field(default_factory=list)  # "atspi: why it did not act"
    effect: str = CONFIRMED  # effects.py
    evidence: str = ""  # what showed it: "text reads back", "2 event(s) of the application"


Check = Callable[[Facts], bool]


class Router:
    def __init__(self, worker: AtspiWorker, transports: list[Transport], watcher: Watcher) -> None:
        self.worker = worker
        self.transports = transports
        self.watcher = watcher

    async def act(
        self, target: Target, want: Want, deadline: float, *, allow_noop: bool = False
    ) -> Acted:
        refuse_disabled(target, want)
        tried: list[str] = []
        acted: list[tuple[str, str, int]] = []  # (transport, action, its line in tried)
        # of the transports that acted and showed no effect
        masked = want.kind == "type" and target.facts.role == "password text"
        effect = None if masked else expected(target.facts, want)
        marks = await self._marks(target, want, deadline)
        watch = await self._watch(target, masked or (effect is None and not marks), deadline)
        first = display.route() if want.kind in WHEEL_FIRST else None
        ordered = sorted(self.transports, key=lambda t: t.name != first)
        for transport in ordered:
            why_not = transport.can_handle(target, want)
            if why_not is not None:
                tried.append(f"{transport.name}: skipped, {why_not}")
                continue
            if acted:  # the last one's effect may have come late: never do it twice
                late = await self._late(
                    target, want, (effect, marks), deadline, acted=acted, tried=tried, settle_s=0
                )
                if late is not None:
                    return late
            if time.monotonic() > deadline - MARGIN_S:
                raise timed_out(f"{want.kind} on {target.ref}: {'; '.join(tried)}")
            try:
                action = await transport.execute(target, want, deadline)
            except SteadyhandError as exc:
                if exc.code in FINAL:
                    raise
                # not_actionable: it found it cannot act only once it looked (did nothing)
                skipped = "skipped, " if exc.code == ErrorCode.NOT_ACTIONABLE else ""
                tried.append(f"{transport.name}: {skipped}{exc.message}")
                continue
            except PlaywrightTimeout as exc:  # it may have acted: no other transport after it
                raise timed_out(f"{transport.name} {want.kind} on {target.ref}") from exc
            except Exception as exc:  # a toolkit's or a driver's own error
                tried.append(f"{transport.name}: {first_line(exc)}")
                continue
            after, verified = await self._verify(
                target, want, effect, marks, deadline, settle_s=SETTLE_S
            )
            done = functools.partial(
                Acted, target.ref, transport.name, action, verified, target.facts, after, tried
            )
            if verified:
                return done(effect=CONFIRMED, evidence=_read_back(want))
            if effect is None and not marks:  # nothing of its own to read back: watch
                seen = await self.watcher.settle(watch, deadline)
                found, why = judge(
                    seen,
                    self.watcher.can_watch(watch),
                    f"{action} on {target.ref} ({target.facts.role} {target.facts.name!r})",
                    transport.name,
                    masked=masked,
                    allow_noop=allow_noop,
                    tried=tried,
                )
                return done(effect=found, evidence=why)
            if read_back(target.facts, after):  # it changed, not as asked: no second input
                return done(effect=PARTIAL, evidence=f"asked for one thing, {shown(after, want)}")
            acted.append((transport.name, action, len(tried)))
            tried.append(f"{transport.name}: {action} showed no effect ({shown(after, want)})")
        if acted:  # no transport left: the last input's effect gets a last, longer look
            late = await self._late(
                target, want, (effect, marks), deadline, acted=acted, tried=tried, settle_s=LATE_S
            )
            if late is not None:
                return late
            name, action, _line = acted[-1]
            after = target.node.facts
            seen = await self.watcher.seen(watch, deadline)
            found, why = judge(
                seen,
                self.watcher.can_watch(watch),
                f"{action} on {target.ref} ({target.facts.role} {target.facts.name!r})",
                name,
                expected=True,
                allow_noop=allow_noop,
                tried=tried,
            )
            return Acted(target.ref, name, action, False, target.facts, after, tried, found, why)
        raise failed(target, want, tried)

    async def _watch(self, target: Target, pixels: bool, deadline: float) -> Watch:
        """What is there before the action: the app's events from now on, and with `pixels`
        (only where the tree may not tell) its window's pixels."""
        await self.worker.run(lambda _: display.prepare(), deadline, "preparing real input")
        facts = target.facts
        # A widget's own box is left out (its focus ring, its pressed look); a canvas's
        # (nothing of its own to do, nothing to focus) is where its effect shows.
        widget = "Action" in facts.interfaces or "focusable" in facts.states
        own = widget and top_level(target.node) is not target.node
        return await self.watcher.begin(
            facts.pid,
            facts.path,
            window_of(target.node) if pixels else None,
            facts.box if own else None,
            deadline,
        )

    async def _late(
        self,
        target: Target,
        want: Want,
        seen: tuple[Check | None, tuple[float, ...]],
        deadline: float,
        *,
        acted: list[tuple[str, str, int]],
        tried: list[str],
        settle_s: float,
    ) -> Acted | None:
        """The last transport that acted, when its effect shows after all (late)."""
        effect, marks = seen
        after, verified = await self._verify(
            target, want, effect, marks, deadline, settle_s=settle_s
        )
        if not verified:
            return None
        name, action, line = acted[-1]
        del tried[line]  # it did take effect, only late
        return Acted(
            target.ref,
            name,
            action,
            True,
            target.facts,
            after,
            tried,
            effect=CONFIRMED,
            evidence=_read_back(want) + " (late)",
        )

    async def _marks(self, target: Target, want: Want, deadline: float) -> tuple[float, ...]:
        """For a scroll: what moves when it scrolls (its scroll bars' values)."""
        if want.kind != "scroll":
            return ()
        return await self.worker.run(
            lambda limit: scroll_marks(target, limit), deadline, "reading scroll"
        )

    async def _verify(
        self,
        target: Target,
        want: Want,
        effect: Check | None,
        marks: tuple[float, ...],
        deadline: float,
        *,
        settle_s: float,
    ) -> tuple[Facts, bool]:
        """The element read again until the effect shows (or `settle_s` passed)."""

        def work(limit: Deadline) -> tuple[Facts, bool]:
            until = min(limit.at, time.monotonic() + settle_s)
            while True:
                after = read(target.node.obj, target.facts.pid, limit)
                if effect is not None:
                    done = effect(after)
                elif marks:
                    done = scroll_marks(target, limit) != marks
                else:
                    return after, False
                if done or time.monotonic() > until:
                    # The box as read in the snapshot (under Wayland, moved onto the screen)
                    target.node.facts = dataclasses.replace(after, box=target.node.facts.box)
                    return after, done
                time.sleep(0.02)

        return await self.worker.run(work, deadline, f"verifying {want.kind} on {target.ref}")


def expected(before: Facts, want: Want) -> Check | None:
    """What the tree shows once `want` took effect; None when it cannot show it."""
    if want.kind == "type" and (before.text is not None or "Text" in before.interfaces):
        return lambda f: f.text == (want.text or "")
    if want.kind == "select":
        return lambda f: f.text == want.value
    if want.kind == "focus":
        return lambda f: "focused" in f.states
    if want.kind == "click" and before.role in TOGGLES:
        was = "checked" in before.states
        return lambda f: ("checked" in f.states) != was
    return None


def judge(
    seen: Seen,
    watched: bool,
    what: str,
    route: str,
    *,
    masked: bool = False,
    expected: bool = False,
    allow_noop: bool = False,
    tried: list[str] | None = None,
    outside: bool = False,
    unaimed: bool = False,
) -> tuple[str, str]:
    """The effect (and its evidence) of an action `what` whose own result was not read
    back, from what was seen around it: the application's events, the window's pixels.
    `expected`: it had a result of its own to read back, which did not show; `masked`: the
    field hides its text; `outside`: its effect may lie where nothing is watched (a
    shortcut's: the clipboard, a file); `unaimed`: it had no target (keys sent wherever the
    focus is), so a change anywhere is not known to be its own. A suspected no-op is an
    error unless `allow_noop`."""
    if seen.anything and expected:
        return PARTIAL, "it did not read back as asked; " + seen.summary()
    if seen.anything and unaimed:
        return PARTIAL, seen.summary() + " (without --ref, not known to be the keys' doing)"
    if seen.events and not masked:
        return CONFIRMED, seen.summary()
    if seen.anything:
        if masked:
            return UNVERIFIABLE, "the field hides its text; " + seen.summary()
        return PARTIAL, seen.summary() + "; the tree said nothing"
    if not watched:
        return UNVERIFIABLE, "no events and no screen to watch"
    if outside:
        return UNVERIFIABLE, "nothing changed in the window; a shortcut may act elsewhere"
    if allow_noop:
        return NOOP, f"nothing changed within {NOOP_S:g} s"
    raise SteadyhandError(
        ErrorCode.VERIFICATION_FAILED,
        f"{what} via {route} changed nothing: no event of the application, the same pixels",
        "the element may do nothing now, or the input was lost; snapshot before repeating "
        "it (it may have acted unseen); --allow-noop accepts an action that changes nothing",
        {"effect": NOOP, "route": route, "tried": tried or []},
    )


def refuse_disabled(target: Target, want: Want) -> None:
    """`not_actionable` (effect refused) before anything is sent to a disabled element."""
    facts = target.facts
    if want.kind in ("click", "type", "select") and "sensitive" not in facts.states:
        raise SteadyhandError(
            ErrorCode.NOT_ACTIONABLE,
            f"{target.ref} ({facts.role} {facts.name!r}) is disabled: nothing was sent",
            "snapshot again once the application enables it",
            {"effect": REFUSED},
        )


def _read_back(want: Want) -> str:
    return {
        "type": "its text reads back",
        "select": "its choice reads back",
        "focus": "it reads back focused",
        "scroll": "its scroll bars moved",
    }.get(want.kind, "its state reads back")


def scroll_marks(target: Target, limit: Deadline) -> tuple[float, ...]:
    """The current values of the scroll bars around the target, and its own position."""
    Atspi = atspi()
    values = []
    for bar, _vertical in scroll_bars(target.node):
        limit.check("reading a scroll bar")
        values.append(float(attempt(lambda bar=bar: Atspi.Value.get_current_value(bar), -1.0)))
    box = read(target.node.obj, target.facts.pid, limit).box
    return tuple(values) + ((float(box.x), float(box.y)) if box is not None else ())


def shown(after: Facts, want: Want) -> str:
    if want.kind in ("type", "select"):
        if after.role == "password text":
            return "its text is hidden"  # never a password (or what was typed) in a message
        return f"it shows {after.text!r}"
    if want.kind == "focus":
        return "not focused"
    if want.kind == "scroll":
        return "nothing moved"
    return "checked" if "checked" in after.states else "not checked"


def failed(target: Target, want: Want, tried: list[str]) -> SteadyhandError:
    """None could act (not_actionable: nothing was sent, effect refused), or the ones that
    could failed (action_failed)."""
    facts = target.facts
    could = any(": skipped," not in t for t in tried)
    if could:
        code, what = ErrorCode.ACTION_FAILED, "failed"
        data: dict[str, object] = {"tried": tried}
    else:
        code, what = ErrorCode.NOT_ACTIONABLE, "is not possible"
        data = {"tried": tried, "effect": REFUSED}
    return SteadyhandError(
        code,
        f"{want.kind} on {target.ref} ({facts.role} {facts.name!r}) {what}: " + "; ".join(tried),
        "snapshot again: it may be disabled, covered, off screen or handled elsewhere",
        data,
    )
