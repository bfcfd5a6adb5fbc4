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
from steadyhand.commands import Command
from steadyhand.commands.table import tool_name
from steadyhand.errors import SteadyhandError
from steadyhand.fronts.agent_text import error_text, result_text
from steadyhand.fronts.openapi import result_schema
from steadyhand.fronts.schema import params_schema
from steadyhand.fronts.tools import agent_commands

log = logging.getLogger("steadyhand.mcp")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SESSION_DOC = (
    "session to act in. Default: this MCP connection's own session (mcp-<hex>), made on "
    "first use and closed when the connection ends, so parallel agents never share a tab "
    "by accident. Name one to share it with other clients or to keep it afterwards."
)
# Added to a command's doc where a model needs to know more than the one line.
MORE_DOC = {
    "snapshot": "Pass a ref (e.g. e12) to click, type, fill, select...; refs stay valid while "
    "their element lives: on a stale_ref error, snapshot again. A cut snapshot says where "
    "the rest starts: call again with offset=next_offset.",
}


def tools(caps: Set[str] | None = None) -> list[types.Tool]:
    """Every command offered to agents (of these capability groups), as an MCP tool."""
    return [tool(command) for command in agent_commands(ALL if caps is None else caps)]


def tool(command: Command) -> types.Tool:
    schema = params_schema(command)
    schema["properties"]["session"] = {"type": "string", "description": SESSION_DOC}
    more = MORE_DOC.get(command.name)
    return types.Tool(
        name=tool_name(command.name),
        description=command.doc + (f"\n{more}" if more else ""),
        input_schema=schema,
        output_schema=result_schema(command),
        annotations=hints(command),
    )


def hints(command: Command) -> types.ToolAnnotations:
    """Hints for clients that ask before running a tool, derived per command."""
    read_only = command.reads_only
    return types.ToolAnnotations(
        read_only_hint=read_only,
        # Every command that acts on a page may destroy too (a click can delete, send or
        # buy); the rest change the page or the browser without destroying.
        destructive_hint=None if read_only else command.acts or command.destructive,
        # Pages are the open web; profiles, sessions and the daemon are this machine's. A
        # batch's steps may be any of them.
        open_world_hint=command.touches_page or command.creates_session or command.runs_steps,
    )


async def tool_result(data: Any, command: str | None = None) -> types.CallToolResult:
    """A command's JSON result as the model reads it, and as data."""
    text = result_text(data, command)
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=text)]
    image = await png_of(data)
    if image is not None:
        content.append(
            types.ImageContent(
                type="image", data=base64.b64encode(image).decode("ascii"), mime_type="image/png"
            )
        )
    structured = data if isinstance(data, dict) else {"result": data}
    return types.CallToolResult(content=content, structured_content=structured)


def error_result(error: SteadyhandError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error_text(error))],
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
