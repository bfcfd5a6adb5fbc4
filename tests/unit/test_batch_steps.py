"""A batch's steps: as the CLI reads them (JSON, or command lines parsed as argv is), and
as the daemon checks them before running any (commands/batch.py plan)."""

from __future__ import annotations

import io
import os

import pytest

from steadyhand.commands.batch import Step, plan
from steadyhand.errors import SteadyhandError
from steadyhand.fronts.cli.main import load_spec, steps_from
from steadyhand.rpc_client import reply_wait_s
from tests.conftest import make_settings


def from_stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> list[object]:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    return steps_from(load_spec(), None)


def test_command_lines_are_parsed_as_argv_with_shell_quoting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    steps = from_stdin(
        monkeypatch,
        """
        # a comment, then blank lines
        steadyhand click e3
        type e4 "hello world" --submit
        fill e5=alice 'e6=pass word'
        tab new --session other   # a step may name its session
        screenshot --path shot.png
        """,
    )
    assert steps == [
        {"command": "click", "params": {"ref": "e3"}},
        {"command": "type", "params": {"ref": "e4", "text": "hello world", "submit": True}},
        {"command": "fill", "params": {"fields": {"e5": "alice", "e6": "pass word"}}},
        {"command": "tab.new", "params": {"session": "other"}},
        {"command": "screenshot", "params": {"path": os.path.abspath("shot.png")}},
    ]


def test_json_comes_as_the_argument_or_on_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    array = '[{"command": "click", "params": {"ref": "e3"}}]'
    assert steps_from(load_spec(), array) == [{"command": "click", "params": {"ref": "e3"}}]
    assert from_stdin(monkeypatch, "  " + array) == [{"command": "click", "params": {"ref": "e3"}}]
    assert steps_from(load_spec(), "click e3\npress Enter") == [
        {"command": "click", "params": {"ref": "e3"}},
        {"command": "press", "params": {"key": "Enter"}},
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[1, 2", "not JSON"),
        ('{"command": "click"}', "line 1"),
        ("click e3\ntype e4 'unclosed", "line 2: No closing quotation"),
        ("clack e3", "line 1: unknown command 'clack'"),
        ("--session x", "line 1: no command"),
        ("click", "line 1: the following arguments are required: REF"),
        ("batch '[]'", "line 1: batch cannot be a step"),
        ("daemon start", "line 1: daemon start cannot be a step"),
        ("type e4 --stdin", "line 1: --stdin cannot be used"),
        ("click --help", "line 1: help is not a step"),
    ],
)
def test_bad_lines_are_refused_with_their_number(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    with pytest.raises(SteadyhandError) as caught:
        from_stdin(monkeypatch, text)
    assert caught.value.code == "bad_request" and said in caught.value.message
    assert caught.value.hint


def test_the_daemon_checks_every_step_before_any_runs() -> None:
    planned = plan(
        [
            Step(command="tab_new", params={"url": None}),
            Step(command="click", params={"ref": "e3", "session": "b"}),
        ],
        "a",
    )
    assert [(c.name, raw) for c, raw in planned] == [
        ("tab.new", {"session": "a"}),
        ("click", {"session": "b", "ref": "e3"}),
    ]
    with pytest.raises(SteadyhandError) as caught:
        plan(
            [Step(command="clik"), Step(command="snapshot"), Step(command="deny", params={})],
            "a",
        )
    message = caught.value.message
    assert message.startswith("nothing ran: step 1: unknown command 'clik'")
    assert "step 3: deny cannot be a step" in message and "step 2" not in message
    assert "did you mean 'click'?" in caught.value.hint


def test_a_client_waits_for_every_step_of_a_batch(tmp_path: object) -> None:
    settings = make_settings(tmp_path)  # type: ignore[arg-type]
    one = reply_wait_s(settings, {})
    steps = [{"command": "click", "params": {}}] * 3
    three = reply_wait_s(settings, {"steps": steps})
    # Each step may wait for its own approval before its deadline starts.
    each = settings.timeout_long_ms / 1000 + settings.approval_timeout_s
    assert three - one == pytest.approx(2 * each)
    assert reply_wait_s(settings, {"steps": steps, "timeout": "long"}) == one
