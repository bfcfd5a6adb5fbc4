"""Browsers steadyhand did not launch: DevTools (CDP) endpoints and Playwright browser servers.

The setting `browser_endpoints` names them: entries separated by ";", each
`NAME=URL [HEADER=VALUE ...]`. The URL says what speaks there:

- `http(s)://host:port` or `ws(s)://host:port/devtools/browser/ID`: a Chromium's DevTools
  endpoint (`--remote-debugging-port`), reached with Playwright's `connect_over_cdp`;
- any other `ws(s)://` URL: a Playwright browser server (`playwright run-server`,
  `launch-server`, a hosted grid), reached with `connect`, Playwright's own protocol.

A header value may name secrets (`Authorization=Bearer {{secret:GRID_TOKEN}}`): they are
expanded in the daemon when it connects, never stored or shown. `open --browser NAME|URL`
picks an endpoint (a URL is an endpoint of its own, named by the URL); `local` is the
Chromium steadyhand launches on this machine. See Engine for how sessions use them.
"""

from __future__ import annotations

import asyncio
import re
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.redact import redact_url

LOCAL = "local"
AUTO = "auto"
CDP = "cdp"
PLAYWRIGHT = "playwright"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")


@dataclass(frozen=True)
class Endpoint:
    """One browser to connect to (not launch)."""

    name: str
    url: str
    kind: str  # CDP or PLAYWRIGHT
    headers: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    @property
    def host(self) -> str:
        return (urlsplit(self.url).hostname or "").lower()

    @property
    def on_this_machine(self) -> bool:
        """Its browser can reach this machine's loopback (where a session's proxy listens)."""
        host = self.host
        return host in LOOPBACK_HOSTS or host.startswith("127.")

    @property
    def where(self) -> str:
        """The URL as replies and logs show it: a password or token in it hidden."""
        return redact_url(self.url)

    def shown(self) -> dict[str, str]:
        """What replies and logs may say: no header values, no secret in the URL."""
        return {"name": redact_url(self.name), "kind": self.kind, "url": self.where}


def kind_of(url: str) -> str:
    """CDP or PLAYWRIGHT from the URL alone; a bad_request for anything else."""
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.hostname:
        return CDP
    if parts.scheme in ("ws", "wss") and parts.hostname:
        return CDP if parts.path.startswith("/devtools/") else PLAYWRIGHT
    raise SteadyhandError(
        ErrorCode.BAD_REQUEST,
        f"{url!r} is not a browser endpoint",
        "a DevTools endpoint is http://HOST:PORT (a Chromium started with "
        "--remote-debugging-port) or ws://HOST:PORT/devtools/browser/ID; a Playwright "
        "browser server is ws://HOST:PORT/PATH",
    )


def cdp_url(text: str) -> str:
    """`--cdp` accepts a port (`9222`: this machine), host:port or a URL."""
    text = text.strip()
    if text.isdigit():
        return f"http://127.0.0.1:{text}"
    if "://" not in text:
        return f"http://{text}"
    return text


def parse_endpoints(text: str) -> dict[str, Endpoint]:
    """The setting `browser_endpoints`, checked; bad_request naming the bad entry."""
    endpoints: dict[str, Endpoint] = {}
    for entry in filter(None, (part.strip() for part in text.split(";"))):
        words = entry.split()
        name, sep, url = words[0].partition("=")
        if not sep or not NAME.fullmatch(name) or name in (LOCAL, AUTO):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"browser_endpoints entry {entry.split('=', 1)[0]!r} is not NAME=URL "
                f"(a name of letters, digits, '_', '.', '-'; not {LOCAL!r} or {AUTO!r})",
                'e.g. browser_endpoints = "grid=ws://10.0.0.5:3000/; box=http://10.0.0.6:9222"',
            )
        if name in endpoints:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"browser_endpoints names {name!r} twice",
                "give each endpoint its own name",
            )
        headers: dict[str, str] = {}
        for word in words[1:]:
            header, sep, value = word.partition("=")
            if not sep or not header:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"browser_endpoints entry {name!r}: {header!r} is not HEADER=VALUE",
                    "headers follow the URL, e.g. Authorization=Bearer%20{{secret:TOKEN}}",
                )
            headers[header] = value.replace("%20", " ")
        endpoints[name] = Endpoint(name, url, kind_of(url), headers)
    return endpoints


def adhoc(url: str) -> Endpoint:
    """An endpoint named by its URL (`open --browser ws://...`, `open --cdp 9222`); a
    password or token in the URL is hidden in the name, which is shown and stored."""
    return Endpoint(redact_url(url), url, kind_of(url))


def least_loaded(candidates: list[str], load: dict[str, int]) -> list[str]:
    """The candidates, fewest sessions first (ties: in the order given)."""
    order = {name: i for i, name in enumerate(candidates)}
    return sorted(candidates, key=lambda name: (load.get(name, 0), order[name]))


async def address_towards(endpoint: Endpoint) -> str:
    """This machine's address on the route to the endpoint's host (where its browser can
    reach a proxy of ours); browser_not_found when there is no route."""
    parts = urlsplit(endpoint.url)
    port = parts.port or (443 if parts.scheme in ("https", "wss") else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            parts.hostname, port, type=socket.SOCK_DGRAM
        )
        family, _, _, _, address = infos[0]
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect(address)  # a UDP "connect" sends nothing: it only picks a route
            return str(probe.getsockname()[0])
    except (OSError, IndexError, UnicodeError) as exc:
        raise SteadyhandError(
            ErrorCode.BROWSER_NOT_FOUND,
            f"browser endpoint {endpoint.name!r}: no route to {parts.hostname}: {exc}",
            "check the endpoint's address (setting browser_endpoints)",
            {"endpoint": endpoint.shown()},
        ) from exc
