"""A command's params as plain JSON Schema, for fronts that hand schemas to others.

Pydantic writes `X | None` as `anyOf: [X, null]`, titles everywhere and our own markers
(`positional`, `sensitive`, `file_path`). Several LLM providers reject `anyOf`/`oneOf`, and
MCP clients and OpenAPI tools read plainer schemas better, so every front uses this one:
optional means "not required", no `$ref`, no combinators, no titles.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from steadyhand.commands import COMMANDS, Command

# Not offered to agents (MCP tools, LLM tool schemas): the table's `for_agents=False`.
AGENT_HIDDEN = frozenset(name for name, c in COMMANDS.items() if not c.for_agents)
OUR_MARKERS = ("positional", "sensitive", "file_path", "flag", "short", "title", "cli")
COMBINATORS = ("anyOf", "oneOf", "allOf")


def params_schema(
    command: Command, *, drop: Iterable[str] = (), nullable: bool = False
) -> dict[str, Any]:
    """The command's params object schema, flattened; `drop` leaves fields out."""
    return model_schema(command.params, drop=drop, nullable=nullable)


def model_schema(
    model: type[BaseModel], *, drop: Iterable[str] = (), nullable: bool = False
) -> dict[str, Any]:
    """`nullable`: `X | None` becomes `type: [X, "null"]` instead of X (for documents whose
    readers take type lists, such as OpenAPI 3.1, and for results, which carry the nulls)."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    schema = flatten(raw, defs, nullable=nullable)
    dropped = set(drop)
    properties = {k: v for k, v in schema.get("properties", {}).items() if k not in dropped}
    out: dict[str, Any] = {"type": "object", "properties": properties}
    required = [k for k in schema.get("required", []) if k not in dropped]
    if required:
        out["required"] = required
    out["additionalProperties"] = False
    return out


def flatten(node: Any, defs: dict[str, Any], *, nullable: bool = False) -> Any:
    """Inline `$ref`s, turn `anyOf: [X, null]` into X (or X or null, when `nullable`), drop
    titles and our markers."""
    if isinstance(node, list):
        return [flatten(item, defs, nullable=nullable) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = copy.deepcopy(target) | {k: v for k, v in node.items() if k != "$ref"}
        return flatten(merged, defs, nullable=nullable)
    for combinator in COMBINATORS:
        if combinator in node:
            branches = [b for b in node[combinator] if b.get("type") != "null"]
            if len(branches) != 1:
                raise TypeError(f"no flat schema for a union of {branches!r}")
            rest = {k: v for k, v in node.items() if k != combinator}
            flat = flatten(branches[0] | rest, defs, nullable=nullable)
            return or_null(flat) if nullable and len(branches) < len(node[combinator]) else flat
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in OUR_MARKERS or (key == "default" and value is None):
            continue
        keep = key in ("enum", "default", "const")
        out[key] = value if keep else flatten(value, defs, nullable=nullable)
    if "properties" in node:
        out["properties"] = {
            k: flatten(v, defs, nullable=nullable) for k, v in node["properties"].items()
        }
    return out


def or_null(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema, also admitting null (a schema without a type admits it already)."""
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def walk_keys(node: Any) -> Iterable[str]:
    """Every key used anywhere in a schema (tests check no combinator is left)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from walk_keys(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk_keys(item)
