"""The MCP tools, one per command of the table, and what a tool call hands back.

Tool names, descriptions and schemas come from COMMANDS (`tab.new` is `tab_new`, its doc
the description, its params the flat input schema, its result model the output schema, as
in the OpenAPI document). A result is the same text the LLM tool results give (agent_text:
a snapshot or `text` block under a one-line header, other results as JSON) plus the JSON
as structuredContent, which MCP clients check against the output schema; a result that
points at a PNG (a screenshot) carries the image too. A failure is a tool result with
isError, never a protocol error: `error [code]: message` and a hint the model can act on.
While a call waits (an approval), the client is told at once (`notice_to`).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import warnings
from collections.abc import Awaitable, Callable, Mapping, Set
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server.context import ServerRequestContext

from steadyhand.caps import ALL
from steadyhand.commands import COMMANDS, Command
from steadyhand.commands.act_on_elements import TARGET_HELP, ActParams
from steadyhand.commands.navigation import InlineSnapshot
from steadyhand.commands.table import tool_name
from steadyhand.errors import SteadyhandError
from steadyhand.fronts.agent.text import error_text, result_text
from steadyhand.fronts.agent.tools import agent_commands
from steadyhand.fronts.http.openapi import result_schema
from steadyhand.fronts.schema import params_schema

log = logging.getLogger("steadyhand.mcp")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Options most tools take, explained once in the server's instructions (mcp.INSTRUCTIONS)
# rather than in each of the tools that take them: a host sends the whole list every turn.
SHARED = frozenset(ActParams.model_fields) | frozenset(InlineSnapshot.model_fields)
# What a client assumes of a tool that says nothing (the MCP spec's defaults): only the
# hints that differ are sent.
HINT_DEFAULTS = {"read_only_hint": False, "destructive_hint": True, "open_world_hint": True}
ERROR_SCHEMA = {
    "type": "object",
    "description": "set instead of the result when the call failed (isError)",
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "hint": {"type": "string"},
        "data": {"type": "object"},
    },
    "required": ["code", "message", "hint"],
}


def tools(caps: Set[str] | None = None, output_schemas: bool = False) -> list[types.Tool]:
    """Every command offered to agents (of these capability groups), as an MCP tool;
    `output_schemas`: with each result's schema (for clients that check results)."""
    offered = agent_commands(ALL if caps is None else caps)
    return [tool(command, output_schemas) for command in offered]


def tool(command: Command, output_schema: bool = False) -> types.Tool:
    schema = params_schema(command)
    schema["properties"]["session"] = {"type": "string"}
    for name in SHARED & schema["properties"].keys():
        schema["properties"][name] = {"type": schema["properties"][name]["type"]}
    target = schema["properties"].get("ref")
    if target is not None and target.get("description") == TARGET_HELP:
        del target["description"]  # the instructions say what a target is, once
    return types.Tool(
        name=tool_name(command.name),
        description=command.doc,
        input_schema=schema,
        output_schema=portable_result_schema(command) if output_schema else None,
        annotations=hints(command),
    )


def portable_result_schema(command: Command) -> dict[str, Any]:
    """The result's schema as strict clients check it: a field that may be null is one
    that may be absent (`structured` leaves nulls out: no `type` lists), a field of any
    JSON is left to `additionalProperties`, and a failed call's `{"error": ...}` fits too
    (which is why no field is required at the top)."""
    schema: dict[str, Any] = nulls_absent(result_schema(command))
    schema.pop("required", None)
    schema["properties"] = {
        name: field for name, field in schema["properties"].items() if typed(field)
    }
    schema["properties"]["error"] = ERROR_SCHEMA
    return schema


def nulls_absent(node: Any) -> Any:
    """`type: [X, "null"]` as X, and such a field no longer required (left out instead);
    a value of any type said as `true`, not as a schema with no keyword."""
    if isinstance(node, list):
        return [nulls_absent(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "additionalProperties" and value == {}:
            out[key] = True  # any value: said so, not as a schema without a keyword
        elif key == "items" and value == {}:
            continue
        elif key == "enum":
            out[key] = [item for item in value if item is not None]
        else:
            out[key] = value if key in ("const", "default") else nulls_absent(value)
    if isinstance(out.get("type"), list):
        kinds = [kind for kind in out["type"] if kind != "null"]
        out["type"] = kinds[0] if len(kinds) == 1 else kinds
    properties = node.get("properties")
    if isinstance(properties, dict) and "required" in out:
        out["required"] = [n for n in out["required"] if not nullable(properties.get(n, {}))]
        if not out["required"]:
            del out["required"]
    return out


def nullable(field: dict[str, Any]) -> bool:
    kind = field.get("type")
    return (isinstance(kind, list) and "null" in kind) or None in field.get("enum", [0])


def typed(field: dict[str, Any]) -> bool:
    return any(key in field for key in ("type", "enum", "const"))


def structured(data: Any) -> Any:
    """A result as structured content: its nulls left out (see portable_result_schema)."""
    if isinstance(data, dict):
        return {k: structured(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [structured(item) for item in data]
    return data


def hints(command: Command) -> types.ToolAnnotations | None:
    """Hints for clients that ask before running a tool, derived per command; those that
    differ from the spec's defaults."""
    read_only = command.reads_only
    derived = {
        "read_only_hint": read_only,
        # Every command that acts on a page may destroy too (a click can delete, send or
        # buy); the rest change the page or the browser without destroying.
        "destructive_hint": None if read_only else command.acts or command.destructive,
        # Pages are the open web; profiles, sessions and the daemon are this machine's. A
        # batch's steps may be any of them.
        "open_world_hint": command.touches_page or command.creates_session or command.runs_steps,
    }
    given = {k: v for k, v in derived.items() if v is not None and v != HINT_DEFAULTS[k]}
    return types.ToolAnnotations(**given) if given else None


async def tool_result(
    data: Any, command: str | None = None, boundary: str | None = None
) -> types.CallToolResult:
    """A command's JSON result as the model reads it (page text between `boundary`'s
    markers), and as data."""
    text = result_text(data, command, boundary)
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=text)]
    image = await png_of(data)
    if image is not None:
        content.append(
            types.ImageContent(
                type="image", data=base64.b64encode(image).decode("ascii"), mime_type="image/png"
            )
        )
    shown = for_the_model(data, command)
    content_data = structured(shown if isinstance(shown, dict) else {"result": shown})
    return types.CallToolResult(content=content, structured_content=content_data)


def for_the_model(data: Any, command: str | None) -> Any:
    """The result without the fields its command's result model keeps from a model
    (Result.NOT_FOR_THE_MODEL: an act's stage timings), a batch's steps' by their commands."""
    spec = COMMANDS.get(command or "")
    if spec is None or not isinstance(data, dict):
        return data
    shown = {k: v for k, v in data.items() if k not in spec.result.NOT_FOR_THE_MODEL}
    if spec.runs_steps and isinstance(shown.get("steps"), list):
        shown["steps"] = [
            {**step, "result": for_the_model(step["result"], step.get("command"))}
            if isinstance(step, dict) and isinstance(step.get("result"), dict)
            else step
            for step in shown["steps"]
        ]
    return shown


def error_result(error: SteadyhandError, boundary: str | None = None) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error_text(error, boundary))],
        structured_content={"error": error.to_dict()},
        is_error=True,
    )


async def png_of(data: Any) -> bytes | None:
    """The PNG a result's `path` names (a screenshot), or None."""
    path = data.get("path") if isinstance(data, dict) else None
    if not isinstance(path, str) or not path.lower().endswith(".png"):
        return None
    try:
        image = await asyncio.to_thread(Path(path).read_bytes)
    except OSError:  # the daemon may write where this process cannot read: the path stays
        return None
    return image if image.startswith(PNG_MAGIC) else None


def notice_to(ctx: ServerRequestContext[Any, Any]) -> Callable[[str], Awaitable[None]]:
    """Where a call's notices go (the approval it waits on, and how to decide it): its
    progress when the client sent a progressToken, else a log message of level `notice`
    (which a client on protocol 2026-07-28 receives only if its request asked for logs)."""
    meta = (ctx.params or {}).get("_meta")
    token = meta.get("progressToken") if isinstance(meta, Mapping) else None

    async def notice(text: str) -> None:
        try:
            if token is not None:
                await ctx.session.report_progress(0, None, text)
                return
            with warnings.catch_warnings():  # deprecated in 2026-07-28, still the only way
                warnings.simplefilter("ignore")
                await ctx.session.send_log_message(
                    "notice", text, logger="steadyhand", related_request_id=ctx.request_id
                )
        except Exception:  # the client went: the call still gets its decision
            log.warning("could not send a notice: %s", text, exc_info=True)

    return notice
