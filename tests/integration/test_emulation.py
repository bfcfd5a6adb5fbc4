"""Emulation: `open --device/--user-agent/--locale/--timezone/--geolocation/--color-scheme`
and `emulate` on a live session, read back by a page (tests/fixtures/site/emulation.html)
that prints what the browser tells it; kept in checkpoints across a daemon restart, on
throwaway contexts, persistent profiles and a browser endpoint alike. Real Chromium, pages
on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from steadyhand import rpc_client
from tests.conftest import Daemon
from tests.integration.test_endpoints import cdp_chromium

pytestmark = pytest.mark.integration

PAGE = "emulation.html"


def shown(d: Daemon, session: str) -> dict[str, str]:
    """What the page prints (`key: value` per line), once its geolocation answered."""
    d.call("wait", session=session, text_gone="geo: pending")
    lines = [line.strip().removeprefix("- listitem: ") for line in d.snapshot(session).splitlines()]
    pairs = [line.split(": ", 1) for line in lines if ": " in line and not line.startswith("-")]
    return {key: value for key, value in pairs}


def test_a_device_gives_its_size_user_agent_scale_and_touch(daemon: Daemon, site: str) -> None:
    daemon.call("open", session="phone", url=f"{site}/{PAGE}", device="iPhone 13")
    page = shown(daemon, "phone")
    assert page["width"] == "390" and page["dpr"] == "3" and page["touch"] == "true", page
    assert "iPhone" in page["ua"], page
    assert page["geo"].startswith("error"), "no geolocation given: none granted"
    listed = {s["name"]: s for s in daemon.call("sessions")["sessions"]}
    assert listed["phone"]["emulation"] == "iPhone 13"


def test_no_emulation_is_the_settings_desktop(daemon: Daemon, site: str) -> None:
    daemon.call("open", session="plain", url=f"{site}/{PAGE}")
    page = shown(daemon, "plain")
    assert page["width"] == str(daemon.settings.viewport_width) and page["touch"] == "false"
    assert page["dark"] == "false" and "iPhone" not in page["ua"]
    listed = {s["name"]: s for s in daemon.call("sessions")["sessions"]}
    assert listed["plain"].get("emulation") is None
    plain = daemon.cli("sessions").out
    assert "emulation=" not in next(line for line in plain.splitlines() if "plain" in line)


def test_options_given_beside_a_device_override_it(daemon: Daemon, site: str) -> None:
    daemon.call(
        "open",
        session="custom",
        url=f"{site}/{PAGE}",
        device="Pixel 7",
        user_agent="steadyhand-test/1.0",
        locale="de-DE",
        timezone="America/New_York",
        geolocation="48.8584, 2.2945, 25",
        color_scheme="dark",
    )
    page = shown(daemon, "custom")
    assert page["ua"] == "steadyhand-test/1.0", "the user agent given, not the Pixel's"
    assert page["width"] == "412" and page["touch"] == "true", "the rest of the Pixel's"
    assert page["lang"] == "de-DE" and page["tz"] == "America/New_York" and page["dark"] == "true"
    assert page["geo"] == "48.8584,2.2945 ±25"
    row = next(line for line in daemon.cli("sessions").out.splitlines() if "custom" in line)
    assert (
        "emulation=Pixel 7, ua 'steadyhand-test/1.0', de-DE, America/New_York, "
        "geo 48.8584,2.2945 ±25 m, dark" in row
    ), row


def test_bad_options_are_refused_and_leave_sessions_as_they_were(daemon: Daemon, site: str) -> None:
    daemon.call("open", session="kept", url=f"{site}/{PAGE}", device="iPhone 13", locale="fr-FR")
    misspelt = daemon.fail("open", session="kept", url=f"{site}/{PAGE}", device="iphone 31")
    assert misspelt.code == "bad_request" and "iphone 31" in misspelt.message
    assert "iPhone 13" in misspelt.hint, misspelt.hint
    zone = daemon.fail("open", session="born", url=f"{site}/{PAGE}", timezone="Europe/Pari")
    assert zone.code == "bad_request" and "Europe/Paris" in zone.hint
    geo = daemon.fail("open", session="born", url=f"{site}/{PAGE}", geolocation="91,0")
    assert geo.code == "bad_request" and "LAT,LON" in geo.hint
    assert daemon.fail("open", session="born", url=site, color_scheme="sepia").code == "bad_request"
    assert "born" not in daemon.statuses(), "a refused open starts no session"
    other = daemon.fail("open", session="kept", url=f"{site}/{PAGE}", locale="de-DE")
    assert other.code == "bad_request" and "--locale" in other.message
    assert "fr-FR" in other.message and "close --session kept" in other.hint
    scheme = daemon.fail("open", session="kept", url=f"{site}/{PAGE}", color_scheme="dark")
    assert "emulate --color-scheme" in scheme.hint, "a live change is offered where there is one"
    live = daemon.fail("emulate", session="kept", locale="de-DE")
    assert live.code == "bad_request" and "--locale" in live.message
    assert "open URL --session NEW --locale" in live.message
    assert daemon.fail("emulate", session="kept", viewport="wide").code == "bad_request"
    assert daemon.fail("emulate", session="kept", geolocation="north").code == "bad_request"
    same = daemon.call("open", session="kept", url=f"{site}/{PAGE}", device="iPhone 13")
    assert same["tab"] == "t2", "asking for what it emulates already is no conflict"
    page = shown(daemon, "kept")
    assert page["lang"] == "fr-FR" and page["width"] == "390"
    assert [t["id"] for t in daemon.call("tabs", session="kept")["tabs"]] == ["t1", "t2"]


def test_emulate_changes_a_live_session_and_the_tabs_it_opens_later(
    daemon: Daemon, site: str
) -> None:
    s = "live"
    daemon.call("open", session=s, url=f"{site}/{PAGE}")
    assert shown(daemon, s)["dark"] == "false"
    changed = daemon.call(
        "emulate", session=s, color_scheme="dark", viewport="600x700", geolocation="51.5,-0.12"
    )
    assert changed["emulation"] == "geo 51.5,-0.12, dark" and changed["viewport"] == "600x700"
    daemon.call("wait", session=s, text="dark: true")  # the page hears it: no reload
    daemon.call("wait", session=s, text="width: 600")
    daemon.call("reload", session=s)
    assert shown(daemon, s)["geo"] == "51.5,-0.12 ±0"
    daemon.call("tab.new", session=s, url=f"{site}/{PAGE}")
    later = shown(daemon, s)
    assert later["dark"] == "true" and later["width"] == "600" and later["geo"].startswith("51.5")
    off = daemon.call("emulate", session=s, geolocation="off", color_scheme="light")
    assert off["emulation"] == "light"
    daemon.call("reload", session=s)
    assert shown(daemon, s)["geo"].startswith("error"), "the permission went with it"
    asked = daemon.cli("emulate", "--session", s)
    assert asked.rc == 0 and asked.out.splitlines() == [
        f"session: {s}",
        "emulation: light",
        "viewport: 600x700",
    ], asked.out


def test_a_profile_session_emulates_and_keeps_it_through_suspend_and_restore(
    daemon: Daemon, site: str
) -> None:
    daemon.call("profile.create", name="mobile")
    daemon.call(
        "open",
        session="prof",
        url=f"{site}/{PAGE}",
        profile="mobile",
        device="Pixel 7",
        locale="es-ES",
        timezone="Europe/Madrid",
        geolocation="40.4168,-3.7038",
    )
    first = shown(daemon, "prof")
    assert first["width"] == "412" and first["lang"] == "es-ES" and first["tz"] == "Europe/Madrid"
    assert first["geo"] == "40.4168,-3.7038 ±0" and "Pixel 7" in first["ua"]
    daemon.call("emulate", session="prof", color_scheme="dark")
    daemon.call("session.suspend", name="prof")
    daemon.call("session.restore", name="prof")
    again = shown(daemon, "prof")
    assert again == first | {"dark": "true"}, again
    daemon.call("close", session="prof")


def test_emulation_comes_back_after_a_daemon_restart(fresh_daemon: Daemon, site: str) -> None:
    d = fresh_daemon
    rpc_client.start_daemon(d.settings)
    d.call(
        "open",
        session="back",
        url=f"{site}/{PAGE}",
        device="iPhone 13",
        locale="ja-JP",
        timezone="Asia/Tokyo",
        geolocation="35.6762,139.6503,10",
    )
    d.call("emulate", session="back", color_scheme="dark")
    before = shown(d, "back")
    assert before["dark"] == "true" and before["width"] == "390" and before["tz"] == "Asia/Tokyo"
    assert d.cli("daemon", "stop").rc == 0
    rpc_client.start_daemon(d.settings)
    assert d.statuses()["back"] == "suspended"
    after = shown(d, "back")
    assert after == before, after
    listed = {s["name"]: s for s in d.call("sessions")["sessions"]}
    emulates = "iPhone 13, ja-JP, Asia/Tokyo, geo 35.6762,139.6503 ±10 m, dark"
    assert listed["back"]["emulation"] == emulates


def test_a_session_on_a_browser_endpoint_emulates_too(
    daemon: Daemon, site: str, tmp_path: Path
) -> None:
    server = cdp_chromium(tmp_path / "endpoint-profile")
    try:
        daemon.call(
            "open",
            session="remote",
            url=f"{site}/{PAGE}",
            cdp=server.url,
            device="Pixel 7",
            locale="pt-BR",
            geolocation="-23.55,-46.63",
        )
        page = shown(daemon, "remote")
        assert page["width"] == "412" and page["lang"] == "pt-BR", page
        assert page["geo"] == "-23.55,-46.63 ±0" and "Pixel 7" in page["ua"]
        daemon.call("close", session="remote")
    finally:
        server.kill()
