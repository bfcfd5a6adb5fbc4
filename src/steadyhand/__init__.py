"""steadyhand: reliable hands for AI agents (snapshot -> ref -> act on a managed Chromium).

`Client` / `SyncClient` (the daemon, or in-process with local=True) and `LocalClient`
(in-process) are loaded on first use: the thin CLI imports this package and must stay fast.
`Engine` is LocalClient's old name (deprecated); `__version__` comes from version.py.
"""

from __future__ import annotations

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    from steadyhand.client import Client, LocalClient, SyncClient
    from steadyhand.version import __version__ as __version__

    Engine = LocalClient  # deprecated: LocalClient

__all__ = ["Client", "LocalClient", "SyncClient"]


def __getattr__(name: str) -> object:
    if name == "__version__":  # on first use: the CLI's relay imports this package only
        from steadyhand.version import __version__

        return __version__
    if name in __all__:
        from steadyhand import client

        return getattr(client, name)
    if name == "Engine":
        from steadyhand import client

        return client.deprecated_engine()
    raise AttributeError(f"module 'steadyhand' has no attribute {name!r}")
