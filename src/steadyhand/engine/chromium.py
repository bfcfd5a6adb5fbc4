"""Find the system Chromium and decide how to launch it.

Discovery order: the `chromium` setting, then `STEADYHAND_CHROMIUM`, then PATH.
Run as `python -m steadyhand.engine.chromium` to print the path found (exit 0) or
explain what was searched (exit 5): the Makefile uses this before installing Chromium.
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
INSTALL_HINT = (
    "install Debian's chromium package (sudo apt-get install chromium), or set "
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


def find_chromium(setting: str = "") -> Path:
    """The Chromium binary to use, or `browser_not_found` naming everything searched."""
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
    for name in PATH_NAMES:
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


def main() -> int:
    try:
        path = find_chromium()
    except SteadyhandError as exc:
        print(f"steadyhand: {exc.message}\nhint: {exc.hint}", file=sys.stderr)
        return 5
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
