"""Bugs the issue-18 fuzzing found (tests/integration/test_fuzz.py), each pinned here."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Error as PlaywrightError

from steadyhand.config import Settings
from steadyhand.dispatch import translate
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts import rpc_client
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
        output_path(str(tmp_path / "plain" / "x.html"), "report", tmp_path, "s", label="l", ext="e")
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
