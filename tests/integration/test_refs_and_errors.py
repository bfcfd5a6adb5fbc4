"""Stale and unknown refs, bad input, a wedged page: clear errors, nothing lost."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from steadyhand.errors import SteadyhandError
from steadyhand.snapshot.lookup import find_ref, refs_in
from steadyhand.store.sqlite import Store
from tests.conftest import Daemon

pytestmark = pytest.mark.integration

# Far beyond anything these checks need: an error that arrives is the checked refusal,
# never Playwright waiting out its timeout on a ref that names nothing.
PATIENT_MS = 60_000


def test_ref_stays_valid_across_snapshots(daemon: Daemon, site: str) -> None:
    s = "stable"
    daemon.call("open", session=s, url=f"{site}/rerender.html")
    first = daemon.snapshot(s)
    second = daemon.snapshot(s)
    alpha = find_ref(first, "button", "Alpha")
    assert find_ref(second, "button", "Alpha") == alpha
    daemon.call("click", session=s, ref=alpha)
    assert "clicks: 1 last Alpha" in daemon.snapshot(s)


def test_rerendered_element_is_reresolved_when_exactly_one_matches(
    daemon: Daemon, site: str
) -> None:
    s = "rerender"
    daemon.call("open", session=s, url=f"{site}/rerender.html")
    page = daemon.snapshot(s)
    alpha = find_ref(page, "button", "Alpha")
    daemon.call("click", session=s, ref=find_ref(page, "button", "Redraw"), changes=False)
    done = daemon.call("click", session=s, ref=alpha)
    new_alpha = find_ref(daemon.snapshot(s), "button", "Alpha")
    assert new_alpha != alpha, "a replaced element gets a new ref"
    assert done["reresolved"] == {alpha: new_alpha}
    assert "clicks: 1 last Alpha" in daemon.snapshot(s)
    # The old ref keeps naming the same slot while exactly one element fills it.
    again = daemon.call("click", session=s, ref=alpha)
    assert again["reresolved"] == {alpha: new_alpha}
    assert "clicks: 2 last Alpha" in daemon.snapshot(s)


@pytest.mark.parametrize(
    ("rerender", "why"),
    [("Double Alpha", "2 elements now match"), ("Drop Alpha", "no longer on the page")],
)
def test_rerender_without_a_single_match_is_stale_and_takes_no_action(
    daemon: Daemon, site: str, rerender: str, why: str
) -> None:
    s = "ambiguous-" + rerender.split(maxsplit=1)[0].lower()
    daemon.call("open", session=s, url=f"{site}/rerender.html")
    page = daemon.snapshot(s)
    alpha = find_ref(page, "button", "Alpha")
    daemon.call("click", session=s, ref=find_ref(page, "button", rerender))
    err = daemon.fail("click", session=s, ref=alpha, timeout=PATIENT_MS)
    assert err.code == "stale_ref"
    assert err.data.get("retries", 0) == 0, "stale when the command came: refused at once"
    assert 'button "Alpha"' in err.message and why in err.message, err.message
    assert "snapshot" in err.hint
    assert (err.data["ref"], err.data["tab"]) == (alpha, "t1")
    # A refusal that acted on nothing: the page is as the agent saw it, no screenshot.
    assert "artifacts" not in err.data, err.data
    assert "clicks: 0" in daemon.snapshot(s), "the stale click reached no element"


def test_stale_ref_after_navigation_takes_no_action(daemon: Daemon, site: str) -> None:
    s = "navigated"
    daemon.call("open", session=s, url=f"{site}/nav-a.html")
    page_a = daemon.snapshot(s)
    count_a = find_ref(page_a, "button", "Count")
    daemon.call("navigate", session=s, url=f"{site}/nav-b.html")
    # Without a new snapshot: the ref belongs to page A's document.
    err = daemon.fail("click", session=s, ref=count_a, timeout=PATIENT_MS)
    assert err.code == "stale_ref" and "navigated" in err.message
    page_b = daemon.snapshot(s)
    assert "count 0" in page_b, "nothing on page B was clicked"
    # After a snapshot of B, refs of A that B did not reissue stay refused.
    for ref in {find_ref(page_a, "link", "Go to B"), count_a} - set(_refs(page_b)):
        again = daemon.fail("click", session=s, ref=ref, timeout=PATIENT_MS)
        assert again.code == "stale_ref", ref
    assert "count 0" in daemon.snapshot(s)


def _refs(snapshot: str) -> list[str]:
    return [ref for ref, _role, _name in refs_in(snapshot)]


def test_unknown_and_malformed_refs(daemon: Daemon, site: str) -> None:
    s = "unknown-ref"
    daemon.call("open", session=s, url=f"{site}/form.html")
    before_snapshot = daemon.fail("click", session=s, ref="e3", timeout=PATIENT_MS)
    assert before_snapshot.code == "not_found" and "snapshot first" in before_snapshot.hint
    daemon.snapshot(s)
    missing = daemon.fail("click", session=s, ref="e999", timeout=PATIENT_MS)
    assert missing.code == "not_found" and "e999" in missing.message
    malformed = daemon.fail("click", session=s, ref="#submit")
    assert malformed.code == "bad_request" and "e12" in malformed.hint
    bad_fill = daemon.fail("fill", session=s, fields={"e999": "x"}, timeout=PATIENT_MS)
    assert bad_fill.code == "not_found"


def test_unknown_session_and_tab(daemon: Daemon, site: str) -> None:
    err = daemon.fail("snapshot", session="nobody-here")
    assert err.code == "unknown_session" and "`open` a URL in session 'nobody-here'" in err.hint
    gone = daemon.fail("snapshot", session="mcp-0a1b2c3d")
    assert "an MCP connection's own: closed when its connection ended" in gone.message
    daemon.call("open", session="known", url=f"{site}/form.html")
    tab = daemon.fail("snapshot", session="known", tab="t9")
    assert tab.code == "unknown_tab" and "t1" in tab.hint
    bad_name = daemon.fail("open", session="../etc", url=f"{site}/form.html")
    assert bad_name.code == "bad_request"
    assert daemon.call("snapshot", session="known")["title"] == "Form fixture"


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_bad_urls_leave_the_session_alive(daemon: Daemon, site: str) -> None:
    s = "urls"
    daemon.call("open", session=s, url=f"{site}/form.html")
    for url, code in [
        ("", "invalid_url"),
        ("javascript:alert(1)", "invalid_url"),
        ("not a url", "invalid_url"),
        (f"http://127.0.0.1:{closed_port()}/", "navigation_failed"),
    ]:
        err = daemon.fail("navigate", session=s, url=url)
        assert err.code == code, (url, err)
        assert err.hint
    assert daemon.call("navigate", session=s, url=f"{site}/nav-a.html")["title"] == "Page A"


def test_bad_params_and_unknown_commands(daemon: Daemon, site: str) -> None:
    missing = daemon.fail("click", session="x")
    assert missing.code == "bad_request" and "ref" in missing.message
    extra = daemon.fail("snapshot", session="x", colour="blue")
    assert extra.code == "bad_request" and "colour" in extra.message
    wrong_type = daemon.fail("snapshot", session="x", depth="deep")
    assert wrong_type.code == "bad_request"
    unknown = daemon.fail("clik")
    assert unknown.code == "unknown_command" and "click" in unknown.hint
    assert daemon.call("daemon.status")["pid"] == daemon.pid()


def test_garbage_on_the_socket_gets_json_rpc_errors(daemon: Daemon) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(10)
        sock.connect(str(daemon.settings.socket_path))
        reader = sock.makefile("rb")
        for line, code in [
            (b"this is not json\n", -32700),
            (b'{"jsonrpc": "2.0", "id": 1}\n', -32600),
            (b'{"jsonrpc": "2.0", "id": 2, "method": "nope"}\n', -32601),
            (b'{"jsonrpc": "2.0", "id": 3, "method": "snapshot", "params": [1]}\n', -32600),
        ]:
            sock.sendall(line)
            reply = json.loads(reader.readline())
            assert reply["error"]["code"] == code, line
        sock.sendall(b'[{"jsonrpc": "2.0", "id": 7, "method": "daemon.status"}]\n')
        batch = json.loads(reader.readline())
        assert batch[0]["id"] == 7 and batch[0]["result"]["pid"] == daemon.pid()


def test_wedged_page_times_out_and_never_hangs_the_daemon(daemon: Daemon, site: str) -> None:
    s = "wedged"
    daemon.call("open", session=s, url=f"{site}/wedge.html")
    daemon.call("click", session=s, ref=find_ref(daemon.snapshot(s), "button", "Hang forever"))
    # The page starts spinning 300 ms after the click returned: wait for it to stop answering.
    err: SteadyhandError | None = None
    for _ in range(50):
        try:
            daemon.call("snapshot", session=s, timeout=1000)
        except SteadyhandError as exc:
            err = exc
            break
        time.sleep(0.1)
    assert err is not None and err.code == "timeout" and "unaffected" in err.hint
    # The daemon and other sessions go on while that page spins; listings stay quick.
    assert s in daemon.call("daemon.status")["sessions"]
    listed = {x["name"]: x for x in daemon.call("sessions", timeout=5000)["sessions"]}
    assert listed[s]["tabs"][0]["title"] == "(not responding)"
    assert daemon.call("tabs", session=s, timeout=5000)["tabs"][0]["id"] == "t1"
    daemon.call("open", session="healthy", url=f"{site}/nav-a.html")
    assert "Page A" in daemon.snapshot("healthy")
    # The wedged session itself recovers: close the spinning tab, open another.
    daemon.call("tab.close", session=s, tab="t1", timeout=10_000)
    daemon.call("tab.new", session=s, url=f"{site}/nav-b.html")
    assert 'heading "Page B"' in daemon.snapshot(s)


def test_action_log_records_everything_with_secrets_redacted(daemon: Daemon, site: str) -> None:
    s = "audited"
    daemon.call("open", session=s, url=f"{site}/form.html")
    page = daemon.snapshot(s)
    pw, name = find_ref(page, "textbox", "Password"), find_ref(page, "textbox", "Name")
    daemon.call("type", session=s, ref=pw, text="hunter2-typed")
    daemon.call("fill", session=s, fields={name: "Visible Name", pw: "hunter2-filled"})
    daemon.fail("click", session=s, ref="e999")
    unstorable = daemon.fail("type", session=s, ref=name, text="lone \ud800 surrogate")
    assert unstorable.code == "bad_request", "refused before anything is typed or logged raw"
    with sqlite3.connect(daemon.settings.store_path) as db:
        rows = db.execute(
            "SELECT command, tab, params_json, ok, error_code, duration_ms FROM action_log"
            " WHERE session = ? ORDER BY id",
            (s,),
        ).fetchall()
        dump = "\n".join(db.iterdump())
        statuses = dict(db.execute("SELECT name, status FROM sessions").fetchall())
    assert [r[0] for r in rows] == ["open", "snapshot", "type", "fill", "click", "type"]
    assert all(r[1] == "t1" for r in rows[:5])
    typed = json.loads(rows[2][2])
    assert typed == {"ref": pw, "text": "[redacted]"}
    filled = json.loads(rows[3][2])["fields"]
    assert filled == {name: "Visible Name", pw: "[redacted]"}
    assert rows[4][3:5] == (0, "not_found")
    assert rows[5][3:5] == (0, "bad_request"), "the refusal is in the log too"
    assert all(r[5] >= 0 for r in rows)
    assert "hunter2" not in dump, "no trace of the password anywhere in the database"
    assert "hunter2" not in daemon.settings.log_path.read_text(), "nor in the daemon's log"
    assert statuses[s] == "active"


def test_text_that_may_be_a_password_is_redacted_until_proven_harmless(
    daemon: Daemon, site: str
) -> None:
    s = "cautious"
    daemon.call("open", session=s, url=f"{site}/form.html")
    page = daemon.snapshot(s)
    name, pw = find_ref(page, "textbox", "Name"), find_ref(page, "textbox", "Password")
    daemon.call("type", session=s, ref=name, text="plain words")
    daemon.fail("type", session=s, ref="e999", text="secret-for-a-missing-ref")
    daemon.fail("type", session=s, text="secret-without-a-ref")
    daemon.fail("fill", session=s, fields={pw: "secret-in-fill", "e999": "x"})
    daemon.call("click", session=s, ref=find_ref(page, "button", "Place order"))
    after = daemon.snapshot(s)
    assert "pwlen=0" in after, "the failed fill typed nothing: its refs are resolved first"
    store = Store(daemon.settings.store_path)
    logged = [(r.command, r.params) for r in store.actions(s) if r.command in ("type", "fill")]
    store.close()
    assert logged == [
        ("type", {"ref": name, "text": "plain words"}),
        ("type", {"ref": "e999", "text": "[redacted]"}),
        ("type", {"text": "[redacted]"}),
        ("fill", {"fields": {pw: "[redacted]", "e999": "[redacted]"}}),
    ]


def test_a_label_around_an_icon_still_counts_as_the_password_field(
    daemon: Daemon, site: str
) -> None:
    s = "label-secret"
    daemon.call("open", session=s, url=f"{site}/secrets.html")
    page = daemon.snapshot(s)
    # An image is nothing to act on, so snapshots give it no ref; find hands one out.
    icon = daemon.call("find", session=s, role="img", name="key icon")["matches"][0]["ref"]
    notes = find_ref(page, "textbox", "Notes")
    otp = find_ref(page, "textbox", "One-time code")
    shadow = find_ref(page, "textbox", "Shadow PIN")
    daemon.call("type", session=s, ref=icon, text="via-label  and\tspaces ")
    daemon.call("type", session=s, ref=shadow, text="4321-shadow")
    daemon.call("fill", session=s, fields={notes: "plain notes", otp: "998877"})
    daemon.call("click", session=s, ref=find_ref(page, "button", "Report"))
    after = daemon.snapshot(s)
    assert "pw=22 shadow=11" in after, "the label led the typing into the password field"
    for secret in ("via-label", "4321-shadow"):
        assert secret not in after, f"{secret} shown in a snapshot"
    assert "plain notes" in after
    store = Store(daemon.settings.store_path)
    logged = [r.params for r in store.actions(s) if r.command in ("type", "fill")]
    store.close()
    assert logged == [
        {"ref": icon, "text": "[redacted]"},
        {"ref": shadow, "text": "[redacted]"},
        {"fields": {notes: "plain notes", otp: "[redacted]"}},
    ]


def test_an_element_replaced_mid_action_is_stale_never_a_long_wait(
    daemon: Daemon, site: str
) -> None:
    s = "churn"
    daemon.call("open", session=s, url=f"{site}/churn.html")
    outcomes, churned = [], 0
    for _ in range(15):
        ref = find_ref(daemon.snapshot(s), "button", "Moving target")
        try:
            done = daemon.call("click", session=s, ref=ref, timeout=PATIENT_MS)
            outcomes.append("ok")
            churned += bool(done["retries"] or done["reresolved"])
        except SteadyhandError as exc:
            outcomes.append(exc.code)
            churned += 1
    # A timeout here would mean waiting out a 60 s deadline for an element that is gone.
    assert set(outcomes) <= {"ok", "stale_ref"}, outcomes
    assert churned, "the page re-renders faster than a snapshot-then-click: tries must show it"


def test_select_of_a_missing_option_is_refused_with_the_choices(daemon: Daemon, site: str) -> None:
    s = "no-option"
    daemon.call("open", session=s, url=f"{site}/form.html")
    size = find_ref(daemon.snapshot(s), "combobox", "Size")
    # Options may load late, so a missing one is waited for, within the deadline.
    err = daemon.fail("select", session=s, ref=size, values=["Huge"], timeout="2s")
    assert err.code == "bad_request" and "'Huge'" in err.message
    assert "'Small', 'Medium', 'Large'" in err.hint


def test_a_tab_closed_under_a_running_action_is_not_a_browser_crash(
    daemon: Daemon, site: str
) -> None:
    def close_during_click(s: str, pause: float) -> SteadyhandError:
        daemon.call("open", session=s, url=f"{site}/slow.html")
        button = find_ref(daemon.snapshot(s), "button", "Never enabled")
        errors: list[SteadyhandError] = []

        def click() -> None:
            errors.append(daemon.fail("click", session=s, ref=button, timeout=PATIENT_MS))

        worker = threading.Thread(target=click)
        worker.start()
        time.sleep(pause)  # let the click start waiting for the button to become enabled
        daemon.call("tab.close", session=s, tab="t1")
        worker.join(30)
        assert not worker.is_alive()
        (err,) = errors
        return err

    # The click must reach the daemon before the close; on a loaded machine it may not
    # within the first pause (then it finds no tab at all), so the pause grows.
    for attempt, pause in enumerate((0.5, 2.0, 5.0)):
        err = close_during_click(f"closed-under-{attempt}", pause)
        if err.code != "unknown_tab":
            break
    assert err.code == "action_failed", err
    assert "closed while the command ran" in err.message, err
    assert daemon.call("daemon.status")["browser_running"] is True


def _failure_shots(daemon: Daemon, session: str) -> list[Path]:
    return sorted((daemon.settings.artifacts_dir / session).glob("*-failure.png"))


def test_a_refusal_that_acted_on_nothing_has_no_failure_screenshot(
    daemon: Daemon, site: str
) -> None:
    """not_found and stale_ref leave the page as the agent saw it: no screenshot of it;
    a failure after acting began (not_actionable: tries ran out) keeps its screenshot."""
    s = "refused-no-shot"
    daemon.call("open", session=s, url=f"{site}/nav-a.html")
    count = find_ref(daemon.snapshot(s), "button", "Count")
    unknown = daemon.fail("click", session=s, ref="e999", timeout=PATIENT_MS)
    assert unknown.code == "not_found"
    assert "artifacts" not in unknown.data, unknown.data
    daemon.call("navigate", session=s, url=f"{site}/nav-b.html")
    stale = daemon.fail("click", session=s, ref=count, timeout=PATIENT_MS)
    assert stale.code == "stale_ref"
    assert "artifacts" not in stale.data, stale.data
    assert _failure_shots(daemon, s) == []

    daemon.call("open", session=s, url=f"{site}/gauntlet/overlay.html?stay")
    pay = find_ref(daemon.snapshot(s), "button", "Pay")
    covered = daemon.fail("click", session=s, ref=pay, timeout="3s")
    assert covered.code == "not_actionable"
    (shot,) = covered.data["artifacts"]
    assert Path(shot).read_bytes().startswith(b"\x89PNG")
    assert Path(shot).stat().st_mode & 0o777 == 0o600
    assert _failure_shots(daemon, s) == [Path(shot)]
    # ... and the action log indexes it with the failed act.
    (failed,) = daemon.call("trace", name=s, last=1)["actions"]
    (kept,) = [a for a in failed["artifacts"] if a["label"] == "failure"]
    assert kept["kind"] == "screenshot" and kept["exists"] and kept["path"] == shot
