"""steadyhand: reliable hands for AI agents (snapshot -> ref -> act on a managed Chromium).

`Client` / `SyncClient` (the daemon, or in-process with local=True) and `Engine` (in-process)
are loaded on first use: the thin CLI imports this package and must stay fast.
"""

from __future__ import annotations

__version__ = "0.1.0"

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    from steadyhand.client import Client, Engine, SyncClient

__all__ = ["Client", "Engine", "SyncClient"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from steadyhand import client

        return getattr(client, name)
    raise AttributeError(f"module 'steadyhand' has no attribute {name!r}")
