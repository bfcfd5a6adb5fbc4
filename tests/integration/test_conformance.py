"""Roles and names of the page model agree with Chromium's own accessibility tree.

On every fixture page, the (role, name) pairs of the elements both expose are compared as
multisets against CDP `Accessibility.getFullAXTree`. Differences the model makes on purpose
are listed in EXPLAINED with the reason; anything else fails the test, listed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, sync_playwright

from steadyhand.engine.chromium import BASE_ARGS, find_chromium
from steadyhand.snapshot.page_model import READ_JS, script

pytestmark = pytest.mark.integration

PAGES = (
    "form.html",
    "people.html",
    "frames.html",
    "consent.html",
    "secrets.html",
    "big-table.html",
    "widgets/datepicker.html",
    "widgets/icons.html",
    "widgets/listeners.html",
    "widgets/shadow-checkbox.html",
    "widgets/sliders.html",
    "widgets/table-cells.html",
    "widgets/editor.html",
    "widgets/sortable.html",
    "patterns/labels.html",
    "patterns/accordion.html",
    "patterns/groups.html",
    "patterns/class-icons.html",
    "patterns/slider.html",
    "patterns/text.html",
    "patterns/autocomplete.html",
)
# Chromium's roles for what is not an element a person reads as one, and roles the model
# folds into the text around them (as Playwright's snapshot does).
NOT_ELEMENTS = frozenset(
    {"none", "generic", "StaticText", "InlineTextBox", "LineBreak", "RootWebArea", "document"}
)
# Role of Chromium's tree -> why the model shows it differently.
EXPLAINED = {
    "LabelText": "a <label> is not a node: its text names its control and is shown as text",
    "Legend": "a legend is shown as its text (it names its group)",
    "legend": "a legend is shown as its text (it names its group)",
    "MenuListPopup": "a <select>'s popup: the model shows the combobox and its options",
    "strong": "inline text-level elements are folded into their text",
    "emphasis": "inline text-level elements are folded into their text",
    "code": "inline text-level elements are folded into their text",
    "time": "inline text-level elements are folded into their text",
    "Abbr": "inline text-level elements are folded into their text",
    "mark": "inline text-level elements are folded into their text",
    "subscript": "inline text-level elements are folded into their text",
    "superscript": "inline text-level elements are folded into their text",
    "insertion": "inline text-level elements are folded into their text",
    "deletion": "inline text-level elements are folded into their text",
    "Iframe": "frames are compared page by page: the iframe node is the model's 'iframe'",
    "iframe": "frames are compared page by page: the iframe node is the model's 'iframe'",
    "Canvas": "a canvas without content is nothing a person can act on",
    "ListMarker": "list bullets are decoration",
    "image": "an unnamed decorative image: Chromium's tree keeps it, the model drops it",
    "rowgroup": "row groups are folded: rows are shown under their table",
}


PRIVATE_USE = re.compile("[\ue000-\uf8ff]")


def plain(name: str) -> str:
    """A name as a person reads it: whitespace squashed, icon-font glyphs dropped."""
    return " ".join(PRIVATE_USE.sub("", name).split())


# Single elements shown differently on purpose, with why.
EXPLAINED_ELEMENTS = {
    ("img", "key icon"): "an image inside a field's <label>: Chromium folds the label into "
    "the field's name and shows none of its content; the model (like Playwright) keeps it",
}


def model_pairs(page: Page) -> Counter[tuple[str, str]]:
    data = json.loads(page.evaluate(READ_JS, True))
    pairs: Counter[tuple[str, str]] = Counter()
    for node in _walk(data["tree"]):
        role = str(node["r"])
        if role in NOT_ELEMENTS or role in EXPLAINED:
            continue
        if node.get("g"):
            # A role the model gives on purpose where Chromium's tree has a generic: a
            # wrapper kept as a group (one of several like boxes holding a control and the
            # text that goes with it), a slider's handle drawn without ARIA, a block of an
            # editor shown as its paragraph.
            continue
        # A name the model derived (from an icon class, a title behind a glyph, the only
        # control of a labelled group) is one Chromium does not have: compared unnamed.
        derived = "named-by" in (node.get("a") or {})
        pair = (role, "" if derived else plain(str(node.get("n", ""))))
        if pair not in EXPLAINED_ELEMENTS:
            pairs[pair] += 1
    return pairs


def _walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("c", ()):
        if isinstance(child, dict):
            yield from _walk(child)


def chromium_pairs(page: Page) -> Counter[tuple[str, str]]:
    cdp = page.context.new_cdp_session(page)
    try:
        tree = cdp.send("Accessibility.getFullAXTree")
    finally:
        cdp.detach()
    nodes = tree["nodes"]
    editable = {n["nodeId"] for n in nodes if _property(n, "editable") == "richtext"}
    pairs: Counter[tuple[str, str]] = Counter()
    for node in nodes:
        if node.get("ignored"):
            continue
        role = str((node.get("role") or {}).get("value", ""))
        name = plain(str((node.get("name") or {}).get("value", "")))
        if node["nodeId"] in editable:
            # A contenteditable region: the model shows its root as a multi-line textbox
            # holding its text, and nothing inside it as nodes.
            if node.get("parentId") not in editable:
                pairs[("textbox", name)] += 1
            continue
        if role in NOT_ELEMENTS or role in EXPLAINED:
            continue
        if role == "paragraph" and not node.get("childIds"):
            continue  # an empty paragraph (a status line not filled yet) shows nothing
        pairs[(role, name)] += 1
    return pairs


def _property(node: dict[str, Any], wanted: str) -> Any:
    for prop in node.get("properties", ()):
        if prop.get("name") == wanted:
            return (prop.get("value") or {}).get("value")
    return None


def settled_pairs(page: Page, tries: int = 20) -> tuple[Counter[tuple[str, str]], ...]:
    """Both readings of a page that has stopped changing.

    A page may still be rendering after `load` (the consent library opens its modal from a
    timer), so one reading could see the modal and the other not. Read ours, Chromium's and
    ours again, and compare only when the two readings of ours agree.
    """
    for _ in range(tries):
        ours, chromium = model_pairs(page), chromium_pairs(page)
        if model_pairs(page) == ours:
            return ours, chromium
        page.wait_for_timeout(100)
    raise AssertionError(f"the page kept changing over {tries} readings")


def unexplained(page: Page) -> list[str]:
    ours, chromium = settled_pairs(page)
    out = [f"only Chromium: {r} {n!r} x{c}" for (r, n), c in (chromium - ours).items()]
    out += [f"only the model: {r} {n!r} x{c}" for (r, n), c in (ours - chromium).items()]
    return sorted(out)


@pytest.fixture(scope="module")
def browser_page() -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(find_chromium()), args=[*BASE_ARGS, "--no-sandbox"]
        )
        page = browser.new_page()
        page.add_init_script(script())
        yield page
        browser.close()


@pytest.mark.parametrize("path", PAGES)
def test_roles_and_names_agree_with_chromium(browser_page: Page, site: str, path: str) -> None:
    browser_page.goto(f"{site}/{path}")
    browser_page.wait_for_load_state("load")
    found = unexplained(browser_page)
    assert not found, f"{len(found)} unexplained disagreements on {path}:\n" + "\n".join(found)
