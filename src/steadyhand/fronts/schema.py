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

from steadyhand.commands import Command

# Not offered to agents (MCP tools, LLM tool schemas): stopping the daemon ends every other
# agent's sessions too, and approving is a person's decision (an agent approving its own
# request would make the gate pointless). The CLI, JSON-RPC, HTTP and the Python client
# keep them.
AGENT_HIDDEN = frozenset({"daemon.stop", "approve", "deny"})
OUR_MARKERS = ("positional", "sensitive", "file_path", "title")
COMBINATORS = ("anyOf", "oneOf", "allOf")


def params_schema(command: Command, *, drop: Iterable[str] = ()) -> dict[str, Any]:
    """The command's params object schema, flattened; `drop` leaves fields out."""
    return model_schema(command.params, drop=drop)


def model_schema(model: type[BaseModel], *, drop: Iterable[str] = ()) -> dict[str, Any]:
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    schema = flatten(raw, defs)
    dropped = set(drop)
    properties = {k: v for k, v in schema.get("properties", {}).items() if k not in dropped}
    out: dict[str, Any] = {"type": "object", "properties": properties}
    required = [k for k in schema.get("required", []) if k not in dropped]
    if required:
        out["required"] = required
    out["additionalProperties"] = False
    return out


def flatten(node: Any, defs: dict[str, Any]) -> Any:
    """Inline `$ref`s, turn `anyOf: [X, null]` into X, drop titles and our markers."""
    if isinstance(node, list):
        return [flatten(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = copy.deepcopy(target) | {k: v for k, v in node.items() if k != "$ref"}
        return flatten(merged, defs)
    for combinator in COMBINATORS:
        if combinator in node:
            branches = [b for b in node[combinator] if b.get("type") != "null"]
            if len(branches) != 1:
                raise TypeError(f"no flat schema for a union of {branches!r}")
            rest = {k: v for k, v in node.items() if k != combinator}
            return flatten(branches[0] | rest, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in OUR_MARKERS or (key == "default" and value is None):
            continue
        out[key] = value if key in ("enum", "default", "const") else flatten(value, defs)
    if "properties" in node:
        out["properties"] = {k: flatten(v, defs) for k, v in node["properties"].items()}
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
