"""Tool schemas for LLM APIs, generated from the command table, and a dispatcher for calls.

Two shapes, both from COMMANDS:

- one flat `browser` tool (in the spirit of OpenClaw's): `action` names a command, and
  `action: "act"` takes a `request` object whose `kind` names an acting command;
- granular tools, one per command (`snapshot`, `click`, `tab_new`, ...).

Both offer the capability groups asked for (steadyhand/caps.py: `--caps core,tabs`), by
default every group but `desktop` when this process sees no desktop.

Schemas use no `anyOf`/`oneOf` (several providers reject them). `dispatch(call)` runs a
tool call as OpenAI, Anthropic or Gemini sends it and returns the tool-result message
that provider expects, so an agent loop needs a few lines:

    for call in response_tool_calls:
        messages.append(steadyhand.tools.dispatch(call))
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Iterable, Set
from dataclasses import dataclass
from typing import Any

from steadyhand.caps import ALL, CAPS_HELP, caps_text, select_caps
from steadyhand.commands import COMMANDS, Command
from steadyhand.commands.batch import step_command
from steadyhand.commands.navigation import InlineSnapshot
from steadyhand.commands.table import tool_name
from steadyhand.errors import ErrorCode, SteadyhandError, exit_code_for
from steadyhand.fronts.agent.text import error_text, result_text
from steadyhand.fronts.boundary import for_agents
from steadyhand.fronts.schema import params_schema

FORMATS = ("openai", "anthropic", "gemini")
STYLES = ("flat", "granular", "all")
FLAT_NAME = "browser"
ACT = "act"
# What Gemini's schema subset does not take (it answers 400 on them).
GEMINI_DROPS = ("additionalProperties", "default", "exclusiveMinimum", "exclusiveMaximum")

FLAT_DOC = (
    "Drive a real Chromium browser. Loop: `snapshot` returns the page as an accessibility "
    "tree where each element you can act on has a ref like e12; act on refs with "
    "action='act' and request={kind: 'click', ref: 'e12'} (or type, fill, select, ...). "
    "Refs stay valid while the element lives; on stale_ref, take a new snapshot. Act "
    "results include `changes` (what the action changed), so a new snapshot is rarely "
    "needed. Errors say `error [code]: message` and a hint on what to do."
)


@dataclass(frozen=True)
class ToolSpec:
    """A provider-neutral tool: name, description, JSON Schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


Caps = str | Iterable[str] | None  # groups: "core,tabs", a list, or None (the default)


def agent_commands(caps: Caps = ALL) -> list[Command]:
    """The commands offered to agents, of these capability groups (default: every group)."""
    chosen = select_caps(caps)
    return [c for c in COMMANDS.values() if c.for_agents and c.caps in chosen]


def granular_tools(caps: Caps = None) -> list[ToolSpec]:
    """One tool per command of these groups (None: the default groups)."""
    return [ToolSpec(tool_name(c.name), c.doc, params_schema(c)) for c in agent_commands(caps)]


def flat_tool(caps: Caps = None) -> ToolSpec:
    """One `browser` tool: every non-acting command of these groups an `action`, acting
    ones `act` kinds (None: the default groups)."""
    offered = agent_commands(caps)
    acting = [c for c in offered if c.acts]
    others = [c for c in offered if not c.acts]
    request = _merged(acting)
    request["properties"] = {
        "kind": {
            "type": "string",
            "enum": [c.name for c in acting],
            "description": "the action: " + "; ".join(f"{c.name}: {c.doc}" for c in acting),
        },
        **request["properties"],
    }
    request["required"] = ["kind"]
    request["description"] = "for action='act': what to do, and on which ref"
    top = _merged(others)
    properties = {
        "action": {
            "type": "string",
            "enum": [c.name for c in others] + [ACT],
            "description": "the command: "
            + "; ".join(f"{c.name}: {c.doc}" for c in others)
            + f"; {ACT}: act on the page (see request)",
        },
        "request": request,
        **top["properties"],
    }
    parameters = {
        "type": "object",
        "properties": properties,
        "required": ["action"],
        "additionalProperties": False,
    }
    return ToolSpec(FLAT_NAME, FLAT_DOC, parameters)


def _merged(commands: Iterable[Command]) -> dict[str, Any]:
    """Every param of these commands in one object; a name used with different meanings
    says which command means what, and keeps only the constraints all of them share."""
    seen: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for command in commands:
        for name, schema in params_schema(command)["properties"].items():
            seen.setdefault(name, []).append((command.name, schema))
    properties: dict[str, Any] = {}
    for name, uses in seen.items():
        first = dict(uses[0][1])
        for _, other in uses[1:]:
            first = {k: v for k, v in first.items() if other.get(k) == v or k == "description"}
        descriptions = {s.get("description", "") for _, s in uses}
        if len(descriptions) > 1:
            first["description"] = "; ".join(f"{c}: {s.get('description', '')}" for c, s in uses)
        first.pop("default", None)  # defaults differ per command; the command applies its own
        properties[name] = first
    return {"type": "object", "properties": properties, "additionalProperties": False}


def tool_schemas(
    fmt: str = "openai", style: str = "all", caps: Caps = None
) -> list[dict[str, Any]]:
    """The tools in one provider's format, of these capability groups (None: the default)."""
    if fmt not in FORMATS:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, f"unknown format {fmt!r}", f"one of {', '.join(FORMATS)}"
        )
    if style not in STYLES:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, f"unknown style {style!r}", f"one of {', '.join(STYLES)}"
        )
    chosen = select_caps(caps)
    specs = ([flat_tool(chosen)] if style in ("flat", "all") else []) + (
        granular_tools(chosen) if style in ("granular", "all") else []
    )
    return [_in_format(spec, fmt) for spec in specs]


def _in_format(spec: ToolSpec, fmt: str) -> dict[str, Any]:
    if fmt == "openai":
        return {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
            },
        }
    if fmt == "anthropic":
        return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}
    return {
        "name": spec.name,
        "description": spec.description,
        "parameters": gemini_schema(spec.parameters),
    }


def gemini_schema(node: Any) -> Any:
    """Gemini's subset: no additionalProperties/defaults; a map (an object with no fixed
    properties) is a JSON string instead, which `dispatch` parses back."""
    if isinstance(node, list):
        return [gemini_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    if node.get("type") == "object" and not node.get("properties"):
        description = node.get("description", "")
        return {"type": "string", "description": f"{description} (a JSON object)".strip()}
    out = {k: gemini_schema(v) for k, v in node.items() if k not in GEMINI_DROPS}
    if "properties" in node:
        out["properties"] = {k: gemini_schema(v) for k, v in node["properties"].items()}
    return out


# ---------------------------------------------------------------- calls


@dataclass(frozen=True)
class ToolCall:
    provider: str  # openai | anthropic | gemini | plain
    id: str | None
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    text: str
    is_error: bool
    data: Any  # the command's JSON result, or the error's dict


def parse_call(call: Any) -> ToolCall:
    """Read a tool call in any provider's shape (objects from their SDKs too)."""
    raw = _as_dict(call)
    if "function" in raw:  # OpenAI chat completions
        function = _as_dict(raw["function"])
        return ToolCall("openai", raw.get("id"), function["name"], _args(function["arguments"]))
    if raw.get("type") == "function_call":  # OpenAI responses API
        return ToolCall("openai", raw.get("call_id"), raw["name"], _args(raw["arguments"]))
    if raw.get("type") == "tool_use":
        return ToolCall("anthropic", raw.get("id"), raw["name"], _args(raw.get("input")))
    if "functionCall" in raw:
        raw = _as_dict(raw["functionCall"])
        return ToolCall("gemini", raw.get("id"), raw["name"], _args(raw.get("args")))
    if "name" in raw and "args" in raw:
        return ToolCall("gemini", raw.get("id"), raw["name"], _args(raw["args"]))
    if "name" in raw:
        return ToolCall("plain", raw.get("id"), raw["name"], _args(raw.get("arguments")))
    raise SteadyhandError(
        ErrorCode.BAD_REQUEST,
        "not a tool call: " + json.dumps(raw, default=str)[:200],
        "pass the tool call object as the provider returned it",
    )


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    for method in ("model_dump", "to_dict"):
        if hasattr(value, method):
            out: dict[str, Any] = getattr(value, method)()
            return out
    return dict(vars(value))


def _args(arguments: Any) -> dict[str, Any]:
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"tool arguments are not JSON: {exc}",
                "send the arguments as one JSON object",
            ) from exc
    if not isinstance(arguments, dict):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, "tool arguments must be an object", "send a JSON object"
        )
    return dict(arguments)


def to_command(
    name: str, arguments: dict[str, Any], caps: Set[str] | None = None
) -> tuple[str, dict[str, Any]]:
    """(command, params) for a tool call to the flat tool or a granular one. `caps`: the
    capability groups offered; a call outside them is refused (None: none is)."""
    offered = agent_commands(ALL if caps is None else caps)
    if name == FLAT_NAME:
        args = dict(arguments)
        action = args.pop("action", None)
        request = args.pop("request", None)
        if action == ACT:
            if not isinstance(request, dict) or "kind" not in request:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    "action 'act' needs request.kind",
                    "e.g. {action: 'act', request: {kind: 'click', ref: 'e12'}}",
                )
            request = dict(request)
            command = str(request.pop("kind"))
            args = request | args
            acts = True
        else:
            if request is not None:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"request is only for action 'act', not {action!r}",
                    "put the command's params beside `action`",
                )
            command = str(action)
            acts = False
        if command not in {c.name for c in agent_commands() if c.acts == acts}:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"{command!r} is not a{' kind' if acts else 'n action'} of the browser tool",
                "one of: " + ", ".join(sorted(c.name for c in offered if c.acts == acts)),
            )
    else:
        # A command's own name too (`select-text`, as the tool was named before).
        by_tool = {n: c.name for c in agent_commands() for n in (tool_name(c.name), c.name)}
        if name not in by_tool:
            raise SteadyhandError(
                ErrorCode.UNKNOWN_COMMAND,
                f"no tool named {name!r}",
                "tools: " + ", ".join(sorted(tool_name(c.name) for c in offered)),
            )
        command, args = by_tool[name], dict(arguments)
    if caps is not None and COMMANDS[command].caps not in caps:
        raise not_offered(command, name, caps)
    if caps is not None and COMMANDS[command].runs_steps:
        _steps_offered(args.get("steps"), caps)
    if issubclass(COMMANDS[command].params, InlineSnapshot) and args.get("snapshot") is None:
        args["snapshot"] = True  # a page load hands back its page: one round trip, not two
    return command, _maps_from_strings(COMMANDS[command], args)


def _steps_offered(steps: Any, caps: Set[str]) -> None:
    """A batch runs only what the front offers: a step of a group that is off is refused
    like a call to its tool (steps the batch cannot run at all, it refuses itself)."""
    for step in steps if isinstance(steps, list) else []:
        named = step.get("command") if isinstance(step, dict) else None
        try:
            spec = step_command(str(named))
        except SteadyhandError:
            continue
        if spec.caps not in caps:
            raise not_offered(spec.name, f"batch step {named}", caps)


def not_offered(command: str, tool: str, caps: Set[str]) -> SteadyhandError:
    """A call to a command of a capability group this front does not offer."""
    group = COMMANDS[command].caps
    what = f"{tool!r}" if tool != FLAT_NAME else f"{command!r} (browser tool)"
    return SteadyhandError(
        ErrorCode.UNKNOWN_COMMAND,
        f"{what} is not offered here: its capability group {group!r} is off "
        f"(on: {caps_text(caps)})",
        f"use the tools listed; to offer it, start the server with --caps "
        f"{caps_text(caps | {group})}",
    )


def _maps_from_strings(command: Command, args: dict[str, Any]) -> dict[str, Any]:
    """A map param sent as a JSON string (Gemini's schema has no free-form objects)."""
    for name, schema in params_schema(command)["properties"].items():
        if (
            schema.get("type") == "object"
            and not schema.get("properties")
            and isinstance(args.get(name), str)
        ):
            try:
                args[name] = json.loads(args[name])
            except json.JSONDecodeError as exc:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"{name} is not a JSON object: {exc}",
                    'e.g. {"e5": "alice", "e7": "secret"}',
                ) from exc
    return args


UNREAD = ToolCall("plain", None, "", {})  # a call that could not be read


async def arun(call: Any, client: Any) -> tuple[ToolCall, ToolResult]:
    """Run one tool call on an async `steadyhand.Client`; errors become error results."""
    parsed, boundary = UNREAD, None
    try:
        parsed = parse_call(call)
        command, params = to_command(parsed.name, parsed.arguments)
        boundary = boundary_of(client, params)
        data = await client.call(command, **params)
    except SteadyhandError as exc:
        return parsed, ToolResult(error_text(exc, boundary), True, exc.to_dict())
    return parsed, ToolResult(result_text(data, command, boundary), False, data)


def run(call: Any, client: Any) -> tuple[ToolCall, ToolResult]:
    """`arun` on a `steadyhand.SyncClient`."""
    parsed, boundary = UNREAD, None
    try:
        parsed = parse_call(call)
        command, params = to_command(parsed.name, parsed.arguments)
        boundary = boundary_of(client, params)
        data = client.call(command, **params)
    except SteadyhandError as exc:
        return parsed, ToolResult(error_text(exc, boundary), True, exc.to_dict())
    return parsed, ToolResult(result_text(data, command, boundary), False, data)


def boundary_of(client: Any, params: dict[str, Any]) -> str | None:
    """The content boundary of a tool result in the call's session (fronts/boundary.py),
    under the client's setting `content_boundaries` (on unless it says "off")."""
    mode = getattr(getattr(client, "settings", None), "content_boundaries", "agents")
    session = params.get("session") or getattr(client, "session", None) or "default"
    return for_agents(str(mode), str(session))


def result_message(call: ToolCall, result: ToolResult) -> dict[str, Any]:
    """The tool-result message the call's provider expects back."""
    if call.provider == "openai":
        return {"role": "tool", "tool_call_id": call.id, "content": result.text}
    if call.provider == "anthropic":
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": result.text,
            "is_error": result.is_error,
        }
    if call.provider == "gemini":
        key = "error" if result.is_error else "output"
        response: dict[str, Any] = {"name": call.name, "response": {key: result.text}}
        if call.id:
            response["id"] = call.id
        return {"functionResponse": response}
    return {"name": call.name, "content": result.text, "is_error": result.is_error}


_default: dict[str, Any] = {}
_default_lock = threading.Lock()


def _default_client() -> Any:
    """One SyncClient on the daemon for `dispatch` calls that bring none."""
    with _default_lock:
        if "client" not in _default:
            from steadyhand.client import SyncClient

            _default["client"] = SyncClient()
        return _default["client"]


def dispatch(call: Any, client: Any = None) -> dict[str, Any]:
    """Run a tool call (any provider's shape) and return the provider's tool-result message.

    `client` is a `steadyhand.SyncClient`; by default one on the daemon (started if needed).
    Errors are results too (`is_error`), never exceptions: the model reads and recovers.
    """
    parsed, result = run(call, client or _default_client())
    return result_message(parsed, result)


async def adispatch(call: Any, client: Any) -> dict[str, Any]:
    """`dispatch` for async agent loops, on a `steadyhand.Client`."""
    parsed, result = await arun(call, client)
    return result_message(parsed, result)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="steadyhand tools",
        description="Print tool schemas for LLM APIs, generated from the command table.",
    )
    parser.add_argument("--format", choices=FORMATS, default="openai")
    parser.add_argument(
        "--style",
        choices=STYLES,
        default="all",
        help="flat: one `browser` tool; granular: one tool per command; all: both",
    )
    parser.add_argument("--caps", metavar="GROUP,...", help=CAPS_HELP)
    args = parser.parse_args(argv)
    try:
        schemas = tool_schemas(args.format, args.style, args.caps)
    except SteadyhandError as exc:
        sys.stderr.write(error_text(exc) + "\n")
        return exit_code_for(exc.code)
    try:
        sys.stdout.write(json.dumps(schemas, indent=2) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has all it wanted
        sys.stdout = None  # no flush of a closed pipe at exit
    return 0
