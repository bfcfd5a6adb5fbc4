"""The watchdog against real Chromium: a real consent library, a newsletter modal, chat widgets,
and a site's own banner that no pattern knows."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.async_api import ElementHandle, Page, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

from steadyhand.act.cover import dismiss_cover
from steadyhand.act.watchdog import Pattern, builtin_patterns, load_patterns, sweep
from steadyhand.act.watchdog_patterns import parse_selector
from steadyhand.config import Settings
from steadyhand.engine.chromium import find_chromium, launch_args
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings, running_daemon

pytestmark = pytest.mark.integration

BUILTIN = builtin_patterns()
# Dismissals end as soon as the banner is gone; the budget only matters on a loaded machine.
PATIENT_MS = 10_000
# A banner that stays costs its whole budget: long enough for the click itself to land on a
# loaded machine, short enough for the test.
STUCK_MS = 2_000


@asynccontextmanager
async def fresh_page(state_dir: Path, url: str) -> AsyncIterator[Page]:
    """A page in a new browser (so no consent cookie survives) at `url`."""
    settings = Settings.load(state_dir=state_dir)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(find_chromium(settings.chromium)),
            headless=settings.headless,
            args=launch_args(settings.state_dir),
        )
        try:
            page = await browser.new_page()
            await page.goto(url)
            yield page
        finally:
            await browser.close()


def run(state_dir: Path, url: str, scenario: Callable[[Page], Awaitable[None]]) -> None:
    async def main() -> None:
        async with fresh_page(state_dir, url) as page:
            await scenario(page)

    asyncio.run(main())


async def element(page: Page, selector: str) -> ElementHandle:
    handle = await page.query_selector(selector)
    assert handle is not None, selector
    return handle


async def covered(page: Page, selector: str) -> bool:
    """Whether something else would take a click on `selector` (a trial click times out)."""
    try:
        await page.click(selector, trial=True, timeout=1000)
    except PlaywrightTimeout:
        return True
    return False


async def text(page: Page, selector: str) -> str:
    return await page.inner_text(selector)


def test_a_real_consent_library_is_answered_and_records_consent(site: str, tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        await page.wait_for_selector("#cc-main .cm", state="visible")
        assert await covered(page, "#checkout"), "the library's overlay blocks the page"
        assert not [c for c in await page.context.cookies() if c["name"] == "cc_cookie"]

        done = await sweep(page, BUILTIN, await element(page, "#checkout"), PATIENT_MS)

        assert done == [
            {
                "kind": "cookie-consent",
                "name": "vanilla-cookieconsent",
                "action": "clicked",
                "label": "Accept all",
            }
        ]
        assert await text(page, "#consent") == "consent: necessary,analytics"
        cookie = next(c for c in await page.context.cookies() if c["name"] == "cc_cookie")
        assert "analytics" in cookie["value"], "the library stored the answer it was given"
        assert not await page.is_visible("#cc-main .cm")
        await page.click("#checkout", timeout=PATIENT_MS)
        assert await text(page, "#out") == "checked out"
        assert await sweep(page, BUILTIN) == [], "answered: nothing left to dismiss"

    run(tmp_path, f"{site}/consent.html", scenario)


def test_a_newsletter_modal_is_closed_and_the_button_under_it_gets_the_click(
    site: str, tmp_path: Path
) -> None:
    async def scenario(page: Page) -> None:
        await page.wait_for_selector('[role="dialog"]', state="visible")
        assert await covered(page, "#buy")
        email = await element(page, 'input[type="email"]')
        assert await sweep(page, BUILTIN, email, PATIENT_MS) == [], "acting on the modal itself"
        assert await page.is_visible('[role="dialog"]')

        done = await sweep(page, BUILTIN, await element(page, "#buy"), PATIENT_MS)

        assert done == [
            {
                "kind": "newsletter",
                "name": "newsletter modal",
                "action": "clicked",
                "label": "Close",
            }
        ]
        assert not await page.is_visible('[role="dialog"]')
        await page.click("#buy", timeout=PATIENT_MS)
        assert await text(page, "#out") == "bought"

    run(tmp_path, f"{site}/newsletter.html", scenario)


def test_an_interruption_over_another_is_dismissed_first(site: str, tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        assert await covered(page, "#cn-accept-cookie")
        # Clicking the covered banner first would wait out its whole budget and fail.
        done = await sweep(page, BUILTIN, timeout_ms=3000)
        assert done == [
            {
                "kind": "newsletter",
                "name": "newsletter modal",
                "action": "clicked",
                "label": "Close",
            },
            {"kind": "cookie-consent", "name": "cookie-notice", "action": "clicked", "label": "Ok"},
        ]

    run(tmp_path, f"{site}/stacked.html", scenario)


def test_a_chat_widget_is_hidden_only_when_it_covers_the_target(site: str, tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        launcher = ".intercom-lightweight-app-launcher"
        assert await sweep(page, BUILTIN) == [], "no target: a chat widget harms nothing"
        assert await sweep(page, BUILTIN, await element(page, "#help")) == []
        assert await page.is_visible(launcher), "it covers Send, not Help"
        assert await covered(page, "#send")

        done = await sweep(page, BUILTIN, await element(page, "#send"))

        assert done == [
            {"kind": "chat-widget", "name": "Intercom", "action": "hidden", "label": ""}
        ]
        assert not await page.is_visible("#intercom-container")
        await page.click("#send", timeout=PATIENT_MS)
        assert await text(page, "#out") == "sent", "the launcher was hidden, never clicked"

    run(tmp_path, f"{site}/chat.html", scenario)


@pytest.mark.parametrize("origin", ["same", "cross"])
def test_a_chat_widget_over_an_iframe_target_is_hidden(
    site: str, cross_site: str, tmp_path: Path, origin: str
) -> None:
    frame_url = f"{cross_site}/pay-frame.html" if origin == "cross" else "pay-frame.html"

    async def scenario(page: Page) -> None:
        frame = page.frame_locator('iframe[title="payment"]')
        await frame.locator("#pay").wait_for()
        pay = await frame.locator("#pay").element_handle()
        assert await page.is_visible("#crisp")

        done = await sweep(page, BUILTIN, pay)

        assert done == [{"kind": "chat-widget", "name": "Crisp", "action": "hidden", "label": ""}]
        await pay.click(timeout=PATIENT_MS)
        assert await pay.inner_text() == "Paid"

    run(tmp_path, f"{site}/chat-frame.html?frame={quote(frame_url)}", scenario)


def test_nothing_visible_means_nothing_done_and_a_closed_page_no_error(
    site: str, tmp_path: Path
) -> None:
    async def scenario(page: Page) -> None:
        assert await sweep(page, BUILTIN) == []
        assert await sweep(page, BUILTIN, await element(page, "#go")) == []
        await page.click("#go", timeout=PATIENT_MS)
        assert await text(page, "#out") == "went"
        target = await element(page, "#go")
        await page.close()
        assert await sweep(page, BUILTIN, target) == [], "a closed page is not an error"

    run(tmp_path, f"{site}/quiet.html", scenario)


def test_every_builtin_selector_is_css_chromium_accepts(site: str, tmp_path: Path) -> None:
    # The sweep skips a selector the browser rejects (one bad user pattern must not stop the
    # others), so a typo in a built-in would never fire and never fail: check them here.
    selectors = sorted(
        {
            alt.css
            for pattern in BUILTIN
            for selector in (pattern.container, pattern.dismiss)
            for alt in parse_selector(selector)
        }
    )

    async def scenario(page: Page) -> None:
        rejected = await page.evaluate(
            """css => css.filter(c => {
                try { document.querySelector(c); return false; } catch { return true; }
            })""",
            selectors,
        )
        assert rejected == []

    assert len(selectors) > 50
    run(tmp_path, f"{site}/quiet.html", scenario)


def test_a_banner_that_does_not_go_away_is_reported_failed(site: str, tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        done = await sweep(page, BUILTIN, timeout_ms=STUCK_MS)
        assert done == [
            {"kind": "cookie-consent", "name": "cookie-notice", "action": "failed", "label": "Ok"}
        ]
        assert await page.is_visible("#cookie-notice")
        assert await text(page, "#clicks") == "clicks: 1"
        again = await sweep(page, BUILTIN, timeout_ms=STUCK_MS)
        assert again == done, "still reported"
        assert await text(page, "#clicks") == "clicks: 1", "but not clicked again on this document"
        await page.reload()
        await sweep(page, BUILTIN, timeout_ms=STUCK_MS)
        assert await text(page, "#clicks") == "clicks: 1", "a new document is tried afresh"

    run(tmp_path, f"{site}/stuck.html", scenario)


def test_a_banner_in_a_shadow_root_is_answered(site: str, tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        done = await sweep(page, BUILTIN, timeout_ms=PATIENT_MS)
        assert done == [
            {
                "kind": "cookie-consent",
                "name": "Usercentrics",
                "action": "clicked",
                "label": "Accept All",
            }
        ]
        assert await text(page, "#consent") == "consent: Accept All"

    run(tmp_path, f"{site}/shadow-consent.html", scenario)


def test_a_users_pattern_file_adds_a_pattern_that_fires(site: str, tmp_path: Path) -> None:
    extra = tmp_path / "patterns.json"
    extra.write_text(
        json.dumps(
            [
                {
                    "kind": "newsletter",
                    "name": "acme promo",
                    "container": ".acme-promo",
                    "dismiss": ".acme-promo-dismiss",
                }
            ]
        )
    )
    patterns = load_patterns(extra)
    assert patterns[0] == Pattern("newsletter", "acme promo", ".acme-promo", ".acme-promo-dismiss")

    async def scenario(page: Page) -> None:
        assert await sweep(page, BUILTIN) == [], "no built-in knows this banner"
        done = await sweep(page, patterns, timeout_ms=PATIENT_MS)
        assert done == [
            {"kind": "newsletter", "name": "acme promo", "action": "clicked", "label": "Hide"}
        ]
        assert await page.query_selector(".acme-promo") is None

    run(tmp_path, f"{site}/promo.html", scenario)


# ---------------------------------------------------------------- the generic banner rule

BANNER = {"kind": "banner", "name": 'dialog "Cookies"', "action": "clicked", "label": "Accept"}


def test_a_plain_banner_over_the_target_is_accepted_and_the_click_goes_through(
    daemon: Daemon, site: str
) -> None:
    s = "plain-banner"
    daemon.call("open", session=s, url=f"{site}/banner.html")
    buy = find_ref(daemon.snapshot(s), "button", "Buy")
    done = daemon.call("click", session=s, ref=buy)
    assert done["watchdog"] == [BANNER]
    page = daemon.snapshot(s)
    assert "not bought" not in page and "bought" in page, page
    assert "consent: Accept" in page and 'dialog "Cookies"' not in page, "accepted and gone"


def test_the_generic_banner_rule_can_be_turned_off(
    tmp_path_factory: pytest.TempPathFactory, site: str
) -> None:
    state = tmp_path_factory.mktemp("state")
    with running_daemon(make_settings(state, watchdog_generic_banners=False)) as off:
        s = "banner-off"
        off.call("open", session=s, url=f"{site}/banner.html")
        buy = find_ref(off.snapshot(s), "button", "Buy")
        err = off.fail("click", session=s, ref=buy, timeout="4s")
        assert err.code == "not_actionable", err
        assert 'covered by dialog "Cookies' in err.message, err.message
        page = off.snapshot(s)
        assert "not bought" in page and "consent: none" in page


@pytest.mark.parametrize(
    "case",
    [
        # Settings is no way out: the one accept-like control is.
        ("banner.html?settings", "#buy", BANNER, "consent: Accept"),
        # Accept and OK: two ways to accept, nothing is chosen for the agent.
        ("banner.html?two", "#buy", None, "consent: none"),
        # Its only "OK" is a link to another page: never followed.
        ("banner.html?link", "#buy", None, "consent: none"),
        # The target is inside the banner (under a toast of its own): the agent works there.
        ("banner.html?inside", "#learn", None, "consent: none"),
        # A page laid out in a fixed full-page shell: the shell is no dialog the agent is in.
        ("banner.html?shell", "#buy", BANNER, "consent: Accept"),
        # A veil without controls, over the whole page: nothing to click.
        ("gauntlet/overlay.html?stay", "#pay", None, None),
    ],
)
def test_the_generic_rule_clicks_only_a_single_way_out_of_a_banner_around_the_target(
    site: str, tmp_path: Path, case: tuple[str, str, dict[str, str] | None, str | None]
) -> None:
    path, target, expected, consent = case

    async def scenario(page: Page) -> None:
        url = page.url
        assert await covered(page, target)
        done = await dismiss_cover(await element(page, target), PATIENT_MS)
        assert done == expected
        assert page.url == url
        if consent is not None:
            assert await text(page, "#consent") == consent
        assert await covered(page, target) == (expected is None)

    run(tmp_path, f"{site}/{path}", scenario)
