"""SKILL.md teaches only commands the CLI accepts, and every error code it can meet."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from steadyhand.errors import ErrorCode
from steadyhand.fronts.cli.main import FRONTS, build_parser, load_spec, relevant_commands

SKILL = Path(__file__).parents[2] / "SKILL.md"


def _taught_commands() -> list[str]:
    text = SKILL.read_text()
    spans = re.findall(r"`(steadyhand [^`]+)`", text)
    blocks = re.findall(r"^(steadyhand .+?)(?:\s+#.*)?$", text, flags=re.MULTILINE)
    return [re.sub(r"\s+", " ", c).strip() for c in spans + blocks]


def test_the_skill_has_front_matter_with_a_name_and_description() -> None:
    head = SKILL.read_text().split("---")[1]
    assert re.search(r"^name: steadyhand$", head, flags=re.MULTILINE)
    assert "description:" in head


@pytest.mark.parametrize("line", _taught_commands())
def test_every_command_line_in_the_skill_parses(line: str) -> None:
    argv = shlex.split(line.replace("$", ""))[1:]
    if argv[0] in FRONTS:
        return
    spec = load_spec()
    build_parser(spec, relevant_commands(spec, argv)).parse_args(argv)


def test_the_error_table_covers_the_codes_an_agent_meets() -> None:
    text = SKILL.read_text()
    not_for_agents = {ErrorCode.UNKNOWN_COMMAND, ErrorCode.INTERNAL, ErrorCode.BAD_REQUEST}
    not_for_agents |= {ErrorCode.INVALID_URL, ErrorCode.BROWSER_NOT_FOUND}
    not_for_agents |= {ErrorCode.DAEMON_UNAVAILABLE, ErrorCode.ACTION_FAILED}
    missing = [c for c in ErrorCode if c not in not_for_agents and f"`{c}`" not in text]
    assert not missing
