"""Open one process's runtime: its store, secrets, engine, session leases and `Runtime`.

The daemon and an in-process client (client.LocalBackend) build it alike, here. Imports
are made as they are needed: Playwright's (with the engine) first, so that a daemon's warm
start launches the browser while the rest of the command table loads.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from steadyhand.config import Settings
from steadyhand.private_files import ensure_private_dir

if TYPE_CHECKING:
    from steadyhand.engine.engine import Engine
    from steadyhand.runtime import Runtime
    from steadyhand.store.base import Store
    from steadyhand.vault import Vault


def open_engine(settings: Settings, store: Store, vault: Vault) -> Engine:
    """The engine, knowing the sessions a predecessor left and the secrets of its endpoints."""
    from steadyhand.engine.engine import Engine
    from steadyhand.snapshot import page_model

    engine = Engine(settings, store, page_model.install)
    engine.remote.expand = lambda text, url: vault.expand(text, url, "a browser endpoint's headers")
    engine.load_suspended({r.name for r in store.session_rows() if r.status == "suspended"})
    return engine


async def open_runtime(
    settings: Settings,
    store: Store | None = None,
    vault: Vault | None = None,
    meanwhile: Callable[[Engine], Awaitable[None]] | None = None,
) -> Runtime:
    """The runtime on `store` and `vault` (opened here when not given: the state dir's store
    as it is, the secrets in this process's environment).

    `meanwhile` runs once the engine exists, before the runtime is made of it: the daemon
    starts the browser there and loads the command table on a thread.
    """
    from steadyhand.leasing import session_leases

    if store is None:
        from steadyhand.store.open import open_store

        ensure_private_dir(settings.state_dir)
        store = open_store(settings)
    if vault is None:
        from steadyhand.vault import Vault

        vault = Vault(settings)
    engine = open_engine(settings, store, vault)
    leases = session_leases(settings, store, engine)  # None: the store is this process's
    if meanwhile is not None:
        await meanwhile(engine)
    from steadyhand.runtime import Runtime

    return Runtime(settings=settings, engine=engine, store=store, vault=vault, leases=leases)
