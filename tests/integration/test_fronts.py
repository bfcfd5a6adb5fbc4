"""One scenario through every front: the same commands, the same results.

Open the form page, snapshot it, fill the name, click "Place order" and read the page: over
the CLI, JSON-RPC, the Python clients (async on the daemon, sync and `LocalClient` in-process),
the LLM tool dispatcher, HTTP and MCP. Every front is generated from the one command table,
so each must end on the same page text and report failures with the same codes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Generator
from pathlib import Path
from typing import Any

import pytest

import steadyhand
from steadyhand import tools
from steadyhand.errors import NotActionableError, NotFoundError, SteadyhandError
from steadyhand.snapshot.lookup import find_ref
from tests.bounded import inside
from tests.conftest import Daemon, make_settings
from tests.http_server import start_http
from tests.integration.test_mcp import stdio_mcp, text_of

pytestmark = pytest.mark.integration

Call = Callable[..., Any]  # (command, **params) -> the command's JSON result
Steps = Generator[tuple[str, dict[str, Any]], dict[str, Any], dict[str, Any]]


def scenario(site: str, who: str) -> Steps:
    """The steps every front runs, as (command, params) it yields and results it is sent;
    returns what it saw, for comparison across fronts."""
    opened = yield "open", {"url": f"{site}/form.html"}
    page = yield "snapshot", {}
    name_box = find_ref(page["snapshot"], "textbox", "Name")
    order = find_ref(page["snapshot"], "button", "Place order")
    filled = yield "fill", {"fields": {name_box: who}}
    clicked = yield "click", {"ref": order}
    read = yield "extract", {"kind": "text"}
    return {
        "opened": (opened["title"], opened["url"].rsplit("/", 1)[-1]),
        "refs": (name_box, order),
        "filled": filled["changes"] is not None,
        "clicked_changes": clicked["changes"],
        "text": read["text"],
    }


def drive(call: Call, site: str, who: str) -> dict[str, Any]:
    steps = scenario(site, who)
    command, params = next(steps)
    try:
        while True:
            command, params = steps.send(call(command, **params))
    except StopIteration as done:
        seen: dict[str, Any] = done.value
        return seen


async def adrive(call: Callable[..., Awaitable[Any]], site: str, who: str) -> dict[str, Any]:
    steps = scenario(site, who)
    command, params = next(steps)
    try:
        while True:
            command, params = steps.send(await call(command, **params))
    except StopIteration as done:
        seen: dict[str, Any] = done.value
        return seen


def expected_text(who: str) -> str:
    return f"ordered s for {who} with none gift=false news=true pwlen=0"


def check(seen: dict[str, Any], who: str) -> None:
    assert seen["opened"] == ("Form fixture", "form.html")
    assert expected_text(who) in seen["text"]
    assert expected_text(who) in seen["clicked_changes"], "the click reports what it changed"


def test_cli_and_json_rpc_see_the_same_page(daemon: Daemon, site: str) -> None:
    def over_rpc(command: str, **params: Any) -> Any:
        return daemon.call(command, session="front-rpc", **params)

    def over_cli(command: str, **params: Any) -> Any:
        argv = [command.replace(".", " "), "--session", "front-cli", "--json"]
        for key, value in params.items():
            if key in ("url", "ref", "kind"):
                argv.append(value)
            elif key == "fields":
                argv += [f"{ref}={text}" for ref, text in value.items()]
        run = daemon.cli(*argv)
        assert run.rc == 0, run.err
        return run.json["result"]

    rpc = drive(over_rpc, site, "rpc")
    cli = drive(over_cli, site, "cli")
    check(rpc, "rpc")
    check(cli, "cli")
    assert rpc["refs"] == cli["refs"], "refs are handed out the same way for every front"


def test_python_clients_on_the_daemon_and_in_process(
    daemon: Daemon, site: str, tmp_path: Path
) -> None:
    async def on_daemon() -> dict[str, Any]:
        async with steadyhand.Client(settings=daemon.settings, session="front-async") as client:

            async def call(command: str, **params: Any) -> Any:
                return (await client.run(command, **params)).model_dump(mode="json")

            seen = await adrive(call, site, "async")
            with pytest.raises(NotFoundError) as caught:
                await client.click(ref="e999")
            assert caught.value.hint
            return seen

    check(asyncio.run(on_daemon()), "async")

    local = make_settings(tmp_path / "local-state")
    with steadyhand.SyncClient(settings=local, local=True, session="front-sync") as client:

        def call_sync(command: str, **params: Any) -> Any:
            return client.run(command, **params).model_dump(mode="json")

        check(drive(call_sync, site, "sync"), "sync")
        with pytest.raises(SteadyhandError) as refused:
            client.call("daemon.stop")
        assert "no daemon" in refused.value.message
        assert client.call("snapshot")["tab"] == "t1", "the session lives on after bad input"
    assert (tmp_path / "local-state" / "steadyhand.sqlite").stat().st_mode & 0o777 == 0o600

    async def in_process() -> str:
        async with steadyhand.LocalClient(make_settings(tmp_path / "engine-state")) as engine:
            await engine.open(url=f"{site}/form.html")
            found = await engine.call("find", role="button", name="Place order")
            text: str = found["text"]
            return text

    assert 'button "Place order" [ref=' in asyncio.run(in_process())


def test_in_process_and_daemon_clients_raise_the_same_classes(
    daemon: Daemon, site: str, tmp_path: Path
) -> None:
    """A failure the act loop retried (a covered target) reaches an in-process caller as the
    code's own class, as it reaches a daemon client: not as the loop's internal signal.
    (The deadline leaves the tries room on a loaded machine: at 2 s a busy CI worker ran
    the command out of time before the loop could say why, a timeout, not this class.)"""
    checkout = 'role=button[name="Checkout"]'

    async def both() -> list[SteadyhandError]:
        caught: list[SteadyhandError] = []
        async with steadyhand.Client(settings=daemon.settings, session="same-classes") as remote:
            await remote.open(url=f"{site}/consent.html")
            await remote.wait(text="We use cookies", timeout="10s")
            with pytest.raises(NotActionableError) as over_daemon:
                await remote.click(ref=checkout, watchdog=False, timeout="5s")
            caught.append(over_daemon.value)
            await remote.close()
        async with steadyhand.LocalClient(make_settings(tmp_path / "same-state")) as engine:
            await engine.open(url=f"{site}/consent.html")
            await engine.wait(text="We use cookies", timeout="10s")
            with pytest.raises(NotActionableError) as in_process:
                await engine.click(ref=checkout, watchdog=False, timeout="5s")
            caught.append(in_process.value)
        return caught

    over_daemon, in_process = asyncio.run(both())
    assert type(over_daemon) is type(in_process) is NotActionableError
    assert over_daemon.code == in_process.code == "not_actionable"
    assert "covered by" in over_daemon.message and "covered by" in in_process.message


def test_the_tool_dispatcher_drives_the_flat_and_granular_tools(daemon: Daemon, site: str) -> None:
    client = steadyhand.SyncClient(settings=daemon.settings, session="front-tools")
    try:
        opened = tools.dispatch(
            {
                "type": "tool_use",
                "id": "t1",
                "name": "browser",
                "input": {"action": "open", "url": f"{site}/form.html"},
            },
            client,
        )
        assert opened["tool_use_id"] == "t1" and opened["is_error"] is False
        snap = tools.dispatch(
            {"id": "c1", "function": {"name": "snapshot", "arguments": "{}"}}, client
        )
        page = inside(snap["content"])
        assert page.startswith("# t1 · Form fixture · ")
        name_box = find_ref(page, "textbox", "Name")
        order = find_ref(page, "button", "Place order")
        fill = {
            "functionCall": {"name": "fill", "args": {"fields": json.dumps({name_box: "tool"})}}
        }
        assert "error" not in tools.dispatch(fill, client)["functionResponse"]["response"]
        click = {
            "type": "tool_use",
            "id": "t2",
            "name": "browser",
            "input": {"action": "act", "request": {"kind": "click", "ref": order}},
        }
        clicked = tools.dispatch(click, client)
        assert expected_text("tool") in clicked["content"]
        stale = tools.dispatch(
            {"type": "tool_use", "id": "t3", "name": "click", "input": {"ref": "e999"}}, client
        )
        assert stale["is_error"] is True
        assert stale["content"].startswith("error [not_found]\n⟦page ")
    finally:
        client.close()


def test_http_and_mcp_see_the_same_page(daemon: Daemon, site: str) -> None:
    """Driven by httpx and by the official MCP client over stdio; the MCP session is the
    connection's own (no `session` given), the HTTP one named."""
    server = start_http(daemon.env)
    try:
        with server.client() as http:

            def over_http(command: str, **params: Any) -> Any:
                answer = http.post(f"/v1/{command}", json={"session": "front-http", **params})
                assert answer.status_code == 200, answer.text
                body = answer.json()
                assert body["ok"] is True
                return body["result"]

            seen_http = drive(over_http, site, "http")
            stale = http.post("/v1/click", json={"session": "front-http", "ref": "e999"})
            assert stale.status_code == 404 and stale.json()["error"]["code"] == "not_found"
    finally:
        server.stop()
    check(seen_http, "http")

    async def over_mcp() -> tuple[dict[str, Any], str]:
        async with stdio_mcp(daemon.env) as client:

            async def call(command: str, **params: Any) -> Any:
                result = await client.call_tool(command.replace(".", "_"), params)
                assert not result.is_error, text_of(result)
                return result.structured_content

            seen = await adrive(call, site, "mcp")
            stale = await client.call_tool("click", {"ref": "e999"})
            assert stale.is_error and text_of(stale).startswith("error [not_found]\n⟦page ")
            return seen, text_of(await client.call_tool("snapshot", {}))

    seen_mcp, page = asyncio.run(over_mcp())
    check(seen_mcp, "mcp")
    assert seen_mcp["refs"] == seen_http["refs"]
    assert inside(page).startswith("# t1 · Form fixture · "), "the model reads the snapshot as text"


def test_a_client_outlives_its_daemon(fresh_daemon: Daemon) -> None:
    """A pooled connection to a daemon that stopped is dropped; the call starts a new one."""

    async def twice() -> tuple[int, int]:
        async with steadyhand.Client(settings=fresh_daemon.settings) as client:
            first = (await client.call("daemon.status"))["pid"]
            assert fresh_daemon.cli("daemon", "stop").rc == 0
            second = (await client.call("daemon.status"))["pid"]
            return first, second

    first, second = asyncio.run(twice())
    assert first != second
    assert fresh_daemon.pid() == second
