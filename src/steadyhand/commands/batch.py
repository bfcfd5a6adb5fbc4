"""`batch`: several commands in order in one call, each run as a call of its own.

Every step goes through execute/run.py as a single call would (validation, restore, the
approval gate, its own deadline, secrets masked, its action-log row), by `call.execute`.
All steps are checked before the first runs: a batch with a bad step runs nothing.
"""

from __future__ import annotations

import difflib
import time
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from steadyhand.call import Call
from steadyhand.commands.table import (
    COMMANDS,
    Command,
    Params,
    Result,
    command,
    tool_name,
    validated,
)
from steadyhand.errors import ErrorCode, SteadyhandError

BATCH = "batch"
# Milliseconds a step needs at least: a batch with less left stops before the next step.
MIN_STEP_MS = 250


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(
        description="the command: click, type, fill, open, snapshot... (tab.new or tab_new)"
    )
    params: dict[str, Any] = Field(
        default_factory=dict,
        description='its params, as the command takes them, e.g. {"ref": "e3"}; '
        "session: the batch's unless given",
    )


class BatchParams(Params):
    steps: list[Step] = Field(
        description="the commands to run, in order, e.g. "
        '[{"command": "type", "params": {"ref": "e4", "text": "hi"}}, '
        '{"command": "click", "params": {"ref": "e5"}}]',
        min_length=1,
        json_schema_extra={
            "positional": True,
            "sensitive": False,
            "cli": "CLI: a JSON array, or, when absent or -, standard input: a JSON array or "
            "one command per line (click e3)",
        },
    )
    keep_going: bool = Field(
        False,
        description="run the steps after a failed one too (default: stop there, the rest skipped)",
        json_schema_extra={"flag": "continue"},
    )


class StepError(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str
    message: str
    hint: str = ""
    data: dict[str, Any] | None = None


class StepOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str
    ok: bool = Field(description="false when it failed or was skipped")
    skipped: bool = Field(False, description="not run: an earlier step failed")
    result: dict[str, Any] | None = Field(None, description="its result, when ok")
    error: StepError | None = Field(None, description="why it failed")

    @model_serializer(mode="wrap")
    def _shown(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """What happened, without the fields that did not: a skipped step is
        {command, ok, skipped}."""
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None and (k != "skipped" or v)}


class BatchResult(Result):
    REPLY: ClassVar[str] = "batch"
    steps: list[StepOutcome] = Field(description="each step's outcome, in order")
    ran: int
    ok: int
    failed: int
    skipped: int


@command(BATCH, touches_page=False, timeout="long", destructive=True, runs_steps=True)
async def batch(call: Call, params: BatchParams) -> BatchResult:
    """Run commands in order in one call; stop at a failure unless keep_going (--continue)."""
    planned = plan(params.steps, params.session)
    bounded = params.timeout is not None  # else each step keeps just its own deadline
    outcomes: list[StepOutcome] = []
    stopped = False
    for index, (spec, raw) in enumerate(planned, 1):
        if stopped:
            outcomes.append(StepOutcome(command=spec.name, ok=False, skipped=True))
            continue
        outcome = await _run_step(call, spec, raw, bounded)
        outcomes.append(outcome)
        stopped = not outcome.ok and (not params.keep_going or _out_of_time(outcome))
        said = "ok" if outcome.ok else f"failed ({outcome.error.code if outcome.error else '?'})"
        await call.report_progress(index, len(planned), f"step {index} {spec.name} {said}")
    failed = sum(1 for o in outcomes if not o.ok and not o.skipped)
    skipped = sum(1 for o in outcomes if o.skipped)
    return BatchResult(
        steps=outcomes,
        ran=len(outcomes) - skipped,
        ok=len(outcomes) - skipped - failed,
        failed=failed,
        skipped=skipped,
    )


async def _run_step(call: Call, spec: Command, raw: dict[str, Any], bounded: bool) -> StepOutcome:
    assert call.execute is not None  # execute/run.py gives every call its runner
    try:
        if bounded:
            raw = within_deadline(call, spec, raw)
        data = await call.execute(spec.name, raw)
    except SteadyhandError as exc:
        error = StepError.model_validate(exc.to_dict())
        return StepOutcome(command=spec.name, ok=False, error=error)
    return StepOutcome(command=spec.name, ok=True, result=data)


def within_deadline(
    call: Call, spec: Command, raw: dict[str, Any], runner: str = "batch"
) -> dict[str, Any]:
    """The step's params with its deadline cut to what is left of the `runner`'s --timeout
    (a batch's, a flow run's); `timeout` when nothing is left to start it with."""
    left_ms = int((call.deadline - time.monotonic()) * 1000)
    if left_ms < MIN_STEP_MS:
        raise SteadyhandError(
            ErrorCode.TIMEOUT,
            f"the {runner}'s --timeout ran out before this step ({spec.name}) started",
            f"raise the {runner}'s --timeout, or leave it out: each step then keeps its own",
            {"batch_deadline": True},
        )
    try:
        own_ms = call.runtime.settings.timeout_ms(raw.get("timeout"), spec.timeout)
    except SteadyhandError:
        return raw  # the step refuses its own timeout when it runs
    return raw if own_ms <= left_ms else {**raw, "timeout": f"{left_ms}ms"}


def _out_of_time(outcome: StepOutcome) -> bool:
    """The batch's --timeout ran out: no later step can start either."""
    return outcome.error is not None and bool((outcome.error.data or {}).get("batch_deadline"))


# ---------------------------------------------------------------- checking the steps


def plan(steps: list[Step], session: str) -> list[tuple[Command, dict[str, Any]]]:
    """Each step's command and params (in the batch's session unless it names one), all
    checked: `bad_request` naming every bad step, before any runs."""
    planned: list[tuple[Command, dict[str, Any]]] = []
    problems: list[str] = []
    hints: list[str] = []
    for index, step in enumerate(steps, 1):
        try:
            spec = step_command(step.command)
            given = {k: v for k, v in step.params.items() if v is not None}  # null: not given
            raw: dict[str, Any] = {"session": session, **given}
            validated(spec, raw)
        except SteadyhandError as exc:
            problems.append(f"step {index}: {exc.message}")
            if exc.hint and exc.hint not in hints:
                hints.append(exc.hint)
            continue
        planned.append((spec, raw))
    if problems:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "nothing ran: " + "; ".join(problems),
            "; ".join(hints) or "fix the steps named and send the batch again",
        )
    return planned


def step_command(name: str) -> Command:
    """The step's command, named as the CLI or JSON-RPC name it (tab.new) or as its tool or
    client method is (tab_new); refused when a batch cannot run it."""
    spec = COMMANDS.get(name) or next(
        (c for n, c in COMMANDS.items() if name == tool_name(n)),
        None,
    )
    if spec is None:
        close = difflib.get_close_matches(name, COMMANDS, n=1)
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"unknown command {name!r}",
            f"did you mean {close[0]!r}?" if close else "`steadyhand --help` lists the commands",
        )
    why = refused(spec)
    if why:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{spec.name} cannot be a step: {why}",
            f"run {spec.name} as a call of its own",
        )
    return spec


def refused(spec: Command) -> str:
    """Why a batch cannot run this command ("" when it can)."""
    if spec.runs_steps:
        return "a batch holds no batch"
    if spec.streams:
        return "it streams its output as it comes"
    if spec.daemon_only:
        return "only the daemon runs it, alone"
    if spec.decides:
        return "it is a person's decision"
    if not spec.for_agents:
        return "it is not offered to agents"
    return ""
