"""Every desktop action says how it knows it worked (its effect) and the route it took, on
the real GTK 3 and Qt 6 forms (`--effects`: Nothing does nothing, Send is disabled, Code
upper-cases what it is given, PIN hides its text)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from steadyhand.desktop.session import DesktopSession
from tests.conftest import Daemon
from tests.desktop_env import gtk3_form, launched, qt6_form, wait_on_bus
from tests.integration.test_desktop import ref_of

pytestmark = pytest.mark.integration


@pytest.fixture(params=["gtk3", "qt6"])
def form(request: pytest.FixtureRequest, desktop: DesktopSession) -> Iterator[tuple[str, int]]:
    argv = (gtk3_form if request.param == "gtk3" else qt6_form)("--effects")
    with launched(desktop, argv) as app:
        wait_on_bus(desktop, app.pid, "push button", "Nothing")
        yield request.param, app.pid


def page_of(d: Daemon, pid: int) -> str:
    text: str = d.call("desktop.snapshot", app=str(pid), fresh=True)["snapshot"]
    return text


def test_each_effect_kind(desktop_daemon: Daemon, form: tuple[str, int]) -> None:
    d, (_toolkit, pid) = desktop_daemon, form
    page = page_of(d, pid)
    greet, nothing = ref_of(page, "push button", "Greet"), ref_of(page, "push button", "Nothing")
    name, code = ref_of(page, "text", "Name"), ref_of(page, "text", "Code")
    pin, send = ref_of(page, "password text", "PIN"), ref_of(page, "push button", "Send")
    subscribe = ref_of(page, "check box", "Subscribe")

    # confirmed: what the action was for reads back ...
    typed = d.call("desktop.type", ref=name, text="Ada")
    assert (typed["effect"], typed["transport"], typed["value"]) == ("confirmed", "atspi", "Ada")
    assert typed["verified"] and "reads back" in typed["evidence"]
    toggled = d.call("desktop.click", ref=subscribe)
    assert toggled["effect"] == "confirmed" and "checked" in toggled["states"]
    # ... or, for a button with nothing of its own to read back, the app's tree changed
    greeted = d.call("desktop.click", ref=greet)
    assert greeted["effect"] == "confirmed" and greeted["transport"] == "atspi"
    assert "the application changed: " in greeted["evidence"]
    assert 'label "hello Ada"' in page_of(d, pid)

    # partial: the field took the input, not as given: no second input is sent
    reformed = d.call("desktop.type", ref=code, text="abc")
    assert reformed["effect"] == "partial" and reformed["value"] == "ABC"
    assert not reformed["verified"] and reformed["tried"] == []

    # unverifiable: a password field shows dots, whatever was typed
    hidden = d.call("desktop.type", ref=pin, text="1234")
    assert hidden["effect"] == "unverifiable" and hidden["transport"] == "atspi"
    assert "hides its text" in hidden["evidence"]

    # suspected_noop: a button that does nothing is an error ...
    err = d.fail("desktop.click", ref=nothing)
    assert err.code == "verification_failed"
    assert err.data["effect"] == "suspected_noop" and err.data["route"] == "atspi"
    assert "--allow-noop" in (err.hint or "")
    # ... unless the caller allows it: then the result says so
    allowed = d.call("desktop.click", ref=nothing, allow_noop=True)
    assert allowed["effect"] == "suspected_noop" and not allowed["verified"]

    # refused: a disabled button is not sent anything
    refused = d.fail("desktop.click", ref=send)
    assert refused.code == "not_actionable" and refused.data["effect"] == "refused"
    assert "disabled" in refused.message
    assert re.search(r'push button "Send" \[disabled\]', page_of(d, pid))

    # keys: a key with nothing to do changes nothing; typed into a field, it confirms
    assert d.fail("desktop.press", keys="shift").data["effect"] == "suspected_noop"
    # an element that does not take the focus gets no keys
    pad = re.search(r'(?:panel|filler) "Click pad" \[ref=(d\d+)\]', page)
    assert pad is not None, page
    unfocused = d.fail("desktop.press", keys="z", ref=pad.group(1))
    assert unfocused.code == "not_actionable" and unfocused.data["effect"] == "refused"
    pressed = d.call("desktop.press", keys="x", ref=name)
    assert pressed["effect"] == "confirmed", (pressed, page_of(d, pid))
    assert re.search(r'text "Name" [^\n]*: (Ada)?x\n', page_of(d, pid))  # GTK selects all
    d.call("daemon.status")  # and the daemon lives on
