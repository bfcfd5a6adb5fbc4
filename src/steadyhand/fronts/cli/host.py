"""The daemon's end of the CLI (`cli.run`): parse argv, run, print, as cli.main would.

A relayed call (fronts/cli/relay.py) brings argv, the caller's working directory, its
STEADYHAND_* variables and config file, its state dir (absolute), its terminal width, time
zone and whether its stderr is a terminal. This module makes from them what cli.main would
have printed in the caller's process: the same parser (cached here), the caller's settings,
file paths made absolute against the caller's directory, help and usage wrapped to the
caller's terminal and times in its zone, the command run as a JSON-RPC request
(rpc.handle_request, so errors are converted as the socket converts them) and its reply
printed by the same functions. The answer is `{"stdout", "stderr", "exit"}`.

What the caller's process has to do, the answer says: a streaming command's lines come as
`cli.out` notes while it runs; a batch whose steps are on standard input is answered
`{"read_stdin": true}` before anything runs (the launcher sends the call again with its
text, as it sends --stdin's); `daemon stop` adds `{"wait": {pid, seconds, otherwise}}`,
the process the launcher waits for and what it prints if it does not exit.

Only calls no daemon can answer stay with the reference (fronts/cli/main.py, which says
which), and the fronts, which are programs of their own.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError, exit_code_for
from steadyhand.fronts import reply
from steadyhand.fronts.boundary import for_cli
from steadyhand.fronts.cli import main as cli
from steadyhand.fronts.cli import spec as cli_spec
from steadyhand.fronts.cli.errors import error_lines
from steadyhand.rpc_client import reply_wait_s
from steadyhand.runtime import Runtime

log = logging.getLogger("steadyhand.cli")

METHOD = "cli.run"
PARSERS_KEPT = 64

Notify = Callable[[dict[str, Any]], Awaitable[None]]
HandleRequest = Callable[[Runtime, Any, Notify | None], Awaitable[dict[str, Any] | None]]
Output = dict[str, Any]  # {"stdout", "stderr", "exit"}, and what the launcher must do


class RelayedCall(cli.Caller):
    """The caller's side of a `cli.run` request, checked: its standard input is the text
    the launcher sent (--stdin's, a batch's steps), its paths start at its directory."""

    def __init__(self, params: dict[str, Any]) -> None:
        try:
            self.argv = [str(word) for word in params["argv"]]
            self.cwd = str(params["cwd"])
            self.env = {str(k): str(v) for k, v in dict(params["env"]).items()}
            self.config = Path(str(params["config"]))
            self.state_dir = Path(str(params["state_dir"]))
            self.columns = int(params["columns"])
            self.tty = bool(params["tty"])
            # standard input as the launcher read it (None: it read none)
            self.text: str | None = params.get("stdin")
            if self.text is not None and not isinstance(self.text, str):
                raise TypeError("stdin is not text")
        except (KeyError, TypeError, ValueError) as exc:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"cli.run needs argv, cwd, env, config, state_dir, columns, tty: {exc}",
                "cli.run is the CLI's own request (fronts/cli/relay.py)",
            ) from exc
        if not (os.path.isabs(self.cwd) and self.config.is_absolute()):
            raise SteadyhandError(ErrorCode.BAD_REQUEST, "cli.run needs absolute paths")

    def stdin(self, what: str) -> str:
        if self.text is None:
            raise StdinWanted
        return self.text

    def path(self, given: str) -> str:
        return os.path.normpath(os.path.join(self.cwd, given))


class StdinWanted(Exception):
    """The call reads the caller's standard input, which the launcher did not send."""


@contextlib.contextmanager
def callers_terminal(call: RelayedCall) -> Iterator[None]:
    """This process's COLUMNS and TZ as the caller's while argv is parsed or a reply
    printed, so help and usage wrap to its terminal and times show in its zone. Nothing in
    between awaits, so no other call sees them."""
    wanted = {"COLUMNS": str(call.columns), "TZ": call.env.get("TZ")}
    saved = {name: os.environ.get(name) for name in wanted}
    zone_differs = wanted["TZ"] != saved["TZ"]
    _set_environ(wanted)
    if zone_differs:
        time.tzset()
    try:
        yield
    finally:
        _set_environ(saved)
        if zone_differs:
            time.tzset()


def _set_environ(values: dict[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


class Parsers:
    """cli.build_parser's parsers, kept by the commands they were built for, over the spec
    written from this daemon's own command table (the reference reads the same spec from
    spec.json, which a unit test keeps equal)."""

    def __init__(self) -> None:
        self.spec: cli.Spec = {}
        self.built: dict[tuple[str, ...], cli.Parser] = {}

    def load(self) -> cli.Spec:
        if not self.spec:
            self.spec = json.loads(cli_spec.render())
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


class Parsed:
    """A relayed call's argv, parsed: its command, its params and its settings."""

    def __init__(self, call: RelayedCall) -> None:
        spec = PARSERS.load()
        self.args = PARSERS.parser(spec, call.argv).parse_args(call.argv)
        name = getattr(self.args, "command_name", None)
        if name is None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST, "no command given", "run `steadyhand --help`"
            )
        self.name: str = name
        self.command: cli.Spec = next(c for c in spec["commands"] if c["name"] == name)
        self.settings = Settings.load(call.config, call.env, state_dir=call.state_dir)
        self.params = cli.params_from_args(spec, self.command, self.args, call)


async def run(
    runtime: Runtime, params: dict[str, Any], notify: Notify | None, handle: HandleRequest
) -> Output:
    """What cli.main would print for the relayed call, with what the launcher must do."""
    call = RelayedCall(params)
    as_json = "--json" in call.argv
    try:
        with callers_terminal(call), _help_printed() as help_text:
            try:
                parsed = Parsed(call)
            except SystemExit as exc:  # help: argparse printed it and exits
                return {"stdout": help_text.getvalue(), "stderr": "", "exit": exc.code or 0}
            except StdinWanted:
                return {"read_stdin": True}  # nothing ran: the launcher sends it again
        hosted = HOSTED.get(parsed.name)
        if hosted is not None:
            return await hosted(runtime, call, parsed, handle)
        answer = await _ask(runtime, call, parsed, notify, handle)
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
    with callers_terminal(call):
        return printed(parsed.command, answer, as_json, for_cli(parsed.settings.content_boundaries))


@contextlib.contextmanager
def _help_printed() -> Iterator[io.StringIO]:
    """What argparse prints (help) while parsing, kept rather than printed here."""
    text = io.StringIO()
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
        yield text


async def _ask(
    runtime: Runtime,
    call: RelayedCall,
    parsed: Parsed,
    notify: Notify | None,
    handle: HandleRequest,
    *,
    method: str | None = None,
) -> Any:
    """Run the parsed call (or `method`, without params) as the socket would; its reply."""
    params = parsed.params if method is None else {}
    method = method or parsed.name
    streams = bool(parsed.command.get("streams"))
    wait_s = reply_wait_s(parsed.settings, params)
    if notify is not None:  # the caller waits for a reply as long as the reference would
        note = {"method": method, "seconds": wait_s}
        await notify({"jsonrpc": "2.0", "method": "cli.wait", "params": note})
        if streams:
            notify = _streamed(notify, call)
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    message["cli_cwd"] = call.cwd  # its relative paths start there (files_policy.py)
    message["params"] = json.loads(json.dumps(params))
    # Progress to a terminal (a stream's lines to any stdout); notices to any stderr.
    message["progress" if call.tty or streams else "notices"] = True
    return await handle(runtime, message, notify)


def _streamed(notify: Notify, call: RelayedCall) -> Notify:
    """A streaming command's notes as the lines cli.StreamLines prints (`cli.out`)."""
    as_json = "--json" in call.argv

    async def out(message: dict[str, Any]) -> None:
        note = message.get("params")
        if message.get("method") == "progress" and isinstance(note, dict) and "notice" not in note:
            with callers_terminal(call):  # an event's time in the caller's zone
                text = cli.stream_line(str(note.get("message")), as_json)
            message = {"jsonrpc": "2.0", "method": "cli.out", "params": {"text": text}}
        await notify(message)

    return out


Hosted = Callable[[Runtime, RelayedCall, Parsed, HandleRequest], Awaitable[Output]]


async def _daemon_start(
    runtime: Runtime, call: RelayedCall, parsed: Parsed, handle: HandleRequest
) -> Output:
    """`daemon start` with this daemon running: its status, or the error of one running
    otherwise than asked (cli._daemon_start)."""
    as_json = "--json" in call.argv
    answer = await _ask(runtime, call, parsed, None, handle, method="daemon.status")
    try:
        result = _result(answer)
        settings = parsed.settings.replace(headless=not parsed.args.headed)
        status = cli.started_as_asked(settings, result)
    except SteadyhandError as exc:
        return report(exc, as_json)
    with callers_terminal(call):
        return printed(parsed.command, {"jsonrpc": "2.0", "id": 1, "result": status}, as_json)


async def _daemon_stop(
    runtime: Runtime, call: RelayedCall, parsed: Parsed, handle: HandleRequest
) -> Output:
    """`daemon stop`: this daemon stops once the answer is sent; the launcher waits for
    this process to exit (its browsers are closed by then), as cli._daemon_stop does."""
    answer = await _ask(runtime, call, parsed, None, handle)
    with callers_terminal(call):
        output = printed(parsed.command, answer, "--json" in call.argv)
    if output["exit"] == 0:
        pid = os.getpid()
        otherwise = report(cli.not_exited(pid), "--json" in call.argv)
        output["wait"] = {"pid": pid, "seconds": cli.STOP_WAIT_S, "otherwise": otherwise}
    return output


# The commands about the daemon's own process (cli.RUN_HERE), as this daemon runs them.
HOSTED: dict[str, Hosted] = {"daemon.start": _daemon_start, "daemon.stop": _daemon_stop}


def _result(answer: Any) -> Any:
    """A JSON-RPC reply's result; its error raised."""
    answer = json.loads(json.dumps(answer))  # what the socket would have carried
    if not isinstance(answer, dict):
        raise SteadyhandError(ErrorCode.INTERNAL, "the command gave no reply")
    if "error" in answer:
        raise SteadyhandError.from_rpc_error(answer["error"])
    return answer.get("result")


def printed(command: cli.Spec, answer: Any, as_json: bool, boundary: str | None = None) -> Output:
    """The output of one JSON-RPC reply, as rpc_client.call and cli.main make it.

    Never raises: the command ran, and an error out of `cli.run` would have the caller
    run it again through the reference.
    """
    try:
        result = _result(answer)
        if command.get("streams") and isinstance(result, dict):
            result.pop("events", None)  # printed as they came
        if as_json:
            text = json.dumps({"ok": True, "result": result})
        else:
            forms = cli.step_forms(PARSERS.spec, command)
            text = reply.render(result, command, forms=forms, boundary=boundary)
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
