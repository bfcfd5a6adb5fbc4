"""What crosses every front: the base models of each command's params and result, and the
markers on their fields that the fronts read (positional, sensitive, file_path).

The command table (commands/table.py) declares commands on these; the acting machinery
(act/) builds its results on them, so they sit below both.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

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
    """A command's result. `REPLY` says how a reply writes it for a person or a model
    (fronts/reply.py): "fields" (each field worth a line), "act" (a status line and the
    changes), "snapshot" or "text" (that field's text under the page's line), "batch"
    (each step as its own command's), "desktop_act", "window", "evaluated"."""

    REPLY: ClassVar[str] = "fields"
    # Fields for people measuring, not for a model: MCP's structured content (which a host
    # may hand the model) leaves them out; --json and the Python client keep them.
    NOT_FOR_THE_MODEL: ClassVar[frozenset[str]] = frozenset()
    # It may hold text a page (or a desktop application) wrote: a reply to a model puts it
    # between content boundaries (fronts/boundary.py). An act's reply is bounded only when
    # it shows something the page made (fronts/reply.py).
    PAGE_TEXT: ClassVar[bool] = False
    model_config = ConfigDict(extra="forbid")


def positional(
    description: str, default: Any = ..., sensitive: bool = False, session_alias: bool = False
) -> Any:
    """A field given on the CLI without a flag, in declaration order.

    `sensitive`: it may carry a secret (text typed into a field), so it is redacted from
    the log and the store unless the handler shows it went somewhere harmless.
    `session_alias`: a session's name, the older form of --session (`trace NAME`): the CLI
    refuses both given with different names.
    """
    extra: dict[str, JsonValue] = {"positional": True, "sensitive": sensitive}
    if session_alias:
        extra["session_alias"] = True
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
