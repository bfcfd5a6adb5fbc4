"""The command table's machinery: how a command is declared and what every one takes.

Each command is defined once, by decorating its handler with `@command`: its params and
result models are read from the handler's annotations and its doc is the first line of
its docstring. Every front (CLI, JSON-RPC, HTTP with its OpenAPI document, MCP, the LLM
tool schemas and the Python client) is generated from COMMANDS.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from steadyhand.call import Call

# Params that name an element by ref (or locator), and `fill`'s map keyed by ref: each
# takes `@e12` too, the form agents know from other tools.
REF_PARAMS = ("ref", "source", "target")
REF_MAPS = ("fields",)
_AT_REF = re.compile(r"@([ed][1-9][0-9]*)")


def _bare(value: object) -> object:
    if isinstance(value, str) and (match := _AT_REF.fullmatch(value)):
        return match.group(1)
    return value


class Params(BaseModel):
    """Fields every command takes."""

    model_config = ConfigDict(extra="forbid")

    session: str = Field("default", description="session to act in")
    timeout: str | None = Field(
        None,
        description="deadline for the whole command: short, medium, long (settings "
        "timeout_*_ms), or milliseconds",
        pattern=r"^(short|medium|long|[0-9]+(\.[0-9]+)?(ms|s)?)$",
    )

    @model_validator(mode="before")
    @classmethod
    def _at_refs(cls, data: object) -> object:
        """`@e12` is `e12` wherever a ref is taken."""
        if not isinstance(data, dict):
            return data
        bare = {k: _bare(v) if k in REF_PARAMS else v for k, v in data.items()}
        for name in REF_MAPS:
            given = bare.get(name)
            if isinstance(given, dict):
                bare[name] = {_bare(k): v for k, v in given.items()}
        return bare

    @field_validator("timeout", mode="before")
    @classmethod
    def _timeout_text(cls, value: object) -> object:
        # JSON callers may send milliseconds as a number.
        return (
            str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value
        )


class TabParams(Params):
    tab: str | None = Field(None, description="tab id (default: the last tab used)")


class Result(BaseModel):
    model_config = ConfigDict(extra="forbid")


P = TypeVar("P", bound=Params)
R = TypeVar("R", bound=Result)
Handler = Callable[[Call, Any], Awaitable[Result]]


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
        )
        return handler

    return register


def positional(description: str, default: Any = ..., sensitive: bool = False) -> Any:
    """A field given on the CLI without a flag, in declaration order.

    `sensitive`: it may carry a secret (text typed into a field), so it is redacted from
    the log and the store unless the handler shows it went somewhere harmless.
    """
    extra: dict[str, JsonValue] = {"positional": True, "sensitive": sensitive}
    return Field(default, description=description, json_schema_extra=extra)


def sensitive_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """Params declared `sensitive` (redacted whole until a handler reveals them), or result
    fields declared `secret_field` (the caller gets them; the log and the store do not)."""
    return tuple(
        name
        for name, field in model.model_fields.items()
        if isinstance(field.json_schema_extra, dict) and field.json_schema_extra.get("sensitive")
    )


def secret_field(description: str, default: Any = ...) -> Any:
    """A result field that may carry a secret (a copied password): it reaches the caller,
    and is redacted from the action log and the store."""
    extra: dict[str, JsonValue] = {"sensitive": True}
    return Field(default, description=description, json_schema_extra=extra)


def file_path(description: str, positional: bool = False) -> Any:
    """A filesystem path: the CLI makes it absolute against its working directory; the
    daemon confines it to the file roots (files_policy.py) wherever it came from."""
    extra: dict[str, JsonValue] = {"file_path": True}
    if positional:
        extra |= {"positional": True, "sensitive": False}
    return Field(None, description=description, json_schema_extra=extra)


def tool_name(command: str) -> str:
    """`tab.new` -> `tab_new`: a command's name as an LLM tool and a Python client method
    (providers allow [A-Za-z0-9_-] in tool names)."""
    return command.replace(".", "_")
