"""engine/emulation.py without a browser: what is accepted, refused, and made of it."""

from __future__ import annotations

from typing import Any

import pytest

from steadyhand.engine.emulation import (
    check,
    context_options,
    describe,
    flag,
    given,
    parse_geolocation,
    parse_viewport,
)
from steadyhand.errors import SteadyhandError

PHONE = {
    "user_agent": "Phone/1",
    "viewport": {"width": 390, "height": 664},
    "screen": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
    "default_browser_type": "webkit",
}
DEVICES: dict[str, Any] = {"iPhone 13": PHONE, "iPhone 13 landscape": PHONE, "Pixel 7": PHONE}


def refused(spec: dict[str, Any]) -> SteadyhandError:
    with pytest.raises(SteadyhandError) as caught:
        check(spec, DEVICES)
    assert caught.value.code == "bad_request"
    return caught.value


def test_geolocation_is_lat_lon_and_an_optional_accuracy() -> None:
    assert parse_geolocation("48.85, 2.29") == {"latitude": 48.85, "longitude": 2.29}
    assert parse_geolocation("-33.9,151.2,30") == {
        "latitude": -33.9,
        "longitude": 151.2,
        "accuracy": 30.0,
    }
    for bad in ("", "north", "1", "1,2,3,4", "91,0", "0,181", "1,2,-5", "nan,0", "inf,1"):
        with pytest.raises(SteadyhandError):
            parse_geolocation(bad)


def test_viewport_is_width_x_height() -> None:
    assert parse_viewport("390x844") == {"width": 390, "height": 844}
    assert parse_viewport(" 800 X 600 ") == {"width": 800, "height": 600}
    for bad in ("wide", "0x600", "800x", "99999x10", "-1x5", "99x600", "10001x600"):
        with pytest.raises(SteadyhandError):
            parse_viewport(bad)


def test_unknown_devices_and_timezones_are_refused_naming_the_closest() -> None:
    assert "iPhone 13" in refused({"device": "iphone 13"}).hint, "case matters to Playwright"
    assert "Europe/Paris" in refused({"timezone": "Europe/Pari"}).hint
    assert "Playwright" in refused({"device": "Nokia 3310"}).hint
    refused({"locale": "fr_FR!"})
    refused({"color_scheme": "sepia"})
    refused({"user_agent": ""})
    refused({"user_agent": "Mine/1\nX-Evil: 1"})  # Chromium refuses it at the first page
    check(
        {"device": "Pixel 7", "timezone": "Asia/Tokyo", "locale": "ja-JP", "color_scheme": "dark"},
        DEVICES,
    )


def test_options_given_override_the_devices_and_geolocation_is_granted() -> None:
    spec = given(device="iPhone 13", user_agent="Mine/2", timezone="UTC", geolocation="1,2")
    options = context_options(spec, DEVICES)
    assert options["user_agent"] == "Mine/2" and options["timezone_id"] == "UTC"
    assert options["is_mobile"] and options["viewport"] == PHONE["viewport"]
    assert options["geolocation"] == {"latitude": 1.0, "longitude": 2.0}
    assert options["permissions"] == ["geolocation"]
    assert "default_browser_type" not in options, "not a context option"
    assert context_options({"device": "Gone 1"}, DEVICES) == {}, "a checkpoint's old device"
    assert given() == {}


def test_the_description_is_one_short_line_of_what_was_given() -> None:
    spec = given(device="Pixel 7", locale="fr-FR", geolocation="35.6762,139.6503,10")
    assert describe(spec) == "Pixel 7, fr-FR, geo 35.6762,139.6503 ±10 m"
    assert describe({}) == ""
    assert flag("geolocation", spec["geolocation"]) == "--geolocation 35.6762,139.6503,10"
