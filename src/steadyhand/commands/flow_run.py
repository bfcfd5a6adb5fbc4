"""`flow run`: replay a saved flow step by step, without a model.

Each step runs as a call of its own through execute/run.py, as the agent's did (validation,
the approval gate, the act's verification, retries and watchdog, its action-log row, the
live timeline). Before it, each of its elements is found afresh on the page by role, name
and containers (flows/match.py), waiting for it while the page comes: what had to be
adapted is reported. A step whose element is missing or not one, or whose expectation
does not show, stops the run with `flow_diverged`: nothing is done to a doubtful element,
and the error carries what the step expected and what the page shows (its interactive
snapshot), so that an agent or a person can go on from there and save the flow anew.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.batch import step_command, within_deadline
from steadyhand.commands.flows import FLOWS, FlowNameParams, stored_flow
from steadyhand.commands.table import Command, Result, command, validated
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.flows.match import Match, find
from steadyhand.flows.model import (
    REF_PARAMS,
    TARGET,
    Flow,
    FlowStep,
    FlowTarget,
    fill_in,
    fill_target,
    used_params,
)
from steadyhand.snapshot.state import state_of
from steadyhand.snapshot.take import take
from steadyhand.vault import REFERENCE

FIND_MS = 10_000  # how long a step waits for its element to show (the page may still load)
POLL_S = 0.15
ADAPT_GRACE_S = 0.5  # at most, a match that needed adapting waits for the recorded one
READ_MS = 10_000  # to read the page once
# A step's failures that say the page is not as recorded: the run diverged there. Others
# (no session slot, a timeout, a crash, a policy or a person's no) are the step's own.
DIVERGES = frozenset(
    {
        ErrorCode.VERIFICATION_FAILED,
        ErrorCode.STALE_REF,
        ErrorCode.NOT_FOUND,
        ErrorCode.AMBIGUOUS,
        ErrorCode.NOT_ACTIONABLE,
        ErrorCode.ACTION_FAILED,
        ErrorCode.DIALOG_OPEN,
        ErrorCode.BAD_REQUEST,  # checked before the run: now the page's (an option gone)
    }
)
SAW_CHARS = 6000  # of the interactive snapshot a divergence carries


class FlowRunParams(FlowNameParams):
    version: int | None = Field(None, ge=1, description="run this version (default: the newest)")
    param: dict[str, str] = Field(
        default_factory=dict,
        description="NAME=VALUE for the flow's parameters",
        json_schema_extra={"sensitive": True},
    )
    from_step: int = Field(
        1, ge=1, description="start at this step (after taking over from a divergence)"
    )
    wait_ms: int = Field(
        FIND_MS, ge=0, le=120_000, description="how long a step waits for its element to show"
    )


class FlowStepDone(Result):
    step: int
    command: str
    target: str = Field("", description="what it acted on")
    ref: str | None = Field(None, description="the ref it found (and acted on)")
    adapted: list[str] = Field(
        default_factory=list,
        description="what differed from the recording and was worked around",
    )
    duration_ms: float


class FlowRunResult(Result):
    flow: str
    version: int
    steps: list[FlowStepDone]
    adapted: int = Field(description="steps that needed an adaptation")
    duration_ms: float
    recorded_ms: float = Field(description="what the same steps took when recorded")


@command(
    "flow.run",
    needs_session=False,
    changes_page=True,
    timeout="long",
    destructive=True,
    runs_steps=True,
    caps=FLOWS,
)
async def flow_run(call: Call, params: FlowRunParams) -> FlowRunResult:
    """Replay a saved flow: each element found afresh, each act verified; stops at a doubt."""
    flow = await stored_flow(call, params.name, params.version)
    values = _values(flow, params.param)
    call.reveal("param")  # the values typed in the open: the log keeps them...
    for name in params.param:  # ...but those a password field took (none was recorded)
        if flow.params[name].default is None:
            call.redact("param", name)
    if params.from_step > len(flow.steps):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"flow {flow.name!r} has {len(flow.steps)} steps: no step {params.from_step}",
            f"--from-step 1 to {len(flow.steps)}",
        )
    planned = [(n, step, _checked(n, step, values)) for n, step in enumerate(flow.steps, 1)]
    await _secrets_known(call, flow)
    began = time.monotonic()
    run = Run(call, params, flow, values)
    done = run.done
    for n, step, spec in planned[params.from_step - 1 :]:
        done.append(await run.step(n, step, spec))
        said = f"step {n} {step.label()}" + (" (adapted)" if done[-1].adapted else "")
        await call.report_progress(n, len(flow.steps), said)
    return FlowRunResult(
        flow=flow.name,
        version=flow.version,
        steps=done,
        adapted=sum(1 for d in done if d.adapted),
        duration_ms=round((time.monotonic() - began) * 1000, 1),
        recorded_ms=flow.recorded_ms,
    )


def _values(flow: Flow, given: dict[str, str]) -> dict[str, str]:
    """The parameters' values: those given over the recorded ones; `bad_request` for an
    unknown one or one that has no value."""
    unknown = [k for k in given if k not in flow.params]
    if unknown:
        known = ", ".join(flow.params) or "none"
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"flow {flow.name!r} has no parameter {', '.join(unknown)}",
            f"its parameters: {known}",
        )
    values = {k: p.default for k, p in flow.params.items() if p.default is not None}
    values.update(given)
    needed = set().union(*(_used(step) for step in flow.steps))
    missing = sorted(needed - set(values))
    if missing:
        about = "; ".join(f"{m}: {flow.params[m].about}" for m in missing if m in flow.params)
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"flow {flow.name!r} needs --param {' '.join(f'{m}=...' for m in missing)}",
            (about + "; " if about else "") + "its value was not recorded (a password field's), "
            "or use {{secret:NAME}} in the flow",
        )
    return values


async def _secrets_known(call: Call, flow: Flow) -> None:
    """Every secret the flow types is defined: else nothing runs (`not_found` naming it)."""
    named = set(REFERENCE.findall(json.dumps([s.params for s in flow.steps])))
    named |= {s.params["secret"] for s in flow.steps if isinstance(s.params.get("secret"), str)}
    for name in sorted(named):
        try:
            await asyncio.to_thread(call.runtime.secrets.lookup, name)
        except SteadyhandError as exc:
            raise SteadyhandError(
                exc.code,
                f"nothing ran: flow {flow.name!r} types the secret {name!r}, not defined here",
                exc.hint,
                exc.data,
            ) from None


def _used(step: FlowStep) -> set[str]:
    aimed = [(t.name or "", t.context) for t in step.targets.values()]
    return used_params(step.params) | used_params(step.expect) | used_params(aimed)


def _checked(n: int, step: FlowStep, values: dict[str, str]) -> Command:
    """The step's command, its params checked (with a stand-in ref) before any step runs."""
    try:
        spec = step_command(step.command)
        validated(spec, _aimed(fill_in(step.params, values), dict.fromkeys(step.targets, "e1")))
    except SteadyhandError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"nothing ran: step {n} ({step.command}): {exc.message}",
            exc.hint or "fix the step in the flow file (`flow show`, `flow save --file`)",
        ) from None
    return spec


def _aimed(params: dict[str, Any], refs: dict[str, str]) -> dict[str, Any]:
    """Params with each `@KEY` (a value, or a key of `fields`) replaced by its ref."""

    def aimed(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(TARGET) and value[1:] in refs:
            return refs[value[1:]]
        return value

    out = {k: aimed(v) if k in REF_PARAMS else v for k, v in params.items()}
    if isinstance(out.get("fields"), dict):
        out["fields"] = {aimed(k): v for k, v in out["fields"].items()}
    return out


class Diverged(Exception):
    """A step found the page not as recorded (turned into `flow_diverged` by Run.step)."""

    def __init__(
        self,
        reason: str,
        why: str,
        found: Match | None = None,
        error: SteadyhandError | None = None,
    ) -> None:
        super().__init__(why)
        self.reason, self.why, self.found, self.error = reason, why, found, error


@dataclass
class Run:
    """One run of a flow: its steps so far."""

    call: Call
    params: FlowRunParams
    flow: Flow
    values: dict[str, str]
    done: list[FlowStepDone] = field(default_factory=list)

    async def step(self, n: int, step: FlowStep, spec: Command) -> FlowStepDone:
        """Run step `n`; `flow_diverged` where the page is not as recorded, and any other
        failure as itself, naming the flow and the step."""
        flow = self.flow
        try:
            return await self._step(n, step, spec)
        except Diverged as stop:
            raise await self.diverged(n, step, stop) from None
        except SteadyhandError as exc:
            if exc.code == ErrorCode.FLOW_DIVERGED:
                raise
            where = f"flow {flow.name} v{flow.version} step {n} ({step.label()})"
            data = {**exc.data, "flow": flow.name, "version": flow.version, "step": n}
            raise SteadyhandError(exc.code, f"{where}: {exc.message}", exc.hint, data) from None

    async def _step(self, n: int, step: FlowStep, spec: Command) -> FlowStepDone:
        call, params, flow, values = self.call, self.params, self.flow, self.values
        started = time.monotonic()
        refs: dict[str, str] = {}
        adapted: list[str] = []
        for key, want in step.targets.items():
            if want.role is None:  # a locator: the act resolves it (ambiguous is its error)
                refs[key] = str(fill_in(want.locator, values))
                continue
            found = await self.find(want)
            if found.node is None or found.node.ref is None:
                raise Diverged(found.problem, found.why, found)
            refs[key] = found.node.ref
            if found.adapted:
                adapted.append(f"{want.label()}: {found.adapted}")
        raw = _aimed(fill_in(step.params, values), refs)
        raw["session"] = params.session
        expect = {k: str(fill_in(v, values)) for k, v in step.expect.items()}
        if "expect_url" in spec.params.model_fields:
            raw |= {f"expect_{k}": v for k, v in expect.items()}
            expect = {}
        if params.timeout is not None:
            raw = within_deadline(call, spec, raw, "flow run")
        part_of = f"flow {flow.name} v{flow.version} · step {n}/{len(flow.steps)}"
        if adapted:
            part_of += " · adapted: " + "; ".join(adapted)
        assert call.execute is not None  # execute/run.py gives every call its runner
        try:
            data = await call.execute(spec.name, raw, part_of)
        except SteadyhandError as exc:
            if exc.code not in DIVERGES:  # not the page's doing: the step's own error
                raise
            reason = "expectation" if exc.code == ErrorCode.VERIFICATION_FAILED else "failed"
            raise Diverged(reason, exc.message, error=exc) from None
        if expect:  # a step whose command takes no --expect-*: waited for after it
            waited = {"session": params.session, **expect, "timeout": f"{params.wait_ms}ms"}
            try:
                await call.execute("wait", waited, part_of)
            except SteadyhandError as exc:
                if exc.code != ErrorCode.TIMEOUT:
                    raise
                raise Diverged("expectation", exc.message, error=exc) from None
        adapted.extend(_worked_around(data))
        return FlowStepDone(
            step=n,
            command=step.command,
            target=", ".join(t.label() for t in step.targets.values()),
            ref=next(iter(refs.values()), None),
            adapted=adapted,
            duration_ms=round((time.monotonic() - started) * 1000, 1),
        )

    async def find(self, want: FlowTarget) -> Match:
        """The step's element on the page, waited for while the page may still be coming
        (within the run's --timeout when it has one). A match that needed adapting is
        taken only once the page had a moment to show the element as recorded."""
        call = self.call
        wait_s = self.params.wait_ms / 1000
        if self.params.timeout is not None:
            wait_s = min(wait_s, max(0.0, call.remaining_ms() / 1000 - 1.0))
        began = time.monotonic()
        until = began + wait_s
        seen: tuple[str | None, str] | None = None  # an adapted match at the last read
        while True:
            tab = await call.tab(None)
            taken = await take(tab, min(READ_MS, max(1000.0, call.remaining_ms())))
            found = find(taken, fill_target(want, self.values), self.flow.tolerance)
            now = time.monotonic()
            if found.node is not None:
                # Adapted: taken once a second read agrees (the page is not still coming
                # with the element as recorded), or the grace is over.
                again = (found.node.key, found.adapted)
                late = now - began >= min(ADAPT_GRACE_S, wait_s)
                if not found.adapted or seen == again or late:
                    if found.node.ref is None:
                        state_of(tab).refs.issue(taken, [found.node])
                    return found
                seen = again
            if now >= until:
                return found
            await asyncio.sleep(POLL_S)

    async def diverged(self, n: int, step: FlowStep, stop: Diverged) -> SteadyhandError:
        """The run stops at step `n`: what it expected, what the page shows now."""
        flow, done = self.flow, self.done
        reason, why, found, error = stop.reason, stop.why, stop.found, stop.error
        saw, url = await _seen(self.call)
        data: dict[str, Any] = {
            "flow": flow.name,
            "version": flow.version,
            "step": n,
            "command": step.command,
            "reason": reason,
            "expected": {
                "targets": {
                    k: t.model_dump(exclude_defaults=True) for k, t in step.targets.items()
                },
                **({"expect": step.expect} if step.expect else {}),
            },
            "url": url,
            "saw": saw,
            "done": len(done),
            "adapted": [f"step {d.step}: {a}" for d in done for a in d.adapted],
        }
        if found is not None and found.candidates:
            data["candidates"] = found.candidates
        if error is not None:
            data["error"] = {"code": str(error.code), "message": error.message}
        hint = (
            "the page is as data.saw shows: do the step by ref from there, then "
            f"`flow save {flow.name} --update` keeps what you did as its next version"
        )
        if n < len(flow.steps):
            hint += f"; or `flow run {flow.name} --from-step {n + 1}` goes on after it"
        return SteadyhandError(
            ErrorCode.FLOW_DIVERGED,
            f"flow {flow.name} v{flow.version} stopped at step {n} ({step.label()}): {why}",
            hint,
            data,
        )


def _worked_around(data: Any) -> list[str]:
    """What the act itself got past: interruptions it dismissed, a ref re-found, retries."""
    if not isinstance(data, dict):
        return []
    notes = []
    for entry in data.get("watchdog") or []:
        what = entry.get("name") or entry.get("kind") or "an interruption"
        notes.append(f"dismissed {what} ({entry.get('action', 'cleared')})")
    if data.get("retries"):
        notes.append(f"retried {data['retries']} time(s)")
    return notes


async def _seen(call: Call) -> tuple[str, str]:
    """The current tab's interactive snapshot (refs an agent can act on) and URL."""
    assert call.execute is not None
    try:
        shot = await call.execute(
            "snapshot",
            {"session": call.session_name, "interactive": True, "max_chars": SAW_CHARS},
        )
    except SteadyhandError as exc:
        return f"(the page could not be read: {exc.message})", ""
    return str(shot.get("snapshot", "")), str(shot.get("url", ""))
