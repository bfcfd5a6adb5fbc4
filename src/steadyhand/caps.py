"""Capability groups: which commands an agent is offered (`mcp --caps`, `tools --caps`).

Each command belongs to one group, declared in the command table (`@command(caps=...)`,
"core" unless it says otherwise). A front offering tools to agents offers the groups it
is given, `core` always among them (without snapshot and click no other group is of
use); `all` names every group. Given none, it offers `core` alone: an agent host sends
the whole tool list with every turn, so each group costs on every turn (docs/fronts/mcp.md's
"Capability groups" has each group's size), and core's 27 tools do a whole browser task
(a popup or another tab is reached by the `tab` option every tool takes).

Standard library only: `steadyhand mcp` reads its groups before the SDK and the command
table have loaded (fronts/mcp/stdio.py answers the tool list from its cache meanwhile).
"""

from __future__ import annotations

from collections.abc import Iterable

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
    "observe": "console, network, har, trace (and trace.start/stop), report, metrics, policy, "
    "record.start/stop",
    "storage": "cookies.*, storage.* (localStorage, sessionStorage), profile.*",
    "network": "route, unroute, routes, offline: mock or block requests, go offline",
    "sessions": "sessions, session.suspend/restore, emulate, daemon.status, "
    "extension.status/detach",
    "approvals": "a person in the loop: approvals, request_approval, takeover, handback",
    "flows": "flow.run, flow.save, flow.list, flow.show, flow.export: replay a task done "
    "once, without a model",
    DESKTOP: "every desktop.* command (native apps over AT-SPI and X)",
}


def default_caps() -> frozenset[str]:
    """What a front offers when it is given no groups: core."""
    return frozenset({CORE})


def select_caps(given: str | Iterable[str] | None) -> frozenset[str]:
    """The groups named (`"core,tabs"` or a list; `all`), with `core`; None: the default."""
    if given is None:
        return default_caps()
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
    + f", or {ALL}; {CORE} is always on, and the default (each group adds tools an agent "
    "reads every turn)"
)
