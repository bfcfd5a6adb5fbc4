"""Check and complete the URLs an agent asks to open."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from steadyhand.errors import ErrorCode, SteadyhandError

ALLOWED_SCHEMES = ("http", "https", "file", "about", "data")
_HOSTLIKE = re.compile(r"^(localhost|\d{1,3}(\.\d{1,3}){3}|[\w-]+(\.[\w-]+)+)(:\d+)?([/?#].*)?$")


def normalize_url(raw: str) -> str:
    """A URL Chromium can open: `example.com` becomes https://, localhost gets http://."""
    url = raw.strip()
    if not url:
        raise _invalid(raw, "the URL is empty")
    if url == "about:blank":
        return url
    if "://" not in url and not url.startswith(("about:", "data:")):
        if not _HOSTLIKE.match(url):
            raise _invalid(raw, "it has no scheme and does not look like a host name")
        local = url.startswith(("localhost", "127.", "[::1]"))
        url = ("http://" if local else "https://") + url
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsed on access: raises for a port out of range
    except ValueError as exc:  # "Invalid IPv6 URL", a bad port
        raise _invalid(raw, str(exc)) from exc
    if parts.scheme not in ALLOWED_SCHEMES:
        raise _invalid(raw, f"scheme {parts.scheme!r} is not allowed")
    if parts.scheme in ("http", "https") and not parts.hostname:
        raise _invalid(raw, "it has no host")
    return url


def _invalid(raw: str, why: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.INVALID_URL,
        f"cannot open {raw!r}: {why}",
        "give a full URL such as https://example.com/ or http://127.0.0.1:8000/; "
        "allowed schemes: " + ", ".join(ALLOWED_SCHEMES),
    )
