"""A session's emulation: a device of Playwright's list, user agent, locale, timezone,
geolocation and colour scheme.

Given when a session opens (`open --device "iPhone 13" --locale fr-FR ...`), it becomes the
options of the session's browser context and is kept in its checkpoints, so a restored
session comes back emulating the same. Options given beside a device override its values.
The spec is JSON-ready and holds only what was given: `device`, `user_agent`, `locale`,
`timezone`, `geolocation` ({latitude, longitude[, accuracy]}) and `color_scheme`.
"""

from __future__ import annotations

import difflib
import functools
import logging
import math
import re
import zoneinfo
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from steadyhand.errors import ErrorCode, SteadyhandError

if TYPE_CHECKING:
    from steadyhand.engine.session import Session

log = logging.getLogger("steadyhand.emulation")

COLOR_SCHEMES = ("light", "dark", "no-preference")
# Set when the context is made: a live session cannot change them.
AT_START = ("device", "user_agent", "locale", "timezone")
# What a device descriptor gives the context (its `default_browser_type` is not ours).
DEVICE_OPTIONS = (
    *("user_agent", "viewport", "screen"),
    *("device_scale_factor", "is_mobile", "has_touch"),
)
FLAGS = {
    "device": "--device",
    "user_agent": "--user-agent",
    "locale": "--locale",
    "timezone": "--timezone",
    "geolocation": "--geolocation",
    "color_scheme": "--color-scheme",
}
LOCALE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
VIEWPORT_MIN, VIEWPORT_MAX = 100, 10_000  # CSS pixels, either side (`resize` too)


def bad(message: str, hint: str) -> SteadyhandError:
    return SteadyhandError(ErrorCode.BAD_REQUEST, message, hint)


@functools.cache
def timezones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def _close(name: str, known: list[str]) -> str:
    """`A, B, C`: the known names nearest a misspelt one (case aside), or nothing."""
    lowered = {k.lower(): k for k in known}
    found = difflib.get_close_matches(name.lower(), list(lowered), n=5, cutoff=0.5)
    return ", ".join(lowered[f] for f in found)


def check(spec: Mapping[str, Any], devices: Mapping[str, Any]) -> None:
    """`bad_request` for a device, timezone, locale or scheme that is none."""
    device = spec.get("device")
    if device is not None and device not in devices:
        near = _close(device, list(devices))
        raise bad(
            f"--device: Playwright knows no device named {device!r}",
            (f"closest: {near}" if near else "names such as 'iPhone 13', 'Pixel 7', 'iPad Mini'")
            + " (Playwright's device list; quote a name with spaces)",
        )
    zone = spec.get("timezone")
    if zone is not None and zone not in timezones():
        near = _close(zone, sorted(timezones()))
        raise bad(
            f"--timezone: {zone!r} is no IANA timezone",
            (f"closest: {near}" if near else "e.g. Europe/Paris, America/New_York, UTC")
            + " (Area/City, as in the tz database)",
        )
    locale = spec.get("locale")
    if locale is not None and not LOCALE.match(locale):
        raise bad(f"--locale: {locale!r} is no locale", "a BCP 47 tag, e.g. en-US, fr-FR, de")
    scheme = spec.get("color_scheme")
    if scheme is not None and scheme not in COLOR_SCHEMES:
        raise bad(f"--color-scheme: {scheme!r}", f"one of {', '.join(COLOR_SCHEMES)}")
    agent = spec.get("user_agent")
    if agent is not None and (not agent or any(c < " " or c == "\x7f" for c in agent)):
        raise bad(
            f"--user-agent: {agent!r} is empty or holds control characters (newlines)",
            "give the user agent as one line, or leave it out",
        )


def parse_geolocation(text: str) -> dict[str, float]:
    """`LAT,LON[,ACCURACY]` (degrees, metres) as Playwright's geolocation."""
    parts = [p.strip() for p in text.split(",")]
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        numbers = []
    hint = "LAT,LON[,ACCURACY]: degrees and metres, e.g. 48.8584,2.2945 or 48.8584,2.2945,20"
    if len(numbers) not in (2, 3) or not all(math.isfinite(n) for n in numbers):
        raise bad(f"--geolocation: {text!r} is not LAT,LON[,ACCURACY]", hint)
    lat, lon = numbers[0], numbers[1]
    if not (-90 <= lat <= 90 and -180 <= lon <= 180) or (len(numbers) == 3 and numbers[2] < 0):
        raise bad(f"--geolocation: {text!r} is off the globe", hint)
    where = {"latitude": lat, "longitude": lon}
    return where | ({"accuracy": numbers[2]} if len(numbers) == 3 else {})


def parse_viewport(text: str) -> dict[str, int]:
    """`WIDTHxHEIGHT` in CSS pixels."""
    match = re.fullmatch(r"\s*(\d{1,5})\s*[xX]\s*(\d{1,5})\s*", text)
    size = [int(match[1]), int(match[2])] if match else []
    if not size or not all(VIEWPORT_MIN <= n <= VIEWPORT_MAX for n in size):
        raise bad(
            f"--viewport: {text!r} is not WIDTHxHEIGHT",
            f"CSS pixels from {VIEWPORT_MIN} to {VIEWPORT_MAX}, e.g. 390x844",
        )
    return {"width": size[0], "height": size[1]}


def context_options(spec: Mapping[str, Any], devices: Mapping[str, Any]) -> dict[str, Any]:
    """The spec as `new_context` / `launch_persistent_context` keyword arguments (the
    device's first, the options given beside it over them)."""
    options: dict[str, Any] = {}
    device = spec.get("device")
    if device is not None:
        descriptor = devices.get(device)
        if descriptor is None:  # a checkpoint of a Playwright that had it
            log.warning("device %r is not in this Playwright's list: not emulated", device)
        else:
            options |= {k: descriptor[k] for k in DEVICE_OPTIONS if k in descriptor}
    given = {
        "user_agent": spec.get("user_agent"),
        "locale": spec.get("locale"),
        "timezone_id": spec.get("timezone"),
        "color_scheme": spec.get("color_scheme"),
        "geolocation": spec.get("geolocation"),
    }
    options |= {k: v for k, v in given.items() if v is not None}
    if spec.get("geolocation") is not None:
        options["permissions"] = ["geolocation"]
    return options


def flag(key: str, value: Any) -> str:
    """An option as given on the command line: `--geolocation 48.85,2.29`."""
    if key == "geolocation" and isinstance(value, dict):
        value = ",".join(
            f"{value[k]:.10g}" for k in ("latitude", "longitude", "accuracy") if k in value
        )
    return f"{FLAGS[key]} {value}"


def conflicts(given: Mapping[str, Any], running: Mapping[str, Any]) -> list[str]:
    """The keys of `given` the running session emulates otherwise."""
    return [k for k, v in given.items() if running.get(k) != v]


def describe(spec: Mapping[str, Any]) -> str:
    """One short line: `iPhone 13, fr-FR, Europe/Paris, geo 48.85,2.29, dark`."""
    bits = [spec["device"]] if spec.get("device") else []
    if spec.get("user_agent"):
        bits.append(f"ua {spec['user_agent']!r}")
    bits += [spec[k] for k in ("locale", "timezone") if spec.get(k)]
    geo = spec.get("geolocation")
    if geo:
        accuracy = f" ±{geo['accuracy']:.10g} m" if "accuracy" in geo else ""
        bits.append(f"geo {geo['latitude']:.10g},{geo['longitude']:.10g}{accuracy}")
    if spec.get("color_scheme"):
        bits.append(spec["color_scheme"])
    return ", ".join(bits)


def given(
    *,
    device: str | None = None,
    user_agent: str | None = None,
    locale: str | None = None,
    timezone: str | None = None,
    geolocation: str | None = None,
    color_scheme: str | None = None,
) -> dict[str, Any]:
    """The spec of the options given (those left out are not in it)."""
    options: dict[str, Any] = {
        "device": device,
        "user_agent": user_agent,
        "locale": locale,
        "timezone": timezone,
        "geolocation": parse_geolocation(geolocation) if geolocation is not None else None,
        "color_scheme": color_scheme,
    }
    return {k: v for k, v in options.items() if v is not None}


async def change_live(
    session: Session,
    color_scheme: str | None = None,
    geolocation: dict[str, float] | Literal["off"] | None = None,
    viewport: dict[str, int] | None = None,
) -> None:
    """Change what a live session emulates where Playwright can without a new context:
    the colour scheme and viewport of every tab (and of tabs it opens later), and the
    geolocation (granted to every origin; "off": none, and the permission withdrawn)."""
    pages = [t.page for t in session.tabs.values() if not t.page.is_closed()]
    if color_scheme is not None:
        session.page_media["color_scheme"] = color_scheme
        for page in pages:
            await page.emulate_media(color_scheme=color_scheme)  # type: ignore[arg-type]
        session.emulation["color_scheme"] = color_scheme
    if viewport is not None:
        session.page_viewport = viewport
        for page in pages:
            await page.set_viewport_size(viewport)  # type: ignore[arg-type]
    if geolocation == "off":
        await session.context.set_geolocation(None)
        await session.context.clear_permissions()
        session.emulation.pop("geolocation", None)
    elif geolocation is not None:
        await session.context.grant_permissions(["geolocation"])
        await session.context.set_geolocation(geolocation)  # type: ignore[arg-type]
        session.emulation["geolocation"] = geolocation
