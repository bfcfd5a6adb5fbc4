"""Commands for the key that seals stored state at rest: which key, and rotating it."""

from __future__ import annotations

import asyncio

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, command
from steadyhand.store.state_keys import key_id


class StateKeyInfo(Result):
    source: str = Field(description="where the current key comes from")
    current: str = Field(description="the current key's id (not the key)")
    keys: list[str] = Field(description="every key id this daemon can open values with")
    checkpoints: dict[str, int] = Field(
        description="checkpoints per key id that sealed them ('clear': stored before sealing)"
    )


@command(
    "state.key",
    reads_only=True,
    touches_page=False,
    timeout="short",
    for_agents=False,
    caps="storage",
)
async def state_key(call: Call, params: Params) -> StateKeyInfo:
    """Show where the state key comes from and which keys sealed the stored checkpoints."""
    return await asyncio.to_thread(key_info, call)


class RekeyParams(Params):
    keep_old: bool = Field(
        False,
        description="keep the old key beside the new one (files it sealed, such as exported "
        "profiles, still open); by default it is forgotten",
    )


class Rekeyed(StateKeyInfo):
    new_key: bool = Field(description="a new key was made (false: the environment gives it)")
    resealed: int = Field(description="checkpoints sealed again under the current key")
    sealed: int = Field(description="checkpoints that were in clear, sealed now")
    locked: int = Field(description="checkpoints no key held opens, left as they are")
    forgotten: list[str] = Field(description="old key ids dropped")


@command(
    "state.rekey",
    touches_page=False,
    timeout="long",
    autostart=False,
    for_agents=False,
    caps="storage",
)
async def state_rekey(call: Call, params: RekeyParams) -> Rekeyed:
    """Rotate the state key: a new key (unless STEADYHAND_STATE_KEY gives it), every
    checkpoint sealed again under it, the old key forgotten unless --keep-old."""
    return await asyncio.to_thread(rekey, call, params.keep_old)


def rekey(call: Call, keep_old: bool) -> Rekeyed:
    store = call.runtime.store
    keys = store.keys
    new_key = keys.owned
    if new_key:
        keys.rotate()
    counts = store.reseal_checkpoints()
    # A key still sealing a checkpoint that did not open stays: forgetting it loses the row.
    forgotten = [] if keep_old or counts["locked"] else keys.forget_old()
    return Rekeyed(
        **key_info(call).model_dump(),
        new_key=new_key,
        resealed=counts["resealed"],
        sealed=counts["sealed"],
        locked=counts["locked"],
        forgotten=forgotten,
    )


def key_info(call: Call) -> StateKeyInfo:
    store = call.runtime.store
    keys = store.keys
    return StateKeyInfo(
        source=keys.source,
        current=key_id(keys.current()),
        keys=sorted(keys.by_id()),
        checkpoints=store.checkpoint_keys(),
    )
