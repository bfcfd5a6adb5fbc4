"""Cookies and web storage against a page served on 127.0.0.1, with their values kept out of
the action log and the store."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from steadyhand.errors import SteadyhandError
from tests.conftest import Daemon

pytestmark = pytest.mark.integration

COOKIE_VALUE = "c00kie-v4lue-9f2e"
LOCAL_VALUE = "l0cal-v4lue-71ab"
SESSION_VALUE = "sess10n-v4lue-c3d0"
VALUES = (COOKIE_VALUE, LOCAL_VALUE, SESSION_VALUE)


def spelled(text: str) -> str:
    """A JavaScript expression for `text` that does not hold it verbatim (evaluate's params
    are logged as given)."""
    return "String.fromCharCode(" + ",".join(str(ord(c)) for c in text) + ")"


def page_sees(daemon: Daemon, session: str, expression: str) -> object:
    return daemon.call("evaluate", session=session, expression=expression)["value"]


def no_value_logged(daemon: Daemon, s: str) -> None:
    """The log holds every command, and no value in clear: not in the trace, not in the
    store's action log, not in the daemon's log files, not in any file of the state dir
    (a session checkpoint holds the context's cookies and storage, sealed)."""
    rows = daemon.call("trace", name=s, last=0)["actions"]
    commands = [r["command"] for r in rows]
    for name in ("cookies.set", "cookies.get", "storage.set", "storage.get", "storage.clear"):
        assert name in commands
    logged = json.dumps(rows) + daemon.cli("trace", "--session", s, "--last", "0").out
    state = Path(daemon.settings.state_dir)
    with closing(sqlite3.connect(daemon.settings.store_path)) as db:
        stored = db.execute("SELECT params_json, result_json FROM action_log").fetchall()
    assert any("[redacted]" in str(row) for row in stored)
    logged += json.dumps(stored)
    files = [p for p in state.rglob("*") if p.is_file()]
    assert any("sqlite" in p.name for p in files) and any(p.suffix == ".log" for p in files)
    logged += "".join(p.read_text(errors="replace") for p in files)
    for value in VALUES:
        assert value not in logged


def test_cookies_and_storage(daemon: Daemon, site: str) -> None:
    s = "cookies-storage"
    daemon.call("open", session=s, url=f"{site}/form.html")

    # Cookies: the domain defaults to the current page's host.
    set_reply = daemon.call("cookies.set", session=s, name="sid", value=COOKIE_VALUE)
    assert set_reply["cookie"]["domain"] == "127.0.0.1" and "value" not in set_reply["cookie"]
    daemon.call(
        "cookies.set", session=s, name="hidden", value="h", domain="127.0.0.1", http_only=True
    )
    got = daemon.call("cookies.get", session=s, name="sid")["cookies"]
    assert [(c["name"], c["value"], c["http_only"]) for c in got] == [("sid", COOKIE_VALUE, False)]
    assert {c["name"] for c in daemon.call("cookies.get", session=s)["cookies"]} == {
        "sid",
        "hidden",
    }
    assert daemon.call("cookies.get", session=s, domain="example.com")["cookies"] == []
    seen = f"document.cookie.split('; ').includes('sid=' + {spelled(COOKIE_VALUE)})"
    assert page_sees(daemon, s, seen) is True
    assert page_sees(daemon, s, "document.cookie.includes('hidden=')") is False  # httpOnly

    cleared = daemon.call("cookies.clear", session=s, name="sid")["cleared"]
    assert cleared == [{"name": "sid", "domain": "127.0.0.1", "path": "/"}]
    assert [c["name"] for c in daemon.call("cookies.get", session=s)["cookies"]] == ["hidden"]
    assert page_sees(daemon, s, "document.cookie.includes('sid=')") is False

    # Web storage on the page's origin.
    daemon.call("storage.set", session=s, kind="local", key="token", value=LOCAL_VALUE)
    daemon.call("storage.set", session=s, kind="local", key="other", value="o")
    daemon.call("storage.set", session=s, kind="session", key="draft", value=SESSION_VALUE)
    local = daemon.call("storage.get", session=s, kind="local")
    assert local["items"] == {"token": LOCAL_VALUE, "other": "o"}
    assert daemon.call("storage.get", session=s, kind="local", key="token")["items"] == {
        "token": LOCAL_VALUE
    }
    assert daemon.call("storage.get", session=s, kind="session")["items"] == {
        "draft": SESSION_VALUE
    }
    assert page_sees(daemon, s, f"localStorage.getItem('token') === {spelled(LOCAL_VALUE)}")
    assert page_sees(daemon, s, f"sessionStorage.getItem('draft') === {spelled(SESSION_VALUE)}")

    assert daemon.call("storage.clear", session=s, kind="local", key="token")["keys"] == ["token"]
    assert page_sees(daemon, s, "localStorage.getItem('token')") is None
    assert page_sees(daemon, s, "localStorage.getItem('other')") == "o"
    assert daemon.call("storage.clear", session=s, kind="session")["keys"] == ["draft"]
    assert page_sees(daemon, s, "sessionStorage.length") == 0

    # Bad input is a bad request with a hint; the session answers next.
    with pytest.raises(SteadyhandError) as info:
        daemon.call("cookies.set", session=s, name="x", value="y", same_site="Bogus")
    assert info.value.code == "bad_request" and "same_site" in info.value.message
    assert info.value.hint
    with pytest.raises(SteadyhandError) as info:
        daemon.call("storage.get", session=s, kind="indexed")
    assert info.value.code == "bad_request" and info.value.hint
    assert daemon.call("cookies.get", session=s, name="hidden")["cookies"][0]["value"] == "h"

    no_value_logged(daemon, s)


def test_cookies_set_without_a_page(daemon: Daemon, site: str) -> None:
    s = "cookies-blank"
    daemon.call("tab.new", session=s)
    with pytest.raises(SteadyhandError) as info:
        daemon.call("cookies.set", session=s, name="a", value="b")
    assert info.value.code == "bad_request" and "--domain" in info.value.hint
    with pytest.raises(SteadyhandError) as info:
        daemon.call("storage.get", session=s, kind="local")
    assert info.value.code == "bad_request" and "open" in info.value.hint
    daemon.call("cookies.set", session=s, name="a", value="b", url=f"{site}/form.html")
    got = daemon.call("cookies.get", session=s, domain="127.0.0.1")["cookies"]
    assert [(c["name"], c["value"]) for c in got] == [("a", "b")]
    # A value may come from stdin rather than the command line.
    run = daemon.cli(
        "cookies", "set", "piped", "--stdin", "--domain", "127.0.0.1", "--session", s, stdin="p"
    )
    assert run.rc == 0, run.err
    got = daemon.call("cookies.get", session=s, name="piped")["cookies"]
    assert [c["value"] for c in got] == ["p"]
