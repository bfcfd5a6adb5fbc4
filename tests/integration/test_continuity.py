"""No dead ends: suspended sessions come back on use, `close` always works, tabs are
capped, and the flags agents already know (`-i`, `-c`, `-d`, `@e12`) are accepted."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from steadyhand import rpc_client
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings

pytestmark = pytest.mark.integration
ACCOUNT = "account"


@pytest.fixture
def daemon_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Daemon]]:
    started: list[Daemon] = []

    def make(**settings: Any) -> Daemon:
        handle = Daemon(make_settings(tmp_path_factory.mktemp("state"), **settings))
        rpc_client.start_daemon(handle.settings)
        started.append(handle)
        return handle

    yield make
    for handle in started:
        handle.stop()


def log_in(d: Daemon, session: str, site: str) -> None:
    d.call("open", session=session, url=f"{site}/{ACCOUNT}/login.html")
    page = d.snapshot(session)
    d.call("type", session=session, ref=find_ref(page, "textbox", "Name"), text="Ada")
    assert d.call("click", session=session, ref=find_ref(page, "button", "Log in"))["navigated"]


def restart(d: Daemon) -> None:
    """`daemon stop` (its sessions are suspended) and a new daemon on the same state."""
    assert d.cli("daemon", "stop").rc == 0
    rpc_client.start_daemon(d.settings)


def test_a_command_on_a_suspended_session_restores_it_and_says_so(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory()
    log_in(d, "back", site)
    restart(d)
    assert d.statuses()["back"] == "suspended"
    shown = d.cli("snapshot", "--session", "back")
    assert shown.rc == 0, shown.err
    lines = shown.out.splitlines()
    assert lines[0].startswith("# t1 · ") and f"{ACCOUNT}/home.html" in lines[0]
    assert lines[1].startswith("restored from the checkpoint of ") and "home.html" in lines[1]
    assert "Logged in as Ada" in shown.out, "the cookie came back with the checkpoint"
    assert d.statuses()["back"] == "active"
    again = d.call("snapshot", session="back")
    assert "restored" not in again, "said once, by the command that restored it"


def test_open_on_a_suspended_session_restores_it_then_opens(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory()
    log_in(d, "reopen", site)
    restart(d)
    opened = d.call("open", session="reopen", url=f"{site}/nav-a.html")
    assert opened["restored"]["tabs"] == [f"t1 {site}/{ACCOUNT}/home.html"]
    assert opened["restored"]["lost"] == [] and opened["restored"]["checkpoint"] > 0
    assert opened["tab"] == "t2", "the id after the last one given: none skipped"
    assert [t["url"] for t in d.call("tabs", session="reopen")["tabs"]] == [
        f"{site}/{ACCOUNT}/home.html",
        f"{site}/nav-a.html",
    ]


def test_commands_racing_on_a_suspended_session_restore_it_once(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory()
    log_in(d, "race", site)
    restart(d)
    results: list[dict[str, Any]] = []

    def snap() -> None:
        results.append(d.call("snapshot", session="race"))

    threads = [threading.Thread(target=snap) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 3 and all("Logged in as Ada" in r["snapshot"] for r in results)
    assert sum("restored" in r for r in results) == 1, "one restore, told once"
    assert len(d.call("tabs", session="race")["tabs"]) == 1


def test_close_works_on_a_suspended_session_and_never_keeps_them_suspended(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory(restore_sessions="never")
    log_in(d, "kept", site)
    log_in(d, "gone", site)
    restart(d)
    refused = d.cli("snapshot", "--session", "kept")
    assert refused.rc != 0 and "[session_suspended]" in refused.err
    assert "home.html" in refused.err, "the message says what the checkpoint holds"
    assert "close --session kept" in refused.err and "session restore kept" in refused.err
    closed = d.cli("close", "--session", "gone")
    assert closed.rc == 0 and closed.out.strip() == "closed: gone", closed
    assert d.statuses() == {"kept": "suspended", "gone": "closed"}
    assert d.fail("session.restore", name="gone").code == "not_found", "its checkpoints went"
    assert d.call("session.restore", name="kept")["lost"] == []


def test_tabs_are_capped_naming_the_oldest_and_a_lone_blank_tab_is_reused(
    daemon_factory: Callable[..., Daemon], site: str
) -> None:
    d = daemon_factory(max_tabs=3)
    d.call("tab.new", session="tabs")  # one blank tab: `open` loads into it
    first = d.call("open", session="tabs", url=f"{site}/nav-a.html")
    assert first["tab"] == "t1"
    d.call("open", session="tabs", url=f"{site}/nav-b.html")
    d.call("tab.new", session="tabs")
    refused = d.fail("open", session="tabs", url=f"{site}/form.html")
    assert refused.code == "policy_denied" and "max_tabs" in refused.message
    assert f"t1 {site}/nav-a.html" in refused.message, refused.message
    assert refused.data["oldest"] == ["t1", "t2", "t3"] and "tab close t1" in refused.hint
    assert d.fail("tab.new", session="tabs").code == "policy_denied"
    assert len(d.call("tabs", session="tabs")["tabs"]) == 3, "the refusal opened nothing"
    d.call("tab.close", session="tabs", tab="t1")
    assert d.call("open", session="tabs", url=f"{site}/form.html")["url"] == f"{site}/form.html"


def test_short_flags_and_at_refs(daemon: Daemon, site: str) -> None:
    d = daemon
    d.call("open", session="flags", url=f"{site}/form.html")
    short = d.cli("snapshot", "-i", "--session", "flags")
    long = d.cli("snapshot", "--interactive", "--session", "flags")
    assert short.rc == 0 and short.out == long.out
    assert "[ref=" in short.out
    assert d.cli("snapshot", "-c", "--session", "flags").out == (
        d.cli("snapshot", "--compact", "--session", "flags").out
    )
    shallow = d.cli("snapshot", "-d", "1", "--session", "flags").out
    assert shallow == d.cli("snapshot", "--depth", "1", "--session", "flags").out
    assert len(shallow) < len(long.out)
    name = find_ref(short.out, "textbox", "Name")
    typed = d.cli("type", f"@{name}", "Ada", "--session", "flags", "--json")
    assert typed.rc == 0 and typed.json["result"]["ref"] == name, typed
    box = find_ref(short.out, "checkbox", "Gift wrap")
    checked = d.call("check", session="flags", ref=f"@{box}")
    assert checked["data"] == {"checked": True}
    filled = d.call("fill", session="flags", fields={f"@{name}": "Grace"})
    assert filled["data"]["filled"] == [name]
    assert (
        json.loads(
            d.call(
                "evaluate",
                session="flags",
                ref=f"@{name}",
                expression="(e) => JSON.stringify(e.value)",
            )["value"]
        )
        == "Grace"
    )
