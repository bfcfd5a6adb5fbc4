"""MCP tools from the table: hints name real commands, results and errors read as agents need."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

from mcp import types

from steadyhand.commands import COMMANDS
from steadyhand.commands.table import tool_name
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.mcp.tools import error_result, for_the_model, tool_result, tools

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def test_hints_come_from_the_table_and_do_not_overlap() -> None:
    READ_ONLY = {name for name, c in COMMANDS.items() if c.reads_only}
    DESTRUCTIVE = {name for name, c in COMMANDS.items() if c.destructive}
    assert {"snapshot", "daemon.status"} <= READ_ONLY and {"close", "evaluate"} <= DESTRUCTIVE
    assert not READ_ONLY & DESTRUCTIVE
    assert not any(COMMANDS[name].acts for name in READ_ONLY)
    by_name = {tool.name: tool.annotations for tool in tools()}
    for name, command in COMMANDS.items():
        if tool_name(name) not in by_name:
            continue  # not offered to agents
        hints = by_name[tool_name(name)] or types.ToolAnnotations()
        # A hint left out is the spec's default, as a client reads it.
        assert (hints.read_only_hint or False) is (name in READ_ONLY)
        if command.acts:
            assert hints.destructive_hint in (True, None), name
        if hints.destructive_hint is not None:
            assert hints.destructive_hint is False and not command.acts, name
        assert hints.open_world_hint in (False, None), name


def test_snapshot_result_is_its_text_under_a_header() -> None:
    data = {"tab": "t1", "title": "Form", "url": "http://x/", "snapshot": "- button [ref=e1]"}
    result = asyncio.run(tool_result(data | {"next_offset": None}, "snapshot"))
    assert not result.is_error and result.structured_content == data, "nulls left out"
    assert [block.type for block in result.content] == ["text"]
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    assert block.text == "# t1 · Form · http://x/\n- button [ref=e1]"


def test_a_result_naming_a_png_carries_the_image(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    (tmp_path / "fake.png").write_bytes(b"not a png")
    shot = asyncio.run(tool_result({"path": str(tmp_path / "shot.png"), "bytes": len(PNG)}))
    image = shot.content[1]
    assert isinstance(image, types.ImageContent) and base64.b64decode(image.data) == PNG
    for missing in ("fake.png", "gone.png"):
        result = asyncio.run(tool_result({"path": str(tmp_path / missing)}))
        assert [block.type for block in result.content] == ["text"]


def test_errors_are_tool_results_with_code_and_hint() -> None:
    error = SteadyhandError(ErrorCode.STALE_REF, "ref e3 is stale", "take a new snapshot")
    result = error_result(error)
    assert result.is_error
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    assert block.text == "error [stale_ref]: ref e3 is stale\nhint: take a new snapshot"
    assert result.structured_content == {"error": error.to_dict()}


def test_only_an_acts_own_timing_is_kept_from_the_model() -> None:
    act = {
        "action": "click",
        "ok": True,
        "timing": {"input": 20.0},
        "route": "cdp",
        "data": {"timing": 1},
    }
    assert for_the_model(act, "click") == {"action": "click", "ok": True, "data": {"timing": 1}}
    # What a page hands back is the page's: a key named `timing` in it stays.
    page_value = {"value": {"timing": "fast"}, "type": "object"}
    assert for_the_model(page_value, "evaluate") == page_value
    skipped = {"command": "snapshot", "ok": False, "skipped": True}
    batch: dict[str, Any] = {
        "steps": [
            {"command": "click", "ok": True, "result": {"action": "click", "timing": {"a": 1}}},
            {"command": "evaluate", "ok": True, "result": {"value": {"timing": 2}}},
            skipped,
        ],
        "ran": 2,
    }
    steps = for_the_model(batch, "batch")["steps"]
    assert steps[0]["result"] == {"action": "click"}
    assert steps[1]["result"] == {"value": {"timing": 2}}
    assert steps[2] == skipped
    assert for_the_model(act, None) == act  # no command named: nothing known to leave out
