"""`steadyhand report`: a known sequence of actions, its report opened in real Chromium."""

from __future__ import annotations

import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from playwright.sync_api import Page, sync_playwright

from steadyhand.engine.chromium import find_chromium, launch_args
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings, running_daemon

pytestmark = pytest.mark.integration

T = TypeVar("T")
TYPED = 'Ada <img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon that screenshots every act before and after (and failures, by default)."""
    settings = make_settings(tmp_path_factory.mktemp("state"), step_screenshots=True)
    with running_daemon(settings) as handle:
        yield handle


def run_known_sequence(daemon: Daemon, site: str, session: str) -> int:
    """open, snapshot, type, click, a click on a ref never handed out, screenshot: 6."""
    daemon.call("open", session=session, url=f"{site}/form.html")
    snap = daemon.snapshot(session)
    daemon.call("type", session=session, ref=find_ref(snap, "textbox", "Name"), text=TYPED)
    daemon.call("click", session=session, ref=find_ref(snap, "button", "Place order"))
    assert daemon.fail("click", session=session, ref="e999").code == "not_found"
    daemon.call("screenshot", session=session)
    return 6


def view(daemon: Daemon, path: Path, scenario: Callable[[Page, list[str]], T]) -> T:
    """Open the report in a fresh Chromium (the suite's own binary) and run `scenario`."""
    settings = daemon.settings
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(find_chromium(settings.chromium)),
            headless=True,
            args=launch_args(settings.state_dir),
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            requested: list[str] = []
            page.on("request", lambda request: requested.append(request.url))
            page.goto(path.as_uri(), wait_until="load")
            return scenario(page, requested)
        finally:
            browser.close()


def test_the_report_renders_in_chromium_with_every_action_and_its_screenshots(
    daemon: Daemon, site: str
) -> None:
    session = "report-known"
    actions = run_known_sequence(daemon, site, session)
    target = daemon.settings.artifacts_dir / "report-out" / "report.html"  # in a file root
    out = daemon.call("report", name=session, path=str(target))
    path = Path(out["path"])
    trace = daemon.call("trace", name=session, last=0)

    assert (out["actions"], out["failed"]) == (actions, 1) == (trace["total"], trace["failed"])
    assert out["bytes"] == path.stat().st_size
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # type and click: before + after; the refused click (it acted on nothing): before only,
    # no failure screenshot; screenshot: its own
    assert (out["images_inlined"], out["images_left_out"]) == (6, 0)

    def check(page: Page, requested: list[str]) -> dict[str, Any]:
        seen: dict[str, Any] = page.evaluate(
            """() => ({
              title: document.title,
              heading: document.querySelector("h1").textContent,
              ids: [...document.querySelectorAll("li.action")].map(li => Number(li.dataset.id)),
              failed: [...document.querySelectorAll("li.action.failed")].map(li => li.innerText),
              images: [...document.images].map(img => ({
                data: img.currentSrc.startsWith("data:image/png;base64,"),
                complete: img.complete, width: img.naturalWidth,
              })),
              params: [...document.querySelectorAll(".params")].map(p => p.textContent).join(" "),
              pwned: window.pwned === undefined ? null : window.pwned,
              background: getComputedStyle(document.body).backgroundColor,
            })"""
        )
        page.locator("figure.shot img").first.click()  # the page's own script zooms it
        seen["zoomed"] = page.locator("figure.shot.zoomed").count()
        page.check("#only-failed")
        seen["visible_when_filtered"] = page.locator("li.action:visible").count()
        seen["requested"] = list(requested)
        return seen

    seen = view(daemon, path, check)
    assert seen["title"] == f"steadyhand report · {session}"
    assert session in seen["heading"]
    assert seen["ids"] == [a["id"] for a in trace["actions"]]
    assert len(seen["ids"]) == actions
    assert len(seen["failed"]) == 1
    assert "not_found" in seen["failed"][0] and "handed out no ref e999" in seen["failed"][0]
    assert "Hint" in seen["failed"][0]
    assert len(seen["images"]) == 6
    assert all(i["data"] and i["complete"] and i["width"] > 0 for i in seen["images"])
    assert TYPED in seen["params"]  # shown as text, never run
    assert seen["pwned"] is None
    assert seen["background"] == "rgb(245, 246, 248)"  # the inline style passed the page's CSP
    assert seen["zoomed"] == 1  # its script passed the page's CSP too
    assert seen["visible_when_filtered"] == 1
    # The document itself was requested, and nothing but it (images are in it as data:).
    assert path.as_uri() in seen["requested"]
    assert all(url == path.as_uri() or url.startswith("data:") for url in seen["requested"]), seen[
        "requested"
    ]


def test_report_defaults_to_the_artifacts_dir_and_can_keep_the_last_actions(
    daemon: Daemon, site: str
) -> None:
    session = "report-last"
    actions = run_known_sequence(daemon, site, session)
    out = daemon.call("report", session=session, last=2)
    path = Path(out["path"])

    assert path.parent == daemon.settings.artifacts_dir / session
    assert path.name.endswith("-report-session.html")
    assert (out["actions"], out["failed"]) == (2, 1)
    text = path.read_text()
    assert f"2 <span>of {actions}</span>" in text
    assert text.count('<li class="action ') == 2


def test_report_of_an_unknown_session(daemon: Daemon) -> None:
    err = daemon.fail("report", name="report-nobody")
    assert err.code == "unknown_session"
    assert "report-nobody" in err.message
    assert err.hint is not None and err.hint.startswith("sessions on record:")
