"""The documentation: README as a front door, the site's reference pages in step with the
tables they are written from, and every relative link landing on a file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from steadyhand.commands import COMMANDS
from steadyhand.errors import error_table
from steadyhand.fronts.docs_pages import PAGES, anchor, settings_table

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_reference_page_is_what_the_tables_write(name: str) -> None:
    committed = (DOCS / "reference" / name).read_text()
    assert committed == PAGES[name](), f"run `make docs` and commit docs/reference/{name}"


def test_the_reference_pages_hold_every_command_setting_and_code() -> None:
    commands = (DOCS / "reference" / "commands.md").read_text()
    for name in COMMANDS:
        assert f"\n## `{name}`\n" in commands and f"(#{anchor(name)})" in commands, name
    assert settings_table() in (DOCS / "reference" / "settings.md").read_text()
    assert error_table() in (DOCS / "reference" / "errors.md").read_text()


def test_the_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 300, "the guide and the reference belong in docs/"
    assert {"## Two commands", "## Documentation"} <= set(lines)


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))], ids=str)
def test_every_relative_link_lands_on_a_file(page: Path) -> None:
    for target in LINK.findall(page.read_text()):
        if "://" in target or target.startswith(("#", "mailto:")):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.exists(), f"{page.relative_to(ROOT)} links to {target}, which is missing"
