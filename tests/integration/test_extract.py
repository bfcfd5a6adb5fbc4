"""extract: text, attributes, tables and Markdown, read from real pages in Chromium."""

from __future__ import annotations

import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon

pytestmark = pytest.mark.integration


def test_markdown_of_the_whole_page(daemon: Daemon, site: str) -> None:
    s = "md"
    daemon.call("open", session=s, url=f"{site}/extract.html")
    done = daemon.call("extract", session=s, kind="markdown")
    md = done["text"]
    assert done["kind"] == "markdown" and done["matched"] == 1 and not done["truncated"]
    assert md.startswith("# Release notes\n\n")
    assert (
        f"Version **2.0** is *out*. Read the [upgrade guide]({site}/nav-b.html?from=notes) "
        "or call `upgrade()`." in md
    ), "inline marks, and links made absolute"
    assert "\n## Changes\n" in md
    assert f"- Faster [people]({site}/people.html) page\n- Fixes\n  1. Crash on start\n" in md
    assert "> Quoted line" in md
    assert '```python\ndef hello():\n    return "world"\n```' in md
    assert f"![Logo]({site}/logo.png)" in md
    assert (
        "| Plan | Price / Monthly | Price / Yearly |\n| --- | --- | --- |\n"
        "| Basic | $5 | $50 |\n| Pro \\| Team | $10 | $100 |" in md
    )
    assert "[A](https://example.com/a)" in md and "Nowhere" in md and "javascript:" not in md
    for hidden in ("Hidden paragraph", "Also hidden", "Secret plan", "do not show me", "color:"):
        assert hidden not in md, hidden
    assert "hunter2" not in md, "form control values are never read out"


def test_text_of_page_element_and_selector(daemon: Daemon, site: str) -> None:
    s = "text"
    daemon.call("open", session=s, url=f"{site}/extract.html")
    whole = daemon.call("extract", session=s, kind="text")["text"]
    assert "Release notes" in whole and "Hidden paragraph" not in whole
    page = daemon.snapshot(s)
    ref = find_ref(page, "list", "")
    by_ref = daemon.call("extract", session=s, kind="text", ref=ref)
    assert by_ref["text"] == "Faster people page\nFixes\nCrash on start\nTypo in menu"
    assert by_ref["matched"] == 1
    several = daemon.call("extract", session=s, kind="text", selector="a.ext")
    assert several["text"] == "A\n\nB" and several["matched"] == 2


def test_attr_single_several_and_masked(daemon: Daemon, site: str) -> None:
    s = "attr"
    daemon.call("open", session=s, url=f"{site}/extract.html")
    links = daemon.call("extract", session=s, kind="attr", selector="a.ext", name="href")
    assert links["values"] == ["https://example.com/a", "https://example.com/b"]
    assert links["value"] is None and links["matched"] == 2
    kinds = daemon.call("extract", session=s, kind="attr", selector="a.ext", name="data-kind")
    assert kinds["values"] == ["ext", None] and kinds["text"] == "ext\n(none)"
    ref = find_ref(daemon.snapshot(s), "link", "upgrade guide")
    one = daemon.call("extract", session=s, kind="attr", ref=ref, name="href")
    assert one["value"] == "nav-b.html?from=notes" and one["values"] == [one["value"]]
    pw = daemon.call("extract", session=s, kind="attr", selector="#pw", name="value")
    assert pw["value"] == "••••••", "a password field's value is masked, as in snapshots"


def test_tables_colspan_rowheaders_hidden_rows_and_aria_grids(daemon: Daemon, site: str) -> None:
    s = "tables"
    daemon.call("open", session=s, url=f"{site}/extract.html")
    first = daemon.call("extract", session=s, kind="table")
    assert first["headers"] == ["Plan", "Price / Monthly", "Price / Yearly"]
    assert first["rows"] == [
        {"Plan": "Basic", "Price / Monthly": "$5", "Price / Yearly": "$50"},
        {"Plan": "Pro | Team", "Price / Monthly": "$10", "Price / Yearly": "$100"},
        {"Plan": "All prices exclude tax", "Price / Monthly": "", "Price / Yearly": ""},
    ], "row headers are cells; a hidden row is skipped; a spanning cell fills its first column"
    assert first["rows_total"] == 3 and first["text"].startswith("| Plan |")
    no_head = daemon.call("extract", session=s, kind="table", selector="#no-head")
    assert no_head["headers"] == ["Name", "Name (2)", "column 3"]
    assert no_head["rows"] == [{"Name": "Ada", "Name (2)": "Lovelace", "column 3": "1815"}]
    grid = daemon.call("extract", session=s, kind="table", selector="#aria-grid")
    assert grid["rows"] == [{"City": "Paris", "Country": "France"}]
    # A scope holding a table reads the first table in it.
    around = daemon.call("extract", session=s, kind="table", selector="#plain")
    assert around["headers"] == no_head["headers"]
    none = daemon.fail("extract", session=s, kind="table", selector="h1")
    assert none.code == "not_found" and "no table" in none.message


def test_output_is_cut_with_a_note(daemon: Daemon, site: str) -> None:
    s = "cut"
    daemon.call("open", session=s, url=f"{site}/big-table.html")
    text = daemon.call("extract", session=s, kind="text", max_chars=500)
    assert text["truncated"] and text["chars"] > 500
    body, note = text["text"][:500], text["text"][500:]
    assert len(body) == 500 and "more characters" in note and "--selector" in note
    table = daemon.call("extract", session=s, kind="table", max_chars=2_000)
    assert table["truncated"] and 0 < len(table["rows"]) < table["rows_total"]
    assert "more characters" in table["text"]


def test_bad_extract_requests_leave_the_session_usable(daemon: Daemon, site: str) -> None:
    s = "extract-bad"
    daemon.call("open", session=s, url=f"{site}/extract.html")
    no_name = daemon.fail("extract", session=s, kind="attr", selector="a")
    assert no_name.code == "bad_request" and "--name" in no_name.message and no_name.hint
    page_attr = daemon.fail("extract", session=s, kind="attr", name="href")
    assert page_attr.code == "bad_request" and "--ref or --selector" in page_attr.message
    stray = daemon.fail("extract", session=s, kind="text", name="href")
    assert stray.code == "bad_request"
    both = daemon.fail("extract", session=s, kind="text", ref="e1", selector="a")
    assert both.code == "bad_request"
    kind = daemon.fail("extract", session=s, kind="html")
    assert kind.code == "bad_request"
    invalid = daemon.fail("extract", session=s, kind="text", selector="##nope")
    assert invalid.code == "bad_request" and "not a valid selector" in invalid.message
    missing = daemon.fail("extract", session=s, kind="text", selector="#nothing-here")
    assert missing.code == "not_found"
    unknown_ref = daemon.fail("extract", session=s, kind="text", ref="e999")
    assert unknown_ref.code == "not_found"
    assert daemon.call("extract", session=s, kind="text", selector="h1")["text"] == "Release notes"


def test_extract_from_the_cli(daemon: Daemon, site: str) -> None:
    s = "extract-cli"
    daemon.call("open", session=s, url=f"{site}/extract.html")
    run = daemon.cli("extract", "table", "--selector", "#aria-grid", "--session", s)
    assert run.rc == 0, run.err
    assert "| City | Country |" in run.out
    bad = daemon.cli("extract", "attr", "--selector", "a", "--session", s, "--json")
    assert bad.rc == 2 and bad.json["error"]["code"] == "bad_request"
