"""The `steadyhand` command's fast path: the daemon parses and answers, this process relays.

The reference CLI (main.py) builds an argparse parser from the command spec and imports
json, pathlib and socket in every process, which costs several times a bare interpreter's
start. This module imports builtin modules only (posix, _socket, _json, time): it sends
argv, the working directory and the caller's settings environment to the daemon's
`cli.run` (fronts/cli/host.py), which parses them with the reference's own parser, runs
the command and sends back the stdout, stderr and exit code the reference would have
produced, wrapped to this terminal and in this time zone. On the way it prints a
streaming command's lines and the progress line, sends standard input when the call
reads it (--stdin's text, a batch's steps), and after `daemon stop` waits for the daemon
to exit.

The reference runs a call here only where no daemon can: none is listening (the
reference starts one, or says why it will not), the state dir is named in the TOML
config (its socket is unknown until TOML is read), and the fronts (`mcp`, `serve`,
`tools`, `doctor`) and `desktop session`, which are programs of their own. A daemon
that hands a call back (one without `cli.run`, or dying as asked to start or stop)
leaves it to the reference too, which then finds standard input as this process read it.

`make` installs the `steadyhand` command as a launcher that runs this module on an
interpreter started without `site` (`python -S`): see `write_launcher`.
"""

import _io
import _json
import _socket
import posix
import sys

from steadyhand.fronts.cli.progress import ProgressLine
from steadyhand.processes import wait_exit

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    from typing import Any

METHOD = "cli.run"
# cli.FRONTS (a unit test keeps them equal) and the process wrapper run as cli.main runs
# them, on an interpreter with `site` (they import pydantic, the MCP SDK...).
FRONTS = {
    "serve": "steadyhand.fronts.http.server",
    "mcp": "steadyhand.fronts.mcp.server",
    "tools": "steadyhand.fronts.agent.tools",
    "doctor": "steadyhand.fronts.cli.doctor",
}
RUN_FRONT = (
    "import importlib, sys; sys.exit(importlib.import_module(sys.argv[1]).main(sys.argv[2:]))"
)
# How long to wait for the daemon before it says how long the command may take: the
# reference's wait with the default settings (long tier, approval wait, grace), rounded up.
FIRST_WAIT_S = 180.0
ENV_PREFIX = "STEADYHAND_"
# The variables the daemon needs to load the caller's settings and print as it would.
PASSED = ("TZ",)
CONFIG_NAME = "/steadyhand/config.toml"


class Fallback(Exception):
    """The reference CLI must run this call; nothing of it ran in the daemon."""


class StdinWanted(Exception):
    """The daemon asks for standard input (a batch's steps); nothing of the call ran."""


class _Decoder:
    """What `_json.make_scanner` reads off its context: json.JSONDecoder's defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity, -Infinity


_scan = _json.make_scanner(_Decoder())  # type: ignore[arg-type]  # typeshed wants its own type
_quote = _json.encode_basestring_ascii  # json.dumps's escaping (ensure_ascii)


# The exit code of a call whose stdout's reader went away (`steadyhand ... | head`):
# 128 + SIGPIPE, what the shell reports for git, cat and any program the signal ended.
CLOSED_PIPE_EXIT = 141


def main(argv: "list[str] | None" = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        code = run(argv)
        sys.stdout.flush()  # here, not at exit: a closed pipe shows now, in this handler
    except BrokenPipeError:
        return closed_pipe()
    return code


def run(argv: "list[str]") -> int:
    """Relay the call, else run it here as the reference; its exit code."""
    try:
        return relay(argv)
    except Fallback:
        pass
    except KeyboardInterrupt:
        return 130
    return reference(argv)  # outside the handler: its errors are its own, as ever


def closed_pipe() -> int:
    """Stdout's reader closed early: exit quietly, as the `signal` module's docs advise
    (note on SIGPIPE): point stdout at /dev/null so that the interpreter's flush at exit
    does not fail again and print a traceback; exit as a program SIGPIPE ended would."""
    try:
        devnull = posix.open("/dev/null", posix.O_WRONLY)
        posix.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no descriptor to replace: drop the stream instead
        sys.stdout = None
    return CLOSED_PIPE_EXIT


def reference(argv: "list[str]") -> int:
    """Run the call as cli.main does, here; the fronts on an interpreter with `site`."""
    front = FRONTS.get(argv[0]) if argv else None
    if front is not None:  # as cli.main runs them, without its own imports first
        if sys.flags.no_site:
            posix.execv(sys.executable, [sys.executable, "-c", RUN_FRONT, front, *argv[1:]])
        import importlib

        return int(importlib.import_module(front).main(argv[1:]))
    if sys.flags.no_site and argv[:2] == ["desktop", "session"]:
        posix.execv(sys.executable, [sys.executable, "-m", "steadyhand", *argv])
    from steadyhand.fronts.cli.main import main as reference_main

    return reference_main(argv)


def relay(argv: "list[str]") -> int:
    """Have the daemon run the call; its exit code. Fallback when the reference must."""
    if argv and (argv[0] in FRONTS or argv[:2] == ["desktop", "session"]):
        raise Fallback
    encoding = sys.getfilesystemencoding()
    env = {
        key.decode(encoding, "surrogateescape"): value.decode(encoding, "surrogateescape")
        for key, value in posix.environ.items()
    }
    try:
        cwd = posix.getcwd()
    except OSError:
        raise Fallback from None
    state_dir = state_dir_of(env, cwd)
    config = config_file_of(env, cwd)
    if not env.get(ENV_PREFIX + "STATE_DIR") and names_state_dir(config):
        raise Fallback  # the state dir (so the socket) comes from TOML: the reference reads it
    tty = posix.isatty(2)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        try:
            sock.connect(state_dir + "/daemon.sock")
        except OSError:
            raise Fallback from None  # no daemon: the reference starts one
        sock.settimeout(FIRST_WAIT_S)
        passed = {k: v for k, v in env.items() if k.startswith(ENV_PREFIX) or k in PASSED}
        stdin = read_stdin(argv)  # once a daemon answers: else the reference reads it
        try:
            while True:
                request = encode_request(
                    argv, cwd, passed, config, state_dir, width=columns(env), tty=tty, stdin=stdin
                )
                try:
                    output = answer(sock, request, tty, "--json" in argv, lifecycle(argv))
                    break
                except StdinWanted:
                    if stdin is not None or sys.stdin is None or sys.stdin.isatty():
                        raise Fallback from None  # the reference says there is none
                    stdin = sys.stdin.read()
        except Fallback:
            if stdin is not None:  # the reference reads what this process already did
                sys.stdin = _io.StringIO(stdin)
            raise
    finally:
        sock.close()
    return show(output)


def read_stdin(argv: "list[str]") -> "str | None":
    """--stdin's text (a secret, kept out of argv and so of `ps`), sent with the call."""
    if "--stdin" not in argv:
        return None
    if sys.stdin is None:
        raise Fallback  # the reference says there is none
    return sys.stdin.read()


def state_dir_of(env: "dict[str, str]", cwd: str) -> str:
    """The state dir as Settings.load makes it (env, else XDG), absolute: its socket's dir."""
    value = env.get(ENV_PREFIX + "STATE_DIR")
    if not value:
        runtime = env.get("XDG_RUNTIME_DIR")
        if runtime and is_dir(absolute(runtime, cwd)):
            value = runtime + "/steadyhand"
        else:
            value = (env.get("XDG_STATE_HOME") or home(env) + "/.local/state") + "/steadyhand"
    return absolute(expand_user(value, env), cwd)


def config_file_of(env: "dict[str, str]", cwd: str) -> str:
    """The TOML file Settings.load reads (whether or not it exists), absolute."""
    path = env.get(ENV_PREFIX + "CONFIG") or (
        (env.get("XDG_CONFIG_HOME") or home(env) + "/.config") + CONFIG_NAME
    )
    return absolute(path, cwd)


def names_state_dir(config: str) -> bool:
    try:
        with open(config, "rb") as handle:
            return b"state_dir" in handle.read()
    except OSError:
        return False


def home(env: "dict[str, str]") -> str:
    value = env.get("HOME")
    if value is None:
        raise Fallback  # Path.home() would ask the password database
    return value


def expand_user(path: str, env: "dict[str, str]") -> str:
    if not path.startswith("~"):
        return path
    if path != "~" and not path.startswith("~/"):
        raise Fallback  # ~user
    return (home(env).rstrip("/") + path[1:]) or "/"  # as posixpath.expanduser


def absolute(path: str, cwd: str) -> str:
    return path if path.startswith("/") else cwd.rstrip("/") + "/" + path


def is_dir(path: str) -> bool:
    try:
        return posix.stat(path).st_mode & 0o170000 == 0o040000
    except (OSError, ValueError):
        return False


def columns(env: "dict[str, str]") -> int:
    """The width argparse would format usage for (shutil.get_terminal_size's columns)."""
    try:
        width = int(env.get("COLUMNS", ""))
    except ValueError:
        width = 0
    if width <= 0:
        try:
            width = posix.get_terminal_size(1).columns or 80
        except (OSError, ValueError):
            width = 80
    return width


def encode_request(
    argv: "list[str]",
    cwd: str,
    env: "dict[str, str]",
    config: str,
    state_dir: str,
    *,
    width: int,
    tty: bool,
    stdin: "str | None" = None,
) -> bytes:
    """The `cli.run` request line, written as json.dumps would (its escaping)."""
    params = (
        '{"argv":['
        + ",".join(map(_quote, argv))
        + '],"cwd":'
        + _quote(cwd)
        + ',"env":{'
        + ",".join(_quote(k) + ":" + _quote(v) for k, v in env.items())
        + '},"config":'
        + _quote(config)
        + ',"state_dir":'
        + _quote(state_dir)
        + ',"columns":'
        + str(width)
        + ',"tty":'
        + ("true" if tty else "false")
        + ("" if stdin is None else ',"stdin":' + _quote(stdin))
        + "}"
    )
    # Progress notes to a terminal; notices (an approval waited on) to any stderr.
    progress = ',"progress":true' if tty else ',"notices":true'
    return (
        '{"jsonrpc":"2.0","id":1,"method":"' + METHOD + '","params":' + params + progress + "}\n"
    ).encode()


def lifecycle(argv: "list[str]") -> bool:
    """`daemon start|stop`: a daemon dying as asked leaves these to the reference."""
    at = argv.index("daemon") if "daemon" in argv else -1
    return 0 <= at < len(argv) - 1 and argv[at + 1] in ("start", "stop")


def answer(
    sock: "Any", request: bytes, tty: bool, as_json: bool, lifecycle: bool
) -> "dict[str, Any]":
    """Send the call and print what it streams (its lines, progress, notices); the output
    the daemon says the reference would have printed.

    `lifecycle`: `daemon start|stop`. A daemon dying as it is asked (a socket still
    listening in its last threads, then reset) leaves such a call to the reference, which
    starts or stops the daemon as if none had answered.
    """
    method = METHOD  # until the daemon names the command
    heard = False
    progress = ProgressLine(sys.stderr) if tty else None
    try:
        sock.sendall(request)
        pending = b""
        while True:
            chunks = [pending]
            while b"\n" not in chunks[-1]:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    raise ValueError("connection closed before a reply")
                chunks.append(chunk)
            line, _, pending = b"".join(chunks).partition(b"\n")
            message = decode(line)
            heard = True
            if "id" in message:
                break
            note = message.get("params")
            if not isinstance(note, dict):
                continue
            if message.get("method") == "cli.wait":
                method = str(note.get("method"))
                sock.settimeout(float(note.get("seconds") or FIRST_WAIT_S))
            elif message.get("method") == "cli.out":  # a streaming command's line
                write_all(sys.stdout, str(note.get("text")))
                sys.stdout.flush()
            elif message.get("method") != "progress":
                continue
            elif note.get("notice"):  # cli.notice_line
                sys.stderr.write(str(note.get("message")) + "\n")
                sys.stderr.flush()
            elif progress is not None:
                progress(int(note.get("done") or 0), note.get("total"), str(note.get("message")))
    except (OSError, ValueError) as exc:  # as rpc_client.request reports a lost reply
        if lifecycle and not heard:
            raise Fallback from None
        return no_answer(f"the daemon did not answer {method}: {exc}", as_json)
    result = message.get("result")
    if "error" in message or not isinstance(result, dict):
        raise Fallback  # a daemon without cli.run
    if result.get("read_stdin"):
        raise StdinWanted
    if "exit" not in result:
        raise Fallback  # a daemon that hands the call back
    return result


def show(output: "dict[str, Any]") -> int:
    """Print the daemon's output for the call (once the daemon it stopped has exited, or
    what it said to print if not); the exit code."""
    wait = output.get("wait")
    if isinstance(wait, dict) and not wait_exit(int(wait["pid"]), float(wait["seconds"])):
        output = wait["otherwise"]
    write_all(sys.stdout, output.get("stdout", ""))
    sys.stderr.write(output.get("stderr", ""))
    return int(output.get("exit", 1))


def write_all(stream: "Any", text: str) -> None:
    """Write `text` whole, or raise BrokenPipeError when the reader goes.

    A text stream's write of more than its buffer holds goes to the pipe at once, and a
    reader that closes mid-write leaves it partly written with no error (the buffered
    writer returns the count, the text stream drops it): the output would end short and
    the call seem to succeed. Written as bytes, what is left goes again, and fails."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text)
        return
    stream.flush()
    data = memoryview(text.encode(stream.encoding, stream.errors))
    while data:
        written = buffer.write(data)
        data = data[written if written is not None else len(data) :]


def decode(line: bytes) -> "dict[str, Any]":
    try:
        message, _ = _scan(line.decode(), 0)
    except StopIteration:
        raise ValueError("the reply is not JSON") from None
    if not isinstance(message, dict):
        raise ValueError("reply is not an object")
    return message


def no_answer(message: str, as_json: bool) -> "dict[str, Any]":
    """cli_errors.report_error of the daemon_unavailable error rpc_client raises (exit 6)."""
    hint = "see daemon.log in the state dir; `steadyhand daemon status`"
    if as_json:
        error = (
            '{"code": "daemon_unavailable", "message": '
            + _quote(message)
            + ', "hint": '
            + _quote(hint)
            + ', "data": {"sent": true}}'
        )
        return {"stdout": '{"ok": false, "error": ' + error + "}\n", "stderr": "", "exit": 6}
    return {
        "stdout": "",
        "stderr": f"error [daemon_unavailable]: {message}\nhint: {hint}\n",
        "exit": 6,
    }


# ---------------------------------------------------------------- the launcher

LAUNCHER = """#!{python} -S
# The `steadyhand` command, written by `make` (python -m steadyhand.fronts.cli.relay PATH).
# Without `site` the interpreter starts in about half the time; the package's own folder
# is all it needs (steadyhand.fronts.cli.relay runs the fronts on a full interpreter).
import sys

sys.path.insert(0, {package_parent!r})
from steadyhand.fronts.cli.relay import main

sys.exit(main())
"""


def write_launcher(path: str) -> bool:
    """Write the launcher at `path` (over pip's console script); False when this
    interpreter's path cannot go on a `#!` line (spaces, too long) and pip's stays."""
    import os

    python = sys.executable
    if not python or any(c.isspace() for c in python) or len(python) > 120:
        return False
    # This file is steadyhand/fronts/cli/relay.py: the folder that holds the package.
    here = os.path.abspath(__file__)
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(here))))
    text = LAUNCHER.format(python=python, package_parent=package_parent)
    temporary = path + ".tmp"
    with open(temporary, "w") as handle:
        handle.write(text)
    os.chmod(temporary, 0o755)
    os.replace(temporary, path)
    return True


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m steadyhand.fronts.cli.relay PATH  (writes the launcher)")
    sys.exit(0 if write_launcher(sys.argv[1]) else "this interpreter's path cannot be a #! line")
