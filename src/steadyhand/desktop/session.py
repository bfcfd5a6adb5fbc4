"""A private desktop for headless machines: Xvfb, a D-Bus session bus, the a11y bus.

`DesktopSession` starts, each in a process group of its own and with a private
environment: a session bus (`dbus-daemon --session` on a socket in a private runtime dir;
DBUS_SESSION_BUS_ADDRESS is always set, so nothing autolaunches a stray bus), Xvfb on a
free display (`-displayfd`), and `at-spi-bus-launcher --launch-immediately`; it then turns
accessibility on (org.a11y.Status.IsEnabled) and waits until the a11y registry answers;
with `window_manager` (e.g. "openbox") it then starts that and waits until it manages the
display.
Programs started with `launch` see the session's `env`; `close` stops everything the
session started (see procs.py) and removes its directory.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from steadyhand.desktop import procs
from steadyhand.desktop.gi_path import INSTALL_HINT, ensure_gi
from steadyhand.errors import ErrorCode, SteadyhandError

AT_SPI_BUS_LAUNCHER = "/usr/libexec/at-spi-bus-launcher"
PROGRAMS = {"Xvfb": "Xvfb", "dbus-daemon": "dbus-daemon", "gdbus": "gdbus"}
WAYLAND_PROGRAMS = {"sway": "sway", "grim": "grim", "dbus-daemon": "dbus-daemon", "gdbus": "gdbus"}
# Sway refuses to run as root: as root, it runs as a user id of its own, no one's account
# (setpriv takes a bare number), so no other process can reach its sockets or its screen.
SWAY_IDS = (1_900_000_000, 1_999_999_999)
START_TIMEOUT_S = 20.0
# What the environment must not pass on from outside: another bus, display or compositor.
DROPPED = (
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_STARTER_ADDRESS",
    "DBUS_STARTER_BUS_TYPE",
    "AT_SPI_BUS_ADDRESS",
    "NO_AT_BRIDGE",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "SESSION_MANAGER",
)
A11Y_BUS = ("--dest", "org.a11y.Bus", "--object-path", "/org/a11y/bus")
SIZE = re.compile(r"^(\d{2,5})x(\d{2,5})$")


def missing_programs(wayland: bool = False) -> list[str]:
    """The programs a session needs that this machine lacks (empty: it can start)."""
    needed = WAYLAND_PROGRAMS if wayland else PROGRAMS
    missing = [name for name, program in needed.items() if shutil.which(program) is None]
    if wayland and os.geteuid() == 0 and shutil.which("setpriv") is None:
        missing.append("setpriv")  # sway refuses root: it runs as an id of its own
    if not os.access(AT_SPI_BUS_LAUNCHER, os.X_OK):
        missing.append(AT_SPI_BUS_LAUNCHER)
    return missing


def _unused_id() -> int:
    """A user and group id that no account and no file here has (sway's own)."""
    import grp
    import pwd

    for _ in range(100):
        candidate = SWAY_IDS[0] + secrets.randbelow(SWAY_IDS[1] - SWAY_IDS[0])
        try:
            pwd.getpwuid(candidate)
        except KeyError:
            try:
                grp.getgrgid(candidate)
            except KeyError:
                return candidate
    raise SteadyhandError(ErrorCode.ACTION_FAILED, "no unused user id for sway", "")


def parse_size(text: str) -> tuple[int, int]:
    """'1280x800' -> (1280, 800)."""
    match = SIZE.match(text)
    if match is None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST, f"screen size {text!r} is not WIDTHxHEIGHT", "e.g. 1280x800"
        )
    return int(match[1]), int(match[2])


class DesktopSession:
    """A private headless desktop; a context manager. `env` is for its programs."""

    def __init__(
        self,
        size: str = "1280x800",
        start_timeout_s: float = START_TIMEOUT_S,
        window_manager: str | None = None,
        wayland: bool = False,
    ) -> None:
        self.width, self.height = parse_size(size)
        # A headless sway (wlroots) instead of Xvfb: Wayland clients, no X display.
        self.wayland = wayland
        self._sway_dir: Path | None = None
        # A program (openbox) started once the display is up; none by default: toolkit
        # windows then sit where their applications put them and take focus as told.
        self.window_manager = window_manager
        self.start_timeout_s = start_timeout_s
        self.mark = secrets.token_hex(8)
        self.root = Path(tempfile.mkdtemp(prefix="steadyhand-desktop-"))  # mode 0700
        self.display = ""
        self.a11y_address = ""
        self.env: dict[str, str] = {}
        self.started_s = 0.0  # how long start() took
        self._children: list[subprocess.Popen[bytes]] = []
        self._groups: list[int] = []  # the process groups it started, one per program
        self._services: dict[str, subprocess.Popen[bytes]] = {}

    # ------------------------------------------------------------ life

    def __enter__(self) -> DesktopSession:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def start(self) -> None:
        """Start bus, display and a11y bus; return once the a11y registry answers."""
        missing = missing_programs(self.wayland)
        if self.window_manager and shutil.which(self.window_manager) is None:
            missing.append(self.window_manager)
        if missing:
            self._remove_root()
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "a desktop session needs " + ", ".join(missing) + ", not found",
                INSTALL_HINT,
            )
        began = time.monotonic()
        deadline = began + self.start_timeout_s
        pipes: dict[str, int] = {}
        try:
            self.env = self._base_env()
            pipes["dbus-daemon"] = self._start_session_bus()
            if self.wayland:
                self.env["DBUS_SESSION_BUS_ADDRESS"] = self._read_line(
                    pipes, "dbus-daemon", deadline
                )
                self.display = self._start_sway(deadline)
            else:
                pipes["Xvfb"] = self._start_xvfb()
                self.env["DBUS_SESSION_BUS_ADDRESS"] = self._read_line(
                    pipes, "dbus-daemon", deadline
                )
                self.display = ":" + self._read_line(pipes, "Xvfb", deadline)
                self.env["DISPLAY"] = self.display
            self._start("at-spi-bus-launcher", [AT_SPI_BUS_LAUNCHER, "--launch-immediately"])
            self.a11y_address = self._wait_a11y_bus(deadline)
            if self.window_manager:
                self._start("window-manager", [self.window_manager])
                self._wait_window_manager(deadline)
        except BaseException:
            for fd in pipes.values():
                os.close(fd)
            self.close()
            raise
        self.started_s = time.monotonic() - began

    def launch(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        stdin: int | IO[Any] | None = subprocess.DEVNULL,
        stdout: int | IO[Any] | None = None,
        stderr: int | IO[Any] | None = None,
        own_group: bool = True,
    ) -> subprocess.Popen[bytes]:
        """Start a program on this desktop (its own process group unless told); `close`
        stops it. `env` adds to the session's environment."""
        if not self.display:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST, "the desktop session is not running", "start() it first"
            )
        process = subprocess.Popen(
            list(argv),
            env={**self.env, **(env or {})},
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            process_group=0 if own_group else None,
        )
        self._children.append(process)
        if own_group:
            self._groups.append(process.pid)
        return process

    @property
    def process_groups(self) -> list[int]:
        """The process groups this session started, one per program."""
        return list(self._groups)

    def close(self) -> None:
        """Stop every process the session started, and remove its directory."""
        # A group whose leader this session already reaped may be gone, its number taken by
        # another program's group since (pids wrap around in minutes on a busy machine): only
        # groups whose leader is not reaped yet (running, or a zombie holding the number) are
        # stopped whole. What else is left of the session still carries its mark.
        unreaped = {process.pid for process in self._children if process.returncode is None}
        left = procs.stop([pgid for pgid in self._groups if pgid in unreaped], self.mark)
        for process in self._children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(1.0)  # reap: each one was stopped above
        self._children.clear()
        self._groups.clear()
        self._services.clear()
        if self._sway_dir is not None:
            shutil.rmtree(self._sway_dir, ignore_errors=True)
            self._sway_dir = None
        self._remove_root()
        if left:
            raise SteadyhandError(
                ErrorCode.ACTION_FAILED,
                f"processes of the desktop session survived SIGKILL: {sorted(left)}",
                "they may be stuck in the kernel (state D); check `ps -o pid,stat,cmd`",
            )

    # ------------------------------------------------------------ parts

    def _base_env(self) -> dict[str, str]:
        runtime = self._private_dir("runtime")
        env = {k: v for k, v in os.environ.items() if k not in DROPPED}
        env.update(
            {
                procs.MARK_VARIABLE: self.mark,
                "XDG_RUNTIME_DIR": str(runtime),
                "XDG_CONFIG_HOME": str(self._private_dir("config")),
                "XDG_DATA_HOME": str(self._private_dir("data")),
                "GSETTINGS_BACKEND": "memory",  # or IsEnabled is saved in ~/.config/dconf
                "GDK_BACKEND": "x11",
                "QT_QPA_PLATFORM": "xcb",
                "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
                "QT_ACCESSIBILITY": "1",
            }
        )
        return env

    def _start_sway(self, deadline: float) -> str:
        """Sway on its headless backend; the path of its Wayland socket, once there.

        Its runtime dir is its own, 0700 (as root, sway runs as an unused user id, and the
        session's dir is private to root); clients find the socket by its full path. Its
        environment is only what it needs: none of ours (a secret in it) reaches it."""
        self._sway_dir = Path(tempfile.mkdtemp(prefix="steadyhand-sway-"))
        config = self._sway_dir / "config"
        config.write_text(
            "xwayland disable\n"
            f"output HEADLESS-1 mode {self.width}x{self.height} position 0 0\n"
            "default_border none\n"
            "focus_follows_mouse no\n"
        )
        config.chmod(0o600)
        argv = ["sway", "-c", str(config)]
        if os.geteuid() == 0:
            uid = _unused_id()
            for path in (self._sway_dir, config):
                os.chown(path, uid, uid)
            argv = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self._sway_dir),
            "XDG_RUNTIME_DIR": str(self._sway_dir),
            "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1",
            "WLR_RENDERER": "pixman",
            procs.MARK_VARIABLE: self.mark,  # close() finds what is left of it by this
        }
        self._start("sway", argv, env=env)
        while True:
            sockets = [p for p in self._sway_dir.glob("wayland-*") if not p.name.endswith(".lock")]
            ipc = list(self._sway_dir.glob("sway-ipc.*.sock"))
            if sockets and ipc:
                break
            self._check_children()
            if time.monotonic() > deadline:
                raise self._failed("sway", "did not open its Wayland socket in time")
            time.sleep(0.01)
        self.env |= {
            "WAYLAND_DISPLAY": str(sockets[0]),
            "SWAYSOCK": str(ipc[0]),
            "GDK_BACKEND": "wayland",
            "QT_QPA_PLATFORM": "wayland",
        }
        self.env.pop("DISPLAY", None)
        return str(sockets[0])

    def _private_dir(self, name: str) -> Path:
        path = self.root / name
        path.mkdir(mode=0o700)
        return path

    def _start(
        self,
        name: str,
        argv: list[str],
        pass_fds: tuple[int, ...] = (),
        env: dict[str, str] | None = None,
    ) -> subprocess.Popen[bytes]:
        with open(self._log(name), "wb") as out:
            process = subprocess.Popen(
                argv,
                env=self.env if env is None else env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                pass_fds=pass_fds,
                process_group=0,
                cwd=self.root,
            )
        self._children.append(process)
        self._groups.append(process.pid)
        self._services[name] = process
        return process

    def _log(self, name: str) -> Path:
        return self.root / f"{name}.log"

    def _start_session_bus(self) -> int:
        """dbus-daemon on a socket in the runtime dir; the read end of its address pipe."""
        socket = Path(self.env["XDG_RUNTIME_DIR"]) / "bus"
        read_end, write_end = os.pipe()
        try:
            self._start(
                "dbus-daemon",
                [
                    "dbus-daemon",
                    "--session",
                    "--nofork",
                    "--nopidfile",
                    f"--address=unix:path={socket}",
                    f"--print-address={write_end}",
                ],
                pass_fds=(write_end,),
            )
        finally:
            os.close(write_end)
        return read_end

    def _start_xvfb(self) -> int:
        """Xvfb on the first free display; the read end of its -displayfd pipe."""
        read_end, write_end = os.pipe()
        try:
            self._start(
                "Xvfb",
                [
                    "Xvfb",
                    "-displayfd",
                    str(write_end),
                    "-screen",
                    "0",
                    f"{self.width}x{self.height}x24",
                    "-nolisten",
                    "tcp",
                ],
                pass_fds=(write_end,),
            )
        finally:
            os.close(write_end)
        return read_end

    def _wait_a11y_bus(self, deadline: float) -> str:
        """Turn accessibility on, and wait until the a11y bus and its registry answer."""
        address = self._retry(
            ["call", "--session", *A11Y_BUS, "--method", "org.a11y.Bus.GetAddress"], deadline
        )
        address = address.strip().removeprefix("('").removesuffix("',)")
        self._gdbus(
            [
                "call",
                "--session",
                *A11Y_BUS,
                "--method",
                "org.freedesktop.DBus.Properties.Set",
                "org.a11y.Status",
                "IsEnabled",
                "<true>",
            ]
        )
        self._retry(
            [
                "call",
                "--address",
                address,
                "--dest",
                "org.a11y.atspi.Registry",
                "--object-path",
                "/org/a11y/atspi/accessible/root",
                "--method",
                "org.freedesktop.DBus.Properties.Get",
                "org.a11y.atspi.Accessible",
                "ChildCount",
            ],
            deadline,
        )
        return address

    def _wait_window_manager(self, deadline: float) -> None:
        """Wait until an EWMH window manager has announced itself on the root window."""
        ensure_gi()  # python3-xlib lives beside gi in Debian's dist-packages
        from Xlib import display

        screen = display.Display(self.display)
        try:
            check = screen.intern_atom("_NET_SUPPORTING_WM_CHECK")
            while screen.screen().root.get_full_property(check, 0) is None:
                self._check_children()
                if time.monotonic() > deadline:
                    when = f"did not take the display within {self.start_timeout_s} s"
                    raise self._failed("window-manager", when, ErrorCode.TIMEOUT)
                time.sleep(0.02)
        finally:
            screen.close()

    def _retry(self, args: list[str], deadline: float) -> str:
        """A gdbus call, again until it answers or the deadline passes."""
        while True:
            try:
                return self._gdbus(args)
            except SteadyhandError:
                if time.monotonic() > deadline:
                    raise
                self._check_children()
                time.sleep(0.02)

    def _gdbus(self, args: list[str]) -> str:
        done = subprocess.run(
            ["gdbus", *args, "--timeout", "2"],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if done.returncode != 0:
            raise SteadyhandError(
                ErrorCode.ACTION_FAILED,
                f"gdbus {' '.join(args[:2])} failed: {done.stderr.strip()}",
                self._log_hint(),
            )
        return done.stdout

    def _check_children(self) -> None:
        for name, process in self._services.items():
            if process.poll() is not None:
                raise self._failed(name, f"exited at start (status {process.returncode})")

    def _failed(
        self, name: str, what: str, code: ErrorCode = ErrorCode.ACTION_FAILED
    ) -> SteadyhandError:
        return SteadyhandError(code, f"{name} {what}: {_tail(self._log(name))}", self._log_hint())

    def _log_hint(self) -> str:
        return "the desktop session's programs log to " + ", ".join(
            str(self._log(name)) for name in self._services
        )

    def _read_line(self, pipes: dict[str, int], name: str, deadline: float) -> str:
        """The first line a starting program writes on its pipe; the pipe is closed."""
        fd = pipes.pop(name)
        with os.fdopen(fd, "rb") as pipe:
            data = b""
            while b"\n" not in data:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([pipe], [], [], left)[0]:
                    when = f"did not start within {self.start_timeout_s} s"
                    raise self._failed(name, when, ErrorCode.TIMEOUT)
                chunk = os.read(pipe.fileno(), 4096)
                if not chunk:
                    raise self._failed(name, "exited at start")
                data += chunk
        return data.split(b"\n", 1)[0].decode().strip()

    def _remove_root(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return "(no log)"
