"""LLM tool schemas: valid JSON Schema, no combinators, and calls that map back to commands."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from steadyhand.commands import COMMANDS
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.agent.text import error_text, result_text
from steadyhand.fronts.agent.tools import (
    FORMATS,
    flat_tool,
    parse_call,
    result_message,
    run,
    to_command,
    tool_schemas,
)
from steadyhand.fronts.schema import AGENT_HIDDEN, params_schema, walk_keys
from tests.bounded import inside

COMBINATORS = {"anyOf", "oneOf", "allOf", "$ref", "$defs"}


def _parameters(fmt: str, tool: dict[str, Any]) -> dict[str, Any]:
    key = {"openai": "parameters", "anthropic": "input_schema", "gemini": "parameters"}[fmt]
    schema: dict[str, Any] = (tool["function"] if fmt == "openai" else tool)[key]
    return schema


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_schema_is_valid_json_schema_without_combinators(fmt: str) -> None:
    tools = tool_schemas(fmt, "all", caps="all")
    names = [t["function"]["name"] if fmt == "openai" else t["name"] for t in tools]
    assert names[0] == "browser"
    assert len(names) == len(set(names)) == 1 + len(set(COMMANDS) - AGENT_HIDDEN)
    assert "daemon_stop" not in names, "agents are not handed the daemon's off switch"
    for tool in tools:
        parameters = _parameters(fmt, tool)
        jsonschema.Draft202012Validator.check_schema(parameters)
        used = set(walk_keys(parameters))
        assert not used & COMBINATORS, (tool, used & COMBINATORS)
        if fmt == "gemini":
            assert "additionalProperties" not in used


def test_granular_tools_match_the_command_table() -> None:
    by_name = {t["name"]: t for t in tool_schemas("anthropic", "granular", "all")}
    click = by_name["click"]
    assert click["description"] == COMMANDS["click"].doc
    assert click["input_schema"]["required"] == ["ref"]
    assert by_name["tab_new"]["input_schema"] == params_schema(COMMANDS["tab.new"])
    # An argument the command takes validates; one it does not is refused by the schema.
    validator = jsonschema.Draft202012Validator(click["input_schema"])
    assert validator.is_valid({"ref": "e3", "session": "a"})
    assert not validator.is_valid({"ref": "e3", "url": "http://x"})


def test_flat_tool_puts_acting_commands_under_act() -> None:
    spec = flat_tool("all")
    actions = spec.parameters["properties"]["action"]["enum"]
    kinds = spec.parameters["properties"]["request"]["properties"]["kind"]["enum"]
    acting = {n for n, c in COMMANDS.items() if c.acts}
    assert set(kinds) == acting
    assert set(actions) == (set(COMMANDS) - acting - AGENT_HIDDEN) | {"act"}
    validator = jsonschema.Draft202012Validator(spec.parameters)
    assert validator.is_valid({"action": "act", "request": {"kind": "click", "ref": "e1"}})
    assert validator.is_valid({"action": "snapshot", "interactive": True})
    assert not validator.is_valid({"action": "fly"})
    # `text` means different things to `find` and `wait`: the description says which, and
    # only the constraints both share are kept (wait's minLength is not find's).
    text = spec.parameters["properties"]["text"]
    assert "find: " in text["description"] and "wait: " in text["description"]
    assert "minLength" not in text


def test_flat_and_granular_calls_map_to_the_same_command() -> None:
    flat = to_command(
        "browser", {"action": "act", "request": {"kind": "click", "ref": "e3"}, "session": "s"}
    )
    granular = to_command("click", {"ref": "e3", "session": "s"})
    assert flat == granular == ("click", {"ref": "e3", "session": "s"})
    assert to_command("browser", {"action": "tab.new", "url": "http://a"}) == (
        "tab.new",
        {"url": "http://a"},
    )
    assert to_command("tab_new", {"url": "http://a"}) == ("tab.new", {"url": "http://a"})
    # Gemini sends maps as JSON strings.
    assert to_command("fill", {"fields": '{"e1": "a"}'}) == ("fill", {"fields": {"e1": "a"}})


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("browser", {"action": "act", "request": {"ref": "e1"}}, "needs request.kind"),
        ("browser", {"action": "act", "request": {"kind": "snapshot"}}, "not a kind"),
        ("browser", {"action": "click", "ref": "e1"}, "not an action"),
        ("browser", {"action": "snapshot", "request": {"kind": "click"}}, "only for action"),
        ("browser", {"action": "daemon.stop"}, "not an action"),
        ("daemon_stop", {}, "no tool named"),
        ("fill", {"fields": "{not json"}, "not a JSON object"),
    ],
)
def test_calls_that_cannot_be_mapped_say_why(
    name: str, arguments: dict[str, Any], says: str
) -> None:
    with pytest.raises(SteadyhandError) as caught:
        to_command(name, arguments)
    assert says in caught.value.message
    assert caught.value.hint


def test_each_providers_call_shape_is_read_and_answered_in_kind() -> None:
    openai = {"id": "c1", "type": "function", "function": {"name": "snapshot", "arguments": "{}"}}
    responses = {"type": "function_call", "call_id": "c2", "name": "snapshot", "arguments": ""}
    anthropic = {"type": "tool_use", "id": "t1", "name": "snapshot", "input": {"depth": 2}}
    gemini = {"functionCall": {"name": "snapshot", "args": {"depth": 2}}}
    parsed = [parse_call(c) for c in (openai, responses, anthropic, gemini)]
    assert [p.provider for p in parsed] == ["openai", "openai", "anthropic", "gemini"]
    assert [p.id for p in parsed] == ["c1", "c2", "t1", None]
    assert parsed[2].arguments == parsed[3].arguments == {"depth": 2}

    class Recorder:
        def __init__(self) -> None:
            self.calls: list[tuple[str, dict[str, Any]]] = []

        def call(self, command: str, **params: Any) -> Any:
            self.calls.append((command, params))
            if params.get("depth") == 2:
                raise SteadyhandError(ErrorCode.STALE_REF, "gone", "snapshot again")
            return {"tab": "t1", "title": "T", "url": "u", "snapshot": "- button [ref=e1]"}

    recorder = Recorder()
    ok = result_message(*run(openai, recorder))
    assert ok == {"role": "tool", "tool_call_id": "c1", "content": ok["content"]}
    assert inside(ok["content"]) == "# t1 · T · u\n- button [ref=e1]"  # the page's, bounded
    failed = result_message(*run(anthropic, recorder))
    assert failed["is_error"] is True and failed["tool_use_id"] == "t1"
    code, *said, hint = failed["content"].splitlines()
    assert (code, inside("\n".join(said)), hint) == (
        "error [stale_ref]",
        "gone",
        "hint: snapshot again",
    )
    gemini_reply = result_message(*run(gemini, recorder))
    assert gemini_reply["functionResponse"]["response"]["error"].startswith("error [stale_ref]")
    unreadable = result_message(*run({"nothing": 1}, recorder))
    assert unreadable["is_error"] is True
    # The unreadable call never reached the client.
    assert recorder.calls == [
        ("snapshot", {}),
        ("snapshot", {"depth": 2}),
        ("snapshot", {"depth": 2}),
    ]


def test_agent_text_keeps_the_snapshot_readable_and_the_rest_compact() -> None:
    page = {"tab": "t2", "title": None, "url": "u", "snapshot": "- a", "cut": 5}
    text = result_text(page, "snapshot")
    assert text.splitlines() == ["# t2 · - · u", "- a"]
    assert result_text({"ok": True, "none": None}) == "ok: true"
    error = SteadyhandError(ErrorCode.TIMEOUT, "slow", "", {"retries": 2})
    assert error_text(error) == 'error [timeout]: slow\ndata: {"retries":2}'
    assert json.loads(result_text([1, 2])) == [1, 2]
