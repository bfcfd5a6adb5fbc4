"""The approval gate without gaps: acts that submit a form, keys that click, a fill that
types the decision, and a navigation a page makes by itself to an approval_domains host.
Real daemon, real Chromium, pages on 127.0.0.1 (and `localhost`, the listed domain).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, wait_until
from tests.integration.test_approvals import denial, in_background, pending_for, start

pytestmark = pytest.mark.integration

PAGE = "approval-forms.html"


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    handle = start(
        tmp_path_factory,
        approval_names="place order|delete",
        approval_domains="localhost",
        approval_timeout_s=60,
    )
    yield handle
    handle.stop()


def done_text(d: Daemon, session: str) -> str:
    match = re.search(r"Done so far: (.*)", d.snapshot(session))
    assert match, "the fixture page shows what it has done"
    return match.group(1)


def open_forms(d: Daemon, session: str, site: str, query: str = "") -> str:
    d.call("open", session=session, url=f"{site}/{PAGE}{query}")
    return d.snapshot(session)


def test_submitting_an_order_form_waits_for_a_person(gated: Daemon, site: str) -> None:
    s = "gap-submit"
    qty = find_ref(open_forms(gated, s, site), "textbox", "Quantity")
    typing = in_background(gated, "type", session=s, ref=qty, text="2", submit=True)
    pending = pending_for(gated, s, "type")
    assert "'Place order'" in pending["reason"] and "approval_names" in pending["reason"]
    assert gated.cli("deny", pending["id"]).rc == 0
    denial(typing)
    assert done_text(gated, s) == "nothing"

    gated.call("type", session=s, ref=qty, text="3")  # typing alone submits nothing
    pressing = in_background(gated, "press", session=s, key="Enter", ref=qty)
    pending = pending_for(gated, s, "press")
    assert "submits a form" in pending["reason"]
    assert gated.cli("approve", pending["id"]).rc == 0
    assert pressing.result(timeout=60)["approval"]["id"] == pending["id"]
    assert done_text(gated, s) == "bought 3"


def test_a_form_that_decides_nothing_is_not_gated(gated: Daemon, site: str) -> None:
    s = "gap-search"
    query = find_ref(open_forms(gated, s, site), "textbox", "Search")
    done = gated.call("type", session=s, ref=query, text="cats", submit=True)
    assert "approval" not in done
    assert done_text(gated, s) == "searched cats"


def test_space_on_the_focused_delete_button_is_a_click_on_it(gated: Daemon, site: str) -> None:
    s = "gap-space"
    open_forms(gated, s, site)
    gated.call("evaluate", session=s, expression="document.getElementById('remove').focus()")
    pressing = in_background(gated, "press", session=s, key="Space")
    pending = pending_for(gated, s, "press")
    assert pending["target"] == 'the focused button (button "Delete")'
    assert gated.cli("deny", pending["id"]).rc == 0
    denial(pressing)
    assert done_text(gated, s) == "nothing"


def test_fill_typing_the_decisive_word_is_gated(gated: Daemon, site: str) -> None:
    s = "gap-fill"
    box = find_ref(open_forms(gated, s, site), "textbox", "Type the word to confirm")
    filling = in_background(gated, "fill", session=s, fields={box: "DELETE"})
    pending = pending_for(gated, s, "fill")
    assert "the value matches approval_names" in pending["reason"]
    assert "DELETE" not in str(pending["params"]), "typed values stay out of the request"
    assert gated.cli("deny", pending["id"]).rc == 0
    denial(filling)
    assert done_text(gated, s) == "nothing"


def test_a_page_going_to_a_listed_domain_by_itself_is_held(
    gated: Daemon, site: str, cross_site: str
) -> None:
    """The click on "See offers" is not gated (its name matches nothing, it is no link);
    the page's own navigation to localhost waits at the connection for a person."""
    s = "gap-script"
    page = open_forms(gated, s, site, f"?partner={cross_site}")
    offers = find_ref(page, "button", "See offers")
    clicking = in_background(gated, "click", session=s, ref=offers)
    pending = pending_for(gated, s, "navigation")
    assert pending["target"] == "localhost" and "approval_domains" in pending["reason"]
    assert gated.call("tabs", session=s)["tabs"][0]["url"].startswith(site), "held, not gone"
    assert gated.cli("deny", pending["id"]).rc == 0
    clicking.exception(timeout=60)  # a refusal once the tab shows it (or done before)

    def refused() -> bool:
        return "rule approval" in gated.snapshot(s)

    assert wait_until(refused), gated.snapshot(s)
    assert "Page A" not in gated.snapshot(s)

    gated.call("back", session=s)
    offers = find_ref(gated.snapshot(s), "button", "See offers")
    clicking = in_background(gated, "click", session=s, ref=offers)
    pending = pending_for(gated, s, "navigation")
    # The click does not wait for the person: its result says what is held, and where.
    clicked = clicking.result(timeout=60)
    assert clicked["held"] == ["localhost"] and clicked["url"].startswith(site)
    assert gated.cli("approve", pending["id"]).rc == 0
    assert wait_until(lambda: "Page A" in gated.snapshot(s)), gated.snapshot(s)
    # Approved once for the session: the next visit does not ask again.
    gated.call("navigate", session=s, url=f"{site}/{PAGE}?partner={cross_site}")
    gated.call("click", session=s, ref=find_ref(gated.snapshot(s), "button", "See offers"))
    assert wait_until(lambda: "Page A" in gated.snapshot(s))
