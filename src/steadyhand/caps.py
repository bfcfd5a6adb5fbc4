"""Capability groups: which commands an agent is offered (`mcp --caps`, `tools --caps`).

Each command belongs to one group, declared in the command table (`@command(caps=...)`,
"core" unless it says otherwise). A front offering tools to agents offers the groups it
is given, `core` always among them (without snapshot and click no other group is of
use); `all` names every group. Given none, it offers every group but `desktop` when no
desktop is reachable from this process (no DISPLAY: the desktop commands would only
fail), and every group when one is.

Standard library only: `steadyhand mcp` reads its groups before the SDK and the command
table have loaded (fronts/mcp_stdio.py answers the tool list from its cache meanwhile).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from steadyhand.errors import ErrorCode, SteadyhandError

CORE = "core"
DESKTOP = "desktop"
ALL = "all"
# The groups, in the order they are listed; what each holds.
CAPS: dict[str, str] = {
    CORE: "the loop: open/navigate/back/forward/reload, snapshot, find, extract, screenshot, "
    "click, type, fill, press, select, check, hover, drag, scroll, resize, wait, dialog, "
    "evaluate, secrets, close, batch",
    "tabs": "tabs, tab.new, tab.focus, tab.close",
    "files": "upload, download, pdf",
    "observe": "console, network, trace (and trace.start/stop), report, metrics, policy, "
    "record.start/stop",
    "storage": "cookies.*, storage.* (localStorage, sessionStorage), profile.*",
    "network": "route, unroute, routes, offline: mock or block requests, go offline",
    "sessions": "sessions, session.suspend/restore, emulate, daemon.status, "
    "extension.status/detach",
    "approvals": "a person in the loop: approvals, request_approval, takeover, handback",
    DESKTOP: "every desktop.* command (native apps over AT-SPI and X)",
}


def desktop_reachable(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this process sees a desktop: DISPLAY is set (the desktop commands' X
    input, windows and screen need it; a daemon started from here inherits it). A cheap
    check: nothing is connected to."""
    env = os.environ if environ is None else environ
    return bool(env.get("DISPLAY"))


def default_caps(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """Every group, less `desktop` when no desktop is reachable."""
    if desktop_reachable(environ):
        return frozenset(CAPS)
    return frozenset(CAPS) - {DESKTOP}


def select_caps(
    given: str | Iterable[str] | None, environ: Mapping[str, str] | None = None
) -> frozenset[str]:
    """The groups named (`"core,tabs"` or a list; `all`), with `core`; None: the default."""
    if given is None:
        return default_caps(environ)
    names = given.split(",") if isinstance(given, str) else list(given)
    chosen = {CORE}
    for raw in names:
        name = raw.strip().lower()
        if not name:
            continue
        if name == ALL:
            return frozenset(CAPS)
        if name not in CAPS:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"unknown capability group {raw.strip()!r}",
                f"groups: {', '.join(CAPS)} (or {ALL}); core is always on",
            )
        chosen.add(name)
    return frozenset(chosen)


def caps_text(caps: Iterable[str]) -> str:
    """The groups in table order, comma-separated: `core,tabs,files`."""
    chosen = set(caps)
    return ",".join(name for name in CAPS if name in chosen)


CAPS_HELP = (
    "capability groups of tools to offer, comma-separated: "
    + ", ".join(CAPS)
    + f", or {ALL}; {CORE} is always on. Default: all but {DESKTOP} when no desktop is "
    "reachable (DISPLAY unset), else all"
)
