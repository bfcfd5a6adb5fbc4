"""The documentation site's reference pages, written from the tables they describe.

`python -m steadyhand.fronts.docs_pages docs/reference` (`make docs`) writes `commands.md`
(every command of the command table: what it does, how each front names it, its params),
`settings.md` (config.py's table) and `errors.md` (errors.py's). A unit test keeps the
committed pages in step, so a command cannot be added without its page.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from steadyhand.caps import CAPS
from steadyhand.commands import COMMANDS, Command, TabParams
from steadyhand.commands.act_on_elements import ActParams
from steadyhand.commands.table import tool_name
from steadyhand.config import SETTINGS
from steadyhand.errors import error_table
from steadyhand.fronts.cli.spec import command_spec, field_spec

GENERATED = "<!-- Generated from the command table by `make docs`: do not edit. -->\n"
# Options every act command takes: described once at the top of the page.
ACT_OPTIONS = frozenset(ActParams.model_fields) - frozenset(TabParams.model_fields)


def cli_words(command: Command) -> str:
    return "steadyhand " + command.name.replace(".", " ")


def synopsis(spec: dict[str, Any]) -> str:
    """`steadyhand click TARGET [--button B]`: positionals, then the command's own options."""
    words = [cli_words(COMMANDS[spec["name"]])]
    for param in spec["params"]:
        if param["name"] in ACT_OPTIONS:
            continue
        if param["positional"]:
            shown = param["name"].upper() + ("..." if param["type"] in ("list", "map") else "")
            words.append(shown if param["required"] else f"[{shown}]")
    own = [p for p in spec["params"] if not p["positional"] and p["name"] not in ACT_OPTIONS]
    if own:
        words.append("[OPTIONS]")
    return " ".join(words)


def param_rows(params: Iterable[dict[str, Any]]) -> list[str]:
    rows = ["| param | CLI | type | default | |", "|---|---|---|---|---|"]
    for p in params:
        cli = p["name"].upper() if p["positional"] else p["flag"]
        kind = p["type"] + (f" ({', '.join(map(str, p['choices']))})" if p["choices"] else "")
        default = "required" if p["required"] else _shown(p["default"])
        text = " ".join(str(p["help"] or "").split()).replace("|", "\\|")
        rows.append(f"| `{p['name']}` | `{cli}` | {kind} | {default} | {text} |")
    return rows


def _shown(value: Any) -> str:
    if value is None:
        return ""
    return f"`{str(value).lower() if isinstance(value, bool) else value}`"


def traits(command: Command) -> str:
    said = [f"deadline tier `{command.timeout}`"]
    for flag, words in (
        (command.acts, "acts on the page (a failure leaves a screenshot)"),
        (command.reads_only, "reads only"),
        (command.destructive, "destructive"),
        (command.navigates, "navigates"),
        (command.streams, "streams"),
        (not command.for_agents, "not offered to agents"),
        (command.daemon_only, "daemon only"),
    ):
        if flag:
            said.append(words)
    return "; ".join(said)


def command_section(command: Command) -> list[str]:
    spec = command_spec(command)
    fronts = [f"CLI `{cli_words(command)}`", f"JSON-RPC `{command.name}`"]
    fronts.append(f"HTTP `POST /v1/{command.name}`")
    if command.for_agents:
        fronts.append(f"MCP/LLM tool `{tool_name(command.name)}` (group `{command.caps}`)")
    lines = [f"## `{command.name}`", "", " ".join(command.doc.split()), ""]
    lines += ["```", synopsis(spec), "```", ""]
    lines += [" · ".join(fronts) + ".  ", traits(command).capitalize() + ".", ""]
    own = [p for p in spec["params"] if p["name"] not in ACT_OPTIONS]
    if own:
        lines += [*param_rows(own), ""]
    if ACT_OPTIONS & {p["name"] for p in spec["params"]}:
        lines += ["Takes the [options of every act](#options-of-every-act).", ""]
    return lines


def commands_page() -> str:
    lines = [GENERATED, "# Commands", ""]
    lines += [
        f"All {len(COMMANDS)} commands of the command table "
        "(`src/steadyhand/commands/`). Each is the same command on every front: a CLI "
        "command (a dotted name's words: `tab.new` is `steadyhand tab new`), a JSON-RPC "
        "method on the daemon's socket, an HTTP route, a method of the Python client "
        "(`.` and `-` become `_`) and, unless it says otherwise, an MCP tool and an LLM tool "
        "schema in its capability group. Global options (`--session`, `--json`, "
        "`--timeout`) go anywhere on the CLI.",
        "",
        "| capability group | tools | what it holds |",
        "|---|---|---|",
        *(
            f"| `{group}` | {sum(c.caps == group for c in COMMANDS.values() if c.for_agents)} "
            f"| {held} |"
            for group, held in CAPS.items()
        ),
        "",
        "## Options of every act",
        "",
        "Every command that acts on an element also takes these:",
        "",
        *param_rows(
            field_spec(name, field)
            for name, field in ActParams.model_fields.items()
            if name in ACT_OPTIONS
        ),
        "",
        "## Index",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    ordered = sorted(COMMANDS.values(), key=lambda c: c.name)
    for command in ordered:
        first = " ".join(command.doc.split()).split(". ")[0].rstrip(".")
        first = first.replace("|", "\\|")
        lines.append(f"| [`{command.name}`](#{anchor(command.name)}) | {first} |")
    lines.append("")
    for command in ordered:
        lines += command_section(command)
    return "\n".join(lines).rstrip() + "\n"


def anchor(name: str) -> str:
    """The anchor mkdocs gives a `## \\`name\\`` heading."""
    return "".join(ch for ch in name.lower() if ch.isalnum() or ch in "-_")


def settings_table() -> str:
    """The settings as a Markdown table (docs/reference/settings.md)."""
    rows = ["| setting | type | default | what it does |", "|---|---|---|---|"]
    for name, kind, default, doc in SETTINGS:
        if callable(default):
            shown = (default.__doc__ or "computed").strip()
        elif isinstance(default, bool):
            shown = f"`{str(default).lower()}`"
        elif isinstance(default, int) and default >= 10_000:
            shown = f"`{default:_}`"
        elif default == "":
            shown = "empty"
        else:
            shown = f"`{default}`"
        rows.append(f"| `{name}` | {kind} | {shown} | {doc} |")
    return "\n".join(rows) + "\n"


def settings_page() -> str:
    return (
        f"{GENERATED}# Settings\n\n"
        "Settings come from defaults, then `~/.config/steadyhand/config.toml` (or "
        "`$STEADYHAND_CONFIG`), then `STEADYHAND_*` variables (the name upper-cased: "
        "`STEADYHAND_MAX_TABS=40`). This table is written from the one list of settings in "
        "`steadyhand/config.py`.\n\n" + settings_table()
    )


def errors_page() -> str:
    return (
        f"{GENERATED}# Error codes\n\n"
        "Every failure has a stable code, a message and a hint; the code fixes the CLI's "
        "exit status, the JSON-RPC error code, the HTTP status and the Python class (each "
        "under its group: `InputError`, `PageError`, `TryLaterError`, `BrowserError`, "
        "`DaemonError`, `PolicyError`). This table is written from the one table in "
        "`steadyhand/errors.py` (`python -m steadyhand.errors` prints it).\n\n" + error_table()
    )


PAGES = {"commands.md": commands_page, "settings.md": settings_page, "errors.md": errors_page}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "docs/reference")
    out.mkdir(parents=True, exist_ok=True)
    for name, page in PAGES.items():
        (out / name).write_text(page())
        print(out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
