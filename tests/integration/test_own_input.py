"""steadyhand's own input path (act/own_input.py): one check in the page, CDP input, a
guard that stops a click a late cover would take, and Playwright's path where the check
cannot be sure. Real Chromium on tests/fixtures/site/gauntlet/own-input.html."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon

pytestmark = pytest.mark.integration

PAGE = "gauntlet/own-input.html"


def opened(daemon: Daemon, site: str, session: str) -> str:
    daemon.call("open", session=session, url=f"{site}/{PAGE}")
    return daemon.snapshot(session)


def test_a_cover_raised_as_the_pointer_comes_gets_no_click(daemon: Daemon, site: str) -> None:
    """The veil goes up when the pointer reaches "Pay", after the check and before the press:
    the guard stops the click before the veil sees it, and a later try clicks "Pay" once."""
    s = "own-veil"
    page = opened(daemon, site, s)
    done = daemon.call("click", session=s, ref=find_ref(page, "button", "Pay"))
    assert done["retries"] >= 1, done
    after = daemon.snapshot(s)
    assert "paid: 1" in after and "veil clicked: 0" in after, after


@pytest.mark.parametrize("how", ["timer", "frame", "message"])
def test_what_a_click_causes_a_moment_later_is_in_its_changes(
    daemon: Daemon, site: str, how: str
) -> None:
    """Settling ends at once only when the page queued nothing: an effect in a timer, an
    animation frame or a posted message is waited for and reported."""
    s = f"own-later-{how}"
    page = opened(daemon, site, s)
    done = daemon.call("click", session=s, ref=find_ref(page, "button", f"Later by {how}"))
    assert done["route"] == "cdp", done
    assert f"done by {how}" in done["changes"], done["changes"]


def test_modifiers_and_click_count_reach_the_page(daemon: Daemon, site: str) -> None:
    s = "own-mods"
    page = opened(daemon, site, s)
    ref = find_ref(page, "button", "Modifiers")
    done = daemon.call("click", session=s, ref=ref, modifiers=["Shift", "Alt"], count=2)
    assert done["route"] == "cdp", done
    assert "shiftKey altKey x2" in daemon.snapshot(s)


@pytest.mark.parametrize(
    ("button", "route", "shown"),
    [
        ("Far below", "cdp", "far clicked"),  # out of view: scrolled to, then clicked
        ("Framed", "playwright: frame", "framed clicked"),  # Playwright's path, said so
    ],
)
def test_a_click_goes_by_its_route_and_reaches_the_page(
    daemon: Daemon, site: str, button: str, route: str, shown: str
) -> None:
    s = f"own-{button.split(maxsplit=1)[0].lower()}"
    page = opened(daemon, site, s)
    done = daemon.call("click", session=s, ref=find_ref(page, "button", button))
    assert done["route"] == route, done
    assert shown in daemon.snapshot(s)


def test_a_field_under_a_cover_in_a_button_is_not_clicked(daemon: Daemon, site: str) -> None:
    """The checkbox sits in a row that is a button, under a span: the click would reach
    the row, not the checkbox. Not a success: the cover is named, nothing is clicked."""
    s = "own-row"
    page = opened(daemon, site, s)
    err = daemon.fail("click", session=s, ref=find_ref(page, "checkbox", "Tick"), timeout="3s")
    assert err.code == "not_actionable" and "covered" in err.message, err.message
    after = daemon.snapshot(s)
    assert "row not clicked" in after and 'checkbox "Tick" [ref' in after, after
    assert "[checked]" not in after.split('checkbox "Tick"')[1].splitlines()[0], after


def test_the_page_keeps_its_own_message_channel(daemon: Daemon, site: str) -> None:
    """The page model counts messages a page posts to itself; the page's MessageChannel
    still behaves as the browser's: `new` required, subclassable, instanceof."""
    s = "own-channel"
    opened(daemon, site, s)
    probe = """() => {
      class Mine extends MessageChannel { hello() { return 'hi'; } }
      const mine = new Mine();
      let needsNew = false;
      try { MessageChannel(); } catch (err) { needsNew = err instanceof TypeError; }
      return [mine.hello(), mine instanceof MessageChannel, mine.port1 instanceof MessagePort,
              needsNew, new MessageChannel().constructor === MessageChannel];
    }"""
    got = daemon.call("evaluate", session=s, expression=probe)["value"]
    assert got == ["hi", True, True, True, True], got


def test_a_file_input_takes_playwrights_path(daemon: Daemon, site: str) -> None:
    """A chooser is Playwright's to meet (`upload` sets the files): the rule says so."""
    s = "own-file"
    page = opened(daemon, site, s)
    done = daemon.call("click", session=s, ref=find_ref(page, "button", "Attachment"))
    assert done["route"] == "playwright: file input", done


def test_type_goes_in_as_one_insert_and_is_read_back(daemon: Daemon, site: str) -> None:
    s = "own-type"
    page = opened(daemon, site, s)
    done = daemon.call("type", session=s, ref=find_ref(page, "textbox", "Quantity"), text="12")
    assert done["route"] == "cdp", done
    assert 'textbox "Quantity"' in done["changes"] and "12" in done["changes"], done["changes"]


class SlowPost(http.server.BaseHTTPRequestHandler):
    """A form whose POST is answered after DELAY_S (a slow server behind a submit)."""

    DELAY_S = 0.4

    def do_GET(self) -> None:
        self.reply(
            b'<title>Form</title><form method=post action="/slow"><button>Send</button></form>'
        )

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(self.DELAY_S)
        self.reply(b"<title>Landed</title><h1>Landed</h1>")

    def reply(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_submit_to_a_slow_server_is_waited_for_and_reported(daemon: Daemon) -> None:
    """The click's own handler returns at once, but the document is on its way out: the
    result reports the page the submission led to, not the form it left."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowPost)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        s = "own-submit"
        daemon.call("open", session=s, url=f"http://127.0.0.1:{server.server_address[1]}/")
        done = daemon.call("click", session=s, ref=find_ref(daemon.snapshot(s), "button", "Send"))
        assert done["url"].endswith("/slow") and done["title"] == "Landed", str(done)
        assert "Landed" in (done["changes"] or ""), done
    finally:
        server.shutdown()
