"""The MCP tool list as strict clients check it (the MCP Inspector's portability rules):
plain types, every property typed, results and errors that fit their output schema."""

from __future__ import annotations

import asyncio
from typing import Any, get_args, get_origin

import jsonschema
import pytest
from pydantic import BaseModel

from steadyhand.caps import ALL, select_caps
from steadyhand.commands import Command
from steadyhand.commands.table import tool_name
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.agent.tools import agent_commands
from steadyhand.fronts.mcp.server import INSTRUCTIONS
from steadyhand.fronts.mcp.tools import SHARED, error_result, tool_result, tools

OFFERED = agent_commands(ALL)
WITH_OUTPUT = {tool.name: tool for tool in tools(select_caps(ALL), output_schemas=True)}


def schema_problems(node: Any, path: str = "") -> list[str]:
    """What the Inspector warns about: a type list, a property without a type."""
    found: list[str] = []
    if isinstance(node, dict):
        if isinstance(node.get("type"), list):
            found.append(f"{path}: type list {node['type']}")
        subschemas = [(f".{name}", field) for name, field in (node.get("properties") or {}).items()]
        subschemas += [(f".{key}", node.get(key)) for key in ("items", "additionalProperties")]
        for where, field in subschemas:
            if isinstance(field, dict) and not any(k in field for k in ("type", "enum", "const")):
                found.append(f"{path}{where}: no type")
        for key, value in node.items():
            found += schema_problems(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            found += schema_problems(item, f"{path}[{i}]")
    return found


def test_every_schema_is_plain_and_typed() -> None:
    listed = list(WITH_OUTPUT.values())
    assert len(listed) == len(OFFERED)
    problems = [
        f"{tool.name} {part}{problem}"
        for tool in listed
        for part, schema in (("input", tool.input_schema), ("output", tool.output_schema))
        for problem in schema_problems(schema)
    ]
    assert problems == []


def test_names_are_one_style_and_shared_options_are_said_once() -> None:
    listed = tools(select_caps(ALL))
    assert all(tool.name.isidentifier() and tool.name.islower() for tool in listed)
    assert "select_text" in {tool.name for tool in listed}
    for tool in listed:
        assert tool.output_schema is None  # only with --output-schemas
        for name in SHARED & tool.input_schema["properties"].keys():
            assert "description" not in tool.input_schema["properties"][name], tool.name
    for name in SHARED:
        assert f"`{name}`" in INSTRUCTIONS


def sample(annotation: Any) -> Any:
    """A value of a result field's type, as a command would send it (nulls where allowed,
    so that leaving them out is tested too)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if args and type(None) in args:
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {name: sample(field.annotation) for name, field in annotation.model_fields.items()}
    if origin in (list, tuple, set, frozenset):
        return [sample(args[0])] if args and args[0] is not Any else []
    if origin is dict:
        return {"k": sample(args[1])} if len(args) == 2 and args[1] is not Any else {}
    if str(origin) == "typing.Literal":
        return args[0]
    if annotation is bool:
        return True
    if annotation is int:
        return 1
    if annotation is float:
        return 1.5
    if annotation is str:
        return "x"
    return "any"  # JsonValue, Any


def result_of(command: Command) -> dict[str, Any]:
    """A result the command could answer: sampled, then checked by its own model."""
    raw = sample(command.result)
    return command.result.model_validate(raw).model_dump(mode="json")


@pytest.mark.parametrize("command", OFFERED, ids=lambda c: c.name)
def test_results_and_errors_fit_the_output_schema(command: Command) -> None:
    tool = WITH_OUTPUT[tool_name(command.name)]
    assert tool.output_schema is not None
    check = jsonschema.Draft202012Validator(tool.output_schema)
    jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    done = asyncio.run(tool_result(result_of(command), command.name))
    check.validate(done.structured_content)
    error = SteadyhandError(ErrorCode.STALE_REF, "ref e3 is stale", "snapshot again", {"ref": "e3"})
    failed = error_result(error)
    assert failed.is_error
    check.validate(failed.structured_content)
    assert failed.structured_content == {"error": error.to_dict()}
