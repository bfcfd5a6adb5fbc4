"""Generate the CLI's argument spec from the command table.

The thin CLI must not import pydantic, so it reads `cli_spec.json`, which this module
writes: `python -m steadyhand.fronts.cli_spec` (or `make spec`). A test fails when the
file and the table disagree, so the table stays the one definition.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from steadyhand.commands import COMMANDS, Command

SPEC_PATH = Path(__file__).with_name("cli_spec.json")
GLOBAL_FIELDS = ("session", "timeout_ms")


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
        return "list", None, optional
    if origin is dict:
        return "map", None, optional
    names = {str: "str", int: "int", float: "float", bool: "bool"}
    if annotation not in names:
        raise TypeError(f"no CLI form for {annotation!r}")
    return names[annotation], None, optional


def command_spec(command: Command) -> dict[str, Any]:
    params = []
    for name, field in command.params.model_fields.items():
        if name in GLOBAL_FIELDS:
            continue
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        kind, choices, optional = _kind(field.annotation)
        default = None if field.is_required() else field.get_default(call_default_factory=True)
        params.append(
            {
                "name": name,
                "type": kind,
                "positional": bool(extra.get("positional")),
                "required": field.is_required(),
                "default": default,
                "choices": choices,
                "file_path": bool(extra.get("file_path")),
                "help": field.description or "",
                "optional": optional,
            }
        )
    return {"name": command.name, "doc": command.doc, "params": params}


def build_spec() -> dict[str, Any]:
    return {"commands": [command_spec(c) for c in COMMANDS.values()]}


def render() -> str:
    return json.dumps(build_spec(), indent=1, sort_keys=True) + "\n"


def main() -> int:
    SPEC_PATH.write_text(render())
    print(f"wrote {SPEC_PATH} ({len(COMMANDS)} commands)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
