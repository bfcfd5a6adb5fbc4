"""Bugs the issue-18 fuzzing found (tests/integration/test_fuzz.py), each pinned here."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.async_api import Error as PlaywrightError

from steadyhand import rpc_client
from steadyhand.act.failures import translate
from steadyhand.config import Settings
from steadyhand.engine import playwright_errors
from steadyhand.engine.session import new_page
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.files_policy import FileRoots, Root, real
from steadyhand.store.artifacts import output_path


@pytest.mark.parametrize("bad", ["abc", "1e9", "-5", "0", 0.1, "", "10 minutes"])
def test_a_bad_timeout_is_left_to_the_daemon_to_refuse(tmp_path: Path, bad: object) -> None:
    """The client used to refuse it itself, so HTTP, MCP and CLI refusals of a bad
    --timeout never reached the daemon's action log; now it waits as for the long tier."""
    settings = Settings.load(state_dir=tmp_path)
    assert rpc_client.reply_wait_s(settings, {"timeout": bad}) == rpc_client.reply_wait_s(
        settings, {}
    )


def test_a_path_under_a_file_is_bad_request(tmp_path: Path) -> None:
    """`report --path F/x.html` where F is a file was an internal error (FileExistsError)."""
    (tmp_path / "plain").write_text("a file, not a folder")
    with pytest.raises(SteadyhandError) as refused:
        output_path(
            str(tmp_path / "plain" / "x.html"),
            "report",
            tmp_path,
            "s",
            label="l",
            ext="e",
            roots=FileRoots((Root(real(tmp_path), "the test's"),), tmp_path),
        )
    assert refused.value.code == ErrorCode.BAD_REQUEST
    assert "plain" in refused.value.message and refused.value.hint


@pytest.mark.parametrize(
    "said", ["ElementHandle.uncheck: Target crashed", "Page.goto: Page crashed"]
)
@pytest.mark.parametrize("tab_closed", [False, True])
def test_a_renderer_crash_under_a_command_is_browser_crashed(said: str, tab_closed: bool) -> None:
    """Chaos found it: a renderer SIGKILLed under an action was `action_failed` ("take a
    new snapshot and check the element's state", or "the tab was closed"), not the
    taxonomy's `browser_crashed` (retryable, exit 5) for a dead renderer."""
    error = translate(PlaywrightError(said), tab_closed=tab_closed)
    assert error.code == ErrorCode.BROWSER_CRASHED
    assert "crashed" in error.message and "snapshot" in error.hint


class _Browser:
    def __init__(self) -> None:
        self.connected = True

    def is_connected(self) -> bool:
        return self.connected


class _Context:
    """What new_page uses of a BrowserContext whose browser dies while it makes a page."""

    def __init__(self) -> None:
        self.browser = _Browser()

    def on(self, event: str, handler: Callable[[Any], None]) -> None:
        pass

    def remove_listener(self, event: str, handler: Callable[[Any], None]) -> None:
        pass

    async def new_page(self) -> Any:
        await asyncio.Event().wait()  # Playwright's call, once the browser is killed


def test_a_page_being_made_when_the_browser_dies_fails_as_closed() -> None:
    """Chaos found it: a browser SIGKILLed while `open` made its tab left `open` waiting
    its whole deadline (a `timeout` 20 s later) instead of running again on the recovered
    session."""
    context = _Context()

    async def scenario() -> None:
        making = asyncio.ensure_future(new_page(cast(Any, context)))
        await asyncio.sleep(0.3)
        assert not making.done()
        context.browser.connected = False
        await asyncio.wait_for(making, 2)

    with pytest.raises(PlaywrightError) as closed:
        asyncio.run(scenario())
    assert playwright_errors.browser_gone(str(closed.value)), (
        "execute reruns the command after recovery"
    )
