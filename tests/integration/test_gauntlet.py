"""The flaky-page gauntlet: pages that misbehave the way real sites do, and the action
engine getting through them (or saying exactly why not) within its deadline."""

from __future__ import annotations

import http.server
import threading
import time
from pathlib import Path

import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon

pytestmark = pytest.mark.integration

G = "gauntlet"


def test_button_that_appears_late_is_waited_for_by_locator(daemon: Daemon, site: str) -> None:
    s = "late"
    daemon.call("open", session=s, url=f"{site}/{G}/late.html")
    done = daemon.call("click", session=s, ref='role=button[name="Load details"]')
    assert done["ok"] and done["ref"] == 'role=button[name="Load details"]'
    assert "details loaded" in daemon.snapshot(s)


def test_element_detached_and_reattached_mid_click_is_reresolved_and_clicked_once(
    daemon: Daemon, site: str
) -> None:
    s = "flicker"
    daemon.call("open", session=s, url=f"{site}/{G}/flicker.html")
    save = find_ref(daemon.snapshot(s), "button", "Save")
    done = daemon.call("click", session=s, ref=save)
    assert done["retries"] >= 1, done
    (new,) = done["reresolved"].values()
    assert done["reresolved"] == {save: new} and new != save
    page = daemon.snapshot(s)
    assert "saved: 1" in page, "clicked exactly once, on the fresh copy"


def test_overlay_that_lifts_is_waited_out(daemon: Daemon, site: str) -> None:
    s = "veil"
    daemon.call("open", session=s, url=f"{site}/{G}/overlay.html")
    pay = find_ref(daemon.snapshot(s), "button", "Pay")
    done = daemon.call("click", session=s, ref=pay)
    assert done["ok"] and "paid: 1" in daemon.snapshot(s)


def test_overlay_that_stays_is_named_and_nothing_is_clicked(daemon: Daemon, site: str) -> None:
    s = "veil-stays"
    daemon.call("open", session=s, url=f"{site}/{G}/overlay.html?stay")
    pay = find_ref(daemon.snapshot(s), "button", "Pay")
    started = time.monotonic()
    err = daemon.fail("click", session=s, ref=pay, timeout="4s")
    assert time.monotonic() - started < 8, "within its deadline (plus the reply)"
    assert err.code == "not_actionable"
    assert 'covered by div "Please wait"' in err.message, err.message
    assert err.data["covered_by"] == 'div "Please wait"' and err.data["retries"] >= 1
    (shot,) = err.data["artifacts"]
    assert Path(shot).read_bytes().startswith(b"\x89PNG")
    assert "paid: 0" in daemon.snapshot(s), "the covered button was never clicked"


def test_input_that_reformats_is_reported_and_one_that_rejects_fails(
    daemon: Daemon, site: str
) -> None:
    s = "formats"
    daemon.call("open", session=s, url=f"{site}/{G}/inputs.html")
    page = daemon.snapshot(s)
    phone = find_ref(page, "textbox", "Phone")
    done = daemon.call("type", session=s, ref=phone, text="5551234567")
    assert done["data"]["reformatted"] == {"typed": "5551234567", "value": "(555) 123-4567"}
    digits = find_ref(page, "textbox", "Digits only")
    err = daemon.fail("type", session=s, ref=digits, text="12ab")
    assert err.code == "verification_failed"
    assert 'holds "12" after typing "12ab"' in err.message, err.message
    assert err.data["retries"] == 1, "retried once, then the second proof of no effect ends it"
    code = find_ref(page, "textbox", "Code (4 max)")
    err = daemon.fail("fill", session=s, fields={phone: "5550000000", code: "123456"})
    assert err.code == "verification_failed"
    assert 'holds "1234" after typing "123456"' in err.message, err.message


def test_a_field_that_formats_when_left_is_reported_by_the_action_that_leaves_it(
    daemon: Daemon, site: str
) -> None:
    s = "on-leave"
    daemon.call("open", session=s, url=f"{site}/{G}/on-leave.html")
    page = daemon.snapshot(s)
    phone, late, amount, year = (
        find_ref(page, "textbox", name) for name in ("Phone", "Phone later", "Amount", "Year")
    )
    typed = {"typed": "5551234567", "value": "(555) 123-4567"}
    done = daemon.call("type", session=s, ref=phone, text="5551234567")
    assert done["data"]["reformatted"] == typed, "formatted as typed: said at once"
    done = daemon.call("type", session=s, ref=late, text="5551234567")
    # Checking never acts: the field is not left to see what leaving would do.
    assert "reformatted" not in done["data"] and "left" not in done["data"], done["data"]
    assert "left: phone" in daemon.snapshot(s), "typing into Phone later left Phone, no other"
    (line,) = [line for line in daemon.snapshot(s).splitlines() if 'textbox "Phone later"' in line]
    assert "[active]" in line and line.endswith(": 5551234567"), line
    # The next action leaves it: its result says what the page made of the value.
    done = daemon.call("type", session=s, ref=amount, text="1234567")
    assert done["data"]["left"] == {"ref": late, "how": "reformatted", **typed}
    done = daemon.call("press", session=s, key="Tab")
    assert done["data"]["left"] == {
        "ref": amount,
        "how": "reformatted",
        "typed": "1234567",
        "value": "1,234,567",
    }
    # One the page empties when left: said by the action that left it, which still ran.
    daemon.call("type", session=s, ref=year, text="24")
    done = daemon.call("click", session=s, ref=phone)
    assert done["data"]["left"] == {"ref": year, "how": "changed", "typed": "24", "value": ""}
    assert "left" not in daemon.call("press", session=s, key="Tab")["data"], "said once"
    # fill leaves each field for the next: those are read again; the last one is not left.
    done = daemon.call("fill", session=s, fields={late: "5550001111", amount: "9876"})
    assert done["data"]["reformatted"] == {
        late: {"typed": "5550001111", "value": "(555) 000-1111"}
    }, done["data"]
    err = daemon.fail("fill", session=s, fields={year: "1", late: "5551112222"})
    assert err.code == "verification_failed" and 'holds "" after typing "1"' in err.message


def test_select_whose_options_load_late(daemon: Daemon, site: str) -> None:
    s = "late-select"
    daemon.call("open", session=s, url=f"{site}/{G}/late-select.html")
    size = find_ref(daemon.snapshot(s), "combobox", "Size")
    done = daemon.call("select", session=s, ref=size, values=["Large"])
    assert done["data"] == {"selected": ["l"], "labels": ["Large"]}
    assert "chosen: l" in daemon.snapshot(s)


def test_confirm_dialog_is_reported_until_answered(daemon: Daemon, site: str) -> None:
    s = "confirm"
    daemon.call("open", session=s, url=f"{site}/{G}/dialogs.html")
    page = daemon.snapshot(s)
    done = daemon.call("click", session=s, ref=find_ref(page, "button", "Delete"))
    assert done["dialog"] == {"type": "confirm", "message": "Delete everything?", "open": True}
    blocked = daemon.fail("snapshot", session=s)
    assert blocked.code == "dialog_open" and "dialog accept" in blocked.hint
    assert blocked.data["dialog"]["message"] == "Delete everything?"
    answered = daemon.call("dialog", session=s, answer="accept")
    assert answered["answered"]["answer"] == "accepted" and answered["dialog"] is None
    assert "deleted" in daemon.snapshot(s)
    # A prompt takes text; a wrong answer shape is refused and the dialog stays open.
    daemon.call("click", session=s, ref=find_ref(page, "button", "Greet"))
    assert daemon.fail("dialog", session=s, answer="dismiss", text="x").code == "bad_request"
    daemon.call("dialog", session=s, answer="accept", text="Ada")
    assert "hello Ada" in daemon.snapshot(s)
    assert daemon.fail("dialog", session=s, answer="accept").code == "not_found"


def test_download_is_saved_and_its_path_reported(daemon: Daemon, site: str) -> None:
    s = "download"
    daemon.call("open", session=s, url=f"{site}/{G}/files.html")
    page = daemon.snapshot(s)
    done = daemon.call("download", session=s, ref=find_ref(page, "link", "Download report"))
    (saved,) = done["downloads"]
    path = Path(saved["path"])
    assert (
        path.read_bytes()
        == (Path(__file__).parents[1] / "fixtures/site/files/report.csv").read_bytes()
    )
    assert saved["bytes"] == path.stat().st_size and saved["filename"] == "report.csv"
    # By default a download is one of the session's artifacts, named after the site's name.
    assert path.parent == daemon.settings.artifacts_dir / s
    assert path.name.endswith("-download-report.csv")
    assert path.stat().st_mode & 0o777 == 0o600
    # A click that downloads says so too; a download that never starts is a failure.
    again = daemon.call("click", session=s, ref=find_ref(page, "link", "Download report"))
    second = Path(again["downloads"][0]["path"])
    assert second.name.endswith("-download-report.csv") and second != path
    err = daemon.fail("download", session=s, ref=find_ref(page, "link", "Just a page"))
    assert err.code == "verification_failed" and "no download" in err.message
    # Each download is indexed with the action that caused it (trace, report).
    actions = daemon.call("trace", name=s, last=0)["actions"]
    indexed = {
        (a["command"], f["kind"], f["path"]) for a in actions for f in a.get("artifacts", [])
    }
    assert {("download", "download", str(path)), ("click", "download", str(second))} <= indexed


def test_upload_only_from_allowed_directories(daemon: Daemon, site: str, tmp_path: Path) -> None:
    s = "upload"
    allowed = daemon.settings.state_dir / "uploads"
    allowed.mkdir(exist_ok=True)
    (allowed / "cv.txt").write_text("my cv")
    outside = tmp_path / "secret.txt"
    outside.write_text("not for the web")
    daemon.call("open", session=s, url=f"{site}/{G}/inputs.html")
    page = daemon.snapshot(s)
    attach = find_ref(page, "button", "Attach")
    done = daemon.call("upload", session=s, ref=attach, files=[str(allowed / "cv.txt")])
    assert done["data"]["files"] == ["cv.txt"] and "files: cv.txt" in daemon.snapshot(s)
    denied = daemon.fail("upload", session=s, ref=attach, files=[str(outside)])
    assert denied.code == "policy_denied" and "upload_dirs" in denied.hint
    # A symlink inside the allowed directory does not let a file outside it through.
    (allowed / "link.txt").symlink_to(outside)
    linked = daemon.fail("upload", session=s, ref=attach, files=[str(allowed / "link.txt")])
    assert linked.code == "policy_denied"
    picky = find_ref(page, "button", "Picky attach")
    err = daemon.fail("upload", session=s, ref=picky, files=[str(allowed / "cv.txt")])
    assert err.code == "verification_failed"


def test_page_that_hangs_its_main_thread(daemon: Daemon, site: str) -> None:
    s = "spin"
    daemon.call("open", session=s, url=f"{site}/{G}/spin.html")
    spin = find_ref(daemon.snapshot(s), "button", "Spin now")
    started = time.monotonic()
    err = daemon.fail("click", session=s, ref=spin, timeout="3s", changes=False)
    assert err.code == "timeout" and time.monotonic() - started < 10
    # The session goes on: a new page in a new tab works.
    daemon.call("tab.new", session=s, url=f"{site}/{G}/late.html")
    assert 'heading "Late"' in daemon.snapshot(s)
    daemon.call("tab.close", session=s, tab="t1", timeout="10s")


def test_drag_and_drop_between_columns(daemon: Daemon, site: str) -> None:
    s = "drag"
    daemon.call("open", session=s, url=f"{site}/{G}/drag.html")
    done = daemon.call(
        "drag",
        session=s,
        source='role=listitem[name="Card"]',
        target="css=#done",
        expect_text="Card: Done",
    )
    assert done["ok"] and done["data"]["target"] == "css=#done"


def test_cookie_banner_of_a_real_consent_library_is_dismissed(daemon: Daemon, site: str) -> None:
    s = "consent"
    daemon.call("open", session=s, url=f"{site}/consent.html")
    # The library shows its modal from a timer: under load, after the page has loaded.
    daemon.call("wait", session=s, text="We use cookies", timeout="10s")
    checkout = find_ref(daemon.snapshot(s), "button", "Checkout")
    done = daemon.call("click", session=s, ref=checkout)
    (dismissed,) = done["watchdog"]
    assert dismissed["kind"] == "cookie-consent" and dismissed["action"] == "clicked"
    assert dismissed["name"] == "vanilla-cookieconsent"
    page = daemon.snapshot(s)
    assert "checked out" in page and "consent: necessary" in page, "the library recorded it"


def test_watchdog_can_be_turned_off(daemon: Daemon, site: str) -> None:
    s = "consent-off"
    daemon.call("open", session=s, url=f"{site}/consent.html")
    # The library shows its modal from a timer: under load, after the page has loaded.
    daemon.call("wait", session=s, text="We use cookies", timeout="10s")
    checkout = find_ref(daemon.snapshot(s), "button", "Checkout")
    err = daemon.fail("click", session=s, ref=checkout, watchdog=False, timeout="3s")
    assert err.code == "not_actionable" and "covered by" in err.message
    assert "not checked out" in daemon.snapshot(s)


def test_newsletter_modal_and_chat_widget_over_the_target(daemon: Daemon, site: str) -> None:
    s = "modals"
    daemon.call("open", session=s, url=f"{site}/newsletter.html")
    done = daemon.call("click", session=s, ref='role=button[name="Buy"]')
    assert "bought" in daemon.snapshot(s)
    # The modal opens 300 ms after load: dismissed before the click or on a later try.
    assert [w["kind"] for w in done["watchdog"]] in (["newsletter"], []), done["watchdog"]
    daemon.call("open", session=s, url=f"{site}/chat.html")
    page = daemon.snapshot(s)
    send = find_ref(page, "button", "Send")
    done = daemon.call("click", session=s, ref=send)
    assert [(w["kind"], w["action"]) for w in done["watchdog"]] == [("chat-widget", "hidden")]


class SlowServer(http.server.ThreadingHTTPServer):
    hits = 0


class SlowHandler(http.server.BaseHTTPRequestHandler):
    """`/start`: a button that navigates to `/slow`, which answers after 3 s."""

    server: SlowServer

    def do_GET(self) -> None:
        if self.path.startswith("/slow"):
            self.server.hits += 1
            time.sleep(3.0)
            body = b"<!doctype html><title>Slow</title><h1>Arrived</h1>"
        else:
            body = (
                b"<!doctype html><title>Start</title>"
                b"<button onclick=\"location.href='/slow'\">Go slowly</button>"
            )
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_click_whose_navigation_outlasts_its_try_is_not_clicked_again(daemon: Daemon) -> None:
    # The click is dispatched at once; Playwright then waits for the navigation it started,
    # longer than one try's share of the deadline. Another try would click a page in the
    # middle of leaving, or find its ref stale: the click is done, and reported once.
    server = SlowServer(("127.0.0.1", 0), SlowHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        s = "slow-nav"
        daemon.call("open", session=s, url=f"http://127.0.0.1:{server.server_address[1]}/start")
        go = find_ref(daemon.snapshot(s), "button", "Go slowly")
        done = daemon.call("click", session=s, ref=go, timeout="8s")
        assert done["ok"] and done["retries"] == 0, done
        daemon.call("wait", session=s, text="Arrived", timeout="10s")
        assert server.hits == 1, "clicked once"
    finally:
        server.shutdown()
