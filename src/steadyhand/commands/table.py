"""The command table's machinery: how a command is declared and what every one takes.

Each command is defined once, by decorating its handler with `@command`: its params and
result models are read from the handler's annotations and its doc is the first line of
its docstring. Every front (CLI, JSON-RPC, HTTP with its OpenAPI document, MCP, the LLM
tool schemas and the Python client) is generated from COMMANDS.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, get_type_hints

from pydantic import ValidationError

from steadyhand.call import Call
from steadyhand.caps import CAPS, CORE
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.models import (  # the models and markers every command is declared with
    Params,
    Result,
    TabParams,
    file_path,
    positional,
    secret_field,
    sensitive_fields,
)

__all__ = [
    "COMMANDS",
    "SUBMIT",
    "Command",
    "GateRule",
    "Params",
    "Result",
    "TabParams",
    "command",
    "file_path",
    "positional",
    "secret_field",
    "sensitive_fields",
]

P = TypeVar("P", bound=Params)
R = TypeVar("R", bound=Result)
Handler = Callable[[Call, Any], Awaitable[Result]]


SUBMIT = "submit"  # what a call `presses` when it submits its field's form (type --submit)


@dataclass(frozen=True)
class GateRule:
    """What a command puts before a person when the approval settings ask for it
    (execute/gate.py), beyond what its traits say (`navigates`: the URL it goes to;
    `on_element`: the element it acts on). The gate reads this; it never asks for a name."""

    always: bool = False  # every call asks a person (params.reason says why)
    files: bool = False  # it sends files to a page (params.files): approval_uploads
    fields: bool = False  # it writes fields (params.fields): each name and value is matched
    # The key a call presses that submits a form or activates an element (Enter, Space;
    # SUBMIT for a form's submission as such), or None when the call does neither.
    presses: Callable[[Any], str | None] | None = None
    # The options a call chooses (select's values): matched against approval_names too.
    picks: Callable[[Any], tuple[str, ...]] | None = None
    # Why this call asks a person whatever the approval settings (`screenshot --unmasked`:
    # a picture with the secrets' boxes lifted), or None when it does not.
    asks: Callable[[Any], str | None] | None = None


@dataclass(frozen=True)
class Command:
    name: str  # dotted: "tab.new" is `steadyhand tab new` and JSON-RPC method "tab.new"
    params: type[Params]
    result: type[Result]
    handler: Handler
    doc: str
    touches_page: bool  # writes an action_log row
    in_browser: bool  # acts in a browser session (false: the desktop's commands)
    creates_session: bool  # may start the session it names
    autostart: bool  # calling it from the CLI starts the daemon when none runs
    sensitive: tuple[str, ...]  # params redacted unless the handler proves them harmless
    sensitive_result: tuple[str, ...]  # result fields kept out of the log and the store
    timeout: str  # the deadline tier when the caller gives no --timeout
    acts: bool  # acts on the page: a failure leaves a screenshot as evidence
    reads_only: bool  # changes nothing anywhere (MCP's readOnlyHint)
    destructive: bool  # may destroy what nobody can get back (acting commands may, too)
    # Its progress notes are its output as it comes (JSON, one per note): the CLI prints each
    # on stdout instead of a progress line.
    streams: bool = False
    # Runs on the live session it names (restored first if suspended, `unknown_session`
    # before anything else if there is none); `close` needs only that the session exists.
    needs_session: bool = True
    # Goes to a URL it is given: the approval policy's domain rules apply to it.
    navigates: bool = False
    # Acts on one element a person could be asked about: the policy's element rules apply.
    on_element: bool = False
    # May leave the page other than it found it: a recovery lists it among the lost actions.
    changes_page: bool = False
    # Offered to agents (MCP tools, LLM tool schemas). Not: stopping the daemon (it ends every
    # other agent's sessions too), approving (an agent approving its own request would make
    # the gate pointless), pairing the user's Chrome extension (its token has no business in
    # a model's context). The CLI, JSON-RPC, HTTP and the Python client keep them all.
    for_agents: bool = True
    # A person's decision: it needs the approver's token when `approver_token` is set.
    decides: bool = False
    # Runs on a session a person has taken over (the others get `session_paused`).
    during_takeover: bool = False
    # Only a daemon can run it: a client with its engine in-process refuses it.
    daemon_only: bool = False
    # Runs other commands of the table, each as a call of its own with its own deadline
    # (`batch`): it keeps its own deadline between them instead of being cut off mid-step.
    runs_steps: bool = False
    # Its capability group (steadyhand/caps.py): agents are offered the groups their front
    # was started with (`mcp --caps core,tabs`). A new command is "core" until it says.
    caps: str = CORE
    # What the approval gate asks a person about (GateRule).
    gate_rule: GateRule = GateRule()


def validated(command: Command, raw: dict[str, Any]) -> Params:
    """The command's params from `raw`; `bad_request` naming each problem (a model's own
    check in its own words, without pydantic's prefix) and the params it takes."""
    try:
        return command.params.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            said = err.get("ctx", {}).get("error") if err["type"] == "value_error" else None
            message = str(said) if said is not None else err["msg"]
            where = ".".join(str(p) for p in err["loc"])
            problems.append(f"{where}: {message}" if where else message)
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"bad params for {command.name}: " + "; ".join(problems),
            f"{command.name} takes: {', '.join(command.params.model_fields)}",
        ) from exc


COMMANDS: dict[str, Command] = {}


def command(
    name: str,
    *,
    touches_page: bool = True,
    in_browser: bool = True,
    creates_session: bool = False,
    autostart: bool = True,
    timeout: str = "medium",
    acts: bool = False,
    reads_only: bool = False,
    destructive: bool = False,
    streams: bool = False,
    needs_session: bool | None = None,
    navigates: bool = False,
    on_element: bool = False,
    changes_page: bool = False,
    for_agents: bool = True,
    decides: bool = False,
    during_takeover: bool = False,
    daemon_only: bool = False,
    runs_steps: bool = False,
    caps: str = CORE,
    gate_rule: GateRule = GateRule(),
) -> Callable[[Callable[[Call, P], Awaitable[R]]], Callable[[Call, P], Awaitable[R]]]:
    """Register a handler; its annotations give the params and result models."""

    def register(handler: Callable[[Call, P], Awaitable[R]]) -> Callable[[Call, P], Awaitable[R]]:
        hints = get_type_hints(handler)
        doc = (inspect.getdoc(handler) or "").splitlines()
        if not doc:
            raise TypeError(f"command {name} needs a docstring")
        params: type[Params] = hints["params"]
        if reads_only and (acts or destructive):
            raise TypeError(f"command {name} cannot both only read and act or destroy")
        if caps not in CAPS:
            raise TypeError(f"command {name}: no capability group {caps!r} (see caps.py)")
        COMMANDS[name] = Command(
            name=name,
            params=params,
            result=hints["return"],
            handler=handler,
            doc=doc[0],
            touches_page=touches_page,
            in_browser=in_browser,
            creates_session=creates_session,
            autostart=autostart,
            sensitive=sensitive_fields(params),
            sensitive_result=sensitive_fields(hints["return"]),
            timeout=timeout,
            acts=acts,
            reads_only=reads_only,
            destructive=destructive,
            streams=streams,
            needs_session=touches_page and in_browser if needs_session is None else needs_session,
            navigates=navigates,
            on_element=on_element,
            changes_page=changes_page or acts or creates_session,
            for_agents=for_agents,
            decides=decides,
            during_takeover=during_takeover,
            daemon_only=daemon_only,
            runs_steps=runs_steps,
            caps=caps,
            gate_rule=gate_rule,
        )
        return handler

    return register


def tool_name(command: str) -> str:
    """`tab.new` -> `tab_new`, `select-text` -> `select_text`: a command's name as an LLM
    or MCP tool and a Python client method (one style: hosts prefix a server's tools, as
    `steadyhand__select_text`, and a hyphen among underscores reads as a typo)."""
    return command.replace(".", "_").replace("-", "_")
