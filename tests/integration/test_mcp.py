"""The MCP front, driven by the official MCP client: over stdio (the server as its own
process, as MCP clients launch it) and over streamable HTTP with a bearer token."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.client import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS

from steadyhand.caps import select_caps
from steadyhand.commands.table import tool_name
from steadyhand.fronts.agent.tools import agent_commands
from steadyhand.fronts.schema import COMBINATORS, walk_keys
from steadyhand.snapshot.lookup import find_ref
from tests.bounded import inside
from tests.conftest import Daemon, wait_until

pytestmark = pytest.mark.integration

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@contextlib.asynccontextmanager
async def stdio_mcp(env: dict[str, str], *flags: str) -> AsyncIterator[ClientSession]:
    """`steadyhand mcp` as a subprocess, connected through the SDK's stdio client."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "steadyhand", "mcp", *flags], env=env
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def call(client: ClientSession, tool: str, /, **arguments: Any) -> types.CallToolResult:
    """A tool call that must succeed."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    return result


def test_tools_come_from_the_table(daemon: Daemon) -> None:
    async def scenario() -> tuple[types.ListToolsResult, types.ListToolsResult]:
        async with stdio_mcp(daemon.env) as session:
            default = await session.list_tools()
        async with stdio_mcp(daemon.env, "--caps", "all", "--output-schemas") as session:
            return default, await session.list_tools()

    default, every = asyncio.run(scenario())
    assert {t.name for t in default.tools} == {tool_name(c.name) for c in agent_commands("core")}
    assert all(t.output_schema is None for t in default.tools)
    tools = {t.name: t for t in every.tools}
    assert set(tools) == {tool_name(c.name) for c in agent_commands(select_caps("all"))}
    assert "daemon_stop" not in tools and "tab_new" in tools and "snapshot" in tools
    for tool in every.tools:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert tool.input_schema["type"] == "object", tool.name
        assert not set(walk_keys(tool.input_schema)) & {*COMBINATORS, "$ref"}, tool.name
        assert tool.input_schema["properties"]["session"] == {"type": "string"}
    assert "ref" in (tools["snapshot"].description or "")
    snapshot, click, close = (tools[n].annotations for n in ("snapshot", "click", "close"))
    assert snapshot is not None and snapshot.read_only_hint is True
    # Left out: the spec's defaults (not read-only, destructive, open world).
    assert click is None and close is None
    opens = tools["open"].annotations
    assert opens is not None and opens.destructive_hint is False and opens.open_world_hint is None


def test_caps_choose_the_tools_and_a_call_outside_them_is_refused(daemon: Daemon) -> None:
    without_display = {k: v for k, v in daemon.env.items() if k != "DISPLAY"}

    async def listed(env: dict[str, str], *flags: str) -> set[str]:
        async with stdio_mcp(env, *flags) as session:
            return {t.name for t in (await session.list_tools()).tools}

    async def scenario() -> tuple[set[str], set[str], set[str], list[types.CallToolResult]]:
        default = await listed(without_display)
        on_a_desktop = await listed(dict(without_display, DISPLAY=":99"), "--caps", "all")
        async with stdio_mcp(daemon.env, "--caps", "core,tabs") as session:
            chosen = {t.name for t in (await session.list_tools()).tools}
            calls = [
                await session.call_tool("desktop_apps", {}),
                await session.call_tool("browser", {"action": "cookies.get"}),
                await session.call_tool("tab_new", {}),
            ]
        return default, on_a_desktop, chosen, calls

    default, on_a_desktop, chosen, (desktop, flat, tab) = asyncio.run(scenario())
    every = {tool_name(c.name) for c in agent_commands()}
    desktop_tools = {name for name in every if name.startswith("desktop_")}
    assert len(desktop_tools) == 22
    assert default == {tool_name(c.name) for c in agent_commands("core")}
    assert on_a_desktop == every
    assert chosen == {tool_name(c.name) for c in agent_commands("core,tabs")}
    assert "tab_new" in chosen and "cookies_get" not in chosen and "upload" not in chosen
    assert desktop.is_error and text_of(desktop).startswith(
        "error [unknown_command]: 'desktop_apps' is not offered here: its capability group "
        "'desktop' is off (on: core,tabs)\nhint: "
    )
    assert flat.is_error and "'cookies.get' (browser tool) is not offered here" in text_of(flat)
    assert not tab.is_error, text_of(tab)


def test_an_unknown_capability_group_stops_the_server(daemon: Daemon) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "steadyhand", "mcp", "--caps", "core,vision"],
        capture_output=True,
        text=True,
        env=daemon.env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "error [bad_request]: unknown capability group 'vision'\n"
        "hint: groups: core, tabs, files, observe, storage, network, sessions, approvals, flows, "
        "desktop (or all); core is always on\n"
    )


def test_form_round_trip(daemon: Daemon, site: str) -> None:
    async def scenario() -> tuple[str, str, Any, Any]:
        async with stdio_mcp(daemon.env) as session:
            await call(session, "open", url=f"{site}/form.html")
            snap = await call(session, "snapshot")
            page = text_of(snap)
            name = find_ref(page, "textbox", "Name")
            await call(session, "type", ref=name, text="Ann")
            clicked = await call(session, "click", ref=find_ref(page, "button", "Place order"))
            out = await call(session, "extract", kind="text", selector="#out")
            return inside(page), text_of(out), snap.structured_content, clicked.structured_content

    page, out, structured, clicked = asyncio.run(scenario())
    # The act's stage timings are for people measuring (--json), not for the model.
    assert isinstance(clicked, dict) and clicked["action"] == "click" and "timing" not in clicked
    assert page.startswith(f"# t1 · Form fixture · {site}/form.html\n- ")
    assert "[ref=e" in page
    assert isinstance(structured, dict) and structured["refs"] > 5
    assert structured["snapshot"] in page
    assert "ordered s for Ann with none" in out


def test_page_loads_come_with_their_page_unless_told_not_to(daemon: Daemon, site: str) -> None:
    """open/navigate/reload hand an agent the loaded page's interactive view: one round trip."""

    async def scenario() -> list[types.CallToolResult]:
        async with stdio_mcp(daemon.env) as session:
            return [
                await call(session, "open", url=f"{site}/form.html"),
                await call(session, "navigate", url=f"{site}/nav-a.html", snapshot=False),
                await call(session, "back"),
                await call(session, "reload"),
            ]

    opened, bare, back, reloaded = asyncio.run(scenario())
    page = inside(text_of(opened))
    assert page.startswith(f"# t1 · Form fixture · {site}/form.html\n")
    assert find_ref(page, "button", "Place order")
    assert isinstance(opened.structured_content, dict)
    assert opened.structured_content["snapshot"] in page and "Gift wrap" in page
    assert "[ref=" not in text_of(bare) and "snapshot" not in (bare.structured_content or {})
    assert inside(text_of(back)).startswith(f"# t1 · Form fixture · {site}/form.html\n")
    assert find_ref(text_of(back), "button", "Place order")
    assert "Place order" in text_of(reloaded)


def test_cli_page_loads_take_snapshot(daemon: Daemon, site: str) -> None:
    plain = daemon.call("open", session="cli-loads", url=f"{site}/form.html")
    assert "snapshot" not in plain or plain["snapshot"] is None  # off outside MCP/LLM tools
    done = subprocess.run(
        [sys.executable, "-m", "steadyhand", "reload", "--snapshot", "--session", "cli-loads"],
        capture_output=True,
        text=True,
        env=daemon.env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"# t1 · Form fixture · {site}/form.html\n")
    assert 'button "Place order" [ref=e' in done.stdout
    daemon.call("close", session="cli-loads")


def test_screenshot_returns_the_png(daemon: Daemon, site: str) -> None:
    """Also the stateless protocol on stdio: the SDK's high-level client picks 2026-07-28."""

    async def scenario() -> types.CallToolResult:
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "steadyhand", "mcp"], env=daemon.env
        )
        async with Client(server) as client:
            assert client.session.protocol_version == "2026-07-28"
            opened = await client.call_tool("open", {"url": f"{site}/form.html"})
            assert not opened.is_error, text_of(opened)
            return await client.call_tool("screenshot", {})

    result = asyncio.run(scenario())
    assert not result.is_error, text_of(result)
    image = result.content[-1]
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    png = base64.b64decode(image.data)
    assert png.startswith(PNG_MAGIC)
    assert isinstance(result.structured_content, dict)
    assert png == Path(result.structured_content["path"]).read_bytes()


def test_errors_are_results_the_session_goes_on(daemon: Daemon, site: str) -> None:
    async def scenario() -> list[types.CallToolResult]:
        async with stdio_mcp(daemon.env) as session:
            await call(session, "open", url=f"{site}/rerender.html")
            page = text_of(await call(session, "snapshot"))
            alpha = find_ref(page, "button", "Alpha")
            await call(session, "click", ref=find_ref(page, "button", "Double Alpha"))
            stale = await session.call_tool("click", {"ref": alpha})
            missing = await session.call_tool("click", {})
            unknown = await session.call_tool("clack", {"ref": alpha})
            again = await call(session, "snapshot")
            return [stale, missing, unknown, again]

    stale, missing, unknown, again = asyncio.run(scenario())
    assert stale.is_error and text_of(stale).startswith("error [stale_ref]\n")
    assert "\nhint: take a new snapshot" in text_of(stale)
    assert isinstance(stale.structured_content, dict)
    assert stale.structured_content["error"]["code"] == "stale_ref"
    assert missing.is_error and text_of(missing).startswith("error [bad_request]: ")
    assert unknown.is_error and text_of(unknown).startswith("error [unknown_command]: ")
    assert "Double Alpha" in text_of(again)


def test_each_client_gets_its_own_session(daemon: Daemon, site: str) -> None:
    """Two agents at once, neither naming a session: each sees its own tab only; their
    sessions are closed when they leave, a session one of them named is kept."""
    before = set(daemon.statuses())
    both_open = asyncio.Barrier(2)

    async def agent(page: str, keep: str | None = None) -> Any:
        async with stdio_mcp(daemon.env, "--caps", "tabs") as session:
            await call(session, "open", url=f"{site}/{page}")
            if keep:
                await call(session, "open", url=f"{site}/{page}", session=keep)
            await both_open.wait()
            return (await call(session, "tabs")).structured_content

    async def both() -> list[Any]:
        return list(await asyncio.gather(agent("form.html", keep="kept-mcp"), agent("nav-a.html")))

    tabs_a, tabs_b = asyncio.run(both())
    assert [t["url"] for t in tabs_a["tabs"]] == [f"{site}/form.html"]
    assert [t["url"] for t in tabs_b["tabs"]] == [f"{site}/nav-a.html"]
    owned = {name for name in daemon.statuses() if name.startswith("mcp-")} - before
    assert len(owned) == 2, owned
    assert wait_until(lambda: all(daemon.statuses()[name] == "closed" for name in owned))
    assert daemon.statuses()["kept-mcp"] == "active"


def test_local_engine_without_daemon(fresh_daemon: Daemon, site: str) -> None:
    async def scenario() -> str:
        async with stdio_mcp(fresh_daemon.env, "--local") as session:
            await call(session, "open", url=f"{site}/nav-a.html")
            return text_of(await call(session, "snapshot"))

    assert "Page A" in asyncio.run(scenario())
    assert fresh_daemon.pid() is None, "--local must not start a daemon"


def test_stdout_is_protocol_only_and_a_signal_closes_the_session(daemon: Daemon, site: str) -> None:
    """Verbose logs go to stderr; SIGTERM (stdin still open) closes the connection's session."""
    process = subprocess.Popen(
        [sys.executable, "-m", "steadyhand", "mcp", "--verbose", "--caps", "sessions"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=daemon.env,
    )
    assert process.stdin is not None and process.stdout is not None
    messages = [
        {
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {
            "method": "tools/call",
            "params": {"name": "open", "arguments": {"url": f"{site}/form.html"}},
        },
        {"method": "tools/call", "params": {"name": "sessions", "arguments": {}}},
    ]
    replies = []
    try:
        for number, message in enumerate(messages, 1):
            process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, **message}) + "\n")
            process.stdin.flush()
            replies.append(json.loads(process.stdout.readline()))
            if number == 1:
                process.stdin.write('{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 128 + signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.stdout.read() == "", "nothing but replies on stdout"
    assert not any("error" in reply or reply["result"].get("isError") for reply in replies)
    stderr = process.stderr.read() if process.stderr else ""
    closed = re.search(r"closed session (mcp-[0-9a-f]{8}): its MCP connection ended", stderr)
    assert closed is not None, stderr
    listed = replies[2]["result"]["structuredContent"]["sessions"]
    mine = next(s for s in listed if s["name"] == closed[1])
    assert mine["status"] == "active" and mine["tabs"][0]["url"] == f"{site}/form.html"
    assert daemon.statuses()[closed[1]] == "closed"


@contextlib.contextmanager
def http_mcp(env: dict[str, str], *flags: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`steadyhand mcp --http` on a free port: the process and the URL it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "steadyhand", "mcp", "--http", "--port", "0", *flags],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert " on http://127.0.0.1:" in line, line
        yield process, line
    finally:
        process.terminate()
        process.wait(30)


@contextlib.asynccontextmanager
async def http_session(url: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    """The SDK's streamable HTTP client with the initialize handshake (an MCP session id)."""
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def test_streamable_http_needs_the_token(daemon: Daemon, site: str) -> None:
    """401 without the token; with it, clients each get a session of their own (closed when
    they leave), two at once or in the SDK's default mode; a stateless call names its own."""
    before = set(daemon.statuses())
    with http_mcp(daemon.env, "--caps", "tabs") as (_, line):
        url = line.split(" on ")[1].split()[0]
        token = daemon.settings.http_token_path.read_text().strip()
        assert token not in line and str(daemon.settings.http_token_path) in line
        hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert httpx.post(url, json=hello).status_code == 401
        wrong = {"Authorization": "Bearer " + "x" * 43}
        assert httpx.post(url, json=hello, headers=wrong).status_code == 401
        auth = {"Authorization": f"Bearer {token}"}
        both_open = asyncio.Barrier(2)

        async def agent(page: str) -> tuple[str, Any]:
            async with http_session(url, auth) as session:
                await call(session, "open", url=f"{site}/{page}")
                await both_open.wait()
                tabs = (await call(session, "tabs")).structured_content
                return text_of(await call(session, "snapshot")), tabs

        async def by_default(mode: str) -> tuple[str | None, types.CallToolResult]:
            """The SDK's high-level client, in its default `auto` mode or pinned."""
            async with (
                create_mcp_http_client(headers=auth) as http,
                Client(streamable_http_client(url, http_client=http), mode=mode) as client,
            ):
                opened = await client.call_tool("open", {"url": f"{site}/nav-b.html"})
                return client.session.protocol_version, opened

        async def scenario() -> tuple[list[tuple[str, Any]], list[Any]]:
            agents = await asyncio.gather(agent("form.html"), agent("nav-a.html"))
            # Protocol 2026-07-28 over HTTP is stateless: nothing tells clients apart, so the
            # server advertises the handshake, which `auto` takes; a pinned client must name
            # its session.
            return list(agents), [await by_default("auto"), await by_default("2026-07-28")]

        [(page, tabs_a), (_, tabs_b)], [auto, pinned] = asyncio.run(scenario())
        assert inside(page).startswith(f"# t1 · Form fixture · {site}/form.html\n")
        assert "[ref=e" in page
        assert [t["url"] for t in tabs_a["tabs"]] == [f"{site}/form.html"]
        assert [t["url"] for t in tabs_b["tabs"]] == [f"{site}/nav-a.html"]
        assert auto[0] in HANDSHAKE_PROTOCOL_VERSIONS and not auto[1].is_error, text_of(auto[1])
        owned = {name for name in daemon.statuses() if name.startswith("mcp-")} - before
        assert len(owned) == 3, owned
        assert wait_until(lambda: all(daemon.statuses()[name] == "closed" for name in owned))
        assert pinned[0] == "2026-07-28" and pinned[1].is_error
        assert text_of(pinned[1]).startswith("error [bad_request]: ")
        assert "pass `session`" in text_of(pinned[1])


def test_http_refuses_a_remote_bind(daemon: Daemon) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "steadyhand", "mcp", "--http", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        env=daemon.env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 7 and done.stderr.startswith("error [policy_denied]: ")
    assert done.stdout == ""
