"""The daemon's side of the extension: its relay, and the session the attached tabs make."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from steadyhand.config import Settings
from steadyhand.engine.engine import Engine
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.extension.pairing import Pairing, load_pairing
from steadyhand.extension.relay import Relay, RelayTab

ATTACH_S = 30.0  # for Playwright to connect and set the first tab up
TAB_READY_S = 15.0  # for a later tab's page to be set up and join the session
# The unpacked extension in a source checkout (src/steadyhand/extension -> repo root).
EXTENSION_DIR = Path(__file__).resolve().parents[3] / "extension"
# Chromium's switches to run the unpacked extension (new headless mode runs extensions and
# their service workers; Chromium 137+ needs the feature off to honour --load-extension).
LOAD_ARGS = [
    "--headless=new",
    f"--disable-extensions-except={EXTENSION_DIR}",
    f"--load-extension={EXTENSION_DIR}",
    "--disable-features=DisableLoadExtensionCommandLineSwitch",
]


class ExtensionLink:
    """The relay of the paired extension (one per daemon). The first tab attached opens its
    session over the relay (Engine.attach); later tabs join it; the last one detached
    leaves it open without tabs until the next attach, or until it is closed."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self._settings = settings
        self._engine = engine
        self.relay: Relay | None = None
        self.pairing: Pairing | None = None
        self._opening = asyncio.Lock()

    @property
    def session_name(self) -> str | None:
        return self.pairing.session if self.pairing is not None else None

    async def start_if_paired(self) -> None:
        """At the daemon's start: the relay, when `extension pair` was run before."""
        pairing = load_pairing(self._settings.state_dir)
        if pairing is not None:
            await self.start(pairing)

    async def start(self, pairing: Pairing) -> Relay:
        """Serve the relay for `pairing` (the running one, unless its token changed)."""
        self.pairing = pairing
        if self.relay is not None and self.relay.uses_token(pairing.token):
            return self.relay
        if self.relay is not None:
            await self.relay.close()
            self.relay = None
        relay = Relay(pairing.token, self._settings.extension_port, self._on_attached)
        try:
            await relay.start()
        except OSError as exc:
            raise SteadyhandError(
                ErrorCode.ACTION_FAILED,
                f"the extension relay cannot listen on 127.0.0.1:{relay.port}: {exc.strerror}",
                "set extension_port (STEADYHAND_EXTENSION_PORT) to a free port, or 0 for any",
            ) from exc
        self.relay = relay
        return relay

    async def close(self) -> None:
        if self.relay is not None:
            await self.relay.close()
            self.relay = None

    async def _on_attached(self, tab: RelayTab) -> None:
        """Make the tab part of the session; raises (and the extension lets it go) when the
        session's name belongs to another session."""
        relay, name = self.relay, self.session_name
        if relay is None or name is None:
            raise SteadyhandError(ErrorCode.ACTION_FAILED, "the relay is closing", "")
        async with self._opening:
            session = self._engine.pool.get(name)
            if session is None:
                deadline = time.monotonic() + ATTACH_S
                await self._engine.attach(name, relay.cdp_url, deadline, relay.cdp_headers)
                return  # connecting set up every tab attached so far
            if session.attached != relay.cdp_url:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"session {name!r} is not the extension's",
                    "close it, or pair with another: steadyhand --session NAME extension pair",
                )
        try:
            await asyncio.wait_for(tab.ready.wait(), TAB_READY_S)
        except TimeoutError:
            raise SteadyhandError(
                ErrorCode.TIMEOUT, f"tab {tab.tab_id} was not set up in time", "attach it again"
            ) from None
        # The page joins the session's tabs once Playwright has finished with it (the
        # session has no event for that; its "page" may have fired already).
        deadline = time.monotonic() + TAB_READY_S
        while len(session.tabs) < len(relay.tabs) and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
