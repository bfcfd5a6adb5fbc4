from __future__ import annotations

import argparse
import io
from typing import Any

import pytest

from steadyhand.commands import COMMANDS
from steadyhand.errors import SteadyhandError
from steadyhand.fronts.cli import main as cli
from steadyhand.fronts.cli import spec as cli_spec
from steadyhand.fronts.cli.progress import ProgressLine


def test_committed_spec_matches_the_command_table() -> None:
    assert cli.SPEC_PATH.read_text() == cli_spec.render(), (
        "cli_spec.json is out of date: run `make spec`"
    )


def sample_value(param: dict[str, Any]) -> str:
    """A value argparse accepts for a required positional."""
    if param["choices"]:
        return str(param["choices"][0])
    return {"int": "100", "float": "1.5", "map": "e1=x"}.get(param["type"], "e1")


def test_every_command_has_a_doc_and_parses(tmp_path: object) -> None:
    spec = cli.load_spec()
    for name, command in COMMANDS.items():
        assert command.doc and not command.doc.endswith(" "), name
        required = [
            sample_value(p)
            for p in cli_spec.command_spec(command)["params"]
            if p["positional"] and p["required"]
        ]
        argv = [*name.split("."), *required]
        args = cli.build_parser(spec, cli.relevant_commands(spec, argv)).parse_args(argv)
        assert args.command_name == name


def parse(argv: list[str]) -> tuple[str, dict[str, object]]:
    spec = cli.load_spec()
    parser = cli.build_parser(spec, cli.relevant_commands(spec, argv))
    args: argparse.Namespace = parser.parse_args(argv)
    command = next(c for c in spec["commands"] if c["name"] == args.command_name)
    return args.command_name, cli.params_from_args(spec, command, args)


def test_argv_becomes_typed_params() -> None:
    assert parse(["type", "e3", "hi there", "--submit", "--session", "s1"]) == (
        "type",
        {"ref": "e3", "text": "hi there", "submit": True, "session": "s1"},
    )
    assert parse(["--timeout", "500", "click", "e4", "--button", "right", "--double"]) == (
        "click",
        {"ref": "e4", "button": "right", "double": True, "timeout": "500"},
    )
    assert parse(["fill", "e1=a=b", "e2="]) == ("fill", {"fields": {"e1": "a=b", "e2": ""}})
    assert parse(["select", "e9", "Red", "Blue"])[1] == {"ref": "e9", "values": ["Red", "Blue"]}
    assert parse(["tab", "close"]) == ("tab.close", {})
    assert parse(["snapshot", "--depth", "2"])[1] == {"depth": 2}
    _name, params = parse(["screenshot", "--path", "rel.png"])
    assert str(params["path"]).startswith("/") and str(params["path"]).endswith("/rel.png")


def test_page_tool_argv_shapes() -> None:
    assert parse(["extract", "attr", "--selector", "a", "--name", "href"])[1] == {
        "kind": "attr",
        "selector": "a",
        "name": "href",
    }
    assert parse(["resize", "800", "600"])[1] == {"width": 800, "height": 600}
    assert parse(["scroll", "e4", "--dy", "-300"])[1] == {"ref": "e4", "dy": -300}
    assert parse(["scroll", "--to", "bottom", "--no-changes"])[1] == {
        "to": "bottom",
        "changes": False,
    }
    assert parse(["wait", "--text-gone", "Loading", "--ref-gone", "e3"])[1] == {
        "text_gone": "Loading",
        "ref_gone": "e3",
    }
    assert parse(["evaluate", "el => el.value", "--ref", "e2"])[1] == {
        "expression": "el => el.value",
        "ref": "e2",
    }
    assert parse(["console", "--level", "warning", "--clear"])[1] == {
        "level": "warning",
        "clear": True,
    }
    assert parse(["network", "--failed", "--filter", "api"])[1] == {"failed": True, "filter": "api"}
    assert parse(["pdf"])[1] == {}
    _name, params = parse(["pdf", "out.pdf"])
    assert str(params["path"]).startswith("/") and str(params["path"]).endswith("/out.pdf")


@pytest.mark.parametrize(
    "argv",
    [
        ["extract"],
        ["extract", "html"],
        ["resize", "800"],
        ["resize", "wide", "600"],
        ["click"],
        ["click", "e1", "--button", "left-ish"],
        ["snapshot", "--depth", "x"],
        ["nope"],
    ],
)
def test_bad_argv_is_a_bad_request(argv: list[str]) -> None:
    with pytest.raises(SteadyhandError) as info:
        parse(argv)
    assert info.value.code == "bad_request" and "usage:" in info.value.hint


def test_secrets_can_come_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("pass word\n"))
    assert parse(["type", "e3", "--stdin"])[1] == {"ref": "e3", "text": "pass word"}
    monkeypatch.setattr("sys.stdin", io.StringIO("e1=alice\ne2=s3cret=x\n"))
    assert parse(["fill", "--stdin"])[1] == {"fields": {"e1": "alice", "e2": "s3cret=x"}}
    # `type` takes its text or --secret NAME: the daemon refuses neither (bad_request).
    assert parse(["type", "e3", "--secret", "BANK"])[1] == {"ref": "e3", "secret": "BANK"}
    assert parse(["type", "e3"])[1] == {"ref": "e3"}
    for argv in (["fill"], ["type", "e3", "both", "--stdin"]):
        monkeypatch.setattr("sys.stdin", io.StringIO("x"))
        with pytest.raises(SteadyhandError) as info:
            parse(argv)
        assert info.value.code == "bad_request", argv


def test_global_options_and_autostart_come_from_the_table() -> None:
    spec = cli.load_spec()
    assert [(g["name"], g["flag"]) for g in spec["globals"]] == [
        ("session", "--session"),
        ("timeout", "--timeout"),
    ]
    autostart = {c["name"]: c["autostart"] for c in spec["commands"]}
    assert autostart["daemon.status"] is False and autostart["click"] is True
    assert cli.relevant_commands(spec, ["--session", "tab", "click", "e1"])[0]["name"] == "click"
    # The top-level help lists every command; `trace` is listed once, as its group.
    listed = {c["name"] for c in cli.relevant_commands(spec, ["--help"])}
    assert listed == {c["name"] for c in spec["commands"]} - {"trace"}
    assert "trace.start" in listed


def test_a_word_that_is_a_command_and_a_group() -> None:
    assert parse(["trace"]) == ("trace", {})
    assert parse(["trace", "s1", "--last", "5", "--failed"]) == (
        "trace",
        {"name": "s1", "last": 5, "failed": True},
    )
    assert parse(["--session", "s2", "trace"]) == ("trace", {"session": "s2"})
    assert parse(["trace", "start", "--no-screenshots"]) == ("trace.start", {"screenshots": False})
    name, params = parse(["trace", "stop", "--path", "t.zip", "--session", "s3"])
    assert name == "trace.stop" and params["session"] == "s3"
    assert str(params["path"]).startswith("/") and str(params["path"]).endswith("/t.zip")
    help_text = cli.build_parser(cli.load_spec(), cli.relevant_commands(cli.load_spec(), []))
    assert "also: trace start, trace stop" in " ".join(help_text.format_help().split())


def test_bools_on_by_default_can_be_turned_off() -> None:
    assert parse(["type", "e3", "hi", "--no-clear"])[1] == {
        "ref": "e3",
        "text": "hi",
        "clear": False,
    }
    assert parse(["type", "e3", "hi", "--clear"])[1] == {"ref": "e3", "text": "hi", "clear": True}
    assert parse(["type", "e3", "hi"])[1] == {"ref": "e3", "text": "hi"}


def test_progress_is_one_line_rewritten_in_place() -> None:
    out = io.StringIO()
    line = ProgressLine(out)
    line(10, 40, "report")
    line(40, 40, "report")
    assert out.getvalue() == "\rreport: 10/40 (25%)\rreport: 40/40 (100%)\n"


def test_three_word_commands_nest_under_their_groups(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse(["desktop", "window", "move", "0x1a00003", "--x", "10", "--y", "-5"]) == (
        "desktop.window.move",
        {"id": "0x1a00003", "x": 10, "y": -5},
    )
    assert parse(["desktop", "clipboard", "set", "hi", "--selection", "primary"]) == (
        "desktop.clipboard.set",
        {"text": "hi", "selection": "primary"},
    )
    assert parse(["desktop", "windows", "--app", "gedit"]) == ("desktop.windows", {"app": "gedit"})
    assert parse(["desktop", "launch", "--no-wait", "--", "app", "--flag"]) == (
        "desktop.launch",
        {"argv": ["app", "--flag"], "wait": False},
    )
    for argv in (["desktop", "window"], ["desktop", "window", "fly", "0x1"]):
        with pytest.raises(SteadyhandError) as info:
            parse(argv)
        assert info.value.code == "bad_request", argv
    spec = cli.load_spec()
    argv = ["desktop", "window", "--help"]
    with pytest.raises(SystemExit):
        cli.build_parser(spec, cli.relevant_commands(spec, argv)).parse_args(argv)
    shown = capsys.readouterr().out
    assert all(word in shown for word in ("focus", "move", "resize", "close")), shown


def test_clipboard_text_is_secret_in_params_and_result() -> None:
    assert COMMANDS["desktop.clipboard.set"].sensitive == ("text",)
    assert COMMANDS["desktop.clipboard.get"].sensitive_result == ("text",)
    assert COMMANDS["desktop.windows"].sensitive_result == ()
