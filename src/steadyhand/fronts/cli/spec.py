"""Generate the CLI's argument spec from the command table.

The daemon's end of the CLI (host.py) builds it in memory. The reference CLI, which runs
where no daemon is yet, must not import pydantic, so it reads `spec.json`, which this
module writes: `python -m steadyhand.fronts.cli.spec` (or `make spec`). A test fails when
the file and the table disagree, so the table stays the one definition.
"""

from __future__ import annotations

import json
import sys
import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

from steadyhand.commands import COMMANDS, Command, Params
from steadyhand.fronts.cli.main import SPEC_PATH


class DaemonStartParams(BaseModel):
    """Start the daemon in the background (if it is not running)."""

    headed: bool = Field(False, description="show browser windows (needs a display, e.g. Xvfb)")


# Commands of the CLI itself: they run before there is a daemon to ask.
CLI_ONLY: dict[str, type[BaseModel]] = {"daemon.start": DaemonStartParams}


def _kind(annotation: Any) -> tuple[str, list[str] | None, bool]:
    """(type name, choices, optional) for a field annotation."""
    optional = False
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(args) < len(get_args(annotation))
        annotation = args[0]
        origin = get_origin(annotation)
    if origin is Literal:
        return "str", [str(a) for a in get_args(annotation)], optional
    if origin is list:
        (item,) = get_args(annotation)
        if isinstance(item, type) and issubclass(item, BaseModel):
            return "steps", None, optional  # commands to run (batch): JSON or command lines
        return "list", None, optional
    if origin is dict:
        return "map", None, optional
    names = {str: "str", int: "int", float: "float", bool: "bool"}
    if annotation not in names:
        raise TypeError(f"no CLI form for {annotation!r}")
    return names[annotation], None, optional


def field_spec(name: str, field: FieldInfo) -> dict[str, Any]:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    kind, choices, optional = _kind(field.annotation)
    return {
        "name": name,
        "flag": "--" + str(extra.get("flag", name)).replace("_", "-"),
        **({"short": f"-{extra['short']}"} if extra.get("short") else {}),
        "type": kind,
        "positional": bool(extra.get("positional")),
        "required": field.is_required(),
        "default": None if field.is_required() else field.get_default(call_default_factory=True),
        "choices": choices,
        "file_path": bool(extra.get("file_path")),
        **({"session_alias": True} if extra.get("session_alias") else {}),
        "sensitive": bool(extra.get("sensitive")),
        # `cli`: what only the command line takes (stdin, `-`), left out of JSON schemas.
        "help": " ".join(filter(None, [field.description, str(extra.get("cli") or "")])),
        "optional": optional,
    }


def params_spec(model: type[BaseModel]) -> list[dict[str, Any]]:
    """A model's own fields; the ones every command shares are the CLI's global options."""
    return [
        field_spec(name, field)
        for name, field in model.model_fields.items()
        if name not in Params.model_fields
    ]


def result_defaults(model: type[BaseModel]) -> dict[str, Any]:
    """A result's fields that have a default, with it: a reply leaves out a field that
    still holds its default."""
    return {
        name: field.get_default(call_default_factory=True)
        for name, field in model.model_fields.items()
        if not field.is_required()
    }


def command_spec(command: Command) -> dict[str, Any]:
    return {
        "name": command.name,
        "doc": command.doc,
        "params": params_spec(command.params),
        "autostart": command.autostart,
        "cli_only": False,
        **({"result_defaults": defaults} if (defaults := result_defaults(command.result)) else {}),
        # How its result is written (wire.Result.REPLY); only where not "fields".
        **({"reply": command.result.REPLY} if command.result.REPLY != "fields" else {}),
        # Only where true (its reply may hold a page's text: content boundaries).
        **({"page_text": True} if command.result.PAGE_TEXT else {}),
        # Only where true (the CLI prints its progress notes as output): a smaller file.
        **({"streams": True} if command.streams else {}),
        # Only where false (a daemon it starts leaves the browser for later): a smaller file.
        **({"in_browser": False} if not command.in_browser else {}),
    }


def build_spec() -> dict[str, Any]:
    cli_only = [
        {
            "name": name,
            "doc": (model.__doc__ or "").strip().splitlines()[0],
            "params": params_spec(model),
            "autostart": False,
            "cli_only": True,
        }
        for name, model in CLI_ONLY.items()
    ]
    return {
        "globals": [field_spec(name, field) for name, field in Params.model_fields.items()],
        "commands": [command_spec(c) for c in COMMANDS.values()] + cli_only,
    }


def render() -> str:
    return json.dumps(build_spec(), indent=1, sort_keys=True) + "\n"


def main() -> int:
    SPEC_PATH.write_text(render())
    print(f"wrote {SPEC_PATH} ({len(COMMANDS)} commands)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
