"""The reference CLI: parse argv with a parser generated from the command table, ask the
daemon, print its reply.

Every CLI call is parsed, run and printed by the daemon with this module's functions
(fronts/cli/host.py), relayed by the launcher (relay.py). This process runs a call itself
only where no daemon can: none is listening (it starts one on the first call that needs
it, or says why it will not), the state dir is named in the TOML config (the launcher
cannot find the socket without reading TOML), the fronts, which are programs of their own,
and `desktop session`. For that cold path it stays on the standard library: argument
shapes come from `spec.json` (written from the command table; a unit test keeps them
equal), the request goes over the daemon's Unix socket. Human-readable output by default,
`--json` for agents; the exit code says which class of error happened (see errors.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from steadyhand import rpc_client
from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError, exit_code_for
from steadyhand.fronts import reply
from steadyhand.fronts.boundary import for_cli
from steadyhand.fronts.cli.errors import report_error
from steadyhand.fronts.cli.progress import ProgressLine
from steadyhand.fronts.reply_kinds import BATCH
from steadyhand.processes import wait_exit
from steadyhand.snapshot.lookup import split_field

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

SPEC_PATH = Path(__file__).with_name("spec.json")
# Fronts that run as their own program, each generated from the command table; they import
# what they need (pydantic, Starlette, the MCP SDK) only when asked for.
FRONTS = {
    "serve": ("steadyhand.fronts.http.server", "serve the HTTP API on loopback (`serve --help`)"),
    "mcp": ("steadyhand.fronts.mcp.server", "run the MCP server over stdio or HTTP (`mcp --help`)"),
    "tools": ("steadyhand.fronts.agent.tools", "print tool schemas for LLM APIs (`tools --help`)"),
    "doctor": (
        "steadyhand.fronts.cli.doctor",
        "check this machine is ready; --fix (`doctor --help`)",
    ),
}
STOP_WAIT_S = 30.0
Spec = dict[str, "Any"]


class Parser(argparse.ArgumentParser):
    """Usage errors become `bad_request` so --json callers get them as data too."""

    def error(self, message: str) -> NoReturn:
        raise SteadyhandError(ErrorCode.BAD_REQUEST, message, self.format_usage().strip())


def load_spec() -> Spec:
    """Global options and commands, as generated from the command table."""
    spec: Spec = json.loads(SPEC_PATH.read_text())
    return spec


def relevant_commands(spec: Spec, argv: list[str]) -> list[Spec]:
    """Only the commands argv can mean, so the parser is built for one, not for all.

    Building every subparser costs several milliseconds a call; help and unknown commands
    still get the whole list. A word that is both a command and a group (`trace [SESSION]`,
    `trace start`) means the group's command when the next word names one of them.
    """
    commands: list[Spec] = spec["commands"]
    with_value = {g["flag"] for g in spec["globals"] if g["type"] != "bool"}
    for i, word in enumerate(argv):
        if i and argv[i - 1] in with_value:
            continue
        if word in ("-h", "--help"):
            break
        if word.startswith("-"):
            continue
        found = [c for c in commands if c["name"].split(".")[0] == word]
        grouped = [c for c in found if "." in c["name"]]
        if grouped and len(grouped) < len(found):
            after = argv[i + 1] if i + 1 < len(argv) else ""
            named = any(c["name"] == f"{word}.{after}" for c in grouped)
            return grouped if named else [c for c in found if "." not in c["name"]]
        return found or _listed(commands)
    return _listed(commands)


def _listed(commands: list[Spec]) -> list[Spec]:
    """Every command for the top-level help; a command that shares its word with a group
    is listed as the group's (its help names both)."""
    groups = {c["name"].split(".")[0] for c in commands if "." in c["name"]}
    return [c for c in commands if "." in c["name"] or c["name"] not in groups]


def build_parser(spec: Spec, commands: list[Spec]) -> Parser:
    common = Parser(add_help=False)
    _global_options(common, spec["globals"], argparse.SUPPRESS)
    parser = Parser(
        prog="steadyhand",
        description="Reliable hands for AI agents: snapshot -> ref -> act on Chromium.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Fronts:\n"
        + "".join(f"  {name:<8}{doc}\n" for name, (_, doc) in FRONTS.items())
        + "  desktop session -- CMD   run CMD on a private headless desktop (Xvfb, a11y bus)\n"
        + "\nExit codes: 0 ok, 2 bad input, 3 ref/element problem (snapshot again), "
        "4 timeout or navigation, 5 browser, 6 daemon, 7 policy, 1 internal.",
    )
    _global_options(parser, spec["globals"], None)
    # A group for every prefix of a dotted name: `desktop.window.focus` is
    # `desktop window focus`.
    groups: dict[str, argparse._SubParsersAction[Parser]] = {}
    top = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    plain = {c["name"]: c["doc"] for c in spec["commands"]}
    for command in commands:
        words = command["name"].split(".")
        holder = top
        for depth in range(1, len(words)):
            prefix = ".".join(words[:depth])
            if prefix not in groups:
                about = f"{prefix.replace('.', ' ')} commands"
                if prefix in plain:  # `trace [SESSION]` and `trace start|stop`
                    subs = [
                        c["name"] for c in spec["commands"] if c["name"].startswith(prefix + ".")
                    ]
                    about = f"{plain[prefix]} (also: {', '.join(subs).replace('.', ' ')})"
                group = holder.add_parser(words[depth - 1], help=about)
                groups[prefix] = group.add_subparsers(
                    dest=f"subcommand{depth}",
                    metavar="SUBCOMMAND",
                    parser_class=Parser,
                    required=True,
                )
            holder = groups[prefix]
        sub = holder.add_parser(
            words[-1], help=command["doc"], description=command["doc"], parents=[common]
        )
        sub.set_defaults(command_name=command["name"])
        for param in command["params"]:
            _add_param(sub, param)
        secret = [p for p in command["params"] if p["sensitive"] and p["positional"]]
        if secret:
            sub.add_argument(
                "--stdin",
                action="store_true",
                help=f"read {secret[0]['name'].upper()} from standard input"
                + (" (REF=VALUE lines)" if secret[0]["type"] == "map" else "")
                + ": keeps secrets out of `ps` and shell history",
            )
    return parser


def _global_options(parser: argparse.ArgumentParser, options: list[Spec], default: Any) -> None:
    """The params every command shares, plus --json; also accepted after the command."""
    for option in options:
        parser.add_argument(
            option["flag"],
            dest=option["name"],
            type=int if option["type"] == "int" else str,
            default=default,
            metavar="TIER|MS" if option["name"] == "timeout" else option["name"].upper(),
            help=option["help"],
        )
    parser.add_argument(
        "--json", action="store_true", default=default or False, help="print JSON for machines"
    )


def _add_param(parser: argparse.ArgumentParser, param: Spec) -> None:
    kind, name = param["type"], param["name"]
    kwargs: dict[str, Any] = {"help": param["help"]}
    if param["choices"]:
        kwargs["choices"] = param["choices"]
    if kind in ("int", "float"):
        kwargs["type"] = int if kind == "int" else float
    if param["positional"]:
        # A sensitive value may come from --stdin instead, so argparse must not insist.
        required = param["required"] and not param["sensitive"]
        if kind in ("list", "map"):
            kwargs["nargs"] = "+" if required else "*"
        elif not required or kind == "steps":  # steps may come on standard input
            kwargs["nargs"] = "?"
        kwargs["metavar"] = name.upper()
        parser.add_argument(name, **kwargs)
        return
    flags = [param["flag"], param["short"]] if param.get("short") else [param["flag"]]
    if kind == "bool":
        # A bool that is on unless told (default true), or that a setting decides (default
        # None), takes --flag and --no-flag.
        action = argparse.BooleanOptionalAction if _switchable(param) else "store_true"
        parser.add_argument(*flags, dest=name, action=action, help=param["help"])
        return
    if kind in ("list", "map"):
        kwargs["nargs"] = "+"
        kwargs["action"] = "extend"  # --param a=1 --param b=2: both
    parser.add_argument(*flags, dest=name, metavar=name.upper(), **kwargs)


def _switchable(param: Spec) -> bool:
    return bool(param["optional"] or param["default"] is True)


class Caller:
    """The process a call comes from: its standard input (--stdin's text, a batch's
    steps) and the directory its relative file paths start at. This one is the CLI's own
    process; the daemon's end of a relayed call has the launcher's (fronts/cli/host.py)."""

    def stdin(self, what: str) -> str:
        """The whole of standard input; `what` names what it is read for (the error)."""
        if sys.stdin is None or (what == "steps" and sys.stdin.isatty()):
            raise no_stdin(what)
        return sys.stdin.read()

    def path(self, given: str) -> str:
        return os.path.abspath(given)


def no_stdin(what: str) -> SteadyhandError:
    """The error of a call that reads standard input where there is none to read."""
    if what == "steps":
        return SteadyhandError(
            ErrorCode.BAD_REQUEST, "batch needs STEPS, or steps on standard input", STEPS_HINT
        )
    return SteadyhandError(
        ErrorCode.BAD_REQUEST, f"{what}: there is no standard input", "pipe the value in"
    )


def params_from_args(
    spec: Spec, command: Spec, args: argparse.Namespace, caller: Caller | None = None
) -> dict[str, Any]:
    """The command's params from parsed argv; standard input and relative paths are the
    caller's (default: this process)."""
    caller = caller or Caller()
    params: dict[str, Any] = {}
    for param in command["params"]:
        value = getattr(args, param["name"], None)
        if param["type"] == "steps":
            value = steps_from(spec, value, caller)
        if param["sensitive"] and getattr(args, "stdin", False):
            if value:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"{param['name']} given both on the command line and with --stdin",
                    "give it one way",
                )
            text = caller.stdin("--stdin")
            value = text.splitlines() if param["type"] == "map" else text.removesuffix("\n")
        if param["required"] and value in (None, []):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"{command['name'].replace('.', ' ')} needs {param['name'].upper()}",
                "give it as an argument" + (" or with --stdin" if param["sensitive"] else ""),
            )
        if value is None or (param["type"] == "bool" and value is False and not _switchable(param)):
            continue
        if param["type"] == "map":
            value = _pairs(param["name"], value)
        if param["file_path"]:
            value = caller.path(str(value))
        params[param["name"]] = value
    for option in spec["globals"]:
        if getattr(args, option["name"], None) is not None:
            params[option["name"]] = getattr(args, option["name"])
    for param in command["params"]:
        named, session = params.get(param["name"]), params.get("session")
        if param.get("session_alias") and named and session and named != session:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"two sessions named: {named!r} and --session {session!r}",
                "give it once, as --session NAME (the first word is its older form)",
            )
    return params


def _pairs(name: str, items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        pair = split_field(item)
        if pair is None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"{name}: {item!r} is not KEY=VALUE",
                "write each field as REF=VALUE or LOCATOR=VALUE, e.g. e5=alice "
                "label=Password='pass word'",
            )
        out[pair[0]] = pair[1]
    return out


# ---------------------------------------------------------------- a batch's steps

STDIN = "-"
STEPS_HINT = (
    'give a JSON array (\'[{"command": "click", "params": {"ref": "e3"}}]\'), or one command '
    "per line as you would type it after `steadyhand` (click e3), as STEPS or on standard input"
)


def steps_from(spec: Spec, given: str | None, caller: Caller | None = None) -> list[Any]:
    """A batch's steps from STEPS, or from standard input when it is absent or `-`: a JSON
    array of {command, params}, or one command per line as typed after `steadyhand`
    (quoted as in the shell; blank lines and `#` comments skipped)."""
    caller = caller or Caller()
    if given is None or given == STDIN:
        given = caller.stdin("steps")
    if given.lstrip().startswith("["):
        try:
            steps = json.loads(given)
        except ValueError as exc:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST, f"the steps are not JSON: {exc}", STEPS_HINT
            ) from exc
        if not isinstance(steps, list):
            raise SteadyhandError(ErrorCode.BAD_REQUEST, "the steps are not a list", STEPS_HINT)
        return steps
    lines = given.splitlines()
    return [
        step
        for number, line in enumerate(lines, 1)
        if (step := step_of_line(spec, number, line, caller)) is not None
    ]


def step_of_line(spec: Spec, number: int, line: str, caller: Caller) -> dict[str, Any] | None:
    """One command line as a step, parsed as argv is; None for a blank or comment line."""
    import shlex  # only for batches: not on every call's path

    try:
        words = shlex.split(line, comments=True)
    except ValueError as exc:
        raise SteadyhandError(ErrorCode.BAD_REQUEST, f"line {number}: {exc}", STEPS_HINT) from exc
    if words[:1] == ["steadyhand"]:
        words = words[1:]
    if not words:
        return None
    known = {c["name"].split(".")[0] for c in spec["commands"]}
    if not words[0].startswith("-") and words[0] not in known:
        import difflib

        close = difflib.get_close_matches(words[0], known, n=1)
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"line {number}: unknown command {words[0]!r}",
            f"did you mean {close[0]!r}?" if close else "`steadyhand --help` lists the commands",
        )
    try:
        args = build_parser(spec, relevant_commands(spec, words)).parse_args(words)
    except SteadyhandError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, f"line {number}: {exc.message}", exc.hint
        ) from None
    except SystemExit:  # --help: argparse printed it
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, f"line {number}: help is not a step", STEPS_HINT
        ) from None
    name = getattr(args, "command_name", None)
    command = next((c for c in spec["commands"] if c["name"] == name), None)
    if command is None:
        raise SteadyhandError(ErrorCode.BAD_REQUEST, f"line {number}: no command", STEPS_HINT)
    shown = str(name).replace(".", " ")
    if command["cli_only"] or any(p["type"] == "steps" for p in command["params"]):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"line {number}: {shown} cannot be a step",
            f"run `steadyhand {shown}` on its own",
        )
    if getattr(args, "stdin", False):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"line {number}: --stdin cannot be used in a batch (standard input is the batch)",
            "give the value on the line, or the whole batch as a JSON argument",
        )
    return {"command": name, "params": params_from_args(spec, command, args, caller)}


# ---------------------------------------------------------------- output


def notice_line(text: str) -> None:
    """A notice (the approval the call waits on) on stderr at once, terminal or pipe."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class StreamLines:
    """A streaming command's notes (`desktop watch`'s events), printed on stdout as they
    come, one line each: the JSON itself with --json, else readable text."""

    def __init__(self, stream: Any, as_json: bool) -> None:
        self.stream = stream
        self.as_json = as_json
        self.printed = 0

    def __call__(self, done: int, total: int | None, message: str) -> None:
        self.stream.write(stream_line(message, self.as_json))
        self.stream.flush()
        self.printed += 1


def stream_line(message: str, as_json: bool) -> str:
    """One note of a streaming command as printed: the JSON itself with --json, else text."""
    if as_json:
        return message + "\n"
    try:
        item = json.loads(message)
    except ValueError:
        item = message
    return (reply.event_line(item) if isinstance(item, dict) else str(item)) + "\n"


# ---------------------------------------------------------------- entry point


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:2] == ["desktop", "session"]:  # a process wrapper, not a daemon command
        from steadyhand.fronts.cli.desktop_session import main as desktop_session

        return desktop_session(argv[2:])
    if argv and argv[0] in FRONTS:
        import importlib

        front: Any = importlib.import_module(FRONTS[argv[0]][0])
        return int(front.main(argv[1:]))
    as_json = "--json" in argv
    try:
        spec = load_spec()
        args = build_parser(spec, relevant_commands(spec, argv)).parse_args(argv)
        name = getattr(args, "command_name", None)
        if name is None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST, "no command given", "run `steadyhand --help`"
            )
        settings = Settings.load()
        command = next(c for c in spec["commands"] if c["name"] == name)
        run_here = RUN_HERE.get(name)
        if run_here is not None:
            result: Any = run_here(settings, args)
        else:
            params = params_from_args(spec, command, args)
            streamed = StreamLines(sys.stdout, as_json) if command.get("streams") else None
            result = rpc_client.call(
                settings,
                name,
                params,
                autostart=command["autostart"],
                on_progress=streamed or (ProgressLine(sys.stderr) if sys.stderr.isatty() else None),
                on_notice=notice_line,
                cli_cwd=working_dir(),
                warm=command.get("in_browser", True),
            )
            if streamed is not None and isinstance(result, dict):
                result.pop("events", None)  # printed as they came
    except SteadyhandError as exc:
        return report_error(exc, as_json)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        error = SteadyhandError(
            ErrorCode.DAEMON_UNAVAILABLE,
            f"{type(exc).__name__}: {exc}",
            "check that the state dir (STEADYHAND_STATE_DIR) is a writable directory of yours",
        )
        return report_error(error, as_json)
    if as_json:
        print(json.dumps({"ok": True, "result": result}))
    else:
        boundary = for_cli(settings.content_boundaries)
        print(reply.render(result, command, forms=step_forms(spec, command), boundary=boundary))
    failed = reply.failed_step(result, command)  # a batch exits as its first failed step would
    return 0 if failed is None else exit_code_for(failed)


def step_forms(spec: Spec, command: Spec) -> dict[str, Any] | None:
    """Every command's entry by name, for a batch's reply: how each step's result is
    written (None for other commands)."""
    if command.get("reply") != BATCH:
        return None
    return {c["name"]: c for c in spec["commands"]}


def working_dir() -> str | None:
    """This process's working directory, which the daemon takes as a file root of the call
    (files_policy.py); None when it was deleted under us (then only the configured roots)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _daemon_start(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    """Start the daemon unless one runs (start_daemon finds it); its status either way."""
    settings = settings.replace(headless=not args.headed)
    rpc_client.start_daemon(settings)
    return started_as_asked(settings, rpc_client.request(settings, "daemon.status", {}, 10.0))


def started_as_asked(settings: Settings, status: dict[str, Any]) -> dict[str, Any]:
    """The running daemon's status; an error when it runs otherwise than `settings` ask."""
    if status.get("headless", True) != settings.headless:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"the daemon (pid {status['pid']}) is already running "
            + ("headless" if status["headless"] else "headed"),
            "stop it with `steadyhand daemon stop` to start it the other way",
        )
    return status


def _daemon_stop(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    """Stop the daemon and return once it has exited (its browsers are closed by then)."""
    pid = rpc_client.daemon_pid(settings)
    try:
        result: dict[str, Any] = rpc_client.request(settings, "daemon.stop", {}, 10.0)
    except SteadyhandError as exc:
        if rpc_client.never_sent(exc):
            return {"stopping": False, "note": "no daemon was running"}
        raise
    if pid is not None and not wait_exit(pid, STOP_WAIT_S):
        raise not_exited(pid)
    return result


def not_exited(pid: int) -> SteadyhandError:
    """The error of a stopped daemon still running after STOP_WAIT_S."""
    return SteadyhandError(
        ErrorCode.DAEMON_UNAVAILABLE,
        f"the daemon (pid {pid}) did not exit within {STOP_WAIT_S:.0f} s",
        f"kill it (kill -9 {pid}); the next start reaps any Chromium it leaves",
    )


# The commands about the daemon's own process, which the CLI runs itself rather than ask a
# daemon: start (there is none yet) and stop (it waits for the process to exit).
RUN_HERE: dict[str, Callable[[Settings, argparse.Namespace], dict[str, Any]]] = {
    "daemon.start": _daemon_start,
    "daemon.stop": _daemon_stop,
}


if __name__ == "__main__":
    raise SystemExit(main())
