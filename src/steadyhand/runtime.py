"""One process's runtime: its engine, store, secrets, approvals, live view, desktop,
session leases and metrics, shared by every front and every call (startup.py opens it)."""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import InitVar, dataclass, field
from typing import TYPE_CHECKING

from steadyhand.approvals import Approvals
from steadyhand.config import Settings, event_kinds
from steadyhand.desktop.desktop import Desktop
from steadyhand.desktop.events import DesktopEvents
from steadyhand.engine.engine import Engine
from steadyhand.leasing import SessionLeases
from steadyhand.live.state import LiveState
from steadyhand.observe.metrics import Metrics
from steadyhand.store.base import Store
from steadyhand.vault import Vault
from steadyhand.webhook import Webhook

if TYPE_CHECKING:
    from steadyhand.extension.link import ExtensionLink


@dataclass
class Runtime:
    """One process's engine, store and lifecycle, shared by every front."""

    settings: Settings
    engine: Engine
    store: Store
    started_at: float = field(default_factory=time.time)
    pid: int = field(default_factory=os.getpid)
    stop_requested: asyncio.Event = field(default_factory=asyncio.Event)
    approvals: Approvals = field(init=False)  # the approval gate (settings approval_*)
    live: LiveState = field(init=False)  # what the live view watches (steadyhand/live/)
    metrics: Metrics = field(default_factory=Metrics)
    # With a store other daemons share: this daemon's session leases (steadyhand/leasing.py).
    leases: SessionLeases | None = None
    _desktop: Desktop | None = None
    _extension: ExtensionLink | None = None
    _desktop_webhook: Webhook | None = None
    # The secrets this runtime types by name (settings secrets_*); the daemon makes its own
    # before Playwright starts, to take the secret variables out of the environment first.
    vault: InitVar[Vault | None] = None
    secrets: Vault = field(init=False)

    def __post_init__(self, vault: Vault | None) -> None:
        self.secrets = vault if vault is not None else Vault(self.settings)
        self.approvals = Approvals(self.settings, self.store, self.stop_requested)
        self.live = LiveState(self.settings.live_max_fps, self.settings.live_quality)
        self.approvals.on_change = lambda payload: self.live.feed.publish("approval", **payload)
        if self.approvals.policy.domains:  # connections to them wait for a person
            self.engine.connection_gate = self.approvals.hold
        self.store.on_session_status = self.metrics.session

    @property
    def desktop(self) -> Desktop:
        """The desktop (AT-SPI) side, started on first use."""
        if self._desktop is None:
            self._desktop = Desktop(self.engine.playwright, self.settings.desktop_cache_ms)
            self.wake_webhook()
        return self._desktop

    @property
    def extension(self) -> ExtensionLink:
        """The Chrome extension's relay and session (extension/), made on first use."""
        if self._extension is None:  # imported here: `websockets` only once paired
            from steadyhand.extension.link import ExtensionLink

            self._extension = ExtensionLink(self.settings, self.engine)
        return self._extension

    async def close_extension(self) -> None:
        """Stop the extension's relay, if it was started."""
        if self._extension is not None:
            await self._extension.close()

    @property
    def desktop_events(self) -> DesktopEvents:
        """The desktop's event bus; its listeners start with the first watch, webhook or
        cached snapshot."""
        return self.desktop.events

    def wake_webhook(self) -> None:
        """Post desktop events to the `desktop_webhook` URL from now on, when it is set."""
        if self.settings.desktop_webhook and self._desktop_webhook is None:
            hook = Webhook(self.settings.desktop_webhook, "desktop webhook", "desktop_webhook")
            self._desktop_webhook = hook
        if self._desktop_webhook is not None:
            kinds = event_kinds(self.settings.desktop_webhook_events)
            self.desktop_events.forward_soon(self._desktop_webhook, kinds)
