"""Per action, the transports in order of preference (AT-SPI, then CDP, then X input;
the wheel first for scrolling):
each that can handle the target tries within the command's deadline, the effect is
verified through the accessibility tree where it can show, and a transport that fails or
shows no effect hands over to the next. The result names the transport that acted and
what each before it said."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from playwright.async_api import TimeoutError as PlaywrightTimeout

from steadyhand.desktop.atspi import Facts, atspi, attempt, read
from steadyhand.desktop.deadline import Deadline, timed_out
from steadyhand.desktop.transport import Target, Transport, Want
from steadyhand.desktop.via_atspi import scroll_bars
from steadyhand.desktop.worker import MARGIN_S, AtspiWorker
from steadyhand.errors import ErrorCode, SteadyhandError, first_line

SETTLE_S = 0.25  # how long an effect may take to show in the tree (Qt: ~100 ms)
LATE_S = 1.0  # ...and under load, after the last transport (a busy machine: seen > 0.25 s)
# Errors that are about the request or the deadline, not the transport: no fallback.
FINAL = {ErrorCode.NOT_FOUND, ErrorCode.BAD_REQUEST, ErrorCode.STALE_REF, ErrorCode.TIMEOUT}
TOGGLES = ("check box", "radio button", "toggle button", "switch")
# The wheel first for scrolling: the toolkit keeps it within the content, where setting a
# scroll bar's accessible value goes past the end in GTK (its maximum ignores the page).
FIRST = {"scroll": "xinput"}


@dataclass
class Acted:
    ref: str
    transport: str  # atspi, cdp or xinput
    action: str
    verified: bool
    before: Facts
    after: Facts
    tried: list[str] = field(default_factory=list)  # "atspi: why it did not act"


Check = Callable[[Facts], bool]


class Router:
    def __init__(self, worker: AtspiWorker, transports: list[Transport]) -> None:
        self.worker = worker
        self.transports = transports

    async def act(self, target: Target, want: Want, deadline: float) -> Acted:
        tried: list[str] = []
        acted: list[tuple[str, str, int]] = []  # (transport, action, its line in tried)
        # of the transports that acted and showed no effect
        effect = expected(target.facts, want)
        marks = await self._marks(target, want, deadline)
        first = FIRST.get(want.kind)
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
            if verified or (effect is None and not marks):
                return Acted(
                    target.ref, transport.name, action, verified, target.facts, after, tried
                )
            acted.append((transport.name, action, len(tried)))
            tried.append(f"{transport.name}: {action} showed no effect ({shown(after, want)})")
        if acted:  # no transport left: the last input's effect gets a last, longer look
            late = await self._late(
                target, want, (effect, marks), deadline, acted=acted, tried=tried, settle_s=LATE_S
            )
            if late is not None:
                return late
        raise failed(target, want, tried, bool(acted))

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
        return Acted(target.ref, name, action, True, target.facts, after, tried)

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
                    target.node.facts = after
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


def failed(target: Target, want: Want, tried: list[str], acted: bool) -> SteadyhandError:
    """None could act (not_actionable), one acted and nothing showed (verification_failed),
    or the ones that could failed (action_failed)."""
    facts = target.facts
    could = any(": skipped," not in t for t in tried)
    code = (
        ErrorCode.VERIFICATION_FAILED
        if acted
        else ErrorCode.ACTION_FAILED
        if could
        else ErrorCode.NOT_ACTIONABLE
    )
    what = {
        ErrorCode.VERIFICATION_FAILED: "did not take effect",
        ErrorCode.ACTION_FAILED: "failed",
        ErrorCode.NOT_ACTIONABLE: "is not possible",
    }[code]
    return SteadyhandError(
        code,
        f"{want.kind} on {target.ref} ({facts.role} {facts.name!r}) {what}: " + "; ".join(tried),
        "snapshot again: it may be disabled, covered, off screen or handled elsewhere",
        {"tried": tried},
    )
