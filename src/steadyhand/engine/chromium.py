"""Find the system Chromium and decide how to launch it.

Discovery order: the `chromium` setting, then `STEADYHAND_CHROMIUM`, then PATH. On PATH a
headless browser prefers Chromium's headless shell (Debian's `chromium-headless-shell`, the
binary Playwright itself runs headless by default): the same engine without the desktop
browser around it, which takes 0.44-0.55 of the full browser's CPU for the same sessions
(bench/browser_binaries.py). A headed browser, and one that loads extensions, needs the full
one.

Run as `python -m steadyhand.engine.chromium` to print the paths found (exit 0) or explain
what was searched (exit 5); `--missing` prints the Debian packages to install (the Makefile's
scripts/ensure-chromium).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from steadyhand.errors import ErrorCode, SteadyhandError

PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
SHELL_NAMES = ("chromium-headless-shell", "chrome-headless-shell")
# Debian's /usr/bin/chromium-headless-shell runs the binary as a child of /bin/sh (no exec):
# the pid Playwright launches, watches and kills would be the shell's, so take the binary.
SHELL_BINARIES = ("/usr/lib/chromium/chromium-headless-shell",)
INSTALL_HINT = (
    "install Debian's chromium packages (sudo apt-get install chromium "
    "chromium-headless-shell), or set "
    "STEADYHAND_CHROMIUM to a Chromium binary; `make test` and `make demo` do this for you"
)
# Keep Chromium off the network unless a page asks: this machine's network is closed and the
# background services otherwise retry connections for ever.
BASE_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
)
OWNER_FLAG = "--steadyhand-owner="


def find_chromium(setting: str = "", *, headless: bool = True) -> Path:
    """The Chromium binary to use, or `browser_not_found` naming everything searched.
    `headless=False` (a headed browser, or one with extensions) skips the headless shell."""
    searched: list[str] = []
    for origin, candidate in (
        ("setting chromium", setting),
        ("STEADYHAND_CHROMIUM", os.environ.get("STEADYHAND_CHROMIUM", "")),
    ):
        if not candidate:
            continue
        searched.append(f"{origin}={candidate}")
        resolved = shutil.which(candidate)
        if resolved:
            return Path(resolved)
    if headless:
        for binary in SHELL_BINARIES:
            searched.append(binary)
            if os.access(binary, os.X_OK):
                return Path(binary)
    for name in (*SHELL_NAMES, *PATH_NAMES) if headless else PATH_NAMES:
        searched.append(f"PATH:{name}")
        resolved = shutil.which(name)
        if resolved:
            return Path(resolved)
    raise SteadyhandError(
        ErrorCode.BROWSER_NOT_FOUND,
        "no Chromium found (searched " + ", ".join(searched) + ")",
        INSTALL_HINT,
        {"searched": searched},
    )


def chromium_version(path: Path) -> str:
    """The version line the binary prints, or '' when it cannot say."""
    try:
        out = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip()


def owner_marker(state_dir: Path) -> str:
    """A flag naming the daemon that owns a browser; Chromium ignores flags it doesn't know."""
    digest = hashlib.sha256(str(state_dir.resolve()).encode()).hexdigest()[:16]
    return OWNER_FLAG + digest


def launch_args(state_dir: Path) -> list[str]:
    args = [*BASE_ARGS, owner_marker(state_dir)]
    # Chromium refuses to start its sandbox as root; elsewhere keep the sandbox.
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


@dataclass(frozen=True)
class BrowserProcess:
    pid: int
    pgid: int


def find_owned_browsers(state_dir: Path) -> list[BrowserProcess]:
    """Chromium main processes started for this state dir, found through /proc."""
    marker = owner_marker(state_dir).encode()
    found: list[BrowserProcess] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            if marker not in cmdline.split(b"\0"):
                continue
            pid = int(entry.name)
            found.append(BrowserProcess(pid, os.getpgid(pid)))
        except (OSError, ProcessLookupError):
            continue
    return found


def owned_processes(state_dir: Path) -> set[int]:
    """Every process of the Chromium this state dir started: the browsers and all their
    descendants (zygotes, renderers, GPU and utility processes)."""
    return descendants({b.pid for b in find_owned_browsers(state_dir)})


def descendants(roots: set[int]) -> set[int]:
    """`roots` and every process below them, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    tree = set(roots)
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return tree


def is_headless_shell(path: Path) -> bool:
    return path.name in SHELL_NAMES


def missing_packages() -> list[str]:
    """The Debian packages that would complete discovery: `chromium` when no full browser
    is found, `chromium-headless-shell` when headless sessions would run the full one.
    Neither when STEADYHAND_CHROMIUM names a binary (the `chromium` setting, in a config
    file, is not read here: the Makefile asks before any settings exist)."""
    missing = []
    try:
        find_chromium(headless=False)
    except SteadyhandError:
        missing.append("chromium")
    try:
        headless = find_chromium(headless=True)
    except SteadyhandError:
        headless = None
    overridden = bool(os.environ.get("STEADYHAND_CHROMIUM"))
    if not overridden and (headless is None or not is_headless_shell(headless)):
        missing.append("chromium-headless-shell")
    return missing


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--missing"]:
        print(" ".join(missing_packages()))
        return 0
    try:
        headed = find_chromium(headless=False)
        headless = find_chromium(headless=True)
    except SteadyhandError as exc:
        print(f"steadyhand: {exc.message}\nhint: {exc.hint}", file=sys.stderr)
        return 5
    print(f"{headed}" if headed == headless else f"{headed}, {headless} (headless)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
