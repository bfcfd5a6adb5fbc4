"""Flows end to end: an agent's task on a multi-page shop (sign in, search, filter the table,
add to the cart, check out) recorded through the CLI, saved as a flow, and replayed on the
shop as it was, restyled, under a cookie banner, with other parameters, and without the
button the last step clicked; then updated from where it stopped, and exported as scripts
that run on their own."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import CliRun, Daemon, make_settings, running_daemon
from tests.integration.test_mcp import stdio_mcp, text_of
from tests.shop_site import PASSWORD, ShopSite

pytestmark = pytest.mark.integration

FLOW = "shop"
RECORDED = {"name": "Ada Lovelace", "address": "12 Analytical Way", "delivery": "Express"}


@pytest.fixture(scope="module")
def shop() -> Iterator[ShopSite]:
    with ShopSite().start() as site:
        yield site


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon of its own: the shop's password is a secret in its environment."""
    state = tmp_path_factory.mktemp("flows-state")
    environ = dict(os.environ, STEADYHAND_SECRET_SHOP_PW=PASSWORD)
    with running_daemon(make_settings(state), environ) as handle:
        yield handle


def cli(d: Daemon, session: str, *args: str) -> CliRun:
    done = d.cli("--session", session, *args)
    assert done.rc == 0, f"{args}: {done.err}"
    return done


def page_refs(d: Daemon, session: str) -> str:
    return cli(d, session, "snapshot", "-i").out


@pytest.fixture(scope="module")
def recorded(daemon: Daemon, shop: ShopSite) -> dict[str, Any]:
    """The task done once, as an agent does it over the CLI, then saved as flow `shop`."""
    s = "flow-record"
    shop.variant = "plain"
    cli(daemon, s, "open", f"{shop.url}/login")
    seen = page_refs(daemon, s)
    cli(daemon, s, "type", find_ref(seen, "textbox", "Username"), "ada")
    cli(daemon, s, "type", find_ref(seen, "textbox", "Password"), "{{secret:SHOP_PW}}")
    cli(daemon, s, "click", find_ref(seen, "button", "Sign in"))
    seen = page_refs(daemon, s)
    cli(daemon, s, "type", find_ref(seen, "searchbox", "Search products"), "lamp")
    cli(daemon, s, "click", find_ref(seen, "button", "Search"))
    seen = page_refs(daemon, s)
    cli(daemon, s, "select", find_ref(seen, "combobox", "Category"), "Lighting")
    seen = page_refs(daemon, s)
    cli(daemon, s, "click", find_ref(seen, "button", "Add to cart", 0))  # the Desk lamp's row
    seen = page_refs(daemon, s)
    cli(daemon, s, "click", find_ref(seen, "link", "Cart (1)"))
    seen = page_refs(daemon, s)
    cli(daemon, s, "click", find_ref(seen, "button", "Check out"))
    seen = page_refs(daemon, s)
    name, address = find_ref(seen, "textbox", "Full name"), find_ref(seen, "textbox", "Address")
    cli(daemon, s, "fill", f"{name}={RECORDED['name']}", f"{address}={RECORDED['address']}")
    cli(daemon, s, "select", find_ref(seen, "combobox", "Delivery"), "Express")
    cli(daemon, s, "check", find_ref(seen, "checkbox", "Gift wrap"))
    cli(daemon, s, "click", find_ref(seen, "button", "Place order"))
    assert shop.orders()[-1]["items"] == "Desk lamp"
    saved = cli(daemon, s, "--json", "flow", "save", FLOW, "--param", "query=lamp").json["result"]
    cli(daemon, s, "close")
    assert isinstance(saved, dict)
    return saved


def run_flow(d: Daemon, session: str, *args: str) -> CliRun:
    """`flow run shop ARGS` in a new session, closed afterwards."""
    try:
        return d.cli("--session", session, "--json", "flow", "run", FLOW, *args)
    finally:
        d.cli("--session", session, "close")


def events_since(shop: ShopSite, mark: int) -> list[dict[str, str]]:
    return shop.events[mark:]


def test_the_task_is_saved_as_a_flow_of_named_elements(
    daemon: Daemon, recorded: dict[str, Any]
) -> None:
    assert recorded["flow"] == FLOW and recorded["version"] == 1
    assert recorded["steps"] == 14 and recorded["left_out"] == {"snapshot": 7}
    assert recorded["params"] == {
        "username": "ada",
        "query": "lamp",
        "full_name": RECORDED["name"],
        "address": RECORDED["address"],
    }
    assert recorded["needs"] == []
    shown = json.loads(daemon.cli("flow", "show", FLOW).out)
    steps = shown["steps"]
    assert steps[2]["params"]["text"] == "{{secret:SHOP_PW}}"  # the secret by name only
    add = steps[7]
    assert add["command"] == "click" and add["targets"]["ref"]["name"] == "Add to cart"
    assert "row Desk lamp" in add["targets"]["ref"]["context"]
    search = steps[5]["expect"]
    assert search["url"].endswith("/results")  # where the Search click went, query dropped
    # Text is expected only when the click's own read of the new page had its heading (a
    # loaded machine may read it before it renders); when it is, it names the parameter.
    assert search.get("text", 'Results for "{{query}}"') == 'Results for "{{query}}"'
    assert PASSWORD not in json.dumps(shown)
    # A stretch of the session: its first three actions (open, snapshot, type).
    first = recorded["actions"][0]
    part = ("flow", "save", "part", "--from", str(first), "--to", str(first + 2))
    stretch = daemon.cli("--session", "flow-record", "--json", *part).json["result"]
    assert (stretch["steps"], stretch["left_out"], stretch["params"]) == (
        2,
        {"snapshot": 1},
        {"username": "ada"},
    )
    assert daemon.cli("flow", "rm", "part").rc == 0


def test_replay_unchanged(daemon: Daemon, shop: ShopSite, recorded: dict[str, Any]) -> None:
    shop.variant = "plain"
    mark = len(shop.events)
    done = run_flow(daemon, "flow-plain")
    assert done.rc == 0, done.out
    result = done.json["result"]
    assert result["adapted"] == 0 and len(result["steps"]) == 14
    orders = [e for e in events_since(shop, mark) if e["kind"] == "order"]
    assert orders == [{"kind": "order", **RECORDED, "gift": "yes", "items": "Desk lamp"}]


def test_replay_after_a_restyle_adapts_and_says_so(
    daemon: Daemon, shop: ShopSite, recorded: dict[str, Any]
) -> None:
    shop.variant = "restyled"
    mark = len(shop.events)
    done = run_flow(daemon, "flow-restyled")
    assert done.rc == 0, done.out
    result = done.json["result"]
    notes = {s["step"]: " ".join(s["adapted"]) for s in result["steps"] if s["adapted"]}
    assert "moved from" in notes[8] and "row Desk lamp" in notes[8]  # Add to cart, its row
    assert 'renamed "Check out" -> "Checkout"' in notes[10]
    assert result["adapted"] == len(notes) >= 2
    orders = [e for e in events_since(shop, mark) if e["kind"] == "order"]
    assert [(o["items"], o["name"], o["delivery"]) for o in orders] == [
        ("Desk lamp", RECORDED["name"], "Express")
    ]
    # Each step's row in the log, and in the live view's timeline, says whose step it was.
    db = sqlite3.connect(daemon.settings.state_dir / "steadyhand.sqlite")
    rows = db.execute(
        "SELECT command, result_json FROM action_log WHERE session = 'flow-restyled'"
    ).fetchall()
    db.close()
    marks = " ".join(json.loads(r).get("part_of", "") for c, r in rows if c == "click")
    assert 'flow shop v1 · step 10/14 · adapted: button "Check out": renamed' in marks
    runs = [json.loads(r) for c, r in rows if c == "flow.run"]
    assert len(runs) == 1 and runs[0]["adapted"] == result["adapted"]
    timeline = daemon.call("live.actions", session="flow-restyled")["actions"]
    assert any((a.get("part_of") or "").startswith("flow shop v1 · step 1/14") for a in timeline)


def test_replay_under_a_cookie_banner_dismisses_it(
    daemon: Daemon, shop: ShopSite, recorded: dict[str, Any]
) -> None:
    shop.variant = "banner"
    mark = len(shop.events)
    done = run_flow(daemon, "flow-banner")
    assert done.rc == 0, done.out
    adapted = [a for s in done.json["result"]["steps"] for a in s["adapted"]]
    assert any(a.startswith("dismissed vanilla-cookieconsent") for a in adapted), adapted
    assert [e["items"] for e in events_since(shop, mark) if e["kind"] == "order"] == ["Desk lamp"]


def test_replay_with_other_parameters(
    daemon: Daemon, shop: ShopSite, recorded: dict[str, Any]
) -> None:
    shop.variant = "plain"
    mark = len(shop.events)
    done = run_flow(
        daemon,
        "flow-params",
        "--param",
        "query=desk",
        "--param",
        "full_name=Grace Hopper",
        "address=1 Compiler Rd",
    )
    assert done.rc == 0, done.out
    orders = [e for e in events_since(shop, mark) if e["kind"] == "order"]
    assert [(o["name"], o["address"], o["items"]) for o in orders] == [
        ("Grace Hopper", "1 Compiler Rd", "Desk lamp")
    ]
    bad = run_flow(daemon, "flow-params-bad", "--param", "city=Bern")
    assert bad.rc == 2 and "no parameter city" in bad.json["error"]["message"]


def test_a_flow_file_edited_by_hand_is_checked_before_it_runs(
    daemon: Daemon, tmp_path: Path, recorded: dict[str, Any]
) -> None:
    shown = json.loads(daemon.cli("flow", "show", FLOW).out)
    shown["steps"][2]["params"]["text"] = "{{pw}}"
    shown["params"]["pw"] = {"about": "the password"}
    edited = tmp_path / "shop.json"
    edited.write_text(json.dumps(shown))
    saved = daemon.cli("--json", "flow", "save", "shop-edited", "--file", str(edited)).json[
        "result"
    ]
    assert saved["version"] == 1 and saved["needs"] == ["pw"]
    refused = run_flow_named(daemon, "shop-edited")
    assert refused.rc == 2 and "--param pw=..." in refused.json["error"]["message"]
    shown["steps"][2]["params"]["text"] = "{{secret:NOT_DEFINED}}"
    edited.write_text(json.dumps(shown))
    daemon.cli("flow", "save", "shop-secret", "--file", str(edited))
    unknown = run_flow_named(daemon, "shop-secret")
    assert unknown.rc == 3 and "nothing ran" in unknown.json["error"]["message"]
    assert "NOT_DEFINED" in unknown.json["error"]["message"]
    assert "flow-named" not in daemon.statuses()  # not even the session was opened
    daemon.cli("flow", "rm", "shop-secret")
    listed = daemon.cli("--json", "flow", "list").json["result"]["flows"]
    assert {f["name"] for f in listed} >= {"shop", "shop-edited"}
    assert daemon.cli("--json", "flow", "rm", "shop-edited").json["result"]["removed"] == 1
    gone = run_flow_named(daemon, "shop-edited")
    assert gone.rc == 3 and gone.json["error"]["code"] == "not_found"
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x", "steps": [{"command": "click", "oops": 1}]}')
    bad = daemon.cli("--json", "flow", "save", "x", "--file", str(broken))
    assert bad.rc == 2 and "steps.0.oops" in bad.json["error"]["message"]


def run_flow_named(d: Daemon, name: str) -> CliRun:
    return d.cli("--session", "flow-named", "--json", "flow", "run", name)


def test_exported_scripts_do_the_task_on_their_own(
    daemon: Daemon, shop: ShopSite, tmp_path: Path, recorded: dict[str, Any]
) -> None:
    shop.variant = "plain"
    for kind in ("python", "playwright"):
        script = tmp_path / f"shop_{kind}.py"
        written = daemon.cli("--json", "flow", "export", FLOW, f"--{kind}", "--out", str(script))
        assert written.rc == 0, written.err
        mark = len(shop.events)
        env = dict(daemon.env, SECRET_SHOP_PW=PASSWORD, CHROMIUM="/usr/bin/chromium")
        ran = subprocess.run(
            [sys.executable, str(script), "full_name=Script Runner"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert ran.returncode == 0, f"{kind}: {ran.stderr[-3000:]}"
        orders = [e for e in events_since(shop, mark) if e["kind"] == "order"]
        assert [(o["name"], o["items"]) for o in orders] == [("Script Runner", "Desk lamp")], kind
    daemon.cli("--session", "flow-shop", "close")


def test_a_removed_button_stops_the_run_and_the_flow_is_updated_from_there(
    daemon: Daemon, shop: ShopSite, recorded: dict[str, Any]
) -> None:
    s = "flow-removed"
    shop.variant = "removed"
    mark = len(shop.events)
    stopped = daemon.cli("--session", s, "--json", "flow", "run", FLOW)
    assert stopped.rc == 3, stopped.out
    error = stopped.json["error"]
    assert error["code"] == "flow_diverged"
    data = error["data"]
    assert (data["step"], data["reason"], data["done"]) == (14, "missing", 13)
    assert data["expected"]["targets"]["ref"]["name"] == "Place order"
    assert 'button "Save for later"' in data["saw"] and "Place order" not in data["saw"]
    assert "step 14" in error["message"] and 'button "Place order"' in error["message"]
    # Nothing was done to another element: no order, no cancel, nothing saved for later.
    kinds = [e["kind"] for e in events_since(shop, mark)]
    assert kinds == ["signin", "add"]
    # The agent takes over from exactly there, by ref from the divergence's snapshot...
    cli(daemon, s, "click", find_ref(data["saw"], "button", "Save for later"))
    # ...and the flow becomes what was done: its first 13 steps, then that click.
    updated = cli(daemon, s, "--json", "flow", "save", FLOW, "--update").json["result"]
    assert updated["version"] == 2 and updated["steps"] == 14
    shown = json.loads(daemon.cli("flow", "show", FLOW).out)
    assert shown["steps"][-1]["targets"]["ref"]["name"] == "Save for later"
    cli(daemon, s, "close")
    mark = len(shop.events)
    again = run_flow(daemon, "flow-removed-2")
    assert again.rc == 0, again.out
    assert again.json["result"]["version"] == 2
    assert [e["kind"] for e in events_since(shop, mark)] == ["signin", "add", "save_for_later"]


def test_a_flow_on_a_page_nobody_here_wrote_follows_the_item_its_value_named(
    daemon: Daemon, site: str
) -> None:
    """TodoMVC (vanilla JS, as vendored from npm): add two todos, complete the first, show
    the active ones. The item completed is found by the text typed, so other values
    complete the other first item."""
    s, app = "flow-todo", f"{site}/real/todomvc-0.1.1/examples/vanillajs/index.html"
    cli(daemon, s, "open", app)
    new = find_ref(page_refs(daemon, s), "textbox", "What needs to be done?")
    cli(daemon, s, "type", new, "Buy milk", "--submit")
    cli(daemon, s, "type", new, "Walk the dog", "--submit")
    seen = page_refs(daemon, s)
    first = next(line for line in seen.splitlines() if 'listitem "Buy milk"' in line)
    cli(daemon, s, "check", first.split("[ref=")[1].rstrip("]"))
    cli(daemon, s, "click", find_ref(seen, "link", "Active"))
    save = ("flow", "save", "todo", "--param", "first=Buy milk", "--param", "second=Walk the dog")
    saved = cli(daemon, s, "--json", *save).json["result"]
    assert saved["steps"] == 5
    shown = json.loads(daemon.cli("flow", "show", "todo").out)
    assert shown["steps"][3]["targets"]["ref"]["context"] == ["listitem {{first}}"]
    cli(daemon, s, "close")
    r = "flow-todo-2"
    done = daemon.cli("--session", r, "--json", "flow", "run", "todo", "--param", "first=Tea")
    assert done.rc == 0, done.out
    active = page_refs(daemon, r)
    assert 'listitem "Walk the dog"' in active and "Tea" not in active
    stored = "() => Object.values(localStorage).flatMap(v => JSON.parse(v).todos || [])"
    todos = daemon.call("evaluate", session=r, expression=stored)["value"]
    assert [(t["title"], t["completed"]) for t in todos] == [("Tea", True), ("Walk the dog", False)]
    cli(daemon, r, "close")


def test_flow_run_is_an_mcp_tool_of_the_flows_group(
    daemon: Daemon, shop: ShopSite, recorded: dict[str, Any]
) -> None:
    """A strict real client (the MCP SDK over stdio): the run, and a divergence's page."""

    async def scenario() -> tuple[set[str], set[str], Any, Any]:
        async with stdio_mcp(daemon.env) as core, stdio_mcp(daemon.env, "--caps", "flows") as mcp:
            offered = {t.name for t in (await core.list_tools()).tools}
            tools = {t.name for t in (await mcp.list_tools()).tools}
            shop.variant = "plain"
            run = {"name": FLOW, "version": 1}  # (a later test saves a version 2)
            ran = await mcp.call_tool("flow_run", run | {"param": {"query": "desk"}})
            shop.variant = "removed"
            stopped = await mcp.call_tool("flow_run", run | {"wait_ms": 300})
            await mcp.call_tool("close", {})
            return offered, tools, ran, stopped

    mark = len(shop.events)
    offered, tools, ran, stopped = asyncio.run(scenario())
    shop.variant = "plain"
    assert "flow_run" not in offered  # core alone: the flows group costs only when asked
    assert {"flow_run", "flow_save", "flow_show", "flow_list", "flow_export"} <= tools
    assert "flow_rm" not in tools  # a person's
    assert not ran.is_error, text_of(ran)
    assert ran.structured_content["adapted"] == 0
    assert [e["items"] for e in events_since(shop, mark) if e["kind"] == "order"] == ["Desk lamp"]
    assert stopped.is_error
    said = text_of(stopped)
    assert said.startswith("error [flow_diverged]") and "the page now:" in said
    assert '- button "Save for later"' in said  # the page as lines, not an escaped string
