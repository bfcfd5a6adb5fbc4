"""The live view in real Chromium: log in, watch a session, approve, take over, hand back.

A person's browser (Playwright's own Chromium) opens the page `serve --http` serves for
the module's daemon; a second client (the CLI) acts as the agent meanwhile.
"""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from steadyhand.client import DaemonBackend
from tests.conftest import CliRun, Daemon, make_settings, running_daemon, wait_until
from tests.http_server import HttpServer
from tests.integration.test_pixel_mask import ACCOUNT_BOX_JS
from tests.live_page import browser, frames, log_in, person, serving, watch
from tests.pixels import black_share, open_image

pytestmark = pytest.mark.integration
__all__ = ["browser", "person"]  # fixtures of tests/live_page.py


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    settings = make_settings(
        tmp_path_factory.mktemp("state"), approval_names="place order", approval_timeout_s=60
    )
    with running_daemon(settings) as handle:
        yield handle


@pytest.fixture(scope="module")
def server(daemon: Daemon) -> Iterator[HttpServer]:
    with serving(daemon) as handle:
        yield handle


def opened(daemon: Daemon, site: str, session: str, page: str = "form.html") -> None:
    run = daemon.cli("open", f"{site}/{page}", "--session", session)
    assert run.rc == 0, run.err


def ref_of(daemon: Daemon, session: str, text: str) -> str:
    """The ref on the snapshot line that holds `text`."""
    snap = daemon.cli("snapshot", "--session", session, "-i").out
    line = next(line for line in snap.splitlines() if text in line)
    return line.split("[ref=")[1].split("]")[0]


def value_of(daemon: Daemon, session: str, script: str) -> Any:
    run = daemon.cli("evaluate", script, "--session", session, "--json")
    assert run.rc == 0, run.err
    return run.json["result"]["value"]


def settled(page: Page) -> None:
    """Wait until the live screen got no new frame for a second (the page is still)."""

    def still() -> bool:
        count = frames(page)
        time.sleep(1.0)
        return frames(page) == count

    assert wait_until(still, 30)


def name_field(daemon: Daemon, session: str) -> str:
    """The Name field's snapshot line (a read: it answers while a person drives)."""
    snap = daemon.cli("snapshot", "--session", session, "-i").out
    return next(line for line in snap.splitlines() if 'textbox "Name"' in line).strip()


def taken_over(daemon: Daemon, session: str) -> Any:
    listing = daemon.cli("sessions", "--json").json["result"]["sessions"]
    return next(s for s in listing if s["name"] == session)["taken_over"]


# ------------------------------------------------------------------ login


def test_login_needs_the_token(browser: Browser, server: HttpServer) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url + "/")
    assert page.url.endswith("/login"), "the live view sends a stranger to the login page"
    page.get_by_label("Token").fill("not-the-token")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_have_text("That is not the token.")
    assert context.cookies() == []
    answer = page.request.get(server.url + "/live/api/sessions")
    assert answer.status == 401 and answer.json()["error"]["code"] == "unauthorized"

    log_in(page, server, server.token)
    cookie = next(c for c in context.cookies() if c["name"] == "steadyhand_live")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert server.token not in cookie["value"], "the cookie names a login, not the token"
    assert page.evaluate("document.cookie") == "", "page scripts cannot read the login"

    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/login")
    assert page.request.get(server.url + "/live/api/sessions").status == 401
    context.close()


def test_a_cookie_request_that_changes_something_needs_the_csrf_token(
    person: Page, server: HttpServer, daemon: Daemon, site: str
) -> None:
    opened(daemon, site, "csrf")
    status = person.evaluate(
        """async () => (await fetch('/live/api/takeover', {method: 'POST',
             headers: {'content-type': 'application/json'},
             body: JSON.stringify({session: 'csrf'})})).status"""
    )
    assert status == 403
    assert taken_over(daemon, "csrf") is None
    # A page elsewhere cannot use the login either: its Origin is refused.
    with httpx.Client(base_url=server.url) as other:
        cookie = person.context.cookies()[0]
        answer = other.post(
            "/live/api/takeover",
            json={"session": "csrf"},
            headers={
                "cookie": f"steadyhand_live={cookie['value']}",
                "origin": "https://evil.example",
            },
        )
    assert answer.status_code == 403
    assert taken_over(daemon, "csrf") is None


# ------------------------------------------------------------------ watching


def test_actions_appear_as_a_second_client_acts(
    person: Page, daemon: Daemon, site: str, server: HttpServer
) -> None:
    opened(daemon, site, "timeline")
    person.reload()
    person.wait_for_selector("body[data-ready]")
    watch(person, "timeline")
    timeline = person.locator("#timeline li")
    expect(timeline.first).to_contain_text("open")
    name = ref_of(daemon, "timeline", 'textbox "Name"')
    assert daemon.cli("type", name, "Ada", "--session", "timeline").rc == 0
    expect(timeline.first).to_contain_text("type")
    expect(timeline.first).to_contain_text(f'"ref":"{name}"')
    bad = daemon.cli("click", "e999", "--session", "timeline")
    assert bad.rc != 0
    expect(timeline.first).to_contain_text("not_found")
    expect(timeline.first.locator(".hint")).to_contain_text("take a new snapshot")
    # A refusal that acted on nothing has no failure screenshot (issue 22, item 12).
    expect(timeline.first.locator("img")).to_have_count(0)
    sessions = person.locator("#sessions li").filter(has_text="timeline")
    expect(sessions).to_contain_text("active")
    expect(sessions).to_contain_text("last: click ✗ not_found")
    # A failure after acting began keeps its screenshot, linked from the timeline.
    unmet = daemon.cli(
        "click", name, "--expect-text", "never on the page", "--timeout", "2s",
        "--session", "timeline",
    )  # fmt: skip
    assert unmet.rc != 0
    expect(timeline.first.locator("img")).to_have_count(1)
    shot = timeline.first.locator("img").get_attribute("src")  # the failure's screenshot
    assert shot is not None
    answer = person.request.get(server.url + shot)
    assert answer.status == 200 and answer.body()[:4] == b"\x89PNG"
    outside = person.request.get(server.url + "/live/api/artifact?path=/etc/passwd")
    assert outside.status == 404 and outside.json()["error"]["code"] == "not_found"


def test_screencast_frames_change_after_a_click(person: Page, daemon: Daemon, site: str) -> None:
    opened(daemon, site, "screen")
    person.reload()
    person.wait_for_selector("body[data-ready]")
    watch(person, "screen")
    assert daemon.cli("daemon", "status", "--json").json["result"]["screens_watched"] == [
        "screen/t1"
    ]
    target = ref_of(daemon, "screen", 'button "Hover target"')  # the pointer over it: "hovered yes"
    settled(person)  # the page shows what it shows until the click
    before = person.eval_on_selector("#screen", "img => img.src")
    assert daemon.cli("click", target, "--session", "screen").rc == 0
    person.wait_for_function(
        "before => document.getElementById('screen').src !== before", arg=before, timeout=15_000
    )
    after = person.eval_on_selector("#screen", "img => img.src")
    assert base64.b64decode(after.split(",", 1)[1])[:2] == b"\xff\xd8", "a JPEG frame"

    # The agent moves to a new tab: the screen follows it.
    assert daemon.cli("tab", "new", f"{site}/nav-a.html", "--session", "screen").rc == 0
    expect(person.locator("#screen-info")).to_contain_text("t2")
    assert wait_until(
        lambda: (
            daemon.cli("daemon", "status", "--json").json["result"]["screens_watched"]
            == ["screen/t2"]
        )
    )

    person.goto("about:blank")  # nobody watches any more: the screencast stops
    assert wait_until(
        lambda: (
            daemon.cli("daemon", "status", "--json").json["result"].get("screens_watched", []) == []
        )
    )
    log = (daemon.settings.state_dir / "daemon.log").read_text()
    assert "failed outside the command" not in log, "a watcher leaving is no error"


def test_a_secret_typed_shows_as_a_box_on_the_live_screen(
    person: Page, daemon: Daemon, site: str
) -> None:
    """The live view's frames come from the screencast: the field holding a secret is a
    black box there too (tests/integration/test_pixel_mask.py checks the other pictures)."""
    secrets = daemon.settings.state_dir / "secrets.toml"
    secrets.write_text('LIVE_PIN = "live-s3cret-9137"\n')
    secrets.chmod(0o600)
    opened(daemon, site, "masked", "remember.html")
    box = value_of(daemon, "masked", ACCOUNT_BOX_JS)
    person.reload()
    person.wait_for_selector("body[data-ready]")
    watch(person, "masked")
    shares: list[float] = []

    def share() -> float:  # of the field's box on the screen shown now
        shown = person.eval_on_selector("#screen", "img => img.src")
        frame = open_image(base64.b64decode(shown.split(",", 1)[1]))
        shares.append(black_share(frame, tuple(box), frame.size[0] / 1280))
        return shares[-1]

    person.wait_for_function("() => document.getElementById('screen').src.startsWith('data:')")
    assert wait_until(lambda: share() < 0.2, 15), shares[-5:]  # the page's white field
    field = ref_of(daemon, "masked", 'textbox "Account number"')
    typed = daemon.cli("type", field, "--secret", "LIVE_PIN", "--session", "masked")
    assert typed.rc == 0, typed.err
    # (The caret blinks in the field: frames keep coming, so no waiting for stillness.)
    assert wait_until(lambda: share() > 0.95, 15), shares[-5:]
    assert daemon.cli("close", "--session", "masked").rc == 0


def test_ref_boxes_are_drawn_on_demand(person: Page, daemon: Daemon, site: str) -> None:
    opened(daemon, site, "boxes")
    person.reload()
    person.wait_for_selector("body[data-ready]")
    watch(person, "boxes")
    assert person.locator("#overlay .box").count() == 0
    person.get_by_label("Ref boxes").check()
    name = ref_of(daemon, "boxes", 'textbox "Name"')
    expect(person.locator("#overlay .box").filter(has_text=name)).to_have_count(1)
    person.get_by_label("Ref boxes").uncheck()
    expect(person.locator("#overlay .box")).to_have_count(0)


# ------------------------------------------------------------------ approvals


def test_a_gated_click_is_approved_from_the_page(person: Page, daemon: Daemon, site: str) -> None:
    opened(daemon, site, "gate", "approvals.html")
    order = ref_of(daemon, "gate", 'button "Place order"')
    done: list[CliRun] = []
    agent = threading.Thread(
        target=lambda: done.append(daemon.cli("click", order, "--session", "gate")), daemon=True
    )
    agent.start()
    pending = person.locator("#approvals li")
    expect(pending).to_have_count(1, timeout=15_000)
    expect(pending).to_contain_text('button "Place order"')
    approval_id = pending.get_attribute("data-id")
    assert approval_id
    person.wait_for_function(f"window.__notes.some(t => t.includes('{approval_id}'))")
    assert not done, "the click waits for the person"
    person.get_by_role("button", name=f"Approve {approval_id}").click()
    agent.join(30)
    assert done and done[0].rc == 0, done
    assert value_of(daemon, "gate", "document.getElementById('done').textContent") == "ordered"
    expect(pending).to_have_count(0)
    row = next(
        a
        for a in daemon.cli("approvals", "--json").json["result"]["approvals"]
        if a["id"] == approval_id
    )
    assert row["status"] == "approved"


POST_AS_PAGE = """async ([path, body]) => {
  const me = await (await fetch('/live/api/me')).json();
  const answer = await fetch('/live/api/' + path, {method: 'POST',
    headers: {'content-type': 'application/json', 'x-steadyhand-csrf': me.result.csrf},
    body: JSON.stringify(body)});
  return [me.result.can_decide, answer.status, await answer.json()];
}"""


def test_with_the_approver_token_only_its_login_decides(
    browser: Browser, daemon: Daemon, site: str
) -> None:
    opened(daemon, site, "guarded")
    with serving(daemon, {"STEADYHAND_APPROVER_TOKEN": "1"}) as server:
        approver = (daemon.settings.state_dir / "approver.token").read_text().strip()
        context = browser.new_context()
        page = context.new_page()
        log_in(page, server, server.token)  # the agent's token: it may watch, not decide
        can_decide, status, body = page.evaluate(POST_AS_PAGE, ["approve", {"id": "abcdef"}])
        assert (can_decide, status) == (False, 403), body
        assert body["error"]["code"] == "policy_denied"
        assert "approver token" in body["error"]["message"]
        _, status, body = page.evaluate(POST_AS_PAGE, ["takeover", {"session": "guarded"}])
        assert status == 200, body
        _, status, body = page.evaluate(POST_AS_PAGE, ["handback", {"session": "guarded"}])
        assert status == 403 and body["error"]["code"] == "policy_denied", body
        assert taken_over(daemon, "guarded") is not None

        page.get_by_role("button", name="Log out").click()
        page.wait_for_url("**/login")
        log_in(page, server, approver)
        can_decide, status, body = page.evaluate(POST_AS_PAGE, ["handback", {"session": "guarded"}])
        assert (can_decide, status) == (True, 200), body
        assert taken_over(daemon, "guarded") is None
        context.close()


# ------------------------------------------------------------------ take over


def test_take_over_type_into_a_field_and_hand_back(person: Page, daemon: Daemon, site: str) -> None:
    opened(daemon, site, "drive")
    box, double = (
        value_of(
            daemon,
            "drive",
            f"(() => {{ const r = document.getElementById('{element}').getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()",
        )
        for element in ("name", "dbl")
    )
    name = ref_of(daemon, "drive", 'textbox "Name"')
    width = value_of(daemon, "drive", "window.innerWidth")
    person.reload()
    person.wait_for_selector("body[data-ready]")
    watch(person, "drive")

    person.get_by_role("button", name="Take over").click()
    expect(person.get_by_role("button", name="Hand back")).to_be_visible()
    paused = daemon.cli("type", name, "agent text", "--session", "drive", "--json")
    assert paused.rc != 0 and paused.json["error"]["code"] == "session_paused", paused.out
    assert daemon.cli("snapshot", "--session", "drive").rc == 0, "reads still answer"
    waited: list[CliRun] = []
    waiter = threading.Thread(
        target=lambda: waited.append(
            daemon.cli("wait", "--handback", "--session", "drive", "--timeout", "60000")
        ),
        daemon=True,
    )
    waiter.start()  # the agent waits for the person

    # The person clicks the Name field on the live screen and types.
    shown = person.locator("#screen").bounding_box()
    assert shown is not None
    scale = shown["width"] / width
    person.mouse.click(shown["x"] + box[0] * scale, shown["y"] + box[1] * scale)
    person.keyboard.type("Grace")
    person.keyboard.press("Backspace")
    assert wait_until(lambda: name_field(daemon, "drive").endswith(": Grac"))
    person.mouse.dblclick(shown["x"] + double[0] * scale, shown["y"] + double[1] * scale)
    assert wait_until(lambda: "double clicked" in daemon.cli("snapshot", "--session", "drive").out)

    assert not waited, "the agent's wait lasts while the person drives"
    person.get_by_role("button", name="Hand back").click()
    expect(person.get_by_role("button", name="Take over")).to_be_visible()
    expect(person.locator("#status")).to_contain_text("3 clicks, 6 keys")
    waiter.join(30)
    assert waited and waited[0].rc == 0 and "--handback" in waited[0].out, waited
    assert value_of(daemon, "drive", "document.getElementById('name').value") == "Grac"
    again = daemon.cli("type", name, "Ada", "--session", "drive")  # the agent acts again
    assert again.rc == 0, again.err
    assert value_of(daemon, "drive", "document.getElementById('name').value") == "Ada"

    log = [a["command"] for a in daemon.cli("trace", "drive", "--json").json["result"]["actions"]]
    assert log.index("takeover") < log.index("handback") < len(log) - 1
    timeline = person.locator("#timeline")
    expect(timeline).to_contain_text("handback")


def test_input_is_refused_unless_taken_over_and_bad_input_is_a_clear_error(
    server: HttpServer, daemon: Daemon, site: str
) -> None:
    opened(daemon, site, "inputs")
    with server.client() as api:
        click = {"session": "inputs", "events": [{"type": "click", "x": 5, "y": 5}]}
        refused = api.post("/live/api/input", json=click)
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "policy_denied"
        assert api.post("/live/api/takeover", json={"session": "inputs"}).status_code == 200
        bad = api.post(
            "/live/api/input", json={"session": "inputs", "events": [{"type": "click", "x": -1}]}
        )
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_request"
        assert "events[0].x" in bad.json()["error"]["message"], bad.json()
        unknown = api.get("/live/api/screen", params={"session": "nobody"})
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_session"
        assert api.post("/live/api/input", json=click).status_code == 200
        done = api.post("/live/api/handback", json={"session": "inputs"}).json()["result"]
        assert (done["clicks"], done["keys"]) == (1, 0)
    assert daemon.cli("snapshot", "--session", "inputs").rc == 0, "the session lives on"


def test_a_stream_ends_when_the_daemon_stops(fresh_daemon: Daemon, site: str) -> None:
    """A watcher does not hold the daemon up: `daemon stop` ends its stream at once."""
    d = fresh_daemon
    opened(d, site, "stops")

    async def watch_until_stopped() -> tuple[list[str], CliRun]:
        backend = DaemonBackend(d.settings, autostart=False)
        events = backend.stream("live.screen", {"session": "stops"})
        kinds = [(await anext(events))["kind"], (await anext(events))["kind"]]
        stopping = asyncio.create_task(asyncio.to_thread(d.cli, "daemon", "stop"))
        kinds += [event["kind"] async for event in events]  # ends when the daemon stops
        return kinds, await stopping

    # A thread of its own: the person's browser (sync Playwright) runs a loop in this one.
    with ThreadPoolExecutor(1) as thread:
        kinds, stopped = thread.submit(asyncio.run, watch_until_stopped()).result(120)
    assert kinds[:2] == ["tab", "frame"], kinds
    assert stopped.rc == 0, stopped.err
    log = (d.settings.state_dir / "daemon.log").read_text()
    assert "Traceback" not in log and "failed outside" not in log
