"""Pinned npm tools the tests and benches run as real clients or peers (the MCP Inspector,
Playwright MCP, Chrome DevTools MCP), installed once into a cache beside the virtualenv.

    from tests.npm_tools import tool_bin
    inspector = tool_bin("@modelcontextprotocol/inspector", "mcp-inspector")

Each package is installed at its pinned version with `npm install --prefix`, under a file
lock (two test workers may ask at once); a second call finds it there. Without npm, or
with the registry out of reach, NpmUnavailable says why.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".venv" / "npm-tools"
PINNED = {
    "@modelcontextprotocol/inspector": "2.12.0",
    "@playwright/mcp": "0.0.83",
    "chrome-devtools-mcp": "1.11.0",
}
INSTALL_TIMEOUT_S = 600


class NpmUnavailable(RuntimeError):
    """npm is missing or could not install a package."""


def installed_version(prefix: Path, package: str) -> str | None:
    try:
        manifest = json.loads((prefix / "node_modules" / package / "package.json").read_text())
    except (OSError, ValueError):
        return None
    version = manifest.get("version")
    return version if isinstance(version, str) else None


def ensure(package: str) -> Path:
    """The prefix holding `package` at its pinned version, installing it if needed."""
    version = PINNED[package]
    prefix = CACHE / package.replace("/", "__").lstrip("@")
    if installed_version(prefix, package) == version:
        return prefix
    npm = shutil.which("npm")
    if npm is None:
        raise NpmUnavailable("npm is not installed (Debian: apt-get install npm)")
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed_version(prefix, package) != version:
            done = subprocess.run(
                [
                    npm,
                    "install",
                    "--prefix",
                    str(prefix),
                    "--no-audit",
                    "--no-fund",
                    "--silent",
                    f"{package}@{version}",
                ],
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT_S,
                check=False,
            )
            if done.returncode != 0 or installed_version(prefix, package) != version:
                said = (done.stderr or done.stdout).strip().splitlines()[-3:]
                raise NpmUnavailable(f"npm install {package}@{version} failed: {' | '.join(said)}")
    return prefix


def tool_bin(package: str, command: str) -> Path:
    """The path of `command` from the pinned `package`'s node_modules/.bin."""
    path = ensure(package) / "node_modules" / ".bin" / command
    if not path.exists():
        raise NpmUnavailable(f"{package}@{PINNED[package]} has no command {command!r}")
    return path
