"""`steadyhand doctor [--fix] [--json]`: is this machine ready, in one command.

Each check says ok, warn or fail, what it saw, and what to do:

  chromium     found (setting, STEADYHAND_CHROMIUM, PATH), its version
  launch       it starts headless and loads a page (how long it took)
  state dir    exists, the user's own, 0700; every file in it 0600 (socket, tokens, store)
  daemon       answers on its socket (its version, sessions, uptime), or is not running
  store        SQLite opens and passes `quick_check`, or PostgreSQL answers
  http         the HTTP front (or `mcp --http`) on http_host:http_port: answering, or not
  endpoints    each browser_endpoints entry is reachable
  desktop      DISPLAY, Xvfb, the AT-SPI stack (for `desktop.*` and `desktop session`)

`--fix` does what is safe to do without asking: creates the state dir (0700), takes group
and other permissions off the state dir's own files, removes a socket no daemon listens
on, and installs Debian's chromium package with apt-get when run as root (else it prints
the command). Exit code 0 when nothing failed (warnings included), 1 when something did.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from steadyhand import __version__, rpc_client
from steadyhand.config import Settings
from steadyhand.errors import SteadyhandError
from steadyhand.private_files import ensure_private_dir
from steadyhand.redact import redact_url

OK, WARN, FAIL = "ok", "warn", "fail"
LAUNCH_TIMEOUT_S = 60.0
PROBE_TIMEOUT_S = 3.0
APT_CHROMIUM = ["apt-get", "install", "-y", "chromium", "chromium-headless-shell"]


@dataclass
class Check:
    name: str
    status: str
    saw: str
    hint: str = ""
    fixed: list[str] = field(default_factory=list)


def check_chromium(settings: Settings, fix: bool) -> tuple[Check, Path | None]:
    from steadyhand.engine.chromium import INSTALL_HINT, chromium_version, find_chromium

    try:
        path = find_chromium(settings.chromium, headless=settings.headless)
    except SteadyhandError as exc:
        if not fix:
            return Check("chromium", FAIL, exc.message, INSTALL_HINT), None
        done = install_chromium()
        try:
            path = find_chromium(settings.chromium, headless=settings.headless)
        except SteadyhandError:
            return Check("chromium", FAIL, exc.message, done or INSTALL_HINT), None
        version = chromium_version(path)
        return Check("chromium", OK, f"{path} ({version})", fixed=[done]), path
    version = chromium_version(path)
    if not version:
        return Check("chromium", WARN, f"{path} does not say its version", INSTALL_HINT), path
    return Check("chromium", OK, f"{path} ({version})"), path


def install_chromium() -> str:
    """Debian's chromium through apt-get, when this process may; what happened."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "run: sudo " + " ".join(APT_CHROMIUM)
    print("doctor: installing Debian's chromium with apt-get ...", file=sys.stderr, flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    done = subprocess.run([*APT_CHROMIUM, "-q"], env=env, check=False)
    if done.returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, check=False)
        done = subprocess.run([*APT_CHROMIUM, "-q"], env=env, check=False)
    return "installed chromium with apt-get" if done.returncode == 0 else "apt-get failed"


def check_launch(path: Path | None) -> Check:
    if path is None:
        return Check("launch", FAIL, "no Chromium to launch", "see the chromium line")
    import asyncio

    async def launch() -> float:
        from playwright.async_api import async_playwright

        began = time.monotonic()
        async with async_playwright() as driver:
            browser = await driver.chromium.launch(executable_path=str(path), headless=True)
            try:
                page = await browser.new_page()
                await page.goto("data:text/html,<title>doctor</title>")
                assert await page.title() == "doctor"
            finally:
                await browser.close()
        return time.monotonic() - began

    try:
        took = asyncio.run(asyncio.wait_for(launch(), LAUNCH_TIMEOUT_S))
    except Exception as exc:  # whatever stops it is the finding
        said = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return Check(
            "launch",
            FAIL,
            f"headless Chromium did not load a page: {said}",
            f"run it by hand (`{path} --headless --dump-dom about:blank`) to see why",
        )
    return Check("launch", OK, f"headless, loaded a page in {took * 1000:.0f} ms")


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def check_state_dir(settings: Settings, fix: bool) -> Check:
    root = settings.state_dir
    if not root.exists():
        if not fix:
            return Check(
                "state dir",
                WARN,
                f"{root} does not exist yet",
                "the first command makes it (0700); or `steadyhand doctor --fix`",
            )
        ensure_private_dir(root)
        return Check("state dir", OK, f"{root} (0700)", fixed=[f"made {root} (0700)"])
    info = root.stat()
    if info.st_uid != os.geteuid():
        return Check("state dir", FAIL, f"{root} belongs to uid {info.st_uid}", "use your own")
    fixed: list[str] = []
    if mode_of(root) & 0o077:
        if fix and root.resolve() not in (Path.home().resolve(), Path("/tmp"), Path("/")):
            root.chmod(0o700)
            fixed.append(f"{root} 0700")
        else:
            return Check(
                "state dir",
                FAIL,
                f"{root} is open to others (mode {mode_of(root):o})",
                f"chmod 700 {root} (or `steadyhand doctor --fix`)",
            )
    open_files = [p for p in root.iterdir() if p.is_file() or p.is_socket()]
    loose = [p for p in open_files if p.stat().st_uid == os.geteuid() and mode_of(p) & 0o077]
    if loose and fix:
        for path in loose:
            path.chmod(0o600)
        fixed.append(f"{len(loose)} file(s) 0600: " + ", ".join(p.name for p in loose))
        loose = []
    if loose:
        named = ", ".join(f"{p.name} ({mode_of(p):o})" for p in loose)
        return Check(
            "state dir",
            FAIL,
            f"{root}: files open to others: {named}",
            "chmod 600 them (or `steadyhand doctor --fix`)",
        )
    return Check("state dir", OK, f"{root} (0700, {len(open_files)} files, all 0600)", fixed=fixed)


def check_daemon(settings: Settings, fix: bool) -> Check:
    try:
        status = rpc_client.request(settings, "daemon.status", {}, PROBE_TIMEOUT_S)
    except SteadyhandError as exc:
        stale = settings.socket_path.exists() or settings.socket_path.is_socket()
        if stale and fix:
            settings.socket_path.unlink(missing_ok=True)
            return Check(
                "daemon",
                OK,
                "not running",
                "any command starts it",
                fixed=[f"removed the stale socket {settings.socket_path.name}"],
            )
        hint = "any command starts it (`steadyhand daemon start`)"
        if stale:
            hint = f"a socket is left with no daemon: `steadyhand doctor --fix` removes it; {hint}"
        return Check("daemon", OK if not stale else WARN, f"not running ({exc.message})", hint)
    version = str(status.get("version", "?"))
    saw = (
        f"pid {status.get('pid')}, version {version}, "
        f"{len(status.get('sessions') or [])} session(s), up {status.get('uptime_s', 0):.0f} s"
    )
    if version != __version__:
        return Check(
            "daemon",
            WARN,
            saw,
            f"this CLI is {__version__}: `steadyhand daemon stop` and the next command starts "
            "the new one",
        )
    return Check("daemon", OK, saw)


def check_store(settings: Settings) -> Check:
    if settings.store_url:
        shown = redact_url(settings.store_url)
        try:
            import psycopg

            with psycopg.connect(settings.store_url, connect_timeout=int(PROBE_TIMEOUT_S)) as db:
                version = db.execute("SHOW server_version").fetchone()
        except Exception as exc:
            return Check("store", FAIL, f"{shown}: {exc}", "check store_url and the server")
        return Check("store", OK, f"PostgreSQL {version[0] if version else '?'} at {shown}")
    path = settings.store_path
    if not path.exists():
        return Check("store", OK, f"SQLite {path} (made on first use)")
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=PROBE_TIMEOUT_S) as db:
            verdict = db.execute("PRAGMA quick_check").fetchone()
    except sqlite3.Error as exc:
        return Check("store", FAIL, f"SQLite {path}: {exc}", "move it aside; a new one is made")
    if not verdict or verdict[0] != "ok":
        return Check("store", FAIL, f"SQLite {path}: {verdict}", "move it aside; a new one is made")
    return Check("store", OK, f"SQLite {path} ({path.stat().st_size:,} bytes, quick_check ok)")


def check_http(settings: Settings) -> Check:
    where = f"{settings.http_host}:{settings.http_port}"
    try:
        with socket.create_connection(
            (settings.http_host, settings.http_port), timeout=PROBE_TIMEOUT_S
        ):
            pass
    except OSError:
        return Check("http", OK, f"nothing on {where}", "`steadyhand serve --http` serves the API")
    token_path = settings.http_token_path
    token = token_path.read_text().strip() if token_path.exists() else ""
    request = urllib.request.Request(
        f"http://{where}/v1/health", headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT_S) as answer:
            return Check("http", OK, f"the HTTP API answers on {where} ({answer.status})")
    except urllib.error.HTTPError as exc:
        if exc.code == 401:
            return Check(
                "http",
                WARN,
                f"{where} refuses this state dir's token",
                "another state dir's front?",
            )
        if exc.code == 404:  # `mcp --http` has no /v1/
            return Check("http", OK, f"a server answers on {where} (MCP or another program)")
        return Check("http", WARN, f"{where} answered {exc.code}", "")
    except OSError as exc:
        return Check("http", WARN, f"{where} is taken but does not answer: {exc}", "")


def check_endpoints(settings: Settings) -> Check | None:
    if not settings.browser_endpoints:
        return None
    from steadyhand.engine.endpoints import parse_endpoints

    try:
        endpoints = parse_endpoints(settings.browser_endpoints)
    except SteadyhandError as exc:
        return Check("endpoints", FAIL, exc.message, exc.hint)
    down = []
    for endpoint in endpoints.values():
        url = endpoint.url.replace("ws://", "http://", 1).replace("wss://", "https://", 1)
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/json/version", timeout=PROBE_TIMEOUT_S):
                pass
        except urllib.error.HTTPError:
            pass  # it answers HTTP: a Playwright server has no /json/version
        except OSError as exc:
            down.append(f"{endpoint.name} ({exc})")
    if down:
        return Check("endpoints", WARN, "unreachable: " + "; ".join(down), "start them or fix URLs")
    return Check("endpoints", OK, f"{len(endpoints)} reachable: " + ", ".join(endpoints))


def check_desktop() -> Check:
    missing = [tool for tool in ("Xvfb", "dbus-daemon", "xdotool") if shutil.which(tool) is None]
    try:
        from steadyhand.desktop.atspi import atspi

        atspi()
    except Exception as exc:
        missing.append(f"AT-SPI from Python ({type(exc).__name__})")
    display = os.environ.get("DISPLAY")
    saw = f"DISPLAY={display}" if display else "no DISPLAY"
    if missing:
        return Check(
            "desktop",
            WARN,
            f"{saw}; missing: {', '.join(missing)}",
            "only for desktop.* commands: Debian's xvfb, dbus, xdotool, at-spi2-core, "
            "python3-gi, gir1.2-atspi-2.0",
        )
    how = "desktop.* commands can run here" if display else "`steadyhand desktop session`"
    return Check("desktop", OK, f"{saw}; Xvfb, D-Bus, xdotool and AT-SPI found ({how})")


def run_checks(settings: Settings, fix: bool, launch: bool) -> list[Check]:
    chromium, path = check_chromium(settings, fix)
    checks = [chromium]
    if launch:
        checks.append(check_launch(path))
    checks += [
        check_state_dir(settings, fix),
        check_daemon(settings, fix),
        check_store(settings),
        check_http(settings),
    ]
    endpoints = check_endpoints(settings)
    if endpoints is not None:
        checks.append(endpoints)
    checks.append(check_desktop())
    return checks


def render(checks: list[Check]) -> str:
    lines = [f"steadyhand {__version__}, Python {sys.version.split()[0]}"]
    for check in checks:
        lines.append(f"{check.status:<5} {check.name:<10} {check.saw}")
        lines += [f"{'':16}fixed: {done}" for done in check.fixed]
        if check.hint and check.status != OK:
            lines.append(f"{'':16}hint: {check.hint}")
    failed = sum(c.status == FAIL for c in checks)
    warned = sum(c.status == WARN for c in checks)
    lines.append(f"{failed} failed, {warned} warning(s)")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(
        prog="steadyhand doctor",
        description="Check that Chromium, the state dir, the daemon, the store and the fronts "
        "are ready; --fix repairs what is safe to repair.",
    )
    out.add_argument("--fix", action="store_true", help="repair what can be repaired safely")
    out.add_argument("--json", action="store_true", help="the checks as JSON")
    out.add_argument(
        "--no-launch", action="store_true", help="skip launching Chromium (the slowest check)"
    )
    return out


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        settings = Settings.load()
    except SteadyhandError as exc:
        print(f"fail  settings   {exc.message}\n{'':16}hint: {exc.hint}", file=sys.stderr)
        return 1
    checks = run_checks(settings, args.fix, launch=not args.no_launch)
    if args.json:
        payload: dict[str, Any] = {"version": __version__, "checks": [asdict(c) for c in checks]}
        print(json.dumps(payload, indent=2))
    else:
        print(render(checks))
    return 1 if any(c.status == FAIL for c in checks) else 0
