"""Capability groups: what `mcp --caps` and `tools --caps` offer, and what they refuse."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from steadyhand.caps import CAPS, default_caps, select_caps
from steadyhand.commands import COMMANDS
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.agent import tools as tools_front
from steadyhand.fronts.agent.tools import agent_commands, flat_tool, granular_tools, to_command
from steadyhand.fronts.mcp.stdio import request_key
from steadyhand.fronts.mcp.tools import tools as mcp_tools

# The tools each group adds (agents' commands only: approve, deny, daemon.stop and
# extension.pair are never offered).
SIZES = {
    "core": 27,
    "tabs": 4,
    "files": 3,
    "observe": 11,
    "storage": 11,
    "network": 4,
    "sessions": 7,
    "approvals": 4,
    "flows": 5,
    "desktop": 22,
}


def test_each_group_offers_its_commands() -> None:
    assert Counter(c.caps for c in agent_commands()) == SIZES
    assert len(agent_commands()) == sum(SIZES.values()) == 98
    assert len(granular_tools("core")) == SIZES["core"]
    for group, size in SIZES.items():
        if group != "core":
            assert len(granular_tools(group)) == SIZES["core"] + size, group
            assert len(mcp_tools(select_caps(group))) == SIZES["core"] + size, group


def test_core_is_always_on_and_all_names_every_group() -> None:
    assert select_caps("core") == {"core"}
    assert select_caps("tabs") == {"core", "tabs"}
    assert select_caps(" Tabs , files,") == {"core", "tabs", "files"}
    assert select_caps(["observe"]) == {"core", "observe"}
    assert select_caps("all") == select_caps("core,all") == set(CAPS)
    assert select_caps("") == {"core"}


def test_an_unknown_group_is_refused_with_the_groups_named() -> None:
    with pytest.raises(SteadyhandError) as caught:
        select_caps("core,tab")
    error = caught.value
    assert error.code == ErrorCode.BAD_REQUEST
    assert error.message == "unknown capability group 'tab'"
    assert all(group in error.hint for group in CAPS) and "all" in error.hint


def test_the_default_is_core_alone_whatever_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_caps() == select_caps(None) == {"core"}
    for display in (None, ":5"):
        if display is None:
            monkeypatch.delenv("DISPLAY", raising=False)
        else:
            monkeypatch.setenv("DISPLAY", display)
        assert len(granular_tools()) == len(mcp_tools(select_caps(None))) == SIZES["core"]
    assert "desktop_click" in {t.name for t in granular_tools("desktop")}


def test_the_flat_tools_enums_list_only_the_groups_offered() -> None:
    def enums(caps: str) -> tuple[set[str], set[str]]:
        properties = flat_tool(caps).parameters["properties"]
        return set(properties["action"]["enum"]), set(
            properties["request"]["properties"]["kind"]["enum"]
        )

    actions, kinds = enums("core")
    core = {c.name for c in agent_commands("core")}
    assert actions == {n for n in core if not COMMANDS[n].acts} | {"act"}
    assert kinds == {n for n in core if COMMANDS[n].acts}
    assert "tab.new" not in actions and "desktop.click" not in kinds and "upload" not in kinds
    actions, kinds = enums("tabs,files,desktop")
    assert {"tab.new", "desktop.snapshot"} <= actions and {"upload", "desktop.click"} <= kinds
    # Params only other groups take are not in the flat schema either.
    assert "annotate" not in flat_tool("core").parameters["properties"]


def test_a_call_outside_the_groups_is_refused() -> None:
    offered = select_caps("core,tabs")
    assert to_command("tab_new", {}, offered) == ("tab.new", {})
    steps = {"steps": [{"command": "tab_new"}, {"command": "no-such"}]}  # batch refuses those
    assert to_command("batch", steps, offered) == ("batch", steps)
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("desktop_click", {"ref": "d1"}, "'desktop_click'"),
        ("browser", {"action": "pdf"}, "'pdf' (browser tool)"),
        ("browser", {"action": "act", "request": {"kind": "upload"}}, "'upload' (browser tool)"),
        # A batch runs only what is offered: its steps are held to the same groups.
        ("batch", {"steps": [{"command": "tab.new"}, {"command": "pdf"}]}, "'batch step pdf'"),
    ]
    for name, arguments, what in calls:
        with pytest.raises(SteadyhandError) as caught:
            to_command(name, arguments, offered)
        error = caught.value
        assert error.code == ErrorCode.UNKNOWN_COMMAND
        assert error.message.startswith(f"{what} is not offered here: its capability group")
        assert "(on: core,tabs)" in error.message and "--caps core,tabs," in error.hint
    # Without groups given (the Python dispatcher), nothing the table offers agents is refused.
    assert to_command("desktop_click", {"ref": "d1"}) == ("desktop.click", {"ref": "d1"})
    with pytest.raises(SteadyhandError) as caught:
        to_command("approve", {}, offered)
    assert "no tool named" in caught.value.message and "tab_new" in caught.value.hint
    assert "cookies_get" not in caught.value.hint


def test_the_tools_command_takes_caps(capsys: pytest.CaptureFixture[str]) -> None:
    assert tools_front.main(["--style", "granular", "--caps", "core,storage"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == SIZES["core"] + SIZES["storage"]
    assert tools_front.main(["--style", "flat", "--caps", "core", "--format", "anthropic"]) == 0
    (flat,) = json.loads(capsys.readouterr().out)
    assert "tabs" not in flat["input_schema"]["properties"]["action"]["enum"]
    assert tools_front.main(["--caps", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error [bad_request]: unknown capability group 'nope'\nhint: groups: ")


def test_the_stdio_cache_keeps_a_tool_list_per_selection() -> None:
    assert request_key("tools/list", None) != request_key("tools/list", None, "core")
    assert request_key("tools/list", None, "core") != request_key("tools/list", None, "core,tabs")


def test_the_mcp_page_lists_each_groups_tools() -> None:
    page = (Path(__file__).parents[2] / "docs" / "fronts" / "mcp.md").read_text()
    page = page.split("## Capability groups", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.+) \| (\d+) \| .+ \|$", page, re.M)
    listed = {group: int(n) for group, _, n in rows}
    assert listed.pop("all") == sum(SIZES.values())
    assert listed == SIZES
