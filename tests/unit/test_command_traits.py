"""The traits the table declares in place of the name lists other modules once kept.

Every front and rule reads these from the table, so a trait dropped from a command would
change behaviour silently (an agent offered `approve`, a person's decision open to any
token): each set is pinned here as the old lists had it.
"""

from __future__ import annotations

from steadyhand.caps import CAPS
from steadyhand.commands import COMMANDS
from steadyhand.fronts.agent.tools import agent_commands
from steadyhand.fronts.approver import DECIDING
from steadyhand.fronts.schema import AGENT_HIDDEN


def having(trait: str) -> set[str]:
    return {name for name, c in COMMANDS.items() if getattr(c, trait)}


def test_commands_kept_from_agents() -> None:
    hidden = {"daemon.stop", "approve", "deny", "extension.pair", "state.key", "state.rekey"}
    hidden |= {"desktop.takeover", "desktop.handback"}  # a person's, from the live view
    hidden |= {"flow.rm"}  # flows a fleet shares: a person removes them
    assert set(COMMANDS) - having("for_agents") == hidden == AGENT_HIDDEN
    assert not hidden & {c.name for c in agent_commands()}


def test_a_persons_decisions_and_the_handover() -> None:
    assert having("decides") == {"approve", "deny", "handback", "desktop.handback"} == DECIDING
    assert having("during_takeover") == {
        *("takeover", "handback"),
        *("desktop.takeover", "desktop.handback"),
    }


def test_what_the_approval_rules_apply_to() -> None:
    assert having("navigates") == {"open", "navigate", "tab.new"}
    assert having("on_element") == {"click", "download", "check", "uncheck", "select", "press"}


def test_what_may_change_the_page_and_what_needs_a_daemon() -> None:
    acting = having("acts") | having("creates_session")
    assert having("changes_page") == acting | {"evaluate", "back", "forward", "flow.run"}
    assert having("daemon_only") == {"daemon.stop"}


def test_only_batch_and_flow_run_run_other_commands() -> None:
    assert having("runs_steps") == {"batch", "flow.run"}


# Every command's capability group (`mcp --caps`, `tools --caps`); the rest are core.
GROUPS = {
    "tabs": {"tabs", "tab.new", "tab.focus", "tab.close"},
    "files": {"upload", "download", "pdf"},
    "observe": {
        "console",
        "network",
        "har",
        "trace",
        "trace.start",
        "trace.stop",
        "report",
        "metrics",
        "policy",
        "record.start",
        "record.stop",
    },
    "storage": {
        "cookies.get",
        "cookies.set",
        "cookies.clear",
        "storage.get",
        "storage.set",
        "storage.clear",
        "profile.create",
        "profile.list",
        "profile.delete",
        "profile.export",
        "profile.import",
        "state.key",
        "state.rekey",
    },
    "network": {"route", "unroute", "routes", "offline"},
    "sessions": {
        "emulate",
        "sessions",
        "session.suspend",
        "session.restore",
        "daemon.status",
        "daemon.stop",
        "extension.pair",
        "extension.status",
        "extension.detach",
    },
    "approvals": {"approvals", "approve", "deny", "request_approval", "takeover", "handback"},
    "flows": {"flow.run", "flow.save", "flow.list", "flow.show", "flow.rm", "flow.export"},
    "desktop": {name for name in COMMANDS if name.startswith("desktop.")},
}
CORE = {
    "batch",
    "open",
    "navigate",
    "back",
    "forward",
    "reload",
    "snapshot",
    "find",
    "extract",
    "screenshot",
    "click",
    "type",
    "fill",
    "press",
    "select",
    "check",
    "uncheck",
    "hover",
    "drag",
    "select-text",
    "scroll",
    "resize",
    "wait",
    "dialog",
    "evaluate",
    "secrets",
    "close",
}


def test_each_command_is_in_its_capability_group() -> None:
    assert set(GROUPS) | {"core"} == set(CAPS)
    groups = {name: c.caps for name, c in COMMANDS.items()}
    for group, names in GROUPS.items():
        assert {n for n, g in groups.items() if g == group} == names, group
    assert {n for n, g in groups.items() if g == "core"} == CORE
    assert len(GROUPS["desktop"]) == 24
