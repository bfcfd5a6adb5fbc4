"""The daemon process: private state dir, single-instance lock, socket, graceful exit.

Started by the CLI (`python -m steadyhand.daemon`, new session, output to daemon.log).
On start it reaps any Chromium a killed predecessor left behind; on SIGTERM/SIGINT or
`daemon.stop` it closes every session and the browser before it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import importlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, TypeVar

from steadyhand.config import ENV_PREFIX, Settings
from steadyhand.engine.chromium import find_owned_browsers
from steadyhand.errors import SteadyhandError
from steadyhand.private_files import ensure_private_dir
from steadyhand.startup import open_runtime

if TYPE_CHECKING:
    from steadyhand.engine.engine import Engine
    from steadyhand.leasing import SessionLeases
    from steadyhand.runtime import Runtime
    from steadyhand.store.base import Store
    from steadyhand.store.state_keys import StateKeys
    from steadyhand.vault import Vault

log = logging.getLogger("steadyhand.daemon")

ALREADY_RUNNING = 3
# `python -m steadyhand.daemon --warm-browser` (a command that needs the browser started
# the daemon): Playwright's driver and Chromium start while the command table loads.
WARM_FLAG = "--warm-browser"
SWITCH_INTERVAL_S = 0.001
NICE_ASIDE = 10  # start-up imports yield the cores to the driver's and Chromium's boot
T = TypeVar("T")


def prepare_state_dir(settings: Settings) -> None:
    os.umask(0o077)  # every file and the socket the daemon creates is private to the user
    ensure_private_dir(settings.state_dir)


def acquire_lock(settings: Settings) -> IO[str] | None:
    """Hold the state dir's lock for the daemon's life; None when another daemon has it."""
    handle = open(settings.lock_path, "a+")  # noqa: SIM115 - held open until exit
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def reap_orphans(settings: Settings, wait_s: float = 5.0) -> int:
    """Kill Chromium left by a dead daemon of this state dir; return how many were found."""
    orphans = find_owned_browsers(settings.state_dir)
    own_group = os.getpgrp()
    for browser in orphans:
        target = browser.pgid if browser.pgid != own_group else None
        try:
            if target is not None:
                os.killpg(target, signal.SIGKILL)
            else:
                os.kill(browser.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + wait_s
    while orphans and find_owned_browsers(settings.state_dir) and time.monotonic() < deadline:
        time.sleep(0.05)
    if orphans:
        log.warning("reaped %d Chromium process group(s) left by a previous daemon", len(orphans))
    return len(orphans)


def open_daemon_store(settings: Settings, keys: StateKeys | None = None) -> Store:
    """The store, with what a killed (or stopped) predecessor left in it settled."""
    from steadyhand.store.open import open_store

    # (Leases a previous life of this daemon held carry that process's own owner token:
    # they run out within lease_s, then any daemon takes their sessions over.)
    store = open_store(settings, keys)
    # Checkpoints an older steadyhand stored in clear are sealed now (the others stay
    # under their keys: a fleet mid-rotation may still need the old one; see `state rekey`).
    try:
        store.reseal_checkpoints(only_clear=True)
    except SteadyhandError as exc:  # no key for the sealed rows: they wait for it
        logging.getLogger("steadyhand.daemon").error("checkpoints not sealed: %s", exc.message)
    # Sessions a killed (or stopped) predecessor left are suspended: listed, restorable
    # (a shared store's sessions another daemon's live lease holds are left alone).
    for status in ("active", "live"):
        store.retire_sessions(status, "suspended")
    # Approvals a killed predecessor left waiting can no longer let anything through.
    store.cancel_pending_approvals("the daemon that asked is gone")
    return store


# Settings whose values may hold credentials: read once, then kept out of the environment
# of everything the daemon starts (the driver, Chromium, `desktop launch` programs).
SECRET_SETTINGS = ("store_url", "browser_endpoints")


async def prepare(settings: Settings, warm: bool) -> tuple[Vault, Store]:
    """The secrets read (and out of the environment), Playwright's driver booting on a warm
    start, logging configured, a dead predecessor's browsers reaped, the engine's modules
    imported, the store opened: the vault and the store."""
    from steadyhand.store.state_keys import ENV_KEY, ENV_OLD_KEYS
    from steadyhand.vault import Vault

    # Read the secret variables, then take them out of the environment before Playwright's
    # driver starts: Chromium and the programs `desktop launch` starts inherit it.
    vault = Vault(settings)
    vault.scrub_environ()
    for name in SECRET_SETTINGS:  # a store password, an endpoint's literal token
        os.environ.pop(ENV_PREFIX + name.upper(), None)
    # The state key's variables, kept for the store, go too.
    key_env = {k: os.environ.pop(k) for k in (ENV_KEY, ENV_OLD_KEYS) if k in os.environ}
    if warm:  # the driver boots (a process of its own) while the rest runs aside
        from steadyhand.engine import driver

        driver.start_early()
        await aside(lambda: start_work(settings))
    else:
        start_work(settings)
    # Not aside: a store's own threads (a PostgreSQL pool's) would inherit its priority.
    from steadyhand.store.open import state_keys

    return vault, open_daemon_store(settings, state_keys(settings, key_env))


def start_work(settings: Settings) -> None:
    """Logging configured, a dead predecessor's browsers reaped (before this daemon's own
    starts), the engine's modules imported."""
    from steadyhand.observe.log import configure as configure_logging

    configure_logging(settings)
    reap_orphans(settings)
    for module in ("steadyhand.engine.engine", "steadyhand.snapshot.page_model"):
        importlib.import_module(module)


async def serve(settings: Settings, warm: bool = False) -> None:
    """Run the daemon until it is told to stop.

    Imports are most of a cold start: Playwright's first (a warm start launches the browser
    with it), then the command table, on a thread while the event loop starts the driver
    and Chromium (processes of their own, on another core).
    """
    vault, store = await prepare(settings, warm)
    warming: list[asyncio.Task[None]] = []

    async def meanwhile(engine: Engine) -> None:
        if warm:
            warming.append(asyncio.create_task(warm_up(engine)))
        await load_command_table()

    runtime = await open_runtime(settings, store, vault, meanwhile)
    engine, leases = runtime.engine, runtime.leases  # leases: None when the store is ours
    from steadyhand.fronts import rpc
    from steadyhand.observe import retention

    server = rpc.RpcServer(runtime)
    try:  # before the first request, so a client never sees files due to go
        await asyncio.to_thread(retention.apply, store, settings)
    except Exception:
        log.exception("artifact retention failed at start; the daemon starts all the same")
    await server.start(settings.socket_path)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, runtime.stop_requested.set)
    log.info("daemon %d listening on %s", os.getpid(), settings.socket_path)
    engine.health.start()
    await start_extension_relay(runtime)
    if settings.desktop_webhook and in_a_desktop():
        runtime.wake_webhook()  # else with the first desktop command

    def live() -> set[str]:
        return {session.name for session in engine.pool.sessions()}

    pruning = loop.create_task(retention.every_hour(store, settings, live))
    at_start = settings.restore_sessions == "at_start"
    if at_start:
        restoring = loop.create_task(restore_all(engine, leases))
    try:
        await runtime.stop_requested.wait()
        log.info("stopping")
    finally:
        pruning.cancel()
        for task in warming:
            task.cancel()
        if at_start:
            restoring.cancel()
        await server.close()
        settings.socket_path.unlink(missing_ok=True)
        await engine.shutdown()  # first: the extension's session closes, not "lost"
        await runtime.close_extension()
        if leases is not None:  # after shutdown wrote the sessions as suspended
            await leases.stop()
        store.close()


async def start_extension_relay(runtime: Runtime) -> None:
    """The Chrome extension's relay, when `extension pair` was run on this state dir."""
    from steadyhand.extension.pairing import load_pairing

    pairing = load_pairing(runtime.settings.state_dir)
    if pairing is None:
        return
    try:
        await runtime.extension.start(pairing)
    except SteadyhandError as exc:
        log.warning("the extension relay did not start: %s", exc.message)


async def load_command_table() -> None:
    """Import the command table (and the RPC front) aside, the event loop free."""
    await aside(lambda: importlib.import_module("steadyhand.fronts.rpc"))


async def aside(work: Callable[[], T]) -> T:
    """Run start-up work on a thread of its own at a lower CPU priority (nice +NICE_ASIDE),
    the event loop free: on a warm start, Playwright's driver and Chromium boot on the
    cores meanwhile, ahead of it, and the first command waits on them, not on imports."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not done.done():
            outcome()

    def run() -> None:
        with contextlib.suppress(OSError):  # only this thread (a Linux thread id)
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE_ASIDE)
        try:
            value = work()
        except BaseException as exc:  # handed to the awaiting coroutine
            failed = exc
            loop.call_soon_threadsafe(settle, lambda: done.set_exception(failed))
        else:
            loop.call_soon_threadsafe(settle, lambda: done.set_result(value))

    # The working thread holds the GIL: have it hand the GIL to the event loop sooner
    # when Playwright's driver writes, so that a warm start's launch goes on meanwhile.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        threading.Thread(target=run, name="steadyhand-start", daemon=True).start()
        return await done
    finally:
        sys.setswitchinterval(interval)


async def warm_up(engine: Engine) -> None:
    """Launch the shared browser ahead of the first command; a failure is logged here and
    met again, as an error, by the command that needs the browser."""
    started = time.monotonic()
    try:
        await engine.browser()
    except Exception as exc:
        log.warning("could not start the browser ahead of use: %s", exc)
    else:
        log.info("browser ready %.2f s into the warm start", time.monotonic() - started)


def in_a_desktop() -> bool:
    """Whether the daemon runs in a desktop session (else its desktop commands will fail)."""
    return bool(os.environ.get("DISPLAY") and os.environ.get("DBUS_SESSION_BUS_ADDRESS"))


async def restore_all(engine: Engine, leases: SessionLeases | None = None) -> None:
    """`restore_sessions = at_start`: bring back every suspended session, side by side
    (with a shared store, those whose lease this daemon gets)."""
    names = sorted(engine.suspended())

    async def one(name: str) -> None:
        try:
            if leases is not None:
                await leases.claim(name)
            report = await engine.restore(name)
            log.info("restored session %s: %s", name, report)
        except SteadyhandError as exc:
            log.warning("could not restore session %s: %s", name, exc)

    await asyncio.gather(*(one(n) for n in names))


def main(argv: list[str] | None = None) -> int:
    warm = WARM_FLAG in (sys.argv[1:] if argv is None else argv)
    try:
        settings = Settings.load()
        prepare_state_dir(settings)
    except SteadyhandError as exc:
        print(f"error [{exc.code}]: {exc.message}", file=sys.stderr)
        return 2
    lock = acquire_lock(settings)
    if lock is None:  # (logging is not configured yet: this goes to daemon.log)
        print(f"another daemon holds {settings.lock_path}; exiting", file=sys.stderr)
        return ALREADY_RUNNING
    try:
        settings.pid_path.write_text(f"{os.getpid()}\n")
        asyncio.run(serve(settings, warm))
    finally:
        settings.pid_path.unlink(missing_ok=True)
        lock.close()
    log.info("daemon %d exited", os.getpid())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
