"""The user's own Chrome: pair the steadyhand extension, see and let go its attached tabs.

The extension (extension/ at the repo root, loaded unpacked) relays the DevTools protocol
of the tabs the user attaches with its toolbar button; they are the tabs of one session
(`chrome` unless `--session NAME` is given to `extension pair`), driven like any other.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, command, positional, secret_field
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.extension.link import EXTENSION_DIR
from steadyhand.extension.pairing import load_pairing, pair

DEFAULT_SESSION = "chrome"


class PairParams(Params):
    new: bool = Field(False, description="a new token (the extension must then be given it again)")


class Paired(Result):
    relay_url: str = Field(description="enter it in the extension's options")
    token: str = secret_field("enter it in the extension's options (kept 0600 in the state dir)")
    session: str = Field(description="the session the attached tabs make")
    extension_dir: str = Field(description='load it unpacked in chrome://extensions ("" if absent)')


@command(
    "extension.pair",
    in_browser=False,
    touches_page=False,
    timeout="short",
    for_agents=False,
    caps="sessions",
)
async def extension_pair(call: Call, params: PairParams) -> Paired:
    """Start the extension relay and print its URL and pairing token (kept across restarts)."""
    name = call.session_name if call.session_name != "default" else DEFAULT_SESSION
    state_dir = call.runtime.settings.state_dir
    pairing = await asyncio.to_thread(pair, state_dir, name, params.new)
    relay = await call.runtime.extension.start(pairing)
    return Paired(
        relay_url=relay.extension_url,
        token=pairing.token,
        session=pairing.session,
        extension_dir=str(EXTENSION_DIR) if EXTENSION_DIR.is_dir() else "",
    )


class AttachedTab(Result):
    tab: int = Field(description="Chrome's tab id (for `extension detach`)")
    url: str
    title: str


class ExtensionStatus(Result):
    PAGE_TEXT: ClassVar[bool] = True
    paired: bool
    relay_url: str = Field(description='"" while the relay is not running')
    connected: bool = Field(description="whether the extension is connected to the relay")
    session: str = Field(description='the session the attached tabs make ("" before pairing)')
    tabs: list[AttachedTab] = Field(description="the tabs attached now (badge ON)")


@command("extension.status", in_browser=False, touches_page=False, reads_only=True, caps="sessions")
async def extension_status(call: Call, params: Params) -> ExtensionStatus:
    """Whether the extension is paired and connected, and which tabs it has attached."""
    link = call.runtime.extension
    pairing = link.pairing or await asyncio.to_thread(load_pairing, call.runtime.settings.state_dir)
    relay = link.relay
    tabs = list(relay.tabs.values()) if relay is not None else []
    return ExtensionStatus(
        paired=pairing is not None,
        relay_url=relay.extension_url if relay is not None else "",
        connected=relay is not None and relay.extension_connected,
        session=pairing.session if pairing is not None else "",
        tabs=[AttachedTab(tab=t.tab_id, url=t.url, title=t.title) for t in tabs],
    )


class DetachParams(Params):
    tab: int | None = positional("Chrome's tab id (`extension status`); all tabs if omitted", None)


class Detached(Result):
    detached: list[int] = Field(description="the tabs let go (their badges go off)")


@command("extension.detach", in_browser=False, touches_page=False, caps="sessions")
async def extension_detach(call: Call, params: DetachParams) -> Detached:
    """Let go of an attached tab of the user's Chrome (or all of them); Chrome keeps it open."""
    relay = call.runtime.extension.relay
    attached = sorted(relay.tabs) if relay is not None else []
    wanted = attached if params.tab is None else [params.tab]
    if params.tab is not None and params.tab not in attached:
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"tab {params.tab} is not attached",
            "attached: " + (", ".join(map(str, attached)) or "none") + " (`extension status`)",
        )
    assert relay is not None or not wanted
    return Detached(detached=[t for t in wanted if relay is not None and relay.detach(t)])
