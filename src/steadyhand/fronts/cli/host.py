"""The daemon's end of the CLI's fast path (`cli.run`): parse argv, run, print, as cli.main.

A relayed call (fronts/cli/relay.py) brings argv, the caller's working directory, its
STEADYHAND_* variables and config file, its state dir (absolute), its terminal width and
whether its stderr is a terminal. This module makes from them what cli.main would have
printed in the caller's process: the same parser (cached here), the caller's settings,
file paths made absolute against the caller's directory, the command run as a JSON-RPC
request (rpc.handle_request, so errors are converted as the socket converts them) and
its reply printed by the same functions. The answer is `{"stdout", "stderr", "exit"}`.

Before anything runs, a call the reference must make itself is answered
`{"fallback": true}`: daemon start/stop (they manage this process), streaming commands,
a batch's steps from the caller's standard input, --stdin from a launcher that did not
send its text, help, and a caller whose terminal width (usage text) or time zone (times
in replies) is not the daemon's. --stdin's text comes in the request (`stdin`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError, exit_code_for
from steadyhand.fronts import reply
from steadyhand.fronts.cli import main as cli
from steadyhand.fronts.cli.errors import error_lines
from steadyhand.rpc_client import reply_wait_s
from steadyhand.runtime import Runtime

log = logging.getLogger("steadyhand.cli")

METHOD = "cli.run"
FALLBACK: dict[str, Any] = {"fallback": True}
PARSERS_KEPT = 64

Notify = Callable[[dict[str, Any]], Awaitable[None]]
HandleRequest = Callable[[Runtime, Any, Notify | None], Awaitable[dict[str, Any] | None]]


class RelayedCall:
    """The caller's side of a `cli.run` request, checked."""

    def __init__(self, params: dict[str, Any]) -> None:
        try:
            self.argv = [str(word) for word in params["argv"]]
            self.cwd = str(params["cwd"])
            self.env = {str(k): str(v) for k, v in dict(params["env"]).items()}
            self.config = Path(str(params["config"]))
            self.state_dir = Path(str(params["state_dir"]))
            self.columns = int(params["columns"])
            self.tty = bool(params["tty"])
            # --stdin's text, read by the launcher (None: it read none; an older one)
            self.stdin = params.get("stdin")
            if self.stdin is not None and not isinstance(self.stdin, str):
                raise TypeError("stdin is not text")
        except (KeyError, TypeError, ValueError) as exc:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"cli.run needs argv, cwd, env, config, state_dir, columns, tty: {exc}",
                "cli.run is the CLI's own request (fronts/cli/relay.py)",
            ) from exc
        if not (os.path.isabs(self.cwd) and self.config.is_absolute()):
            raise SteadyhandError(ErrorCode.BAD_REQUEST, "cli.run needs absolute paths")


class Parsers:
    """cli.build_parser's parsers, kept by the commands they were built for; dropped when
    the spec file changes (as the reference reads it anew on every call)."""

    def __init__(self) -> None:
        self.stamp: tuple[int, int] | None = None
        self.spec: cli.Spec = {}
        self.built: dict[tuple[str, ...], cli.Parser] = {}

    def load(self) -> cli.Spec:
        info = cli.SPEC_PATH.stat()
        if (info.st_mtime_ns, info.st_size) != self.stamp:
            self.spec = cli.load_spec()
            self.built.clear()
            self.stamp = (info.st_mtime_ns, info.st_size)
        return self.spec

    def parser(self, spec: cli.Spec, argv: list[str]) -> cli.Parser:
        commands = cli.relevant_commands(spec, argv)
        key = tuple(c["name"] for c in commands)
        if key not in self.built:
            if len(self.built) >= PARSERS_KEPT:
                self.built.clear()
            self.built[key] = cli.build_parser(spec, commands)
        return self.built[key]


PARSERS = Parsers()


async def run(
    runtime: Runtime, params: dict[str, Any], notify: Notify | None, handle: HandleRequest
) -> dict[str, Any]:
    """What cli.main would print for the relayed call, or FALLBACK (nothing ran)."""
    call = RelayedCall(params)
    if call.env.get("TZ") != os.environ.get("TZ"):
        return FALLBACK  # replies show local times
    as_json = "--json" in call.argv
    try:
        spec = PARSERS.load()
        parser = PARSERS.parser(spec, call.argv)
        try:
            args = parser.parse_args(call.argv)
        except SystemExit:  # help or version: argparse printed (here) and exits
            return FALLBACK
        except SteadyhandError:
            if call.columns != shutil.get_terminal_size().columns:
                return FALLBACK  # the usage in the hint is wrapped to the caller's terminal
            raise
        name = getattr(args, "command_name", None)
        if name is None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST, "no command given", "run `steadyhand --help`"
            )
        command = next(c for c in spec["commands"] if c["name"] == name)
        if name in cli.RUN_HERE or command.get("streams"):
            return FALLBACK
        if (getattr(args, "stdin", False) and call.stdin is None) or _steps_here(command, args):
            return FALLBACK
        settings = Settings.load(call.config, call.env, state_dir=call.state_dir)
        request = command_params(spec, command, args, call.cwd, call.stdin)
        wait_s = reply_wait_s(settings, request)
        if notify is not None:  # the caller waits for a reply as long as the reference would
            note = {"method": name, "seconds": wait_s}
            await notify({"jsonrpc": "2.0", "method": "cli.wait", "params": note})
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": name}
        message["cli_cwd"] = call.cwd  # its relative paths start there (files_policy.py)
        message["params"] = json.loads(json.dumps(request))
        # Progress to a terminal; the notices (an approval waited on) to any stderr.
        message["progress" if call.tty else "notices"] = True
        answer = await handle(runtime, message, notify)
    except SteadyhandError as exc:
        return report(exc, as_json)
    except OSError as exc:  # as cli.main reports the caller's own OSErrors
        return report(
            SteadyhandError(
                ErrorCode.DAEMON_UNAVAILABLE,
                f"{type(exc).__name__}: {exc}",
                "check that the state dir (STEADYHAND_STATE_DIR) is a writable directory of yours",
            ),
            as_json,
        )
    return printed(command, answer, as_json)


def _steps_here(command: cli.Spec, args: argparse.Namespace) -> bool:
    """A batch whose steps are on the caller's standard input, or command lines (their
    file paths start at the caller's directory): the reference reads them."""
    for param in command["params"]:
        if param["type"] == "steps":
            given = getattr(args, param["name"], None)
            if not isinstance(given, str) or not given.lstrip().startswith("["):
                return True
    return False


def command_params(
    spec: cli.Spec, command: cli.Spec, args: argparse.Namespace, cwd: str, stdin: str | None
) -> dict[str, Any]:
    """cli.params_from_args, with file paths absolute against the caller's directory and
    --stdin's text as the launcher read it."""
    relayed = None if stdin is None else (lambda: stdin)
    params = cli.params_from_args(spec, command, args, relayed)
    for param in command["params"]:
        if param["file_path"] and param["name"] in params:
            given = str(getattr(args, param["name"]))
            params[param["name"]] = os.path.normpath(os.path.join(cwd, given))
    return params


def printed(command: cli.Spec, answer: Any, as_json: bool) -> dict[str, Any]:
    """The output of one JSON-RPC reply, as rpc_client.call and cli.main make it.

    Never raises: the command ran, and an error out of `cli.run` would have the caller
    run it again through the reference.
    """
    try:
        answer = json.loads(json.dumps(answer))  # what the socket would have carried
        if not isinstance(answer, dict):
            raise SteadyhandError(ErrorCode.INTERNAL, "the command gave no reply")
        if "error" in answer:
            raise SteadyhandError.from_rpc_error(answer["error"])
        result = answer.get("result")
        if as_json:
            text = json.dumps({"ok": True, "result": result})
        else:
            text = reply.render(result, command, forms=cli.step_forms(PARSERS.spec, command))
        failed = reply.failed_step(result, command)  # a batch exits as its first failed step would
    except SteadyhandError as exc:
        return report(exc, as_json)
    except Exception as exc:
        log.exception("printing the reply of a relayed CLI call failed")
        error = f"{type(exc).__name__}: {exc}"
        return report(SteadyhandError(ErrorCode.INTERNAL, error, "see daemon.log"), as_json)
    code = 0 if failed is None else exit_code_for(failed)
    return {"stdout": text + "\n", "stderr": "", "exit": code}


def report(exc: SteadyhandError, as_json: bool) -> dict[str, Any]:
    """cli_errors.report_error's output."""
    if as_json:
        out = json.dumps({"ok": False, "error": exc.to_dict()}) + "\n"
        return {"stdout": out, "stderr": "", "exit": exit_code_for(exc.code)}
    return {"stdout": "", "stderr": error_lines(exc), "exit": exit_code_for(exc.code)}
