"""scroll, resize, wait, evaluate, pdf, console and network against real Chromium."""

from __future__ import annotations

import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from steadyhand import rpc_client
from steadyhand.snapshot.lookup import find_ref
from steadyhand.store.sqlite import Store
from tests.conftest import Daemon

pytestmark = pytest.mark.integration


# ---------------------------------------------------------------- scroll


def test_scroll_the_page_by_pixels_and_to_the_ends(daemon: Daemon, site: str) -> None:
    s = "scroll-page"
    daemon.call("open", session=s, url=f"{site}/scroll.html")
    down = daemon.call("scroll", session=s, dy=500)
    assert down["action"] == "scroll" and down["scroller"] == "window" and down["moved"]
    assert (down["before"]["y"], down["after"]["y"]) == (0, 500)
    assert down["changes"] is not None, "an act command: it reports what changed"
    bottom = daemon.call("scroll", session=s, to="bottom", changes=False)
    assert bottom["moved"] and bottom["after"]["y"] == bottom["after"]["max_y"] > 500
    again = daemon.call("scroll", session=s, to="bottom", changes=False)
    assert again["moved"] is False and again["before"] == again["after"]
    further = daemon.call("scroll", session=s, dy=100, changes=False)
    assert further["moved"] is False, "already as far down as it goes"
    top = daemon.call("scroll", session=s, to="top", changes=False)
    assert top["moved"] and top["after"]["y"] == 0


def test_scroll_an_element_into_view_and_its_box(daemon: Daemon, site: str) -> None:
    s = "scroll-ref"
    daemon.call("open", session=s, url=f"{site}/scroll.html")
    page = daemon.snapshot(s)
    deep = find_ref(page, "button", "Deep in box")
    shown = daemon.call("scroll", session=s, ref=deep)
    assert shown["ref"] == deep and shown["scroller"] == "container" and shown["moved"]
    assert shown["after"]["y"] > 0
    still = daemon.call("scroll", session=s, ref=deep, into_view=True)
    assert still["moved"] is False, "already in view: nothing to do"
    box = find_ref(page, "region", "Scroll box")
    back = daemon.call("scroll", session=s, ref=box, to="top")
    assert back["scroller"] == "element" and back["after"]["y"] == 0 and back["moved"]
    bottom = find_ref(page, "button", "Bottom button")
    window = daemon.call("scroll", session=s, ref=bottom)
    assert window["scroller"] == "window" and window["after"]["y"] > 1000


def test_bad_scrolls_are_refused_and_the_session_lives_on(daemon: Daemon, site: str) -> None:
    s = "scroll-bad"
    daemon.call("open", session=s, url=f"{site}/scroll.html")
    for params in ({}, {"into_view": True}, {"dy": 10, "to": "top"}, {"to": "middle"}):
        error = daemon.fail("scroll", session=s, **params)
        assert error.code == "bad_request" and error.hint, params
    assert daemon.call("scroll", session=s, dy=50)["moved"]


# ---------------------------------------------------------------- resize


def test_resize_sets_the_viewport_the_page_sees(daemon: Daemon, site: str) -> None:
    s = "resize"
    daemon.call("open", session=s, url=f"{site}/scroll.html")
    done = daemon.call("resize", session=s, width=800, height=600)
    assert done["viewport"] == {"width": 800, "height": 600}
    assert done["previous"] == {"width": 1280, "height": 800}
    assert daemon.call("extract", session=s, kind="text", selector="#size")["text"] == (
        "size 800x600"
    )
    for width, height in ((99, 600), (800, 10_001), (-1, 0)):
        error = daemon.fail("resize", session=s, width=width, height=height)
        assert error.code == "bad_request" and "100 to 10000" in error.hint
    again = daemon.cli("resize", "1024", "700", "--session", s, "--json")
    assert again.rc == 0 and again.json["result"]["viewport"] == {"width": 1024, "height": 700}


# ---------------------------------------------------------------- wait


def test_wait_for_text_to_appear_and_go(daemon: Daemon, site: str) -> None:
    s = "wait-text"
    daemon.call("open", session=s, url=f"{site}/wait.html")
    page = daemon.snapshot(s)
    daemon.call("click", session=s, ref=find_ref(page, "button", "Start job"), changes=False)
    done = daemon.call("wait", session=s, text="Job done", text_gone="Loading")
    assert done["met"] == ["--text 'Job done'", "--text-gone 'Loading'"]
    assert 300 < done["waited_ms"] < 5_000
    assert "Job done" in daemon.snapshot(s)


def test_wait_for_url_and_load_state(daemon: Daemon, site: str) -> None:
    s = "wait-url"
    daemon.call("open", session=s, url=f"{site}/wait.html")
    page = daemon.snapshot(s)
    daemon.call("click", session=s, ref=find_ref(page, "button", "Go later"), changes=False)
    glob = daemon.call("wait", session=s, url="*/nav-b.html?from=*", load="load")
    assert glob["url_match"] == "glob" and glob["url"].endswith("/nav-b.html?from=wait")
    plain = daemon.call("wait", session=s, url="nav-b.html?from=wait", load="networkidle")
    assert plain["url_match"] == "substring"


def test_wait_for_an_element_by_ref(daemon: Daemon, site: str) -> None:
    s = "wait-ref"
    daemon.call("open", session=s, url=f"{site}/wait.html")
    page = daemon.snapshot(s)
    flash = find_ref(page, "button", "Flash")
    daemon.call("click", session=s, ref=find_ref(page, "button", "Blink"), changes=False)
    hidden = daemon.fail("wait", session=s, ref=flash, timeout="300")
    assert hidden.code == "timeout"
    shown = daemon.call("wait", session=s, ref=flash)
    assert shown["met"] == [f"--ref {flash}"]
    dismiss = find_ref(page, "button", "Dismiss")
    daemon.call("click", session=s, ref=dismiss, changes=False)
    gone = daemon.call("wait", session=s, ref_gone=dismiss)
    assert gone["met"] == [f"--ref-gone {dismiss}"] and gone["waited_ms"] > 100
    never = daemon.fail("wait", session=s, ref="e999")
    assert never.code == "not_found", "a ref never handed out fails at once, not at the deadline"
    daemon.call("navigate", session=s, url=f"{site}/wait.html")
    started = time.monotonic()
    left = daemon.fail("wait", session=s, ref=flash)
    assert left.code == "stale_ref" and time.monotonic() - started < 5, "its page is gone for good"
    assert daemon.call("wait", session=s, ref_gone=flash)["met"] == [f"--ref-gone {flash}"]


def test_wait_timeout_names_what_is_unmet(daemon: Daemon, site: str) -> None:
    s = "wait-timeout"
    daemon.call("open", session=s, url=f"{site}/wait.html")
    started = time.monotonic()
    error = daemon.fail("wait", session=s, text="Never there", url="wait.html", timeout="1500")
    assert time.monotonic() - started < 5
    assert error.code == "timeout"
    assert "--text 'Never there'" in error.message and "--url" not in error.message
    assert error.data["unmet"] == ["--text 'Never there'"]
    url = daemon.fail("wait", session=s, url="*/elsewhere", timeout="800")
    assert "(glob): the tab is at" in url.message
    capped = daemon.call("wait", session=s, ms=60_000, timeout="3000")
    assert "cut to fit" in capped["note"] and capped["waited_ms"] < 3_000
    slept = daemon.call("wait", session=s, ms=200)
    assert slept["waited_ms"] >= 200 and slept["note"] is None


def test_wait_without_a_condition_is_a_bad_request(daemon: Daemon, site: str) -> None:
    s = "wait-bad"
    daemon.call("open", session=s, url=f"{site}/wait.html")
    error = daemon.fail("wait", session=s)
    assert error.code == "bad_request" and "--text" in error.hint
    empty = daemon.fail("wait", session=s, text="")
    assert empty.code == "bad_request"
    bad_load = daemon.fail("wait", session=s, load="idle")
    assert bad_load.code == "bad_request"
    assert daemon.call("wait", session=s, text="Wait fixture")["met"]


# ---------------------------------------------------------------- evaluate


def test_evaluate_expressions_functions_and_elements(daemon: Daemon, site: str) -> None:
    s = "evaluate"
    daemon.call("open", session=s, url=f"{site}/form.html")
    title = daemon.call("evaluate", session=s, expression="document.title")
    assert title["value"] == "Form fixture" and title["type"] == "string"
    assert title["tab"] == "t1" and title["url"].endswith("/form.html")
    rich = daemon.call(
        "evaluate",
        session=s,
        expression="async () => ({n: 1.5, list: [1, NaN, undefined], big: 2n ** 64n, "
        "body: document.body, when: new Date(0), fn: function named() {}})",
    )
    assert rich["type"] == "object"
    value = rich["value"]
    assert value["n"] == 1.5 and value["list"] == [1, "NaN", None]
    assert value["big"] == "18446744073709551616n" and value["when"] == "1970-01-01T00:00:00.000Z"
    assert value["body"].startswith("<body>") and value["fn"].startswith("function named")
    cycle = daemon.call(
        "evaluate", session=s, expression="(() => { const o = {}; o.me = o; return o; })()"
    )
    assert cycle["value"] == {"me": "[Circular]"}
    nothing = daemon.call("evaluate", session=s, expression="undefined")
    assert nothing["value"] is None and nothing["type"] == "undefined"
    name = find_ref(daemon.snapshot(s), "textbox", "Name")
    daemon.call("type", session=s, ref=name, text="Ada")
    on_element = daemon.call(
        "evaluate", session=s, expression="el => [el.tagName, el.value]", ref=name
    )
    assert on_element["value"] == ["INPUT", "Ada"] and on_element["type"] == "array"
    store = Store(daemon.settings.store_path)
    logged = [r.params for r in store.actions(s) if r.command == "evaluate"]
    store.close()
    assert logged[0] == {"expression": "document.title"}, "the script is the action: it is logged"


def test_evaluate_errors_are_reported(daemon: Daemon, site: str) -> None:
    s = "evaluate-bad"
    daemon.call("open", session=s, url=f"{site}/form.html")
    thrown = daemon.fail("evaluate", session=s, expression="() => { throw new TypeError('no') }")
    assert thrown.code == "action_failed" and "TypeError: no" in thrown.message
    syntax = daemon.fail("evaluate", session=s, expression="this is not ( js")
    assert syntax.code == "bad_request" and "SyntaxError" in syntax.message
    stale = daemon.fail("evaluate", session=s, expression="el => el.id", ref="e999")
    assert stale.code == "not_found"
    assert daemon.call("evaluate", session=s, expression="1 + 1")["value"] == 2


@pytest.fixture
def no_evaluate_daemon(fresh_daemon: Daemon) -> Iterator[Daemon]:
    locked = Daemon(fresh_daemon.settings.replace(allow_evaluate=False))
    rpc_client.start_daemon(locked.settings)  # the daemon runs on exactly these settings
    yield locked  # (fresh_daemon stops it: same state dir)


def test_evaluate_can_be_turned_off(no_evaluate_daemon: Daemon, site: str) -> None:
    d = no_evaluate_daemon
    d.call("open", session="locked", url=f"{site}/form.html")
    denied = d.fail("evaluate", session="locked", expression="document.title")
    assert denied.code == "policy_denied" and "allow_evaluate" in denied.hint
    assert d.call("extract", session="locked", kind="text", selector="h1")["text"]


# ---------------------------------------------------------------- pdf


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_pdf_to_the_artifacts_dir_and_to_a_path(daemon: Daemon, site: str, tmp_path: Path) -> None:
    s = "pdf"
    daemon.call("open", session=s, url=f"{site}/extract.html")
    done = daemon.call("pdf", session=s)
    path = Path(done["path"])
    assert path.parent == daemon.settings.artifacts_dir / s
    assert path.name.endswith(f"-pdf-{done['tab']}.pdf")
    (indexed,) = daemon.call("trace", name=s, last=1)["actions"][0]["artifacts"]
    assert (indexed["kind"], indexed["path"], indexed["bytes"]) == ("pdf", str(path), done["bytes"])
    assert path.read_bytes()[:5] == b"%PDF-" and done["bytes"] == path.stat().st_size > 1000
    assert mode(path) == 0o600 and mode(path.parent) == 0o700
    root = daemon.settings.artifacts_dir  # a file root (files_policy.py)
    target = root / "new" / "dir" / "out.pdf"
    chosen = daemon.call("pdf", session=s, path=str(target))
    assert chosen["path"] == str(target) and target.read_bytes()[:4] == b"%PDF"
    assert mode(target) == 0o600 and mode(target.parent) == 0o700 and mode(root / "new") == 0o700
    assert not [p for p in target.parent.iterdir() if p.name != "out.pdf"], "no temp file left"
    relative = daemon.call("pdf", session=s, path="page.pdf")  # in the session's folder
    assert relative["path"] == str(root / s / "page.pdf")
    outside = daemon.fail("pdf", session=s, path=str(tmp_path / "out.pdf"))
    assert outside.code == "policy_denied"
    folder = daemon.fail("pdf", session=s, path=str(root))
    assert folder.code == "bad_request"
    from_cli = daemon.cli("pdf", "cli.pdf", "--session", s, cwd=tmp_path)
    assert from_cli.rc == 0, from_cli.err
    assert (tmp_path / "cli.pdf").read_bytes()[:4] == b"%PDF"


def test_pdf_needs_a_headless_browser(
    fresh_daemon: Daemon, site: str, virtual_display: str
) -> None:
    env = dict(fresh_daemon.env, DISPLAY=virtual_display)
    try:
        assert fresh_daemon.cli("daemon", "start", "--headed", env=env).rc == 0
        assert fresh_daemon.cli("open", f"{site}/nav-a.html").rc == 0
        error = fresh_daemon.fail("pdf")
        assert error.code == "bad_request" and "headless" in error.message
        assert fresh_daemon.call("extract", kind="text", selector="h1")["text"] == "Page A"
    finally:
        fresh_daemon.stop()


# ---------------------------------------------------------------- console and network


def test_console_levels_errors_limit_and_clear(daemon: Daemon, site: str) -> None:
    s = "console"
    daemon.call("open", session=s, url=f"{site}/logs.html")
    page = daemon.snapshot(s)
    daemon.call("click", session=s, ref=find_ref(page, "button", "Log things"), changes=False)
    daemon.call("click", session=s, ref=find_ref(page, "button", "Throw"), changes=False)
    daemon.call("wait", session=s, ms=200)
    every = daemon.call("console", session=s)
    texts = [(m["level"], m["text"]) for m in every["messages"]]
    assert texts[:5] == [
        ("log", "page loaded"),
        ("debug", "debug detail"),
        ("info", "info message"),
        ("warning", "careful now"),
        ("error", "it broke"),
    ]
    thrown = every["messages"][5]
    assert thrown["type"] == "pageerror" and thrown["text"] == "TypeError: uncaught on purpose"
    assert thrown["location"].startswith(f"{site}/logs.html:")
    assert every["messages"][0]["location"] == f"{site}/logs.html:11"
    assert (
        every["total"] == 6 and every["dropped"] == 0 and "[warning] careful now" in every["text"]
    )
    serious = daemon.call("console", session=s, level="warning")
    assert [m["text"] for m in serious["messages"]] == [
        "careful now",
        "it broke",
        "TypeError: uncaught on purpose",
    ]
    latest = daemon.call("console", session=s, limit=2, clear=True)
    assert [m["text"] for m in latest["messages"]] == ["it broke", "TypeError: uncaught on purpose"]
    assert latest["total"] == 6 and "4 earlier" in latest["text"]
    assert daemon.call("console", session=s)["messages"] == []
    bad = daemon.fail("console", session=s, level="fatal")
    assert bad.code == "bad_request"
    assert daemon.call("console", session=s, limit=1)["total"] == 0


def test_network_statuses_failures_filter_redaction_and_clear(daemon: Daemon, site: str) -> None:
    s = "network"
    daemon.call("open", session=s, url=f"{site}/logs.html")
    page = daemon.snapshot(s)
    daemon.call("click", session=s, ref=find_ref(page, "button", "Fetch things"), changes=False)
    daemon.call("wait", session=s, text="fetched 200 404 failed=yes")
    every = daemon.call("network", session=s)["requests"]
    assert every[0]["url"] == f"{site}/logs.html" and every[0]["resource_type"] == "document"
    assert every[0]["status"] == 200 and every[0]["duration_ms"] is not None
    urls = [r["url"] for r in every]
    assert f"{site}/nav-a.html?token=[redacted]&page=2" in urls
    assert f"{site}/no-such-file.json?api_key=[redacted]&q=x" in urls
    assert not any("abc123" in u or "k9" in u for u in urls), "secret values never shown"
    failed = daemon.call("network", session=s, failed=True)["requests"]
    assert [(r["status"], r["failure"] is not None) for r in failed] == [(404, False), (None, True)]
    only = daemon.call("network", session=s, filter="nav-a")
    assert only["total"] == 1 and only["requests"][0]["method"] == "GET"
    assert daemon.call("network", session=s, filter="abc123")["total"] == 0
    daemon.call("network", session=s, clear=True, limit=1)
    assert daemon.call("network", session=s)["requests"] == []
    bad = daemon.fail("network", session=s, limit=0)
    assert bad.code == "bad_request"
    daemon.call("reload", session=s)
    assert daemon.call("network", session=s)["requests"][0]["url"] == f"{site}/logs.html"


def test_logs_are_per_tab(daemon: Daemon, site: str) -> None:
    s = "logs-tabs"
    daemon.call("open", session=s, url=f"{site}/logs.html")
    daemon.call("tab.new", session=s, url=f"{site}/nav-a.html")
    assert daemon.call("console", session=s)["messages"] == []
    first = daemon.call("console", session=s, tab="t1")
    assert first["tab"] == "t1" and first["messages"][0]["text"] == "page loaded"
    second = daemon.call("network", session=s, tab="t2")["requests"]
    assert [r["url"] for r in second] == [f"{site}/nav-a.html"]
