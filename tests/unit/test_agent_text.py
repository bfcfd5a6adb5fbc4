"""The agent's-eye suite's reader (tests/agent/text.py, agent.py): one parser for
steadyhand's snapshot text and Playwright's AI-mode aria snapshot, and how a solver finds
the control that goes with a text."""

from __future__ import annotations

import pytest

from tests.agent.agent import Agent, Stuck
from tests.agent.text import parse

STEADYHAND = "\n".join(
    [
        '- heading "Flights" [level=1]',
        "- group:",
        "  - text: Departs 08:10",
        '  - button "Book for $1520" [ref=e1]',
        "- group:",
        "  - text: Departs 22:05",
        '  - button "Book for $1390" [ref=e2]',
        "- table [ref=e3] (2 rows):",
        "  - header: Name | Actions",
        '  - row [ref=e4]: Ada | button "Edit" [ref=e5]',
        '- textbox "Last name" [named-by=text] [ref=e6]: Hop',
        '- generic "May 24, 2026" [ref=e7]',
        "- listitem [ref=e8] [draggable]: Card",
    ]
)
PLAYWRIGHT = "\n".join(
    [
        "- generic [active] [ref=e1]:",
        '  - heading "Flights" [level=1] [ref=e2]',
        "  - generic [ref=e3]:",
        "    - generic [ref=e4]: Departs 08:10",
        '    - button "Book for $1520" [ref=e5] [cursor=pointer]',
        "  - generic [ref=e6]:",
        '    - generic [ref=e7]: "Departs 22:05"',
        '    - button "Book for $1390" [ref=e8] [cursor=pointer]',
        '  - link "Help" [ref=e9] [cursor=pointer]:',
        "    - /url: /help",
        """  - 'button "GET /users/{name}" [ref=e10] [cursor=pointer]':""",
        """  - 'generic "It''s: here" [ref=e11]': a value""",
    ]
)


class Reader:
    """A driver that only ever shows one text (the solver's reading, not its acts)."""

    name = "reader"

    def __init__(self, text: str) -> None:
        self.text = text

    def snapshot(self) -> str:
        return self.text


def agent_on(text: str) -> Agent:
    agent = Agent(Reader(text))  # type: ignore[arg-type]
    agent.look()
    return agent


@pytest.mark.parametrize("text", [STEADYHAND, PLAYWRIGHT], ids=["steadyhand", "playwright"])
def test_the_control_that_goes_with_a_text(text: str) -> None:
    agent = agent_on(text)
    late = agent.find("Book", ("button",), exact=False, near="Departs 22:05")
    assert late.name == "Book for $1390"
    with pytest.raises(Stuck, match="2 elements fit"):
        agent.find("Book", ("button",), exact=False)


def test_items_inline_in_a_row_and_values() -> None:
    snapshot = parse(STEADYHAND)
    found = {(e.role, e.label, e.ref) for e in snapshot.elements if e.ref}
    assert ("button", "Edit", "e5") in found, "a cell's control, written inside its row's line"
    assert ("row", 'Ada | button "Edit" [ref=e5]', "e4") in found
    assert ("textbox", "Last name", "e6") in found
    field = next(e for e in snapshot.elements if e.ref == "e6")
    assert field.text == "Hop" and field.attrs["named-by"] == "text"
    card = next(e for e in snapshot.elements if e.ref == "e8")
    assert (card.label, "draggable" in card.attrs) == ("Card", True)


def test_playwright_quoted_values_and_properties() -> None:
    snapshot = parse(PLAYWRIGHT)
    departs = [e for e in snapshot.elements if e.text == "Departs 22:05"]
    assert len(departs) == 1, "a quoted value is read as its text"
    help_link = next(e for e in snapshot.elements if e.role == "link")
    assert (help_link.name, help_link.ref) == ("Help", "e9")
    assert not [e for e in snapshot.elements if e.role.startswith("/")], "/url is no element"


def test_keys_yaml_quotes_are_read() -> None:
    snapshot = parse(PLAYWRIGHT)
    get = next(e for e in snapshot.elements if e.ref == "e10")
    assert (get.role, get.name) == ("button", "GET /users/{name}")
    quoted = next(e for e in snapshot.elements if e.ref == "e11")
    assert (quoted.name, quoted.text) == ("It's: here", "a value")
