"""`batch`: commands in order in one call, each as a call of its own (gate, deadline, its
action-log row); and a JSON-RPC array, whose requests run in order too."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import types

import steadyhand
from steadyhand.commands.batch import BatchResult, Step
from steadyhand.snapshot.lookup import find_ref
from tests.bounded import inside
from tests.conftest import Daemon, make_settings, running_daemon
from tests.http_server import HttpServer, start_http
from tests.integration.test_mcp import stdio_mcp, text_of

pytestmark = pytest.mark.integration


def step(command: str, **params: Any) -> dict[str, Any]:
    return {"command": command, "params": params}


def opened_form(daemon: Daemon, site: str, session: str) -> dict[str, str]:
    """The form page open in `session`: refs of its name field, size box and button."""
    daemon.call("open", session=session, url=f"{site}/form.html")
    page = daemon.snapshot(session)
    return {
        "name": find_ref(page, "textbox", "Name"),
        "size": find_ref(page, "combobox", "Size"),
        "order": find_ref(page, "button", "Place order"),
        "password": find_ref(page, "textbox", "Password"),
    }


def ordered(daemon: Daemon, session: str) -> str:
    text: str = daemon.call("extract", session=session, kind="text", selector="#out")["text"]
    return text


def logged(daemon: Daemon, session: str) -> list[dict[str, Any]]:
    """The session's action-log rows, oldest first."""
    rows: list[dict[str, Any]] = daemon.call("trace", name=session, last=0)["actions"]
    return rows


def test_steps_run_in_order_in_one_call(daemon: Daemon, site: str) -> None:
    s = "batch-order"
    refs = opened_form(daemon, site, s)
    done = daemon.call(
        "batch",
        session=s,
        steps=[
            step("type", ref=refs["name"], text="Ada"),
            step("type", ref=refs["password"], text="hunter2"),
            step("select", ref=refs["size"], values=["Large"]),
            step("click", ref=refs["order"]),
            step("extract", kind="text", selector="#out"),
        ],
    )
    assert (done["ran"], done["ok"], done["failed"], done["skipped"]) == (5, 5, 0, 0)
    commands = ["type", "type", "select", "click", "extract"]
    assert [x["command"] for x in done["steps"]] == commands
    assert all(x["ok"] and "error" not in x and "skipped" not in x for x in done["steps"])
    # The click saw what the steps before it typed and chose.
    assert done["steps"][4]["result"]["text"].startswith("ordered l for Ada")
    assert "pwlen=7" in done["steps"][4]["result"]["text"]
    assert done["steps"][0]["result"]["action"] == "type"
    rows = logged(daemon, s)
    assert [row["command"] for row in rows][-5:] == commands
    assert "batch" not in [row["command"] for row in rows]  # each step is its own call
    assert "hunter2" not in json.dumps(rows)  # a password field's text is redacted
    assert rows[-5]["params"]["text"] == "Ada"


def test_a_failed_step_stops_the_rest_and_keeps_what_ran(daemon: Daemon, site: str) -> None:
    s = "batch-stop"
    refs = opened_form(daemon, site, s)
    before = len(logged(daemon, s))
    done = daemon.call(
        "batch",
        session=s,
        steps=[
            step("type", ref=refs["name"], text="Bo"),
            step("click", ref="e999"),
            step("click", ref=refs["order"]),
        ],
    )
    assert (done["ran"], done["ok"], done["failed"], done["skipped"]) == (2, 1, 1, 1)
    first, failed, skipped = done["steps"]
    assert first["ok"] is True
    assert failed["ok"] is False and failed["error"]["code"] == "not_found"
    assert failed["error"]["hint"] and "result" not in failed
    assert skipped == {"command": "click", "ok": False, "skipped": True}
    assert ordered(daemon, s) == "nothing ordered"  # the skipped click never ran
    page = daemon.snapshot(s)
    assert "Bo" in page.split(f"[ref={refs['name']}]")[1].splitlines()[0]  # the type stays
    rows = logged(daemon, s)[before:]
    assert [(r["command"], r["ok"]) for r in rows[:2]] == [("type", True), ("click", False)]
    assert rows[1]["outcome"] == "not_found"
    # The skipped click left no row: after the batch, only this test's own reads.
    assert [r["command"] for r in rows] == ["type", "click", "extract", "snapshot"]


def test_keep_going_runs_every_step(daemon: Daemon, site: str) -> None:
    s = "batch-continue"
    refs = opened_form(daemon, site, s)
    done = daemon.call(
        "batch",
        session=s,
        keep_going=True,
        steps=[
            step("click", ref="e999"),
            step("type", ref=refs["name"], text="Cy"),
            step("click", ref=refs["order"]),
        ],
    )
    assert (done["ran"], done["ok"], done["failed"], done["skipped"]) == (3, 2, 1, 0)
    assert ordered(daemon, s).startswith("ordered s for Cy")


def test_bad_steps_are_refused_before_any_runs(daemon: Daemon, site: str) -> None:
    s = "batch-refused"
    refs = opened_form(daemon, site, s)
    before = len(logged(daemon, s))
    typing = step("type", ref=refs["name"], text="never")
    for steps, said in [
        ([typing, step("clik", ref="e1")], "unknown command 'clik'"),
        ([typing, step("click")], "ref: Field required"),
        ([typing, step("click", ref="e1", colour="red")], "colour"),
        ([typing, step("batch", steps=[typing])], "a batch holds no batch"),
        ([typing, step("desktop.watch")], "streams"),
        ([typing, step("daemon.stop")], "cannot be a step"),
        ([typing, step("approve", id="x")], "a person's decision"),
        ([], "at least 1 item"),
    ]:
        error = daemon.fail("batch", session=s, steps=steps)
        assert error.code == "bad_request" and said in error.message, (steps, error)
        assert error.hint
    both = daemon.fail("batch", session=s, steps=[step("clik"), typing, step("click")])
    assert "step 1" in both.message and "step 3" in both.message and "step 2" not in both.message
    assert len(logged(daemon, s)) == before  # nothing ran
    assert daemon.call("snapshot", session=s)["title"] == "Form fixture"  # the session lives


def test_steps_use_the_batchs_session_unless_they_name_one(daemon: Daemon, site: str) -> None:
    done = daemon.call(
        "batch",
        session="batch-own",
        steps=[
            step("open", url=f"{site}/nav-a.html"),
            step("open", url=f"{site}/form.html", session="batch-other"),
        ],
    )
    assert done["ok"] == 2
    assert daemon.call("snapshot", session="batch-own")["title"] == "Page A"
    assert daemon.call("snapshot", session="batch-other")["title"] == "Form fixture"


def test_a_batch_timeout_bounds_its_steps(daemon: Daemon, site: str) -> None:
    s = "batch-deadline"
    opened_form(daemon, site, s)
    waits = step("wait", text="never shown", timeout="long")
    done = daemon.call("batch", session=s, timeout="1500ms", steps=[waits])
    error = done["steps"][0]["error"]
    assert error["code"] == "timeout"
    # It gave up within the batch's 1.5 s, not after its own long deadline (45 s).
    spent = re.search(r"gave up after (\d+) ms", error["message"])
    assert spent and int(spent[1]) < 10_000, error
    # A step that uses up the batch's time leaves none to start the next one with: the
    # batch stops there, --continue or not.
    sleeps = step("evaluate", expression="new Promise(done => setTimeout(done, 1000))")
    done = daemon.call(
        "batch",
        session=s,
        timeout="1200ms",
        keep_going=True,
        steps=[sleeps, step("snapshot"), step("tabs")],
    )
    _, late, skipped = done["steps"]
    assert late["error"]["code"] == "timeout" and late["error"]["data"]["batch_deadline"]
    assert skipped == {"command": "tabs", "ok": False, "skipped": True}


def test_cli_takes_a_json_array_and_command_lines(daemon: Daemon, site: str) -> None:
    s = "batch-cli"
    refs = opened_form(daemon, site, s)
    steps = json.dumps([step("type", ref=refs["name"], text="Di")])
    run = daemon.cli("batch", steps, "--session", s)
    assert run.rc == 0, run.err
    assert run.out.startswith(f"1 ok type {refs['name']} · ")
    lines = f"""
        # quoted as in the shell
        type {refs["name"]} "Eve Smith"
        select {refs["size"]} Medium
        click {refs["order"]}
        click e999
        snapshot
    """
    run = daemon.cli("batch", "--session", s, stdin=lines)
    assert run.rc == 3, run.out + run.err  # not_found's exit code
    out = run.out.splitlines()
    assert out[0].startswith(f"1 ok type {refs['name']} · ")
    assert out[3].startswith("4 failed click: [not_found]") and out[4].startswith("  hint: ")
    assert out[5:] == ["5 skipped snapshot", "ran 4 of 5: 3 ok, 1 failed, 1 skipped"]
    assert ordered(daemon, s).startswith("ordered m for Eve Smith")
    run = daemon.cli("batch", "-", "--continue", "--json", "--session", s, stdin="click e999\n")
    assert run.rc == 3 and run.json["ok"] is True
    assert run.json["result"]["steps"][0]["error"]["code"] == "not_found"
    bad = daemon.cli("batch", "--session", s, stdin=f"type {refs['name']} 'unclosed\n")
    assert bad.rc == 2 and "line 1" in bad.err
    nested = daemon.cli("batch", "--session", s, stdin="batch '[]'\n")
    assert nested.rc == 2 and "cannot be a step" in nested.err


def rpc(daemon: Daemon, payload: Any) -> Any:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(60)
        sock.connect(str(daemon.settings.socket_path))
        sock.sendall(json.dumps(payload).encode() + b"\n")
        return json.loads(sock.makefile("rb").readline())


def test_a_json_rpc_array_runs_in_order(daemon: Daemon, site: str) -> None:
    """Each request sees what the one before it did: run at once, the reads would race the
    writes (a type's keystrokes take longer than a read)."""
    s = "batch-rpc"
    refs = opened_form(daemon, site, s)
    text = "in order please"
    requests: list[dict[str, Any]] = []
    for i, word in enumerate(text.split(" ")):
        requests.append(
            {
                "jsonrpc": "2.0",
                "id": f"type{i}",
                "method": "type",
                "params": {
                    "session": s,
                    "ref": refs["name"],
                    "text": word + " ",
                    "clear": False,
                    "slowly": True,
                },
            }
        )
        requests.append(
            {
                "jsonrpc": "2.0",
                "id": f"read{i}",
                "method": "evaluate",
                "params": {"session": s, "expression": "document.getElementById('name').value"},
            }
        )
    replies = rpc(daemon, requests)
    assert [r["id"] for r in replies] == [r["id"] for r in requests]
    assert all("result" in r for r in replies), replies
    reads = [r["result"]["value"] for r in replies if r["id"].startswith("read")]
    words = text.split(" ")
    assert reads == [" ".join(words[: i + 1]) + " " for i in range(len(words))]


@pytest.fixture(scope="module")
def server(daemon: Daemon) -> Iterator[HttpServer]:
    handle = start_http(daemon.env)
    yield handle
    assert handle.stop() == 0, handle.stderr()


def test_http_takes_a_list_of_steps(server: HttpServer, daemon: Daemon, site: str) -> None:
    s = "batch-http"
    refs = opened_form(daemon, site, s)
    with server.client() as api:
        steps = [step("type", ref=refs["name"], text="Hal"), step("click", ref=refs["order"])]
        body = {"session": s, "steps": steps}
        response = api.post("/v1/batch", json=body)
        assert response.status_code == 200, response.text
        assert response.json()["result"]["ok"] == 2
        refused = api.post("/v1/batch", json={"session": s, "steps": [step("nope")]})
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_request"
    assert ordered(daemon, s).startswith("ordered s for Hal")


def test_mcp_tool_takes_a_list_of_steps(daemon: Daemon, site: str) -> None:
    async def scenario() -> tuple[types.Tool, types.CallToolResult, str]:
        async with stdio_mcp(daemon.env) as session:
            listed = {t.name: t for t in (await session.list_tools()).tools}
            opened = await session.call_tool("open", {"url": f"{site}/form.html"})
            assert not opened.is_error
            page = text_of(await session.call_tool("snapshot", {}))
            name = find_ref(page, "textbox", "Name")
            steps = [step("type", ref=name, text="Ivy"), step("snapshot", interactive=True)]
            done = await session.call_tool("batch", {"steps": steps})
            out = await session.call_tool("extract", {"kind": "text", "selector": "#name"})
            return listed["batch"], done, text_of(out)

    tool, done, _ = asyncio.run(scenario())
    schema = tool.input_schema["properties"]["steps"]
    assert schema["type"] == "array" and schema["items"]["required"] == ["command"]
    assert tool.annotations is None, "the spec's defaults: may destroy, open world"
    assert not done.is_error, text_of(done)
    structured = done.structured_content
    assert isinstance(structured, dict) and structured["ok"] == 2
    text = inside(text_of(done))  # the snapshot's page text: bounded
    assert text.splitlines()[0].startswith("1 ok type ")
    assert "2 ok snapshot: t1 · Form fixture" in text and '"Ivy"' not in text.splitlines()[0]
    assert "Ivy" in text  # the last step's whole reply: the snapshot shows the typed name


@pytest.fixture
def hasty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """`Place order` needs a person's approval, and nobody decides within 1.5 s."""
    settings = make_settings(
        tmp_path_factory.mktemp("state"), approval_names="place order", approval_timeout_s=1.5
    )
    with running_daemon(settings) as handle:
        yield handle


def test_each_step_passes_the_approval_gate(hasty: Daemon, site: str) -> None:
    s = "batch-gated"
    refs = opened_form(hasty, site, s)
    done = hasty.call(
        "batch",
        session=s,
        steps=[
            step("type", ref=refs["name"], text="Jo"),
            step("click", ref=refs["order"]),
            step("check", ref="e9"),
        ],
    )
    assert [x.get("ok") for x in done["steps"]] == [True, False, False]
    assert done["steps"][1]["error"]["code"] == "approval_denied"
    assert done["steps"][2]["skipped"]
    assert ordered(hasty, s) == "nothing ordered"
    asked = hasty.call("approvals", all=True)["approvals"]
    assert [(a["command"], a["session"]) for a in asked] == [("click", s)]


def test_the_python_client_takes_step_models(daemon: Daemon, site: str) -> None:
    s = "batch-client"
    refs = opened_form(daemon, site, s)
    steps = [
        Step(command="type", params={"ref": refs["name"], "text": "Kim"}),
        Step(command="tabs"),
    ]
    with steadyhand.SyncClient(settings=daemon.settings, session=s) as client:
        done = client.batch(steps=steps)
    assert isinstance(done, BatchResult) and done.ok == 2
    assert done.steps[1].result is not None and done.steps[1].result["tabs"][0]["id"] == "t1"
    assert done.steps[0].skipped is False and done.steps[0].error is None


def test_each_step_is_a_progress_note(daemon: Daemon, site: str) -> None:
    s = "batch-progress"
    opened_form(daemon, site, s)
    request = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "batch",
        "progress": True,
        "params": {"session": s, "steps": [step("tabs"), step("click", ref="e999")]},
    }
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(60)
        sock.connect(str(daemon.settings.socket_path))
        sock.sendall(json.dumps(request).encode() + b"\n")
        reader = sock.makefile("rb")
        messages = [json.loads(reader.readline())]
        while "id" not in messages[-1]:
            messages.append(json.loads(reader.readline()))
    notes = [
        (m["params"]["done"], m["params"]["total"], m["params"]["message"]) for m in messages[:-1]
    ]
    assert notes == [(1, 2, "step 1 tabs ok"), (2, 2, "step 2 click failed (not_found)")]
    assert messages[-1]["result"]["failed"] == 1
