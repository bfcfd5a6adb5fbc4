"""Flows: what an agent did once, saved from the action log and kept in the store
(`flow save|list|show|rm|export`; `flow run` is commands/flow_run.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import ClassVar

from pydantic import Field, ValidationError

from steadyhand.call import Call
from steadyhand.commands.flow_build import build, joined
from steadyhand.commands.flow_export import playwright_script, python_script
from steadyhand.commands.table import Params, Result, command, file_path, positional
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.flows.model import NAME, Flow, flow_file
from steadyhand.private_files import write_private
from steadyhand.store.base import ActionRow

FLOWS = "flows"
LOG_LIMIT = 5000  # actions read to save a flow from


class FlowNameParams(Params):
    name: str = positional("the flow's name (letters, digits, _ . -)")


def flow_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{name!r} is not a flow name",
            "up to 64 letters, digits, _ . or -, starting with a letter or digit",
        )
    return name


class FlowSaveParams(FlowNameParams):
    from_id: int | None = Field(
        None,
        ge=1,
        description="the first action to include (its id in `trace`)",
        json_schema_extra={"flag": "from"},
    )
    to_id: int | None = Field(
        None, ge=1, description="the last action to include", json_schema_extra={"flag": "to"}
    )
    param: dict[str, str] = Field(
        default_factory=dict,
        description="NAME=VALUE: the value typed as VALUE becomes parameter NAME "
        "(default: named after its field)",
    )
    update: bool = Field(
        False,
        description="a new version of the flow after its run diverged: its steps before "
        "the divergence, then what was done in the session since",
    )
    file: str | None = file_path(
        "save this flow file (JSON, as `flow show` prints it, edited) instead of actions"
    )
    description: str | None = Field(None, description="what the flow does, in a line")


class FlowSaved(Result):
    flow: str
    version: int
    steps: int
    params: dict[str, str] = Field(description="its parameters and their recorded values")
    needs: list[str] = Field(
        default_factory=list, description="parameters without a recorded value: give them at run"
    )
    actions: list[int] = Field(description="the first and last action ids it came from")
    left_out: dict[str, int] = Field(
        default_factory=dict, description="actions not replayed: reads and failed ones"
    )
    notes: list[str] = Field(default_factory=list)


@command("flow.save", touches_page=False, needs_session=False, timeout="short", caps=FLOWS)
async def flow_save(call: Call, params: FlowSaveParams) -> FlowSaved:
    """Save what the session did (or a stretch: --from/--to) as a flow to replay."""
    name = flow_name(params.name)
    store = call.runtime.store
    if params.file is not None:
        if params.update or params.from_id or params.to_id or params.param:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "--file saves the file as it is: --update, --from, --to and --param are for "
                "saving from the action log",
                "give --file alone (edit parameters in the file), or leave it out",
            )
        flow, notes, left = _from_file(params.file, name), [], {}
    else:
        rows = await asyncio.to_thread(_rows, call, params)
        kept: Flow | None = None
        if params.update:
            run_id, version, done = _last_divergence(rows, params)
            ran = await stored_flow(call, name, version or None)
            kept = ran.model_copy(update={"steps": ran.steps[:done]})
            rows = [r for r in rows if r.id > run_id]
        built = build(name, rows, params.param, params.description or "")
        flow, notes, left = built.flow, built.notes, dict(built.left_out)
        if kept is not None:
            flow, renamed = joined(kept, flow)
            notes = [f"kept steps 1-{len(kept.steps)} of version {kept.version}", *renamed, *notes]
    if params.description is not None:
        flow.description = params.description
    body = flow_file(flow)
    version = await asyncio.to_thread(store.save_flow, name, body)
    return FlowSaved(
        flow=name,
        version=version,
        steps=len(flow.steps),
        params={k: p.default for k, p in flow.params.items() if p.default is not None},
        needs=[k for k, p in flow.params.items() if p.default is None],
        actions=flow.actions,
        left_out=left,
        notes=notes,
    )


def _rows(call: Call, params: FlowSaveParams) -> list[ActionRow]:
    store = call.runtime.store
    session = params.session
    after = (params.from_id - 1) if params.from_id else store.life_start(session)
    upto = params.to_id or 2**62
    if store.count_actions(session, after, upto) > LOG_LIMIT:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"more than {LOG_LIMIT} actions in that stretch of session {session!r}",
            "narrow it with --from and --to (`trace` lists the ids)",
        )
    rows = store.actions(session, LOG_LIMIT, after, upto)
    if not rows:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"session {session!r} has no logged action"
            + (" in that range" if params.from_id or params.to_id else ""),
            "act in the session first; `trace --session NAME` lists its actions and ids",
        )
    return rows


def _last_divergence(rows: list[ActionRow], params: FlowSaveParams) -> tuple[int, int, int]:
    """For --update: the action id of the flow's last diverged run in the session, the
    version it ran, and how many of its steps were done (the one it stopped at too when
    its act ran and only what it expected did not show)."""
    for row in reversed(rows):
        error = row.result or {}
        ours = row.command == "flow.run" and row.params.get("name") == params.name
        if ours and not row.ok and error.get("code") == "flow_diverged":
            data = error.get("data") or {}
            step = int(data.get("step") or 1)
            acted = data.get("reason") == "expectation"
            return row.id, int(data.get("version") or 0), step if acted else step - 1
    raise SteadyhandError(
        ErrorCode.BAD_REQUEST,
        f"no diverged run of flow {params.name!r} in session {params.session!r}",
        "--update keeps a flow's steps up to where its run stopped: run it in the session, "
        "take over from the divergence, then save with --update",
    )


def _from_file(path: str, name: str) -> Flow:
    try:
        text = Path(path).read_text(encoding="utf-8")
        flow = Flow.model_validate(json.loads(text))
    except OSError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, f"cannot read {path}: {exc.strerror}", "check the path"
        ) from None
    except json.JSONDecodeError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{path} is not JSON: {exc.msg} (line {exc.lineno})",
            "`flow show NAME > FILE` writes one to edit",
        ) from None
    except ValidationError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{path} is not a flow: {first_problem(exc)}",
            "`flow show NAME > FILE` writes one to edit",
        ) from None
    if not flow.steps:
        raise SteadyhandError(ErrorCode.BAD_REQUEST, f"{path} has no steps", "add steps")
    return flow.model_copy(update={"name": name})


class FlowInfo(Result):
    name: str
    version: int = Field(description="its newest version")
    versions: int
    saved_at: float
    steps: int
    description: str = ""


class FlowList(Result):
    flows: list[FlowInfo]


@command(
    "flow.list",
    reads_only=True,
    touches_page=False,
    needs_session=False,
    timeout="short",
    caps=FLOWS,
)
async def flow_list(call: Call, params: Params) -> FlowList:
    """List the saved flows: newest version, steps, what each does."""
    listed = await asyncio.to_thread(call.runtime.store.flows)
    return FlowList(
        flows=[
            FlowInfo(
                name=f.name,
                version=f.version,
                versions=f.versions,
                saved_at=f.ts,
                steps=f.steps,
                description=f.description,
            )
            for f in listed
        ]
    )


class FlowVersionParams(FlowNameParams):
    version: int | None = Field(None, ge=1, description="this version (default: the newest)")


class FlowRemoveParams(FlowNameParams):
    version: int | None = Field(None, ge=1, description="only this version (default: all)")


class FlowShown(Result):
    REPLY: ClassVar[str] = "text"
    flow: str
    version: int
    text: str = Field(description="the flow file (JSON): edit it, then `flow save --file`")


async def stored_flow(call: Call, name: str, version: int | None) -> Flow:
    """The flow as stored (`not_found` naming the versions there are)."""
    store = call.runtime.store
    found = await asyncio.to_thread(store.flow, flow_name(name), version)
    if found is None:
        versions = await asyncio.to_thread(store.flow_versions, name)
        if versions and version is not None:
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                f"flow {name!r} has no version {version}",
                f"its versions: {', '.join(map(str, versions))}",
            )
        raise _unknown(name)
    try:
        return Flow.model_validate(found.body)
    except ValidationError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"flow {name!r} v{found.version} cannot be read here: {first_problem(exc)}",
            "a newer steadyhand sharing the store saved it: run it there, or save it anew",
        ) from None


def first_problem(exc: ValidationError) -> str:
    """A flow file's first problem: where (steps.3.targets.ref) and what."""
    problem = exc.errors()[0]
    return ".".join(str(p) for p in problem["loc"]) + ": " + problem["msg"]


def _unknown(name: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.NOT_FOUND,
        f"no flow named {name!r}",
        "`flow list` shows the saved flows; `flow save NAME` makes one",
    )


@command(
    "flow.show",
    reads_only=True,
    touches_page=False,
    needs_session=False,
    timeout="short",
    caps=FLOWS,
)
async def flow_show(call: Call, params: FlowVersionParams) -> FlowShown:
    """Show a flow file: its parameters and steps (targets, expectations)."""
    flow = await stored_flow(call, params.name, params.version)
    text = json.dumps(flow_file(flow), indent=2, ensure_ascii=False)
    return FlowShown(flow=flow.name, version=flow.version, text=text)


class FlowRemoved(Result):
    flow: str
    removed: int = Field(description="versions removed")


@command(
    "flow.rm",
    destructive=True,
    for_agents=False,  # flows a fleet shares: a person's housekeeping
    touches_page=False,
    needs_session=False,
    timeout="short",
    caps=FLOWS,
)
async def flow_rm(call: Call, params: FlowRemoveParams) -> FlowRemoved:
    """Remove a flow (every version, or --version N)."""
    await stored_flow(call, params.name, params.version)  # not_found when it is not there
    removed = await asyncio.to_thread(call.runtime.store.forget_flow, params.name, params.version)
    return FlowRemoved(flow=params.name, removed=removed)


class FlowExportParams(FlowVersionParams):
    python: bool = Field(
        False, description="a script on steadyhand's Python client, every act verified (default)"
    )
    playwright: bool = Field(False, description="a plain Playwright script")
    out: str | None = file_path("write the script here (default: return it)")


class FlowExported(Result):
    REPLY: ClassVar[str] = "text"
    flow: str
    version: int
    to: str
    text: str | None = Field(None, description="the script, when not written to a file")
    path: str | None = None


@command(
    "flow.export",
    reads_only=True,
    touches_page=False,
    needs_session=False,
    timeout="short",
    caps=FLOWS,
)
async def flow_export(call: Call, params: FlowExportParams) -> FlowExported:
    """Write a flow as a standalone script: --python (steadyhand's client) or --playwright."""
    if params.python and params.playwright:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, "--python or --playwright, not both", "choose one"
        )
    flow = await stored_flow(call, params.name, params.version)
    to = "playwright" if params.playwright else "python"
    script = playwright_script(flow) if params.playwright else python_script(flow)
    done = FlowExported(flow=flow.name, version=flow.version, to=to)
    if params.out is None:
        done.text = script
        return done
    await asyncio.to_thread(write_private, Path(params.out), script.encode())
    done.path = params.out
    return done
