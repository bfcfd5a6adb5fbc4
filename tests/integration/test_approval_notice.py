"""A call that waits for a person's approval says so at once: the approval's id and the
commands that decide it, on the CLI's stderr (a pipe too, as agents run it) and as an MCP
notification (progress when the client sent a progressToken, else a log message)."""

from __future__ import annotations

import asyncio
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import IO

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from steadyhand import rpc_client
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings

pytestmark = pytest.mark.integration

NOTICE = re.compile(
    r"waiting for approval ([0-9a-f]{6}) \((.*)\): "
    r"steadyhand approve \1 \| steadyhand deny \1"
)
REFERENCE = "import sys; from steadyhand.fronts.cli.main import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    handle = Daemon(
        make_settings(
            tmp_path_factory.mktemp("state"), approval_names="place order", approval_timeout_s=60
        )
    )
    rpc_client.start_daemon(handle.settings)
    yield handle
    handle.stop()


class Lines:
    """A pipe's lines as they come, read on a thread (a blocked call keeps it open)."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line)

    def next(self, timeout: float = 60) -> str:
        return self.lines.get(timeout=timeout)


def ended(process: subprocess.Popen[str], timeout: float = 60) -> str:
    """Its stdout, once it has exited. (Not communicate(): that reads stderr too, racing
    the Lines reader for the last lines, which then never reach the test.)"""
    assert process.stdout is not None
    out = Lines(process.stdout)
    process.wait(timeout=timeout)
    out.reader.join(timeout)
    return "".join(out.lines.get_nowait() for _ in range(out.lines.qsize()))


def background(d: Daemon, *argv: str) -> tuple[subprocess.Popen[str], Lines]:
    """`steadyhand ARGV` (argv[0] may be `-c` and the reference's code) with stdout and
    stderr pipes, not terminals; its stderr read line by line."""
    args = list(argv) if argv[0] == "-c" else ["-m", "steadyhand", *argv]
    process = subprocess.Popen(
        [sys.executable, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=d.env,
    )
    assert process.stderr is not None
    return process, Lines(process.stderr)


def test_the_cli_says_at_once_what_it_waits_for_on_a_piped_stderr(gated: Daemon, site: str) -> None:
    s = "notice-click"
    gated.call("open", session=s, url=f"{site}/approvals.html")
    order = find_ref(gated.snapshot(s), "button", "Place order")
    process, stderr = background(gated, "click", order, "--session", s)  # the relay
    try:
        first = stderr.next()
        match = NOTICE.fullmatch(first.rstrip("\n"))
        assert match, first
        approval = match.group(1)
        assert match.group(2) == f'click {order} (button "Place order")'
        assert process.poll() is None, "still waiting for the person"
        pending = [a for a in gated.call("approvals")["approvals"] if a["status"] == "pending"]
        assert [a["id"] for a in pending if a["session"] == s] == [approval]
        assert gated.cli("approve", approval).rc == 0
        out = ended(process)
    finally:
        process.kill()
    stderr.reader.join(60)
    assert process.returncode == 0, list(stderr.lines.queue)
    assert "click" in out and approval in out
    assert stderr.lines.empty(), "the notice is all stderr says"


def test_the_reference_cli_says_it_too_and_a_denial_still_fails(gated: Daemon) -> None:
    s = "notice-reference"
    argv = ("request_approval", "--session", s, "--reason", "wire 5 EUR")
    process, stderr = background(gated, "-c", REFERENCE, *argv)
    try:
        match = NOTICE.fullmatch(stderr.next().rstrip("\n"))
        assert match and match.group(2) == "request_approval: wire 5 EUR"
        assert gated.cli("deny", match.group(1), "--note", "no").rc == 0
        out = ended(process)
    finally:
        process.kill()
    assert process.returncode == 7 and out == ""
    assert stderr.next().startswith("error [approval_denied]: request_approval was not approved")


def test_mcp_sends_the_notice_as_progress_or_as_a_log_message(gated: Daemon) -> None:
    notes: list[str] = []
    logged: list[types.LoggingMessageNotificationParams] = []
    came: list[asyncio.Queue[str]] = []  # each note's text, as it comes (made in the loop)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append(message or "")
        came[0].put_nowait(message or "")

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params)
        came[0].put_nowait(str(params.data))

    async def decide(approve: bool) -> str:
        """Read the next notice, and decide the approval it names as a person would."""
        note = await asyncio.wait_for(came[0].get(), 60)
        match = NOTICE.fullmatch(note)
        assert match, note
        verb = "approve" if approve else "deny"
        decided = await asyncio.to_thread(gated.cli, verb, match.group(1))
        assert decided.rc == 0, decided.err
        return match.group(1)

    async def scenario() -> tuple[types.CallToolResult, str, types.CallToolResult, str]:
        came.append(asyncio.Queue())
        server = StdioServerParameters(
            command=sys.executable,
            args=["-m", "steadyhand", "mcp", "--caps", "approvals"],
            env=gated.env,
        )
        async with (
            stdio_client(server) as (read, write),
            ClientSession(read, write, logging_callback=on_log) as session,
        ):
            await session.initialize()
            asked = asyncio.ensure_future(
                session.call_tool(
                    "request_approval", {"reason": "ship it"}, progress_callback=on_progress
                )
            )
            first = await decide(approve=True)
            granted = await asked
            # Without a progressToken, the notice is a log message.
            asked = asyncio.ensure_future(session.call_tool("request_approval", {"reason": "drop"}))
            second = await decide(approve=False)
            return granted, first, await asked, second

    granted, first, denied, second = asyncio.run(scenario())
    assert not granted.is_error and isinstance(granted.structured_content, dict)
    assert granted.structured_content["id"] == first
    assert notes == [
        f"waiting for approval {first} (request_approval: ship it): "
        f"steadyhand approve {first} | steadyhand deny {first}"
    ]
    assert denied.is_error and "approval_denied" in str(denied.content[0])
    assert [(p.level, p.logger) for p in logged] == [("notice", "steadyhand")]
    assert second in str(logged[0].data) and second != first
