"""`steadyhand desktop session [--size WxH] [--wm openbox] [--wayland] -- CMD ARGS...`: CMD
in a private desktop (X11 on Xvfb, or Wayland on a headless sway).

A process wrapper, not a daemon command: it starts a DesktopSession, runs CMD in the
foreground with the session's environment, stops everything the session started once CMD
exits (a daemon CMD started in the session too), and exits with CMD's status.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
from collections.abc import Callable
from types import FrameType

from steadyhand.desktop.session import DesktopSession
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.fronts.cli.errors import report_error

PR_SET_CHILD_SUBREAPER = 36
EXPORTED = ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="steadyhand desktop session",
        description="Run CMD on a private headless desktop: Xvfb, a D-Bus session bus and "
        "the accessibility bus, with their environment; all stopped when CMD exits.",
        epilog="example: steadyhand desktop session -- sh -c "
        "'python3 app.py & steadyhand desktop snapshot'",
    )
    parser.add_argument("--size", default="1280x800", help="screen size WIDTHxHEIGHT")
    parser.add_argument(
        "--wm",
        metavar="PROGRAM",
        help="start this window manager (e.g. openbox) on the desktop; default: none",
    )
    parser.add_argument(
        "--wayland",
        action="store_true",
        help="a Wayland desktop: a headless sway (wlroots) instead of Xvfb; apps get "
        "GDK_BACKEND=wayland and QT_QPA_PLATFORM=wayland",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="print the session's variables on stderr"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS")
    args = parser.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("give the command to run after --")
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    _become_subreaper()
    try:
        if args.wayland and args.wm:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "--wm is for X sessions: sway is the Wayland session's window manager",
                "drop --wm, or --wayland",
            )
        with DesktopSession(args.size, window_manager=args.wm, wayland=args.wayland) as session:
            if args.verbose:
                for name in EXPORTED:
                    if name in session.env:
                        print(f"{name}={session.env[name]}", file=sys.stderr)
                print(f"started in {session.started_s:.2f} s", file=sys.stderr)
            return _run(session, args.command)
    except SteadyhandError as exc:
        return report_error(exc, as_json=False)
    except OSError as exc:  # CMD not found, not executable
        error = SteadyhandError(ErrorCode.BAD_REQUEST, f"cannot run {args.command[0]}: {exc}")
        return report_error(error, as_json=False)
    finally:
        _reap_orphans()


def _run(session: DesktopSession, command: list[str]) -> int:
    """CMD in the foreground (our process group, so it keeps the terminal); its status."""
    process = session.launch(command, stdin=None, own_group=False)

    def forward(signum: int, _frame: FrameType | None) -> None:
        if process.poll() is None:
            process.send_signal(signum)

    # Like a shell waiting on a job: ^C and ^\ reach CMD from the terminal, we wait on;
    # SIGTERM and SIGHUP sent to us are passed on.
    handlers: dict[signal.Signals, signal.Handlers | Callable[[int, FrameType | None], None]] = {
        signal.SIGINT: signal.SIG_IGN,
        signal.SIGQUIT: signal.SIG_IGN,
        signal.SIGTERM: forward,
        signal.SIGHUP: forward,
    }
    before = {sig: signal.signal(sig, handler) for sig, handler in handlers.items()}
    try:
        returncode = process.wait()
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    return 128 - returncode if returncode < 0 else returncode


def _become_subreaper() -> None:
    """Adopt the session's orphans (a bus-activated service, a daemon CMD started), so
    they are reaped here once stopped rather than left to an init that may not reap."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _reap_orphans() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
